"""What a card costs on the field, leaders that cannot be moved, and trashing what is already
in the trash (docs/rulings.md R28-R31).

* Effects may change a unit's cost while it is on the field (`modify` with `cost`, until the
  end of the turn, of the battle, while the unit stays, or in a passive).  The rules that
  read the cost of a card on the field read the changed cost, never below 0 (1.3.7.1): the
  field's cost in use (6.4.1.1.2) and what an upgrade frees (6.4.1.1.2.1), what an upgrade
  must cost more than (3.5.5), filters and equip conditions (8.6.2), the unit Mutual
  Destruction compares against (10.2.5.2.3).  A card in the trash has its printed cost
  again: Mutual Destruction compares the card as it lies there (10.2.5.2.4).
* 3.3.4: a leader never leaves the level zone; a verb that moves cards skips it, and a
  leader's ability that could only aim such a verb at the leader itself is refused.
* 4.8.2: a card in the trash cannot be trashed; doing so is not "done" (8.3.2) and a trash
  aimed at the trash zone is refused when loaded (8.1.3.1.2).

The NV3 cards (nivel_env/cards/data/nv3-costs.yaml) are used where they fit; their own
cases are in tests/cards/costs.yaml.
"""
import pytest

from conftest import TEST_POOL, P, do, make, names
from nivel_env.cards import load_card_db
from nivel_env.cards import model as m
from nivel_env.cards.db import bundled_card_files
from nivel_env.cards.schema import CardDataError
from nivel_env.engine import const as K
from nivel_env.engine.forecast import battle_forecast
from nivel_env.engine.legal import field_cost, play_blockers
from nivel_env.engine.verbs import HANDLERS
from nivel_env.engine.view import derived
from nivel_env.engine.zones import move

EXTRA = """cards:
  - {id: X-FREE, type: skill, name: Giveaway, name_ko: 공짜, cost: 0, attribute: water,
     effect: [{modify: {target: {who: you, zone: unit, choose: 1}, cost: -5}}]}
  - {id: X-HOME, type: unit, name: Homebound Martyr, name_ko: 귀가하는 순교자, cost: 3,
     power: 1, hit: 1, attribute: dark, keywords: [mutual_destruction],
     abilities: [{when: exit, do: [{return_to_hand: self}]}]}
"""

WARDEN_P1 = dict(units=["EA-31"])


@pytest.fixture(scope="module")
def cdb(tmp_path_factory):
    """The bundled pool (with the NV3 cards), the test pool and this file's cards."""
    f = tmp_path_factory.mktemp("pool") / "extra.yaml"
    f.write_text(EXTRA, encoding="utf-8")
    return load_card_db(bundled_card_files() + [TEST_POOL, f])


def game(db, p0, p1, **top):
    return make(db, P("LD-06", **{"level": 6, **p0}), P("LD-08", **{"level": 6, **p1}), **top)


def refused(tmp_path, card: str, where: str):
    """A card file holding ``card`` fails to load, naming the card and the field."""
    f = tmp_path / "bad.yaml"
    f.write_text(f"cards:\n  - {card}\n", encoding="utf-8")
    with pytest.raises(CardDataError) as e:
        load_card_db([f])
    assert e.value.card == "B-1" and e.value.field == where, str(e.value)
    return str(e.value)


# ------------------------------------------------------- 1.3.7.1 never below 0

def test_1_3_7_1_a_cost_lowered_below_0_is_0(cdb):
    """1.3.7.1: a number an effect lowers below 0 is 0.  A 1-cost unit given -5 costs 0,
    and the field counts it as 0 -- not -4, which would hand out room nobody paid for."""
    g = game(cdb, dict(units=["DA-01", "EA-29"], hand=["X-FREE"]), {})
    assert field_cost(g, 0) == 4
    do(g, "use Giveaway")
    do(g, "pick Grave Rat")
    assert derived(g).cost[:3] == [0, 3, 0]
    assert field_cost(g, 0) == 3


# -------------------------------------------- 6.4.1.1.2 the field's cost in use

def test_6_4_1_1_2_the_field_counts_each_unit_at_its_cost_now(cdb):
    """6.4.1.1.2: a card is played only if its cost and the cost of every card on one's
    field fit the size.  The Warden's passive makes each of the opponent's units cost 1
    more, so a 3-cost and a 1-cost unit take 6 of a size of 6: the 2-cost card in hand
    does not fit, and the reason the screens give reads the same numbers."""
    g = game(cdb, dict(units=["EA-29", "DA-01"], hand=["FI-05"]), WARDEN_P1)
    assert derived(g).cost[:2] == [4, 2] and derived(g).cost[3] == 3   # its own side: 3
    assert field_cost(g, 0) == 6
    assert not any("Flame Reaver" in n for n in names(g))
    assert play_blockers(g, 0) == {0: "costs 2; size 6 with 6 in use leaves 0"}


