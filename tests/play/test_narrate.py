"""The narration tells each event from the viewer's side, in plain words, and names no card
the viewer may not see."""
import random

import pytest

from conftest import P, do, make, to_attack
from nivel_env.cards import load_card_db, load_deck
from nivel_env.engine import new_game
from nivel_env.engine.const import PER
from nivel_env.engine.events import ReturnToHand, Reveal
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
                if e.kind == "draw" and e.player != viewer:
                    assert line.startswith("Your opponent draws ") and "card" in line
                if e.kind == "search" and e.player != viewer:
                    seen_search += 1
                    assert db.get(e.card).name not in line
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
    assert n.line(ReturnToHand("T-002", g.unit[3], 1)) == \
        "Their Flame Lancer returns to its owner’s hand (Gust)."
    assert n.line(Reveal(1, "T-002", g.unit[3], "return_to_hand", "hand")) == \
        "Your opponent reveals Flame Lancer."
    assert n.line(Reveal(0, "T-002", 1, "search", "hand")) == "You reveal Flame Lancer."


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
        for prev, e in zip([None] + g.events, g.events):
            line = n.line(e)
            if e.kind == "damage" and e.trigger:
                seen += 1
                text = [x for x in db.get(e.card).text.splitlines()
                        if x.startswith("[Trigger] ")][0][len("[Trigger] "):]
                assert f"a Trigger! {db.get(e.card).name}: {text}" in line
            if e.kind == "trigger":       # the cause from its record until its effect_end
                assert prev.kind == "damage" and prev.trigger and line is None
                assert n.cause and n.cause[-1] == db.get(e.card).name
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


# cards that move hand and deck cards without a card condition (and one with)
HIDDEN_MOVES = """
cards:
  - {id: N-01, type: skill, name: Tuck Two, name_ko: 두 장 넣기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 2}}}]}
  - {id: N-02, type: skill, name: Bury Deep, name_ko: 깊이 묻기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: opponent, zone: hand, random: 1}}}]}
  - {id: N-03, type: skill, name: Dredge, name_ko: 끌어올리기, cost: 1, attribute: fire,
     effect: [{return_to_hand: {target: {who: you, zone: deck, random: 1}}}]}
  - {id: N-04, type: skill, name: Tuck a Unit, name_ko: 유닛 넣기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 1,
                                         filter: {type: unit}}}}]}
  - {id: N-05, type: skill, name: Dig Up, name_ko: 파내기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: you, zone: deck, random: 1}}}]}
  - {id: N-06, type: skill, name: Pry Loose, name_ko: 빼내기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: opponent, zone: hand, random: 1}}}]}
  - {id: N-07, type: skill, name: Reclaim, name_ko: 되찾기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: you, zone: unit, choose: 1}}}]}
"""


def _hidden_moves_db(tmp_path):
    from conftest import TEST_POOL
    from nivel_env.cards.db import bundled_card_files
    f = tmp_path / "moves.yaml"
    f.write_text(HIDDEN_MOVES, encoding="utf-8")
    return load_card_db(bundled_card_files() + [TEST_POOL, f])


