"""Continuous effects whose condition is an action (8.4.1.1): "[Whenever you draw a card]".

A ``whenever`` ability watches one action (``Ability.watch``): a card drawn, discarded (from
the hand to the trash), put into the trash or into the damage zone -- its controller's, or
the opponent's (``Ability.whose``).  It is a continuous effect, valid while its card is on
the field (a leader's: in the level zone), so its gates are read when the action happens.
Each card counts once: drawing three cards meets "whenever you draw a card" three times,
and the effect is carried out three times (8.4.4: the three draws are one action, but
three cards were drawn).

When it is carried out:

* met during an effect's processing, once that processing is over (8.4.1.1):
  ``effects.run_frame`` calls ``release`` as the effect ends, which puts the effects met
  so far on the work stack as a batch, before anything else waiting;
* met during damage processing, once the damage processing is over (8.4.3), like any
  effect other than a trigger: an effect ending inside it (a trigger) leaves them waiting;
* met anywhere else (the draw phase, a battle), as soon as the game reaches a point where
  waiting effects resolve (``flow.run``), as automatic effects do.

They wait in ``Game.pend`` as continuous entries of kind ``K_ABILITY`` (no other entry is
both), so they resolve before the automatic effects of the same moment, the turn player's
first (8.1.3.2.3).  The procedures that move cards call ``met`` through the table in
``hooks.ACTION_DONE`` (``zones.draw``, ``zones.move``, the damage processing).
"""
from __future__ import annotations

import weakref

from ..cards import model as m
from . import const as K
from .hooks import ACTION_DONE
from .match import gates_ok
from .zones import unit_abilities

#: pool -> the actions some ability of it watches (most pools watch none: nothing to do)
_WATCHED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_last: list = [None, frozenset()]              # the pool asked last and its answer


def watched(db) -> frozenset:
    if _last[0] is db:
        return _last[1]
    w = _WATCHED.get(db)
    if w is None:
        w = _WATCHED[db] = frozenset(a.watch for a in db.abilities if a.when == m.WHENEVER)
    _last[0], _last[1] = db, w
    return w


def _watchers(g, p: int):
    """(card the effect works for, ability) of player ``p``'s ``whenever`` abilities now."""
    for lane in range(3):
        iid = g.unit[p * 3 + lane]
        if iid >= 0:
            for a, _src in unit_abilities(g, iid):
                if a.when == m.WHENEVER:
                    yield iid, a
    for a in g.leader_face(p).abilities:
        if a.when == m.WHENEVER:
            yield p * K.PER, a


def met(g, event: str, q: int, times: int = 1) -> None:
    """Player ``q``'s action ``event`` happened ``times`` times (one per card): each valid
    ``whenever`` ability watching it waits to be carried out once per time."""
    if event not in watched(g.db):
        return
    pend = g.pend
    for p in (g.tp, 1 - g.tp):
        whose = "you" if p == q else "opponent"
        for iid, a in _watchers(g, p):
            if a.watch == event and a.whose == whose and \
                    (not a.gates or gates_ok(g, p, iid, a.gates)):
                pend.extend([(K.CONT, p, K.K_ABILITY, iid, g.stamp[iid], a.key, 0)] * times)


ACTION_DONE[m.WHENEVER] = met


def is_whenever(e: tuple) -> bool:
    """Whether a ``Game.pend`` entry is a ``whenever`` effect waiting to be carried out."""
    return e[0] == K.CONT and e[2] == K.K_ABILITY


def effect_in_progress(g) -> bool:
    """Whether some effect is being processed: its frame (what is left of it) is on the work
    stack, below whatever it started (a battle, damage processing, another effect)."""
    return any(t[0] == K.T_FRAME for t in g.stack)


def release(g) -> None:
    """Effect processing is over -- the effect that just ended was the last one in progress
    (8.4.1.1: "all of it"; an effect resolving inside another, such as the damage window of
    damage it deals, is part of it) and no damage processing is (a trigger's end is not
    its end, 8.4.3; ``effects.effect_over`` calls this only then): the ``whenever`` effects
    met meanwhile are carried out now, before anything else waiting."""
    pend = g.pend
    if not pend or not any(is_whenever(e) for e in pend):
        return
    g.pend = [e for e in pend if not is_whenever(e)]
    g.stack.append((K.T_BATCH, tuple(e for e in pend if is_whenever(e))))


def kept_waiting(g, pend: list) -> list:
    """Of waiting entries about to resolve at a point of the game's procedure, those that must
    wait longer: ``whenever`` effects while an effect is still in progress (a battle it
    declared, 7.2.1.1, is such a point), which wait for its end (8.4.1.1)."""
    if not any(is_whenever(e) for e in pend) or not effect_in_progress(g):
        return []
    return [e for e in pend if is_whenever(e)]
