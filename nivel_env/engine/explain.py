"""A unit's keywords as they act now, for the screens: one list the terminal and the
browser both show, so they cannot disagree.

``derived(g).keywords[slot]`` holds every sub-keyword instance a unit has -- printed,
from its items (8.6.1), granted by resolved effects and by passive abilities (a
leader's included) -- in that order, gates already checked (``stats.refresh``).  Several
instances of one term do not always add up: only the highest Pierce applies, while every
Credit acts.  ``unit_keywords`` keeps the instances that act, one per effect.

A new sub-keyword needs its entry in ``STACKING`` (a test fails without one), beside its
``Term`` in ``cards/vocab.py`` and its hook in ``keywords.py`` (vocab.py's docstring has
the steps).
"""
from __future__ import annotations

from ..cards.vocab import SUBKEYWORDS
from .stats import ensure

HIGHEST, DISTINCT, EACH = "highest", "distinct", "each"

#: how several instances of a sub-keyword on one unit combine (vocabulary key -> policy):
#:   HIGHEST  -- only the highest value applies;
#:   DISTINCT -- each different one applies, a copy of one adds nothing;
#:   EACH     -- every instance acts, copies included.
#: A test checks every sub-keyword of the vocabulary has an entry.
STACKING = {
    "pierce": HIGHEST,                # 10.2.3.2.3
    "plunder": HIGHEST,               # 10.2.3.3.3
    "infiltrate": HIGHEST,            # 10.2.3.6.3
    "breakthrough": DISTINCT,         # 10.2.3.4.4 all apply; 10.2.3.4.3 none beats a condition
    "duelist": DISTINCT,              # 10.2.3.5: the engine asks whether the unit has it
    "finale": DISTINCT,               # 10.2.4.2: likewise (keywords.py)
    "mutual_destruction": DISTINCT,   # 10.2.5.2: a second copy finds the other unit gone
    "return": DISTINCT,               # 10.2.5.3: a second copy finds the card in hand
    "berserker": DISTINCT,            # 10.2.6.2: whether the unit has it
    "guardian": DISTINCT,             # 10.2.6.3.4: each payment is a way to use it (R4)
    "credit": EACH,                   # 10.2.6.4: no "only one applies"; each draws, discards
}

_RULE_ORDER = {t.key: i for i, t in enumerate(SUBKEYWORDS)}


def _effect(k) -> tuple:
    """What a sub-keyword instance does, without where it came from or its gates."""
    return k.term, k.n, k.filter, k.guardian


def unit_keywords(g, slot: int) -> tuple:
    """The sub-keywords that act for the unit in ``slot`` (player * 3 + lane) now, as
    ``cards.model.Keyword`` records (``primer.keyword_label`` names one: ``Pierce 2``);
    () for an empty slot.  Public: a unit's keywords come from cards in open zones and
    effects that resolved in the open.

    How several instances of one term combine (``STACKING``):

    * Pierce, Plunder, Infiltrate: only the highest value applies (10.2.3.2.3, 10.2.3.3.3,
      10.2.3.6.3), so one instance, the highest;
    * Breakthrough: every one applies (10.2.3.4.4), each different condition is listed
      once; one without a condition stops every unit (10.2.3.4.3), so it is listed alone;
    * Guardian: each different payment is a way to use it (10.2.6.3.4), listed once each,
      in the order the engine tries them (the first its player can pay, docs/rulings.md R4);
    * Credit: every instance draws on placement and discards on leaving (10.2.6.4 has no
      "only one applies"; the engine queues one effect per instance), so each is listed,
      two alike included;
    * Duelist, Finale, Mutual Destruction, Return, Berserker: have it or not (10.2.3.5,
      10.2.4.2, 10.2.5.2, 10.2.5.3, 10.2.6.2), listed once.

    Order: terms in rule order (10.2.3 .. 10.2.6, the vocabulary's), and within a term the
    order the unit has them (printed, items, effects, passives) -- stable for a position.
    """
    ensure(g)
    if g.unit[slot] < 0:
        return ()
    mine = g.kws[slot]
    if not mine:
        return ()
    by_term: dict = {}
    for k in mine:
        policy = STACKING.get(k.term)
        if policy is None:
            raise ValueError(f"unit_keywords: sub-keyword {k.term!r} has no entry in "
                             f"engine.explain.STACKING (say how its instances combine)")
        kept = by_term.setdefault(k.term, [])
        if policy == EACH:
            kept.append(k)
        elif policy == HIGHEST:
            if not kept:
                kept.append(k)
            elif k.n > kept[0].n:
                kept[0] = k
        elif all(_effect(k) != _effect(o) for o in kept):
            kept.append(k)
    plain = [k for k in by_term.get("breakthrough", ()) if k.filter.is_empty()]
    if plain:
        by_term["breakthrough"] = plain[:1]
    out = []
    for term in sorted(by_term, key=_RULE_ORDER.__getitem__):
        out.extend(by_term[term])
    return tuple(out)


__all__ = ["STACKING", "unit_keywords"]
