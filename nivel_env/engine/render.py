"""Human-readable views: the board as text, action names, decision context."""
from __future__ import annotations

from . import actions as A, const as K
from .legal import activated_list, field_cost
from .stats import ensure


def _cname(g, iid: int) -> str:
    return g.card(iid).name if iid >= 0 else "-"


def _where(g, iid: int, viewer: int) -> str:
    w = g.where[iid]
    z, lane = w >> 2, w & 3
    own = "your" if iid // K.PER == viewer else "opponent's"
    if z == K.Z_HAND:                              # the other's hand: no position (3.8.3)
        return f"hand {g.hand[iid // K.PER].index(iid)}" if iid // K.PER == viewer \
            else "opponent's hand"
    if z in (K.Z_UNIT, K.Z_ITEM):
        return f"{own} lane {lane}"
    return f"{own} {K.ZONE_NAMES[z]}" if 0 <= z < len(K.ZONE_NAMES) else "nowhere"


def action_meaning(a: int) -> str:
    """What an action id means without a game: its row of the fixed action table
    (``engine.actions``), for naming ids before a game starts or after it ends, when
    there is no decision to name cards and lanes from."""
    if not 0 <= a < A.N_ACTIONS:
        return f"out of range (0..{A.N_ACTIONS - 1})"
    fixed = {A.KEEP: "keep opening hand", A.MULLIGAN: "mulligan (redraw the hand)",
             A.END_MAIN: "end main phase (go to attack)", A.END_ATTACK: "end attack phase",
             A.PASS: "pass (no / decline / done choosing)", A.YES: "yes",
             A.SURRENDER: "surrender"}
    if a in fixed:
        return fixed[a]
    if a < A.PLAY:
        return "reserved"
    m = A.decode(a)
    if m.kind == "PLAY":
        where = "skill zone" if m.target == A.SKILL_TARGET else f"lane {m.target}"
        return f"play hand slot {m.hand_slot} -> {where}"
    if m.kind == "ACTIVATE":
        who = "leader" if m.source == 0 else f"unit in lane {m.source_lane}"
        return f"activate {who} effect {m.slot}"
    if m.kind == "ATTACK":
        return f"attack with the unit in lane {m.lane}"
    if m.kind == "DEFEND":
        return f"defend with the unit in lane {m.lane}"
    if m.kind == "GUARDIAN":
        return f"guardian: the unit in lane {m.lane}"
    return f"pick candidate {m.pick}"


def mulligan_name(g) -> str:
    """The mulligan's name in ``g``: how many cards it redraws is the hand it sends back
    (5.1.6.1), read from the game -- the opening hand is never a number written here --
    when the decision is the mulligan; without one, said without a number."""
    d = g.dec
    if d is not None and d[0] == K.D_MULLIGAN:
        return f"mulligan (redraw {len(g.hand[d[1]])})"
    return "mulligan (redraw the hand)"


def action_name(g, a: int) -> str:
    """Name an action id in the context of the pending decision."""
    if not 0 <= a < A.N_ACTIONS:
        return f"out of range (0..{A.N_ACTIONS - 1})"
    d = g.dec
    p = d[1] if d is not None else g.tp
    kind = d[0] if d is not None else -1
    if a == A.KEEP:
        return "keep opening hand"
    if a == A.MULLIGAN:
        return mulligan_name(g)
    if a == A.END_MAIN:
        return "end main phase (go to attack)"
    if a == A.END_ATTACK:
        return "end attack phase"
    if a == A.SURRENDER:
        return "surrender"
    if a == A.YES:
        if kind == K.D_YESNO and len(d) > 5:                         # choosing a number
            return f"one more (now {d[5] + 1} of at most {d[6]})"
        return "yes"
    if a < A.PLAY and a not in (A.PASS,):
        return "reserved"
    if a == A.PASS:
        if kind == K.D_YESNO and len(d) > 5:
            return f"stop at {d[5]}"
        return {K.D_GUARDIAN: "no guardian", K.D_DEFENSE: "no defense", K.D_YESNO: "no",
                K.D_PICK: "done choosing"}.get(kind, "pass")
    m = A.decode(a)
    if m.kind == "PLAY":
        h, t = m.hand_slot, m.target
        hand = g.hand[p]
        if h >= len(hand):
            where = "skill zone" if t == A.SKILL_TARGET else f"lane {t}"
            return f"play hand slot {h} (empty) -> {where}"
        iid = hand[h]
        c = g.card(iid)
        if t == A.SKILL_TARGET:
            return f"use {c.name} (hand {h}) -> skill zone"
        if c.type == "item":
            return f"equip {c.name} (hand {h}) -> {_cname(g, g.unit[p * 3 + t])} (lane {t})"
        cur = g.unit[p * 3 + t]
        if cur >= 0 and c.type == "unit":
            return f"upgrade {_cname(g, cur)} -> {c.name} (hand {h}) in lane {t}"
        return f"play {c.name} (hand {h}) -> lane {t}"
    if m.kind == "ACTIVATE":
        source, slot = m.source, m.slot
        lst = activated_list(g, p, source)
        who = "leader" if source == 0 else f"lane {m.source_lane}"
        if slot >= len(lst):
            return f"activate {who} effect {slot} (none)"
        ab, src, _self = lst[slot]
        name = g.leader_face(p).name if source == 0 else g.card(src).name   # 10.2.6.1: back face
        return f"activate {name} ({who}) effect {slot}: {ab.when}"
    if m.kind != "PICK":
        lane = m.lane
        verb = {"ATTACK": "attack with", "DEFEND": "defend with", "GUARDIAN": "guardian"}[m.kind]
        return f"{verb} {_cname(g, g.unit[p * 3 + lane])} (lane {lane})"
    i = m.pick
    if kind != K.D_PICK or i >= len(d[3]):
        return f"pick candidate {i} (none)"
    return "pick " + candidate_name(g, d, d[3][i])


