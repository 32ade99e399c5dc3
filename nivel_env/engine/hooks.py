"""Trigger points: where the rules ask the terms of the card language what they do.

The engine's procedures (placing a unit, a battle's steps, trashing from the field, the
Guardian payment, resolving a waiting effect) call the handlers registered here for the
point they reach, keyed by the term's vocabulary key (``cards/vocab.py``).  The handlers
themselves live with their term (``keywords.py`` for sub-keywords); this module only
holds the tables, so the procedures and the terms import each other through it and not
in a cycle.

Per-keyword points (a handler per term; called for each keyword instance on the unit, in
the order the unit has them):

* ``UNIT_PLACED[term](g, p, iid, k)`` -- a unit was placed (3.5.3) having keyword k
  (printed, or granted by a passive ability);
* ``LEFT_FIELD[term](g, p, iid, k, by_battle, by_effect, other)`` -- a unit with keyword k
  was trashed from the field (``other``: the unit it battled, else -1).

Per-unit points (every registered handler is asked; each looks at the unit itself):

* ``ATTACK_DECLARED[term](g, s, battle)`` -- the unit in slot s declared an attack; may set
  the battle's fields (7.2.2);
* ``DEFENSE_DECLARED[term](g, q, iid, s)`` -- the unit declared defense (7.3.2);
* ``BATTLE_STEP[term](g, p, atk, s)`` -- the battle step starts with the attacker present;
* ``BATTLE_WON[term](g, p, atk, s)`` -> ``(pending kind, value)`` or None -- the attacker
  won; read before the loser is trashed, queued after it (7.4.3);
* ``CAN_DEFEND[term](g, iid)`` -> False to forbid the unit to defend this battle;
* ``MUST_ATTACK[term](g, s)`` -> True while the attack phase may not end (10.2.6.2.3).

Per-action point: ``ACTION_DONE[timing](g, event, player, times)`` -- cards were drawn,
discarded, put into the trash or the damage zone (``zones.draw``, ``zones.move``, damage
processing), for the abilities that watch such an action (``whenever``, 8.4.1.1).

``GUARDIAN[payment]`` holds each Guardian payment's ``(payable(g, s, k),
candidates(g, s, k) -> (cards, how many, pick purpose), pay(g, q, iid))`` (10.2.6.3.4), and
``PENDING[kind]`` each sub-keyword effect that waits in ``Game.pend`` (const ``K_*``, the
event names it ``KIND_NAMES[kind]``): a ``Pending(term, fizzles, shows_value,
resolve(g, p, iid, stamp, arg, arg2))``.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

UNIT_PLACED: dict = {}
LEFT_FIELD: dict = {}
ATTACK_DECLARED: dict = {}
DEFENSE_DECLARED: dict = {}
BATTLE_STEP: dict = {}
BATTLE_WON: dict = {}
CAN_DEFEND: dict = {}
MUST_ATTACK: dict = {}
GUARDIAN: dict = {}
PENDING: dict = {}
#: verb key -> its passive part (``verbs.Verb.passive``), for ``stats.refresh``
PASSIVE: dict = {}
#: timing key -> ``handler(g, event, player, times)``, told whenever a card is drawn
#: ("draw"), goes from a hand to the trash ("discard"), into the trash ("trash") or into the
#: damage zone ("damage"): ``whenever.met`` (8.4.1.1)
ACTION_DONE: dict = {}

#: point name -> its table (the completeness test and docs read this)
POINTS = {"unit placed": UNIT_PLACED, "left the field": LEFT_FIELD,
          "attack declared": ATTACK_DECLARED, "defense declared": DEFENSE_DECLARED,
          "battle step": BATTLE_STEP, "battle won": BATTLE_WON, "can defend?": CAN_DEFEND,
          "must attack?": MUST_ATTACK, "guardian payment": GUARDIAN,
          "action done": ACTION_DONE}


class Pending(NamedTuple):
    """A sub-keyword effect waiting to resolve (8.4): how it resolves and is logged."""
    term: str                  # the sub-keyword it comes from
    fizzles: bool              # does nothing if its unit left its zone (8.1.3.2.1)
    shows_value: bool          # the event carries its value
    resolve: Callable


def hook(table: dict, term: str):
    """Register the decorated function as ``term``'s handler at a point."""
    def register(fn):
        if term in table:
            raise ValueError(f"{term!r} already has a handler here: {table[term].__name__}")
        table[term] = fn
        return fn
    return register


def terms_with_hooks() -> set:
    """Every term some point has a handler for."""
    out = set()
    for table in POINTS.values():
        out.update(table)
    return out
