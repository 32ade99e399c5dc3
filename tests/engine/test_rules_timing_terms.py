"""The timings the card language gained words for: 4.5.2 effects that resolve when damage
occurs, before it is processed ("[When you would take damage]", ``before_damage``); 8.4.1.1
continuous effects conditioned on an action, carried out once per time after the effect in
progress is over ("[Whenever you draw a card]", ``whenever``); 1.2.2.2 cards an effect puts
into a damage zone, whose loss at 10 is judged when the effect's processing ends
(``to_damage``).  docs/rulings.md R28-R30.  Rule scenarios use cards of their own; the
bundled cards that use each term have cases in tests/cards/timing.yaml."""
import pytest

from conftest import P, do, make, names, pool_with, power, to_attack
from nivel_env.cards import load_card_db
from nivel_env.cards.schema import CardDataError
from nivel_env.engine import const as K
from nivel_env.engine.view import derived

EXTRA = """cards:
  # ------------------------------------------------------------------ 4.5.2
  - {id: X-WARD, type: unit, name: Ward Sage, name_ko: 결계 현자, cost: 1, power: 2, hit: 1,
     attribute: light, abilities: [{when: before_damage, do: [{heal: 1}]}]}
  - {id: X-OMEN, type: unit, name: Omen Seer, name_ko: 징조의 선견자, cost: 1, power: 2, hit: 1,
     attribute: light, abilities: [{when: before_damage, do: [{draw: 1}]}]}
  - {id: X-CHARM, type: item, name: Omen Charm, name_ko: 징조의 부적, cost: 0,
     attribute: light, equip: {}, abilities: [{when: before_damage, do: [{draw: 1}]}]}
  - {id: X-LORD, type: leader, name: Storm Regent, name_ko: 폭풍 섭정, attribute: wind,
     oath: [{all: {}}], abilities: [{when: before_damage, do: [{draw: 1}]}]}
  - {id: X-DREAD, type: unit, name: Dread Herald, name_ko: 공포의 전령, cost: 1, power: 2,
     hit: 1, attribute: dark, abilities: [{when: before_damage, do: [{to_damage: 1}]}]}
  - {id: X-BOLT, type: skill, name: Bolt, name_ko: 번개, cost: 0, attribute: fire,
     effect: [{damage: {amount: 2, player: opponent}}]}
  - {id: X-STORM, type: skill, name: Firestorm, name_ko: 화염 폭풍, cost: 0, attribute: fire,
     effect: [{damage: {amount: 1, player: each}}]}
  - {id: X-HIT2, type: unit, name: Twin Blade, name_ko: 쌍검, cost: 1, power: 5, hit: 2,
     attribute: fire}
  # ---------------------------------------------------------------- 8.4.1.1
  - {id: X-READ, type: unit, name: Page Turner, name_ko: 책장 넘기는 이, cost: 1, power: 2, hit: 1,
     attribute: water, abilities: [{when: whenever, watch: draw, do: [{modify: {power: 1}}]}]}
  - {id: X-MEND, type: unit, name: Mending Scribe, name_ko: 치유 필경사, cost: 1, power: 2,
     hit: 1, attribute: water, abilities: [{when: whenever, watch: draw, do: [{heal: 1}]}]}
  - {id: X-STUDY, type: skill, name: Late Study, name_ko: 늦은 공부, cost: 0, attribute: water,
     effect: [{draw: 2},
              {draw: 1, if: {count: {who: you, zone: unit, filter: {power_min: 4}},
                             at_least: 1}}]}
  - {id: X-SCAR, type: unit, name: Scar Keeper, name_ko: 흉터지기, cost: 1, power: 2, hit: 1,
     attribute: dark, abilities: [{when: whenever, watch: damage, do: [{modify: {power: 1}}]}]}
  - {id: X-GLEAN, type: unit, name: Gleaner, name_ko: 이삭줍기, cost: 1, power: 2, hit: 1,
     attribute: earth, abilities: [{when: whenever, watch: trash, do: [{modify: {power: 1}}]}]}
  - {id: X-SPITE, type: unit, name: Spite Imp, name_ko: 앙심 임프, cost: 1, power: 2, hit: 1,
     attribute: dark, abilities: [{when: whenever, watch: discard, whose: opponent,
                                   do: [{draw: 1}]}]}
  - {id: X-PURGE, type: skill, name: Purge, name_ko: 숙청, cost: 0, attribute: dark,
     effect: [{discard: {amount: 1, player: opponent}}, {mill: 2}]}
  - {id: X-RUSH, type: skill, name: Study and Charge, name_ko: 공부와 돌격, cost: 0,
     attribute: water, effect: [{draw: 1}, {attack: {who: you, zone: unit, choose: 1}}]}
  - {id: X-3, type: unit, name: Three, name_ko: 셋, cost: 1, power: 3, hit: 1, attribute: earth}
  # ---------------------------------------------------------------- 1.2.2.2
  - {id: X-TITHE, type: skill, name: Tithe and Mend, name_ko: 십일조와 치유, cost: 0,
     attribute: earth, effect: [{to_damage: 3}, {heal: 2}]}
  - {id: X-PLEDGE, type: skill, name: Blood Pledge, name_ko: 피의 서약, cost: 0,
     attribute: earth, effect: [{to_damage: 2}, {draw: 1}]}
  - {id: X-WAGER, type: skill, name: Wager of War, name_ko: 전쟁의 내기, cost: 0,
     attribute: fire, effect: [{to_damage: 3}, {attack: {who: you, zone: unit, choose: 1}},
                               {heal: 3}]}
  - {id: X-DOUBLE, type: skill, name: Shared Toll, name_ko: 나눈 대가, cost: 0,
     attribute: dark, effect: [{to_damage: {amount: 1, player: each}}]}
  - {id: X-DEEP, type: skill, name: Deep Toll, name_ko: 깊은 대가, cost: 0, attribute: dark,
     effect: [{to_damage: 5}, {draw: 1}]}
  - {id: X-PACT, type: unit, name: Pact Keeper, name_ko: 서약지기, cost: 1, power: 2, hit: 1,
     attribute: dark, abilities: [{when: active_main, cost: [{to_damage: 2}],
                                   do: [{modify: {power: 2}}]}]}
"""

