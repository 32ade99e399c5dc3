"""The fixed action space.

Every decision the rules give a player is one step; each step's options are
ids in the ranges below.  The space depends on neither the card pool nor the
state.  ``PICK`` ids index the candidate list of the pending decision (cards,
lanes, pending effects or options, listed in ``Game.decision``); for a hand
pick the candidate order is the hand order, so ``PICK + i`` is hand slot ``i``.

| ids       | name        | meaning                                                       |
|-----------|-------------|---------------------------------------------------------------|
| 0         | KEEP        | mulligan: keep the opening hand (5.1.6)                       |
| 1         | MULLIGAN    | mulligan: hand back, shuffle, draw 5 (5.1.6.1)                |
| 2         | END_MAIN    | end the main phase, go to the attack phase (6.4 -> 6.5)       |
| 3         | END_ATTACK  | end the attack phase (6.5 -> 6.6)                             |
| 4         | PASS        | no / decline / done: no Guardian, no defense, skip a "may",   |
|           |             | stop choosing where "up to" allows fewer                      |
| 5         | YES         | carry out a "may" effect (8.1.2.2)                            |
| 6         | SURRENDER   | only with RuleConfig.surrender_action (1.2.4)                 |
| 7         |             | reserved                                                      |
| 8-167     | PLAY        | 8 + 4*hand_slot + target; target 0-2 = lane, 3 = skill zone   |
| 168-199   | ACTIVATE    | 168 + 8*source + slot; source 0 = leader, 1-3 = unit in lane  |
|           |             | 0-2; slot = index in that source's activated effects (own     |
|           |             | card's first, then its items', in equip order)                |
| 200-202   | ATTACK      | declare an attack with the unit in lane 0-2 (7.2)             |
| 203-205   | DEFEND      | declare defense with your unit in lane 0-2 (7.3)              |
| 206-208   | GUARDIAN    | your unit in lane 0-2 pays its Guardian condition (10.2.6.3)  |
| 209-336   | PICK        | choose candidate 0-127 of the pending decision                |
"""
KEEP, MULLIGAN, END_MAIN, END_ATTACK, PASS, YES, SURRENDER = range(7)
HAND_SLOTS = 40          # a hand never holds more than the 40-card deck
PLAY_TARGETS = 4         # lanes 0-2 and the skill zone
PLAY = 8
ACTIVATE = PLAY + HAND_SLOTS * PLAY_TARGETS          # 168
ACTIVATE_SOURCES, ACTIVATE_SLOTS = 4, 8
ATTACK = ACTIVATE + ACTIVATE_SOURCES * ACTIVATE_SLOTS  # 200
DEFEND = ATTACK + 3                                    # 203
GUARDIAN = DEFEND + 3                                  # 206
PICK = GUARDIAN + 3                                    # 209
PICK_SLOTS = 128
N_ACTIONS = PICK + PICK_SLOTS                          # 337
SKILL_TARGET = 3

RANGES = {
    "KEEP": (KEEP, KEEP + 1), "MULLIGAN": (MULLIGAN, MULLIGAN + 1),
    "END_MAIN": (END_MAIN, END_MAIN + 1), "END_ATTACK": (END_ATTACK, END_ATTACK + 1),
    "PASS": (PASS, PASS + 1), "YES": (YES, YES + 1), "SURRENDER": (SURRENDER, SURRENDER + 1),
    "PLAY": (PLAY, ACTIVATE), "ACTIVATE": (ACTIVATE, ATTACK), "ATTACK": (ATTACK, DEFEND),
    "DEFEND": (DEFEND, GUARDIAN), "GUARDIAN": (GUARDIAN, PICK), "PICK": (PICK, N_ACTIONS),
}


def play_id(hand_slot: int, target: int) -> int:
    return PLAY + hand_slot * PLAY_TARGETS + target


def activate_id(source: int, slot: int) -> int:
    return ACTIVATE + source * ACTIVATE_SLOTS + slot


def range_of(a: int) -> str:
    for name, (lo, hi) in RANGES.items():
        if lo <= a < hi:
            return name
    return "OUT_OF_RANGE"
