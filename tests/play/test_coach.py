"""The coach (nivel_env/coach.py): a legal move and a reason at every decision, from what
the person may see, and the guided first game (issue 29: "a first game that teaches")."""
import random

from nivel_env.cards import list_decks, load_deck
from nivel_env.coach import LESSONS, TUTORIAL, Coach
from nivel_env.engine import new_game
from nivel_env.engine.hidden import determinize, relabel, substitute
from nivel_env.session import tutorial


def test_following_every_hint_of_the_first_game_wins_and_teaches_every_lesson_once():
    s = tutorial()
    assert s.human == TUTORIAL["seat"] and s.seed == TUTORIAL["seed"]
    given, decisions = [], 0
    while not s.over:
        h = s.hint()
        assert h is not None and h.action in s.legal() and h.why
        assert s.hint() is h                               # asked again: the same answer
        if h.lesson:
            given.append(h.lesson)
        s.play(h.action)
        decisions += 1
    assert s.outcome() == "win", "the guided game must be one the hints win"
    assert len(given) == len(set(given)) and set(given) == set(LESSONS.values())
    assert decisions < 80 and s.g.turn <= 16                  # a short first game
    assert any(e.kind == "damage" and e.trigger and e.player == s.human
               for e in s.g.events)                           # a trigger is seen


def test_the_first_game_is_the_same_every_time():
    def moves():
        s = tutorial()
        out = []
        while not s.over:
            out.append(s.hint().action)
            s.play(out[-1])
        return out, s.replay_lines()
    assert moves() == moves()


def test_a_hint_is_a_legal_move_with_a_reason_at_every_decision():
    decks = list_decks()
    for seed in range(6):
        g = new_game(load_deck(decks[seed % len(decks)]),
                     load_deck(decks[(seed + 3) % len(decks)]), seed=seed)
        coaches = [Coach(0, seed), Coach(1, seed)]
        rng = random.Random(seed)
        while not g.is_terminal():
            p = g.current_player
            h = coaches[p].hint(g)
            assert h.action in g.legal_actions(), (g.decision, h)
            assert h.why and "{" not in h.why and "None" not in h.why, h.why
            assert coaches[1 - p].hint(g) is None              # not their decision
            g.apply_action(h.action if rng.random() < 0.5 else rng.choice(g.legal_actions()))


def test_a_hint_reads_only_what_the_person_may_see():
    """The same move and the same words in worlds that differ only in what the person
    cannot see: the opponent's hand, the decks' order, card instances renamed."""
    checked = 0
    for seed in range(4):
        g = new_game(load_deck("tide-scholars"), load_deck("veil-piercers"), seed=seed)
        rng = random.Random(seed)
        coaches = [Coach(0, seed), Coach(1, seed)]          # one each, lessons and all
        step = 0
        while not g.is_terminal():
            if step % 5 == 0 and len(g.legal_actions()) > 1:
                p = g.current_player
                want = coaches[p].hint(g)
                for h in (determinize(g, p, seed=step), substitute(g, p, seed=step + 1),
                          relabel(g, p, seed=step + 2)):
                    assert coaches[p].hint(h) == want, (g.decision, want)
                assert coaches[p].hint(g) == want                   # asked again
                coaches[p].given(g, want)
                checked += 1
            g.apply_action(rng.choice(g.legal_actions()))
            step += 1
    assert checked > 20
