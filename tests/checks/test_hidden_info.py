"""Hidden information (3.1.5, 3.1.7, 3.2.2, 3.8.3, 11.2.1): picks from hidden zones, legal
moves that must not depend on hidden cards, reveals, and the check that guards them."""
import numpy as np
import pytest

from nivel_env.cards import load_card_db
from nivel_env.cards.db import bundled_card_files
from nivel_env.checks.hidden import view, world_errors
from nivel_env.checks.invariants import pick_order_errors
from nivel_env.engine import actions as A
from nivel_env.engine.hidden import determinize, relabel, substitute
from nivel_env.engine.scenario import build
from nivel_env.env.encoder import CARD_ROWS, OFFSETS, ROW_CANDS, Encoder
from nivel_env.env import card_features as cf
from conftest import TEST_POOL, do

CARDS = """
cards:
  - {id: H-01, type: skill, name: Deep Sabotage, name_ko: 깊은 파괴, cost: 1, attribute: fire,
     effect: [{trash: {who: opponent, zone: deck, choose: 1, filter: {type: unit}}}]}
  - {id: H-02, type: skill, name: Mind Rot, name_ko: 정신 부식, cost: 1, attribute: fire,
     effect: [{trash: {who: opponent, zone: hand, choose: 1, filter: {type: skill}}}]}
  - {id: H-03, type: skill, name: Seek Flame, name_ko: 불꽃 탐색, cost: 1, attribute: fire,
     effect: [{search: {filter: {type: unit}, amount: 1}}]}
  - {id: H-04, type: skill, name: Recall, name_ko: 소환 해제, cost: 1, attribute: fire,
     effect: [{return_to_hand: {who: opponent, zone: unit, choose: 1}}]}
"""


@pytest.fixture(scope="module")
def hdb(tmp_path_factory):
    f = tmp_path_factory.mktemp("h") / "hidden.yaml"
    f.write_text(CARDS, encoding="utf-8")
    return load_card_db(bundled_card_files() + [TEST_POOL, f])


def game(db, hand, opp_hand=(), opp_deck=("T-003", "T-021", "T-002", "T-021", "T-003"),
         deck=("T-002",) * 6):
    return build({"players": [
        {"leader": "T-L01", "level": 5, "hand": list(hand), "deck": list(deck)},
        {"leader": "T-L02", "level": 5, "hand": list(opp_hand), "deck": list(opp_deck)}],
        "check_field_cost": False}, db)


def cand_rows(obs):
    cards = obs[OFFSETS["cards"]:OFFSETS["zones"]].reshape(CARD_ROWS, cf.WIDTH)
    return cards[ROW_CANDS:ROW_CANDS + 16]


def test_a_pick_from_the_opponents_deck_is_listed_by_card_and_seen_by_the_chooser(hdb):
    g = game(hdb, ["H-01"])
    do(g, "use Deep Sabotage")
    assert g.decision.kind == "pick" and g.dec[1] == 0
    cands = g.dec[3]
    assert [g.defs[i] for i in cands] == sorted(g.defs[i] for i in cands)   # by card
    assert pick_order_errors(g) == []
    names = [g.action_name(a) for a in g.legal_actions() if a >= A.PICK]
    assert len(names) == 5 and names[0].startswith("pick Flame Lancer")
    enc = Encoder(hdb)
    mine = enc.encode(g, 0, g.legal_actions()).copy()
    theirs = enc.encode(g, 1).copy()
    assert (cand_rows(mine)[:5, 0] == 1).all()          # the chooser sees the five cards
    assert not cand_rows(theirs).any()                  # the other player sees none of them
    slots = theirs[OFFSETS["candidate_slots"]:OFFSETS["cards"]]
    assert not slots.any() and theirs[OFFSETS["global_values"] + 3] == 0   # nor how many
    # worlds that keep what the chooser sees
    for h in (determinize(g, 0, 1), substitute(g, 0, 2), relabel(g, 0, 3)):
        assert view(enc, h, 0) == view(enc, g, 0)
    assert world_errors(enc, g, 0, 7) == [] and world_errors(enc, g, 1, 7) == []


