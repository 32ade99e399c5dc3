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

from typing import NamedTuple

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from .cards import model as m
from .cards.text import render_ability, render_action, render_card_text
from .engine import actions as A
from .engine import const as K
from .engine.legal import activated_list, field_cost
from .engine.explain import unit_keywords as engine_unit_keywords
from .engine.forecast import battle_forecast
from .engine.legal import play_blockers
from .engine.view import battle_info, decision_info, derived, is_leader
from .primer import keyword_label

ATTR_COLOURS = {"fire": "red", "water": "blue", "earth": "yellow", "wind": "green",
                "light": "bright_white", "dark": "magenta"}


def _card_name(c, style_attr: bool = True) -> Text:
    colour = ATTR_COLOURS.get(getattr(c, "attribute", None) or "", "white")
    return Text(c.name, style=f"bold {colour}" if style_attr else "")


def unit_keywords(g, slot: int) -> list[str]:
    """The sub-keywords that act on a unit now, values included (``Pierce 2``), in the
    engine's order (``engine.unit_keywords``: one highest Pierce, every Credit, ...)."""
    return [keyword_label(k) for k in engine_unit_keywords(g, slot)]


def _battle_role(g, iid: int) -> str:
    """'attacking' / 'blocking' for the units in the battle in progress, else ''."""
    b = battle_info(g)
    if b is None:
        return ""
    return "attacking" if iid == b.attacker else "blocking" if iid == b.defender else ""


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
    role = _battle_role(g, u)
    if role:                                 # the battle in progress, where it is fought
        t.append(f" {role.upper()}", style="bold reverse red" if role == "attacking"
                 else "bold reverse blue")
    kws = unit_keywords(g, s)
    if kws:
        t.append("\n" + ", ".join(kws), style="cyan")
    for it in g.items[s]:
        t.append(f"\n+ {g.card(it).name}", style="yellow")
    return t


def _names(g, iids) -> str:
    return ", ".join(g.card(i).name for i in iids)


def _side_summary(g, p: int, label: str) -> Group:
    """Two lines: the leader, level, size and damage; the zones' counts, skills and the
    damage zone (cut at the screen's edge: ``inspect damage`` lists it whole)."""
    lc = g.leader_face(p)
    t = Text(f"{label}: ", style="bold")
    t.append(_card_name(lc))
    t.append(f" · level {g.level[p]}{' (awakened)' if g.awake[p] else ''}")
    t.append(f" · size {derived(g).size[p]}, cost in use {field_cost(g, p)}")
    dmg = len(g.damage[p])
    t.append(f" · damage {dmg}/10", style="bold red" if dmg >= 7 else "")
    zones = Text(f"  deck {len(g.deck[p])} · hand {len(g.hand[p])} · trash {len(g.trash[p])}",
                 no_wrap=True, overflow="ellipsis")
    if g.skill[p]:
        zones.append(" · skills: " + _names(g, g.skill[p]), style="green")
    if g.damage[p]:
        zones.append(" · damage zone: " + _names(g, g.damage[p]), style="dim")
    return Group(t, zones)


def hand_table(g, p: int, title: str, text: bool = False, nums=None,
               blocked: dict | None = None) -> Table:
    """One line a card: key, name, type (T: a trigger card), cost, power/hit and the start
    of its text; with ``text`` each card's whole text (the replay viewer).  ``nums``
    (``HandKeys``) key the cards and order them; without them, by slot.  A card in
    ``blocked`` (hand slot -> why it cannot be played now, ``engine.play_blockers``) is
    greyed, the reason in place of its text."""
    t = Table(title=Text(title) if title else None, box=None, show_header=False, expand=True,
              title_justify="left", padding=(0, 1), title_style="bold")
    t.add_column(justify="right", width=3, style="bold cyan")
    t.add_column(min_width=18, no_wrap=True)
    t.add_column(width=9, no_wrap=True)
    t.add_column(width=7, no_wrap=True)
    t.add_column(ratio=1, no_wrap=not text, overflow="ellipsis" if not text else "fold")
    hand = g.hand[p]
    order = sorted(range(len(hand)), key=lambda h: nums[h]) if nums is not None else \
        range(len(hand))
    for h in order:
        c = g.card(hand[h])
        ph = f"P{c.power}/H{c.hit}" if c.type == m.UNIT else ""
        kind = c.type + (" T" if c.trigger else "")
        if blocked and h in blocked:
            t.add_row(Text(_hand_key(nums, h), style="dim"), Text(c.name, style="dim"),
                      Text(kind, style="dim"), Text(f"cost {c.cost}", style="dim"),
                      Text(f"{ph:<8}can't play: {blocked[h]}", style="dim italic"))
            continue
        t.add_row(_hand_key(nums, h), _card_name(c), kind, f"cost {c.cost}",
                  Text(f"{ph:<8}" + render_card_text(c).replace("\n", " · "), style="dim"))
    if not hand:
        t.add_row("", Text("(empty)", style="dim"), "", "", "")
    return t


