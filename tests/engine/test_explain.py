"""The engine's explanations for the screens: a unit's keywords as they act
(engine.explain.unit_keywords), why a hand card cannot be played (engine.legal.play_blockers)
and what a battle will do (engine.forecast.battle_forecast) -- and the two grant paths that
did not act like the others (a passive's grant ignored its `while` gates; a Credit a
passive grants did not draw on placement)."""
import random
from itertools import islice

import pytest

from conftest import TEST_POOL, P, do, make, names, to_attack
from nivel_env.cards import load_card_db, load_deck
from nivel_env.cards.db import bundled_card_files
from nivel_env.cards.deck import list_decks
from nivel_env.cards.vocab import SUBKEYWORDS
from nivel_env.engine import (BattleForecast, actions as A, battle_forecast, new_game,
                              play_blockers, unit_keywords)
from nivel_env.engine.explain import STACKING
from nivel_env.engine.hidden import determinize, substitute
from nivel_env.engine.view import derived
from nivel_env.primer import keyword_label

EXTRA = """cards:
  - {id: X-LP, type: leader, name: Spear Marshal, name_ko: 창 원수, attribute: fire,
     oath: [{all: {attribute: [fire, wind]}, text: every card is fire or wind}],
     abilities: [{when: passive, do: [{grant: {target: {who: you, zone: unit, all: true},
                                               keyword: {pierce: 2}}}]}]}
  - {id: X-LG, type: leader, name: Patient Marshal, name_ko: 인내의 원수, attribute: fire,
     oath: [{all: {attribute: [fire, wind]}, text: every card is fire or wind}],
     abilities: [{when: passive, do: [{grant: {target: {who: you, zone: unit, all: true},
                                               keyword: {pierce: 2, while: [{level_link: 6}]}}}]}]}
  - {id: X-LC, type: leader, name: Coin Marshal, name_ko: 동전 원수, attribute: fire,
     oath: [{all: {attribute: [fire, wind]}, text: every card is fire or wind}],
     abilities: [{when: passive, do: [{grant: {target: {who: you, zone: unit, all: true},
                                               keyword: {credit: 1}}}]}]}
  - {id: X-SPEAR, type: item, name: Long Spear, name_ko: 긴 창, cost: 1, attribute: fire,
     equip: {}, keywords: [{pierce: 2}]}
  - {id: X-GIFT, type: skill, name: Patient Gift, name_ko: 인내의 선물, cost: 0,
     attribute: fire, effect: [{grant: {target: {who: you, zone: unit, choose: 1},
                                        keyword: {pierce: 2, while: [{level_link: 6}]}}}]}
  - {id: X-MANY, type: unit, name: Many Banners, name_ko: 많은 깃발, cost: 3, power: 3,
     hit: 1, attribute: fire,
     keywords: [{credit: 1}, {pierce: 1}, berserker, {guardian: {barrier: 1}}, {credit: 1},
                {pierce: 3}, {breakthrough: {power_max: 2}}, berserker,
                {guardian: {sacrifice: 1}}, {guardian: {barrier: 1}}, {plunder: 2},
                {plunder: 1}]}
  - {id: X-WALL, type: unit, name: Open Wall, name_ko: 열린 벽, cost: 3, power: 3, hit: 1,
     attribute: fire, keywords: [{breakthrough: {power_max: 2}}, breakthrough,
                                 {breakthrough: {power_max: 2}}]}
  - {id: X-5, type: unit, name: Heavy Ram, name_ko: 무거운 충각, cost: 5, power: 5, hit: 2,
     attribute: fire}
  - {id: X-3, type: unit, name: Middle Guard, name_ko: 중간 수비병, cost: 3, power: 3, hit: 1,
     attribute: fire}
  - {id: X-PLATE, type: item, name: Heavy Plate, name_ko: 무거운 갑옷, cost: 4, attribute: fire,
     equip: {}}
  - {id: X-TWICE, type: unit, name: Twice Mad, name_ko: 두 번 광분, cost: 3, power: 4, hit: 1,
     attribute: fire, keywords: [berserker],
     abilities: [{when: passive, do: [{modify: {target: self, attacks: 1}}]}]}
  - {id: X-SHIELD, type: item, name: Tower Shield, name_ko: 탑 방패, cost: 1, attribute: water,
     affiliation: [Shield], equip: {},
     abilities: [{when: passive, do: [{modify: {target: self, power: 3}}]}]}
"""


