"""Noun phrases of card text: filters, selectors and values in words.

The vocabulary's renderers (``vocab``) and the card text (``text``) build sentences from
these, so "an opponent's unit with power 3 or less" is written one way everywhere.
"""
from __future__ import annotations

from . import model as m


def _filter_parts(f: m.Filter) -> tuple[list, list]:
    """Words before the noun (attribute, affiliation, type) and qualifiers after it."""
    pre, post = [], []
    if f.attributes:
        pre.append("/".join(f.attributes))
    if f.affiliations:
        pre.append("/".join(f.affiliations))
    if f.types:
        pre.append("/".join(f.types))
    for lo, hi, name in ((f.cost_min, f.cost_max, "cost"), (f.power_min, f.power_max, "power"),
                         (f.hit_min, f.hit_max, "hit")):
        if lo is not None and hi is not None:
            post.append(f"{name} {lo}-{hi}")
        elif lo is not None:
            post.append(f"{name} {lo} or more")
        elif hi is not None:
            post.append(f"{name} {hi} or less")
    if f.keyword:
        post.append(f.keyword)
    if f.has_item is not None:
        post.append("an item" if f.has_item else "no item")
    if f.has_trigger is not None:
        post.append("a trigger" if f.has_trigger else "no trigger")
    if f.ids:
        pre.append("/".join(f.ids))
    return pre, post


def noun_phrase(f: m.Filter, noun: str, plural: bool) -> str:
    """'fire units with power 3 or less', 'skill cards in trash': a card type in the
    filter replaces a bare noun ('card', 'unit'), and stands before 'card in ...'."""
    pre, post = _filter_parts(f)
    if pre and pre[-1] in m.CARD_TYPES and " " not in noun:
        noun = pre.pop()
    if plural:
        noun = noun.replace("card in", "cards in") if " in " in noun else noun + "s"
    return " ".join(pre + [noun]) + (" with " + " and ".join(post) if post else "")


def render_filter(f: m.Filter) -> str:
    pre, post = _filter_parts(f)
    return " ".join(pre + (["with " + " and ".join(post)] if post else []))


_ZONE_NOUN = {"unit": "unit", "item": "item", "hand": "card in hand", "trash": "card in trash",
              "deck": "card in deck", "damage": "card in damage zone", "skill": "skill"}
_REF = {"self": "this unit", "encounter": "its encounter unit", "attacker": "the attacking unit",
        "defender": "the defending unit", "battle_opponent": "the unit it is battling",
        "equipped": "the equipped unit"}


def render_selector(s: m.Selector, obj: bool = False) -> str:
    """A selector as a noun phrase; ``obj`` for the object of a verb ('trash an
    opponent's unit' rather than 'choose an opponent's unit')."""
    if s.ref:
        return _REF[s.ref]
    plural = s.mode == "all" or s.n > 1 or s.mode == "up_to" or \
        (s.mode == "choose" and s.who != "any")
    words = ("other " if s.other else "") + noun_phrase(s.filter, _ZONE_NOUN[s.zone], plural)
    lanes = {"any": "", "same": " in this lane", "adjacent": " in an adjacent lane",
             "other": " in another lane"}[s.lanes]
    body = f"{words}{lanes}"
    own = {"you": "your", "opponent": "your opponent's", "any": "a"}[s.who]
    if s.mode == "all":
        return {"you": "all your", "opponent": "all your opponent's", "any": "all"}[s.who] + \
            " " + body
    if s.mode == "random":
        return f"{s.n} random {'of ' + own + ' ' if s.who != 'any' else ''}{body}"
    if s.mode == "up_to":
        phrase = f"up to {s.n} of {own} {body}"
    elif s.n > 1:
        phrase = f"{s.n} of {own} {body}"
    else:
        phrase = f"one of {own} {body}" if s.who != "any" else f"a {body}"
    return phrase if obj else "choose " + phrase


def subject(s: m.Selector, singular: str, plural: str) -> str:
    """'this unit gets', 'all your units get', 'choose your unit: it gets'."""
    sel = render_selector(s)
    if s.ref or s.mode == "random" and s.n == 1:
        return f"{sel} {singular}"
    if s.mode == "all":
        return f"{sel} {plural}"
    many = s.mode == "up_to" or s.n > 1
    return f"{sel}: {'they ' + plural if many else 'it ' + singular}"


def render_value(v: m.Value) -> str:
    if v.count is not None:
        base = f"the number of {render_selector(v.count)}"
    elif v.stat:
        base = f"{'your' if v.who == 'you' else 'the opponent’s'} {v.stat}"
    else:
        return str(v.n)
    return base if v.times == 1 else f"{v.times} × {base}"
