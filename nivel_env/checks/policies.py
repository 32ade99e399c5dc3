"""Players for the soak: uniform random and biased ones that reach the corners a
uniform player rarely does (full fields, long attack chains, undefended damage).

A policy is ``f(game, legal, r) -> action`` with ``r`` a number from the soak's own
seeded stream (never the game's generator, which would change the game).
"""
from __future__ import annotations

from ..engine import actions as A


def _in(kind: str, legal: list[int]) -> list[int]:
    """The ids of ``legal`` whose move is of ``kind`` (an ``actions.RANGES`` name)."""
    return [a for a in legal if A.decode(a).kind == kind]


def uniform(g, legal, r):
    return legal[r % len(legal)]


def always_play(g, legal, r):
    """Play or activate whenever possible; say yes to every "may"."""
    pick = _in("PLAY", legal) or _in("ACTIVATE", legal) or _in("YES", legal)
    return (pick or legal)[r % len(pick or legal)]


def always_attack(g, legal, r):
    """Attack with everything: in the main phase, fill empty lanes with units first
    (there is nothing to attack with otherwise), then go to the attack phase and declare
    every attack it can."""
    pick = _in("ATTACK", legal)
    if not pick and _in("END_MAIN", legal):
        p = g.current_player
        empty = [lane for lane in range(3) if g.unit[p * 3 + lane] < 0]
        pick = [a for a in _in("PLAY", legal)
                if A.decode(a).target in empty] or _in("END_MAIN", legal)
    return (pick or legal)[r % len(pick or legal)]


def never_defend(g, legal, r):
    """Take every hit: no defense, no Guardian."""
    if A.PASS in legal and (_in("DEFEND", legal) or _in("GUARDIAN", legal)):
        return A.PASS
    return legal[r % len(legal)]


POLICIES = {"random": uniform, "play": always_play, "attack": always_attack,
            "no-defense": never_defend}

__all__ = ["POLICIES"]
