"""The board as a rich renderable, for the terminal game and the replay viewer.

One function draws a position from one player's side: the opponent's leader, zones
and units on top, the lanes facing each other, the viewer's side and hand (with card
text) below.  Hidden cards stay hidden unless ``reveal`` is set (replays are for
review and show both hands).
"""
from __future__ import annotations

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .cards import model as m
from .cards.text import render_ability, render_card_text
from .engine import const as K
from .engine.legal import field_cost
from .engine.view import derived

ATTR_COLOURS = {"fire": "red", "water": "blue", "earth": "yellow", "wind": "green",
                "light": "bright_white", "dark": "magenta"}


def _card_name(c, style_attr: bool = True) -> Text:
    colour = ATTR_COLOURS.get(getattr(c, "attribute", None) or "", "white")
    return Text(c.name, style=f"bold {colour}" if style_attr else "")


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
    kws = sorted({k.name for k in dv.keywords[s]})
    if kws:
        t.append("\n" + ", ".join(kws), style="cyan")
    for it in g.items[s]:
        t.append(f"\n+ {g.card(it).name}", style="yellow")
    return t


def _side_summary(g, p: int, label: str) -> Text:
    lc = g.leader_face(p)
    t = Text(f"{label}: ", style="bold")
    t.append(_card_name(lc))
    t.append(f"  level {g.level[p]}{' (awakened)' if g.awake[p] else ''}")
    t.append(f"  size {derived(g).size[p]}, cost in use {field_cost(g, p)}")
    dmg = len(g.damage[p])
    t.append(f"  damage {dmg}/10", style="bold red" if dmg >= 7 else "")
    t.append(f"  deck {len(g.deck[p])}  hand {len(g.hand[p])}  trash {len(g.trash[p])}")
    abilities = " · ".join(render_ability(a) for a in lc.abilities)
    if abilities:
        t.append(f"\n  leader: {abilities}", style="dim")
    if g.skill[p]:
        t.append("\n  skills: " + ", ".join(g.card(i).name for i in g.skill[p]), style="green")
    if g.damage[p]:
        t.append("\n  damage zone: " + ", ".join(g.card(i).name for i in g.damage[p]),
                 style="dim")
    return t


def hand_table(g, p: int, title: str) -> Table:
    t = Table(title=title, box=box.SIMPLE, show_lines=False, expand=True, title_justify="left")
    t.add_column("#", justify="right", width=3)
    t.add_column("card", min_width=16)
    t.add_column("type", width=12)
    t.add_column("cost", justify="right", width=4)
    t.add_column("P/H", width=5)
    t.add_column("text", ratio=1)
    for i, iid in enumerate(g.hand[p]):
        c = g.card(iid)
        ph = f"{c.power}/{c.hit}" if c.type == m.UNIT else ""
        kind = c.type + (" ·T" if c.trigger else "")
        t.add_row(str(i), _card_name(c), kind, str(c.cost), ph,
                  render_card_text(c).replace("\n", " · "))
    return t


def board(g, viewer: int, reveal: bool = False, names=("You", "Opponent")) -> Group:
    """The position as seen by ``viewer`` (both hands with ``reveal``)."""
    opp = 1 - viewer
    who = f"{names[0]}'s" if g.tp == viewer else f"{names[1]}'s"
    if names[0] == "You":
        who = "your" if g.tp == viewer else "the opponent's"
    state = "game over" if g.result is not None else \
        f"{who} turn · {K.PHASE_NAMES[g.phase]} phase"
    head = Text(f"Turn {g.turn} · {state}", style="bold underline")
    lanes = Table(box=box.ROUNDED, expand=True, show_header=True)
    lanes.add_column("", width=10, style="bold")
    for lane in range(3):
        lanes.add_column(f"lane {lane}", ratio=1)
    lanes.add_row(names[1], *(_unit_cell(g, opp, ln) for ln in range(3)))
    lanes.add_row(names[0], *(_unit_cell(g, viewer, ln) for ln in range(3)))
    parts = [head, _side_summary(g, opp, names[1])]
    if reveal and g.hand[opp]:
        parts.append(hand_table(g, opp, _possessive(names[1]) + " hand"))
    elif g.known[opp]:                 # revealed (3.1.7) or returned from an open zone
        parts.append(Text("  known in their hand: " + ", ".join(
            g.card(i).name for i in g.known[opp]), style="magenta"))
    parts += [lanes, _side_summary(g, viewer, names[0]),
              hand_table(g, viewer, _possessive(names[0]) + " hand")]
    if g.result is not None:
        r = g.result[viewer]
        msg = ("draw (turn limit)" if g.truncated else "draw") if r == 0 else \
            (("You win" if names[0] == "You" else f"{names[0]} wins") if r > 0
             else f"{names[1]} wins")
        parts.append(Panel(Text(f"Game over: {msg}", style="bold")))
    return Group(*parts)


def moves_table(g, legal: list[int]) -> Table:
    t = Table(box=box.SIMPLE, show_header=False, padding=(0, 1))
    t.add_column(justify="right", style="bold cyan")
    t.add_column()
    for i, a in enumerate(legal, 1):
        t.add_row(str(i), g.action_name(a))
    return t


def _possessive(name: str) -> str:
    """"You" -> "Your", "Opponent" -> "Opponent's"."""
    return "Your" if name == "You" else f"{name}'s"


def decision_line(g) -> str:
    """What is being asked, in words."""
    d = g.decision
    c = d.context
    bits = [f"{d.kind}"]
    if "attacker" in c:
        bits.append(f"{g.db.get(c['attacker']).name} attacks in lane {c['attacker_lane']}")
    if "purpose" in c:
        bits.append(c["purpose"])
    if "source" in c:
        bits.append(f"effect of {g.db.get(c['source']).name}")
    if "most" in c:                                # a number chosen one at a time (4.4.4)
        bits.append(f"how many: {c['count']} chosen so far, at most {c['most']}")
    return " — ".join(bits)


__all__ = ["board", "decision_line", "hand_table", "moves_table"]
