"""The moment damage occurs, before it is processed (4.5.2).

A player who takes damage -- from an unblocked attacker (7.4.2), an effect's ``damage``,
Pierce -- does not reveal a card at once: effects whose condition is that damage
occurs (the ``before_damage`` timing, "[When you would take damage]") resolve first, and
only then does the damage processing of 4.5.4 begin.  ``damage_occurs`` is where every
damage of the game starts: it puts the damage processing on the work stack and, above it,
one batch of those effects, so they resolve before it in the usual order (8.1.3.2.3: the
turn player's first; 1.3.5: a player orders their own).

The effects cannot change the damage: the rules give an effect that resolves there no
means to (4.5 has no prevention or reduction), so the amount is fixed when it occurs --
what they can do is everything else (heal a damage card first, draw, power up a unit).
The points that damage processing then processes one by one (4.5.4.5) are the same damage,
not new damage: the window opens once per damage, before its first card.
"""
from __future__ import annotations

import weakref

from ..cards import model as m
from . import const as K
from .events import DamageWindow
from .match import gates_ok
from .zones import unit_abilities

#: pool -> whether some ability of it has the timing (most pools: none, nothing to look at)
_HAS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _has_window(db) -> bool:
    h = _HAS.get(db)
    if h is None:
        h = _HAS[db] = any(a.when == m.BEFORE_DAMAGE for a in db.abilities)
    return h


def window_effects(g, q: int) -> list:
    """The waiting-effect entries of player ``q``'s ``before_damage`` abilities (units with
    their items' granted ones, 8.6.1, and the leader's face in play), gates checked now."""
    out = []
    for lane in range(3):
        iid = g.unit[q * 3 + lane]
        if iid >= 0:
            for a, _src in unit_abilities(g, iid):
                if a.when == m.BEFORE_DAMAGE and (not a.gates or gates_ok(g, q, iid, a.gates)):
                    out.append((K.AUTO, q, K.K_ABILITY, iid, g.stamp[iid], a.key, 0))
    leader = q * K.PER
    for a in g.leader_face(q).abilities:
        if a.when == m.BEFORE_DAMAGE and (not a.gates or gates_ok(g, q, leader, a.gates)):
            out.append((K.AUTO, q, K.K_ABILITY, leader, g.stamp[leader], a.key, 0))
    return out


def damage_occurs(g, hits) -> None:
    """Damage occurs: ``hits`` is ``(player, amount)`` pairs taken at once, processed in the
    order given (the turn player's first, 1.3.5.1).  Each amount of 1 or more gets its
    damage processing (``T_DAMAGE``); the ``before_damage`` effects of the players taking
    it resolve first (4.5.2), as one batch above them."""
    hits = [(q, n) for q, n in hits if n > 0]
    for q, n in reversed(hits):
        g.stack.append((K.T_DAMAGE, q, n))
    if not _has_window(g.db):
        return
    entries = []
    for q, n in hits:
        mine = window_effects(g, q)
        if mine:
            g.log.append(DamageWindow(q, n))
            entries.extend(mine)
    if entries:
        g.stack.append((K.T_BATCH, tuple(entries)))
