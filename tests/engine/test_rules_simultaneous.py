"""1.2.3 with 8.4.4: an action done to each player is one simultaneous action (both losing
in it is a draw, for damage as for draws); 1.3.3 / 4.4.5 / 8.1.3.1.2: an activated effect
whose every action would be done zero times cannot be used (docs/rulings.md R16, R17)."""
import pytest

from conftest import P, do, make, names, pool_with
from nivel_env.engine import const as K

EXTRA = """cards:
  - {id: X-DMG, type: skill, name: Cataclysm, name_ko: 대재앙, cost: 0, attribute: fire,
     effect: [{damage: {amount: 3, player: each}}]}
  - {id: X-DRAW, type: skill, name: Flood of Wisdom, name_ko: 지혜의 홍수, cost: 0,
     attribute: fire, effect: [{draw: {amount: 2, player: each}}]}
  - {id: X-TRASH, type: unit, name: Ash Reader, name_ko: 재 읽는 자, cost: 1, power: 2, hit: 1,
     attribute: fire, abilities: [{when: active_main, do: [{draw: {amount: {count: {who: you, zone: trash}}}}]}]}
  - {id: X-SELF, type: skill, name: Ember Toll, name_ko: 잉걸불 통행료, cost: 0, attribute: fire,
     effect: [{damage: {amount: {stat: hand, who: opponent}, player: opponent}}]}
"""


@pytest.fixture(scope="module")
def xdb(tmp_path_factory):
    return pool_with(tmp_path_factory.mktemp("pool"), EXTRA)


def game(db, p0, p1, **cfg):
    return make(db, p0, p1, **({"config": cfg} if cfg else {}))


def nine_damage(**kw):
    return dict(damage=["T-001"] * 9, deck=["T-002"] * 10, **kw)


@pytest.mark.parametrize("simultaneous", [True, False])
def test_1_2_3_damage_to_each_player_past_ten_is_a_draw(xdb, simultaneous):
    g = game(xdb, P(hand=["X-DMG"], **nine_damage()), P("T-L02", **nine_damage()),
             simultaneous_each_player=simultaneous)
    do(g, "Cataclysm")
    assert g.is_terminal()
    if simultaneous:                        # both took their damage, then both lost
        assert g.returns() == (0, 0)
        assert len(g.damage[0]) >= 10 and len(g.damage[1]) >= 10
        assert g.events[-1].reason == "both lost"
    else:                                   # the turn player's part first: they lose alone
        assert g.returns() == (-1, 1) and len(g.damage[1]) == 9


@pytest.mark.parametrize("simultaneous", [True, False])
def test_1_2_3_each_player_drawing_from_empty_decks_is_settled_the_same_way(xdb, simultaneous):
    g = game(xdb, P(hand=["X-DRAW"], deck=[]), P("T-L02", deck=[]),
             simultaneous_each_player=simultaneous)
    do(g, "Flood of Wisdom")
    assert g.is_terminal()
    assert g.returns() == ((0, 0) if simultaneous else (-1, 1))


def test_damage_to_each_player_with_a_deck_out_and_ten_damage_is_a_draw(xdb):
    g = game(xdb, P(hand=["X-DMG"], **nine_damage()), P("T-L02", deck=[]))
    do(g, "Cataclysm")
    assert g.returns() == (0, 0)


def test_damage_to_each_player_short_of_ten_goes_on(xdb):
    g = game(xdb, P(hand=["X-DMG"], deck=["T-002"] * 10), P("T-L02", deck=["T-002"] * 10))
    do(g, "Cataclysm")
    assert not g.is_terminal() and len(g.damage[0]) == len(g.damage[1]) == 3
    assert all(t[0] != K.T_LOSS_CHECK for t in g.stack)        # the loss check is done


def test_one_players_damage_past_ten_loses_at_once(xdb):
    # 4.5.4.4 / 9.1.2: damage to one player alone ends the game as soon as it is done
    g = game(xdb, P(hand=["X-SELF"]), P("T-L02", hand=["T-001"] * 3, **nine_damage()))
    do(g, "Ember Toll")
    assert g.returns() == (1, -1)


def test_8_1_3_1_2_an_effect_that_would_draw_zero_cannot_be_activated(xdb):
    g = game(xdb, P(units=["X-TRASH"], trash=[]), P("T-L02"))
    assert not any("Ash Reader" in n and "activate" in n for n in names(g))
    g = game(xdb, P(units=["X-TRASH"], trash=["T-001", "T-002"]), P("T-L02"))
    hand = len(g.hand[0])
    do(g, "activate Ash Reader")
    assert len(g.hand[0]) == hand + 2


def test_1_3_3_a_skill_dealing_zero_damage_cannot_be_played(xdb):
    g = game(xdb, P(hand=["X-SELF"]), P("T-L02", hand=[]))
    assert not any("Ember Toll" in n for n in names(g))      # 0 damage: nothing to do
    g = game(xdb, P(hand=["X-SELF"]), P("T-L02", hand=["T-001"]))
    assert any("Ember Toll" in n for n in names(g))
