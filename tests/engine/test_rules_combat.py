"""Combat (7), damage processing (4.5) and the Attacker/Defender sub-keywords (10.2.3-10.2.4)."""
from nivel_env.engine import actions as A
from conftest import P, do, make, names, power, unit

OPP = "T-L02"


def attack(g, text):
    if g.decision.kind == "main":
        do(g, "end main")
    return do(g, f"attack with {text}")


def test_7_4_2_unblocked_attack_deals_hit(db):
    g = attack(make(db, P(units=["T-006"]), P(OPP)), "Berserk Brute")
    assert len(g.damage[1]) == 2


def test_7_2_1_each_unit_attacks_once(db):
    g = attack(make(db, P(units=["T-002"]), P(OPP)), "Flame Lancer")
    assert not any("attack with" in k for k in names(g))


def test_4_5_4_3_1_trigger_cancels_remaining_damage(db):
    g = make(db, P(units=["T-006"]), P(OPP, deck=["T-026"] + ["T-022"] * 5))
    hand = len(g.hand[1])
    attack(g, "Berserk Brute")
    assert len(g.damage[1]) == 1 and len(g.hand[1]) == hand + 1       # Wave Caller: draw 1


def test_4_5_4_4_trigger_resolves_before_the_tenth_card_check(db):
    # the 10th card is Reef Healer (trigger: heal 1) -> back to 9, no loss
    g = make(db, P(units=["T-002"]), P(OPP, damage=["T-022"] * 9, deck=["T-025"] + ["T-022"] * 3))
    attack(g, "Flame Lancer")
    assert g.decision.kind == "pick"              # which damage card to put into the trash
    g.apply_action(A.PICK)
    assert not g.is_terminal() and len(g.damage[1]) == 9


def test_7_3_1_only_the_encounter_unit_defends(db):
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=["T-035", "T-021"]))
    attack(g, "Flame Lancer")
    # Tide Guard (lane 1, the encounter unit) may defend; lane 0 cannot
    assert g.decision.kind == "defense"
    assert names(g).keys() == {"no defense", "defend with Tide Guard (lane 1)"}


def test_7_4_3_equal_power_trashes_defender(db):
    g = make(db, P(units=["T-003"]), P(OPP, units=["T-021"], hand=[]))
    attack(g, "Raider of Ash")
    do(g, "defend with Tide Guard")
    assert unit(g, 1, 0) is None and unit(g, 0, 0) == "T-003" and len(g.damage[1]) == 0


def test_7_4_3_lower_power_attacker_trashed(db):
    g = make(db, P(units=["T-001"]), P(OPP, units=["T-021"], hand=[]))
    attack(g, "Ember Squire")
    do(g, "defend with Tide Guard")
    assert unit(g, 0, 0) is None and unit(g, 1, 0) == "T-021"


def test_attacker_and_defender_effects_last_until_battle_end(db):
    # Wave Caller: Defender +2 (2 -> 4) beats Flame Lancer (3); Berserk Brute: Attacker +1
    g = make(db, P(units=["T-002", "T-006"]), P(OPP, units=["T-026", "T-029"], hand=[]))
    attack(g, "Flame Lancer")
    do(g, "defend with Wave Caller")
    assert unit(g, 0, 0) is None and power(g, 1, 0) == 2              # 7.5.1: back to 2
    attack(g, "Berserk Brute")
    assert power(g, 0, 1) == 6
    do(g, "defend with Deep Sage")
    assert unit(g, 1, 1) is None and power(g, 0, 1) == 5


def test_10_2_3_2_pierce_on_battle_win_only(db):
    g = make(db, P(units=["T-002"]), P(OPP, units=["T-035"], hand=[]))
    attack(g, "Flame Lancer")
    do(g, "defend with Tide Sprite")
    assert len(g.damage[1]) == 1                                       # Pierce[1]
    g = make(db, P(units=["T-002"]), P(OPP))
    attack(g, "Flame Lancer")
    assert len(g.damage[1]) == 1                                       # only the hit


def test_10_2_3_3_plunder_draws_on_battle_win(db):
    g = make(db, P(units=["T-003"]), P(OPP, units=["T-035"], hand=[]))
    hand = len(g.hand[0])
    attack(g, "Raider of Ash")
    do(g, "defend with Tide Sprite")
    assert len(g.hand[0]) == hand + 1 and len(g.damage[1]) == 0


def test_10_2_3_4_breakthrough_all_and_infiltrate(db):
    g = make(db, P(units=["T-004"]), P(OPP, units=["T-021", "T-022"], hand=["T-001"]))
    g.clone()
    hand = len(g.hand[0])
    do(g, "end main")
    do(g, "attack with Gale Runner")
    # no Guardian offer, no defense: Breakthrough covers every opposing unit
    assert g.decision.kind == "attack"
    assert len(g.damage[1]) == 1 and len(g.hand[0]) == hand + 1       # Infiltrate[1]