def test_pick_order_invariant_catches_deck_order(hdb, monkeypatch):
    from nivel_env.engine import effects
    monkeypatch.setattr(effects, "hidden_last_by_card", lambda g, chooser, cands: cands)
    g = game(hdb, ["H-01"])
    do(g, "use Deep Sabotage")
    assert any("not listed by card" in e for e in pick_order_errors(g))


def test_legal_moves_never_depend_on_the_opponents_hidden_hand(hdb, monkeypatch):
    enc = Encoder(hdb)
    # no skill in the opponent's hand, but cards: Mind Rot may be played (R13)
    g = game(hdb, ["H-02"], opp_hand=["T-002", "T-021"])
    assert any("Mind Rot" in g.action_name(a) for a in g.legal_actions())
    assert world_errors(enc, g, 0, 11) == []
    do(g, "use Mind Rot")                              # finds nothing to trash
    assert len(g.hand[1]) == 2 and g.decision.kind == "main"
    # an empty hand is public: then it may not be played
    g2 = game(hdb, ["H-02"], opp_hand=[])
    assert not any("Mind Rot" in g2.action_name(a) for a in g2.legal_actions())
    # the check catches the old rule (legal only if a skill is in the hidden hand)
    from nivel_env.engine import verbs
    from nivel_env.engine.match import select
    monkeypatch.setattr(verbs, "_has_targets",
                        lambda g, p, s, a: bool(select(g, p, s, a.target)))
    monkeypatch.setitem(verbs.HANDLERS, "trash",
                        verbs.HANDLERS["trash"]._replace(possible=verbs._has_targets))
    g3 = game(hdb, ["H-02"], opp_hand=["T-002", "T-021"], opp_deck=["H-02"] * 8)
    errs = [e for s in range(10) for e in world_errors(enc, g3, 0, s)]
    assert any("mask" in e for e in errs), errs


def test_a_search_with_a_card_condition_reveals_the_card(hdb):
    g = game(hdb, ["H-03"], deck=["T-002", "T-001", "T-021"])
    do(g, "use Seek Flame")
    do(g, "pick Flame Lancer")
    ev = [e for e in g.events if e.kind == "reveal"]
    assert len(ev) == 1 and ev[0].player == 0 and ev[0].to == "hand"
    from nivel_env.narrate import narrate
    theirs, mine = narrate(g, 1), narrate(g, 0)
    assert "Your opponent searches their deck and takes a card." in theirs
    assert "Your opponent reveals Flame Lancer." in theirs     # the name only by the reveal
    assert "You search your deck and take Flame Lancer." in mine


def test_the_check_catches_a_leak_in_each_channel(hdb, monkeypatch):
    enc = Encoder(hdb)
    g = game(hdb, ["H-01"], opp_hand=["T-001", "T-021"])
    do(g, "use Deep Sabotage")
    # an encoder that shows the chooser's candidates to the other player too
    real = Encoder._candidates

    def leaky(self, g, p, d, rowof, rows, ones, vi, vv, power):
        return real(self, g, d.player, d, rowof, rows, ones, vi, vv, power)
    monkeypatch.setattr(Encoder, "_candidates", leaky)
    assert any("observation" in e for e in world_errors(enc, g, 1, 5))
    monkeypatch.undo()
    # action names that tell a hidden card (the first of the opponent's hand)
    from nivel_env.engine import state
    real_name = state.Game.action_name

    def named_by_position(self, a):
        return real_name(self, a) + f" (they hold {self.card(self.hand[1][0]).id})"
    monkeypatch.setattr(state.Game, "action_name", named_by_position)
    assert any("action names" in e for e in world_errors(enc, g, 0, 5))
    monkeypatch.undo()
    # an observation that depends on instance ids
    real_enc = Encoder.encode

    def by_iid(self, g, p, legal=None):
        v = real_enc(self, g, p, legal)
        v[0] = g.deck[1][0] / 100 if g.deck[1] else 0
        return v
    monkeypatch.setattr(Encoder, "encode", by_iid)
    assert any("relabelled" in e or "redrawn" in e for e in world_errors(enc, g, 0, 5))