def test_cards_an_effect_moves_out_of_a_hand_or_deck_are_not_named_to_the_other_seat(
        tmp_path):
    """3.1.7, 3.8.3: without a card condition the other player learns that cards moved and
    how many, not which; the owner (who sees their own hand) is told the names."""
    db = _hidden_moves_db(tmp_path)
    g = make(db, P(level=5, hand=["N-01", "T-002", "T-003", "N-02", "N-03"],
                   deck=["T-004"] * 6),
             P("T-L02", hand=["T-021"], deck=["T-022"] * 6))
    mine, theirs = Narrator(g, 0), Narrator(g, 1)
    mine.seen = theirs.seen = len(g.events)
    do(g, "use Tuck Two")
    do(g, "pick Flame Lancer")
    do(g, "pick Raider of Ash")
    do(g, "pick Flame Lancer")                   # 3.1.6: the owner orders them under the deck
    told_them, told_me = theirs.new_lines(), mine.new_lines()
    assert "2 cards go from their hand to the bottom of their deck (Tuck Two)." in told_them
    assert not any("Flame Lancer" in x or "Raider of Ash" in x for x in told_them), told_them
    assert "Your Flame Lancer goes from your hand to the bottom of your deck (Tuck Two)." \
        in told_me
    assert "Your Raider of Ash goes from your hand to the bottom of your deck (Tuck Two)." \
        in told_me
    # a random card of the opponent's hand: its owner knows it, the player who used the
    # effect does not
    do(g, "use Bury Deep")
    told_them, told_me = theirs.new_lines(), mine.new_lines()
    assert "A card goes from their hand to the bottom of their deck (Bury Deep)." in told_me
    assert not any("Tide Guard" in x for x in told_me), told_me
    assert "Your Tide Guard goes from your hand to the bottom of your deck (Bury Deep)." \
        in told_them
    # from a deck to a hand: only the owner sees the card arrive
    do(g, "use Dredge")
    told_them, told_me = theirs.new_lines(), mine.new_lines()
    assert "A card goes from their deck to their hand (Dredge)." in told_them
    assert any(x.startswith("Your ") and "goes from your deck to your hand (Dredge)" in x
               for x in told_me), told_me
    # the events as the other seat may read them carry no card either
    from nivel_env.engine.hidden import seat_event
    moved = [e for e in g.events if e.kind in ("to_deck_bottom", "return_to_hand")]
    assert len(moved) == 4
    assert all(seat_event(e, 1 - e.player).card is None for e in moved[:2] + moved[3:])
    assert seat_event(moved[2], 0).card is None and seat_event(moved[2], 1).card is not None


def test_a_card_condition_still_reveals_the_moved_card(tmp_path):
    db = _hidden_moves_db(tmp_path)
    g = make(db, P(level=5, hand=["N-04", "T-002"]), P("T-L02"))
    theirs = Narrator(g, 1)
    theirs.seen = len(g.events)
    do(g, "use Tuck a Unit")
    lines = theirs.new_lines()
    assert "A card goes from their hand to the bottom of their deck (Tuck a Unit)." in lines
    assert "Your opponent reveals Flame Lancer." in lines


def test_salvage_out_of_a_hand_or_deck_is_told_by_where_the_card_came_from(tmp_path):
    """salvage reads its cards from any zone a target names: out of a deck or a hand the
    other seat hears that a card went, from where and to where, never a blank name or
    "from the trash"; the owner hears the card (3.8.2, 3.8.3)."""
    db = _hidden_moves_db(tmp_path)
    g = make(db, P(level=5, hand=["N-05", "N-06", "N-07"], deck=["T-004"] * 6,
                   units=["T-002"], trash=["T-003"]),
             P("T-L02", hand=["T-021"], deck=["T-022"] * 6))
    mine, theirs = Narrator(g, 0), Narrator(g, 1)
    mine.seen = theirs.seen = len(g.events)
    do(g, "use Dig Up")
    told_them, told_me = theirs.new_lines(), mine.new_lines()
    assert "A card goes from their deck to their hand (Dig Up)." in told_them, told_them
    assert not any("trash" in x or "  " in x for x in told_them), told_them
    assert "Your Gale Runner goes from your deck to your hand (Dig Up)." in told_me, told_me
    do(g, "use Pry Loose")                   # the opponent's random hand card: theirs alone
    told_them, told_me = theirs.new_lines(), mine.new_lines()
    assert "A card goes from their hand to their hand (Pry Loose)." in told_me, told_me
    assert "Your Tide Guard goes from your hand to your hand (Pry Loose)." in told_them
    do(g, "use Reclaim")                      # out of an open zone: named, from the field
    told_them = theirs.new_lines()
    assert "Their Flame Lancer goes from their field to their hand (Reclaim)." in told_them
    assert not any("trash" in x for x in told_them), told_them


# ------------------------------------------------------------------ issue 29

