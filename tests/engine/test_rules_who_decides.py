"""Who decides (issue 30): each player's own choice in an action done to each player
(1.3.5.1, 8.4.4), the owner's order for cards put into a deck together (3.1.6), and the
effect's player choosing among the opponent's hand cards (11.2.1, 8.3.3, 8.3.4) --
docs/rulings.md R12, R25, R26.  Each side of the hidden information is checked too: what
the other seat sees and is told is the same whichever cards are chosen or ordered."""
import pytest

from conftest import P, do, make, names, pool_with
from nivel_env.checks.hidden import told_errors, world_errors
from nivel_env.engine import actions as A, const as K
from nivel_env.engine.hidden import seat_event
from nivel_env.env import card_features as cf
from nivel_env.env.encoder import CARD_ROWS, OFFSETS, ROW_CANDS, Encoder
from nivel_env.narrate import Narrator, narrate
from nivel_env.screen import decision_line

CARDS = """cards:
  - {id: W-EACH, type: skill, name: Mutual Loss, name_ko: 상호 손실, cost: 0, attribute: fire,
     effect: [{discard: {amount: 1, player: each}}]}
  - {id: W-MAY, type: skill, name: Offered Loss, name_ko: 제안된 손실, cost: 0,
     attribute: fire, effect: [{discard: {amount: 1, player: each}, may: true}]}
  - {id: W-DEF, type: unit, name: Grudge Keeper, name_ko: 원한 지기, cost: 2, power: 5, hit: 1,
     attribute: water, abilities: [{when: defender, do: [{discard: {amount: 1, player: each}}]}]}
  - {id: W-HOLLOW, type: unit, name: Hollow Guard, name_ko: 공허 경비병, cost: 2, power: 3,
     hit: 1, attribute: fire, abilities: [{when: passive, if: {hand_at_most: 0},
                                           do: [{modify: {target: self, power: -3}}]}]}
  - {id: W-SWEEP, type: skill, name: Undertow, name_ko: 역류, cost: 0, attribute: fire,
     effect: [{to_deck_bottom: {who: any, zone: unit, all: true}}]}
  - {id: W-BANISH, type: skill, name: Banish Host, name_ko: 군대 추방, cost: 0,
     attribute: fire, effect: [{to_deck_bottom: {who: opponent, zone: unit, all: true}}]}
  - {id: W-TUCK, type: skill, name: Tuck Two, name_ko: 두 장 넣기, cost: 0, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 2}}}]}
  - {id: W-ROT, type: skill, name: Mind Rot, name_ko: 정신 부식, cost: 0, attribute: fire,
     effect: [{trash: {who: opponent, zone: hand, choose: 1, filter: {type: skill}}}]}
"""


@pytest.fixture(scope="module")
def wdb(tmp_path_factory):
    return pool_with(tmp_path_factory.mktemp("who"), CARDS)


def cand_rows(obs):
    cards = obs[OFFSETS["cards"]:OFFSETS["zones"]].reshape(CARD_ROWS, cf.WIDTH)
    return cards[ROW_CANDS:ROW_CANDS + 16]


def purpose(obs) -> str:
    hot = obs[OFFSETS["pick_purpose"]:OFFSETS["pick_purpose"] + len(K.PICK_PURPOSES)]
    return K.PICK_PURPOSES[int(hot.argmax())] if hot.any() else ""


def hand_names(g, p):
    return sorted(g.card(i).name for i in g.hand[p])


# ------------------------------------------------- 1.3.5.1: each player's own choice

def test_1_3_5_1_each_player_discards_a_card_of_their_own_choice_turn_player_first(wdb):
    g = make(wdb, P(hand=["W-EACH", "T-002", "T-003"]), P("T-L02", hand=["T-021", "T-022"]))
    do(g, "use Mutual Loss")
    assert g.current_player == 0 and g.decision.context["purpose"] == "effect target"
    assert set(names(g)) == {"pick Flame Lancer (hand 0)", "pick Raider of Ash (hand 1)"}
    do(g, "pick Raider of Ash")
    # the old engine stopped here: only the turn player discarded
    assert g.current_player == 1, "the other player's part of 'each player discards' is theirs"
    assert set(names(g)) == {"pick Tide Guard (hand 0)", "pick Stone Sentinel (hand 1)"}
    do(g, "pick Stone Sentinel")
    assert g.decision.kind == "main"
    assert hand_names(g, 0) == ["Flame Lancer"] and hand_names(g, 1) == ["Tide Guard"]
    told = [x for x in narrate(g, 0) if " discard" in x and "Mutual Loss" not in x]
    assert told == ["You discard Raider of Ash.", "Your opponent discards Stone Sentinel."]


