"""The leader level (4.6): raising it, and Awakening when it reaches the printed level.

Its own module because both the turn (6.2.1) and effects (the ``level`` verb) change it,
and neither should import the other for it.
"""
from __future__ import annotations

from . import const as K
from .events import Awaken, Level


def change_level(g, p: int, n: int) -> bool:
    """Raise a leader level by n (at most 10, 4.6.3); Awakening on reaching it (10.2.6.1.2)."""
    new = max(1, min(10, g.level[p] + n))
    if new == g.level[p]:                                          # 6.2.1.1, 1.3.2.1
        return False
    g.level[p] = new
    g.dirty = True
    g.log.append(Level(p, new))
    leader = g.card(p * K.PER)
    if leader.back is not None and not g.awake[p] and new >= leader.awakening:
        g.awake[p] = True
        g.log.append(Awaken(p, leader.id, leader.back.name))
    return True