def test_6_4_1_1_2_a_passive_cost_change_ends_when_its_source_leaves(cdb):
    """8.1.3.3 (10.1.3.2): a passive applies while its card is in the unit zone; once the
    Warden is trashed the opponent's units cost what they print again and the card fits."""
    g = game(cdb, dict(units=["EA-29", "DA-01"], hand=["FI-05", "WA-15"], level=8),
             WARDEN_P1)
    assert field_cost(g, 0) == 6
    do(g, "use Whirlpool")                      # return the Warden (cost 3 or less)
    assert g.unit[3] < 0
    assert field_cost(g, 0) == 4 + 2            # 4 printed, Whirlpool in the skill zone
    assert any("play Flame Reaver" in n for n in names(g))


# ------------------------------------ 3.5.5 and 6.4.1.1.2.1 upgrades and cost now

def test_3_5_5_and_6_4_1_1_2_1_an_upgrade_reads_the_units_cost_now(cdb):
    """3.5.5: a unit card may go onto a unit only if it costs more than that unit; 6.4.1.1.2.1:
    the replaced unit's cost is left out of the sum.  Both read the unit as it is: at -2,
    Scorch Lancer (printed 3) costs 1, so Flame Reaver (2) may upgrade it, and the sum
    frees 1, not 3.  At the end of the turn the -2 ends (6.6.1.2)."""
    g = game(cdb, dict(units=["FI-06", "DA-01", "FI-01"], hand=["WA-29", "FI-05"]), {})
    assert not any("upgrade Scorch Lancer" in n for n in names(g))
    do(g, "use Lightened Load")
    do(g, "pick Scorch Lancer")
    assert derived(g).cost[0] == 1 and field_cost(g, 0) == 1 + 1 + 1 + 1
    assert any("upgrade Scorch Lancer -> Flame Reaver" in n for n in names(g))
    g2 = g.clone()
    do(g2, "end main")
    do(g2, "end attack")
    assert derived(g2).cost[0] == 3            # until end of turn: over (6.6.1.2)
    do(g, "upgrade Scorch Lancer")
    assert field_cost(g, 0) == 2 + 1 + 1 + 1   # the 1 it freed, then Flame Reaver's 2


def test_3_5_5_a_unit_at_a_raised_cost_needs_a_costlier_upgrade(cdb):
    """3.5.5: with the Warden across, 2-cost units cost 3, so a 3-cost unit card may upgrade
    none of them; the reason names both costs."""
    g = game(cdb, dict(units=["FI-05", "DA-02", "FI-04"], hand=["FI-06"], level=10),
             WARDEN_P1)
    assert not any("Scorch Lancer" in n for n in names(g))
    why = play_blockers(g, 0)[0]
    assert why == "an upgrade must cost more than the unit it replaces (Flame Reaver in " \
                  "lane 0 costs 3 (printed 2), Bone Spearman in lane 1 costs 3 (printed 2), " \
                  "Ember Hound in lane 2 costs 3 (printed 2))"


# ------------------------------------------------------- filters read it too

def test_8_6_2_an_equip_condition_reads_the_cost_on_the_field(cdb):
    """8.6.2: an item whose unit stops meeting its equip condition is trashed.  Bulwark
    Plate equips to a unit with cost 2 or more; its Flame Reaver at -2 costs 0, so the
    plate falls off -- not by effect."""
    g = game(cdb, dict(units=[{"card": "FI-05", "items": ["EA-10"]}], hand=["WA-29"]), {})
    do(g, "use Lightened Load")
    assert g.items[0] == []
    lost = [e for e in g.events if e.kind == "equip_lost"]
    assert [e.card for e in lost] == ["EA-10"]


def test_a_cost_filter_reads_the_cost_on_the_field(cdb):
    """Whirlpool returns a unit with cost 3 or less; Scorch Lancer at +2 costs 5, so it is
    no longer a target and Whirlpool, with nothing it can do, cannot be used (8.1.3.1.2)."""
    g = game(cdb, dict(hand=["FI-29", "WA-15"]), dict(units=["FI-06"]))
    assert any("use Whirlpool" in n for n in names(g))
    do(g, "use Price of Glory")
    assert derived(g).cost[3] == 5
    assert not any("use Whirlpool" in n for n in names(g))