def board(g, viewer: int, reveal: bool = False, names=("You", "Opponent"),
          nums=None, card_text: bool | None = None, end_line: bool = True,
          why_not: bool = False) -> Group:
    """The position as seen by ``viewer`` (both hands with ``reveal``); ``nums`` key the
    viewer's hand cards (``HandKeys``).  Hand cards show their whole text with
    ``card_text`` (default: with ``reveal``), else one line each; ``end_line`` adds
    "Game over: ..." to a finished game's board (a screen that tells the end itself
    leaves it out).  With ``why_not``, in the viewer's main phase, the hand cards that
    cannot be played are greyed with the reason (``engine.play_blockers``)."""
    card_text = reveal if card_text is None else card_text
    d = decision_info(g)
    blocked = play_blockers(g, viewer) if why_not and d is not None and \
        d.kind == K.D_MAIN and d.player == viewer else None
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
        parts.append(hand_table(g, opp, _possessive(names[1]) + " hand", text=card_text))
    elif g.known[opp]:                 # revealed (3.1.7) or returned from an open zone
        parts.append(Text("  known in their hand: " + _names(g, g.known[opp]),
                          style="magenta"))
    parts += [lanes, _side_summary(g, viewer, names[0]),
              hand_table(g, viewer, _possessive(names[0]) + " hand" if reveal else "",
                         text=card_text, nums=nums, blocked=blocked)]
    if g.result is not None and end_line:
        r = g.result[viewer]
        msg = ("draw (turn limit)" if g.truncated else "draw") if r == 0 else \
            (("You win" if names[0] == "You" else f"{names[0]} wins") if r > 0
             else f"{names[1]} wins")
        parts.append(Text(f"Game over: {msg}", style="bold reverse"))
    return Group(*parts)


class HandKeys:
    """Keys for the cards in one player's hand that stay with the card: a card keeps its
    number for as long as it stays in the hand (playing ``h1`` leaves ``h2`` as ``h2``),
    and a card that arrives takes the smallest number free.  The engine's hand slots
    shift whenever a card leaves, so a slot number would name another card one move
    later.  Call ``update`` with the hand at each decision shown."""

    def __init__(self):
        self._number: dict[int, int] = {}           # card instance -> its number

    def update(self, hand) -> list[int]:
        """The numbers of ``hand``'s cards, slot by slot."""
        kept = {iid: self._number[iid] for iid in hand if iid in self._number}
        used, free = set(kept.values()), 0
        for iid in hand:
            if iid not in kept:
                while free in used:
                    free += 1
                kept[iid] = free
                used.add(free)
        self._number = kept
        return [kept[iid] for iid in hand]


def _hand_key(nums, h: int) -> str:
    return f"h{nums[h] if nums is not None and h < len(nums) else h}"


def move_key(g, a: int, nums=None) -> str:
    """A key for move ``a`` that does not change between decisions ('' for a pick, whose
    candidates differ every time): k keep, m mulligan, e end the phase, y yes, n no /
    done, h<card><lane|s> play a hand card, x<l|lane><n> activate the leader's or a
    unit's effect n, a/d/g<lane> attack, defend, Guardian.  ``nums`` are the hand's
    card numbers (``HandKeys``); without them a hand card is named by its slot."""
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
    mv = A.decode(a)
    if mv.kind == "PLAY":
        t = mv.target
        return f"{_hand_key(nums, mv.hand_slot)}{'s' if t == A.SKILL_TARGET else t}"
    if mv.kind == "ACTIVATE":
        return f"x{'l' if mv.source == 0 else mv.source_lane}{mv.slot}"
    letter = _LANE_KEYS.get(mv.kind)
    return f"{letter}{mv.lane}" if letter else ""


_LANE_KEYS = {"ATTACK": "a", "DEFEND": "d", "GUARDIAN": "g"}