#: ten cards without a trigger, for decks and damage zones
TEN = ["T-002"] * 10


@pytest.fixture(scope="module")
def xdb(tmp_path_factory):
    return pool_with(tmp_path_factory.mktemp("pool"), EXTRA)


def refused(tmp_path, ability: str, field: str):
    """A unit with this ability fails to load, with an error naming the card and field."""
    f = tmp_path / "bad.yaml"
    f.write_text("cards:\n  - {id: B-1, type: unit, name: B, cost: 0, power: 1, hit: 1,\n"
                 f"     attribute: fire, abilities: [{ability}]}}\n", encoding="utf-8")
    with pytest.raises(CardDataError, match="B-1.*" + field):
        load_card_db([f])


def types(g, since=0) -> list:
    return [e.kind for e in g.events[since:]]


def pick_any(g):
    """Answer a pick with its first candidate."""
    assert g.decision_name == "pick"
    g.apply_action(next(a for a in g.legal_actions() if g.action_name(a).startswith("pick ")))


def attack_unblocked(g, name):
    to_attack(g)
    do(g, f"attack with {name}")


# ------------------------------------------------------------------- 4.5.2

def test_4_5_2_an_effect_for_damage_resolves_before_any_card_is_revealed(xdb):
    """4.5.2: when damage occurs, the effects whose condition that is resolve first, and
    only then is the damage processed (4.5.4): a player at 8 who takes 2 heals a card
    before the first card is revealed, so ends at 9 and plays on -- were it healed after,
    the 10th card would have ended the game."""
    g = make(xdb, P(units=[None, "X-HIT2"]), P("T-L02", units=["X-WARD"], damage=["T-001"] * 8,
                                               deck=TEN))
    attack_unblocked(g, "Twin Blade")
    assert g.decision_name == "pick" and g.current_player == 1   # heal: which card
    assert len(g.damage[1]) == 8 and "damage" not in types(g)     # nothing revealed yet
    pick_any(g)
    assert not g.is_terminal() and len(g.damage[1]) == 9
    ts = types(g)
    assert ts.index("damage_window") < ts.index("effect") < ts.index("heal") < \
        ts.index("damage")


