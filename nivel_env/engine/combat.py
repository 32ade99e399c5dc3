"""Combat (7) and damage processing (4.5).

A battle is ``Game.battle`` (attacker, lane, defender, step, Breakthrough keys,
Duelist flag, stamps) plus one ``T_BATTLE`` task that walks the steps:
Guardian offers at the start of the defense-declaration step (10.2.6.3.2), the
defense declaration (7.3), the start of the battle step (Infiltrate,
10.2.3.6.2), the battle step (7.4) and the battle-end step (7.5).  Each step
re-pushes the task before acting, so effects it triggers resolve first.
"""
from __future__ import annotations

from ..cards import model as m
from . import const as K
from .events import Attack, Battle, BattleEnd, Damage, DeckOut, Defend, Guardian, Trigger
from .damage_window import damage_occurs
from .effects import push_frame
from .hooks import (ACTION_DONE, ATTACK_DECLARED, BATTLE_STEP, BATTLE_WON, CAN_DEFEND,
                    DEFENSE_DECLARED, GUARDIAN, MUST_ATTACK)
from .match import select, unit_slot
from .stats import ensure, keywords_named
from .verbs import HANDLERS, Verb
from .zones import lose, queue, trash_from_field, trigger_timing


def can_attack(g, lane: int) -> bool:
    """7.2.1: a unit with attack declarations left this turn (7.2.1.2)."""
    p = g.tp
    s = p * 3 + lane
    iid = g.unit[s]
    if iid < 0:
        return False
    if g.turn == 1 and not g.cfg.first_turn_attack:               # docs/rulings.md C5
        return False
    ensure(g)
    if g.cant[s] & K.PROHIBIT_ATTACK:                               # 1.3.4
        return False
    stamp = g.stamp[iid]
    made = sum(1 for a in g.attacked if a[0] == iid and a[1] == stamp)
    return made < g.na[s]


def must_attack(g) -> bool:
    """Whether a unit's keyword forbids ending the attack phase now (Berserker, 10.2.6.2.3)."""
    p = g.tp
    for lane in range(3):
        s = p * 3 + lane
        if g.unit[s] >= 0:
            for h in MUST_ATTACK.values():
                if h(g, s):
                    return True
    return False


def declare_attack(g, lane: int, by_effect: bool = False) -> None:
    """7.2: declare an attack.  One an effect declares (7.2.1.1) leaves the unit counted
    as not having attacked: it is not recorded (nor counted by Chain, docs/rulings.md)."""
    p = g.tp
    s = p * 3 + lane
    iid = g.unit[s]
    ensure(g)
    if not by_effect:
        g.attacked.append((iid, g.stamp[iid]))
        g.dirty = True                                              # Chain counts (10.1.14)
    g.battle = [iid, lane, -1, K.BS_GUARD, (), False, g.stamp[iid], -1]
    for h in ATTACK_DECLARED.values():                              # Breakthrough, Duelist
        h(g, s, g.battle)
    g.log.append(Attack(p, g.card(iid).id, iid, lane, by_effect))
    g.stack.append((K.T_BATTLE,))
    trigger_timing(g, iid, m.ATTACKER)                              # 7.2.2


# ------------------------------------------- an attack an effect declares (7.2.1.1)

def _attackers(g, p, self_iid, a) -> list:
    """7.2.1.1: units of the turn player that an effect may make declare an attack: on the
    field, not forbidden to attack (1.3.4), not while a battle is being fought; having
    attacked already does not matter."""
    if g.tp != p or g.battle is not None or (g.turn == 1 and not g.cfg.first_turn_attack):
        return []
    ensure(g)
    out = []
    for iid in select(g, p, self_iid, a.target):
        s = unit_slot(g, iid)
        if s >= 0 and s // 3 == p and not g.cant[s] & K.PROHIBIT_ATTACK:
            out.append(iid)
    return out


def choice_attack(g, p, self_iid, a):
    if a.target.ref is not None:
        return None
    cands = _attackers(g, p, self_iid, a)
    return (p, cands, 1, 1, K.P_TARGET) if len(cands) > 1 else None


def run_attack(g, p, self_iid, a, picked):
    cands = _attackers(g, p, self_iid, a)
    iid = picked[0] if picked else (cands[0] if cands else -1)
    if iid not in cands:
        return False
    declare_attack(g, g.where[iid] & 3, by_effect=True)
    return True


