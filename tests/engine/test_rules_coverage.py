"""Scenario tests for rules no other test named: the general principle 1.3.1, the deck zone
(3.2.3, 3.2.4), trashing (4.8.2), setting up a game (5.1.5, 5.1.7), activating an effect
(8.2.1.2), an effect's default target (8.3.4), effects ending (8.5.2.1, 8.5.3, 8.5.3.2),
revealing (11.1.2, 11.1.3) and looking at hidden cards (11.2.2, 11.2.3).

Each test builds the position its rule talks about, with cards of its own (``EXTRA``) where
the test pool has none.  Where the card language has no word for what a rule talks about
(there is no "reveal" verb and no "look at" verb), the test says so and checks the nearest
thing the engine promises."""
from collections import Counter
from itertools import permutations

import pytest

from conftest import A, P, do, make, names, pool_with, power, to_attack, unit
from nivel_env.cards import load_card_db
from nivel_env.cards.schema import CardDataError
from nivel_env.engine import const as K, new_game
from nivel_env.engine.hidden import determinize, hidden_groups, seat_event, seen_candidates, \
    who_sees
from nivel_env.engine.view import decision_info

OPP = "T-L02"

EXTRA = """cards:
  - {id: X-TWICE, type: unit, name: Tireless Scribe, name_ko: 지치지 않는 서기, cost: 1,
     power: 2, hit: 1, attribute: water,
     abilities: [{when: active_main, limit: 2, do: [{draw: 1}]}]}
  - {id: X-TWIN, type: unit, name: Twin Blade, name_ko: 쌍검사, cost: 1, power: 2, hit: 1,
     attribute: fire, abilities: [{when: passive, do: [{modify: {target: self, attacks: 1}}]}]}
  - {id: X-TWO-WAYS, type: unit, name: Crossroads Sage, name_ko: 갈림길 현자, cost: 1,
     power: 2, hit: 1, attribute: water,
     abilities: [{when: active_main, do: [{draw: 1}]},
                 {when: active_main, do: [{modify: {power: 1}}]}]}
  - {id: X-MILL, type: skill, name: Sift, name_ko: 체질, cost: 0, attribute: water,
     effect: [{mill: 3}]}
  - {id: X-BOLT, type: skill, name: Triple Bolt, name_ko: 삼연뢰, cost: 0, attribute: fire,
     effect: [{damage: {amount: 3, player: opponent}}]}
  - {id: X-SMITE, type: skill, name: Smite, name_ko: 강타, cost: 0, attribute: fire,
     effect: [{trash: {who: opponent, zone: unit, choose: 1}}]}
  - {id: X-ASH, type: unit, name: Ash Echo, name_ko: 재의 메아리, cost: 1, power: 1, hit: 1,
     attribute: fire,
     abilities: [{when: exit, do: [{trash: self}, {draw: 1, if_done: true}]}]}
  - {id: X-HEX, type: skill, name: Hex, name_ko: 저주, cost: 0, attribute: dark,
     effect: [{modify: {target: {who: opponent, zone: unit, choose: 1}, power: -1}}]}
  - {id: X-BRACE, type: unit, name: Bracing Guard, name_ko: 버티는 경비병, cost: 1, power: 2,
     hit: 1, attribute: earth,
     abilities: [{when: defender, do: [{draw: 1}, {modify: {power: 2}}]}]}
  - {id: X-STUDY, type: skill, name: Study, name_ko: 공부, cost: 0, attribute: water,
     effect: [{draw: 1}]}
  - {id: X-FRONT, type: unit, name: Line Holder, name_ko: 전열 유지자, cost: 1, power: 3,
     hit: 1, attribute: fire,
     abilities: [{when: passive, while: [frontline], do: [{modify: {target: self, power: 2}}]}]}
  - {id: X-BIG, type: unit, name: Standing Giant, name_ko: 서 있는 거인, cost: 1, power: 5,
     hit: 1, attribute: fire}
  - {id: X-WATCH, type: unit, name: Last Watch, name_ko: 마지막 파수, cost: 1, power: 1,
     hit: 1, attribute: fire,
     abilities: [{when: exit, do: [{draw: 1, if: {count: {who: you, zone: unit,
                                                          filter: {power_min: 5}},
                                                  at_least: 1}}]}]}
  - {id: X-WEAK, type: unit, name: Feeble Scout, name_ko: 허약한 척후, cost: 1, power: 1,
     hit: 1, attribute: fire}
  - {id: X-CURSER, type: unit, name: Night Curser, name_ko: 밤의 저주사, cost: 1, power: 1,
     hit: 1, attribute: dark,
     abilities: [{when: active_attack,
                  do: [{modify: {target: {who: opponent, zone: unit, choose: 1},
                                 power: -3}}]}]}
  - {id: X-SWELL, type: unit, name: Swelling Wall, name_ko: 부푸는 벽, cost: 1, power: 2,
     hit: 1, attribute: earth,
     abilities: [{when: defender, do: [{modify: {power: 3, until: turn}}]}]}
  - {id: X-PUMP, type: skill, name: Surge, name_ko: 쇄도, cost: 0, attribute: fire,
     effect: [{modify: {target: {who: you, zone: unit, choose: 1}, power: 2}}]}
  - {id: X-SAP, type: skill, name: Lasting Drain, name_ko: 오래가는 흡수, cost: 0,
     attribute: dark,
     effect: [{modify: {target: {who: you, zone: unit, choose: 1}, power: -2,
                        until: leaves}}]}
  - {id: X-ECHO, type: unit, name: Fading Echo, name_ko: 사라지는 메아리, cost: 1, power: 2,
     hit: 1, attribute: fire, abilities: [{when: exit, do: [{draw: 1}]}]}
  - {id: X-TUCK, type: skill, name: Tuck Away, name_ko: 감추기, cost: 0, attribute: fire,
     effect: [{to_deck_bottom: {who: you, zone: hand, choose: 1,
                                filter: {attribute: fire}}}]}
"""


