"""Legality in one place: the legal action ids of the pending decision, and what
each one does.  ``Game.apply_action`` checks an id against ``legal_actions`` before
calling ``apply_action`` here, so nothing below runs for an illegal id.
"""
from __future__ import annotations

from ..cards import model as m
from ..cards.phrases import noun_phrase
from ..cards.text import render_condition
from ..cards.vocab import CONDITION_BY_KEY, GATE
from . import actions as A, combat, const as K, effects
from .events import Activate, Equip, GuardianDeclined, NoDefense, Order, Phase, Play, Skill
from .flow import mulligan, run
from .match import condition, gates_ok, matches
from .order import order_pick
from .stats import ensure
from .verbs import cost_payable, possible
from .zones import move, place_unit, trash_from_field


# ----------------------------------------------------------------- queries

def field_cost(g, p: int) -> int:
    """Cost of every card on the field: units, their items, skills (6.4.1.1.2, docs/rulings.md
    B1).  A unit counts at its cost as effects change it on the field (``stats.unit_cost``):
    the sum reads the cards as they are on the field."""
    cards, defs = g.db.cards, g.defs
    ensure(g)
    uc = g.uc
    total = 0
    for s in range(p * 3, p * 3 + 3):
        u = g.unit[s]
        if u >= 0:
            total += uc[s]
            for it in g.items[s]:
                total += cards[defs[it]].cost
    for iid in g.skill[p]:
        total += cards[defs[iid]].cost
    return total


def replaced_cost(g, s: int) -> int:
    """Cost an upgrade of the unit in slot ``s`` frees: the unit's (as ``field_cost`` counts
    it) and its items' (6.4.1.1.2.1: they do not count towards the new card's payment)."""
    cards, defs = g.db.cards, g.defs
    ensure(g)
    return g.uc[s] + sum(cards[defs[i]].cost for i in g.items[s])


def activated_list(g, p: int, source: int) -> list:
    """(ability, card that prints it, unit or leader it works for) for one source."""
    if source == 0:
        leader = p * K.PER
        return [(a, leader, leader) for a in g.leader_face(p).abilities if a.when in m.ACTIVATED]
    s = p * 3 + source - 1
    iid = g.unit[s]
    if iid < 0:
        return []
    out = [(a, iid, iid) for a in g.card(iid).activated]
    for it in g.items[s]:                                       # 8.6.1: granted by items
        out.extend((a, it, iid) for a in g.card(it).activated)
    return out


def usable(g, p: int, ab, src: int, self_iid: int, timing: str) -> bool:
    """6.4.1.2.2 once per turn, 8.1.3.1.2 something must be possible, costs payable."""
    if ab.when != timing:
        return False
    tag = (src, g.stamp[src], ab.key)
    if ab.limit <= 1:
        if tag in g.used:
            return False
    elif g.used.count(tag) >= ab.limit:
        return False
    if ab.gates and not gates_ok(g, p, self_iid, ab.gates):
        return False
    if ab.condition is not None and not condition(g, p, self_iid, ab.condition):
        return False
    for a in ab.cost:
        if not cost_payable(g, p, self_iid, a):
            return False
    return any(possible(g, p, self_iid, a) for a in ab.actions)


def _plays(g, out: list) -> None:
    p = g.tp
    hand = g.hand[p]
    if not hand:
        return
    ensure(g)
    room = g.size[p] - field_cost(g, p)
    cards, defs = g.db.cards, g.defs
    placed = g.placed[p]
    for h, iid in enumerate(hand):
        c = cards[defs[iid]]
        base = A.PLAY + h * A.PLAY_TARGETS
        if c.type == m.UNIT:
            for lane in range(3):
                if placed >> lane & 1:                          # 6.4.1.1.3
                    continue
                cur = g.unit[p * 3 + lane]
                if cur < 0:
                    if c.cost <= room:
                        out.append(base + lane)
                    continue
                if c.cost <= g.uc[p * 3 + lane]:                # 3.5.5: its cost there
                    continue
                if c.cost <= room + replaced_cost(g, p * 3 + lane):    # 6.4.1.1.2.1
                    out.append(base + lane)
        elif c.type == m.ITEM:
            if c.cost > room:
                continue
            for lane in range(3):
                u = g.unit[p * 3 + lane]
                if u >= 0 and (c.equip is None or matches(g, u, c.equip)):
                    out.append(base + lane)
        elif c.type == m.SKILL:
            ab = c.effect
            if c.cost <= room and (ab.condition is None or condition(g, p, iid, ab.condition)) \
                    and any(possible(g, p, iid, a) for a in ab.actions):    # 8.1.3.1.2
                out.append(base + A.SKILL_TARGET)