def test_1_3_5_1_the_turn_player_goes_first_even_in_the_other_players_effect(wdb):
    """A Defender effect of the player who is not taking the turn: the turn player still
    discards first (1.3.5.1), then the effect's own player."""
    g = make(wdb, P(level=5, units=["T-002"], hand=["T-001", "T-003"]),
             P("T-L02", units=["W-DEF"], hand=["T-021", "T-022"]), phase="attack")
    do(g, "attack with Flame Lancer")
    do(g, "defend with Grudge Keeper")
    assert g.decision.kind == "pick" and g.current_player == 0
    assert g.decision.context["source"] == "W-DEF"
    do(g, "pick Ember Squire")
    assert g.current_player == 1
    do(g, "pick Tide Guard")
    assert hand_names(g, 0) == ["Raider of Ash"] and hand_names(g, 1) == ["Stone Sentinel"]


def test_each_players_may_is_their_own(wdb):
    """"Each player may discard": each player decides for themselves (8.1.2.2), in turn."""
    g = make(wdb, P(hand=["W-MAY", "T-002"]), P("T-L02", hand=["T-021", "T-022"]))
    do(g, "use Offered Loss")
    assert g.decision.kind == "may" and g.current_player == 0
    do(g, "no")
    assert g.decision.kind == "may" and g.current_player == 1
    do(g, "yes")
    assert g.current_player == 1 and g.decision.kind == "pick"
    do(g, "pick Stone Sentinel")
    assert hand_names(g, 0) == ["Flame Lancer"] and hand_names(g, 1) == ["Tide Guard"]


@pytest.mark.parametrize("simultaneous", [True, False])
def test_8_4_4_a_unit_at_0_power_waits_until_both_have_discarded(wdb, simultaneous):
    """The discards are one simultaneous action (8.4.4): the turn player's empties their
    hand and their Hollow Guard drops to 0 power, but it is trashed (1.3.7.3) only once
    the other player has discarded too.  simultaneous_each_player=False settles the turn
    player's part first."""
    g = make(wdb, P(level=5, hand=["W-EACH", "T-002"], units=["W-HOLLOW"]),
             P("T-L02", hand=["T-021", "T-022"]),
             config={"simultaneous_each_player": simultaneous})
    do(g, "use Mutual Loss")                       # one card: discarded without a choice
    assert g.current_player == 1 and g.decision.kind == "pick"
    guard_on_field = g.unit[0] >= 0
    assert guard_on_field == simultaneous
    do(g, "pick Tide Guard")
    assert g.unit[0] < 0 and any(e.kind == "power_zero" for e in g.events)
    assert all(t[0] != K.T_LOSS_CHECK for t in g.stack)


def test_each_players_discard_hides_the_choosers_hand_from_the_other(wdb):
    enc = Encoder(wdb)
    g = make(wdb, P(hand=["W-EACH", "T-002", "T-003"]), P("T-L02", hand=["T-021", "T-022"]))
    do(g, "use Mutual Loss")
    assert world_errors(enc, g, 1, 3) == [] and world_errors(enc, g, 0, 3) == []
    assert not cand_rows(enc.encode(g, 1)).any()        # the other seat sees no candidate
    do(g, "pick Raider of Ash")
    assert world_errors(enc, g, 0, 5) == [] and world_errors(enc, g, 1, 5) == []
    assert not cand_rows(enc.encode(g, 0)).any()
    assert (cand_rows(enc.encode(g, 1, g.legal_actions()))[:2, 0] == 1).all()


# ------------------------------------------------------- 3.1.6: the owner's order

def deck_names(g, p, n):
    """The bottom ``n`` cards of ``p``'s deck, the very bottom first."""
    return [g.card(i).name for i in g.deck[p][:n]]


