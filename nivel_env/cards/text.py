"""Render card text from card data, in English and Korean.

Text is generated, never stored, so what a card says is always what it does.
Keyword names follow section 10 (bold in the printed game; ``[Keyword]`` here).
"""
from __future__ import annotations

from dataclasses import replace

from . import model as m, vocab as voc
from .phrases import noun_phrase, render_filter, render_selector, render_value, subject
from .vocab import gates_text as _gates, render_keyword

__all__ = ["render_card_text", "render_ability", "render_actions", "render_action",
           "render_keyword", "render_condition", "render_filter", "render_selector",
           "render_value", "noun_phrase", "subject", "keyword_set"]

_UNTIL = {"en": {m.UNTIL_TURN: " until end of turn", m.UNTIL_BATTLE: " until end of battle",
                 m.UNTIL_LEAVES: " while it stays on the field"},
          "ko": {m.UNTIL_TURN: " (이 턴이 끝날 때까지)", m.UNTIL_BATTLE: " (전투 종료까지)",
                 m.UNTIL_LEAVES: ""}}


def _kw(name: str, lang: str) -> str:
    return voc.name_in(name, lang)


def render_condition(c: m.Condition) -> str:
    t = voc.CONDITION_BY_KEY[c.kind]
    if t.kind == voc.GATE:
        return t.render(c, "en")
    return t.render(c)


def render_action(a: m.Action, continuous: bool = False) -> str:
    if a.text:
        return a.text
    until = "" if continuous else _UNTIL["en"][a.until]
    s = voc.VERB_BY_KEY[a.verb].render(a, until)
    mods = voc.MODIFIER_BY_KEY
    if a.optional:
        s = _may(a, s, until)
    if a.condition is not None:
        s = f"if {render_condition(a.condition)}, {s}"
    if a.if_done:
        s = mods["if_done"].render(s)
    if a.additionally:
        s = mods["additionally"].render(s)
    return s


def _may(a: m.Action, s: str, until: str) -> str:
    """"You may X"; for an action done by another player, that player may: "each player
    may discard 1 card" (1.3.5.1: each decides their own part), not "you may each player
    discards"."""
    if a.player != "you":
        base = voc.VERB_BY_KEY[a.verb].render(replace(a, player="you"), until)
        if base != s:                                      # the verb names who does it
            who = {"each": "each player", "opponent": "your opponent"}[a.player]
            return f"{who} may {base}"
    return voc.MODIFIER_BY_KEY["may"].render(s)


def render_actions(actions: tuple, continuous: bool = False) -> str:
    return ". ".join(x[0].upper() + x[1:] for x in (render_action(a, continuous)
                                                    for a in actions)) + "."


def render_ability(ab: m.Ability, lang: str = "en") -> str:
    t = voc.TIMING_BY_KEY.get(ab.when)
    label = t.render(ab, lang) if t is not None and t.render else voc.timing_label(ab.when, lang)
    head = _gates(ab.gates, lang) + f"[{label}]"                # [Whenever you draw a card]
    return f"{head} {_ability_body(ab)}"


def _ability_body(ab: m.Ability) -> str:
    """An ability's text after its timing: cost, "you may", condition, actions, limit."""
    body = render_actions(ab.actions, ab.when == m.PASSIVE)
    if ab.cost:
        body = f"{render_actions(ab.cost)[:-1]}: {body}"
    if ab.optional:
        body = "You may: " + body
    if ab.condition is not None:
        body = f"If {render_condition(ab.condition)}: {body}"
    if ab.limit > 1:
        body += f" ({ab.limit} times per turn)"
    return body


def render_card_text(card: m.Card, lang: str = "en") -> str:
    lines = []
    if card.type == m.LEADER:
        lines.extend(f"Oath: {r.text or _oath(r)}" for r in card.oath)
    if card.type == m.ITEM and card.equip is not None:
        f = render_filter(card.equip)
        lines.append(f"Equip: {f or 'any unit'}")
    lines.extend(render_keyword(k, lang) for k in card.subkeywords)
    lines.extend(render_ability(a, lang) for a in card.abilities)
    if card.effect is not None:                    # a skill: its condition too (`if`)
        lines.append(_ability_body(card.effect))
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
    for a in abilities:
        t = voc.TIMING_BY_KEY.get(a.when)
        if t is not None and t.keyword:
            names.add(t.keyword)
        names.update(voc.GATE_BY_KEY[g.kind].en for g in a.gates)
        for act in a.actions:
            if act.keyword is not None:
                subs.append(act.keyword)
    for k in subs:
        t = voc.SUBKEYWORD_BY_KEY[k.term]
        names.add(t.en)
        names.update(voc.GATE_BY_KEY[g.kind].en for g in k.gates)
        if t.activates:
            names.add(t.activates)
        if k.guardian:
            names.add(voc.PAYMENT_BY_KEY[k.guardian].en)
    if card.trigger:
        names.add("Trigger")
    if card.back is not None:
        names.add("Awakening")
    return frozenset(names)
