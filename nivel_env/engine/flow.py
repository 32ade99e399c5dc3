"""Game flow: setup, the turn's phases, rule processing and the end of the game.

``run`` is the engine's main loop: it pops tasks off the work stack until a
player must decide or the game is over.  Rule processing (9) runs after every
task: losses, power-0 units (1.3.7.3) and, outside effect processing, items
whose equip condition fails (8.6.2).
"""
from __future__ import annotations

from ..cards import model as m
from . import combat, const as K, effects
from .events import EndTurn, EquipLost, Expire, GameOver, Mulligan, PowerZero, Setup, Turn
from .match import gates_ok, matches
from .order import run_order
from .rng import next_u64, shuffle
from .leader import change_level
from .stats import ensure
from .whenever import effect_in_progress
from .zones import (draw, in_simultaneous_action, loss_check, queue, trash_from_field,
                    trigger_timing)


def setup(g, mirror: bool = False) -> None:
    """5.1.3-5.1.7: shuffle, leaders to level 1, first player, draw 5, mulligans.
    ``mirror`` shuffles seat 1's deck first (the other half of a duplicate deal, new_game)."""
    for p in ((1, 0) if mirror else (0, 1)):
        g.rng = shuffle(g.rng, g.deck[p])
    g.rng, r = next_u64(g.rng)
    g.first = g.tp = r & 1                                         # 5.1.5
    g.log.append(Setup(g.first, None))
    for p in (g.first, 1 - g.first):
        draw(g, p, 5)                                              # 5.1.6
    if g.cfg.mulligan:
        g.stack.append((K.T_TURN,))
        g.stack.append((K.T_MULLIGAN, 1 - g.first))
        g.stack.append((K.T_MULLIGAN, g.first))
    else:
        g.stack.append((K.T_TURN,))
    run(g)


def mulligan(g, p: int, redraw: bool) -> None:
    g.mulled[p] = True
    if redraw:                                                     # 5.1.6.1
        for iid in g.hand[p]:
            g.deck[p].append(iid)
            g.where[iid] = K.Z_DECK * 4 + 3
            g.stamp[iid] += 1
        g.hand[p] = []
        g.known[p] = []
        g.rng = shuffle(g.rng, g.deck[p])
        draw(g, p, 5)
    g.log.append(Mulligan(p, redraw))


# ------------------------------------------------------------------- turns

def start_turn(g) -> None:
    if g.turn > 0:
        g.tp = 1 - g.tp                                            # 6.6.1.5
    g.turn += 1
    if g.turn > g.cfg.max_turns:                                   # docs/rulings.md G
        g.truncated = True
        g.result = (0, 0)
        g.phase = K.OVER
        g.log.append(GameOver([0, 0], "max_turns"))
        return
    p = g.tp
    g.placed = [0, 0]
    g.attacked = []
    g.used = []
    g.dirty = True          # the turn player and this turn's attacks feed Chain (10.1.14.2)
    g.log.append(Turn(g.turn, p))
    g.phase = K.LEVEL_UP
    change_level(g, p, 1)                                          # 6.2.1
    g.phase = K.DRAW
    if not (g.turn == 1 and p == g.first):                         # 6.3.1.1
        draw(g, p, 1)
    g.stack.append((K.T_MAIN_START,))


def main_start(g) -> None:
    g.phase = K.MAIN
    p = g.tp
    for lane in range(3):                                          # 10.1.13.2: Escape
        iid = g.unit[p * 3 + lane]
        if iid >= 0:
            trigger_timing(g, iid, m.ESCAPE)
    g.stack.append((K.T_MAIN,))


