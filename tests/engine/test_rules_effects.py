"""Effects (8) and the keywords of 10.1 and 10.2.5-10.2.6."""
from nivel_env.engine import actions as A
from nivel_env.engine.view import derived
from conftest import P, do, make, names, power, unit

OPP = "T-L02"


def end_turn(g):
    if g.decision.kind == "main":
        do(g, "end main")
    do(g, "end attack")
    return g


def test_10_1_2_entry_may_effect(db):
    g = make(db, P(OPP, level=5, hand=["T-025"], damage=["T-001", "T-002"]), P())
    do(g, "play Reef Healer (hand 0) -> lane 0")
    assert g.decision.kind == "may"
    g.apply_action(A.YES)
    assert g.decision.kind == "pick"
    g.apply_action(A.PICK)
    assert len(g.damage[0]) == 1
    g = make(db, P(OPP, level=5, hand=["T-025"], damage=["T-001"]), P())
    do(g, "play Reef Healer (hand 0) -> lane 0")
    g.apply_action(A.PASS)
    assert len(g.damage[0]) == 1 and g.decision.kind == "main"


def test_entry_targets_choice(db):
    g = make(db, P(level=9, hand=["T-012"]), P(OPP, units=["T-026", "T-035", "T-022"]))
    do(g, "play Veteran Commander (hand 0) -> lane 0")
    assert g.decision.kind == "pick"
    assert len(g.decision.context["candidates"]) == 2                  # power <= 2 only
    do(g, "pick Tide Sprite")
    assert unit(g, 1, 1) is None and unit(g, 1, 0) == "T-026"


def test_10_1_7_exit_and_return(db):
    g = make(db, P(units=["T-007"]), P(OPP, units=["T-022"], hand=[]),
             config={"choose_effect_order": False})
    do(g, "end main")
    do(g, "attack with Cinder Phoenix")
    do(g, "defend with Stone Sentinel")
    assert unit(g, 0, 0) is None and len(g.damage[1]) == 1             # Exit: 1 damage
    assert g.card(g.trash[0][-1]).id == "T-007"
    end_turn(g)
    assert any(g.card(i).id == "T-007" for i in g.hand[0])              # Return (10.2.5.3.3)


def test_1_3_5_player_orders_simultaneous_effects(db):
    g = make(db, P(units=["T-007"]), P(OPP, units=["T-022"], hand=[]))
    do(g, "end main")
    do(g, "attack with Cinder Phoenix")
    do(g, "defend with Stone Sentinel")
    assert g.decision.kind == "pick" and g.decision.context["purpose"] == "effect order"
    assert g.current_player == 0 and len(g.decision.context["candidates"]) == 2


def test_10_1_7_2_2_no_exit_on_upgrade(db):
    g = make(db, P(level=9, units=["T-007"], hand=["T-011"]), P(OPP))
    do(g, "upgrade Cinder Phoenix -> Vanguard Captain")
    assert len(g.damage[1]) == 0
    end_turn(g)
    assert not any(g.card(i).id == "T-007" for i in g.hand[0])          # no Return either


def test_10_2_6_4_credit_draw_and_discard(db):
    g = make(db, P(level=5, hand=["T-009", "T-001", "T-003"]), P(OPP, hand=["T-019"], level=5))
    hand = len(g.hand[0])
    do(g, "play Wind Courier (hand 0) -> lane 0")
    assert len(g.hand[0]) == hand                                      # -1 played +1 drawn
    g2 = make(db, P(units=["T-009"], hand=["T-001", "T-003"]), P(OPP, hand=["T-034"], level=5),
              turn_player=1)
    do(g2, "use Quake")                                                # trashes power <= 2
    assert unit(g2, 0, 0) is None
    assert g2.decision.kind == "pick" and g2.decision.context["purpose"] == "credit discard"
    assert g2.current_player == 0
    g2.apply_action(A.PICK)
    assert len(g2.hand[0]) == 1


def test_10_2_6_1_awakening_flips_leader(db):
    g = make(db, P(level=5, units=["T-002"]), P(OPP), turn_player=1)
    assert power(g, 0, 0) == 3
    end_turn(g)                                                        # p0 levels up to 6
    assert g.level[0] == 6 and g.awake[0]
    assert power(g, 0, 0) == 4                                         # back face: +1 power
    assert "Unbound" in g.render()


def test_10_1_8_armed_with_affiliation(db):
    g = make(db, P(units=[{"card": "T-010", "items": ["T-017"]},
                          {"card": "T-010", "items": ["T-018"]}, "T-010"]), P(OPP))
    assert power(g, 0, 0) == 6          # 3 +2 Armed: Blade +1 Flame Blade
    assert power(g, 0, 1) == 3          # a Shield is not a Blade
    assert power(g, 0, 2) == 3


def test_10_1_9_frontline(db):
    g = make(db, P(units=["T-011", "T-001"]), P(OPP))
    assert power(g, 0, 0) == 5
    g = make(db, P(units=["T-011", "T-001", "T-001"]), P(OPP))
    assert power(g, 0, 0) == 6 and power(g, 0, 1) == 3


def test_10_1_10_level_link(db):
    assert power(make(db, P(OPP, level=4, units=["T-035"]), P()), 0, 0) == 1
    assert power(make(db, P(OPP, level=5, units=["T-035"]), P()), 0, 0) == 4


def test_10_1_12_mix(db):
    g = make(db, P(units=["T-015"]), P(OPP))
    assert power(g, 0, 0) == 2
    g = make(db, P(units=["T-015", "T-004"]), P(OPP))
    assert power(g, 0, 0) == 3 and derived(g).hit[0] == 2


