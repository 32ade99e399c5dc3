"""What the battle in progress will do, before the defending player decides how to meet it.

``battle_forecast`` reads the battle (``Game.battle``, combat.py) and the units' current
derived stats and keywords, and applies the battle rules to each choice the defending
player still has: no block, the encounter unit, a Guardian from an adjacent lane.  Only
public information goes in -- units, items and keywords on the field, their costs, the
number of cards in each zone -- never a hidden card, so it may be shown to either seat;
and it changes nothing in the game (derived values are refreshed, as ``derived`` does).

It is a forecast as things stand: effects that trigger during the battle (Attacker and
Defender abilities, Exit effects, a trigger card revealed as damage, 4.5.4.3) and the
hand cards a Guardian Barrier discards can change what happens.
"""
from __future__ import annotations

from itertools import combinations
from typing import NamedTuple, Optional

from ..cards import model as m
from ..cards.phrases import noun_phrase
from ..cards.vocab import SUBKEYWORD_BY_KEY
from . import const as K
from .combat import can_defend, defense_option, guardian_options
from .explain import unit_keywords
from .hooks import CAN_DEFEND, GUARDIAN
from .keywords import guardian_payable
from .match import gates_ok, unit_slot
from .stats import ensure, has_keyword, keyword_value, keywords_named
from .damage_window import window_effects
from .zones import trash_from_field, unit_abilities


class Unblocked(NamedTuple):
    """No unit blocks (7.4.2)."""
    damage: int                # the attacker's hit, dealt to the defending player
    draws: int                 # cards the attacking player draws (Infiltrate, 10.2.3.6)
    notes: tuple               # plain-English remarks (str)


class BlockOutcome(NamedTuple):
    """One unit blocks (7.4.3)."""
    blocker: int               # card instance of the blocking unit
    lane: int                  # its lane
    guardian: Optional[m.Keyword]   # the Guardian it steps in with (10.2.6.3); None for
                                    # the encounter unit or a unit that already blocks
    paid: tuple                # Guardian Sacrifice / Offset: the units or items of the
                               # field this way of paying trashes (one entry per way);
                               # () for the encounter unit and for Barrier (hand cards)
    attacker_power: int
    blocker_power: int
    trashed: tuple             # who the battle leaves trashed: "blocker" and/or "attacker"
    damage: int                # damage the defending player still takes (Pierce, 10.2.3.2)
    draws: int                 # cards the attacking player draws (Plunder, 10.2.3.3)
    notes: tuple               # plain-English remarks (str)


class BattleForecast(NamedTuple):
    """The battle in progress and what each way of meeting it does."""
    attacker: int              # card instance
    lane: int                  # the attacker's lane
    power: int                 # its power now
    hit: int                   # its hit now
    defending_player: int
    unblocked: Optional[Unblocked]   # None when no block is no longer possible: a unit
                                     # blocks already, or the encounter unit must (Duelist)
    blocks: tuple              # BlockOutcome per unit that may (still) block: the
                               # encounter unit first, then Guardians by lane, one per
                               # way to pay a Sacrifice or Offset
    notes: tuple               # remarks on the whole battle (Duelist, Breakthrough, ...)