def test_hidden_check_reports_its_comparisons():
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks import hidden_info_errors
    st: dict = {}
    errs, k = hidden_info_errors(load_deck(list_decks()[0]), load_deck(list_decks()[1]), 3,
                                 stats=st)
    assert errs == [] and k > 10 and st["comparisons"] == k * 5 * 4
    assert np.isfinite(st["comparisons"])


def known_rows(obs):
    return obs[OFFSETS["opponent_known_hand"]:OFFSETS["count"]].reshape(-1, cf.WIDTH)


def test_cards_known_to_be_in_the_opponents_hand_are_remembered(hdb):
    """A unit returned from the field or a searched card shown under 3.1.7 is known to be
    in its owner's hand: the other player's observation keeps its row until it leaves."""
    enc = Encoder(hdb)
    g = build({"players": [
        {"leader": "T-L01", "level": 5, "hand": ["H-04", "H-03"], "deck": ["T-002"] * 6},
        {"leader": "T-L02", "level": 5, "hand": ["T-009"], "deck": ["T-021"] * 6,
         "units": ["T-021"]}], "check_field_cost": False}, hdb)
    do(g, "use Recall")
    if g.decision.kind == "pick":
        do(g, "pick")
    back = [i for i in g.hand[1] if g.card(i).id == "T-021"]
    assert g.known[1] == back and len(back) == 1
    seen = known_rows(enc.encode(g, 0, g.legal_actions()).copy())
    assert seen[0, 0] == 1 and not seen[1:].any()
    assert np.array_equal(seen[0], enc.table.matrix[g.card(back[0]).index + 1])
    assert not known_rows(enc.encode(g, 1).copy()).any()      # nothing of player 0's is known
    assert world_errors(enc, g, 0, 3) == [] and world_errors(enc, g, 1, 3) == []
    for h in (determinize(g, 0, 5), substitute(g, 0, 6)):     # the known card stays itself
        assert h.defs[back[0]] == g.defs[back[0]]
    # the search's card is revealed to player 1 and remembered in their view
    do(g, "use Seek Flame")
    g.apply_action(A.PICK)
    assert len(g.known[0]) == 1
    assert known_rows(enc.encode(g, 1).copy())[0, 0] == 1
    # when the known card leaves the hand, it is forgotten
    from nivel_env.engine.zones import move
    from nivel_env.engine import const as K
    move(g, back[0], K.Z_TRASH)
    assert g.known[1] == [] and not known_rows(enc.encode(g, 0).copy()).any()
    from nivel_env.checks import invariant_errors
    assert invariant_errors(g) == []
    g.known[1].append(g.hand[1][0])                   # a "known" card that is not there ...
    g.known[1].append(g.deck[1][0])
    assert any("known hand cards" in e for e in invariant_errors(g))


def test_the_check_catches_showing_unknown_hand_cards(hdb, monkeypatch):
    enc = Encoder(hdb)
    g = game(hdb, ["H-01"], opp_hand=["T-001", "T-021", "T-003"])
    real = Encoder.encode

    def all_hand(self, g, p, legal=None):
        v = real(self, g, p, legal)
        rows = [self._row_of(g)[i] for i in g.hand[1 - p]][:8]
        known_rows(v)[:len(rows)] = self.table.matrix[rows]
        return v
    monkeypatch.setattr(Encoder, "encode", all_hand)
    assert any("observation" in e for e in world_errors(enc, g, 0, 1))