def test_4_5_2_the_damage_stays_what_it_was_and_the_window_opens_once(xdb):
    """4.5.2 lets the effect resolve first; it does not change the damage: 2 damage is
    still 2 cards after it, and the effect resolves once for the damage, not once a point
    (4.5.4.5 processes the same damage again)."""
    g = make(xdb, P(units=[None, "X-HIT2"]), P("T-L02", units=["X-OMEN"], deck=TEN))
    hand = len(g.hand[1])
    attack_unblocked(g, "Twin Blade")
    assert len(g.damage[1]) == 2 and len(g.hand[1]) == hand + 1
    assert types(g).count("damage_window") == 1


def test_4_5_2_damage_from_an_effect_and_from_pierce_opens_the_window_too(xdb):
    """4.5.1: damage from a battle or a card's effect; Pierce's damage is an effect's
    (10.2.3.2.2).  Each opens the window before its processing."""
    g = make(xdb, P(hand=["X-BOLT"]), P("T-L02", units=["X-OMEN"], deck=TEN))
    do(g, "Bolt")
    ts = types(g)
    assert ts.index("damage_window") < ts.index("draw") < ts.index("damage")
    g = make(xdb, P(units=["T-002"]), P("T-L02", units=["X-3", None, "X-OMEN"], deck=TEN))
    to_attack(g)
    do(g, "attack with Flame Lancer")
    do(g, "defend")                               # 3 against 3: the attacker wins, Pierce 1
    ts = types(g)
    assert ts.index("keyword") < ts.index("damage_window") < ts.index("damage")
    assert len(g.damage[1]) == 1


def test_4_5_2_damage_to_each_player_opens_both_windows_before_either_is_processed(xdb):
    """Damage to each player occurs at once (8.4.4): both players' effects for it resolve,
    the turn player's first (8.1.3.2.3), before the turn player's damage is processed."""
    g = make(xdb, P(hand=["X-STORM"], units=["X-OMEN"], deck=TEN),
             P("T-L02", units=["X-OMEN"], deck=TEN))
    do(g, "Firestorm")
    ev = [e for e in g.events if e.kind in ("effect", "damage")]
    assert [(e.kind, e.player) for e in ev] == [
        ("effect", 0), ("effect", 1), ("damage", 0), ("damage", 1)]


def test_4_5_2_items_grant_it_and_leaders_have_it(xdb):
    """An item's effect is its unit's (8.6.1); a leader's works from the level zone."""
    g = make(xdb, P(units=[None, "X-HIT2"]),
             P("X-LORD", units=[{"card": "T-008", "items": ["X-CHARM"]}], deck=TEN))
    hand = len(g.hand[1])
    attack_unblocked(g, "Twin Blade")
    assert g.decision_name in ("pick", "attack")
    while g.decision_name == "pick":              # the player orders their two effects
        pick_any(g)
    assert len(g.hand[1]) == hand + 2 and len(g.damage[1]) == 2


def test_4_5_2_with_1_2_2_2_a_window_effect_reaching_10_loses_before_any_card_is_revealed(xdb):
    """The window's effect is an effect: a player it leaves with 10 cards in the damage
    zone loses as it ends (1.2.2.2), before the damage processing reveals a card."""
    g = make(xdb, P(units=[None, "X-HIT2"]),
             P("T-L02", units=["X-DREAD"], damage=["T-002"] * 9, deck=TEN))
    attack_unblocked(g, "Twin Blade")
    assert g.returns() == (1, -1)
    assert "damage" not in types(g) and len(g.damage[1]) == 10


