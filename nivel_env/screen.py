"""The board as a rich renderable, for the terminal game and the replay viewer.

One function draws a position from one player's side: the opponent's leader and zones
on top, the lanes facing each other, the viewer's side and hand below.  It is compact
(a 100x30 terminal holds the board, the decision and the moves): a hand card is one
line, and the full text of any card is a command away (``inspect``, ``card``).  Hidden
cards stay hidden unless ``reveal`` is set (replays are for review and show both hands).

Moves are listed with a number and, where the move has one, a key that stays the same
from one decision to the next (``a1``: attack with the unit in lane 1; ``h20``: hand
card 2 into lane 0) -- numbers are renumbered every decision, keys are not.
"""
from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from .cards import model as m
from .cards.text import render_ability, render_card_text
from .engine import actions as A
from .engine import const as K
from .engine.legal import activated_list, field_cost
from .engine.view import derived
from .primer import keyword_label

ATTR_COLOURS = {"fire": "red", "water": "blue", "earth": "yellow", "wind": "green",
                "light": "bright_white", "dark": "magenta"}


def _card_name(c, style_attr: bool = True) -> Text:
    colour = ATTR_COLOURS.get(getattr(c, "attribute", None) or "", "white")
    return Text(c.name, style=f"bold {colour}" if style_attr else "")


def unit_keywords(g, slot: int) -> list[str]:
    """The sub-keywords a unit has now, values included (``Pierce 2``), sorted."""
    return sorted({keyword_label(k) for k in derived(g).keywords[slot]})


def _unit_cell(g, p: int, lane: int) -> Text:
    s = p * 3 + lane
    u = g.unit[s]
    if u < 0:
        return Text("—", style="dim")
    c = g.card(u)
    t = _card_name(c)
    dv = derived(g)
    t.append(f"\nP{dv.power[s]} H{dv.hit[s]}", style="bold")
    if dv.power[s] != c.power or dv.hit[s] != c.hit:
        t.append(f" (printed {c.power}/{c.hit})", style="dim")
    kws = unit_keywords(g, s)
    if kws:
        t.append("\n" + ", ".join(kws), style="cyan")
    for it in g.items[s]:
        t.append(f"\n+ {g.card(it).name}", style="yellow")
    return t


def _names(g, iids) -> str:
    return ", ".join(g.card(i).name for i in iids)


def _side_summary(g, p: int, label: str) -> Text:
    lc = g.leader_face(p)
    t = Text(f"{label}: ", style="bold")
    t.append(_card_name(lc))
    t.append(f" · level {g.level[p]}{' (awakened)' if g.awake[p] else ''}")
    t.append(f" · size {derived(g).size[p]}, cost in use {field_cost(g, p)}")
    dmg = len(g.damage[p])
    t.append(f" · damage {dmg}/10", style="bold red" if dmg >= 7 else "")
    t.append(f"\n  deck {len(g.deck[p])} · hand {len(g.hand[p])} · trash {len(g.trash[p])}")
    if g.skill[p]:
        t.append(" · skills: " + _names(g, g.skill[p]), style="green")
    if g.damage[p]:
        t.append(" · damage zone: " + _names(g, g.damage[p]), style="dim")
    return t


def hand_table(g, p: int, title: str, text: bool = False) -> Table:
    """One line a card: slot, name, type (T: a trigger card), cost, power/hit; with
    ``text`` each card's text too (the replay viewer)."""
    t = Table(title=Text(title) if title else None, box=None, show_header=False, expand=True,
              title_justify="left", padding=(0, 1), title_style="bold")
    t.add_column(justify="right", width=3, style="bold cyan")
    t.add_column(min_width=18, no_wrap=True)
    t.add_column(width=9, no_wrap=True)
    t.add_column(width=7, no_wrap=True)
    t.add_column(ratio=1, no_wrap=not text, overflow="ellipsis" if not text else "fold")
    for i, iid in enumerate(g.hand[p]):
        c = g.card(iid)
        ph = f"P{c.power}/H{c.hit}" if c.type == m.UNIT else ""
        kind = c.type + (" T" if c.trigger else "")
        t.add_row(f"h{i}", _card_name(c), kind, f"cost {c.cost}",
                  Text(f"{ph:<8}" + render_card_text(c).replace("\n", " · "), style="dim"))
    if not g.hand[p]:
        t.add_row("", Text("(empty)", style="dim"), "", "", "")
    return t