def _one_card_many_lanes(g, a: int) -> tuple:
    """For a move that puts a unit into an empty lane or equips an item, what makes such
    moves one row (the verb and the hand slot); else ()."""
    mv = A.decode(a)
    if mv.kind != "PLAY":
        return ()
    h, t = mv.hand_slot, mv.target
    p = g.current_player
    if t == A.SKILL_TARGET or h >= len(g.hand[p]):
        return ()
    kind = g.card(g.hand[p][h]).type
    if kind == m.ITEM:
        return ("equip", h)
    if kind == m.UNIT and g.unit[p * 3 + t] < 0:
        return ("play", h)
    return ()


def ordered_moves(g, legal: list[int], nums=None) -> list[int]:
    """The legal moves in the order the screen numbers them: as the engine lists them,
    but hand cards by their keys (``nums``), so the list reads like the hand."""
    def order(a: int):
        mv = A.decode(a)
        if mv.kind == "PLAY":
            h = mv.hand_slot
            return (1, nums[h] if nums is not None and h < len(nums) else h, mv.target)
        return (0 if a < A.PLAY else 2, a, 0)
    return sorted(legal, key=order)


class MoveRow(NamedTuple):
    """One line of the move list: the numbers typed for it ("2 3 4"), its keys, its words,
    and the action ids it stands for (one per number)."""
    numbers: str
    keys: str
    words: str
    actions: tuple


def _or_list(xs: list) -> str:
    return xs[0] if len(xs) == 1 else f"{', '.join(xs[:-1])} or {xs[-1]}"


def move_rows(g, legal: list[int], nums=None) -> list[MoveRow]:
    """The legal moves as rows, in ``ordered_moves`` order: one card played into one of
    several empty lanes is one row ("2 3 4", "h00 h01 h02", "play Ash Raider in lane 0, 1
    or 2"), as is an item that may go to several units.  No two rows read alike: two
    copies of a card in hand are told apart by their keys."""
    moves = ordered_moves(g, legal, nums)
    rows, i = [], 0
    p = g.current_player
    while i < len(moves):
        group_of, j = _one_card_many_lanes(g, moves[i]), i + 1
        while group_of and j < len(moves) and _one_card_many_lanes(g, moves[j]) == group_of:
            j += 1
        group = moves[i:j]
        number = " ".join(str(k + 1) for k in range(i, j))
        keys = " ".join(move_key(g, a, nums) for a in group)
        if len(group) == 1:
            words = move_name(g, group[0], nums)
        else:
            verb, h = group_of
            lanes = _or_list([str(A.decode(a).target) for a in group])
            card = g.card(g.hand[p][h]).name
            words = f"play {card} in lane {lanes}" if verb == "play" else \
                f"equip {card} on lane {lanes}"
        rows.append(MoveRow(number, keys, words, tuple(group)))
        i = j
    return _told_apart(g, rows, nums)