def test_4_5_2_no_window_for_cards_an_effect_puts_into_the_damage_zone(xdb):
    """``to_damage`` is not damage (1.2.2.2 vs 4.5): no window opens."""
    g = make(xdb, P(hand=["X-PLEDGE"], units=["X-OMEN"]), P("T-L02"))
    do(g, "Blood Pledge")
    assert "damage_window" not in types(g) and len(g.damage[0]) == 2


def test_4_5_2_the_battle_forecast_says_the_effects_resolve_first(xdb):
    """The explanation of a block decision names the defending player's effects that
    resolve before the damage an unblocked attack would deal."""
    from nivel_env.engine import battle_forecast
    g = make(xdb, P(units=[None, "X-HIT2"]),
             P("T-L02", units=[None, "X-WARD"], damage=["T-001"] * 8, deck=TEN))
    to_attack(g)
    do(g, "attack with Twin Blade")
    notes = battle_forecast(g).unblocked.notes
    assert notes[0] == "the defending player's effects for the damage (Ward Sage) resolve " \
                       "before it is processed"


def test_before_damage_is_a_timing_a_leader_may_have_and_renders(xdb):
    c = xdb.get("X-WARD")
    assert c.text.startswith("[When you would take damage] Put 1 card(s) from your damage")
    assert c.text_ko.startswith("[대미지 발생 시]")
    assert "[When you would take damage] Draw 1 card." in xdb.get("X-LORD").text


# ----------------------------------------------------------------- 8.4.1.1

def test_8_4_1_1_met_during_an_effect_it_is_carried_out_after_it_once_per_card(xdb):
    """8.4.1.1: a continuous effect whose condition is an action, met while an effect is
    processed, is carried out once that processing is over, once for each time (each card
    drawn).  Late Study draws 2, then draws 1 more if a unit has 4 power: had Page Turner
    (2) grown as the cards were drawn it would have, so the third card would be drawn."""
    g = make(xdb, P(hand=["X-STUDY"], units=["X-READ"], deck=TEN), P("T-L02"))
    hand = len(g.hand[0])
    do(g, "Late Study")
    assert len(g.hand[0]) == hand - 1 + 2          # no third card
    assert power(g, 0, 0) == 4                     # +1 twice, afterwards
    ev = [(e.kind, getattr(e, "when", None)) for e in g.events
          if e.kind in ("effect", "effect_end")]
    assert ev == [("effect_end", None), ("effect", "whenever"), ("effect_end", None),
                  ("effect", "whenever"), ("effect_end", None)]


def test_8_4_1_1_met_outside_an_effect_it_is_carried_out_at_once(xdb):
    """The draw phase's draw is no effect: the continuous effect is carried out at once
    (8.4.1), before the main phase begins."""
    g = make(xdb, P(deck=TEN), P("T-L02", units=["X-READ"], deck=TEN))
    to_attack(g)
    do(g, "end attack phase")
    assert g.tp == 1 and g.decision_name == "main"
    assert power(g, 1, 0) == 3


def test_8_4_1_1_with_8_4_3_during_damage_processing_it_waits_for_its_end(xdb):
    """8.4.3: effects other than a trigger wait until damage processing is over -- here
    two damage cards (one a Trigger that draws) and a third effect in the way; the effects
    watching the damage zone and the draw are carried out after the last damage card."""
    g = make(xdb, P(units=[None, "X-HIT2"]),
             P("T-L02", units=["X-SCAR", None, "X-READ"], deck=["T-001"] + ["T-002"] * 8))
    attack_unblocked(g, "Twin Blade")              # the top card, T-001: Trigger, draw 1
    ts = types(g)
    last_damage = len(ts) - 1 - ts[::-1].index("damage")
    whenever = [i for i, e in enumerate(g.events) if getattr(e, "when", None) == "whenever"]
    assert ts.count("damage") == 1 and len(whenever) == 2   # the Trigger cancelled the rest
    assert min(whenever) > last_damage
    assert power(g, 1, 0) == 3 and power(g, 1, 2) == 3
    # at 8 damage the Trigger is the 10th card: the damage processing ends in a loss
    # (4.5.4.4) before the effects waiting for its end are carried out -- Mending Scribe's
    # heal for the Trigger's draw would have come too late even had the game gone on
    g = make(xdb, P(units=[None, "X-HIT2"]),
             P("T-L02", units=["X-SCAR", None, "X-MEND"], damage=["T-002"] * 8,
               deck=["T-002", "T-001"] + ["T-002"] * 8))
    attack_unblocked(g, "Twin Blade")
    assert g.returns() == (1, -1) and types(g).count("damage") == 2
    assert not any(getattr(e, "when", None) == "whenever" for e in g.events)


