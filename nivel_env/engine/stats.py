"""Derived values: what continuous effects make of the printed numbers.

Continuous effects (8.1.3.3: Passive, Armed, Frontline, Level Link, Mix, Chain,
Buff, items' granted effects, and modifiers left by one-shot effects) are not
stored as changes to cards; they are re-applied to printed values whenever the
state changed (``Game.dirty``).  Layering: printed value, then modifiers from
resolved effects, then passive abilities; conditions inside passive abilities
see the first two layers.  Negative results become 0 (1.3.7.1).

A unit's cost is derived the same way (``Game.uc``, per unit slot): effects may change it
while the unit is on the field, and the rules that read the cost of a card on the field
read this one (``unit_cost``).  Modifiers end when the unit leaves (``zones.put``), so in
any other zone a card's cost is its printed cost (Mutual Destruction, 10.2.5.2.4).
"""
from __future__ import annotations

from ..cards import model as m
from . import const as K
from .hooks import PASSIVE
from .match import condition, gates_ok, unit_slot


def refresh(g) -> None:
    g.dirty = False
    pw, ht, na, cant, uc = [0] * 6, [0] * 6, [0] * 6, [0] * 6, [0] * 6
    kws: list = [()] * 6
    size = [g.level[0] + len(g.damage[0]), g.level[1] + len(g.damage[1])]     # 4.7.2
    statics = []
    cards = g.db.cards
    defs = g.defs
    for s in range(6):
        iid = g.unit[s]
        if iid < 0:
            continue
        c = cards[defs[iid]]
        pw[s], ht[s], na[s], uc[s] = c.power, c.hit, 1, c.cost
        p = s // 3
        ks = [k for k in c.subkeywords if not k.gates or gates_ok(g, p, iid, k.gates)]
        for a in c.passives:
            statics.append((p, iid, a))
        for it in g.items[s]:                                               # 8.6.1
            ic = cards[defs[it]]
            ks.extend(k for k in ic.subkeywords if not k.gates or gates_ok(g, p, iid, k.gates))
            for a in ic.passives:
                statics.append((p, iid, a))
        kws[s] = tuple(ks)
    for p in (0, 1):                                                        # 10.1.3.2
        for a in g.leader_face(p).abilities:
            if a.when == m.PASSIVE:
                statics.append((p, p * K.PER, a))
    if g.mods:
        _apply_mods(g, pw, ht, na, kws, cant, size, uc)
    # published now so that conditions inside passives see printed values + modifiers
    g.pw, g.ht, g.na, g.kws, g.cant, g.uc = pw, ht, na, kws, cant, uc
    for p, self_iid, a in statics:
        if a.gates and not gates_ok(g, p, self_iid, a.gates):
            continue
        if a.condition is not None and not condition(g, p, self_iid, a.condition):
            continue
        for act in a.actions:
            if act.condition is not None and not condition(g, p, self_iid, act.condition):
                continue
            PASSIVE[act.verb](g, p, self_iid, act, pw, ht, na, kws, cant, size)
    for s in range(6):
        if pw[s] < 0:
            pw[s] = 0
        if ht[s] < 0:
            ht[s] = 0
        if na[s] < 0:
            na[s] = 0
        if uc[s] < 0:                                                       # 1.3.7.1
            uc[s] = 0
    g.size = [max(0, size[0]), max(0, size[1])]


def _apply_mods(g, pw, ht, na, kws, cant, size, uc) -> None:
    keywords = g.db.keywords
    for kind, target, amount, _until, _by in g.mods:
        if kind == K.M_SIZE:
            size[target] += amount
            continue
        s = unit_slot(g, target)
        if s < 0:
            continue
        if kind == K.M_POWER:
            pw[s] += amount
        elif kind == K.M_HIT:
            ht[s] += amount
        elif kind == K.M_ATTACKS:
            na[s] += amount
        elif kind == K.M_GRANT:
            k = keywords[amount]
            if not k.gates or gates_ok(g, s // 3, target, k.gates):
                kws[s] = kws[s] + (k,)
        elif kind == K.M_PROHIBIT:
            cant[s] |= amount
        elif kind == K.M_SCALE_POWER:                                 # 1.3.7.2
            pw[s] = scaled(pw[s], amount)
        elif kind == K.M_SCALE_HIT:
            ht[s] = scaled(ht[s], amount)
        elif kind == K.M_COST:
            uc[s] += amount


def scaled(v: int, percent: int) -> int:
    """``v`` times ``percent``/100, rounded half up (1.3.7.2); a negative value is 0
    first (1.3.7.1)."""
    if v <= 0:
        return 0
    return (2 * v * percent + 100) // 200


def ensure(g) -> None:
    if g.dirty:
        refresh(g)


def unit_cost(g, iid: int) -> int:
    """A card's cost as the rules read it now: for a unit on the field, its printed cost
    as effects change it there, never below 0 (1.3.7.1) -- the cost the field's sum
    (6.4.1.1.2), an upgrade (3.5.5, 6.4.1.1.2.1), filters and Mutual Destruction
    (10.2.5.2.3) read; anywhere else, its printed cost (10.2.5.2.4: in the trash)."""
    w = g.where[iid]
    if w >> 2 != K.Z_UNIT:
        return g.card(iid).cost
    ensure(g)
    return g.uc[(iid // K.PER) * 3 + (w & 3)]


def keyword_value(g, slot: int, term: str) -> int:
    """Highest value of a sub-keyword (its vocabulary key) on a unit (10.2.3.2.3,
    10.2.3.3.3, 10.2.3.6.3)."""
    best = 0
    for k in g.kws[slot]:
        if k.term == term and k.n > best:
            best = k.n
    return best


def has_keyword(g, slot: int, term: str) -> bool:
    for k in g.kws[slot]:
        if k.term == term:
            return True
    return False


def keywords_named(g, slot: int, term: str) -> list:
    return [k for k in g.kws[slot] if k.term == term]