def candidate_name(g, d: tuple, v: int) -> str:
    purpose = d[2]
    if purpose == K.P_ORDER:
        e = g.stack[-1][1][v] if g.stack and g.stack[-1][0] == K.T_BATCH else None
        if e is None:
            return f"effect {v}"
        label = K.KIND_NAMES[e[2]]
        if e[2] == K.K_ABILITY:
            label = g.db.abilities[e[5]].when
        return f"resolve {g.card(e[3]).name} {label}"
    if v < 0:
        return f"lane {-1 - v}"
    return f"{g.card(v).name} ({_where(g, v, d[1])})"


def decision_context(g) -> dict:
    d = g.dec
    kind = d[0]
    ctx: dict = {"turn": g.turn, "turn_player": g.tp, "phase": K.PHASE_NAMES[g.phase]}
    if g.battle is not None:
        b = g.battle
        ctx["attacker_lane"] = b[K.B_LANE]
        ctx["attacker"] = g.card(b[K.B_ATK]).id
        if b[K.B_DEF] >= 0:
            ctx["defender"] = g.card(b[K.B_DEF]).id
    if kind == K.D_GUARDIAN:
        ctx["guardian_lanes"] = list(d[2])
    elif kind == K.D_DEFENSE:
        ctx["defender_lane"], ctx["must_defend"] = d[2], d[3]
    elif kind == K.D_YESNO:
        ctx["ability"] = d[2]
        ctx["source"] = g.card(d[3]).id
        ctx["step"] = d[4]
        if len(d) > 5:
            ctx["count"], ctx["most"] = d[5], d[6]
    elif kind == K.D_PICK:
        ctx["purpose"] = K.PICK_PURPOSES[d[2]]
        ctx["candidates"] = [candidate_name(g, d, v) for v in d[3]]
        ctx["candidate_values"] = list(d[3])
        ctx["can_pass"] = d[4]
        if d[5] >= 0:
            ctx["ability"] = d[5]
        if d[6] >= 0:
            ctx["source"] = g.card(d[6]).id
    return ctx


def render(g, perspective: int | None = None) -> str:
    """The board as text; with ``perspective`` the opponent's hand is hidden."""
    ensure(g)
    lines = [f"Turn {g.turn} - player {g.tp} to play - phase {K.PHASE_NAMES[g.phase]}"]
    for p in (1 - (perspective or 0), perspective or 0):
        lc = g.leader_face(p)
        lines.append(
            f"P{p} {lc.name} L{g.level[p]}{' (awakened)' if g.awake[p] else ''} | size "
            f"{g.size[p]} cost in use {field_cost(g, p)} | damage {len(g.damage[p])}/10 | "
            f"deck {len(g.deck[p])} | hand {len(g.hand[p])} | trash {len(g.trash[p])}")
        for lane in range(3):
            s = p * 3 + lane
            u = g.unit[s]
            if u < 0:
                lines.append(f"   lane {lane}: -")
                continue
            items = ", ".join(g.card(i).name for i in g.items[s])
            kws = ", ".join(sorted({k.name for k in g.kws[s]}))
            lines.append(f"   lane {lane}: {g.card(u).name} P{g.pw[s]} H{g.ht[s]}"
                         f"{' [' + items + ']' if items else ''}{' {' + kws + '}' if kws else ''}")
        if g.skill[p]:
            lines.append("   skills: " + ", ".join(g.card(i).name for i in g.skill[p]))
        if perspective is None or perspective == p:
            lines.append("   hand: " + ", ".join(f"{i}:{g.card(c).name}"
                                                for i, c in enumerate(g.hand[p])))
    if g.result is not None:
        lines.append(f"Game over: returns {g.result}{' (turn limit)' if g.truncated else ''}")
    elif g.dec is not None:
        lines.append(f"Decision: {K.DECISION_NAMES[g.dec[0]]} for player {g.dec[1]}")
    return "\n".join(lines)
