"""The terminal game's screen at the documented size (exactly 100 columns by 30 rows), its
keys and its prompts (issue 29: numbers dropped and keys shown as '…' at 100 columns, keys
that changed meaning when the hand shrank, identical rows for two copies of a card)."""
import io
import random
import subprocess
import sys

import pytest
from rich.console import Console

from nivel_env.cards import list_decks, load_deck
from nivel_env.cli_play import _pick, _screen
from nivel_env.engine import actions as A
from nivel_env.engine import new_game
from nivel_env.screen import HandKeys, move_key, move_rows, ordered_moves


def _positions(n: int, kinds=None):
    """(game, keys of the player to move) at ``n`` positions of seeded random games, the
    hand keys kept up to date as a screen would."""
    decks = list_decks()
    out = []
    for seed in range(n):
        g = new_game(load_deck(decks[seed % len(decks)]),
                     load_deck(decks[(3 * seed + 1) % len(decks)]), seed=seed)
        rng = random.Random(seed)
        keys = [HandKeys(), HandKeys()]
        stop = rng.randrange(2, 16)
        while not g.is_terminal() and (g.turn < stop or kinds and g.decision.kind not in kinds):
            p = g.current_player
            keys[p].update(g.hand[p])
            g.apply_action(rng.choice(g.legal_actions()))
            if g.turn > stop + 6:
                break
        if not g.is_terminal():
            p = g.current_player
            out.append((g, keys[p].update(g.hand[p])))
    return out


def _screen_text(g, nums) -> str:
    c = Console(record=True, width=100, height=30, file=io.StringIO())
    _screen(c, g, g.current_player, g.legal_actions(), nums)
    return c.export_text()


def test_at_100_columns_every_move_shows_its_numbers_and_keys_whole():
    """Numbers and keys are never cut; no two rows read alike; no line is wider than 100."""
    seen_two_columns = False
    for g, nums in _positions(40) + _positions(12, kinds=("pick", "defense", "attack")):
        text = _screen_text(g, nums)
        lines = text.splitlines()
        assert max(len(x) for x in lines) <= 100
        rows = move_rows(g, g.legal_actions(), nums)
        words = [r.words for r in rows]
        assert len(words) == len(set(words)), words
        for r in rows:
            assert any(f"{r.numbers}  {r.keys}" in line for line in lines) or \
                (not r.keys and any(f"{r.numbers}  " in line for line in lines)), (r, text)
        assert "…" not in "".join(r.keys for r in rows)
        seen_two_columns |= any(len(line) > 60 and line.count("  h") >= 2 for line in lines)
    assert seen_two_columns                           # the crowded case was tried


def test_the_screen_fits_30_rows_in_most_positions():
    """The board, the question, the moves and the prompt in 30 rows: the moves go to two
    columns when one would not fit."""
    heights = sorted(len(_screen_text(g, nums).splitlines()) + 1
                     for g, nums in _positions(40))
    assert heights[int(len(heights) * 0.9)] <= 30, heights


def test_hand_keys_stay_with_their_cards():
    keys = HandKeys()
    assert keys.update([11, 12, 13, 14]) == [0, 1, 2, 3]
    assert keys.update([11, 13, 14]) == [0, 2, 3]             # h1 played: h2 stays h2
    assert keys.update([11, 13, 14, 20]) == [0, 2, 3, 1]      # a new card takes h1
    assert keys.update([20, 14]) == [1, 3]
    assert keys.update([]) == [] and keys.update([5]) == [0]


def test_a_key_names_the_same_card_after_the_hand_shrinks():
    """Playing the card at hand slot 1 shifts the later cards down a slot; their keys
    stay, and a number typed names the row it was shown on."""
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=3)
    while g.decision.kind != "main":
        g.apply_action(g.legal_actions()[0])
    p = g.current_player
    keys = HandKeys()
    nums = keys.update(g.hand[p])
    plays = [a for a in g.legal_actions() if A.PLAY <= a < A.ACTIVATE]
    first = plays[0]
    slot = (first - A.PLAY) // A.PLAY_TARGETS
    later = g.hand[p][slot + 1:]
    before = {iid: f"h{n}" for iid, n in zip(g.hand[p], nums)}
    g.apply_action(first)
    while g.current_player != p or g.decision.kind != "main":
        g.apply_action(g.legal_actions()[0])
    nums = keys.update(g.hand[p])
    after = {iid: f"h{n}" for iid, n in zip(g.hand[p], nums)}
    assert later and all(after[i] == before[i] for i in later if i in after)
    for a in g.legal_actions():                     # each key picks its own move back
        k = move_key(g, a, nums)
        if k:
            assert _pick(g, g.legal_actions(), k, nums) == a
    for n, a in enumerate(ordered_moves(g, g.legal_actions(), nums), 1):
        assert _pick(g, g.legal_actions(), str(n), nums) == a


def test_two_copies_of_a_card_are_two_different_rows():
    from nivel_env.engine.scenario import load_scenario
    g = load_scenario({"players": [{"leader": "LD-01", "level": 4,
                                    "hand": ["FI-03", "FI-03", "FI-01"]},
                                   {"leader": "LD-04", "deck": ["EA-15", "EA-16"]}]})
    nums = HandKeys().update(g.hand[0])
    rows = move_rows(g, g.legal_actions(), nums)
    copies = [r for r in rows if g.card(g.hand[0][0]).name in r.words]
    assert len(copies) == 2 and copies[0].words != copies[1].words
    assert "(h0)" in copies[0].words and "(h1)" in copies[1].words