def battle_forecast(g) -> BattleForecast | None:
    """The outcome of each choice the defending player has in the battle in progress, or
    None when no battle is being fought (or its attacker has left, 7.4.1, or the game is
    over).

    * ``unblocked``: the defending player takes the attacker's hit as damage (7.4.2); an
      attacker with Infiltrate makes its player draw (10.2.3.6.2, the highest value only);
    * each ``blocks`` entry: the powers compared; the attacker wins ties, so the blocker
      is trashed when the attacker's power is at least the blocker's, else the attacker
      (7.4.3).  A won battle adds the attacker's Pierce as damage (10.2.3.2) and its
      Plunder as draws (10.2.3.3); a loser with Mutual Destruction trashes the winner too
      when its cost in the trash -- printed, what effects did to it on the field gone -- is
      at least the winner's cost on the field, effects included (10.2.5.2.3-4); a blocker
      with Finale
      ends the battle at once and is trashed, by effect, with no comparison (10.2.4.2).
      Notes say what else follows (Return, Credit, Exit effects, a Defender effect, the
      Guardian payment, a 10th damage).

    Which blockers are offered follows the battle's step: while Guardian may still be
    offered (the guardian decision, or before it) the encounter unit if it may defend
    (7.3.1, Breakthrough 10.2.3.4, prohibitions 1.3.4) and the Guardians that may use it
    now (10.2.6.3.2-4, combat.guardian_options), with the payment the engine would use
    (docs/rulings.md R4): one outcome per way to pay a Sacrifice or Offset (the units or
    items it trashes, applied to a copy of the game, so a lost item's power counts), one
    for a Barrier (its discards are hand cards; powers as before them); at the defense
    decision the encounter unit; once a unit blocks, that unit.

    Effects that trigger during the battle can change the result: Attacker and Defender
    abilities, Exit effects, a trigger card revealed as damage (4.5.4.3.1), conditions
    that read the hand a Barrier discards from -- this reads the board as it is now.
    """
    b = g.battle
    if b is None or g.result is not None:
        return None
    atk = b[K.B_ATK]
    sa = unit_slot(g, atk)
    if sa < 0 or g.stamp[atk] != b[K.B_ATK_STAMP]:
        return None
    ensure(g)
    q = 1 - sa // 3
    blockers, must = _blockers(g, b, q)
    blocks = []
    for sd, k, picked in blockers:
        if k is None:
            blocks.append(_block(g, sa, sd, None, ()))
            continue
        for paid in _ways_to_pay(g, sd, k, picked):
            blocks.append(_block(_after_paying(g, paid), sa, sd, k, paid))
    blocks = tuple(blocks)
    unblocked = None if b[K.B_DEF] >= 0 or must else _unblocked(g, sa, q)
    return BattleForecast(atk, b[K.B_LANE], g.pw[sa], g.ht[sa], q, unblocked, blocks,
                          _battle_notes(g, b, sa, q))


def _blockers(g, b, q: int) -> tuple[list, bool]:
    """[(slot, Guardian keyword or None, payment picked so far)] of the units that may
    still block, and whether the encounter unit must."""
    dfn = b[K.B_DEF]
    if dfn >= 0:                                               # 7.3.3: one defender
        sd = unit_slot(g, dfn)
        return ([(sd, None, ())] if sd >= 0 and g.stamp[dfn] == b[K.B_DEF_STAMP] else []), \
            False
    for t in reversed(g.stack):                                # a Guardian being paid for
        if t[0] == K.T_GUARD:
            return [(t[1], g.db.keywords[t[2]], t[3])], False
        if t[0] == K.T_BATTLE:
            break
    d = g.dec
    step = b[K.B_STEP]
    out = []
    if step in (K.BS_GUARD, K.BS_DEFENSE) or d[0] == K.D_DEFENSE:
        lane, must = defense_option(g)                         # 7.3.1, 10.2.3.5.3
        if lane >= 0:
            out.append((q * 3 + lane, None, ()))
    else:
        must = False
    lanes = d[2] if d[0] == K.D_GUARDIAN else \
        guardian_options(g) if step == K.BS_GUARD else ()
    for lane in lanes:                                         # 10.2.6.3.2-4, R4
        s = q * 3 + lane
        k = next((k for k in keywords_named(g, s, "guardian") if guardian_payable(g, s, k)),
                 None)
        if k is not None:
            out.append((s, k, ()))
    return out, must


def _ways_to_pay(g, s: int, k, picked: tuple) -> list:
    """The sets of field cards a Guardian payment may trash (10.2.6.3.4.2-3: the player
    picks which), each a tuple; [()] for Barrier, whose discards are hand cards (hidden
    from the other player, 3.8.2)."""
    if k.guardian == "barrier":
        return [()]
    cands, need, _purpose = GUARDIAN[k.guardian][1](g, s, k)
    if len(cands) <= need:                                    # combat.run_guard: all of them
        return [tuple(cands)]
    rest = [c for c in cands if c not in picked]
    return [tuple(picked) + more for more in combinations(rest, need - len(picked))]


