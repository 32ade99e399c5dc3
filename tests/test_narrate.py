"""The narration tells each event from the viewer's side, in plain words, and names no card
the viewer may not see."""
import random

from conftest import P, do, make, to_attack
from nivel_env.cards import load_card_db, load_deck
from nivel_env.engine import new_game
from nivel_env.narrate import Narrator, narrate


def test_moves_are_told_from_the_viewers_side(db):
    g = make(db, P(level=5, hand=["T-002"]), P("T-L02"))
    do(g, "play Flame Lancer (hand 0) -> lane 1")
    assert narrate(g, 0)[-1] == "You play Flame Lancer in your lane 1."
    assert narrate(g, 1)[-1] == "Your opponent plays Flame Lancer in their lane 1."


def test_a_battle_names_both_units_and_their_powers(db):
    g = make(db, P(units=["T-002"]), P("T-L02", units=["T-001"]), turn=3)
    n = Narrator(g, 1)
    n.seen = len(g.events)
    to_attack(g)
    do(g, "attack with Flame Lancer")
    do(g, "defend")
    lines = n.new_lines()
    assert "Their Flame Lancer (lane 0) attacks." in lines
    assert "Your Ember Squire blocks." in lines
    assert "Their Flame Lancer (3) beats your Ember Squire (2): the blocker is trashed." \
        in lines


def _random_game(d0: str, d1: str, seed: int):
    g = new_game(load_deck(d0), load_deck(d1), seed=seed)
    rng = random.Random(seed)
    while not g.is_terminal():
        legal = g.legal_actions()
        g.apply_action(legal[rng.randrange(len(legal))])
    return g


def test_the_opponents_draws_are_a_count_and_a_search_names_nothing_unrevealed():
    db = load_card_db()
    seen_search = 0
    for seed in range(12):
        g = _random_game("gale-runners", "anvil-guild", seed)
        for viewer in (0, 1):
            lines = narrate(g, viewer)
            assert lines[-1].startswith("Game over: you ")
            for e, line in zip(g.events, [Narrator(g, viewer).line(e) for e in g.events]):
                if e["type"] == "draw" and e["player"] != viewer:
                    assert line.startswith("Your opponent draws ") and "card" in line
                if e["type"] == "search" and e["player"] != viewer:
                    seen_search += 1
                    assert db.get(e["card"]).name not in line
    assert seen_search > 0


def test_every_event_of_random_games_narrates_and_the_end_says_why():
    reasons = set()
    for seed in range(20):
        g = _random_game("ember-rush", "tide-scholars", seed)
        last = narrate(g, 0)[-1]
        assert " — " in last and "a loss condition" not in last
        reasons.add(last.split(" — ")[1])
    assert reasons <= {"you reached 10 damage.", "your opponent reached 10 damage.",
                       "you had no card left to draw.",
                       "your opponent had no card left to draw."}


def test_automatic_abilities_are_told_with_their_text():
    g = _random_game("anvil-guild", "veil-piercers", 3)
    lines = narrate(g, 0)
    assert "Your Forge Golem: [Entry] Search your deck for up to 1 item with cost 2 or less, " \
           "reveal it, put it into your hand and shuffle your deck." in lines
    assert any(x.startswith("Their ") and ": [Attacker] " in x for x in lines)


def test_cards_changed_by_an_effect_name_the_effect(db):
    g = make(db, P(level=5, hand=["DA-14"]), P("T-L02", units=["T-002"]))
    n = Narrator(g, 0)
    n.cause = ["Gust"]
    assert n.line({"type": "return_to_hand", "card": "T-002", "iid": g.unit[3],
                   "player": 1}) == "Their Flame Lancer returns to its owner’s hand (Gust)."
    assert n.line({"type": "reveal", "player": 1, "card": "T-002"}) == \
        "Your opponent reveals Flame Lancer."
    assert n.line({"type": "reveal", "player": 0, "card": "T-002"}) == "You reveal Flame Lancer."


def test_a_stat_change_names_its_cause(db):
    g = make(db, P(level=5, hand=["DA-14"]), P("T-L02", units=["T-002"]))
    do(g, "use Curse of Frailty")
    assert narrate(g, 1)[-1] == "Your Flame Lancer gets -2 power (Curse of Frailty)."


def test_a_guardian_names_what_it_paid(db):
    from test_rules_combat import OPP, attack
    from nivel_env.engine import actions as A
    g = make(db, P(units=[None, "T-003"]), P(OPP, units=["T-021"], hand=["T-001", "T-003"]))
    n = Narrator(g, 1)
    n.seen = len(g.events)
    attack(g, "Raider of Ash")
    do(g, "guardian Tide Guard")
    g.apply_action(A.PICK)
    lines = n.new_lines()
    assert "You discard Ember Squire (to pay for Guardian)." in lines
    assert "Your Tide Guard steps in as Guardian from lane 0, paying Barrier 1." in lines


def test_a_trigger_says_what_it_does_and_becomes_the_cause():
    db = load_card_db()
    seen = 0
    for seed in range(6):
        g = _random_game("ember-rush", "anvil-guild", seed)
        n = Narrator(g, 0)
        for e in g.events:
            line = n.line(e)
            if e["type"] == "damage" and e["trigger"]:
                seen += 1
                text = [x for x in db.get(e["card"]).text.splitlines()
                        if x.startswith("[Trigger] ")][0][len("[Trigger] "):]
                assert f"a Trigger! {db.get(e['card']).name}: {text}" in line
                assert n.cause and n.cause[-1] == db.get(e["card"]).name
    assert seen > 3


def test_a_guardian_sacrifice_is_told_as_its_payment(db):
    from test_rules_combat import OPP, attack
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=["T-022", None, "T-035"], hand=[]))
    n = Narrator(g, 1)
    n.seen = len(g.events)
    attack(g, "Flame Lancer")
    do(g, "guardian Stone Sentinel")
    lines = n.new_lines()
    paid = [x for x in lines if x.endswith("is trashed (to pay for Guardian).")]
    guard = [x for x in lines if "steps in as Guardian" in x]
    assert len(paid) == 1 and paid[0].startswith("Your ") and len(guard) == 1
    assert lines.index(paid[0]) < lines.index(guard[0]) and "paying Sacrifice 1" in guard[0]