def test_modifiers_end_when_the_unit_leaves_the_field(cdb):
    """8.1.3.2.1's new object: a unit that leaves the field is a new card, so a cost change
    made to it there is gone; played again, it costs what it prints."""
    g = game(cdb, dict(hand=["FI-29", "WA-15"]), dict(units=["DA-01"]))
    do(g, "use Price of Glory")
    assert derived(g).cost[3] == 3
    do(g, "use Whirlpool")                      # 3 or less: returned to its owner's hand
    assert not any(md[0] == K.M_COST for md in g.mods)


# ------------------------------------------------ 10.2.5.2 Mutual Destruction

def test_10_2_5_2_3_mutual_destruction_compares_the_winners_cost_now(cdb):
    """10.2.5.2.3: a Mutual Destruction unit trashed in battle trashes the unit that beat it
    if its own cost is at least that unit's.  Grudge Revenant's Attacker lowers Night
    Terror (printed 4) to 2, so the Revenant (2) takes it along; the forecast says so
    before the block, with both costs."""
    g = game(cdb, dict(units=["DA-30"]), dict(units=["DA-09"]))
    do(g, "end main")
    do(g, "attack with Grudge Revenant")
    block, = battle_forecast(g).blocks
    assert block.trashed == ("attacker", "blocker")
    assert "Mutual Destruction: the attacker (cost 2) takes the blocker (cost 2, printed 4) " \
           "with it" in block.notes
    do(g, "defend with Night Terror")
    assert g.unit[0] < 0 and g.unit[3] < 0


def test_10_2_5_2_4_mutual_destruction_reads_its_card_as_it_lies_in_the_trash(cdb):
    """10.2.5.2.4: the Mutual Destruction card's cost is that of the card in the trash when
    the effect resolves.  Cinder Martyr at +2 costs 4 on the field, but in the trash it
    costs its printed 2, less than Scorch Lancer's 3: the Lancer stays.  Reading its cost
    on the field (4) would trash it."""
    g = game(cdb, dict(hand=["FI-29"], units=["FI-06"]), dict(units=["FI-27"]))
    do(g, "use Price of Glory")
    assert derived(g).cost[3] == 4
    do(g, "end main")
    do(g, "attack with Scorch Lancer")
    block, = battle_forecast(g).blocks
    assert block.trashed == ("blocker",)
    assert "Mutual Destruction does nothing: the blocker costs 2 in the trash, 4 on the " \
           "field, less than the attacker's 3" in block.notes
    do(g, "defend with Cinder Martyr")
    assert g.unit[0] >= 0 and g.card(g.unit[0]).id == "FI-06"
    assert any(getattr(e, "keyword", None) == "Mutual Destruction" for e in g.events)


@pytest.mark.parametrize("first, lancer_stays", [("exit", True), ("Mutual Destruction", False)])
def test_10_2_5_2_4_a_card_gone_from_the_trash_compares_nothing(cdb, first, lancer_stays):
    """10.2.5.2.4 reads the card lying in the trash when Mutual Destruction resolves.  Its
    own Exit (10.1.7.2.1) returns Homebound Martyr to its hand; its player orders the two
    (1.3.5).  Exit first: the card is no longer in the trash, there is no cost to compare
    and Quarry Golem stays.  Mutual Destruction first: 3 against 3, the Golem is trashed."""
    g = game(cdb, dict(units=["EA-29"]), dict(units=["X-HOME"]))
    do(g, "end main")
    do(g, "attack with Quarry Golem")
    do(g, "defend with Homebound Martyr")
    do(g, f"pick resolve Homebound Martyr {first}")
    assert (g.unit[0] >= 0) == lancer_stays
    assert any(g.card(i).id == "X-HOME" for i in g.hand[1])


# ------------------------------------------------------- the language itself

def test_cost_changes_are_written_in_card_text(cdb):
    assert cdb.get("WA-29").text == "Choose one of your units: it gets -2 cost until end of turn."
    assert cdb.get("EA-31").text == "[Passive] All your opponent's units get +1 cost."
    assert "Its encounter unit gets -2 cost until end of battle." in cdb.get("DA-30").text


def test_a_cost_change_is_told_in_the_narration(cdb):
    from nivel_env.narrate import narrate
    g = game(cdb, dict(units=["FI-06"], hand=["WA-29"]), {})
    do(g, "use Lightened Load")
    assert "Your Scorch Lancer gets -2 cost (Lightened Load)." in narrate(g, 0)


def test_the_new_cards_keep_the_observation_size(cdb):
    """The shipped policies read 11,097 floats: a cost change adds no column."""
    from nivel_env.env import OBS_SIZE, Encoder
    g = game(cdb, dict(units=["DA-30", "EA-31"], hand=["WA-29", "FI-29"]),
             dict(units=["EA-31"]))
    enc = Encoder(cdb)
    assert OBS_SIZE == 11097 and enc.encode(g, 0).shape == (11097,)