@pytest.fixture(scope="module")
def xdb(tmp_path_factory):
    """The bundled pool, the test pool and the cards above (real cards where they fit)."""
    f = tmp_path_factory.mktemp("pool") / "explain.yaml"
    f.write_text(EXTRA, encoding="utf-8")
    return load_card_db(bundled_card_files() + [TEST_POOL, f])


def labels(g, p, lane):
    return [keyword_label(k) for k in unit_keywords(g, p * 3 + lane)]


# ------------------------------------------------------------------ unit_keywords

def test_pierce_from_an_item_shows_once_at_its_highest(xdb):
    g = make(xdb, P(units=[{"card": "T-002", "items": ["X-SPEAR"]},
                           {"card": "T-002", "items": ["FI-20"]}]), P("T-L02"))
    assert [k.n for k in derived(g).keywords[0]] == [1, 2]          # both instances there
    assert labels(g, 0, 0) == ["Pierce 2"]                           # 10.2.3.2.3
    assert labels(g, 0, 1) == ["Pierce 1"]      # Searing Spear's Pierce 1 on a Pierce 1 unit


def test_a_leaders_passive_grant_shows_and_only_the_highest_pierce(xdb):
    g = make(xdb, P("X-LP", units=["T-002", "T-001"]), P("T-L02"))
    assert labels(g, 0, 0) == ["Pierce 2"]
    assert labels(g, 0, 1) == ["Pierce 2"]      # a unit with no Pierce of its own
    assert labels(g, 1, 0) == [] and unit_keywords(g, 3) == ()      # empty slot


def test_a_resolved_grant_shows_real_cards(xdb):
    g = make(xdb, P("LD-08", level=5, units=["T-001"], hand=["DA-21"]), P("T-L02"))
    do(g, "Harvest Moon")                       # a skill: "it gains Pierce 1"
    assert labels(g, 0, 0) == ["Pierce 1"]
    g = make(xdb, P("LD-08", units=["T-001"]), P("T-L02"), phase="attack")
    assert labels(g, 0, 0) == []
    do(g, "Mara")                               # the leader's Active: Attack grant
    assert labels(g, 0, 0) == ["Pierce 1"]


def test_a_passive_grant_keeps_the_keywords_while_gates(xdb):
    """Was: a leader's passive granting "Pierce 2 while Level Link 6" gave it at level 3,
    where the same keyword granted by an effect (stats._apply_mods) was checked."""
    low = make(xdb, P("X-LG", level=3, units=["T-001"]), P("T-L02"))
    high = make(xdb, P("X-LG", level=6, units=["T-001"]), P("T-L02"))
    assert derived(low).keywords[0] == () and labels(low, 0, 0) == []
    assert labels(high, 0, 0) == ["Pierce 2"]
    by_effect = make(xdb, P(level=3, units=["T-001"], hand=["X-GIFT"]), P("T-L02"))
    do(by_effect, "Patient Gift")
    assert derived(by_effect).keywords[0] == derived(low).keywords[0] == ()


def test_a_credit_a_passive_grants_draws_on_placement_as_it_discards_on_leaving(xdb):
    """Was: placing a unit read only its printed keywords, so a Credit a passive grants
    drew nothing, while trashing it read its current ones and discarded (10.2.6.4.3-4)."""
    g = make(xdb, P("X-LC", hand=["T-001", "T-002"], deck=["T-002"] * 5), P("T-L02"))
    do(g, "play Ember Squire (hand 0) -> lane 0")
    assert labels(g, 0, 0) == ["Credit 1"]
    assert [e.kind for e in g.events[-3:]] == ["place", "keyword", "draw"]
    assert len(g.hand[0]) == 2 and len(g.deck[0]) == 4


