"""A field that costs more than the size, reached through play.

Size is a number a player refers to when playing a card (4.7.1): level plus damage
(4.7.2), changed by effects (4.7.3).  A card may be played only while its cost and the
cost of every card on the field fit within the size (6.4.1.1.2).  No rule looks at the
size at any other time -- rule processing (9) has no step for it -- so when the size falls
below what the field already costs (a size bonus expiring, damage healed), the cards stay
where they are and nothing is trashed; the player just cannot play a card until the
field's cost fits again (an upgrade leaves the unit it replaces and that unit's items out
of the sum, 6.4.1.1.2.1, so one may fit where the items free enough).
"""
from conftest import P, do, make

from nivel_env.engine import play_blockers
from nivel_env.engine.legal import field_cost
from nivel_env.engine.scenario import ScenarioError, build
from nivel_env.engine.view import derived


def _plays(g) -> list[str]:
    return [g.action_name(a) for a in g.legal_actions() if g.action_name(a).startswith(
        ("play ", "equip ", "use ", "upgrade "))]


def test_a_size_bonus_that_expires_leaves_the_field_over_the_size_and_nothing_is_trashed(db):
    """Mana Surge (+2 size until end of turn, 4.7.3) pays for a unit; at the end of the
    turn the bonus expires (6.6.1.2) and the field costs 11 with a size of 10."""
    start = {"players": [P("T-L01", level=10, units=["EA-17", "EA-16"],
                           hand=["WA-17", "FI-17"], deck=["WA-17"] * 6),
                         P("T-L02", hand=[], deck=["T-002"] * 6)]}
    g = build(start, db)                          # a position a game reaches: field 7, size 10
    assert (field_cost(g, 0), derived(g).size[0]) == (7, 10)
    assert not any(x.startswith("play Firebrand Veteran") for x in _plays(g))   # 7 + 4 > 10
    do(g, "use Mana Surge")
    assert (field_cost(g, 0), derived(g).size[0]) == (8, 12)
    do(g, "play Firebrand Veteran")               # 8 + 4 = 12: fits while the bonus lasts
    assert (field_cost(g, 0), derived(g).size[0]) == (12, 12)
    units = [g.unit[s] for s in range(3)]

    do(g, "end main phase")
    do(g, "end attack phase")                     # the end phase: the bonus expires, the
    assert g.current_player == 1                  # skill zone empties (6.6.1.2-3)
    assert derived(g).size[0] == 10 and field_cost(g, 0) == 11       # over the size
    assert [g.unit[s] for s in range(3)] == units                     # nothing trashed
    do(g, "end main phase")                       # the opponent's turn
    do(g, "end attack phase")

    assert g.current_player == 0 and g.decision.kind == "main"
    assert g.level[0] == 10                       # level 10 is the top (4.6.3): size stays 10
    assert (field_cost(g, 0), derived(g).size[0]) == (11, 10)
    assert [g.unit[s] for s in range(3)] == units
    assert _plays(g) == []                        # 6.4.1.1.2: no card can be played
    assert play_blockers(g, 0) == {              # the Mana Surge drawn: it cannot lift
        0: "costs 1; size 10 with 11 in use leaves nothing"}           # the size either
    do(g, "end main phase")                       # and the game goes on: it may attack
    assert any(g.action_name(a).startswith("attack") for a in g.legal_actions())


def test_healing_damage_lowers_the_size_below_the_field_and_only_an_upgrade_may_fit(db):
    """Size counts damage (4.7.2): Holy Light (heal up to 2) played with the last free size
    leaves the field over the size in the same turn, and the cards stay.  An upgrade leaves
    the unit it replaces and that unit's items out of the sum (6.4.1.1.2.1), so it is the
    one play that may still fit."""
    g = build({"players": [P("T-L01", level=5, damage=["T-001"] * 4, hand=["LI-16", "FI-06"],
                             units=[{"card": "T-002", "items": ["EA-07"]}, "FI-06"]),
                           P("T-L02")]}, db)
    assert (field_cost(g, 0), derived(g).size[0]) == (7, 9)
    do(g, "use Holy Light")                       # 7 + 2 = 9: fits
    g.apply_action(next(a for a in g.legal_actions() if g.action_name(a).startswith("pick")))
    do(g, "done choosing")                        # heal 1 of the 2 it may
    assert len(g.damage[0]) == 3
    assert (field_cost(g, 0), derived(g).size[0]) == (9, 8)          # over the size
    assert [g.card(g.unit[s]).id for s in (0, 1)] == ["T-002", "FI-06"]
    assert [g.card(i).id for i in g.items[0]] == ["EA-07"]
    # lane 2 would take 9 + 3; the Flame Lancer with its Stone Hammer frees 2 + 2 for 3
    assert _plays(g) == ["upgrade Flame Lancer -> Scorch Lancer (hand 0) in lane 0"]
    do(g, "upgrade Flame Lancer")
    assert (field_cost(g, 0), derived(g).size[0]) == (8, 8) and not g.items[0]


def test_a_scenario_over_the_size_is_refused_by_default_and_says_how_a_game_gets_there(db):
    """The check catches a position written by mistake; it no longer claims no game can
    reach one (the tests above do)."""
    over = {"players": [P("T-L01", level=2, units=["EA-17"]), P("T-L02")]}
    try:
        build(over, db)
    except ScenarioError as e:
        msg = str(e)
    else:
        raise AssertionError("a field costing 4 with size 2 was built")
    assert "cost 4 but the size is 2" in msg and "check_field_cost: false" in msg
    assert "no game reaches" not in msg and "4.7.3" in msg
    g = make(db, P("T-L01", level=2, units=["EA-17"]), P("T-L02"))   # check_field_cost off
    assert field_cost(g, 0) == 4 and g.card(g.unit[0]).id == "EA-17"