def _told_apart(g, rows: list[MoveRow], nums) -> list[MoveRow]:
    """Rows whose words are the same (two copies of a card in hand, two of the same card
    in a zone to choose from) get what tells them apart: the hand card's key, else a
    count ("2nd")."""
    seen: dict[str, int] = {}
    for r in rows:
        seen[r.words] = seen.get(r.words, 0) + 1
    if all(n == 1 for n in seen.values()):
        return rows
    p = g.current_player
    out, count = [], {}
    for r in rows:
        if seen[r.words] == 1:
            out.append(r)
            continue
        a = r.actions[0]
        h = A.hand_slot_of(a)
        if h is not None:
            name = g.card(g.hand[p][h]).name
            words = r.words.replace(name, f"{name} ({_hand_key(nums, h)})", 1)
        else:
            count[r.words] = count.get(r.words, 0) + 1
            words = f"{r.words} ({_ordinal(count[r.words])} copy)"
        out.append(r._replace(words=words))
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def moves_table(g, legal: list[int], nums=None, height: int | None = None,
                mark: int | None = None) -> Table:
    """The legal moves, numbered and keyed (``move_rows``).  One column while the rows
    fit ``height`` lines (None: any number), else two; numbers and keys are never cut
    (their columns are as wide as their longest entry), only the words are.  The row of
    move ``mark`` (the coach's) is pointed at."""
    rows = [r._replace(numbers="▶ " + r.numbers) if mark in r.actions else r
            for r in move_rows(g, legal, nums)]
    cols = 2 if height is not None and len(rows) > height else 1
    per = -(-len(rows) // cols)
    t = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    for c in range(cols):
        part = rows[c * per:(c + 1) * per] or [MoveRow("", "", "", ())]
        t.add_column(justify="right", style="bold", no_wrap=True,
                     min_width=max(len(r.numbers) for r in part))
        t.add_column(style="cyan", no_wrap=True, min_width=max(len(r.keys) for r in part))
        t.add_column(ratio=1, overflow="ellipsis", no_wrap=True)
    for r in range(per):
        cells = []
        for c in range(cols):
            k = c * per + r
            cells += [rows[k].numbers, rows[k].keys, Text(rows[k].words)] if k < len(rows) \
                else ["", "", ""]
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


def move_name(g, a: int, nums=None) -> str:
    """``action_name`` for a person: a play says where the card goes (the key names the
    hand card), an activated ability is told by its text, not its timing's key, and a
    card to choose says where it is (a hand card by its key, ``nums`` as in
    ``move_key``)."""
    p = g.current_player
    mv = A.decode(a)
    if mv.kind == "PLAY":
        h, t = mv.hand_slot, mv.target
        if h < len(g.hand[p]):
            c = g.card(g.hand[p][h])
            if t == A.SKILL_TARGET:
                return f"use {c.name} (skill)"
            cur = g.unit[p * 3 + t]
            if c.type == m.ITEM:
                return f"equip {c.name} on {g.card(cur).name} (lane {t})"
            if cur >= 0:                       # the hand card first: a cut row still says it
                return f"upgrade to {c.name} over {g.card(cur).name} (lane {t})"
            return f"play {c.name} in lane {t}"
    if mv.kind == "ACTIVATE":
        source, slot = mv.source, mv.slot
        lst = activated_list(g, p, source)
        if slot < len(lst):
            ab, src, _ = lst[slot]
            name = g.leader_face(p).name if source == 0 else g.card(src).name
            where = "your leader" if source == 0 else f"lane {mv.source_lane}"
            return f"use {name} ({where}): {render_ability(ab)}"
    if mv.kind == "PICK":
        d = decision_info(g)
        i = mv.pick
        if d is not None and d.kind == K.D_PICK and d.purpose != K.P_ORDER \
                and i < len(d.candidates):
            return f"choose {_candidate(g, d.candidates[i], p, nums)}"
    return g.action_name(a)


def _candidate(g, v: int, viewer: int, nums) -> str:
    """A card (or lane) to choose, and where it is, in the chooser's words."""
    if v < 0:
        return f"lane {-1 - v}"
    name, owner, zone = g.card(v).name, g.owner(v), g.zone(v)
    whose = "your" if owner == viewer else "their"
    if zone == K.Z_HAND and owner == viewer:
        return f"{name} ({_hand_key(nums, g.hand[viewer].index(v))})"
    if zone in (K.Z_UNIT, K.Z_ITEM):
        return f"{name} ({whose} lane {g.lane(v)})"
    return f"{name} ({whose} {_ZONE_WORDS.get(zone, K.ZONE_NAMES[zone])})"


_ZONE_WORDS = {K.Z_DAMAGE: "damage zone", K.Z_SKILL: "skill zone", K.Z_LEVEL: "level zone"}


#: what a pick of each purpose asks, in words ({n}: how many candidates are left)
_PICKING = {"effect order": "choose which effect resolves first",
            "hand limit discard": "end of turn: discard down to {limit} cards",
            "credit discard": "Credit: choose a card to discard",
            "barrier discard": "Guardian (Barrier): choose a card to discard",
            "sacrifice": "Guardian (Sacrifice): choose a unit to trash",
            "offset item": "Guardian (Offset): choose an item to trash",
            "card order": "{n} cards go under your deck in the order you choose: choose "
                          "the next to put under it (the last ends at the very bottom)"}


def source_name(g, iid: int) -> str:
    """A card instance's name as it is in play: a leader by the face it shows (10.2.6.1)."""
    if is_leader(iid):
        return g.leader_face(g.owner(iid)).name
    return g.card(iid).name


def _pick_question(g, d, key) -> str:
    """A pick in words: what the effect is doing (its cost or its action) and what to
    choose."""
    source = source_name(g, d.source) if d.source >= 0 else "an effect"
    done = key("n: done") if d.can_pass else ""
    purpose = K.PICK_PURPOSES[d.purpose]
    if purpose != "effect target":
        what = _PICKING.get(purpose, purpose).format(n=len(d.candidates),
                                                     limit=g.cfg.hand_limit)   # 6.6.1.4
        return f"{source}: {what}{done}." if d.source >= 0 else \
            f"{what[:1].upper()}{what[1:]}{done}."
    ab = g.db.abilities[d.ability] if d.ability >= 0 else None
    if ab is None or not 0 <= d.step < len(ab.sequence):
        return f"{source}: choose a target{done}."
    text = render_action(ab.sequence[d.step])
    which = "the lane" if d.candidates and d.candidates[0] < 0 else "which"
    if d.step < len(ab.cost):                                   # 8.1.3.1: a cost
        return f"{source}: to pay its cost, {text} — choose {which}{done}."
    return f"{source}: {text} — choose {which}{done}."


def forecast_lines(g, viewer: int) -> list[str]:
    """What the battle in progress will do (``engine.battle_forecast``), told to
    ``viewer``: no block, and each unit that may block -- "Block with your Iron Guard
    (lane 1): your 4 vs their 5, your Iron Guard is trashed".  [] without a battle."""
    f = battle_forecast(g)
    if f is None:
        return []
    defending = f.defending_player == viewer
    mine, theirs = ("your", "their") if defending else ("their", "your")
    attacker = f"{theirs} {g.card(f.attacker).name}"
    out = []
    if f.unblocked is not None:
        u = f.unblocked
        out.append(_with_notes(f"No block: {'you take' if defending else 'they take'} "
                               f"{u.damage} damage", u.notes))
    for o in f.blocks:
        name = f"{mine} {g.card(o.blocker).name}"
        how = f"Guardian from lane {o.lane}" if o.guardian is not None else f"lane {o.lane}"
        fell = [name if who == "blocker" else attacker for who in o.trashed]
        result = " and ".join(fell) + (" are" if len(fell) > 1 else " is") + " trashed" \
            if fell else "neither is trashed"
        out.append(_with_notes(f"Block with {name} ({how}): {mine} {o.blocker_power} vs "
                               f"{theirs} {o.attacker_power}, {result}", o.notes))
    out += [f"{n[:1].upper()}{n[1:]}." for n in f.notes]
    return out


def _with_notes(line: str, notes) -> str:
    return f"{line} ({'; '.join(notes)})." if notes else f"{line}."


def decision_line(g, keys: bool = True) -> str:
    """What is being asked, in words; with ``keys``, the terminal's keys for the answers
    that have one ("(e)", "(y/n)")."""
    def key(hint: str) -> str:
        return f" ({hint})" if keys else ""
    d = decision_info(g)
    kind = K.DECISION_NAMES[d.kind]
    if kind == "mulligan":
        return "Keep your opening hand, or shuffle it back and draw 5 new cards (once)?"
    if kind == "main":
        return f"Main phase: play a card, use an ability, or end the phase{key('e')} to attack."
    if kind == "attack":
        return f"Attack phase: attack with a unit, or end the phase{key('e')} and the turn."
    b = battle_info(g)
    attacker = f"{g.card(b.attacker).name} attacks your lane {b.lane}" if b else ""
    if kind == "defense":
        must = " (it must: Duelist)" if d.must else ""
        return f"{attacker}: block with your unit there{must}, or don't{key('n')}."
    if kind == "guardian":
        return f"{attacker}: a Guardian of yours may pay to block instead, or not{key('n')}."
    if kind == "may":
        source = source_name(g, d.source) if d.source >= 0 else "an effect"
        if d.most >= 0:                            # a number chosen one at a time (4.4.4)
            return f"{source}: one more? {d.count} chosen so far, at most {d.most}."
        text = render_ability(g.db.abilities[d.ability]) if d.ability >= 0 else ""
        if d.source >= 0 and g.owner(d.source) != d.player:   # your part of their effect
            return f"Their {source}: {text} Your part: do it{key('y/n')}?" if text else \
                f"Their {source}'s effect: your part, do it{key('y/n')}?"
        return f"Use {source}'s effect{key('y/n')}?" + (f" — {text}" if text else "")
    return _pick_question(g, d, key)


__all__ = ["HandKeys", "MoveRow", "board", "card_panel", "card_text", "decision_line",
           "describe", "forecast_lines", "hand_table", "move_key", "move_name", "move_rows",
           "moves_table", "source_name", "unit_keywords"]