def test_8_4_1_1_it_waits_through_a_battle_its_effect_declared(xdb):
    """An effect that declares an attack (7.2.1.1) is still being processed during the
    battle: a continuous effect met before it waits for the effect's end, so Page Turner
    fights at 2 power and loses to Three."""
    g = make(xdb, P(hand=["X-RUSH"], units=["X-READ"], deck=TEN),
             P("T-L02", units=["X-3"], deck=TEN))
    do(g, "Study and Charge")
    do(g, "defend")
    assert g.unit[0] < 0                           # 2 < 3: Page Turner was trashed
    assert any(e.kind == "fizzle" for e in g.events)   # it left before its turn came


def test_8_4_1_1_whose_opponent_and_discard_versus_trash(xdb):
    """``whose: opponent`` watches the other player's actions; a discard is a card going
    from a hand to the trash, and every card into the trash counts for ``trash``."""
    g = make(xdb, P(hand=["X-PURGE"], units=["X-SPITE", "X-GLEAN"], deck=TEN, level=5),
             P("T-L02", hand=["T-002", "T-002"], deck=TEN))
    hand = len(g.hand[0])
    do(g, "Purge")                                 # they discard 1; you mill 2
    pick_any(g)
    assert len(g.hand[0]) == hand - 1 + 1          # Spite Imp drew once (their discard)
    assert power(g, 0, 1) == 2 + 2                 # Gleaner: the 2 cards milled into yours


def test_8_4_1_1_the_effect_of_a_card_that_left_does_nothing(xdb):
    """A continuous effect is valid only while its card is where it works: Gleaner trashed
    by the battle (its own trashing it does not see) leaves nothing to carry out."""
    g = make(xdb, P(units=["X-GLEAN"], deck=TEN), P("T-L02", units=["X-3"], deck=TEN))
    to_attack(g)
    do(g, "attack with Gleaner")
    do(g, "defend")
    assert g.unit[0] < 0 and not any(getattr(e, "when", None) == "whenever" for e in g.events)


def test_whenever_renders_what_it_watches_in_both_languages(xdb):
    assert xdb.get("X-READ").text == "[Whenever you draw a card] This unit gets +1 power " \
                                     "until end of turn."
    assert xdb.get("X-READ").text_ko.startswith("[카드를 드로우할 때마다]")
    assert xdb.get("X-SPITE").text.startswith("[Whenever your opponent discards a card] Draw")
    assert xdb.get("X-SCAR").text.startswith("[Whenever a card is put into your damage zone]")


@pytest.mark.parametrize("ability,field", [
    ("{when: whenever, do: [{draw: 1}]}", r"abilities\[0\]\.watch"),
    ("{when: whenever, watch: shuffle, do: [{draw: 1}]}", r"abilities\[0\]\.watch"),
    ("{when: whenever, watch: draw, whose: each, do: [{modify: {power: 1}}]}",
     r"abilities\[0\]\.whose"),
    ("{when: entry, watch: draw, do: [{draw: 1}]}", r"abilities\[0\]\.watch"),
    # an ability that could meet its own condition would be carried out for ever
    ("{when: whenever, watch: draw, do: [{draw: {amount: 1, player: opponent}}]}",
     r"abilities\[0\]\.do\[0\]\.draw"),
    ("{when: whenever, watch: trash, do: [{discard: 1}]}", r"abilities\[0\]\.do\[0\]\.discard"),
    ("{when: whenever, watch: discard, whose: opponent, do: [{trash: {who: you, zone: hand, "
     "choose: 1}}]}", r"abilities\[0\]\.do\[0\]\.trash"),
    ("{when: whenever, watch: damage, do: [{to_damage: 1}]}",
     r"abilities\[0\]\.do\[0\]\.to_damage"),
])
def test_whenever_abilities_that_cannot_be_written_are_refused(tmp_path, ability, field):
    refused(tmp_path, ability, field)


