"""A short rules primer for people at the table, in this project's own words.

The terminal game's ``help rules`` and the browser game's Rules panel show it.  The
keyword list is read from the vocabulary (``cards/vocab.py``), so every keyword a card
can carry is explained, with the rule number that defines it; the rest is a few
paragraphs on how a turn goes.  docs/rulings.md has the full readings.
"""
from __future__ import annotations

import re
import textwrap

from .cards import vocab as V
from .engine.config import RuleConfig

#: (heading, paragraph) -- the game in brief, rule numbers in brackets; ``{hand_limit}``
#: and ``{over_limit}`` are the game's RuleConfig.hand_limit and one more (``basics``).
#: A number a RuleConfig option sets is a placeholder here, filled from the game's config;
#: one no option sets yet (the opening hand's size) is said without it, so a variant that
#: adds the option never leaves a wrong number in these words
_BASICS: tuple[tuple[str, str], ...] = (
    ("Winning",
     "You win when your opponent has 10 cards in their damage zone, or must take a card "
     "from an empty deck (to draw, or to take damage), or surrenders (1.2, 9.2)."),
    ("Setting up",
     "Each player has a leader and a 40-card deck and draws an opening hand; once, they "
     "may shuffle the whole hand back and draw as many again. Who goes first is random "
     "(5.1)."),
    ("A turn",
     "Level-up: your leader goes up one level, to at most 10. Draw: one card (not on the "
     "first player's first turn). Main: play cards and use Active: Main abilities. Attack: "
     "each unit may attack once; Active: Attack abilities. End: end-of-turn effects, the "
     "skill zone empties into the trash, and a hand of {over_limit} or more is cut to "
     "{hand_limit} (6.1-6.6)."),
    ("Size and costs",
     "Size is your leader's level plus the cards in your damage zone (4.7). A card may be "
     "played only if its cost plus the costs of every card already on your field (units, "
     "their items, skills this turn) is at most your size: 'cost in use' on the screen. "
     "Upgrading a unit frees the old unit's cost. Taking damage makes you bigger "
     "(6.4.1.1.2)."),
    ("Cards",
     "Units go into one of your three lanes, or onto a unit of yours as an upgrade; each "
     "lane takes one card a turn. Items go onto one of your units and leave with it. "
     "Skills do their effect when played and sit in the skill zone until the end of the "
     "turn (6.4.1.1). P is a unit's power, H its hit: the damage it deals to the leader."),
    ("Lanes and battles",
     "Lanes face each other; the opponent's unit in the same lane is the attacker's "
     "encounter unit, and only it may block, unless a Guardian in the next lane pays to "
     "step in (7.3, 10.2.6.3). Unblocked, the attack deals its hit as damage. Blocked, "
     "the powers are compared: the attacker wins ties and trashes the blocker; otherwise "
     "the attacker is trashed. A blocked attack deals no damage unless a keyword says so "
     "(7.4)."),
    ("Damage and triggers",
     "Each point of damage moves the top card of the victim's deck face up into their "
     "damage zone. If that card has a Trigger effect (marked T), it takes effect at once "
     "and the rest of that damage is cancelled (4.5.4.3)."),
    ("Leaders",
     "Your leader stays in its level zone; its Passive and Active abilities work from "
     "there. Reaching its awakening level turns it to its stronger back face (10.2.6.1)."),
)



def basics(config: RuleConfig | None = None) -> tuple[tuple[str, str], ...]:
    """The game in brief, under ``config``'s rules (the default rules without one)."""
    limit = (config or RuleConfig()).hand_limit
    return tuple((head, para.format(hand_limit=limit, over_limit=limit + 1))
                 for head, para in _BASICS)


#: the primer's paragraphs under the default rules
BASICS = basics()


#: the card properties, told to players rather than to card authors
_PLAYER_WORDS = {
    "Trigger": "a card marked T has an effect that happens when it is turned up as damage",
    "Awakening": "a leader that reaches its awakening level turns to its back face",
}


def _term_line(t) -> str:
    what = _PLAYER_WORDS.get(t.en, t.what).replace(" (added automatically)", "")
    label = t.label[0] if t.label else t.en
    if t.arg == "int" and t.kind != V.GUARDIAN:
        label += " N"
    return f"{label} ({t.rule}): {what}"


def _explained():
    """The terms a card may show: timings, conditions, sub-keywords, Guardian payments."""
    return [t for t in V.TERMS if t.kind in (V.GATE, V.SUBKEYWORD, V.GUARDIAN, V.CARD)
            or (t.kind == V.TIMING and t.keyword)]


def keyword_lines() -> list[str]:
    """One line per keyword a card may show, with its rule number."""
    return [_term_line(t) for t in _explained()]


def glossary() -> dict[str, str]:
    """Keyword name -> its line (``keyword_lines``), for explaining a keyword where it is
    shown (the browser's tooltips)."""
    out: dict[str, str] = {}
    for t in _explained():
        out.setdefault(t.en, _term_line(t))
    return out


def primer_text(width: int = 96, config: RuleConfig | None = None) -> str:
    """The whole primer as plain text, wrapped to ``width``, under ``config``'s rules."""
    out = []
    for head, para in basics(config):
        out.append(textwrap.fill(f"{head}. {para}", width, subsequent_indent="  "))
    out.append("\nKeywords:")
    for line in keyword_lines():
        out.append(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="    "))
    return "\n".join(out)


def keyword_label(k) -> str:
    """A unit's sub-keyword as the board shows it, value included: ``Pierce 2``,
    ``Guardian (Sacrifice 1)``, ``Breakthrough (with power 3 or less)``, ``Credit 1``."""
    t = V.SUBKEYWORD_BY_KEY[k.term]
    s = t.render(k, "en").replace(": ", " ")
    s = re.sub(r"\[(\d+)\]$", r" \1", s)                  # Pierce[2] -> Pierce 2
    s = re.sub(r"\[([^\[\]]+)\]$", r" (\1)", s)           # Breakthrough[...] -> (...)
    return re.sub(r"^\[([^\[\]]+)\] (.*)$", r"\1 (\2)", s)  # [Guardian] X -> Guardian (X)


__all__ = ["BASICS", "basics", "glossary", "keyword_label", "keyword_lines", "primer_text"]