@pytest.fixture(scope="module")
def xdb(tmp_path_factory):
    return pool_with(tmp_path_factory.mktemp("pool"), EXTRA)


def ids(g, pile):
    return [g.card(i).id for i in pile]


def types(g, since=0):
    return [e.kind for e in g.events[since:]]


def refused(tmp_path, card: str, match: str):
    """A card file holding ``card`` (one YAML flow mapping) fails to load, naming it."""
    f = tmp_path / "bad.yaml"
    f.write_text(f"cards:\n  - {card}\n", encoding="utf-8")
    with pytest.raises(CardDataError, match=match):
        load_card_db([f])


# ----------------------------------------------------------------------------- 1.3.1

def test_1_3_1_a_card_that_allows_two_uses_a_turn_beats_the_once_per_turn_rule(xdb):
    """1.3.1: where a card's text and the rules disagree, the card wins.  6.4.1.2.2 lets an
    activated effect be used once a turn; one whose card says twice is used twice, no more,
    while a card that says nothing keeps to once."""
    g = make(xdb, P(OPP, units=["X-TWICE", "T-030"]), P())
    hand = len(g.hand[0])
    do(g, "activate Tireless Scribe")
    do(g, "activate Tireless Scribe")
    assert len(g.hand[0]) == hand + 2
    assert not any("Tireless Scribe" in n for n in names(g))
    do(g, "activate Current Mover")                     # no such text: once (6.4.1.2.2)
    assert unit(g, 0, 2) == "T-030"
    assert not any("Current Mover" in n for n in names(g))


def test_1_3_1_a_card_that_gives_a_second_attack_beats_the_one_attack_rule(xdb):
    """1.3.1 with 7.2.1: a unit declares an attack only if it has not this turn, unless its
    card says it attacks once more."""
    g = make(xdb, P(units=["X-TWIN", "X-WEAK"]), P(OPP, deck=["T-002"] * 5))
    to_attack(g)
    do(g, "attack with Twin Blade")
    do(g, "attack with Twin Blade")
    do(g, "attack with Feeble Scout")
    assert len(g.damage[1]) == 3
    assert not any(n.startswith("attack with") for n in names(g))


# ----------------------------------------------------------------------------- 3.2.3

def test_3_2_3_cards_leave_the_deck_one_at_a_time_from_the_top(xdb):
    """3.2.3: cards moved out of a deck go one by one: milling 3 is three moves, top card
    first, and each lands in the trash in that order."""
    g = make(xdb, P(OPP, hand=["X-MILL"], deck=["T-021", "T-022", "T-023", "T-024"]), P())
    since = len(g.events)
    do(g, "Sift")
    mills = [e for e in g.events[since:] if e.kind == "mill"]
    assert [e.card for e in mills] == ["T-021", "T-022", "T-023"]
    assert ids(g, g.trash[0])[-3:] == ["T-021", "T-022", "T-023"]
    assert ids(g, g.deck[0]) == ["T-024"]