# ------------------------------------------------ the narration and agents that read the game
MOVES = """
cards:
  - {id: HN-01, type: skill, name: Tuck Two, name_ko: 두 장 넣기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 2}}}]}
  - {id: HN-02, type: skill, name: Bury Deep, name_ko: 깊이 묻기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: opponent, zone: hand, random: 1}}}]}
  - {id: HN-03, type: skill, name: Dredge, name_ko: 끌어올리기, cost: 1, attribute: fire,
     effect: [{return_to_hand: {target: {who: you, zone: deck, random: 1}}}]}
  - {id: HN-04, type: skill, name: Dig Up, name_ko: 파내기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: you, zone: deck, random: 1}}}]}
  - {id: HN-05, type: skill, name: Pry Loose, name_ko: 빼내기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: opponent, zone: hand, random: 1}}}]}
  - {id: HN-06, type: skill, name: Sweep Hands, name_ko: 패 쓸기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: any, zone: hand, choose: 3}}}]}
  - {id: HN-07, type: skill, name: Deep Cut, name_ko: 깊이 베기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: opponent, zone: deck, choose: 1}}}]}
  - {id: HN-08, type: skill, name: Tuck Theirs, name_ko: 상대 패 넣기, cost: 1,
     attribute: fire,
     effect: [{to_deck_bottom: {target: {who: opponent, zone: hand, choose: 1}}}]}
"""


@pytest.fixture(scope="module")
def mdb(tmp_path_factory):
    f = tmp_path_factory.mktemp("m") / "moves.yaml"
    f.write_text(MOVES, encoding="utf-8")
    return load_card_db(bundled_card_files() + [TEST_POOL, f])


def _name_every_card(monkeypatch):
    """The narration as it was: every event read as it is, whoever the seat."""
    import nivel_env.narrate
    import nivel_env.checks.hidden
    monkeypatch.setattr(nivel_env.narrate, "seat_event", lambda e, viewer: e)
    monkeypatch.setattr(nivel_env.checks.hidden, "seat_event", lambda e, viewer: e)


def test_the_narration_check_catches_a_hand_card_named_to_the_other_seat(mdb, monkeypatch):
    from nivel_env.checks.hidden import told_errors
    enc = Encoder(mdb)
    g = game(mdb, ["HN-01", "T-002", "T-003", "T-021"], opp_hand=["T-021", "T-001"])
    moves = _moves_of(g, ("use Tuck Two", "pick Flame Lancer", "pick Raider of Ash"))
    assert told_errors(enc, g, 1, moves, 5) == [] and told_errors(enc, g, 0, moves, 5) == []
    _name_every_card(monkeypatch)
    errs = told_errors(enc, g, 1, moves, 5)
    assert errs and "narration told to player 1" in errs[0], errs
    assert told_errors(enc, g, 0, moves, 5) == []          # the owner may hear the names


def _moves_of(g, texts):
    """The action ids of ``texts`` played in turn from ``g`` (left as it is)."""
    x, out = g.clone(), []
    for text in texts:
        hits = [a for a in x.legal_actions() if text in x.action_name(a)]
        assert len(hits) == 1, (text, [x.action_name(a) for a in x.legal_actions()])
        out.append(hits[0])
        x.apply_action(hits[0])
    return out


def test_the_narration_check_over_games_with_hidden_moves(mdb, monkeypatch):
    """Random games of decks carrying cards that move hand and deck cards: the check
    passes, and catches the narration that named them (before 3.8.3 was kept)."""
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import _random_game, narration_errors
    from nivel_env.cli_check import decks_with_cards
    from nivel_env.engine import new_game
    base = [load_deck(n, mdb) for n in list_decks()[:2]]
    decks = decks_with_cards(base, [mdb.get(c) for c in ("HN-01", "HN-02", "HN-03")])
    seeds, st = range(3), {}
    moved = 0
    for s in seeds:
        errs, k = narration_errors(decks[0], decks[1], s, stats=st)
        assert errs == [] and k > 10
        g = new_game(decks[0], decks[1], seed=s)
        for a in _random_game(decks[0], decks[1], s, None, 4)[0]:
            g.apply_action(a)
        moved += sum(getattr(e, "from_zone", None) is not None for e in g.events)
    assert moved >= 3 and st["comparisons"] > 100         # the games moved hidden cards
    _name_every_card(monkeypatch)
    caught = [narration_errors(decks[0], decks[1], s)[0] for s in seeds]
    assert any(caught), "the check missed hand cards named to the other seat"
    assert "told to player" in next(c for c in caught if c)[0]


