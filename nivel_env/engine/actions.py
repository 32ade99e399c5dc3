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
| 7         | RESERVED    | reserved: never legal                                         |
| 8-167     | PLAY        | 8 + 4*hand_slot + target; target 0-2 = lane, 3 = skill zone   |
| 168-199   | ACTIVATE    | 168 + 8*source + slot; source 0 = leader, 1-3 = unit in lane  |
|           |             | 0-2; slot = index in that source's activated effects (own     |
|           |             | card's first, then its items', in equip order)                |
| 200-202   | ATTACK      | declare an attack with the unit in lane 0-2 (7.2)             |
| 203-205   | DEFEND      | declare defense with your unit in lane 0-2 (7.3)              |
| 206-208   | GUARDIAN    | your unit in lane 0-2 pays its Guardian condition (10.2.6.3)  |
| 209-336   | PICK        | choose candidate 0-127 of the pending decision                |

``decode`` turns an id into a typed ``Move`` and ``encode`` turns it back; they are the
one place outside the rules' hot paths (``legal`` builds ids with ``play_id`` and
``activate_id``) that knows the arithmetic above.
"""
from __future__ import annotations

from dataclasses import dataclass

KEEP, MULLIGAN, END_MAIN, END_ATTACK, PASS, YES, SURRENDER, RESERVED = range(8)
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
    "RESERVED": (RESERVED, PLAY),
    "PLAY": (PLAY, ACTIVATE), "ACTIVATE": (ACTIVATE, ATTACK), "ATTACK": (ATTACK, DEFEND),
    "DEFEND": (DEFEND, GUARDIAN), "GUARDIAN": (GUARDIAN, PICK), "PICK": (PICK, N_ACTIONS),
}


LANES = 3                # ATTACK, DEFEND and GUARDIAN take a lane 0-2
_SINGLE = ("KEEP", "MULLIGAN", "END_MAIN", "END_ATTACK", "PASS", "YES", "SURRENDER", "RESERVED")
_LANE_KINDS = {"ATTACK": ATTACK, "DEFEND": DEFEND, "GUARDIAN": GUARDIAN}


def play_id(hand_slot: int, target: int) -> int:
    return PLAY + hand_slot * PLAY_TARGETS + target


def activate_id(source: int, slot: int) -> int:
    return ACTIVATE + source * ACTIVATE_SLOTS + slot


def range_of(a: int) -> str:
    for name, (lo, hi) in RANGES.items():
        if lo <= a < hi:
            return name
    return "OUT_OF_RANGE"


@dataclass(frozen=True, slots=True)
class Move:
    """One action id, typed.  ``kind`` is a ``RANGES`` name; the other fields are those the
    table gives that kind, None elsewhere:

    - PLAY: ``hand_slot`` 0-39 and ``target`` 0-3 (lanes 0-2, ``SKILL_TARGET`` = skill zone)
    - ACTIVATE: ``source`` 0-3 (0 = leader, 1-3 = own unit in lane 0-2) and ``slot`` 0-7
    - ATTACK, DEFEND, GUARDIAN: ``lane`` 0-2
    - PICK: ``pick`` 0-127, the candidate's index in the pending decision
    """
    kind: str
    hand_slot: int | None = None
    target: int | None = None
    source: int | None = None
    slot: int | None = None
    lane: int | None = None
    pick: int | None = None

    @property
    def target_lane(self) -> int | None:
        """PLAY: the lane the card goes to, None for the skill zone (and other kinds)."""
        return self.target if self.target is not None and self.target != SKILL_TARGET else None

    @property
    def source_lane(self) -> int | None:
        """ACTIVATE: the lane of the unit whose effect it is, None for the leader's."""
        return self.source - 1 if self.source else None


def decode(action: int) -> Move:
    """The typed move of action id ``action`` (0 .. N_ACTIONS-1; id 7 decodes to the
    ``RESERVED`` move, which is never legal); ValueError naming the id otherwise.  A table
    lookup: the moves are built once, at import."""
    if type(action) is not int:
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise ValueError(f"decode: action id must be an integer, got "
                             f"{type(action).__name__} {action!r}"[:200])
        action = action.__index__()
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"decode: action id {action} is not in the action space "
                         f"(0-{N_ACTIONS - 1})")
    return _MOVES[action]


def _decode(action: int) -> Move:
    if action < PLAY:
        return _SINGLE_MOVES[action]
    if action < ACTIVATE:
        h, t = divmod(action - PLAY, PLAY_TARGETS)
        return Move("PLAY", hand_slot=h, target=t)
    if action < ATTACK:
        source, slot = divmod(action - ACTIVATE, ACTIVATE_SLOTS)
        return Move("ACTIVATE", source=source, slot=slot)
    if action < PICK:
        kind = "ATTACK" if action < DEFEND else "DEFEND" if action < GUARDIAN else "GUARDIAN"
        return Move(kind, lane=action - _LANE_KINDS[kind])
    return Move("PICK", pick=action - PICK)


def encode(move: Move) -> int:
    """The action id of ``move``; ValueError naming the field when it is out of range."""
    kind = move.kind
    if kind in _SINGLE:
        return RANGES[kind][0]
    if kind == "PLAY":
        _check(move, "hand_slot", HAND_SLOTS)
        _check(move, "target", PLAY_TARGETS)
        return play_id(move.hand_slot, move.target)
    if kind == "ACTIVATE":
        _check(move, "source", ACTIVATE_SOURCES)
        _check(move, "slot", ACTIVATE_SLOTS)
        return activate_id(move.source, move.slot)
    if kind in _LANE_KINDS:
        _check(move, "lane", LANES)
        return _LANE_KINDS[kind] + move.lane
    if kind == "PICK":
        _check(move, "pick", PICK_SLOTS)
        return PICK + move.pick
    raise ValueError(f"encode: unknown move kind {kind!r}; kinds: {', '.join(RANGES)}")


def _check(move: Move, field: str, bound: int) -> None:
    v = getattr(move, field)
    if type(v) is not int or not 0 <= v < bound:
        raise ValueError(f"encode: {move.kind} needs {field} in 0-{bound - 1}, got {v!r}")


_SINGLE_MOVES = {RANGES[k][0]: Move(k) for k in _SINGLE}
_MOVES = tuple(_decode(a) for a in range(N_ACTIONS))


def hand_slot_of(action: int) -> int | None:
    """The hand slot a PLAY id plays from, None for any other id (a cheap ``decode``)."""
    return (action - PLAY) // PLAY_TARGETS if PLAY <= action < ACTIVATE else None


def lane_of_action(action: int) -> int | None:
    """The lane an ATTACK, DEFEND or GUARDIAN id names, or a PLAY id puts its card in;
    None for any other id (and for a PLAY into the skill zone)."""
    if PLAY <= action < ACTIVATE:
        t = (action - PLAY) % PLAY_TARGETS
        return None if t == SKILL_TARGET else t
    if ATTACK <= action < PICK:
        return (action - ATTACK) % LANES
    return None