def play_blockers(g, p: int) -> dict:
    """Why each card of ``p``'s hand cannot be played now: hand slot -> a short reason in
    plain English, for the hand cards with no legal play action; a card with one is absent.

    Which cards are absent is ``_plays``'s answer (the play actions ``legal_actions``
    offers), so the two cannot disagree; the reason reads the same quantities: size and
    cost in use as the screens show them (``derived(g).size[p]``, ``field_cost``).  When
    several things stop a card, the reason is the first of:

    1. nothing is played now: not ``p``'s main phase (6.4.1.1), the game over, or an
       effect or choice in progress (plays are made between them, 6.4.1);
    2. what the board lacks: a unit -- a lane that has not had a card placed this turn
       (6.4.1.1.3); an item -- a unit of yours (3.5.6), then one meeting its equip
       condition (3.5.6); a skill -- its condition, then something its effect can do now
       (8.1.3.1.2, judged as the legal moves judge it: docs/rulings.md R13, R17);
    3. cost: more than the size leaves free (4.7, 6.4.1.1.2); for a unit, over the best
       lane still open, counting what an upgrade there frees (6.4.1.1.2.1);
    4. a unit whose every open lane holds a unit costing as much or more: an upgrade must
       cost more than the unit it replaces (3.5.5).

    So the reason is the most basic obstacle, and among a unit's lanes the one closest to
    working.  It names only ``p``'s own hand cards and public facts: show it to ``p``.
    """
    hand = g.hand[p]
    if not hand:
        return {}
    why = ""
    if g.result is not None:
        why = "the game is over"
    elif g.tp != p or g.phase != K.MAIN:
        why = "cards are played in your main phase"                    # 6.4.1.1
    elif g.dec[0] != K.D_MAIN:
        why = "cards are played once the effect or choice in progress is done"   # 6.4.1
    if why:
        return {h: why for h in range(len(hand))}
    out: list = []
    _plays(g, out)
    playable = {A.hand_slot_of(a) for a in out}
    return {h: _why_not(g, p, h, iid) for h, iid in enumerate(hand) if h not in playable}


def _cost_text(cost: int, size: int, used: int, also: str = "") -> str:
    left = size - used
    return f"costs {cost}; size {size} with {used} in use leaves " \
           f"{left if left >= 0 else 'nothing'}{also}"


def _why_not(g, p: int, h: int, iid: int) -> str:
    """The reason one hand card has no play (``play_blockers``'s order)."""
    c = g.card(iid)
    size, used = g.size[p], field_cost(g, p)
    room = size - used                                                   # 4.7, 6.4.1.1.2
    why = ""
    if c.type == m.UNIT:
        why = _unit_blocker(g, p, c, size, used, room)
    elif c.type == m.ITEM:
        units = [g.unit[p * 3 + lane] for lane in range(3) if g.unit[p * 3 + lane] >= 0]
        if not units:
            why = "you have no unit to equip it to"                      # 3.5.6
        elif not any(c.equip is None or matches(g, u, c.equip) for u in units):
            why = f"it equips only to a {noun_phrase(c.equip, 'unit', False)}, " \
                  f"and none of your units is one"                        # 3.5.6
        elif c.cost > room:
            why = _cost_text(c.cost, size, used)
    elif c.type == m.SKILL:
        ab = c.effect
        if ab.condition is not None and not condition(g, p, iid, ab.condition):
            why = f"its condition is not met: {_condition_text(ab.condition)}"
        elif not any(possible(g, p, iid, a) for a in ab.actions):       # 8.1.3.1.2
            why = "nothing it does can be carried out now (no legal target)"
        elif c.cost > room:
            why = _cost_text(c.cost, size, used)
    if not why:
        raise RuntimeError(f"play_blockers: hand {h} ({c.id} {c.name}, a {c.type}) has no "
                           f"legal play but no known reason: legal._plays checks something "
                           f"legal._why_not does not")
    return why