def test_how_instances_combine_and_their_order(xdb):
    g = make(xdb, P(units=["X-MANY", "X-WALL"]), P("T-L02"))
    assert labels(g, 0, 0) == ["Pierce 3", "Plunder 2", "Breakthrough (with power 2 or less)",
                               "Berserker", "Guardian (Barrier 1)", "Guardian (Sacrifice 1)",
                               "Credit 1", "Credit 1"]
    assert labels(g, 0, 1) == ["Breakthrough"]  # 10.2.3.4.3: no condition stops every unit


def test_every_sub_keyword_says_how_its_instances_combine():
    assert set(STACKING) == {t.key for t in SUBKEYWORDS}


# ------------------------------------------------------------------ play_blockers

def test_cost_over_the_free_size_names_size_and_cost_in_use(xdb):
    # size 7 (level 5 + 2 damage), cost in use 4 (two 2-cost skills in the skill zone)
    g = make(xdb, P(level=5, damage=["T-001"] * 2, skills=["T-019", "T-019"],
                    hand=["X-5", "T-001"]), P("T-L02"))
    assert play_blockers(g, 0) == {0: "costs 5; size 7 with 4 in use leaves 3"}
    g = make(xdb, P(level=2, units=["T-001"], hand=["X-PLATE", "T-020"]), P("T-L02"))
    assert play_blockers(g, 0) == {0: "costs 4; size 2 with 1 in use leaves 1"}


def test_an_upgrade_counts_what_it_frees(xdb):
    # size 5, three 1-cost units (3 in use): 2 left, 3 when replacing a 1-cost unit
    g = make(xdb, P(level=5, units=["T-001"] * 3, hand=["X-5"]), P("T-L02"))
    assert play_blockers(g, 0) == {
        0: "costs 5; size 5 with 3 in use leaves 2 (3 replacing Ember Squire in lane 0)"}


def test_an_upgrade_must_cost_more_and_a_lane_takes_one_placement_a_turn(xdb):
    g = make(xdb, P(level=9, units=["X-3", "T-002", None], hand=["T-001", "T-002"]),
             P("T-L02"))
    assert play_blockers(g, 0) == {}
    do(g, "play Ember Squire (hand 0) -> lane 2")
    assert play_blockers(g, 0) == {                               # 6.4.1.1.3 with 3.5.5
        0: "lane 2 already had a unit placed this turn, and an upgrade must cost more than "
           "the unit it replaces (Middle Guard in lane 0 costs 3, Flame Lancer in lane 1 "
           "costs 2)"}
    g = make(xdb, P(level=9, hand=["T-001"] * 4), P("T-L02"))
    for lane in range(3):
        do(g, f"play Ember Squire (hand 0) -> lane {lane}")
    assert play_blockers(g, 0) == {0: "each of your lanes already had a unit placed this turn"}


def test_an_item_needs_a_unit_it_may_equip(xdb):
    g = make(xdb, P(level=9, hand=["FI-20"]), P("T-L02"))
    assert play_blockers(g, 0) == {0: "you have no unit to equip it to"}
    g = make(xdb, P(level=9, units=["T-001"], hand=["WA-20", "FI-20"]), P("T-L02"))
    assert play_blockers(g, 0) == {0: "it equips only to a mage unit, and none of your "
                                      "units is one"}
    g = make(xdb, P(level=1, hand=["X-PLATE"]), P("T-L02"))        # no unit beats cost
    assert play_blockers(g, 0) == {0: "you have no unit to equip it to"}


def test_a_skill_needs_its_condition_and_something_to_do(xdb):
    g = make(xdb, P(level=4, hand=["LI-18", "T-019"]), P("T-L02"))
    assert play_blockers(g, 0) == {
        0: "its condition is not met: your level is at least 5",
        1: "nothing it does can be carried out now (no legal target)"}
    g = make(xdb, P(level=5, hand=["LI-18", "T-019"]), P("T-L02", units=["T-001"]))
    assert play_blockers(g, 0) == {}


def test_outside_ones_own_main_phase_nothing_is_played(xdb):
    g = make(xdb, P(level=9, hand=["T-001", "T-020"], units=["T-001"]),
             P("T-L02", hand=["T-001"]))
    assert play_blockers(g, 1) == {0: "cards are played in your main phase"}
    to_attack(g)
    assert set(play_blockers(g, 0).values()) == {"cards are played in your main phase"}