def _run(args, text):
    return subprocess.run([sys.executable, "-m", "nivel_env", *args], input=text,
                          capture_output=True, text=True, timeout=300)


def test_an_empty_line_asks_again_kindly():
    r = _run(["play", "--seed", "8", "--opponent", "random", "--seat", "0"], "\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    assert "'' is not a move" not in r.stdout
    assert "Type a move: its number (1 to " in r.stdout


def _lines_to_an_attack_phase(seed: int):
    """The input lines that bring ``play --seed SEED --opponent random --seat 0`` to an
    attack phase of the person's where a unit can attack (playing what can be played,
    then ending the phase), or None if the game ends first."""
    from nivel_env.session import PlaySession
    s = PlaySession("ember-rush", "stone-bastion", "random", seat=0, seed=seed)
    keys, lines = HandKeys(), []
    while not s.over:
        legal = s.legal()
        nums = keys.update(s.g.hand[0])
        if s.g.decision.kind == "attack" and any(A.ATTACK <= a < A.DEFEND for a in legal):
            return lines
        plays = [a for a in legal if A.PLAY <= a < A.ACTIVATE]
        a = plays[0] if plays else A.END_MAIN if A.END_MAIN in legal else \
            A.END_ATTACK if A.END_ATTACK in legal else legal[0]
        lines.append(str(ordered_moves(s.g, legal, nums).index(a) + 1))
        s.play(a)
    return None


def test_ending_the_turn_with_units_that_can_still_attack_asks_first():
    """'e' in the attack phase while an attack is legal asks; anything but yes keeps the
    phase, and the phase end is played only after a yes."""
    seed, lines = next((i, x) for i in range(5, 40)
                       if (x := _lines_to_an_attack_phase(i)) is not None)
    r = _run(["play", "--seed", str(seed), "--opponent", "random", "--seat", "0", "--deck", "ember-rush",
              "--opponent-deck", "stone-bastion"],
             "\n".join(lines + ["e", "n", "e", "y", "quit", "y"]) + "\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    asked = out.index("can still attack. End the turn anyway? (y/N)")
    assert "Still your attack phase." in out[asked:]
    assert out.count("can still attack. End the turn anyway?") == 2
    assert "You end the attack phase" in out[asked:]              # and it is told


def test_help_and_rules_print_whole_where_the_output_is_not_a_terminal():
    r = _run(["play", "--seed", "8", "--opponent", "random", "--seat", "0"],
             "help\nrules\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    assert "The screen, top to bottom" in r.stdout and "Keywords:" in r.stdout


def test_the_guided_first_game_in_the_terminal():
    r = _run(["play", "--tutorial"], "hint\n1\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "A guided first game" in out and "Lesson: Your opening hand" in out
    assert "Coach: Keep this hand" in out and "(type 1 or k)" in out
    assert "▶ 1  k  keep opening hand" in out                    # the row pointed at
    assert out.count("Lesson: Your opening hand") == 1           # each lesson once
    bad = _run(["play", "--tutorial", "--deck", "ember-rush"], "")
    assert bad.returncode == 2 and "leave out --deck" in bad.stderr


def test_hint_in_any_game_names_a_legal_move():
    r = _run(["play", "--seed", "8", "--opponent", "random", "--seat", "0"],
             "hint\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.split("Coach: ")[1].split("Move (")[0]
    assert "(type " in said and "Lesson" not in r.stdout      # lessons: the tutorial's


def test_the_screen_greys_what_cannot_be_played_and_forecasts_a_block():
    """In the main phase a hand card with no legal play stays on screen, greyed, with
    the engine's reason; at a block the outcome of each choice is told."""
    from nivel_env.engine import play_blockers
    seen_reason = seen_forecast = False
    for g, nums in _positions(30) + _positions(12, kinds=("defense",)):
        text = _screen_text(g, nums)
        p = g.current_player
        if g.decision.kind == "main":
            for reason in play_blockers(g, p).values():
                assert f"can't play: {reason}"[:40] in " ".join(text.split())
                seen_reason = True
        if g.decision.kind == "defense":
            assert "No block: you take " in text or "must" in text
            assert "Block with your " in text and " vs their " in text
            seen_forecast = True
    assert seen_reason and seen_forecast


def test_a_search_opponent_thinks_within_the_play_limit():
    """Both screens' sessions cap a search's wall time a move (a person is waiting; the
    expert took 12.7 s a move on a loaded machine), unless the spec names its own cap;
    tournaments load the same name uncapped."""
    pytest.importorskip("torch")
    from agents import load_opponent
    from agents.opponents import PLAY_THINK_SECONDS
    from nivel_env.session import PlaySession
    s = PlaySession("ember-rush", "stone-bastion", "expert", seed=3, seat=0)
    assert s.agent.max_ms == PLAY_THINK_SECONDS * 1000
    named = PlaySession("ember-rush", "stone-bastion", "nv2-search:max_ms=2000", seed=3)
    assert named.agent.max_ms == 2000
    assert PlaySession("ember-rush", "stone-bastion", "expert", seed=3,
                       think_seconds=None).agent.max_ms is None
    assert load_opponent("expert").max_ms is None                 # evaluate.py's expert