#: (card, opponent's hand, opponent's deck): a choice with no more candidates than it takes
#: -- as many as possible, so all of them (8.3.3.1): nobody is asked, nobody looks
FORCED = [("HN-06", ["T-021"], ["T-022"] * 3),          # 2 cards in both hands for 3
          ("HN-07", ["T-021"], ["T-003"]),              # the opponent's deck's only card
          ("HN-08", ["T-021"], ["T-022"] * 3)]          # the opponent's hand's only card


def test_a_choice_nobody_was_asked_names_no_hidden_card_to_its_chooser(mdb):
    """3.8.3, 11.2.1: the player whose effect chooses looks at the candidates only when
    asked; where every candidate is taken without asking, the player's view shows none of
    them, so the words may not name one either: "A card goes from their hand to the bottom
    of their deck", not "Their Tide Guard ...".  The narration check sees the difference."""
    from nivel_env.checks.hidden import told_errors
    from nivel_env.engine.hidden import seat_event
    from nivel_env.narrate import Narrator
    enc = Encoder(mdb)
    for card, opp_hand, opp_deck in FORCED:
        g = game(mdb, [card, "T-002"], opp_hand=opp_hand, opp_deck=opp_deck)
        name = mdb.get(card).name
        moves = _moves_of(g, (f"use {name}",))
        assert told_errors(enc, g, 0, moves, 5) == [], card
        n = Narrator(g, 0)
        n.seen = len(g.events)
        g.apply_action(moves[0])
        assert g.decision.kind != "pick", card                   # nobody was asked
        theirs = [e for e in g.events if getattr(e, "from_zone", None) and e.player == 1]
        assert len(theirs) == 1 and seat_event(theirs[0], 0).card is None, (card, theirs)
        zone = theirs[0].from_zone
        assert f"A card goes from their {zone} to the bottom of their deck ({name})." in \
            n.new_lines(), card


def test_a_chooser_asked_to_pick_a_hidden_card_is_told_it_and_the_owner_is_not(mdb):
    """11.2.1: asked to choose from the opponent's deck, the player looks at the candidates
    (their view shows them), so the words may name the card taken; its owner sees no deck
    card (3.2.2) and hears a card went.  The narration check agrees on both seats."""
    from nivel_env.checks.hidden import told_errors
    from nivel_env.narrate import Narrator
    enc = Encoder(mdb)
    g = game(mdb, ["HN-07", "T-002"], opp_deck=["T-003", "T-022", "T-021"])
    moves = _moves_of(g, ("use Deep Cut", "pick Tide Guard"))
    assert told_errors(enc, g, 0, moves, 5) == [] and told_errors(enc, g, 1, moves, 5) == []
    mine, theirs = Narrator(g, 0), Narrator(g, 1)
    mine.seen = theirs.seen = len(g.events)
    for a in moves:
        g.apply_action(a)
    assert "Their Tide Guard goes from their deck to the bottom of their deck (Deep Cut)." \
        in mine.new_lines()
    assert "A card goes from your deck to the bottom of your deck (Deep Cut)." in \
        theirs.new_lines()


def test_the_narration_check_keeps_the_cards_picked_before_the_position_it_starts_at(mdb):
    """A position in the middle of a choice among both hands: the chooser picked one of the
    opponent's hand cards before it and is told its name when the effect moves it.  The
    candidates offered now leave it out; a world that changed it was not one the chooser
    cannot tell apart (the check reported a leak there: checks.hidden.picked_so_far)."""
    from nivel_env.checks.hidden import picked_so_far, told_errors
    enc = Encoder(mdb)
    g = game(mdb, ["HN-06", "T-002", "T-003"], opp_hand=["T-021", "T-001", "T-022"])
    do(g, "use Sweep Hands")
    do(g, "pick Tide Guard (opponent's hand)")
    theirs = next(i for i in g.hand[1] if g.card(i).id == "T-021")
    assert picked_so_far(g, 0) == {theirs} and picked_so_far(g, 1) == set()
    moves = _moves_of(g, ("pick Flame Lancer", "pick Raider of Ash"))
    assert told_errors(enc, g, 0, moves, 5) == [] and told_errors(enc, g, 1, moves, 5) == []