def test_an_awakened_leader_is_told_by_the_face_in_play(db):
    """10.2.6.1: from its awakening on, a leader is its back face -- in every line, also
    when a finished game's whole log is told at once (a replay) or from part-way."""
    g = make(db, P("LD-01", level=5, units=["T-002"], hand=["T-001"] * 2), P("T-L02"),
             turn_player=1, phase="attack")
    do(g, "end attack phase")                     # player 0's turn: level 6, awakening
    do(g, "end main phase")
    woke = next(i for i, e in enumerate(g.events) if e.kind == "awaken")
    do(g, "activate Hwaryeon, Wildfire Queen")
    do(g, "pick Ember Squire (hand 0)")           # the discard it costs
    mine, theirs = narrate(g, 0), narrate(g, 1)
    assert "Your leader awakens: Hwaryeon, Ember Warlord turns to Hwaryeon, Wildfire " \
           "Queen." in mine
    assert "Your opponent’s leader awakens: Hwaryeon, Ember Warlord turns to Hwaryeon, " \
           "Wildfire Queen." in theirs
    assert "You activate Hwaryeon, Wildfire Queen." in mine
    assert "Your opponent activates Hwaryeon, Wildfire Queen." in theirs
    assert "Your Flame Lancer gets +2 power (Hwaryeon, Wildfire Queen)." in mine
    for lines in (mine, theirs, narrate(g, 0, since=woke), narrate(g, 0, since=woke + 1)):
        assert not [x for x in lines if "Ember Warlord" in x and "awakens" not in x], lines
    # a scenario can build the leader already awakened: no awaken event to go by
    g = make(db, P("LD-01", level=6, units=["T-002"], hand=["T-001"]), P("T-L02"),
             phase="attack")
    n = Narrator(g, 1)
    do(g, "activate Hwaryeon")
    assert "Your opponent activates Hwaryeon, Wildfire Queen." in n.new_lines()


def _played_out(d0: str, d1: str, seed: int):
    """A game between random movers, played to its end."""
    return _random_game(d0, d1, seed)


#: every pair of different bundled decks, in a fixed order
_PAIRS = [(a, b) for a in ("ember-rush", "veil-piercers", "anvil-guild", "tide-scholars",
                           "gale-runners", "stone-bastion", "dawn-ascent", "twilight-pact")
          for b in ("twilight-pact", "dawn-ascent", "ember-rush", "gale-runners",
                    "veil-piercers", "stone-bastion", "anvil-guild", "tide-scholars")
          if a != b]


def _leader_face_errors(g, viewer: int) -> tuple[list[str], int]:
    """Lines that name a leader by the face it did not show at the event told, and how
    many lines named an awakened leader (random games start unawakened)."""
    woke = {e.player: i for i, e in enumerate(g.events) if e.kind == "awaken"}
    leaders = [g.card(p * PER) for p in (0, 1)]
    out, backs = [], 0
    for idx, line in Narrator(g, viewer).told_lines():
        e = g.events[idx[0]]
        if e.kind == "awaken":
            c = leaders[e.player]
            if not line.endswith(f"{c.name} turns to {c.back.name}."):
                out.append(f"the awakening names the wrong faces: {line!r}")
            continue
        for p, c in enumerate(leaders):
            if c.back is None:
                continue
            awake = p in woke and woke[p] < idx[0]
            right, wrong = (c.back.name, c.name) if awake else (c.name, c.back.name)
            if wrong in line:
                out.append(f"{line!r} names {wrong!r} while {right!r} was in play")
            backs += awake and right in line
    return out, backs


def test_random_games_name_each_leader_by_the_face_in_play():
    for c in load_card_db().cards:
        if c.back is not None:                    # else a name check proves nothing
            assert c.name not in c.back.name and c.back.name not in c.name
    told_back = 0
    for seed, (d0, d1) in enumerate(_PAIRS[:24]):
        g = _played_out(d0, d1, seed)
        for viewer in (0, 1):
            errors, backs = _leader_face_errors(g, viewer)
            assert errors == [], (seed, d0, d1, viewer)
            told_back += backs
    assert told_back > 5, told_back


def test_ending_a_phase_is_told_and_the_turns_own_phases_are_not(db):
    g = make(db, P(units=["T-002"]), P("T-L02", units=["T-001"]))
    mine, theirs = Narrator(g, 0), Narrator(g, 1)
    mine.seen = theirs.seen = len(g.events)
    do(g, "end main phase")
    assert mine.new_lines() == ["You end the main phase."]
    assert theirs.new_lines() == ["Your opponent ends the main phase."]
    do(g, "end attack phase")
    told_me, told_them = mine.new_lines(), theirs.new_lines()
    assert told_me[0] == "You end the attack phase." and \
        told_them[0] == "Your opponent ends the attack phase."
    # the next turn's level, draw and main phase start with no phase line
    assert not [x for x in told_me[1:] if "phase" in x], told_me
    start = len(g.events)
    do(g, "end main phase")                       # the opponent's turn, told in one batch
    do(g, "end attack phase")
    assert narrate(g, 0, since=start)[0] == \
        "Your opponent ends the main phase and the attack phase without attacking."