def test_3_1_6_cards_put_under_a_deck_together_are_ordered_by_its_owner(wdb):
    g = make(wdb, P(level=8, hand=["W-SWEEP"], units=["T-002", "T-003", "T-001"],
                    deck=["T-004"] * 3),
             P("T-L02", units=["T-021", "T-022"], deck=["T-004"] * 3))
    do(g, "use Undertow")
    # the old engine stacked them in lane order and went on: no decision
    assert g.decision.context["purpose"] == "card order" and g.current_player == 0
    assert set(names(g)) == {"pick Flame Lancer (your deck)", "pick Raider of Ash (your deck)",
                             "pick Ember Squire (your deck)"}
    assert not g.decision.context["can_pass"]
    do(g, "pick Raider of Ash")                    # under the deck first: highest of the three
    do(g, "pick Ember Squire")                     # then under it; Flame Lancer goes last
    assert deck_names(g, 0, 4) == ["Flame Lancer", "Ember Squire", "Raider of Ash", "Gale Runner"]
    assert g.current_player == 1 and g.decision.context["purpose"] == "card order"
    do(g, "pick Stone Sentinel")                   # the other player's deck: theirs to order
    assert deck_names(g, 1, 3) == ["Tide Guard", "Stone Sentinel", "Gale Runner"]
    assert g.decision.kind == "main"
    assert "You put the 3 cards on the bottom of your deck in an order you choose." \
        in narrate(g, 0)
    assert "Your opponent puts the 2 cards on the bottom of their deck in an order they " \
           "choose." in narrate(g, 0)


def test_3_1_6_the_owner_orders_cards_the_other_players_effect_put_there(wdb):
    g = make(wdb, P(hand=["W-BANISH"]), P("T-L02", units=["T-021", "T-022"]))
    do(g, "use Banish Host")
    assert g.current_player == 1 and g.decision.context["purpose"] == "card order"
    assert decision_line(g).startswith("Banish Host: 2 cards go under your deck in the order "
                                       "you choose")
    do(g, "pick Tide Guard")
    assert deck_names(g, 1, 2) == ["Stone Sentinel", "Tide Guard"]


def test_3_1_6_one_card_needs_no_order(wdb):
    g = make(wdb, P(hand=["W-BANISH"]), P("T-L02", units=["T-021"]))
    do(g, "use Banish Host")
    assert g.decision.kind == "main" and deck_names(g, 1, 1) == ["Tide Guard"]
    assert not any(e.kind == "card_order" for e in g.events)


def test_3_1_6_cards_from_a_hand_are_ordered_after_they_are_chosen(wdb):
    g = make(wdb, P(hand=["W-TUCK", "T-002", "T-003", "T-001"]), P("T-L02"))
    # what seat 1 is told of it is the same whichever cards seat 0 holds and orders
    moves = [names(g)["use Tuck Two (hand 0) -> skill zone"], A.PICK, A.PICK, A.PICK + 1]
    assert told_errors(Encoder(wdb), g, 1, moves, 6) == []
    theirs = Narrator(g, 1)
    theirs.seen = len(g.events)
    do(g, "use Tuck Two")
    do(g, "pick Flame Lancer")
    do(g, "pick Raider of Ash")
    assert g.decision.context["purpose"] == "card order" and g.current_player == 0
    do(g, "pick Flame Lancer")
    assert deck_names(g, 0, 2) == ["Raider of Ash", "Flame Lancer"]
    lines = theirs.new_lines()
    assert "2 cards go from their hand to the bottom of their deck (Tuck Two)." in lines
    assert "Your opponent puts the 2 cards on the bottom of their deck in an order they " \
           "choose." in lines
    assert not any("Flame Lancer" in x or "Raider of Ash" in x for x in lines), lines


def _ordering(wdb):
    g = make(wdb, P(level=8, hand=["W-SWEEP"], units=["T-002", "T-003", "T-001"],
                    deck=["T-004"] * 3), P("T-L02", deck=["T-004"] * 3))
    do(g, "use Undertow")
    return g