def test_a_cost_change_outside_minus_20_to_20_is_refused(tmp_path):
    refused(tmp_path, "{id: B-1, type: skill, name: B, cost: 0, attribute: fire, "
                      "effect: [{modify: {target: self, cost: 21}}]}",
            "effect[0].modify.cost")


# ------------------------------------------------------------ 3.3.4 leaders stay

LEADER = "{{id: B-1, type: leader, name: B, oath: [{{all: {{}}}}], {rest}}}"


@pytest.mark.parametrize("verb", ["trash", "return_to_hand", "to_deck_bottom", "salvage", "move"])
def test_3_3_4_a_leader_moving_itself_is_refused_by_name(tmp_path, verb):
    """3.3.4: a leader card cannot leave the level zone by an effect.  On a leader, `self` is
    the leader, so a verb that moves cards aimed at it could never do anything: the card
    file is refused, naming the card and the field."""
    msg = refused(tmp_path, LEADER.format(
        rest=f"abilities: [{{when: active_main, do: [{{draw: 1}}, {{{verb}: self}}]}}]"),
        f"abilities[0].do[1].{verb}.target")
    assert "3.3.4" in msg


def test_3_3_4_also_as_a_cost_and_on_the_back_face(tmp_path):
    refused(tmp_path, LEADER.format(
        rest="abilities: [{when: active_main, cost: [{trash: self}], do: [{draw: 1}]}]"),
        "abilities[0].cost[0].trash.target")
    refused(tmp_path, LEADER.format(
        rest="awakening: 5, back: {name: C, abilities: [{when: passive, "
             "do: [{modify: {power: 1}}]}, {when: active_main, do: [{return_to_hand: self}]}]}"),
        "back.abilities[1].do[0].return_to_hand.target")


@pytest.mark.parametrize("verb", ["trash", "return_to_hand", "to_deck_bottom", "salvage"])
def test_3_3_4_a_verb_that_would_move_a_leader_skips_it(cdb, verb):
    """3.3.4: whatever names the leader, a verb that moves cards does nothing to it: the
    action is not one that can be carried out (8.1.3.1.2), not payable as a cost, and
    carrying it out moves nothing and is not "done" (8.3.2).  Moving it directly is an
    engine error, refused before anything changes."""
    g = game(cdb, {}, {})
    leader = 0
    a = m.Action(verb, target=m.Selector(ref="self", mode="all"))
    h = HANDLERS[verb]
    events = len(g.events)
    assert not h.possible(g, 0, leader, a)
    if h.payable is not None:
        assert not h.payable(g, 0, leader, a)
    assert not h.run(g, 0, leader, a, ())
    assert g.zone(leader) == K.Z_LEVEL and len(g.events) == events
    with pytest.raises(RuntimeError, match="3.3.4"):
        move(g, leader, K.Z_TRASH)
    assert g.zone(leader) == K.Z_LEVEL


# --------------------------------------------------------- 4.8.2 the trash

def test_4_8_2_trashing_from_the_trash_is_refused_with_the_field_named(tmp_path):
    """4.8.2: a card in the trash cannot be trashed, so "trash a card from the trash" can
    never be carried out (8.1.3.1.2): refused, as an effect or as a cost."""
    refused(tmp_path, "{id: B-1, type: skill, name: B, cost: 0, attribute: fire, "
                      "effect: [{trash: {who: any, zone: trash, all: true}}]}",
            "effect[0].trash.target.zone")
    refused(tmp_path, "{id: B-1, type: unit, name: B, cost: 1, power: 1, hit: 1, "
                      "attribute: fire, abilities: [{when: active_main, cost: [{trash: "
                      "{who: you, zone: trash, choose: 1}}], do: [{draw: 1}]}]}",
            "abilities[0].cost[0].trash.target.zone")


def test_4_8_2_a_card_in_the_trash_is_no_target_for_trash(cdb):
    """4.8.2 with 8.1.3.1.2 and 8.3.2: `trash: self` for a card lying in the trash names
    nothing the verb can act on: not possible, not done."""
    g = game(cdb, dict(trash=["DA-01"]), {})
    iid = g.trash[0][0]
    a = m.Action("trash", target=m.Selector(ref="self", mode="all"))
    assert not HANDLERS["trash"].possible(g, 0, iid, a)
    assert not HANDLERS["trash"].run(g, 0, iid, a, ())
    assert g.trash[0] == [iid] and g.stamp[iid] == 0