def possible_attack(g, p, self_iid, a):
    return bool(_attackers(g, p, self_iid, a))


HANDLERS["attack"] = Verb(choice_attack, possible_attack, run_attack)


def _present(g, iid: int, stamp: int) -> bool:
    return iid >= 0 and g.stamp[iid] == stamp and g.where[iid] >> 2 == K.Z_UNIT


def can_defend(g, s: int) -> bool:
    """Whether the unit in slot s may declare defense in the current battle."""
    iid = g.unit[s]
    if iid < 0:
        return False
    ensure(g)
    if g.cant[s] & K.PROHIBIT_DEFEND:
        return False
    for h in CAN_DEFEND.values():                                   # Breakthrough
        if not h(g, iid):
            return False
    return True


def _guardian_payable(g, s: int, k) -> bool:
    return GUARDIAN[k.guardian][0](g, s, k)                         # 10.2.6.3.4


def guardian_options(g) -> list[int]:
    """Lanes whose unit may use Guardian now (10.2.6.3.2-3, docs/rulings.md D2-D3)."""
    b = g.battle
    if b[K.B_DUEL]:
        return []
    q = 1 - g.tp
    out = []
    for lane in (b[K.B_LANE] - 1, b[K.B_LANE] + 1):
        if 0 <= lane < 3:
            s = q * 3 + lane
            if g.unit[s] >= 0 and can_defend(g, s) and \
                    any(_guardian_payable(g, s, k) for k in keywords_named(g, s, "guardian")):
                out.append(lane)
    return out


def defense_option(g) -> tuple[int, bool]:
    """(lane of the encounter unit that may defend or -1, must it defend)."""
    b = g.battle
    lane = b[K.B_LANE]
    s = (1 - g.tp) * 3 + lane                                       # 7.3.1: the encounter unit
    if g.unit[s] < 0 or not can_defend(g, s):
        return -1, False
    return lane, bool(b[K.B_DUEL])                                  # 10.2.3.5.3


def declare_defense(g, iid: int, payment: str | None = None) -> None:
    """``iid`` blocks (7.3); ``payment``: the Guardian payment it stepped in with
    (10.2.6.3.4: "barrier", "sacrifice" or "offset"), None for the encounter unit."""
    b = g.battle
    b[K.B_DEF], b[K.B_DEF_STAMP] = iid, g.stamp[iid]
    q = iid // K.PER
    if payment is not None:
        g.log.append(Guardian(q, g.card(iid).id, iid, g.where[iid] & 3, payment))
    else:
        g.log.append(Defend(q, g.card(iid).id, iid, g.where[iid] & 3))
    trigger_timing(g, iid, m.DEFENDER)                              # 7.3.2
    s = unit_slot(g, iid)
    for h in DEFENSE_DECLARED.values():                             # Finale
        h(g, q, iid, s)


def run_battle(g, t: tuple) -> None:
    b = g.battle
    step = b[K.B_STEP]
    p = g.tp
    atk = b[K.B_ATK]
    atk_here = _present(g, atk, b[K.B_ATK_STAMP])
    if step == K.BS_GUARD:
        b[K.B_STEP] = K.BS_DEFENSE
        g.stack.append(t)
        if atk_here:
            opts = guardian_options(g)
            if opts:
                g.dec = (K.D_GUARDIAN, 1 - p, tuple(opts))
    elif step == K.BS_DEFENSE:
        b[K.B_STEP] = K.BS_BATTLE
        g.stack.append(t)
        if atk_here and b[K.B_DEF] < 0:                             # 7.3.3
            lane, must = defense_option(g)
            if lane >= 0:
                g.dec = (K.D_DEFENSE, 1 - p, lane, must)
    elif step == K.BS_BATTLE:
        b[K.B_STEP] = K.BS_RESOLVE
        g.stack.append(t)
        if atk_here:
            ensure(g)
            s = unit_slot(g, atk)
            for h in BATTLE_STEP.values():                          # Infiltrate
                h(g, p, atk, s)
    elif step == K.BS_RESOLVE:
        b[K.B_STEP] = K.BS_END
        g.stack.append(t)
        _battle_step(g, b, atk_here)
    else:                                                           # 7.5
        g.mods = [md for md in g.mods if md[3] != K.U_BATTLE]       # 7.5.1
        g.dirty = True
        g.battle = None
        g.log.append(BattleEnd())