def board(g, viewer: int, reveal: bool = False, names=("You", "Opponent")) -> Group:
    """The position as seen by ``viewer`` (both hands with ``reveal``)."""
    opp = 1 - viewer
    who = f"{names[0]}'s" if g.tp == viewer else f"{names[1]}'s"
    if names[0] == "You":
        who = "your" if g.tp == viewer else "the opponent's"
    state = "game over" if g.result is not None else \
        "setup: opening hands (5.1.6)" if K.PHASE_NAMES[g.phase] == "setup" else \
        f"{who} turn · {K.PHASE_NAMES[g.phase]} phase"
    head = Text(f"Turn {g.turn} · {state}", style="bold underline")
    lanes = Table(box=box.SIMPLE_HEAD, expand=True, show_header=True, padding=(0, 1),
                  show_edge=False, header_style="dim")
    lanes.add_column("", width=max(8, min(16, max(len(n) for n in names))), style="bold",
                     no_wrap=True)
    for lane in range(3):
        lanes.add_column(f"lane {lane}", ratio=1)
    lanes.add_row(Text(names[1], style="red"), *(_unit_cell(g, opp, ln) for ln in range(3)))
    lanes.add_row(Text(names[0], style="green"),
                  *(_unit_cell(g, viewer, ln) for ln in range(3)))
    parts = [head, _side_summary(g, opp, names[1])]
    if reveal and g.hand[opp]:
        parts.append(hand_table(g, opp, _possessive(names[1]) + " hand", text=True))
    elif g.known[opp]:                 # revealed (3.1.7) or returned from an open zone
        parts.append(Text("  known in their hand: " + _names(g, g.known[opp]),
                          style="magenta"))
    parts += [lanes, _side_summary(g, viewer, names[0]),
              hand_table(g, viewer, _possessive(names[0]) + " hand" if reveal else "",
                         text=reveal)]
    if g.result is not None:
        r = g.result[viewer]
        msg = ("draw (turn limit)" if g.truncated else "draw") if r == 0 else \
            (("You win" if names[0] == "You" else f"{names[0]} wins") if r > 0
             else f"{names[1]} wins")
        parts.append(Text(f"Game over: {msg}", style="bold reverse"))
    return Group(*parts)


def move_key(g, a: int) -> str:
    """A key for move ``a`` that does not change between decisions ('' for a pick, whose
    candidates differ every time): k keep, m mulligan, e end the phase, y yes, n no /
    done, h<slot><lane|s> play a hand card, x<l|lane><n> activate the leader's or a
    unit's effect n, a/d/g<lane> attack, defend, Guardian."""
    if a == A.KEEP:
        return "k"
    if a == A.MULLIGAN:
        return "m"
    if a in (A.END_MAIN, A.END_ATTACK):
        return "e"
    if a == A.YES:
        return "y"
    if a == A.PASS:
        return "n"
    if A.PLAY <= a < A.ACTIVATE:
        h, t = divmod(a - A.PLAY, A.PLAY_TARGETS)
        return f"h{h}{'s' if t == A.SKILL_TARGET else t}"
    if A.ACTIVATE <= a < A.ATTACK:
        source, slot = divmod(a - A.ACTIVATE, A.ACTIVATE_SLOTS)
        return f"x{'l' if source == 0 else source - 1}{slot}"
    for letter, lo in (("a", A.ATTACK), ("d", A.DEFEND), ("g", A.GUARDIAN)):
        if lo <= a < lo + 3:
            return f"{letter}{a - lo}"
    return ""


def _plain_play(g, a: int) -> int:
    """The hand slot of a move that puts a unit into an empty lane, else -1."""
    if not A.PLAY <= a < A.ACTIVATE:
        return -1
    h, t = divmod(a - A.PLAY, A.PLAY_TARGETS)
    p = g.current_player
    if t == A.SKILL_TARGET or h >= len(g.hand[p]) or g.unit[p * 3 + t] >= 0 \
            or g.card(g.hand[p][h]).type != m.UNIT:
        return -1
    return h


def move_rows(g, legal: list[int]) -> list[tuple[str, str, str]]:
    """(numbers, keys, words) a row: one card played into one of several empty lanes is
    one row ("2 3 4", "h00 h01 h02", "play Ash Raider in lane 0, 1 or 2")."""
    rows, i = [], 0
    while i < len(legal):
        h, j = _plain_play(g, legal[i]), i + 1
        while h >= 0 and j < len(legal) and _plain_play(g, legal[j]) == h:
            j += 1
        group = legal[i:j]
        if len(group) == 1:
            rows.append((str(i + 1), move_key(g, group[0]), move_name(g, group[0])))
        else:
            lanes = [str((a - A.PLAY) % A.PLAY_TARGETS) for a in group]
            card = g.card(g.hand[g.current_player][h]).name
            rows.append((" ".join(str(k + 1) for k in range(i, j)),
                         " ".join(move_key(g, a) for a in group),
                         f"play {card} in lane {', '.join(lanes[:-1])} or {lanes[-1]}"))
        i = j
    return rows