def test_while_an_effect_waits_for_a_choice_nothing_is_played(xdb):
    g = make(xdb, P(level=9, hand=["T-020", "T-001"], units=["T-001", "T-001"]), P("T-L02"))
    [skill] = [n for n in names(g) if "hand 0" in n]
    do(g, skill)                                 # "choose one of your units": a pick
    assert g.decision_name == "pick"
    assert play_blockers(g, 0) == {
        0: "cards are played once the effect or choice in progress is done"}


def _random_positions(seeds, every=1):
    """(game, seed) at every ``every``-th decision of seeded random games between the
    bundled decks."""
    decks = [load_deck(n) for n in list_decks()]
    for seed in seeds:
        g = new_game(decks[seed % len(decks)], decks[(seed * 5 + 3) % len(decks)], seed=seed)
        r = random.Random(seed)
        n = 0
        while not g.is_terminal():
            if n % every == 0:
                yield g, seed
            n += 1
            g.apply_action(r.choice(g.legal_actions()))


def test_play_blockers_agree_with_the_legal_moves_in_random_games():
    checked, reasons = 0, set()
    for g, _seed in _random_positions(range(40)):
        legal = g.legal_actions()
        playable = {(a - A.PLAY) // A.PLAY_TARGETS for a in legal if A.PLAY <= a < A.ACTIVATE}
        for p in (0, 1):
            blocked = play_blockers(g, p)
            assert all(isinstance(v, str) and v for v in blocked.values())
            if g.decision_name == "main" and g.current_player == p:
                for h in range(len(g.hand[p])):
                    assert (h in playable) == (h not in blocked), (h, blocked, legal)
                    checked += 1
                reasons.update(v.split(";")[0].split(" ")[0] for v in blocked.values())
            else:
                assert set(blocked) == set(range(len(g.hand[p])))
    assert checked > 5000
    assert {"costs", "nothing", "an", "lane", "you", "each", "its", "it"} <= reasons


# -------------------------------------------------------------------- battle_forecast

def _battle(db, attacker, blocker, **kw):
    g = make(db, P(units=[attacker], **kw.pop("p0", {})),
             P("T-L02", units=[blocker], **kw.pop("p1", {})), phase="attack")
    do(g, "attack with")
    return g


def test_a_plain_win_a_tie_and_a_loss(xdb):
    win = battle_forecast(_battle(xdb, "T-001", "T-016"))     # 2 vs 2: a tie
    assert isinstance(win, BattleForecast) and win.power == 2 and win.hit == 1
    [b] = win.blocks
    assert (b.attacker_power, b.blocker_power, b.trashed) == (2, 2, ("blocker",))  # 7.4.3
    assert "equal powers: the attacker wins ties" in b.notes
    [b] = battle_forecast(_battle(xdb, "X-3", "T-001")).blocks       # 3 vs 2
    assert (b.trashed, b.damage, b.notes) == (("blocker",), 0, ())
    [b] = battle_forecast(_battle(xdb, "T-001", "X-3")).blocks       # 2 vs 3
    assert (b.attacker_power, b.blocker_power, b.trashed) == (2, 3, ("attacker",))


def test_unblocked_damage_is_the_hit_and_infiltrate_draws(xdb):
    f = battle_forecast(_battle(xdb, "X-5", "T-001"))
    assert (f.unblocked.damage, f.unblocked.draws, f.defending_player) == (2, 0, 1)
    assert f.unblocked.notes == ()
    g = _battle(xdb, {"card": "T-001", "items": ["WI-14"]}, "X-3",
                p1={"damage": ["T-001"] * 9})  # Wind Blade: Infiltrate 1, +1 power
    f = battle_forecast(g)
    assert (f.power, f.hit, f.unblocked.damage, f.unblocked.draws) == (3, 1, 1, 1)
    assert f.unblocked.notes == (
        "Infiltrate 1: the attacking player draws 1",
        "with 9 damage already, the defending player reaches 10 and loses unless a trigger "
        "card revealed as damage stops it")


def test_pierce_goes_through_a_won_battle_at_its_highest(xdb):
    g = _battle(xdb, {"card": "T-002", "items": ["X-SPEAR"]}, "T-001")
    [b] = battle_forecast(g).blocks
    assert (b.trashed, b.damage) == (("blocker",), 2)             # 10.2.3.2.2-3
    d = len(g.damage[1])
    do(g, "defend")
    assert len(g.damage[1]) == d + 2


def test_plunder_draws_on_a_won_battle_and_berserker_must_attack_again(xdb):
    [b] = battle_forecast(_battle(xdb, "T-003", "T-001")).blocks    # Raider of Ash
    assert (b.trashed, b.damage, b.draws) == (("blocker",), 0, 1)   # 10.2.3.3.2
    assert b.notes == ("Plunder 1: the attacking player draws 1",)
    [b] = battle_forecast(_battle(xdb, "T-001", "T-003")).blocks    # lost: no Plunder
    assert (b.trashed, b.draws) == (("attacker",), 0)
    f = battle_forecast(_battle(xdb, "X-TWICE", "T-001"))           # 2 attacks a turn
    assert f.notes == ("Berserker: if it survives, the attacking player must attack with "
                       "it again before ending the attack phase",)


def test_mutual_destruction_and_finale(xdb):
    [b] = battle_forecast(_battle(xdb, "T-001", "T-008")).blocks    # cost 1 vs cost 2
    assert b.trashed == ("blocker", "attacker")
    assert "Mutual Destruction: the blocker (cost 2) takes the attacker (cost 1) with it" \
        in b.notes
    [b] = battle_forecast(_battle(xdb, "T-002", "T-024")).blocks    # 3 vs 3, Finale
    assert (b.trashed, b.damage) == (("blocker",), 0)
    assert b.notes[0].startswith("Finale:")


def test_guardian_options_one_per_way_to_pay(xdb):
    g = make(xdb, P(units=[None, "X-3"]),
             P("T-L02", units=[{"card": "T-023", "items": ["X-SHIELD"]}, "T-001",
                               "T-021"], hand=["T-001"]), phase="attack")
    do(g, "attack with")
    assert g.decision_name == "guardian"
    f = battle_forecast(g)
    enc, offset, barrier = f.blocks            # the encounter unit first, then by lane
    assert (enc.lane, enc.guardian, enc.paid, enc.trashed) == (1, None, (), ("blocker",))
    # Coral Knight has 4 + 3 power with its Tower Shield; Offset trashes the Shield
    assert derived(g).power[3] == 7
    shield = g.items[3][0]
    assert (offset.lane, offset.guardian.guardian, offset.paid) == (0, "offset", (shield,))
    assert (offset.attacker_power, offset.blocker_power, offset.trashed) == \
        (3, 4, ("attacker",))
    assert offset.notes == ("to block, it trashes its item Tower Shield",)
    assert (barrier.lane, barrier.guardian.guardian, barrier.paid, barrier.blocker_power,
            barrier.trashed) == (2, "barrier", (), 3, ("blocker",))
    assert barrier.notes[0] == "to block, its player discards 1 card; powers are as " \
                               "before the discard"
    do(g, "Coral Knight")                      # one Shield: paid without a pick
    [battle] = [e for e in g.events if e.kind == "battle"]
    assert (battle.result, battle.attacker_power, battle.defender_power) == \
        ("attacker_trashed", 3, 4)
    g = make(xdb, P(units=[None, "X-3"]),
             P("T-L02", units=[{"card": "T-023", "items": ["X-SHIELD"]}, "T-001",
                               "T-022"]), phase="attack")
    do(g, "attack with")
    sacrifice = [b for b in battle_forecast(g).blocks if b.lane == 2]
    assert sorted(b.paid for b in sacrifice) == sorted(((g.unit[3],), (g.unit[4],)))


def test_duelist_and_breakthrough(xdb):
    f = battle_forecast(_battle(xdb, "T-005", "X-3"))      # Duelist, Breakthrough[power <= 2]
    assert f.unblocked is None                              # 10.2.3.5.3: it must block
    assert f.notes == ("Duelist: no Guardian may block, and the encounter unit must block "
                       "if it can", "Breakthrough: units with power 2 or less may not block")
    g = make(xdb, P(units=[{"card": "X-3", "items": ["EA-09"]}]),
             P("T-L02", units=["T-001", "T-022"]), phase="attack")
    do(g, "attack with")                        # Runic Blade: Breakthrough[power <= 3], +1
    f = battle_forecast(g)
    assert g.decision_name == "guardian"
    assert f.notes == ("Breakthrough: units with power 3 or less may not block",
                       "the encounter unit may not block: Breakthrough")
    [b] = f.blocks                              # only the Stone Sentinel, paying with it
    assert (b.lane, b.paid, b.attacker_power, b.blocker_power, b.trashed) == \
        (1, (g.unit[3],), 4, 4, ("blocker",))


def test_the_forecast_changes_nothing_and_is_none_without_a_battle(xdb):
    g = _battle(xdb, "T-002", "T-001")
    before, legal = g.to_dict(), g.legal_actions()
    battle_forecast(g)
    play_blockers(g, 0)
    play_blockers(g, 1)
    assert g.to_dict() == before and g.legal_actions() == legal
    assert battle_forecast(make(xdb, P(), P("T-L02"))) is None


def _until_battle_end(c, rng, start):
    """Play ``c`` on (random choices) until its battle is over; the events from ``start``
    to the battle's end."""
    while c.battle is not None and not c.is_terminal():
        c.apply_action(rng.choice(c.legal_actions()))
    ev = c.events[start:]
    ends = [i for i, e in enumerate(ev) if e.kind == "battle_end"]
    return ev[:ends[0] + 1] if ends else ev


def _effect_fired(events) -> bool:
    """An ability's effect or a trigger card resolved: the forecast does not foresee them."""
    return any(e.kind == "effect" or (e.kind == "damage" and e.trigger)
               for e in events)


def test_the_forecast_matches_what_the_battle_does_in_random_games():
    """At every defense decision: play the block (and no block) on a clone.  Where no
    ability's effect and no trigger card resolved during that battle -- the things the
    forecast says it cannot foresee -- who is trashed (by the battle, Finale or Mutual
    Destruction), the Pierce damage and the unblocked damage must be as forecast."""
    outcomes = {}
    skipped = 0
    for g, seed in _random_positions(range(60)):
        if g.decision_name != "defense":
            continue
        f = battle_forecast(g)
        lane, must = g.dec[2], g.dec[3]
        [b] = [b for b in f.blocks if b.guardian is None]
        assert b.lane == lane and (f.unblocked is None) == must
        c = g.clone()
        start = len(c.events)
        c.apply_action(A.DEFEND + lane)
        ev = _until_battle_end(c, random.Random(seed), start)
        if _effect_fired(ev):
            skipped += 1
        else:
            trashed = {who for e in ev if e.kind == "trash"
                       for who, iid in (("attacker", f.attacker), ("blocker", b.blocker))
                       if e.iid == iid}
            assert trashed == set(b.trashed), (seed, b, ev)
            pierce = sum(e.value for e in ev if e.kind == "keyword" and
                         e.keyword == "Pierce")
            assert pierce == b.damage
            outcomes[b.trashed] = outcomes.get(b.trashed, 0) + 1
        if not must:
            c = g.clone()
            start = len(c.events)
            c.apply_action(A.PASS)
            ev = _until_battle_end(c, random.Random(seed), start)
            if not _effect_fired(ev):
                [e] = [e for e in ev if e.kind == "battle"]
                assert (e.result, e.damage) == ("unblocked", f.unblocked.damage)
                outcomes["unblocked"] = outcomes.get("unblocked", 0) + 1
    assert outcomes[("blocker",)] > 100 and outcomes[("attacker",)] > 100
    assert outcomes["unblocked"] > 200
    assert skipped < sum(outcomes.values()) / 4


def test_play_blockers_and_the_forecast_read_only_what_the_seat_may_see():
    compared = 0
    for g, seed in islice(_random_positions(range(300, 306), every=3), 400):
        if g.decision_name == "main":
            p = g.current_player
            want = play_blockers(g, p)
            for w in (substitute(g, p, seed), determinize(g, p, seed)):
                assert play_blockers(w, p) == want
                compared += 1
        if g.battle is not None:
            want = battle_forecast(g)
            for p in (0, 1):
                for w in (substitute(g, p, seed), determinize(g, p, seed)):
                    assert battle_forecast(w) == want
                    compared += 1
    assert compared > 100