def _after_paying(g, paid: tuple):
    """The position once ``paid`` (cards on the field) are trashed as a Guardian payment
    (by effect, keywords._trash_paid) -- a copy; ``g`` itself is left alone."""
    if not paid:
        return g
    h = g.python_game()                  # edited below with the engine's own moves
    for iid in paid:
        trash_from_field(h, iid, by_effect=True)
    ensure(h)
    return h


def _unblocked(g, sa: int, q: int) -> Unblocked:
    hit = g.ht[sa]                                             # 7.4.2
    draws = keyword_value(g, sa, "infiltrate")                 # 10.2.3.6.2-3
    notes = []
    if draws:
        notes.append(f"Infiltrate {draws}: the attacking player draws {draws}")
    notes.extend(_damage_notes(g, q, hit))
    return Unblocked(hit, draws, tuple(notes))


def _block(g, sa: int, sd: int, guardian, paid: tuple) -> BlockOutcome:
    """One blocker's outcome, read from ``g`` (after the Guardian payment ``paid``)."""
    dfn = g.unit[sd]
    pa, pd = g.pw[sa], g.pw[sd]
    notes = []
    if guardian is not None:
        notes.append(_payment(g, guardian, paid))
    if dfn != g.battle[K.B_DEF] and _has_timing(g, dfn, m.DEFENDER):     # 7.3.2
        notes.append("its Defender effect resolves when it blocks and may change this")
    if has_keyword(g, sd, "finale"):                           # 10.2.4.2.2
        notes.append("Finale: when it blocks the battle ends and it is trashed; "
                     "the powers are not compared")
        notes.extend(_leaving_notes(g, sd, "the blocker"))
        return BlockOutcome(dfn, sd % 3, guardian, paid, pa, pd, ("blocker",), 0, 0,
                            tuple(notes))
    damage = draws = 0
    if pa >= pd:                                               # 7.4.3: ties to the attacker
        if pa == pd:
            notes.append("equal powers: the attacker wins ties")
        trashed = ["blocker"]
        damage = keyword_value(g, sa, "pierce")                # 10.2.3.2.2-3
        draws = keyword_value(g, sa, "plunder")                # 10.2.3.3.2-3
        if damage:
            notes.append(f"Pierce {damage}: the defending player still takes {damage} damage")
            notes.extend(_damage_notes(g, sd // 3, damage))
        if draws:
            notes.append(f"Plunder {draws}: the attacking player draws {draws}")
        loser, winner, names = sd, sa, ("the blocker", "attacker")
    else:
        trashed = ["attacker"]
        loser, winner, names = sa, sd, ("the attacker", "blocker")
    notes.extend(_leaving_notes(g, loser, names[0]))
    if has_keyword(g, loser, "mutual_destruction"):            # 10.2.5.2.2-4
        # the loser's cost as the card lies in the trash: printed, its field changes gone
        # (10.2.5.2.4); the winner's as it is on the field (10.2.5.2.3)
        mine, theirs = g.card(g.unit[loser]).cost, g.uc[winner]
        was = f" in the trash, {g.uc[loser]} on the field" if g.uc[loser] != mine else ""
        printed = g.card(g.unit[winner]).cost
        now = f", printed {printed}" if theirs != printed else ""
        if mine >= theirs:
            trashed.append(names[1])
            notes.append(f"Mutual Destruction: {names[0]} (cost {mine}{was}) takes the "
                         f"{names[1]} (cost {theirs}{now}) with it")
            notes.extend(_leaving_notes(g, winner, "the " + names[1]))
        else:
            notes.append(f"Mutual Destruction does nothing: {names[0]} costs {mine}{was}, "
                         f"less than the {names[1]}'s {theirs}{now}")
    return BlockOutcome(dfn, sd % 3, guardian, paid, pa, pd, tuple(trashed), damage, draws,
                        tuple(notes))


def _payment(g, k, paid: tuple) -> str:
    """A Guardian payment in words (10.2.6.3.4)."""
    if k.guardian == "barrier":
        return f"to block, its player discards {k.n} card{'s' if k.n != 1 else ''}; " \
               f"powers are as before the discard"
    names = " and ".join(g.card(i).name for i in paid)
    if k.guardian == "sacrifice":
        return f"to block, its player trashes {names}"
    return f"to block, it trashes its item {names}"


def _has_timing(g, iid: int, timing: str) -> bool:
    p = iid // K.PER
    return any(a.when == timing and (not a.gates or gates_ok(g, p, iid, a.gates))
               for a, _src in unit_abilities(g, iid))


def _leaving_notes(g, s: int, who: str) -> list:
    """What follows a unit's trip to the trash (by battle or by effect)."""
    notes = []
    for k in unit_keywords(g, s):
        if k.term == "return":                                 # 10.2.5.3
            notes.append(f"Return: {who} goes back to its owner's hand at the end of the turn")
        elif k.term == "credit":                               # 10.2.6.4.4
            notes.append(f"Credit {k.n}: {who}'s player discards {k.n}")
    if _has_timing(g, g.unit[s], m.EXIT):                      # 10.1.7
        notes.append(f"{who[0].upper() + who[1:]}'s Exit effect resolves")
    return notes


def _damage_notes(g, q: int, n: int) -> list:
    """A loss ``n`` damage would bring, from public counts: the 10th damage card (4.5.4.4)
    or an empty deck when a point is due (4.5.3)."""
    have, deck = len(g.damage[q]), len(g.deck[q])
    need = 10 - have
    if n <= 0:
        return []
    # 4.5.2: their effects for the damage resolve before it is processed
    first = [f"the defending player's effects for the damage "
             f"({', '.join(sorted({g.card(e[3]).name for e in window_effects(g, q)}))}) "
             f"resolve before it is processed"] if window_effects(g, q) else []
    if n >= need and deck >= need:
        return first + [f"with {have} damage already, the defending player reaches 10 and "
                        f"loses unless a trigger card revealed as damage stops it"]
    if deck < n:
        return first + [f"their deck holds {deck} card{'s' if deck != 1 else ''}: the "
                        f"defending player loses when it runs out, unless a trigger card "
                        f"revealed as damage stops it"]
    return first


def _battle_notes(g, b, sa: int, q: int) -> tuple:
    notes = []
    if b[K.B_DUEL]:                                            # 10.2.3.5.3
        notes.append("Duelist: no Guardian may block, and the encounter unit must block if "
                     "it can")
    for key in b[K.B_BREAK]:                                   # 10.2.3.4.2-4
        f = g.db.keywords[key].filter
        notes.append("Breakthrough: no unit may block" if f.is_empty() else
                     f"Breakthrough: {noun_phrase(f, 'unit', True)} may not block")
    se = q * 3 + b[K.B_LANE]
    enc = g.unit[se]
    if enc >= 0 and b[K.B_DEF] < 0 and not can_defend(g, se):
        if g.cant[se] & K.PROHIBIT_DEFEND:                     # 1.3.4
            notes.append("the encounter unit may not block: an effect forbids it")
        for term, allows in CAN_DEFEND.items():               # Breakthrough, 10.2.3.4.2
            if not allows(g, enc):
                notes.append(f"the encounter unit may not block: "
                             f"{SUBKEYWORD_BY_KEY[term].en}")
    if has_keyword(g, sa, "berserker"):                        # 10.2.6.2.3
        atk = g.unit[sa]
        made = sum(1 for a in g.attacked if a[0] == atk and a[1] == g.stamp[atk])
        if made < g.na[sa]:
            notes.append("Berserker: if it survives, the attacking player must attack with "
                         "it again before ending the attack phase")
    return tuple(notes)


__all__ = ["BattleForecast", "BlockOutcome", "Unblocked", "battle_forecast"]