def test_10_2_3_4_breakthrough_with_condition(db):
    # Storm Duelist: Breakthrough[power 2 or less] -> Wave Caller (2) may not defend
    g = make(db, P(units=["T-005"]), P(OPP, units=["T-026"], hand=[]))
    attack(g, "Storm Duelist")
    assert g.decision.kind == "attack" and len(g.damage[1]) == 1


def test_10_2_3_5_duelist_forces_encounter_and_blocks_guardian(db):
    g = make(db, P(units=[None, "T-005"]), P(OPP, units=["T-021", "T-022"], hand=["T-001"]))
    attack(g, "Storm Duelist")
    assert g.decision.kind == "defense"
    assert list(names(g)) == ["defend with Stone Sentinel (lane 1)"]   # must defend, no Guardian


def test_10_2_3_5_duelist_without_encounter_allows_guardian(db):
    g = make(db, P(units=[None, "T-005"]), P(OPP, units=["T-021"], hand=["T-001"]))
    attack(g, "Storm Duelist")
    assert g.decision.kind == "guardian"


def test_10_2_4_2_finale_ends_battle_and_trashes_itself(db):
    g = make(db, P(units=["T-006"]), P(OPP, units=["T-024"], hand=[]))
    attack(g, "Berserk Brute")
    do(g, "defend with Last Stand Golem")
    assert unit(g, 1, 0) is None and len(g.damage[1]) == 0 and unit(g, 0, 0) == "T-006"
    assert "end attack phase" in names(g)          # Berserker has attacked (10.2.4.2.3)


def test_10_2_5_2_mutual_destruction_by_cost(db):
    g = make(db, P(units=["T-002"]), P(OPP, units=["T-008"], hand=[]))
    g.tp = 0
    do(g, "end main")
    do(g, "attack with Flame Lancer")
    do(g, "defend with Ashen Martyr")
    assert unit(g, 0, 0) is None and unit(g, 1, 0) is None            # cost 2 >= 2
    g = make(db, P(units=["T-006"]), P(OPP, units=["T-008"], hand=[]))
    attack(g, "Berserk Brute")
    do(g, "defend with Ashen Martyr")
    assert unit(g, 0, 0) == "T-006"                                   # cost 2 < 3


def test_10_2_6_2_berserker_must_attack(db):
    g = make(db, P(units=["T-006"]), P(OPP))
    do(g, "end main")
    assert "end attack phase" not in names(g)
    do(g, "attack with Berserk Brute")
    assert "end attack phase" in names(g)


def test_10_2_6_3_guardian_barrier(db):
    g = make(db, P(units=[None, "T-003"]), P(OPP, units=["T-021"], hand=["T-001", "T-003"]))
    attack(g, "Raider of Ash")
    assert g.decision.kind == "guardian"
    do(g, "guardian Tide Guard")
    assert g.decision.kind == "pick" and g.decision.context["purpose"] == "barrier discard"
    g.apply_action(A.PICK)
    assert len(g.hand[1]) == 1 and unit(g, 1, 0) is None and len(g.damage[1]) == 0


def test_10_2_6_3_guardian_needs_payable_condition_and_adjacency(db):
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=["T-021"], hand=[]))
    attack(g, "Flame Lancer")
    assert g.decision.kind == "attack" and len(g.damage[1]) == 1      # no hand card to pay
    g = make(db, P(units=[None, None, "T-002"]), P(OPP, units=["T-021"], hand=["T-001"]))
    attack(g, "Flame Lancer")
    assert g.decision.kind == "attack"                                 # lane 0 not adjacent to 2


def test_10_2_6_3_guardian_sacrifice_and_offset(db):
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=["T-022", None, "T-035"], hand=[]))
    attack(g, "Flame Lancer")
    do(g, "guardian Stone Sentinel")
    assert unit(g, 1, 2) is None and unit(g, 0, 1) is None             # sacrificed; 3 < 4
    g = make(db, P(units=[None, "T-002"]),
             P(OPP, units=[{"card": "T-023", "items": ["T-031"]}], hand=[]))
    attack(g, "Flame Lancer")
    do(g, "guardian Coral Knight")
    assert g.items[3] == [] and unit(g, 0, 1) is None


def test_guardian_declined_then_encounter_may_defend(db):
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=["T-021", "T-035"], hand=["T-001"]))
    attack(g, "Flame Lancer")
    do(g, "no guardian")
    assert g.decision.kind == "defense"