def test_3_1_6_the_other_player_sees_an_order_being_chosen_and_how_many_not_which(wdb):
    enc = Encoder(wdb)
    g = _ordering(wdb)
    theirs = enc.encode(g, 1)
    assert purpose(theirs) == "card order" and not cand_rows(theirs).any()
    assert not theirs[OFFSETS["candidate_slots"]:OFFSETS["cards"]].any()
    assert theirs[OFFSETS["global_values"] + 3] == pytest.approx(3 / 16)   # how many: public
    mine = enc.encode(g, 0, g.legal_actions())
    assert purpose(mine) == "card order" and (cand_rows(mine)[:3, 0] == 1).all()
    # worlds that differ in what each seat cannot see change nothing either sees
    assert world_errors(enc, g, 1, 1) == [] and world_errors(enc, g, 0, 2) == []
    # two orders: the other seat's observation, narration and events are the same
    first, second = g.clone(), g.clone()
    for x, picks in ((first, ("Raider of Ash", "Ember Squire")),
                     (second, ("Flame Lancer", "Raider of Ash"))):
        for name in picks:
            do(x, f"pick {name}")
    assert deck_names(first, 0, 3) != deck_names(second, 0, 3)
    assert (enc.encode(first, 1) == enc.encode(second, 1)).all()
    assert narrate(first, 1) == narrate(second, 1)
    assert [seat_event(e, 1) for e in first.events] == [seat_event(e, 1) for e in second.events]
    # the narration check: played again in worlds whose cards hidden from seat 1 differ
    start = make(wdb, P(level=8, hand=["W-SWEEP"], units=["T-002", "T-003", "T-001"],
                        deck=["T-004"] * 3), P("T-L02", deck=["T-004"] * 3))
    moves = [names(start)["use Undertow (hand 0) -> skill zone"]] + [A.PICK, A.PICK]
    assert told_errors(enc, start, 1, moves, 4) == []


# --------------------------------------- 11.2.1: the effect's player looks and chooses

def test_11_2_1_the_effects_player_chooses_among_the_opponents_hand_cards(wdb):
    g = make(wdb, P(hand=["W-ROT"]), P("T-L02", hand=["T-021", "W-ROT", "W-EACH"]))
    do(g, "use Mind Rot")
    # the old engine (docs/rulings.md R12 before) asked the hand's owner
    assert g.current_player == 0 and g.decision.context["purpose"] == "effect target"
    # the opponent's hand cards are named without their place in that hand
    assert set(names(g)) == {"pick Mutual Loss (opponent's hand)",
                             "pick Mind Rot (opponent's hand)"}
    do(g, "pick Mutual Loss")
    assert hand_names(g, 1) == ["Mind Rot", "Tide Guard"]
    assert "Mutual Loss" in [g.card(i).name for i in g.trash[1]]


def test_11_2_1_the_chooser_sees_the_cards_they_may_choose_and_nothing_else_hidden(wdb):
    enc = Encoder(wdb)
    g = make(wdb, P(hand=["W-ROT"]), P("T-L02", hand=["T-021", "W-ROT", "T-022"]))
    do(g, "use Mind Rot")                          # one skill there: no real choice
    assert g.decision.kind == "main" and hand_names(g, 1) == ["Stone Sentinel", "Tide Guard"]
    g = make(wdb, P(hand=["W-ROT"]), P("T-L02", hand=["T-021", "W-ROT", "W-EACH"]))
    do(g, "use Mind Rot")
    mine = enc.encode(g, 0, g.legal_actions())
    assert (cand_rows(mine)[:2, 0] == 1).all() and not cand_rows(mine)[2:].any()
    assert mine[OFFSETS["global_values"] + 3] == pytest.approx(2 / 16)
    # what the chooser sees is the same whatever else the opponent holds or has in deck
    assert world_errors(enc, g, 0, 3) == [] and world_errors(enc, g, 1, 4) == []


def test_r12_option_lets_the_hands_owner_choose(wdb):
    g = make(wdb, P(hand=["W-ROT"]), P("T-L02", hand=["T-021", "W-ROT", "W-EACH"]),
             config={"hand_owner_chooses": True})
    do(g, "use Mind Rot")
    assert g.current_player == 1
    assert set(names(g)) == {"pick Mutual Loss (hand 2)", "pick Mind Rot (hand 1)"}
    do(g, "pick Mind Rot")
    assert hand_names(g, 1) == ["Mutual Loss", "Tide Guard"]
