"""The rules the card language gained words for: 1.2.5 winning or losing by an effect,
4.4.4 "draw up to N", 7.2.1.1 an attack an effect declares, 8.4.4.1 "additionally" and
1.3.7.2 non-whole results rounded half up (docs/rulings.md R18-R21).  Rule scenarios use
cards of their own; the bundled cards that use each term have cases in tests/cards/edicts.yaml."""

import pytest

from conftest import ROOT, P, do, make, names, pool_with, power, to_attack
from nivel_env.cards import load_card_db
from nivel_env.cards.db import bundled_card_files
from nivel_env.cards.schema import CardDataError
from nivel_env.engine import const as K
from nivel_env.engine.view import decision_info, derived

EXTRA = """cards:
  - {id: X-WIN, type: skill, name: Coronation, name_ko: 대관식, cost: 0, attribute: light,
     effect: [{win: you}, {draw: 1}]}
  - {id: X-BOTH, type: skill, name: Doomsday, name_ko: 종말, cost: 0, attribute: dark,
     effect: [{lose: each}]}
  - {id: X-UPTO, type: skill, name: Measured Study, name_ko: 신중한 연구, cost: 0,
     attribute: water, effect: [{draw: {amount: 2, up_to: true}}]}
  - {id: X-OPP-UPTO, type: skill, name: Gift of Sight, name_ko: 시야의 선물, cost: 0,
     attribute: water, effect: [{draw: {amount: 2, up_to: true, player: opponent}}]}
  - {id: X-CHARGE, type: skill, name: Sound the Charge, name_ko: 돌격 나팔, cost: 0,
     attribute: fire, effect: [{attack: {who: you, zone: unit, choose: 1}}, {draw: 1}]}
  - {id: X-TWIN, type: skill, name: Twin Ruin, name_ko: 쌍둥이 파멸, cost: 0, attribute: dark,
     effect: [{damage: {amount: 3, player: opponent}},
              {damage: {amount: 3, player: you}, additionally: true}]}
  - {id: X-APART, type: skill, name: Ruin Apart, name_ko: 따로 파멸, cost: 0, attribute: dark,
     effect: [{damage: {amount: 3, player: opponent}}, {damage: {amount: 3, player: you}}]}
  - {id: X-SWAP, type: skill, name: Surge and Ebb, name_ko: 밀물과 썰물, cost: 0,
     attribute: water, effect: [{modify: {target: {who: opponent, zone: unit, choose: 1},
                                          power: -3}},
                                {modify: {target: {who: opponent, zone: unit, choose: 1},
                                          power: 3}, additionally: true}]}
  - {id: X-EBB, type: skill, name: Ebb then Surge, name_ko: 썰물 뒤 밀물, cost: 0,
     attribute: water, effect: [{modify: {target: {who: opponent, zone: unit, choose: 1},
                                          power: -3}},
                                {modify: {target: {who: opponent, zone: unit, choose: 1},
                                          power: 3}}]}
  - {id: X-HALF, type: skill, name: Halving, name_ko: 반감, cost: 0, attribute: wind,
     effect: [{scale: {target: {who: opponent, zone: unit, choose: 1}, factor: 0.5}}]}
  - {id: X-HALF-HIT, type: skill, name: Blunting, name_ko: 무뎌짐, cost: 0, attribute: wind,
     effect: [{scale: {target: {who: opponent, zone: unit, choose: 1}, stat: hit,
                       factor: 0.5}}]}
  - {id: X-GROW, type: skill, name: Growth, name_ko: 성장, cost: 0, attribute: earth,
     effect: [{scale: {target: {who: you, zone: unit, choose: 1}, factor: 1.5}}]}
  - {id: X-AURA, type: unit, name: Withering Aura, name_ko: 시듦의 기운, cost: 1, power: 1,
     hit: 1, attribute: dark,
     abilities: [{when: passive, do: [{scale: {target: {who: opponent, zone: unit},
                                               factor: 0.5}}]}]}
  - {id: X-7, type: unit, name: Seven, name_ko: 일곱, cost: 1, power: 7, hit: 3,
     attribute: earth}
  - {id: X-1, type: unit, name: One, name_ko: 하나, cost: 1, power: 1, hit: 1,
     attribute: earth}
"""


@pytest.fixture(scope="module")
def xdb(tmp_path_factory):
    return pool_with(tmp_path_factory.mktemp("pool"), EXTRA)


def game(db, p0, p1, **top):
    return make(db, p0, p1, **top)


def refused(tmp_path, effect: str, field: str):
    """A card with this effect fails to load, with an error naming the card and field."""
    f = tmp_path / "bad.yaml"
    f.write_text("cards:\n  - {id: B-1, type: skill, name: B, cost: 0, attribute: fire,\n"
                 f"     effect: [{effect}]}}\n", encoding="utf-8")
    with pytest.raises(CardDataError, match="B-1.*" + field):
        load_card_db([f])


# ------------------------------------------------------------- 1.2.5 win / lose

