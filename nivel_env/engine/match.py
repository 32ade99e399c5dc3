"""Evaluate the card vocabulary against a game: filters, selectors, conditions, values.

Every question an effect asks about the board ("an opponent's unit with power
3 or less in an adjacent lane") is answered here, so verbs stay small and the
same selector means the same thing in every verb.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..cards import model as m
from ..cards.filters import card_matches_static, printed_part, state_part
from . import const as K


@lru_cache(maxsize=None)
def _costless(f: m.Filter) -> m.Filter:
    """``f`` without its cost bounds (a unit's cost on the field is tested apart)."""
    return replace(f, cost_min=None, cost_max=None)


def matches(g, iid: int, f: m.Filter) -> bool:
    """Filter test on a card in the game: units in play use their current stats, their
    cost included as effects change it (``stats.unit_cost``; 6.4.1.1.2, 3.5.5 read the same
    cost); cards elsewhere their printed values."""
    if f is m.EMPTY_FILTER:
        return True
    card = g.card(iid)
    w = g.where[iid]
    if w >> 2 != K.Z_UNIT:
        return card_matches_static(card, f)
    slot = (iid // K.PER) * 3 + (w & 3)
    if f.cost_min is not None or f.cost_max is not None:
        cost = g.uc[slot]
        if f.cost_min is not None and cost < f.cost_min or \
                f.cost_max is not None and cost > f.cost_max:
            return False
        f = _costless(f)
    if not printed_part(card, f):
        return False
    names = card.keywords
    if f.keyword is not None and f.keyword not in names:
        names = names | {k.name for k in g.kws[slot]}
    return state_part(f, True, g.pw[slot], g.ht[slot], names, bool(g.items[slot]))


def unit_slot(g, iid: int) -> int:
    """Slot (player*3 + lane) of a unit in play, else -1."""
    w = g.where[iid]
    return (iid // K.PER) * 3 + (w & 3) if w >> 2 == K.Z_UNIT else -1


def ref_card(g, p: int, self_iid: int, ref: str) -> int:
    """The single card a reference names, or -1 when there is none now."""
    if ref == "self":
        return self_iid
    if ref == "equipped":
        w = g.where[self_iid]
        if w >> 2 == K.Z_ITEM:
            return g.unit[(self_iid // K.PER) * 3 + (w & 3)]
        return self_iid if w >> 2 == K.Z_UNIT else -1
    b = g.battle
    if ref == "encounter":
        s = unit_slot(g, self_iid)
        return g.unit[(3 - s // 3 * 3) + s % 3] if s >= 0 else -1        # 3.5.4.2
    if b is None:
        return -1
    if ref == "attacker":
        return b[K.B_ATK]
    if ref == "defender":
        return b[K.B_DEF]
    if ref == "battle_opponent":
        if self_iid == b[K.B_ATK]:
            return b[K.B_DEF]
        if self_iid == b[K.B_DEF]:
            return b[K.B_ATK]
        return -1
    raise ValueError(f"unknown reference {ref!r}")


def select(g, p: int, self_iid: int, sel: m.Selector) -> list[int]:
    """All cards a selector can name now (before choosing among them)."""
    if sel.ref is not None:
        iid = ref_card(g, p, self_iid, sel.ref)
        if iid < 0:
            return []
        z = g.where[iid] >> 2
        # a reference to a unit means the unit while it is in play
        if sel.ref != "self" and z != K.Z_UNIT:
            return []
        return [iid]
    players = (p,) if sel.who == "you" else (1 - p,) if sel.who == "opponent" else (p, 1 - p)
    zone, f = sel.zone, sel.filter
    out: list[int] = []
    if zone in ("unit", "item"):
        my_slot = unit_slot(g, self_iid)
        if my_slot < 0 and g.where[self_iid] >> 2 == K.Z_ITEM:
            my_slot = (self_iid // K.PER) * 3 + (g.where[self_iid] & 3)
        my_lane = my_slot % 3 if my_slot >= 0 else -1
        for q in players:
            for lane in range(3):
                if sel.lanes != "any" and my_lane >= 0:
                    if sel.lanes == "same" and lane != my_lane:
                        continue
                    if sel.lanes == "adjacent" and abs(lane - my_lane) != 1:
                        continue
                    if sel.lanes == "other" and lane == my_lane:
                        continue
                elif sel.lanes != "any":
                    continue
                s = q * 3 + lane
                if zone == "unit":
                    iid = g.unit[s]
                    if iid >= 0 and not (sel.other and iid == self_iid) and matches(g, iid, f):
                        out.append(iid)
                else:
                    out.extend(i for i in g.items[s] if not (sel.other and i == self_iid)
                               and matches(g, i, f))
        return out
    lists = {"hand": g.hand, "trash": g.trash, "deck": g.deck, "damage": g.damage,
             "skill": g.skill}[zone]
    for q in players:
        out.extend(i for i in lists[q] if not (sel.other and i == self_iid) and matches(g, i, f))
    return out


def value(g, p: int, self_iid: int, v: m.Value) -> int:
    if v.count is not None:
        return len(select(g, p, self_iid, v.count)) * v.times
    if v.stat is not None:
        q = p if v.who == "you" else 1 - p
        base = {"level": g.level[q], "damage": len(g.damage[q]), "hand": len(g.hand[q])}[v.stat]
        return base * v.times
    return v.n


def field_attributes(g, p: int) -> set:
    """Attributes of the cards on a player's field: unit zones and skill zone (docs/rulings.md B1)."""
    attrs = set()
    for lane in range(3):
        s = p * 3 + lane
        if g.unit[s] >= 0:
            attrs.add(g.card(g.unit[s]).attribute)
        attrs.update(g.card(i).attribute for i in g.items[s])
    attrs.update(g.card(i).attribute for i in g.skill[p])
    attrs.discard("")
    return attrs


def _armed(g, p, self_iid, c):                          # 10.1.8.2 / 10.1.8.3
    s = unit_slot(g, self_iid)
    if s < 0:
        return False
    if not c.text:
        return bool(g.items[s])
    return any(c.text in g.card(i).affiliations for i in g.items[s])


def _frontline(g, p, self_iid, c):                      # 10.1.9.2
    return g.unit[p * 3] >= 0 and g.unit[p * 3 + 1] >= 0 and g.unit[p * 3 + 2] >= 0


def _level_at_least(g, p, self_iid, c):                 # 10.1.10.2 (Level Link)
    return g.level[p] >= c.n


def _mix(g, p, self_iid, c):                            # 10.1.12.2
    return len(field_attributes(g, p)) >= 2


def _chain(g, p, self_iid, c):                          # 10.1.14.2
    return g.tp == p and len(g.attacked) >= c.n


def _buff(g, p, self_iid, c):                           # 10.1.15.2
    return len(g.skill[p]) >= c.n


#: condition (and gate) key -> test(g, p, self_iid, condition); the keys are the
#: vocabulary's (``cards/vocab.py``), and a test checks every one has a test here
CONDITIONS = {
    "armed": _armed,
    "frontline": _frontline,
    "level_link": _level_at_least,
    "mix": _mix,
    "chain": _chain,
    "buff": _buff,
    "level_at_least": _level_at_least,
    "opponent_level_at_least": lambda g, p, s, c: g.level[1 - p] >= c.n,
    "damage_at_least": lambda g, p, s, c: len(g.damage[p]) >= c.n,
    "opponent_damage_at_least": lambda g, p, s, c: len(g.damage[1 - p]) >= c.n,
    "hand_at_least": lambda g, p, s, c: len(g.hand[p]) >= c.n,
    "hand_at_most": lambda g, p, s, c: len(g.hand[p]) <= c.n,
    "count_at_least": lambda g, p, s, c: len(select(g, p, s, c.selector)) >= c.n,
    "count_at_most": lambda g, p, s, c: len(select(g, p, s, c.selector)) <= c.n,
}


def condition(g, p: int, self_iid: int, c: m.Condition) -> bool:
    return CONDITIONS[c.kind](g, p, self_iid, c)


def gates_ok(g, p: int, self_iid: int, gates: tuple) -> bool:
    for c in gates:
        if not CONDITIONS[c.kind](g, p, self_iid, c):
            return False
    return True