def test_3_2_3_damage_takes_deck_cards_one_by_one_so_a_trigger_stops_the_rest(xdb):
    """3.2.3 with 4.5.4: 3 damage moves deck cards one at a time; the second is a trigger
    card, whose effect (draw 1) takes the card that the third point would have moved, and
    the damage left becomes 0 (4.5.4.3.1)."""
    g = make(xdb, P(hand=["X-BOLT"]),
             P(OPP, deck=["T-002", "T-001", "T-003", "T-004"], hand=[]))
    do(g, "Triple Bolt")
    assert ids(g, g.damage[1]) == ["T-002", "T-001"]
    assert ids(g, g.hand[1]) == ["T-003"]
    assert ids(g, g.deck[1]) == ["T-004"]


# ----------------------------------------------------------------------------- 3.2.4

def test_3_2_4_a_shuffle_makes_the_deck_order_random(db):
    """3.2.4: shuffling puts the deck in a random order.  A search shuffles the deck after
    it (docs/rulings.md R10): over 240 seeds every order of the 4 cards left comes up, each
    card is on top about a quarter of the time, and no card is lost or added."""
    deck = ["T-026", "T-022", "T-027", "T-028", "T-029"]
    orders = Counter()
    for seed in range(240):
        g = make(db, P(OPP, level=9, hand=["T-033"], deck=deck), P(), seed=seed)
        do(g, "use Rising Tide")
        do(g, "pick Wave Caller")
        left = tuple(ids(g, g.deck[0]))
        assert sorted(left) == sorted(deck[1:])
        orders[left] += 1
    assert set(orders) == set(permutations(deck[1:]))
    on_top = Counter(order[-1] for order in orders.elements())     # the list ends at the top
    assert all(35 <= n <= 85 for n in on_top.values()), on_top


# ----------------------------------------------------------------------------- 4.8.2

def test_4_8_2_a_card_in_the_trash_is_not_trashed_again(xdb):
    """4.8.2: a card in the trash cannot be trashed.  Ash Echo's Exit (which resolves from
    the trash, 10.1.7.2.1) tells it to trash itself: it stays where it lies, the same object,
    with no second trash event and no second Exit."""
    g = make(xdb, P(hand=["X-SMITE"]), P(OPP, units=["X-ASH"]))
    do(g, "Smite")
    iid = next(i for i in g.trash[1] if g.card(i).id == "X-ASH")
    trashes = [e for e in g.events if e.kind == "trash" and e.card == "X-ASH"]
    exits = [e for e in g.events if e.kind == "effect" and e.card == "X-ASH"]
    assert len(trashes) == 1 and len(exits) == 1
    assert g.trash[1] == [iid] and g.stamp[iid] == 1       # one move: unit zone -> trash
    assert g.decision_name == "main"


def test_4_8_2_trashing_a_card_already_in_the_trash_is_not_done_for_if_you_do(xdb):
    """4.8.2 with 8.3.2: Ash Echo's Exit trashes itself, already in the trash, so nothing was
    done and its "if you do, draw 1" is not carried out."""
    g = make(xdb, P(hand=["X-SMITE"]), P(OPP, units=["X-ASH"], hand=[]))
    do(g, "Smite")
    assert g.hand[1] == []


STIR = """cards:
  - {id: X-STIR, type: skill, name: Stir the Ashes, name_ko: 재 휘젓기, cost: 0,
     attribute: fire, effect: [{trash: {who: you, zone: trash, choose: 1}}]}
"""


def test_4_8_2_a_skill_that_only_trashes_from_the_trash_cannot_be_used(tmp_path):
    """4.8.2 with 8.1.3.1.2: "trash a card from your trash" can never be carried out, so the
    card is refused when loaded or the skill is never playable."""
    try:
        db = pool_with(tmp_path, STIR)
    except CardDataError as e:
        assert "X-STIR" in str(e)
        return
    g = make(db, P(hand=["X-STIR"], trash=["T-001", "T-002"]), P(OPP))
    assert not any("Stir the Ashes" in n for n in names(g))


# ----------------------------------------------------------------------------- 5.1.5