def test_1_2_5_an_effect_that_wins_ends_the_game_at_once(xdb):
    g = game(xdb, P(hand=["X-WIN"]), P("T-L02"))
    hand = len(g.hand[0])
    do(g, "Coronation")
    assert g.returns() == (1, -1)
    assert len(g.hand[0]) == hand - 1          # the draw after it was never carried out
    assert [e.kind for e in g.events[-2:]] == ["game_effect", "game_over"]


def test_1_2_5_with_1_2_3_each_player_losing_by_an_effect_is_a_draw(xdb):
    g = game(xdb, P(hand=["X-BOTH"]), P("T-L02"))
    do(g, "Doomsday")
    assert g.returns() == (0, 0)


def test_win_for_each_player_is_refused_with_the_field_named(tmp_path):
    refused(tmp_path, "{win: each}", r"effect\[0\]\.win\.player")


# ------------------------------------------------------------ 4.4.4 draw up to N

def test_4_4_4_the_drawer_chooses_how_many_before_drawing(xdb):
    g = game(xdb, P(hand=["X-UPTO"], deck=["T-002"] * 5), P("T-L02"))
    do(g, "Measured Study")
    d = decision_info(g)
    assert g.decision_name == "may" and (d.count, d.most) == (0, 2)
    assert len(g.deck[0]) == 5                  # nothing drawn while choosing
    from nivel_env.screen import decision_line
    assert "one more? 0 chosen so far, at most 2" in decision_line(g)
    do(g, "one more (now 1 of at most 2)")
    assert decision_info(g).count == 1 and len(g.deck[0]) == 5
    do(g, "stop at 1")
    assert len(g.deck[0]) == 4


def test_4_4_4_never_more_than_the_deck_holds_and_zero_is_a_choice(xdb):
    g = game(xdb, P(hand=["X-UPTO"], deck=["T-002"]), P("T-L02"))
    do(g, "Measured Study")
    assert decision_info(g).most == 1            # N is 2, the deck holds 1
    do(g, "one more")
    assert len(g.deck[0]) == 0 and not g.is_terminal()      # drew the last card: no loss
    g = game(xdb, P(hand=["X-UPTO"], deck=["T-002"] * 3), P("T-L02"))
    do(g, "Measured Study")
    do(g, "stop at 0")                          # 1.3.6.1: 0 may be chosen
    assert len(g.deck[0]) == 3 and g.decision_name == "main"


def test_4_4_4_an_empty_deck_has_nothing_to_draw_up_to(xdb):
    g = game(xdb, P(hand=["X-UPTO"], deck=[]), P("T-L02"))
    assert not any("Measured Study" in n for n in names(g))   # 8.1.3.1.2


def test_4_4_4_the_opponent_chooses_their_own_count(xdb):
    g = game(xdb, P(hand=["X-OPP-UPTO"]), P("T-L02", deck=["T-002"] * 4))
    do(g, "Gift of Sight")
    assert g.decision_name == "may" and g.current_player == 1
    do(g, "one more")
    do(g, "one more")
    assert len(g.deck[1]) == 2 and g.current_player == 0


def test_4_4_4_up_to_for_each_player_is_refused(tmp_path):
    refused(tmp_path, "{draw: {amount: 2, up_to: true, player: each}}", r"up_to")


# -------------------------------------------------- 7.2.1.1 attack by an effect

def test_7_2_1_1_an_attack_an_effect_declares_is_fought_and_leaves_the_unit_unspent(xdb):
    g = game(xdb, P(hand=["X-CHARGE"], units=["X-7"]), P("T-L02", deck=["T-002"] * 10),
             turn=3)
    hand = len(g.hand[0])
    do(g, "Sound the Charge")                   # one unit: no choice to make
    assert len(g.damage[1]) == 3                # unblocked: hit 3 (7.4.2)
    assert len(g.hand[0]) == hand               # then the effect went on: -1 skill +1 draw
    assert g.attacked == [] and g.battle is None
    to_attack(g)
    assert any("attack with Seven" in n for n in names(g))   # still counts as not attacked


def test_7_2_1_1_the_player_chooses_which_unit_and_the_encounter_may_defend(xdb):
    g = game(xdb, P(hand=["X-CHARGE"], units=["X-1", "X-7"], level=5),
             P("T-L02", units=["X-7"], deck=["T-002"] * 10), turn=3)
    do(g, "Sound the Charge")
    assert g.decision_name == "pick"
    do(g, "One")                                # lane 0 attacks into the opponent's Seven
    assert g.decision_name == "defense" and g.current_player == 1
    do(g, "defend")
    assert g.unit[0] < 0                        # One lost the battle (1 < 7)


def test_7_2_1_1_a_unit_forbidden_to_attack_cannot_be_made_to(xdb):
    g = game(xdb, P(hand=["X-CHARGE"], units=["X-7"]), P("T-L02"), turn=1, first_player=0,
             config={"first_turn_attack": False})
    do(g, "Sound the Charge")                   # first turn: no attack, the draw still
    assert g.damage[1] == [] and not any(e.kind == "attack" for e in g.events)
    g = game(xdb, P(hand=["X-CHARGE"], units=["X-7"]), P("T-L02"), turn=3)
    g.mods.append((K.M_PROHIBIT, g.unit[0], K.PROHIBIT_ATTACK, K.U_TURN, 1))
    g.dirty = True
    do(g, "Sound the Charge")                   # 1.3.4: the prohibition wins
    assert g.damage[1] == [] and not any(e.kind == "attack" for e in g.events)