def _unit_blocker(g, p: int, c, size: int, used: int, room: int) -> str:
    placed = g.placed[p]
    open_lanes = [lane for lane in range(3) if not placed >> lane & 1]   # 6.4.1.1.3
    if not open_lanes:
        return "each of your lanes already had a unit placed this turn"
    best = None                                  # (room there, lane, unit it replaces)
    lower = []                                   # open lanes whose unit costs as much or more
    for lane in open_lanes:
        cur = g.unit[p * 3 + lane]
        if cur < 0:
            fit = (room, 1, lane, cur)             # an empty lane first on a tie
        elif c.cost > g.uc[p * 3 + lane]:                               # 3.5.5
            fit = (room + replaced_cost(g, p * 3 + lane), 0, lane, cur)  # 6.4.1.1.2.1
        else:
            lower.append((lane, g.card(cur), g.uc[p * 3 + lane]))
            continue
        if best is None or fit[:2] > best[:2]:
            best = fit
    if best is not None:
        left, _, lane, cur = best
        if c.cost <= left:
            return ""                            # it fits there: _plays would offer it
        also = f" ({left} replacing {g.card(cur).name} in lane {lane})" if cur >= 0 else ""
        return _cost_text(c.cost, size, used, also)
    units = ", ".join(f"{u.name} in lane {lane} costs {cost}"
                      + (f" (printed {u.cost})" if cost != u.cost else "")
                      for lane, u, cost in lower)
    closed = [str(lane) for lane in range(3) if placed >> lane & 1]
    head = f"lane {' and '.join(closed)} already had a unit placed this turn, and " \
        if closed else ""
    return f"{head}an upgrade must cost more than the unit it replaces ({units})"


def _condition_text(cond) -> str:
    text = render_condition(cond)
    term = CONDITION_BY_KEY[cond.kind]
    return f"{text} ({term.what})" if term.kind == GATE else text


def _activations(g, out: list, timing: str) -> None:
    p = g.tp
    for source in range(4):
        for slot, (ab, src, self_iid) in enumerate(activated_list(g, p, source)[:A.ACTIVATE_SLOTS]):
            if usable(g, p, ab, src, self_iid, timing):
                out.append(A.activate_id(source, slot))


def legal_actions(g) -> list[int]:
    if g.result is not None:
        return []
    d = g.dec
    kind = d[0]
    out: list[int] = []
    if kind == K.D_MAIN:
        _plays(g, out)
        _activations(g, out, m.ACTIVE_MAIN)
        out.append(A.END_MAIN)
    elif kind == K.D_ATTACK:
        _activations(g, out, m.ACTIVE_ATTACK)
        for lane in range(3):
            if combat.can_attack(g, lane):
                out.append(A.ATTACK + lane)
        if not combat.must_attack(g):
            out.append(A.END_ATTACK)
    elif kind == K.D_PICK:
        out.extend(range(A.PICK, A.PICK + min(len(d[3]), A.PICK_SLOTS)))
        if d[4]:
            out.append(A.PASS)
    elif kind == K.D_MULLIGAN:
        out = [A.KEEP, A.MULLIGAN]
    elif kind == K.D_GUARDIAN:
        out = [A.PASS] + [A.GUARDIAN + lane for lane in d[2]]
    elif kind == K.D_DEFENSE:
        out = [A.DEFEND + d[2]] if d[3] else [A.PASS, A.DEFEND + d[2]]
    elif kind == K.D_YESNO:
        out = [A.PASS, A.YES]
    if g.cfg.surrender_action:
        out.append(A.SURRENDER)
    out.sort()
    return out