# ----------------------------------------------------------------- 1.2.2.2

def test_1_2_2_2_the_loss_is_judged_when_the_effect_ends_not_as_the_cards_arrive(xdb):
    """1.2.2.2 / 9.2.1.2: cards an effect puts into a damage zone lose the game if 10 or
    more are there when the effect's processing ends: 8 + 3 = 11 for a moment, then 2
    healed, 9 when it ends -- the game goes on."""
    g = make(xdb, P(hand=["X-TITHE"], damage=["T-001"] * 8, deck=TEN), P("T-L02"))
    do(g, "Tithe and Mend")
    assert len(g.damage[0]) == 11 and g.decision_name == "pick"   # still in the effect
    pick_any(g)
    pick_any(g)
    assert len(g.damage[0]) == 9 and not g.is_terminal() and g.decision_name == "main"


def test_1_2_2_2_a_battle_inside_the_effect_is_not_its_end(xdb):
    """The effect declares an attack in the middle (7.2.1.1): the battle is part of its
    processing, so 11 damage then is no loss yet; the heal after it brings 8."""
    g = make(xdb, P(hand=["X-WAGER"], units=["X-3"], damage=["T-001"] * 8, deck=TEN),
             P("T-L02", deck=TEN))
    do(g, "Wager of War")                          # one unit: it attacks, unblocked
    assert len(g.damage[1]) == 1 and not g.is_terminal()
    for _ in range(3):
        pick_any(g)
    assert len(g.damage[0]) == 8 and not g.is_terminal()


def test_1_2_2_2_ten_when_the_effect_ends_loses_and_nothing_after_it_happens(xdb):
    """At the end of the effect the player has 10: they lose (9.2.1.2), before any effect
    waiting for the end of this one."""
    g = make(xdb, P(hand=["X-PLEDGE"], units=["X-READ"], damage=["T-001"] * 8, deck=TEN),
             P("T-L02"))
    do(g, "Blood Pledge")
    assert g.returns() == (-1, 1)
    assert not any(getattr(e, "when", None) == "whenever" for e in g.events)
    assert types(g)[-2:] == ["effect_end", "game_over"]


def test_1_2_2_2_with_1_2_3_both_players_reaching_10_is_a_draw(xdb):
    g = make(xdb, P(hand=["X-DOUBLE"], damage=["T-001"] * 9, deck=TEN),
             P("T-L02", damage=["T-001"] * 9, deck=TEN))
    do(g, "Shared Toll")
    assert g.returns() == (0, 0)


def test_cards_put_into_the_damage_zone_are_not_damage(xdb):
    """No Trigger resolves (4.5.4.3 is a step of damage processing), no loss for a deck
    too small (4.5.3 is too): as many cards as the deck holds go; the size grows (4.7.2)."""
    g = make(xdb, P(hand=["X-DEEP"], deck=["T-001"] * 3), P("T-L02"))
    size = derived(g).size[0]
    do(g, "Deep Toll")                             # 5 asked, 3 there; then the draw...
    assert len(g.damage[0]) == 3 and len(g.deck[0]) == 0
    assert g.returns() == (-1, 1)                  # ...from an empty deck loses (1.2.2.4)
    assert [e.kind for e in g.events if e.kind in ("to_damage", "damage")] == \
        ["to_damage"] * 3
    g = make(xdb, P(hand=["X-PLEDGE"], deck=["T-001"] * 5), P("T-L02"))
    hand = len(g.hand[0])
    size = derived(g).size[0]
    do(g, "Blood Pledge")
    assert len(g.hand[0]) == hand - 1 + 1          # the draw only: no Trigger draw
    assert derived(g).size[0] == size + 2