def test_10_1_13_escape(db):
    g = make(db, P(units=["T-016"], deck=["T-002"] * 5), P(OPP), turn_player=1)
    hand = len(g.hand[0])
    end_turn(g)                                                        # p0's main phase starts
    assert unit(g, 0, 0) is None
    assert g.card(g.deck[0][0]).id == "T-016"                          # bottom of the deck
    assert len(g.hand[0]) == hand + 2                                  # draw phase + Escape


def test_10_1_14_chain(db):
    g = make(db, P(units=["T-013", "T-001"]), P(OPP))
    do(g, "end main")
    assert power(g, 0, 0) == 3
    do(g, "attack with Ember Squire")
    assert power(g, 0, 0) == 3
    do(g, "attack with Chain Striker")                                 # 2nd declaration
    assert power(g, 0, 0) == 5
    assert len(g.damage[1]) == 2


def test_10_1_15_buff(db):
    g = make(db, P(level=5, units=["T-014", "T-002"], hand=["T-020"]), P(OPP))
    assert power(g, 0, 0) == 2
    do(g, "use Tailwind")
    do(g, "pick Flame Lancer")
    assert power(g, 0, 0) == 4                                         # a skill in the zone
    end_turn(g)
    assert power(g, 0, 0) == 2


def test_10_1_4_active_attack_only_in_attack_phase(db):
    g = make(db, P(OPP, units=["T-029"]), P())
    assert not any("activate" in k for k in names(g))
    do(g, "end main")
    do(g, "activate Deep Sage")
    assert power(g, 0, 0) == 4
    assert not any("activate Deep Sage" in k for k in names(g))


def test_active_main_move(db):
    g = make(db, P(OPP, units=["T-030"]), P())
    do(g, "activate Current Mover")
    assert g.decision.kind == "pick"
    do(g, "pick lane 2")
    assert unit(g, 0, 2) == "T-030" and unit(g, 0, 0) is None


def test_1_3_7_3_power_zero_trashed_and_expiry(db):
    g = make(db, P(level=5, hand=["T-036", "T-036"]), P(OPP, units=["T-026", "T-021"]))
    do(g, "use Withering Curse (hand 0)")
    do(g, "pick Wave Caller")
    assert unit(g, 1, 0) is None                                       # 2 - 2 = 0
    do(g, "use Withering Curse")                                       # one target: forced
    assert power(g, 1, 1) == 1
    end_turn(g)
    assert power(g, 1, 1) == 3                                         # 6.6.1.2 expiry


def test_search_and_return_to_hand(db):
    g = make(db, P(OPP, level=9, hand=["T-033", "T-028"], deck=["T-022", "T-025", "T-035"]),
             P(units=["T-002", "T-006"]))
    do(g, "use Rising Tide")
    assert g.decision.kind == "pick" and g.decision.context["can_pass"]
    do(g, "pick Reef Healer")
    assert any(g.card(i).id == "T-025" for i in g.hand[0])
    do(g, "play Tidal Drake (hand 0) -> lane 0")
    assert unit(g, 1, 0) is None and unit(g, 1, 1) == "T-006"            # one target: forced
    assert any(g.card(i).id == "T-002" for i in g.hand[1])             # cost <= 2 only


def test_8_1_3_2_1_effect_of_a_moved_card_does_not_resolve(db):
    # a Pierce waiting for a unit that has since gone back to hand does nothing
    from nivel_env.engine import const as K
    from nivel_env.engine.effects import resolve_entry
    from nivel_env.engine.zones import move
    g = make(db, P(units=["T-002"]), P(OPP, units=["T-022"], hand=[]))
    iid = g.unit[0]
    g.pend.append((K.AUTO, 0, K.K_PIERCE, iid, g.stamp[iid], 1, 0))
    move(g, iid, K.Z_HAND)
    resolve_entry(g, g.pend.pop())
    assert g.stack[-1] != (K.T_DAMAGE, 1, 1)
    assert g.events[-1].kind == "fizzle"


def test_active_main_with_cost_trashes_small_unit(db):
    g = make(db, P(OPP, units=["T-027"], hand=["T-021"]), P(units=["T-001", "T-006"]))
    do(g, "activate Earth Shaker")
    assert len(g.hand[0]) == 0 and unit(g, 1, 0) is None and unit(g, 1, 1) == "T-006"
    assert not any("activate" in k for k in names(g))                  # once per turn
    g = make(db, P(OPP, units=["T-027"], hand=["T-021"]), P(units=["T-006"]))
    assert not any("activate" in k for k in names(g))                  # 8.1.3.1.2: no target


def test_1_3_4_prohibitions_from_skill_and_trigger(db):
    g = make(db, P(OPP, level=5, hand=["T-032"], units=["T-021"]), P(units=["T-002"]))
    do(g, "use Mud Trap")
    do(g, "end main")
    do(g, "attack with Tide Guard")
    assert g.decision.kind == "attack" and len(g.damage[1]) == 1       # Flame Lancer can't defend
    # the trigger: the attacking player's other unit may not attack this turn
    g = make(db, P(units=["T-002", "T-003"]), P(OPP, deck=["T-032"] + ["T-022"] * 5))
    do(g, "end main")
    do(g, "attack with Flame Lancer")
    assert g.decision.kind == "pick"
    do(g, "pick Raider of Ash")
    assert not any("attack with" in k for k in names(g))
