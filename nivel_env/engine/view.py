"""The engine's read API: what consumers (the encoder, the screen, checks, the CLI, agents)
read from a game, by name.

The state itself stays flat tuples and lists (cheap to clone, plain JSON); these named
views are built from it on request, so nothing outside the engine indexes ``g.dec[3]``,
a battle list or a stack frame by position, and nothing outside it has to remember to
refresh derived stats first: ``derived`` does.
"""
from __future__ import annotations

from operator import attrgetter
from typing import NamedTuple

from . import const as K
from .effects import F_PICKED
from .state import DERIVED_SLOTS
from .stats import ensure


class DecisionInfo(NamedTuple):
    """The decision the game waits on.  Fields a kind does not use keep their defaults."""
    kind: int                  # const.D_* (DECISION_NAMES names it)
    player: int                # who decides
    purpose: int = -1          # pick: const.P_* (PICK_PURPOSES names it)
    candidates: tuple = ()     # pick: card ids, lanes as -1-lane, or effect indices
    can_pass: bool = False     # pick: PASS is legal (fewer may be chosen)
    ability: int = -1          # may / pick: the ability key of the effect asking
    source: int = -1           # may / pick: the card instance of that effect (-1: none)
    step: int = -1             # may / pick: the action of that ability it is at (-1: whole)
    lane: int = -1             # defense: the encounter unit's lane
    must: bool = False         # defense: it must defend (Duelist, 10.2.3.5.3)
    lanes: tuple = ()          # guardian: lanes whose unit may use Guardian
    count: int = -1            # may choosing a number one "one more?" at a time (1.3.6,
    most: int = -1             #   4.4.4): how many chosen so far, and the most allowed
    picked: tuple = ()         # pick: the cards already picked in this choice (they are
                               #   no longer among the candidates; the chooser saw them)


class BattleInfo(NamedTuple):
    """The battle in progress (7)."""
    attacker: int              # card instance
    lane: int
    defender: int              # card instance, -1 before (or without) a defense
    step: int                  # const.BS_*
    breakthrough: tuple        # the attacker's Breakthrough keyword keys (10.2.3.4)
    duel: bool                 # Duelist: its encounter unit must defend (10.2.3.5)


class Derived(NamedTuple):
    """Values continuous effects make of printed ones (``stats``), fresh; per unit slot
    (player * 3 + lane) and, for size, per player."""
    power: list
    hit: list
    attacks: list              # attack declarations allowed this turn
    keywords: list             # tuples of the sub-keywords each unit has now
    prohibited: list           # const.PROHIBIT_* bits
    size: list
    cost: list = ()            # each unit's cost as effects change it on the field (never
                               # below 0): what 6.4.1.1.2, 3.5.5 and 10.2.5.2.3 read


def decision_info(g) -> DecisionInfo | None:
    """The pending decision, or None when the game is over."""
    if g.result is not None:
        return None
    d = g.dec
    kind = d[0]
    if kind == K.D_PICK:
        step, picked = -1, ()
        if g.stack and g.stack[-1][0] == K.T_FRAME:
            f = g.stack[-1]
            picked = tuple(f[F_PICKED])
            if d[5] >= 0 and f[3] == d[5] and f[4] >= 0:
                step = f[4]
        return DecisionInfo(kind, d[1], purpose=d[2], candidates=d[3], can_pass=d[4],
                            ability=d[5], source=d[6], step=step, picked=picked)
    if kind == K.D_YESNO:
        if len(d) > 5:
            return DecisionInfo(kind, d[1], ability=d[2], source=d[3], step=d[4], count=d[5],
                                most=d[6])
        return DecisionInfo(kind, d[1], ability=d[2], source=d[3], step=d[4])
    if kind == K.D_DEFENSE:
        return DecisionInfo(kind, d[1], lane=d[2], must=d[3])
    if kind == K.D_GUARDIAN:
        return DecisionInfo(kind, d[1], lanes=d[2])
    return DecisionInfo(kind, d[1])


def battle_info(g) -> BattleInfo | None:
    b = g.battle
    if b is None:
        return None
    return BattleInfo(b[K.B_ATK], b[K.B_LANE], b[K.B_DEF], b[K.B_STEP], b[K.B_BREAK],
                      bool(b[K.B_DUEL]))


def derived(g) -> Derived:
    """Current power, hit, attacks, keywords, prohibitions, size and unit costs, refreshed
    if the state changed since they were last computed."""
    ensure(g)
    return Derived(*_derived_slots(g))


_derived_slots = attrgetter(*DERIVED_SLOTS)     # state.DERIVED_SLOTS, in Derived's order


def owner_of(iid: int) -> int:
    """The player who owns card instance ``iid`` (ids p*PER .. p*PER+40 are p's)."""
    return iid // K.PER


def is_leader(iid: int) -> bool:
    """Whether card instance ``iid`` is a leader (id p*PER is player p's)."""
    return iid % K.PER == 0


def leader_of(p: int) -> int:
    """Player ``p``'s leader's card instance."""
    return p * K.PER


def zone_of(g, iid: int) -> int:
    """The zone (const.Z_*) card instance ``iid`` is in now."""
    return g.where[iid] >> 2


def lane_of(g, iid: int) -> int:
    """The lane 0-2 of a card in the unit or item zone (3 in a zone without lanes)."""
    return g.where[iid] & 3


def effects_to_order(g) -> tuple:
    """While a player orders simultaneous automatic effects (1.3.5): the waiting entries
    (``Game.pend`` tuples) the pick's candidate indices point into; else ()."""
    d = g.dec
    if g.result is None and d[0] == K.D_PICK and d[2] == K.P_ORDER and g.stack and \
            g.stack[-1][0] == K.T_BATCH:
        return g.stack[-1][1]
    return ()


__all__ = ["DecisionInfo", "BattleInfo", "Derived", "decision_info", "battle_info", "derived",
           "effects_to_order", "owner_of", "is_leader", "leader_of", "zone_of", "lane_of"]