def test_to_damage_as_a_cost_is_paid_in_full_or_not_at_all(xdb):
    g = make(xdb, P(units=["X-PACT"], deck=["T-002"] * 2), P("T-L02"))
    do(g, "activate Pact Keeper")
    assert len(g.damage[0]) == 2 and power(g, 0, 0) == 4
    g = make(xdb, P(units=["X-PACT"], deck=["T-002"]), P("T-L02"))
    assert not any("Pact Keeper" in n for n in names(g))


def test_whenever_damage_counts_cards_an_effect_puts_there(xdb):
    """8.4.1.1 with 1.2.2.2: "a card is put into your damage zone" is met by ``to_damage``
    too, once per card, after the effect."""
    g = make(xdb, P(hand=["X-PLEDGE"], units=["X-SCAR"], deck=TEN), P("T-L02"))
    do(g, "Blood Pledge")
    assert power(g, 0, 0) == 4


def test_to_damage_renders_in_card_text(xdb):
    assert xdb.get("X-PLEDGE").text == "Put the top 2 cards of your deck into your damage " \
                                       "zone. Draw 1 card."
    assert xdb.get("X-DOUBLE").text == "Each player puts the top card of their deck into " \
                                       "their damage zone."


# --------------------------------------------------------------- narration

def test_narration_tells_the_window_and_the_cards_put_into_the_damage_zone(xdb):
    from nivel_env.narrate import narrate
    g = make(xdb, P(hand=["X-BOLT"]), P("T-L02", units=["X-OMEN"], deck=TEN))
    do(g, "Bolt")
    lines = narrate(g, 0)
    assert "Your opponent is about to take 2 damage: their effects for it resolve first." \
        in lines
    assert any(x.startswith("Their Omen Seer: [When you would take damage]") for x in lines)
    g = make(xdb, P(hand=["X-PLEDGE"], units=["X-SCAR"], deck=TEN), P("T-L02"))
    do(g, "Blood Pledge")
    lines = narrate(g, 1)
    assert "Flame Lancer goes from their deck to their damage zone (Blood Pledge) (1/10)." \
        in lines
    assert any(x.startswith("Their Scar Keeper: [Whenever a card is put into your damage "
                            "zone]") for x in lines)


# ------------------------------------------- the NV3 cards in play: soak and hidden information

@pytest.mark.parametrize("games", [pytest.param(400, marks=pytest.mark.slow), 24])
def test_the_nv3_cards_keep_every_check(games):
    """The bundled decks with the NV3 timing cards mixed in (``check --cards`` does the
    same): invariants, the mask, determinism, hidden information and the narration hold,
    and the new timings happen in those games."""
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.cards.db import DATA_DIR, read_card_file
    from nivel_env.checks import run_checks, summary
    from nivel_env.cli_check import decks_with_cards
    db = load_card_db()
    new = [db.get(c.id) for c in read_card_file(DATA_DIR / "nv3-timing.yaml")]
    decks = decks_with_cards([load_deck(n, db) for n in list_decks()], new)
    r = run_checks(decks, seed=30, checks=["soak", "mask", "determinism", "hidden", "narration"],
                   counts={"soak": games, "mask": games // 4, "determinism": max(1, games // 24),
                           "hidden": games // 4, "narration": max(1, games // 24)},
                   progress=False)
    assert all(x.failures == 0 for x in r), summary(r)
    from nivel_env.checks.policies import always_play
    from nivel_env.engine import new_game
    seen = set()
    for s in range(8):
        g = new_game(decks[s], decks[(s + 3) % 8], seed=s)
        i = 0
        while not g.is_terminal():
            g.apply_action(always_play(g, g.legal_actions(), i))
            i += 1
        seen |= {getattr(e, "when", None) or e.kind for e in g.events}
    assert {"whenever", "to_damage"} <= seen
