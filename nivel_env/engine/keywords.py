"""What each sub-keyword does (10.2): its handlers at the engine's trigger points.

One section per term, keyed by its vocabulary key (``cards/vocab.py``); ``hooks.py``
says when each point is reached.  A new sub-keyword is a vocabulary record plus its
handlers here.
"""
from __future__ import annotations

from . import const as K
from .events import Discard, ReturnToHand
from .combat import can_attack
from .damage_window import damage_occurs
from .hooks import (ATTACK_DECLARED, BATTLE_STEP, BATTLE_WON, CAN_DEFEND, DEFENSE_DECLARED,
                    GUARDIAN, LEFT_FIELD, MUST_ATTACK, PENDING, UNIT_PLACED, Pending, hook)
from .match import gates_ok, matches
from .stats import has_keyword, keyword_value, keywords_named, unit_cost
from .zones import draw, move, queue, trash_from_field


# ------------------------------------------------------------- Pierce 10.2.3.2

@hook(BATTLE_WON, "pierce")
def _pierce_won(g, p, atk, s):
    n = keyword_value(g, s, "pierce")                 # 10.2.3.2.3: the highest value
    return (K.K_PIERCE, n) if n else None


def _pierce(g, p, iid, stamp, n, arg2):               # 10.2.3.2.2
    damage_occurs(g, ((1 - p, n),))                   # 4.5.2: its damage window first


# ------------------------------------------------------------ Plunder 10.2.3.3

@hook(BATTLE_WON, "plunder")
def _plunder_won(g, p, atk, s):
    n = keyword_value(g, s, "plunder")                # 10.2.3.3.3
    return (K.K_PLUNDER, n) if n else None


def _draw(g, p, iid, stamp, n, arg2):                 # 10.2.3.3.2, 10.2.6.4.3
    draw(g, p, n)


# ------------------------------------------------------- Breakthrough 10.2.3.4

@hook(ATTACK_DECLARED, "breakthrough")
def _breakthrough_declared(g, s, b):
    b[K.B_BREAK] = tuple(k.key for k in keywords_named(g, s, "breakthrough"))


@hook(CAN_DEFEND, "breakthrough")
def _breakthrough_blocks(g, iid):                     # 10.2.3.4.2-4
    for key in g.battle[K.B_BREAK]:
        f = g.db.keywords[key].filter
        if f.is_empty() or matches(g, iid, f):
            return False
    return True


# ----------------------------------------------------------- Duelist 10.2.3.5