def test_the_narration_check_catches_a_forced_choice_named_to_the_other_seat(mdb,
                                                                               monkeypatch):
    """The case above, with every event read whole (the narration before 3.8.3 was kept):
    the check reports the opponent's hand card named to the player whose effect moved it."""
    from nivel_env.checks.hidden import told_errors
    enc = Encoder(mdb)
    _name_every_card(monkeypatch)
    for card, opp_hand, opp_deck in FORCED:
        g = game(mdb, [card, "T-002"], opp_hand=opp_hand, opp_deck=opp_deck)
        errs = told_errors(enc, g, 0, _moves_of(g, (f"use {mdb.get(card).name}",)), 5)
        assert errs and "told to player 0" in errs[0], (card, errs)


def test_the_narration_check_refuses_blank_names_and_placeholders(mdb, monkeypatch):
    """A line with an empty card name ("Your opponent takes  back from the trash.") or a
    placeholder left in it is the same in every world, so comparing worlds cannot catch
    it: the check reads each line's shape as well."""
    import nivel_env.narrate as narrate
    from nivel_env.checks.hidden import line_errors, told_errors
    enc = Encoder(mdb)
    g = game(mdb, ["HN-04", "HN-05", "T-002"], opp_hand=["T-021", "T-001"])
    moves = _moves_of(g, ("use Dig Up", "use Pry Loose"))
    assert told_errors(enc, g, 1, moves, 5) == [] and told_errors(enc, g, 0, moves, 5) == []
    assert line_errors("Your opponent takes  back from the trash.")
    assert line_errors("A card goes from their deck to {whose} hand.")
    assert line_errors("Their Flame Lancer goes to the bottom of its owner’s deck .")
    assert not line_errors("A card goes from their deck to their hand (Dig Up).")
    with monkeypatch.context() as m:                       # a blank card name
        m.setattr(narrate.Narrator, "name", lambda self, card_id: "")
        errs = told_errors(enc, g, 1, moves, 5)
        assert errs and "told to player 1" in errs[0] and "blank" in errs[0], errs
    with monkeypatch.context() as m:                       # a placeholder left in a line
        m.setitem(narrate._MOVES, "salvage", "to {{whose}} hand")
        errs = told_errors(enc, g, 1, moves, 5)
        assert errs and "placeholder" in errs[0] and "{whose}" in errs[0], errs


def test_the_narration_check_over_games_that_salvage_from_hidden_zones(mdb):
    """Random games of decks that salvage out of a deck and a hand: the narration check
    passes (before, the other seat heard "Your opponent takes  back from the trash.")."""
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import _random_game, narration_errors
    from nivel_env.cli_check import decks_with_cards
    from nivel_env.engine import new_game
    base = [load_deck(n, mdb) for n in list_decks()[2:4]]
    decks = decks_with_cards(base, [mdb.get(c) for c in ("HN-04", "HN-05")])
    salvaged = 0
    for s in range(3):
        errs, k = narration_errors(decks[0], decks[1], s)
        assert errs == [] and k > 10, errs
        g = new_game(decks[0], decks[1], seed=s)
        for a in _random_game(decks[0], decks[1], s, None, 4)[0]:
            g.apply_action(a)
        salvaged += sum(e.kind == "salvage" and e.from_zone is not None for e in g.events)
    assert salvaged >= 2                                   # the games did salvage so


class _Peeker:
    """An agent that reads the game and lets ``peek(g, player)`` (something hidden from
    that player) pick its move."""
    needs_state = True

    def __init__(self, peek):
        self.peek = peek

    def act_state(self, g):
        legal = g.legal_actions()
        return legal[hash(self.peek(g, g.current_player)) % len(legal)]


