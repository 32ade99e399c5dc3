"""Render card text from card data, in English and Korean.

Text is generated, never stored, so what a card says is always what it does.
Keyword names follow section 10 (bold in the printed game; ``[Keyword]`` here).
"""
from __future__ import annotations

from . import model as m

_TIMING = {
    "en": {m.ENTRY: "Entry", m.PASSIVE: "Passive", m.ACTIVE_MAIN: "Active: Main",
           m.ACTIVE_ATTACK: "Active: Attack", m.ATTACKER: "Attacker", m.DEFENDER: "Defender",
           m.EXIT: "Exit", m.ESCAPE: "Escape", m.END_OF_TURN: "End of turn"},
    "ko": {m.ENTRY: "엔트리", m.PASSIVE: "패시브", m.ACTIVE_MAIN: "액티브: 메인",
           m.ACTIVE_ATTACK: "액티브: 어택", m.ATTACKER: "어태커", m.DEFENDER: "디펜더",
           m.EXIT: "엑시트", m.ESCAPE: "이스케이프", m.END_OF_TURN: "턴 종료"},
}
_UNTIL = {"en": {m.UNTIL_TURN: " until end of turn", m.UNTIL_BATTLE: " until end of battle",
                 m.UNTIL_LEAVES: " while it stays on the field"},
          "ko": {m.UNTIL_TURN: " (이 턴이 끝날 때까지)", m.UNTIL_BATTLE: " (전투 종료까지)",
                 m.UNTIL_LEAVES: ""}}


def _kw(name: str, lang: str) -> str:
    return m.KEYWORD_NAMES_KO.get(name, name) if lang == "ko" else name


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


def _noun_phrase(f: m.Filter, noun: str, plural: bool) -> str:
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
    words = ("other " if s.other else "") + _noun_phrase(s.filter, _ZONE_NOUN[s.zone], plural)
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


def _subject(s: m.Selector, singular: str, plural: str) -> str:
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


def render_keyword(k: m.Keyword, lang: str = "en") -> str:
    name = _kw(k.name, lang)
    if k.name in ("Pierce", "Plunder", "Infiltrate"):
        s = f"{name}[{k.n}]"
    elif k.name == "Credit":
        s = f"{name}: {k.n}"
    elif k.name == "Breakthrough":
        f = render_filter(k.filter)
        s = f"{name}[{f}]" if f else name
    elif k.name == "Guardian":
        sub = {"barrier": "Barrier", "sacrifice": "Sacrifice", "offset": "Offset"}[k.guardian]
        arg = render_filter(k.filter) if k.guardian == "offset" else str(k.n)
        s = f"[{name}] {_kw(sub, lang)}[{arg}]"
        return _gates(k.gates, lang) + s
    else:
        s = name
    trig = next((t for sk, (disp, t) in m.SUBKEYWORDS.items() if disp == k.name), None)
    if trig:
        s = f"[{_kw(trig, lang)}] {s}"
    return _gates(k.gates, lang) + s


def _gates(gates: tuple, lang: str) -> str:
    out = []
    for g in gates:
        if g.kind == "armed":
            out.append(f"[{_kw('Armed', lang)}{': ' + g.text if g.text else ''}]")
        elif g.kind in ("level_link", "chain", "buff"):
            name = {"level_link": "Level Link", "chain": "Chain", "buff": "Buff"}[g.kind]
            out.append(f"[{_kw(name, lang)}: {g.n}]")
        else:
            out.append(f"[{_kw(g.kind.capitalize(), lang)}]")
    return " ".join(out) + (" " if out else "")


def render_condition(c: m.Condition) -> str:
    if c.kind in m.GATES:
        return _gates((c,), "en").strip()
    if c.kind in ("count_at_least", "count_at_most"):
        what = render_selector(c.selector, obj=True).removeprefix("all ")
        return f"there are {c.kind[6:].replace('_', ' ')} {c.n} of {what}"
    what = c.kind.replace("_at_least", "").replace("_at_most", "").replace("_", " ")
    return f"your {what} is {'at least' if 'least' in c.kind else 'at most'} {c.n}"