@hook(ATTACK_DECLARED, "duelist")
def _duelist_declared(g, s, b):                       # 10.2.3.5.2
    b[K.B_DUEL] = has_keyword(g, s, "duelist") and g.unit[(1 - s // 3) * 3 + s % 3] >= 0


# -------------------------------------------------------- Infiltrate 10.2.3.6

@hook(BATTLE_STEP, "infiltrate")
def _infiltrate_step(g, p, atk, s):
    n = keyword_value(g, s, "infiltrate")             # 10.2.3.6.2-3
    if n:
        queue(g, K.AUTO, p, K.K_INFILTRATE, atk, n)


def _infiltrate(g, p, iid, stamp, n, arg2):
    b = g.battle
    if b is None or b[K.B_DEF] < 0 or g.where[b[K.B_DEF]] >> 2 != K.Z_UNIT:
        draw(g, p, n)


# ------------------------------------------------------------ Finale 10.2.4.2

@hook(DEFENSE_DECLARED, "finale")
def _finale_declared(g, q, iid, s):
    if has_keyword(g, s, "finale"):
        queue(g, K.AUTO, q, K.K_FINALE, iid)


def _finale(g, p, iid, stamp, arg, arg2):             # 10.2.4.2.2
    if g.battle is not None:
        g.battle[K.B_STEP] = K.BS_END
    trash_from_field(g, iid, by_effect=True)


# ------------------------------------------------ Mutual Destruction 10.2.5.2

@hook(LEFT_FIELD, "mutual_destruction")
def _mutual_left(g, p, iid, k, by_battle, by_effect, other):
    if by_battle and other >= 0:                      # 10.2.5.2.2
        queue(g, K.AUTO, p, K.K_MUTUAL, iid, other, g.stamp[other])


def _mutual(g, p, iid, stamp, other, other_stamp):
    """10.2.5.2.3: if this card's cost is at least the cost of the unit that trashed it in
    battle, that unit (still on the field) is trashed.  10.2.5.2.4: this card's cost is the
    cost of the card lying in the trash when the effect resolves -- its printed cost, what
    effects did to it on the field having ended when it left -- so a card no longer there
    (moved on since it was trashed) has no cost to compare and nothing happens.  The other
    unit's cost is its cost on the field now, effects included (``stats.unit_cost``)."""
    if g.stamp[iid] != stamp or g.where[iid] >> 2 != K.Z_TRASH:
        return
    if g.stamp[other] == other_stamp and g.where[other] >> 2 == K.Z_UNIT and \
            g.card(iid).cost >= unit_cost(g, other):
        trash_from_field(g, other, by_effect=True)


# ------------------------------------------------------------ Return 10.2.5.3

@hook(LEFT_FIELD, "return")
def _return_left(g, p, iid, k, by_battle, by_effect, other):
    if by_battle or by_effect:                        # 10.2.5.3.2
        queue(g, K.AUTO, p, K.K_RETURN, iid)


def _return(g, p, iid, stamp, arg, arg2):             # 10.2.5.3.3: at the end of the turn
    g.delayed.append((iid, g.stamp[iid]))


def _return_to_hand(g, p, iid, stamp, arg, arg2):     # 10.2.5.3.3-4
    if g.stamp[iid] == stamp and g.where[iid] >> 2 == K.Z_TRASH:
        move(g, iid, K.Z_HAND)
        g.log.append(ReturnToHand(g.card(iid).id, iid, p))


# --------------------------------------------------------- Berserker 10.2.6.2

@hook(MUST_ATTACK, "berserker")
def _berserker(g, s):                                 # 10.2.6.2.3
    return has_keyword(g, s, "berserker") and can_attack(g, s % 3)


# ---------------------------------------------------------- Guardian 10.2.6.3

def _barrier_payable(g, s, k):                        # 10.2.6.3.4.1
    return len(g.hand[s // 3]) >= k.n


def _barrier_candidates(g, s, k):
    return list(g.hand[s // 3]), k.n, K.P_BARRIER


def _barrier_pay(g, q, iid):
    move(g, iid, K.Z_TRASH)
    g.log.append(Discard(q, g.card(iid).id, iid, "barrier"))


def _others(g, s):
    q = s // 3
    return [g.unit[q * 3 + lane] for lane in range(3)
            if g.unit[q * 3 + lane] >= 0 and q * 3 + lane != s]


def _sacrifice_payable(g, s, k):                      # 10.2.6.3.4.2
    return len(_others(g, s)) >= k.n


def _sacrifice_candidates(g, s, k):
    return _others(g, s), k.n, K.P_SACRIFICE


def _offset_payable(g, s, k):                         # 10.2.6.3.4.3
    return any(matches(g, it, k.filter) for it in g.items[s])


def _offset_candidates(g, s, k):
    return [it for it in g.items[s] if matches(g, it, k.filter)], 1, K.P_OFFSET


def _trash_paid(g, q, iid):
    trash_from_field(g, iid, by_effect=True, pays="guardian")


GUARDIAN["barrier"] = (_barrier_payable, _barrier_candidates, _barrier_pay)
GUARDIAN["sacrifice"] = (_sacrifice_payable, _sacrifice_candidates, _trash_paid)
GUARDIAN["offset"] = (_offset_payable, _offset_candidates, _trash_paid)


def guardian_payable(g, s, k) -> bool:
    return GUARDIAN[k.guardian][0](g, s, k)


# ------------------------------------------------------------ Credit 10.2.6.4

@hook(UNIT_PLACED, "credit")
def _credit_placed(g, p, iid, k):                     # 10.2.6.4.3
    if not k.gates or gates_ok(g, p, iid, k.gates):
        queue(g, K.CONT, p, K.K_CREDIT_DRAW, iid, k.n)


@hook(LEFT_FIELD, "credit")
def _credit_left(g, p, iid, k, by_battle, by_effect, other):     # 10.2.6.4.4
    queue(g, K.CONT, p, K.K_CREDIT_DISCARD, iid, k.n)


def _credit_discard(g, p, iid, stamp, n, arg2):
    g.stack.append((K.T_DISCARD, p, n, K.P_CREDIT))


# ------------------------------------------------------ waiting effects (8.4)

PENDING.update({
    K.K_PIERCE: Pending("pierce", True, True, _pierce),
    K.K_PLUNDER: Pending("plunder", True, True, _draw),
    K.K_INFILTRATE: Pending("infiltrate", True, True, _infiltrate),
    K.K_FINALE: Pending("finale", True, False, _finale),
    K.K_MUTUAL: Pending("mutual_destruction", False, False, _mutual),
    K.K_RETURN: Pending("return", False, False, _return),
    K.K_CREDIT_DRAW: Pending("credit", False, True, _draw),
    K.K_CREDIT_DISCARD: Pending("credit", False, True, _credit_discard),
    K.K_RETURN_HAND: Pending("return", False, False, _return_to_hand),
})