def test_a_wraiths_return_and_a_battles_loser_are_told_once(db):
    """Issue 29: a Wraith trashed in battle was told trashed twice (the battle line, then
    its trash) and its return three times (Return, Return to hand, the return)."""
    g = make(db, P(units=["T-002"]), P("T-L02", units=["DA-12"]), phase="attack")
    n = Narrator(g, 0)
    n.seen = len(g.events)
    do(g, "attack with Flame Lancer")
    do(g, "defend")
    do(g, "end attack phase")
    wraith = [x for x in n.new_lines() if "Wraith" in x]
    assert wraith == [
        "Their Wraith blocks.",
        "Your Flame Lancer (3) beats their Wraith (1): the blocker is trashed.",
        "Their Wraith's Return takes effect: it goes back to their hand at the end of the "
        "turn.",
        "Their Wraith returns to its owner’s hand (Return)."], wraith


def test_a_unit_at_zero_power_is_told_trashed_once(db):
    g = make(db, P(level=5, hand=["DA-14"]), P("T-L02", units=["T-001"]))
    n = Narrator(g, 1)
    n.seen = len(g.events)
    do(g, "use Curse of Frailty")
    lines = n.new_lines()
    assert lines[-1] == "Your Ember Squire has 0 power and is trashed."
    assert sum("trashed" in x for x in lines) == 1, lines


def test_the_repeat_check_catches_what_issue_29_reported(db):
    """The check below must fail on the narration the issue reported."""
    from narration_repeats import repeats
    g = make(db, P(units=["T-002"]), P("T-L02", units=["DA-12"]), phase="attack")
    start = len(g.events)
    do(g, "attack with Flame Lancer")
    do(g, "defend")
    do(g, "end attack phase")
    ev = g.events
    at = {t: next(i for i in range(start, len(ev)) if ev[i].kind == t and
                  (t != "keyword" or ev[i].keyword == "Return to hand"))
          for t in ("battle", "trash", "keyword", "return_to_hand")}
    told = [((at["battle"],), "Your Flame Lancer (3) beats their Wraith (1): the blocker "
                              "is trashed."),
            ((at["trash"],), "Their Wraith is trashed in battle."),
            ((at["keyword"],), "Their Wraith's Return to hand takes effect."),
            ((at["return_to_hand"],), "Their Wraith returns to its owner’s hand.")]
    found = repeats(ev, told)
    assert len(found) == 2 and "went to the trash" in found[0] and \
        "keyword's result" in found[1], found
    assert repeats(ev, [told[0], told[0]])        # the same line twice in a row
    assert repeats(ev, [told[0], told[3]]) == []


def _no_repeats(games: int) -> None:
    from narration_repeats import narration_repeats
    for seed in range(games):
        d0, d1 = _PAIRS[seed % len(_PAIRS)]
        g = _played_out(d0, d1, seed)
        for viewer in (0, 1):
            assert narration_repeats(g, viewer) == [], (seed, d0, d1, viewer)


def test_random_games_tell_nothing_twice():
    _no_repeats(40)


@pytest.mark.slow
def test_many_random_games_tell_nothing_twice():
    _no_repeats(1500)


def test_a_mulligan_is_one_line_not_a_draw_and_a_redraw():
    """A mulligan's new hand is told by the mulligan line, not as a second 'draws 5'."""
    from nivel_env.engine import actions as A
    from nivel_env.narrate import narrate
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=3)
    p = g.current_player
    g.apply_action(A.MULLIGAN)
    for viewer in (0, 1):
        lines = narrate(g, viewer)
        assert sum("draw" in x and "5 cards" in x for x in lines) == 2, lines   # deals
        assert lines[-1].endswith("shuffles the hand back and draws a new one.") or \
            lines[-1] == "You shuffle the hand back and draw a new one.", lines
        assert (viewer == p) == lines[-1].startswith("You ")