def test_5_1_5_the_first_player_is_chosen_at_random(decks):
    """5.1.5: who goes first is decided at random: over 200 seeds either seat goes first
    about half the time, and the choice is recorded at setup."""
    firsts = []
    for seed in range(200):
        g = new_game(*decks, seed=seed)
        setup = next(e for e in g.events if e.kind == "setup")
        assert setup.first_player == g.first
        firsts.append(g.first)
    assert 70 <= firsts.count(0) <= 130, firsts.count(0)


# ----------------------------------------------------------------------------- 5.1.7

def test_5_1_7_the_first_player_takes_the_first_turn(decks):
    """5.1.7: after the mulligans the first player becomes the turn player and turn 1
    starts: their leader levels up (6.2) and they draw nothing (6.3.1.1)."""
    seen = set()
    for seed in range(20):
        g = new_game(*decks, seed=seed)
        first = g.first
        if first in seen:
            continue
        seen.add(first)
        assert g.decision_name == "mulligan" and g.current_player == first      # 5.1.6
        g.apply_action(A.KEEP)
        assert g.decision_name == "mulligan" and g.current_player == 1 - first
        g.apply_action(A.KEEP)
        assert g.decision_name == "main"
        assert (g.turn, g.tp, g.current_player) == (1, first, first)
        assert g.level[first] == 2 and g.level[1 - first] == 1
        assert len(g.hand[first]) == 5 and len(g.hand[1 - first]) == 5
    assert seen == {0, 1}


# --------------------------------------------------------------------------- 8.2.1.2

def test_8_2_1_2_the_player_names_which_effect_to_activate(xdb):
    """8.2.1.2: activating an effect starts with naming it.  A unit with two Active: Main
    abilities offers each as its own action, and only the named one resolves."""
    g = make(xdb, P(OPP, units=["X-TWO-WAYS"]), P())
    offered = [n for n in names(g) if "Crossroads Sage" in n]
    assert len(offered) == 2
    hand = len(g.hand[0])
    do(g, "activate Crossroads Sage (lane 0) effect 1")
    assert power(g, 0, 0) == 3 and len(g.hand[0]) == hand
    assert [n for n in names(g) if "Crossroads Sage" in n] == \
        [n for n in offered if "effect 0" in n]


def test_8_2_1_2_a_skill_activated_from_the_hand_is_shown_to_the_opponent(xdb):
    """8.2.1.2: an effect activated from outside the field is revealed to the opponent.  A
    skill used from the (hidden) hand sits in the open skill zone while its effect waits
    for its target, and the opponent's view of the event names it."""
    g = make(xdb, P(hand=["X-HEX", "T-001"]), P(OPP, units=["T-026", "T-021"]))
    since = len(g.events)
    do(g, "use Hex")
    assert decision_info(g).purpose == K.P_TARGET                  # the effect is waiting
    hex_ = g.skill[0][0]
    assert g.card(hex_).id == "X-HEX" and who_sees(g, hex_) == (0, 1)
    used = next(e for e in g.events[since:] if e.kind == "skill")
    assert seat_event(used, 1).card == "X-HEX"


def test_8_2_1_2_a_leader_effect_activated_from_the_level_zone_is_shown(db):
    """8.2.1.2: the leader is outside the field (the level zone, docs/rulings.md B1); its
    activated effect is announced to both players, naming the leader and the ability."""
    g = make(db, P(hand=["T-001", "T-002"]), P(OPP))
    since = len(g.events)
    do(g, "activate Blaze Captain (leader)")
    act = next(e for e in g.events[since:] if e.kind == "activate")
    seen = seat_event(act, 1)
    assert seen.card == "T-L01" and seen.ability == act.ability >= 0


# ----------------------------------------------------------------------------- 8.3.4

def test_8_3_4_an_effect_with_no_target_means_its_own_card_and_player(xdb):
    """8.3.4: text that names no target means the card itself or its player.  Bracing
    Guard's Defender says "draw 1" and "+2 power": on the opponent's turn its own player
    draws (not the turn player) and the guard itself gets +2 and wins the battle."""
    g = make(xdb, P(units=["T-002"], hand=[]), P(OPP, units=["X-BRACE"], hand=[]))
    to_attack(g)
    do(g, "attack with Flame Lancer")
    do(g, "defend with Bracing Guard")
    assert len(g.hand[1]) == 1 and g.hand[0] == []
    assert unit(g, 1, 0) == "X-BRACE" and unit(g, 0, 0) is None        # 4 beats 3
    g = make(xdb, P(OPP, hand=[]), P(hand=["X-STUDY"]), turn_player=1)
    do(g, "use Study")
    assert len(g.hand[1]) == 1 and g.hand[0] == []