# ------------------------------------------------------------------ effects

def apply_action(g, a: int) -> None:
    # derived stats are fresh at every decision of a game played on (rule processing
    # refreshes them before the engine stops to ask); a game restored from a pickle or a
    # dict starts with them stale, and the handlers below read them (Guardian's keywords,
    # Finale): bring them up to date first, as the uninterrupted game had them
    ensure(g)
    d = g.dec
    kind, p = d[0], d[1]
    g.dec = None
    if a == A.SURRENDER:
        g.surrender(p)
        return
    stack = g.stack
    if kind == K.D_MAIN or kind == K.D_ATTACK:
        if a == A.END_MAIN:
            stack.pop()
            g.phase = K.ATTACK
            g.log.append(Phase("attack", p))
            stack.append((K.T_ATTACK,))
        elif a == A.END_ATTACK:
            stack.pop()
            g.log.append(Phase("end", p))
            stack.append((K.T_END, 0))
        else:
            move = A.decode(a)
            if a < A.ACTIVATE:
                play(g, move.hand_slot, move.target)
            elif a < A.ATTACK:
                activate(g, move.source, move.slot)
            else:
                combat.declare_attack(g, move.lane)
    elif kind == K.D_PICK:
        t = stack.pop()
        if a == A.PASS:
            effects.frame_pass(g, t)
        else:
            v = d[3][A.decode(a).pick]
            tk = t[0]
            if tk == K.T_FRAME:
                effects.frame_pick(g, t, v)
            elif tk == K.T_BATCH:
                g.log.append(Order(p))
                effects.resolve_from_batch(g, t, v)
            elif tk == K.T_DISCARD:
                effects.discard_pick(g, t, v)
            elif tk == K.T_ORDER:
                order_pick(g, t, v)
            else:
                combat.guard_pick(g, t, v)
    elif kind == K.D_MULLIGAN:
        stack.pop()
        mulligan(g, p, a == A.MULLIGAN)
    elif kind == K.D_GUARDIAN:
        if a == A.PASS:
            g.log.append(GuardianDeclined(p))
        else:
            combat.start_guard(g, A.decode(a).lane)
    elif kind == K.D_DEFENSE:
        if a == A.PASS:
            g.log.append(NoDefense(p))
        else:
            combat.declare_defense(g, g.unit[p * 3 + A.decode(a).lane])
    elif kind == K.D_YESNO:
        t = stack.pop()
        if a == A.YES:
            effects.frame_yes(g, t)
        else:
            effects.frame_pass(g, t)
    run(g)


def play(g, h: int, target: int) -> None:
    """6.4.1.1: place a unit (or upgrade, 3.5.5.1), equip an item, or use a skill."""
    p = g.tp
    iid = g.hand[p][h]
    c = g.card(iid)
    if c.type == m.UNIT:
        lane = target
        g.placed[p] |= 1 << lane
        cur = g.unit[p * 3 + lane]
        g.log.append(Play(p, c.id, iid, lane, g.card(cur).id if cur >= 0 else None))
        if cur >= 0:
            trash_from_field(g, cur, by_effect=False, upgrade=True)     # not by effect (3.5.5.1)
        place_unit(g, iid, lane)
    elif c.type == m.ITEM:
        move(g, iid, K.Z_ITEM, target)                                  # 3.5.6
        g.log.append(Equip(p, c.id, iid, target, g.card(g.unit[p * 3 + target]).id))
    else:
        move(g, iid, K.Z_SKILL)                                         # 3.6.1
        g.log.append(Skill(p, c.id, iid))
        effects.push_frame(g, p, iid, c.effect)


def activate(g, source: int, slot: int) -> None:
    p = g.tp
    ab, src, self_iid = activated_list(g, p, source)[slot]
    g.used.append((src, g.stamp[src], ab.key))
    g.log.append(Activate(p, g.card(src).id, self_iid, ab.key))
    effects.push_frame(g, p, self_iid, ab)