def test_attack_only_by_your_own_unit(tmp_path):
    refused(tmp_path, "{attack: {who: opponent, zone: unit, choose: 1}}", r"attack\.target")


# ------------------------------------------------------- 8.4.4.1 additionally

def test_8_4_4_1_additionally_makes_both_damages_one_action_so_both_losing_is_a_draw(xdb):
    nine = dict(damage=["T-002"] * 9, deck=["T-002"] * 10)
    g = game(xdb, P(hand=["X-TWIN"], **nine), P("T-L02", **nine))
    do(g, "Twin Ruin")
    assert g.returns() == (0, 0) and len(g.damage[0]) >= 10


def test_without_additionally_the_first_damage_ends_the_game(xdb):
    nine = dict(damage=["T-002"] * 9, deck=["T-002"] * 10)
    g = game(xdb, P(hand=["X-APART"], **nine), P("T-L02", **nine))
    do(g, "Ruin Apart")
    assert g.returns() == (1, -1) and len(g.damage[0]) == 9


def test_8_4_4_1_a_unit_at_power_0_inside_the_action_is_judged_after_it(xdb):
    g = game(xdb, P(hand=["X-SWAP"]), P("T-L02", units=["T-002"]))   # power 3
    do(g, "Surge and Ebb")                      # -3: power 0 for a moment, +3 with it
    assert g.unit[3] >= 0 and power(g, 1, 0) == 3
    g = game(xdb, P(hand=["X-EBB"]), P("T-L02", units=["T-002"]))
    do(g, "Ebb then Surge")                     # apart, 1.3.7.3 trashes it at once
    assert g.unit[3] < 0
    assert all(t[0] != K.T_LOSS_CHECK for t in g.stack)


def test_additionally_cannot_start_an_effect(tmp_path):
    refused(tmp_path, "{draw: 1, additionally: true}", r"effect\[0\]\.additionally")


# ------------------------------------------------------ 1.3.7.2 rounding

@pytest.mark.parametrize("card,stat,before,after", [
    ("X-7", "power", 7, 4),          # 3.5 rounds half up
    ("T-002", "power", 3, 2),        # 1.5 -> 2
    ("X-1", "power", 1, 1),          # 0.5 -> 1: not 0, so not trashed (1.3.7.3)
    ("X-7", "hit", 3, 2),
])
def test_1_3_7_2_halving_rounds_half_up(xdb, card, stat, before, after):
    g = game(xdb, P(hand=["X-HALF" if stat == "power" else "X-HALF-HIT"]),
             P("T-L02", units=[card]))
    d = derived(g)
    assert (d.power if stat == "power" else d.hit)[3] == before
    do(g, "Halving" if stat == "power" else "Blunting")
    d = derived(g)
    assert (d.power if stat == "power" else d.hit)[3] == after


def test_1_3_7_2_a_factor_over_one_rounds_too_and_later_changes_add_on(xdb):
    g = game(xdb, P(hand=["X-GROW"], units=["X-7"]), P("T-L02"))
    do(g, "Growth")
    assert power(g, 0, 0) == 11                 # 7 x 1.5 = 10.5 -> 11


def test_1_3_7_2_a_passive_halving_applies_after_modifiers(xdb):
    g = game(xdb, P(units=["X-AURA"]), P("T-L02", units=["X-7", "T-002"]))
    assert power(g, 1, 0) == 4 and power(g, 1, 1) == 2


def test_a_factor_that_is_not_in_hundredths_is_refused(tmp_path):
    refused(tmp_path, "{scale: {target: self, factor: 0.333}}", r"factor")


# ------------------------------------------ the bundled cards (cases: tests/cards/edicts.yaml)

def test_a_pool_that_appends_cards_keeps_policies_and_replays_of_the_earlier_one(tmp_path):
    import warnings

    from agents.policy import read_policy_file
    from nivel_env.cards import load_deck
    from nivel_env.replay import load_replay, record_game
    older = load_card_db(bundled_card_files()[:-1])           # without nv2-edicts.yaml
    now = load_card_db()
    assert now.extends(older.version) == len(older.cards) == len(now.cards) - 5
    assert now.extends(now.version) == len(now.cards)
    assert now.extends("0123456789abcdef") == 0
    assert older.extends(now.version) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # no "another pool" warning
        read_policy_file(ROOT / "agents/policies/nv2-ppo.pt")
    rec = record_game(load_deck("ember-rush", older), load_deck("veil-piercers", older), 3,
                      [0] * 0)
    g = rec.g
    for _ in range(30):
        p, turn, a = g.current_player, g.turn, g.legal_actions()[-1]
        name = g.action_name(a)
        g.apply_action(a)
        rec.step(p, a, name, turn)
    path = rec.write(tmp_path / "older.jsonl")
    assert load_replay(path, now).games[-1].turn == g.turn