def _battle_step(g, b, atk_here: bool) -> None:
    p = g.tp
    atk, dfn = b[K.B_ATK], b[K.B_DEF]
    if not atk_here:                                                # 7.4.1
        g.log.append(Battle("attacker_gone"))
        return
    ensure(g)
    sa = unit_slot(g, atk)
    if dfn < 0 or not _present(g, dfn, b[K.B_DEF_STAMP]):
        if dfn >= 0 and not g.cfg.damage_if_defender_gone:
            g.log.append(Battle("defender_gone"))
            return
        hit = g.ht[sa]                                              # 7.4.2
        g.log.append(Battle("unblocked", damage=hit, player=1 - p))
        damage_occurs(g, ((1 - p, hit),))                          # 4.5.2
        return
    sd = unit_slot(g, dfn)
    pa, pd = g.pw[sa], g.pw[sd]
    if pa >= pd:                                                    # 7.4.3
        g.log.append(Battle("defender_trashed", attacker_power=pa, defender_power=pd))
        won = [w for w in (h(g, p, atk, sa) for h in BATTLE_WON.values()) if w is not None]
        trash_from_field(g, dfn, by_effect=False, by_battle=True, other=atk)
        for kind, n in won:                                         # Pierce, Plunder
            queue(g, K.AUTO, p, kind, atk, n)
    else:
        g.log.append(Battle("attacker_trashed", attacker_power=pa, defender_power=pd))
        trash_from_field(g, atk, by_effect=False, by_battle=True, other=dfn)


# ------------------------------------------------------------------ Guardian

def start_guard(g, lane: int) -> None:
    q = 1 - g.tp
    s = q * 3 + lane
    k = next(k for k in keywords_named(g, s, "guardian") if _guardian_payable(g, s, k))
    g.stack.append((K.T_GUARD, s, k.key, ()))


def run_guard(g, t: tuple) -> None:
    """Pay a Guardian condition one choice at a time, then defend (docs/rulings.md D2)."""
    _, s, key, picked = t
    k = g.db.keywords[key]
    q = s // 3
    guardian = g.unit[s]
    _payable, candidates, pay = GUARDIAN[k.guardian]
    cands, need, purpose = candidates(g, s, k)
    left = [c for c in cands if c not in picked]
    if len(picked) < need and left:
        if len(cands) <= need:
            picked = tuple(cands)
        else:
            g.stack.append(t)
            g.dec = (K.D_PICK, q, purpose, tuple(left), False, -1, guardian)
            return
    for iid in picked:
        pay(g, q, iid)
    if guardian >= 0 and g.where[guardian] >> 2 == K.Z_UNIT:
        declare_defense(g, guardian, payment=k.guardian)


def guard_pick(g, t: tuple, iid: int) -> None:
    g.stack.append(t[:3] + (t[3] + (iid,),))


# -------------------------------------------------------------------- damage

def run_damage(g, t: tuple) -> None:
    """4.5.4: one point at a time; a trigger cancels the rest (4.5.4.3.1)."""
    _, p, n = t
    if n <= 0:
        return
    if not g.deck[p]:                                               # 4.5.3
        g.log.append(DeckOut(p, "damage"))
        lose(g, p)
        return
    n -= 1                                                          # 4.5.4.1
    iid = g.deck[p].pop()                                           # 4.5.4.2
    g.damage[p].append(iid)
    g.where[iid] = K.Z_DAMAGE * 4 + 3
    g.stamp[iid] += 1
    g.dirty = True
    c = g.card(iid)
    g.log.append(Damage(p, c.id, iid, len(g.damage[p]), c.trigger_ability is not None))
    for h in ACTION_DONE.values():                                  # 8.4.1.1
        h(g, "damage", p, 1)
    if c.trigger_ability is not None:                               # 4.5.4.3
        g.stack.append((K.T_DAMAGE_CHECK, p, 0))
        g.log.append(Trigger(p, c.id, iid, c.trigger_ability.key))         # 4.5.4.3
        push_frame(g, p, iid, c.trigger_ability)
    else:
        g.stack.append((K.T_DAMAGE_CHECK, p, n))


def damage_check(g, t: tuple) -> None:
    _, p, n = t
    if len(g.damage[p]) >= 10:                                      # 4.5.4.4
        lose(g, p)
    elif n > 0:                                                     # 4.5.4.5
        g.stack.append((K.T_DAMAGE, p, n))