def test_the_agent_check_catches_agents_that_read_hidden_cards():
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import agent_hidden_errors
    d0, d1 = load_deck(list_decks()[0]), load_deck(list_decks()[1])
    fair = _Peeker(lambda g, p: (tuple(g.defs[i] for i in g.hand[p]), g.turn))
    st: dict = {}
    errs, k = agent_hidden_errors(fair, d0, d1, 3, stats=st)
    assert errs == [] and k > 5 and st["comparisons"] == 3 * k
    # which cards the opponent holds unseen, in hand or deck: a redrawn world deals them
    # again (so the deck alone differs there too), only a substituted one changes them
    peeks = {"substituted": lambda g, p: tuple(sorted(
        g.defs[i] for i in [*g.deck[1 - p], *g.hand[1 - p]] if i not in g.known[1 - p])),
             "redrawn": lambda g, p: tuple(g.defs[i] for i in g.deck[p]),
             "relabelled": lambda g, p: tuple(g.hand[1 - p])}
    for world, peek in peeks.items():
        errs, _ = agent_hidden_errors(_Peeker(peek), d0, d1, 3)
        assert errs and f"in a {world} world" in errs[0], (world, errs)
    # an agent that knows the opponent's list (open lists) may read it; nothing else
    from nivel_env.engine.hidden import hidden_groups
    knows = _Peeker(lambda g, p: tuple(sorted(g.defs[i] for i in hidden_groups(g, p)[0])))
    knows.deck_lists = "open"
    assert agent_hidden_errors(knows, d0, d1, 3)[0] == []
    knows.peek = peeks["redrawn"]
    assert agent_hidden_errors(knows, d0, d1, 3)[0]


def test_the_agent_check_passes_the_search():
    pytest.importorskip("torch")
    from agents import load_opponent
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import agent_hidden_errors
    search = load_opponent("nv1-ppo:simulations=16,worlds=4", seed=2)
    errs, k = agent_hidden_errors(search, load_deck(list_decks()[2]),
                                  load_deck(list_decks()[3]), 5, every=12)
    assert errs == [] and k > 3


def test_the_agent_check_catches_a_search_whose_worlds_hold_the_true_hidden_cards():
    """What the search did before docs/rulings.md R24: worlds redrawn from the opponent's
    true hidden cards.  The move rarely changes, but the visit counts show it."""
    pytest.importorskip("torch")
    from agents import load_opponent
    from agents.search import SearchAgent
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import agent_hidden_errors

    class TrueWorlds(SearchAgent):
        def prior(self, db):
            return None                    # the opponent's true hidden cards, shuffled
    net = load_opponent("nv1-ppo")
    d0, d1 = load_deck(list_decks()[2]), load_deck(list_decks()[6])
    errs, _ = agent_hidden_errors(TrueWorlds(net, simulations=64, worlds=4, seed=0), d0, d1, 2)
    assert errs and "substituted world" in errs[0], errs
    assert agent_hidden_errors(SearchAgent(net, simulations=64, worlds=4, seed=0), d0, d1, 2,
                               every=16)[0] == []


def test_a_card_put_into_a_deck_cannot_be_followed_back_out(mdb):
    """3.2.2: a card both players knew (revealed in hand) put under the deck and a copy of
    it later searched out: no seat can tell whether it is the same copy, so no seat is
    told the instance of a card going into a deck.  The narration check found this in a
    game where the search took the tucked copy in the real game and another in a renamed
    world (Anvil Guild+new against Gale Runners+new, seed 2000020)."""
    from nivel_env.cli_check import decks_with_cards
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.checks.hidden import narration_errors
    from nivel_env.engine.events import ToDeckBottom
    from nivel_env.engine.hidden import seat_event
    decks = decks_with_cards([load_deck(n, mdb) for n in list_decks()],
                             [mdb.get(c) for c in ("HN-01", "HN-02", "HN-03")])
    a, b = (next(d for d in decks if d.name.startswith(x)) for x in ("Anvil", "Gale"))
    assert narration_errors(a, b, 2000020)[0] == []
    e = ToDeckBottom("EA-09", 29, 0, "hand", [0, 1])
    assert all(seat_event(e, v).iid is None and seat_event(e, v).card == "EA-09" and
               "iid" not in seat_event(e, v).to_dict() for v in (0, 1))