def render_action(a: m.Action, continuous: bool = False) -> str:
    if a.text:
        return a.text
    until = "" if continuous else _UNTIL["en"][a.until]
    amt = render_value(a.amount)
    who = {"you": "", "opponent": "your opponent ", "each": "each player "}[a.player]
    v = a.verb
    if v == "draw":
        s = f"{who}draw{'s' if who else ''} {amt} card{'s' if amt != '1' else ''}"
    elif v == "discard":
        s = f"{who}discard{'s' if who else ''} {'up to ' if a.up_to else ''}{amt} card{'s' if amt != '1' else ''}" + \
            (" at random" if a.random else "")
    elif v == "mill":
        s = f"{who}put{'s' if who else ''} the top {amt} card(s) of the deck into the trash"
    elif v == "damage":
        s = f"deal {amt} damage to {'your opponent' if a.player == 'opponent' else 'you' if a.player == 'you' else 'each player'}"
    elif v == "heal":
        s = f"put {'up to ' if a.up_to else ''}{amt} card(s) from your damage zone into the trash"
    elif v == "level":
        s = f"raise {'your' if a.player == 'you' else 'the opponent’s'} leader level by {amt}"
    elif v == "size":
        s = f"{'your' if a.player == 'you' else 'the opponent’s'} size gets {a.size:+d}{until}"
    elif v == "trash":
        s = f"trash {render_selector(a.target, obj=True)}"
    elif v == "return_to_hand":
        s = f"return {render_selector(a.target, obj=True)} to its owner's hand"
    elif v == "to_deck_bottom":
        s = f"put {render_selector(a.target, obj=True)} on the bottom of its owner's deck"
    elif v == "salvage":
        s = f"put {render_selector(a.target, obj=True)} into your hand"
    elif v == "search":
        what = _noun_phrase(a.filter, "card", amt != "1")
        s = f"search your deck for up to {amt} {what}, reveal {'it' if amt == '1' else 'them'}, " \
            f"put {'it' if amt == '1' else 'them'} into your hand and shuffle your deck"
    elif v == "modify":
        parts = [f"{val:+d} {stat}" for stat, val in (("power", a.power), ("hit", a.hit)) if val]
        if a.attacks:
            parts.append(f"{a.attacks:+d} attack{'s' if abs(a.attacks) != 1 else ''}")
        s = f"{_subject(a.target, 'gets', 'get')} {', '.join(parts)}{until}"
    elif v == "grant":
        s = f"{_subject(a.target, 'gains', 'gain')} {render_keyword(a.keyword)}{until}"
    elif v == "prohibit":
        s = f"{_subject(a.target, 'cannot', 'cannot')} {a.prohibit}{until}"
    elif v == "move":
        s = f"move {render_selector(a.target, obj=True)} to an empty lane of yours"
    else:  # pragma: no cover - schema rejects unknown verbs
        s = v
    if a.optional:
        s = "you may " + s
    if a.condition is not None:
        s = f"if {render_condition(a.condition)}, {s}"
    if a.if_done:
        s = "if you do, " + s
    return s


def render_actions(actions: tuple, continuous: bool = False) -> str:
    return ". ".join(x[0].upper() + x[1:] for x in (render_action(a, continuous)
                                                    for a in actions)) + "."


def render_ability(ab: m.Ability, lang: str = "en") -> str:
    head = _gates(ab.gates, lang) + f"[{_TIMING[lang][ab.when]}]"
    body = render_actions(ab.actions, ab.when == m.PASSIVE)
    if ab.cost:
        body = f"{render_actions(ab.cost)[:-1]}: {body}"
    if ab.optional:
        body = "You may: " + body
    if ab.condition is not None:
        body = f"If {render_condition(ab.condition)}: {body}"
    if ab.limit > 1:
        body += f" ({ab.limit} times per turn)"
    return f"{head} {body}"


def render_card_text(card: m.Card, lang: str = "en") -> str:
    lines = []
    if card.type == m.LEADER:
        lines.extend(f"Oath: {r.text or _oath(r)}" for r in card.oath)
    if card.type == m.ITEM and card.equip is not None:
        f = render_filter(card.equip)
        lines.append(f"Equip: {f or 'any unit'}")
    lines.extend(render_keyword(k, lang) for k in card.subkeywords)
    lines.extend(render_ability(a, lang) for a in card.abilities)
    if card.effect is not None:
        lines.append(render_actions(card.effect.actions))
    if card.trigger:
        lines.append(f"[{_kw('Trigger', lang)}] {render_actions(card.trigger)}")
    if card.back is not None:
        lines.append(f"[{_kw('Awakening', lang)}: level {card.awakening}] → {card.back.name}")
        lines.extend("  " + render_keyword(k, lang) for k in card.back.subkeywords)
        lines.extend("  " + render_ability(a, lang) for a in card.back.abilities)
    return "\n".join(lines)


def _oath(r: m.OathRule) -> str:
    f = render_filter(r.filter) or "any"
    if r.kind == "all":
        return f"every card is {f}"
    return f"{'at least' if r.kind == 'at_least' else 'at most'} {r.n} {f} cards"


def keyword_set(card: m.Card) -> frozenset:
    """Section-10 keyword names (English) appearing on a card."""
    names = set()
    abilities = list(card.abilities) + (list(card.back.abilities) if card.back else [])
    subs = list(card.subkeywords) + (list(card.back.subkeywords) if card.back else [])
    timing_kw = {m.ENTRY: "Entry", m.PASSIVE: "Passive", m.ACTIVE_MAIN: "Active",
                 m.ACTIVE_ATTACK: "Active", m.ATTACKER: "Attacker", m.DEFENDER: "Defender",
                 m.EXIT: "Exit", m.ESCAPE: "Escape"}
    gate_kw = {"armed": "Armed", "frontline": "Frontline", "level_link": "Level Link",
               "mix": "Mix", "chain": "Chain", "buff": "Buff"}
    for a in abilities:
        if a.when in timing_kw:
            names.add(timing_kw[a.when])
        names.update(gate_kw[g.kind] for g in a.gates)
        for act in a.actions:
            if act.keyword is not None:
                subs.append(act.keyword)
    for k in subs:
        names.add(k.name)
        names.update(gate_kw[g.kind] for g in k.gates)
        trig = next((t for disp, t in m.SUBKEYWORDS.values() if disp == k.name), None)
        if trig:
            names.add(trig)
        if k.guardian:
            names.add(k.guardian.capitalize())
    if card.trigger:
        names.add("Trigger")
    if card.back is not None:
        names.add("Awakening")
    return frozenset(names)