# --------------------------------------------------------------------------- 8.5.2.1

@pytest.mark.parametrize("holder, draws", [("X-FRONT", 0), ("X-BIG", 1)])
def test_8_5_2_1_an_effect_ending_is_dealt_with_before_an_effect_triggered_with_it(
        xdb, holder, draws):
    """8.5.2.1: when an effect ending and an effect to resolve arise together, the ending
    comes first.  Last Watch is trashed: that ends Line Holder's Frontline bonus (5 -> 3
    power) and triggers Last Watch's Exit ("draw 1 if you have a unit of power 5 or
    more"), which then sees the bonus gone.  A unit printed at 5 lets it draw."""
    g = make(xdb, P(OPP, hand=["X-SMITE"], level=5),
             P(units=[holder, "X-WATCH", "T-001"], hand=[]), turn_player=0)
    assert power(g, 1, 0) == 5
    do(g, "Smite")
    do(g, "pick Last Watch")
    assert unit(g, 1, 1) is None and power(g, 1, 0) == (3 if holder == "X-FRONT" else 5)
    assert any(e.kind == "effect" and e.card == "X-WATCH" for e in g.events)
    assert len(g.hand[1]) == draws


# ----------------------------------------------------------------------------- 8.5.3

def test_8_5_3_both_players_effects_ending_together_turn_player_first(xdb):
    """8.5.3 with 8.5.3.1: "until end of turn" effects of both players that end together
    end the turn player's first, and nothing is trashed part-way.  Swelling Wall (2 power)
    defended and gave itself +3; then the turn player's Night Curser gave it -3.  Ending the
    turn player's -3 first takes it through 5 to 2; the other order would pass through -1.
    The engine ends them all in one step (docs/rulings.md R1), which reads the same: the
    wall stays, at 2."""
    g = make(xdb, P(units=["X-WEAK", "X-CURSER"]), P(OPP, units=["X-SWELL"]), phase="attack")
    do(g, "attack with Feeble Scout")
    do(g, "defend with Swelling Wall")
    assert unit(g, 0, 0) is None and power(g, 1, 0) == 5              # 1 < 2 + 3
    do(g, "activate Night Curser")
    assert power(g, 1, 0) == 2
    assert {md[4] for md in g.mods if md[3] == K.U_TURN} == {0, 1}    # one effect each
    since = len(g.events)
    do(g, "end attack")
    assert g.tp == 1 and g.decision_name == "main"
    assert not any(md[3] == K.U_TURN for md in g.mods)
    assert unit(g, 1, 0) == "X-SWELL" and power(g, 1, 0) == 2
    assert "power_zero" not in types(g, since)


# --------------------------------------------------------------------------- 8.5.3.2

def test_8_5_3_2_an_effect_triggered_by_effects_ending_waits_until_they_all_ended(xdb):
    """8.5.3.2: an effect whose condition is met while effects are ending is activated only
    once every ending is done.  Fading Echo (2 power) has +2 until end of turn and -2 while
    it stays: at the end phase the +2 ends, it is at 0 and trashed (docs/rulings.md R1),
    and its Exit resolves after the expiry."""
    g = make(xdb, P(units=["X-ECHO"], hand=["X-PUMP", "X-SAP"]), P(OPP))
    do(g, "Surge")
    do(g, "Lasting Drain")
    assert power(g, 0, 0) == 2 and g.hand[0] == []
    since = len(g.events)
    do(g, "end main")
    do(g, "end attack")
    t = types(g, since)
    exit_at = next(i for i, e in enumerate(g.events[since:])
                   if e.kind == "effect" and e.card == "X-ECHO")
    assert t.index("expire") < t.index("power_zero") < exit_at
    assert unit(g, 0, 0) is None and len(g.hand[0]) == 1              # Exit: draw 1


# ------------------------------------------------------------------------- 11.1.2-3
# The card language has no "reveal" verb: the engine reveals a card only where 3.1.7 says
# (an effect with a card condition moves it into a hidden zone) and at activation (8.2.1.2).