def moves_table(g, legal: list[int]) -> Table:
    """The legal moves, numbered and keyed; in two columns when there are many."""
    rows = move_rows(g, legal)
    cols = 2 if len(rows) > 6 else 1
    t = Table(box=None, show_header=False, padding=(0, 1), expand=cols > 1)
    for _ in range(cols):
        t.add_column(justify="right", style="bold", no_wrap=True)
        t.add_column(style="cyan", no_wrap=True)
        t.add_column(ratio=1, overflow="ellipsis", no_wrap=True)
    per = -(-len(rows) // cols)
    for r in range(per):
        cells = []
        for c in range(cols):
            k = c * per + r
            cells += [rows[k][0], rows[k][1], Text(rows[k][2])] if k < len(rows) else \
                ["", "", ""]
        t.add_row(*cells)
    return t


def card_panel(g, iid: int) -> Text:
    """One card instance's full text (a leader's shows both faces, 10.2.6.1)."""
    return card_text(g.card(iid))


def describe(c) -> str:
    """"unit · fire · cost 3 · P4/H1 · trigger" and the like."""
    bits = [c.type]
    if getattr(c, "attribute", None):
        bits.append(c.attribute)
    if c.type != m.LEADER:
        bits.append(f"cost {c.cost}")
    if c.type == m.UNIT:
        bits.append(f"P{c.power}/H{c.hit}")
    if getattr(c, "trigger", None):
        bits.append("trigger")
    if getattr(c, "affiliation", None):
        bits.append("/".join(c.affiliation))
    return " · ".join(bits)


def card_text(c) -> Text:
    """A card definition's full text (``card NAME``)."""
    t = Text()
    t.append(_card_name(c))
    t.append(f"  ({describe(c)})\n", style="dim")
    t.append(render_card_text(c) or "(no text)")
    return t


def _possessive(name: str) -> str:
    """"You" -> "Your", "Opponent" -> "Opponent's"."""
    return "Your" if name == "You" else f"{name}'s"


def move_name(g, a: int) -> str:
    """``action_name`` for a person: a play says where the card goes without hand slots
    (the key has them), an activated ability is told by its text, not its timing's key."""
    p = g.current_player
    if A.PLAY <= a < A.ACTIVATE:
        h, t = divmod(a - A.PLAY, A.PLAY_TARGETS)
        if h < len(g.hand[p]):
            c = g.card(g.hand[p][h])
            if t == A.SKILL_TARGET:
                return f"use {c.name} (skill)"
            cur = g.unit[p * 3 + t]
            if c.type == m.ITEM:
                return f"equip {c.name} on {g.card(cur).name}"
            if cur >= 0:
                return f"upgrade {g.card(cur).name} → {c.name}"
            return f"play {c.name} in lane {t}"
    if A.ACTIVATE <= a < A.ATTACK:
        source, slot = divmod(a - A.ACTIVATE, A.ACTIVATE_SLOTS)
        lst = activated_list(g, p, source)
        if slot < len(lst):
            ab, src, _ = lst[slot]
            name = g.leader_face(p).name if source == 0 else g.card(src).name
            where = "your leader" if source == 0 else f"lane {source - 1}"
            return f"use {name} ({where}): {render_ability(ab)}"
    return g.action_name(a)


_PICKING = {"effect target": "choose a target", "effect order": "choose which effect "
            "resolves first", "hand limit discard": "end of turn: discard down to 7 cards",
            "credit discard": "Credit: choose a card to discard",
            "barrier discard": "Guardian (Barrier): choose a card to discard",
            "sacrifice": "Guardian (Sacrifice): choose a unit to trash",
            "offset item": "Guardian (Offset): choose an item to trash",
            "which effect": "choose which effect to use"}


def decision_line(g, keys: bool = True) -> str:
    """What is being asked, in words; with ``keys``, the terminal's keys for the answers
    that have one ("(e)", "(y/n)")."""
    def key(hint: str) -> str:
        return f" ({hint})" if keys else ""
    d = g.decision
    c = d.context
    kind = d.kind
    if kind == "mulligan":
        return "Keep your opening hand, or shuffle it back and draw 5 new cards (once)?"
    if kind == "main":
        return f"Main phase: play a card, use an ability, or end the phase{key('e')} to attack."
    if kind == "attack":
        return f"Attack phase: attack with a unit, or end the phase{key('e')} and the turn."
    attacker = f"{g.db.get(c['attacker']).name} attacks your lane {c['attacker_lane']}" \
        if "attacker" in c else ""
    if kind == "defense":
        must = " (it must: Duelist)" if c.get("must_defend") else ""
        return f"{attacker}: block with your unit there{must}, or don't{key('n')}."
    if kind == "guardian":
        return f"{attacker}: a Guardian of yours may pay to block instead, or not{key('n')}."
    source = g.db.get(c["source"]).name if "source" in c else "an effect"
    if kind == "may":
        text = render_ability(g.db.abilities[c["ability"]]) if "ability" in c else ""
        if "most" in c:                            # a number chosen one at a time (4.4.4)
            return f"{source}: one more? {c['count']} chosen so far, at most {c['most']}."
        return f"Use {source}'s effect{key('y/n')}?" + (f" — {text}" if text else "")
    what = _PICKING.get(c.get("purpose", ""), c.get("purpose", "choose"))
    done = key("n: done") if c.get("can_pass") else ""
    if "source" in c:
        return f"{source}: {what}{done}."
    return f"{what[:1].upper()}{what[1:]}{done}."


__all__ = ["board", "card_panel", "card_text", "decision_line", "describe", "hand_table",
           "move_key", "move_name", "move_rows", "moves_table", "unit_keywords"]