def end_phase(g, t: tuple) -> None:
    step = t[1]
    p = g.tp
    if step == 0:                                                  # 6.6.1.1
        g.phase = K.END
        g.stack.append((K.T_END, 1))
        for iid, stamp in g.delayed:
            g.pend.append((K.AUTO, iid // K.PER, K.K_RETURN_HAND, iid, stamp, 0, 0))
        g.delayed = []
        for lane in range(3):
            iid = g.unit[p * 3 + lane]
            if iid >= 0:
                    trigger_timing(g, iid, m.END_OF_TURN)
        for a in g.leader_face(p).abilities:
            if a.when == m.END_OF_TURN and (not a.gates or gates_ok(g, p, p * K.PER, a.gates)):
                queue(g, K.AUTO, p, K.K_ABILITY, p * K.PER, a.key)
    elif step == 1:                                                # 6.6.1.2, 8.5.3
        before = len(g.mods)
        g.mods = [md for md in g.mods if md[3] != K.U_TURN]
        if len(g.mods) != before:
            g.dirty = True
            g.log.append(Expire(before - len(g.mods)))
        # all expire in one step, so no unit is trashed part-way (8.5.3.1); a unit left
        # at power 0 afterwards is trashed by rule processing (docs/rulings.md R1)
        g.stack.append((K.T_END, 2))
    elif step == 2:                                                # 6.6.1.3
        for iid in list(g.skill[p]):
            trash_from_field(g, iid, by_effect=False)
        g.stack.append((K.T_END, 3))
        excess = len(g.hand[p]) - g.cfg.hand_limit                 # 6.6.1.4
        if excess > 0:
            g.stack.append((K.T_DISCARD, p, excess, K.P_HAND_LIMIT))
    else:
        g.log.append(EndTurn(g.turn, p))
        g.stack.append((K.T_TURN,))


# ---------------------------------------------------------------- main loop

def _set_dec(kind):
    def handler(g, t):
        g.stack.append(t)
        g.dec = (kind, g.tp)
    return handler


HANDLERS = {
    K.T_TURN: lambda g, t: start_turn(g),
    K.T_MAIN_START: lambda g, t: main_start(g),
    K.T_MAIN: _set_dec(K.D_MAIN),
    K.T_ATTACK: _set_dec(K.D_ATTACK),
    K.T_END: end_phase,
    K.T_BATTLE: combat.run_battle,
    K.T_FRAME: effects.run_frame,
    K.T_BATCH: effects.run_batch,
    K.T_DAMAGE: combat.run_damage,
    K.T_DAMAGE_CHECK: combat.damage_check,
    K.T_LOSS_CHECK: loss_check,
    K.T_ORDER: run_order,
    K.T_DISCARD: effects.run_discard,
    K.T_GUARD: combat.run_guard,
    K.T_MULLIGAN: lambda g, t: (g.stack.append(t), setattr(g, "dec", (K.D_MULLIGAN, t[1]))),
}


def run(g) -> None:
    """Advance until a player must decide or the game is over."""
    stack = g.stack
    g.dec = None
    while True:
        rule_processing(g)
        if g.result is not None or g.dec is not None:
            return
        if g.pend and (not stack or stack[-1][0] in K.CHECKPOINT_TASKS):
            effects.open_batch(g)
        t = stack.pop()
        HANDLERS[t[0]](g, t)


def rule_processing(g) -> None:
    """9.1.2: rule processing happens as soon as its situation arises."""
    if g.lost[0] or g.lost[1]:
        finish(g)
        return
    if g.dirty:
        ensure(g)
        zero = [g.unit[s] for s in range(6) if g.unit[s] >= 0 and g.pw[s] == 0]
        if zero and in_simultaneous_action(g):                     # 8.4.4: once it is done
            zero = []
            g.dirty = True
        for iid in zero:                                           # 1.3.7.3
            g.log.append(PowerZero(g.card(iid).id, iid))
            trash_from_field(g, iid, by_effect=True)
        if zero:
            ensure(g)
    stack = g.stack
    if stack and stack[-1][0] in (K.T_FRAME, K.T_DAMAGE, K.T_DAMAGE_CHECK, K.T_LOSS_CHECK,
                                  K.T_ORDER):
        return                                      # effect or damage processing goes on
    _check_equips(g)                                               # 8.6.2
    # 9.2.1.1-2: 10 damage loses when damage processing or effect processing ends, which
    # check it themselves (combat.damage_check, effects.effect_over); this catches a
    # position built at 10, and waits while an effect is still being processed (a battle
    # it declared is part of it: 1.2.2.2)
    if (len(g.damage[0]) >= 10 or len(g.damage[1]) >= 10) and not effect_in_progress(g):
        for p in (0, 1):
            if len(g.damage[p]) >= 10:
                g.lost[p] = True
    if g.lost[0] or g.lost[1]:
        finish(g)


def _check_equips(g) -> None:
    """8.6.2: an item whose unit no longer meets its equip condition is trashed."""
    items = g.items
    if not (items[0] or items[1] or items[2] or items[3] or items[4] or items[5]):
        return
    for s in range(6):
        if not g.items[s]:
            continue
        ensure(g)
        u = g.unit[s]
        for it in list(g.items[s]):
            cond = g.card(it).equip
            if cond is not None and not matches(g, u, cond):
                g.log.append(EquipLost(g.card(it).id, it))
                trash_from_field(g, it, by_effect=False)
                ensure(g)


def finish(g) -> None:
    """1.2.1, 1.2.3: a player who lost ends the game; both at once is a draw."""
    l0, l1 = g.lost
    if l0 and l1:
        g.result = (0, 0)
    elif l0:
        g.result = (-1, 1)
    elif l1:
        g.result = (1, -1)
    else:
        return
    g.phase = K.OVER
    g.dec = None
    g.log.append(GameOver(list(g.result), "both lost" if l0 and l1 else "loss"))