def test_11_1_a_card_that_only_reveals_is_refused(tmp_path):
    """11.1: no card mechanism reveals a card where it lies; a card asking for one is
    refused when loaded, naming the card and the verb."""
    refused(tmp_path, "{id: B-1, type: skill, name: B, cost: 0, attribute: fire, "
                      "effect: [{reveal: {who: you, zone: hand, choose: 1}}]}",
            r"B-1.*effect\[0\]\.reveal.*unknown verb")


def test_11_1_2_a_revealed_card_stays_in_its_zone(xdb):
    """11.1.2: revealing a card does not move it.  Tuck Away puts a fire card from the hand
    on the bottom of the deck; its card condition makes the card revealed (3.1.7), and the
    revealed card lies where the effect put it, the deck, counted there and nowhere else."""
    g = make(xdb, P(hand=["X-TUCK", "T-001", "T-021"], deck=["T-002"] * 3), P(OPP))
    tucked = next(i for i in g.hand[0] if g.card(i).id == "T-001")
    do(g, "Tuck Away")
    shown = [e for e in g.events if e.kind == "reveal"]
    assert [(e.iid, e.to) for e in shown] == [(tucked, "deck")]
    assert g.zone(tucked) == K.Z_DECK and g.deck[0][0] == tucked
    assert len(g.deck[0]) == 4 and ids(g, g.hand[0]) == ["T-021"]


def test_11_1_3_a_card_revealed_into_a_deck_is_hidden_again_once_the_effect_is_over(xdb):
    """11.1.3: when the effect is over, a card it revealed goes back to its earlier state.
    The tucked card is face down in the deck again: nobody can tell it there, and the
    worlds the opponent imagines (hidden.determinize) may put another card in its place."""
    g = make(xdb, P(hand=["X-TUCK", "T-001"], deck=["T-002", "T-021", "T-022"]), P(OPP))
    tucked = next(i for i in g.hand[0] if g.card(i).id == "T-001")
    do(g, "Tuck Away")
    assert g.decision_name == "main"
    assert who_sees(g, tucked) == ()
    assert tucked in hidden_groups(g, 1)[0]
    assert any(g.card(tucked).id != determinize(g, 1, s).card(tucked).id for s in range(8))


# ------------------------------------------------------------------------- 11.2.2-3
# "Look at" is not a verb either: a player looks at hidden cards only while choosing among
# them (a search, docs/rulings.md R14).

def _searching(db):
    g = make(db, P(OPP, level=9, hand=["T-033"], deck=["T-026", "T-022", "T-025", "T-027"]),
             P())
    do(g, "use Rising Tide")
    return g


def test_11_2_2_cards_looked_at_stay_in_their_zone(db):
    """11.2.2: cards being looked at stay where they are.  While the searcher chooses, the
    water units it looks at are still in the deck, counted there, and only the searcher
    sees them."""
    g = _searching(db)
    d = decision_info(g)
    assert d.purpose == K.P_TARGET and d.player == 0 and d.can_pass
    cands = set(d.candidates)
    assert {g.card(i).id for i in cands} == {"T-026", "T-025"}
    assert all(g.zone(i) == K.Z_DECK for i in cands)
    assert len(g.deck[0]) == 4 and g.hand[0] == []
    assert seen_candidates(g, 0) == cands and seen_candidates(g, 1) == set()
    for s in range(4):                       # the searcher's worlds keep what they look at
        h = determinize(g, 0, s)
        assert all(h.card(i).id == g.card(i).id for i in cands)


def test_11_2_3_cards_looked_at_are_hidden_again_after(db):
    """11.2.3: when the looking is over, the cards go back to their earlier state.  The
    searcher takes nothing: the cards stay face down in the deck, nothing names them, and
    the searcher's worlds may put other cards there again."""
    g = _searching(db)
    cands = set(decision_info(g).candidates)
    since = len(g.events)
    g.apply_action(A.PASS)
    assert g.decision_name == "main"
    assert all(g.zone(i) == K.Z_DECK for i in cands) and len(g.deck[0]) == 4
    assert not {"search", "reveal"} & set(types(g, since))
    assert seen_candidates(g, 0) == set()
    assert cands <= set(hidden_groups(g, 0)[1])
    assert any(determinize(g, 0, s).card(i).id != g.card(i).id
               for s in range(8) for i in cands)
