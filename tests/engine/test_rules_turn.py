"""Setup (5), turn structure (6), costs and placement (6.4), end phase (6.6), losses (9)."""
from nivel_env.engine import new_game
from nivel_env.engine import actions as A
from conftest import P, do, make, names, unit


def test_5_1_6_mulligan_redraws_five(decks):
    g = new_game(*decks, seed=1)
    p = g.current_player
    before = list(g.hand[p])
    g.apply_action(A.MULLIGAN)
    assert len(g.hand[p]) == 5 and len(g.deck[p]) == 35
    assert g.events[-1].kind == "mulligan" or any(e.kind == "mulligan" for e in g.events)
    assert g.current_player == 1 - p and g.decision.kind == "mulligan"
    assert sorted(before + g.deck[p]) != sorted(g.deck[p])  # cards went back and came again


def test_6_2_6_3_first_turn_level_two_and_no_draw(decks):
    g = new_game(*decks, seed=3)
    g.apply_action(A.KEEP)
    g.apply_action(A.KEEP)
    first = g.first
    assert g.turn == 1 and g.tp == first and g.decision.kind == "main"
    assert g.level[first] == 2 and len(g.hand[first]) == 5          # 6.3.1.1, docs/rulings.md B4
    do(g, "end main")
    do(g, "end attack")
    assert g.tp == 1 - first and len(g.hand[1 - first]) == 6 and g.level[1 - first] == 2


def test_6_4_1_1_2_cost_check_uses_size(db):
    # level 2 + 1 damage = size 3; Flame Lancer (2) in play leaves room for cost 1 only
    g = make(db, P(level=2, damage=["T-002"], units=["T-002"], hand=["T-001", "T-003"]))
    n = names(g)
    assert any("Ember Squire" in k for k in n)
    assert not any("Raider of Ash" in k for k in n)


def test_3_5_5_upgrade_needs_higher_cost_and_frees_cost(db):
    g = make(db, P(level=3, units=["T-002"], hand=["T-008", "T-005"]))
    n = names(g)
    assert "upgrade Flame Lancer -> Storm Duelist (hand 1) in lane 0" in n   # 3 <= 3 - 2 + 2
    assert not any("upgrade Flame Lancer -> Ashen Martyr" in k for k in n)   # equal cost
    do(g, "upgrade Flame Lancer -> Storm Duelist")
    assert unit(g, 0, 0) == "T-005"
    assert g.card(g.trash[0][-1]).id == "T-002"


def test_6_4_1_1_3_one_placement_per_zone_per_turn(db):
    g = make(db, P(level=9, hand=["T-001", "T-002", "T-005"]))
    do(g, "play Ember Squire (hand 0) -> lane 0")
    n = names(g)
    assert not any("lane 0" in k and ("play" in k or "upgrade" in k) for k in n)
    assert any("lane 1" in k for k in n)


def test_items_need_a_unit_and_equip_condition(db):
    g = make(db, P(level=9, units=["T-012", "T-002"], hand=["T-018", "T-017"]))
    n = names(g)
    assert "equip Wind Shield (hand 0) -> Flame Lancer (lane 1)" in n
    assert not any("Wind Shield (hand 0) -> Veteran" in k for k in n)     # power 6 > 4
    assert not any("lane 2" in k and "equip" in k for k in n)            # no unit there


def test_8_6_2_item_trashed_when_condition_fails(db):
    g = make(db, P(level=9, units=[{"card": "T-002", "items": ["T-018"]}], hand=["T-020"]))
    do(g, "use Tailwind")                       # +2 power: 5 > Wind Shield's power 4 limit
    assert g.items[0] == []
    assert any(e.kind == "equip_lost" for e in g.events)


def test_skill_resolves_and_stays_until_end_phase(db):
    g = make(db, P(level=5, hand=["T-020"], units=["T-002"]))
    hand = len(g.hand[0])
    do(g, "use Tailwind")
    assert len(g.hand[0]) == hand          # -1 played, +1 drawn
    assert len(g.skill[0]) == 1
    do(g, "end main")
    do(g, "end attack")
    assert g.skill[0] == [] and g.card(g.trash[0][-1]).id == "T-020"     # 6.6.1.3


def test_8_1_3_1_2_skill_with_nothing_to_do_cannot_be_played(db):
    g = make(db, P(level=5, hand=["T-019"]), P("T-L02", units=["T-022"]))
    assert not any("Fireball" in k for k in names(g))      # only power <= 3 targets
    g = make(db, P(level=5, hand=["T-019"]), P("T-L02", units=["T-021"]))
    do(g, "use Fireball")
    assert unit(g, 1, 0) is None


def test_6_6_1_4_hand_limit_discards_by_choice(db):
    g = make(db, P(hand=["T-001"] * 9))
    do(g, "end main")
    do(g, "end attack")
    assert g.decision.kind == "pick" and g.decision.context["purpose"] == "hand limit discard"
    g.apply_action(A.PICK)
    g.apply_action(A.PICK)
    assert len(g.hand[0]) == 7 and g.tp == 1


def test_1_2_2_4_drawing_from_empty_deck_loses(db):
    g = make(db, P(), P("T-L02", deck=[]))
    do(g, "end main")
    do(g, "end attack")
    assert g.returns() == (1, -1)


def test_6_4_1_2_2_activated_once_per_turn_with_cost(db):
    g = make(db, P(hand=["T-001", "T-002"]))
    do(g, "activate Blaze Captain (leader)")
    assert g.decision.kind == "pick"           # the cost: choose a card to discard
    g.apply_action(A.PICK)
    assert len(g.hand[0]) == 2 and len(g.trash[0]) == 1
    assert not any("activate" in k for k in names(g))


def test_activation_needs_payable_cost(db):
    g = make(db, P(hand=[]))
    assert not any("activate" in k for k in names(g))


def test_9_2_1_damage_zone_ten_loses(db):
    g = make(db, P(units=["T-002"]), P("T-L02", damage=["T-021"] * 9, deck=["T-022"] * 5))
    do(g, "end main")
    do(g, "attack with Flame Lancer")
    assert g.returns() == (1, -1)


def test_4_5_3_no_deck_when_damage_due_loses(db):
    g = make(db, P(units=["T-002"]), P("T-L02", deck=[]))
    do(g, "end main")
    do(g, "attack with Flame Lancer")
    assert g.returns() == (1, -1)


def test_first_turn_attack_option(db):
    g = make(db, P(units=["T-002"]), turn=1, config={"first_turn_attack": False})
    do(g, "end main")
    assert not any("attack with" in k for k in names(g))
    g = make(db, P(units=["T-002"]), turn=1)
    do(g, "end main")
    assert any("attack with" in k for k in names(g))


def test_10_1_14_chain_ends_with_the_turn_even_at_level_ten(db):
    """Chain counts this turn's attacks (10.1.14.2); when the turn passes (6.6.1.5) the
    effect ends although nothing else changed (both leaders at 10, so no level-up)."""
    from conftest import power
    g = make(db, P(level=10, units=["FI-02"]), P("T-L02", level=10))
    base = power(g, 0, 0)
    do(g, "end main")
    do(g, "attack with Ash Raider")
    while g.tp == 0 or g.decision.kind != "main":
        assert power(g, 0, 0) == base + 1 or g.tp == 1           # Chain: 1 is on
        legal = g.legal_actions()
        g.apply_action(A.PASS if A.PASS in legal else
                       A.END_ATTACK if A.END_ATTACK in legal else legal[0])
    assert g.tp == 1 and unit(g, 0, 0) == "FI-02"
    assert power(g, 0, 0) == base
