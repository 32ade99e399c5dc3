"""The engine's explanations for the screens: a unit's keywords as they act
(engine.explain.unit_keywords) -- and the two grant paths that did not act like the others
(a passive's grant ignored its `while` gates; a Credit a passive grants did not draw on
placement)."""
import pytest

from conftest import TEST_POOL, P, do, make
from nivel_env.cards import load_card_db
from nivel_env.cards.db import bundled_card_files
from nivel_env.cards.vocab import SUBKEYWORDS
from nivel_env.engine import unit_keywords
from nivel_env.engine.explain import STACKING
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
    assert [e["type"] for e in g.events[-3:]] == ["place", "keyword", "draw"]
    assert len(g.hand[0]) == 2 and len(g.deck[0]) == 4


def test_how_instances_combine_and_their_order(xdb):
    g = make(xdb, P(units=["X-MANY", "X-WALL"]), P("T-L02"))
    assert labels(g, 0, 0) == ["Pierce 3", "Plunder 2", "Breakthrough (with power 2 or less)",
                               "Berserker", "Guardian (Barrier 1)", "Guardian (Sacrifice 1)",
                               "Credit 1", "Credit 1"]
    assert labels(g, 0, 1) == ["Breakthrough"]  # 10.2.3.4.3: no condition stops every unit


def test_every_sub_keyword_says_how_its_instances_combine():
    assert set(STACKING) == {t.key for t in SUBKEYWORDS}
