"""Resolving effects: frames, batches of simultaneous effects, sub-keyword effects.

A *frame* resolves one ability, one action per step of the main loop, as a
tuple on the work stack ``(T_FRAME, player, self_iid, ability_key, step, sub,
picked, did, part)``: when an action needs a choice the frame stays on the stack and
the engine stops with a decision, so a game can pause, be cloned or be
serialised in the middle of any effect.  An action with a choice done to each player
("each player discards a card") is carried out in *parts*, one per player, the turn
player's first (1.3.5.1), each player making their own choice; ``part`` says whose turn
it is, and ``did`` then says whether an earlier part did anything.

Automatic effects that trigger wait in ``Game.pend`` until the current
procedure reaches a checkpoint (8.4.1.1, 8.4.3); then they are taken as one
*batch* and resolved turn player's continuous, opponent's continuous, turn
player's automatic, opponent's automatic (8.1.3.2.3), each player ordering their
own (1.3.5).  Effects triggered meanwhile form the next batch (8.4.2).
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..cards import model as m
from . import const as K
from .events import Decline, Discard, Effect, EffectEnd, Fizzle, Keyword
from .hooks import PENDING
from .match import condition
from .verbs import HANDLERS
from .whenever import is_whenever, kept_waiting, release
from .zones import lose, move


# frame fields
F_P, F_SELF, F_KEY, F_STEP, F_SUB, F_PICKED, F_DID, F_PART = range(1, 9)
SUB_FRESH, SUB_YES, SUB_PICKING, SUB_PICKED = range(4)


def _push_next(g, nxt: tuple, seq: tuple) -> int:
    """Push the frame's next step; returns its index.  When the step just done ends a
    group of actions joined by "additionally" (8.4.4.1), the group's marker goes above
    it, so the group's losses are settled before the effect goes on."""
    stack = g.stack
    step = nxt[F_STEP]
    if 0 < step <= len(seq) and seq[step - 1].additionally and \
            not (step < len(seq) and seq[step].additionally) and stack and \
            stack[-1][0] == K.T_LOSS_CHECK:
        marker = stack.pop()
        stack.append(nxt)
        stack.append(marker)
        return len(stack) - 2
    stack.append(nxt)
    return len(stack) - 1


def push_frame(g, p: int, self_iid: int, ab: m.Ability) -> None:
    g.stack.append((K.T_FRAME, p, self_iid, ab.key, -1 if ab.optional else 0, SUB_FRESH, (), True,
                    0))


def each_in_turn(g, a: m.Action) -> tuple:
    """The players who carry out ``a`` one after the other, each making their own choice:
    for an action with a choice done to each player, the turn player then the other
    (1.3.5.1); () for any other action (it is carried out once, by the effect's player or
    for all its players at once, e.g. "each player draws 2")."""
    if a.player == "each" and HANDLERS[a.verb].choice is not None:
        return g.tp, 1 - g.tp
    return ()


@lru_cache(maxsize=None)
def _restated(a: m.Action, who: str) -> m.Action:
    return replace(a, player=who)


def part_action(a: m.Action, p: int, q: int) -> m.Action:
    """Player ``q``'s part of an each-player action of an effect of ``p``: the same action
    done to ``q`` alone ("you" or "opponent" as seen from ``p``; amounts are still read
    from ``p``'s side)."""
    return _restated(a, "you" if q == p else "opponent")


def hidden_last_by_card(g, chooser: int, cands: list) -> list:
    """Candidates in a zone hidden from the chooser (any deck, the other player's hand)
    listed after the others and by card, not position (3.2.2, 11.2.1): the chooser sees
    those cards while choosing, but the list must say nothing of the deck's order."""
    where, defs = g.where, g.defs
    hidden = [c for c in cands if c >= 0 and (where[c] >> 2 == K.Z_DECK or (
        where[c] >> 2 == K.Z_HAND and c // K.PER != chooser))]
    if not hidden:
        return cands
    seen = set(hidden)
    return [c for c in cands if c not in seen] + sorted(hidden, key=lambda c: (defs[c], c))


def run_frame(g, f: tuple) -> None:
    _, p, self_iid, key, step, sub, picked, did, part = f
    ab = g.db.abilities[key]
    if step < 0:                                   # "may" for the whole ability (8.1.2.2)
        if sub == SUB_YES:
            g.stack.append((K.T_FRAME, p, self_iid, key, 0, SUB_FRESH, (), True, 0))
        else:
            g.stack.append(f)
            g.dec = (K.D_YESNO, p, key, self_iid, -1)
        return
    seq = ab.sequence
    if step >= len(seq):
        g.log.append(EffectEnd(p, g.card(self_iid).id, key))
        effect_over(g)
        return
    a = seq[step]
    each = each_in_turn(g, a)
    if sub == SUB_FRESH:
        if part == 0:                              # the action as a whole
            if not a.additionally and step + 1 < len(seq) and seq[step + 1].additionally:
                g.stack.append((K.T_LOSS_CHECK, ()))   # 8.4.4.1: a group of actions starts
            if (a.if_done and not did) or \
                    (a.condition is not None and not condition(g, p, self_iid, a.condition)):
                _push_next(g, _next_step(f), seq)  # 8.3.2: condition not met, skip
                return
            if each:
                if g.cfg.simultaneous_each_player:
                    g.stack.append((K.T_LOSS_CHECK, ()))   # 8.4.4: settled once both are done
                did = False                        # from here: whether a part did anything
                f = f[:F_DID] + (did, part)
        if a.optional:                             # 8.1.2.2; each player's own "may"
            g.stack.append(f)
            g.dec = (K.D_YESNO, each[part] if each else p, key, self_iid, step)
            return
    act = part_action(a, p, each[part]) if each else a
    h = HANDLERS[a.verb]
    choose, run = h.choice, h.run
    if choose is not None and sub != SUB_PICKED:
        spec = choose(g, p, self_iid, act)
        if spec is not None:
            chooser, cands, lo, hi, purpose = spec
            left = hidden_last_by_card(g, chooser, [c for c in cands if c not in picked])
            if len(picked) < hi and left:
                if lo >= len(cands):               # 8.3.3.1: as many as possible = all of them
                    picked = tuple(cands)
                else:
                    g.stack.append(f[:F_SUB] + (SUB_PICKING,) + f[F_PICKED:])
                    g.dec = (K.D_PICK, chooser, purpose, tuple(left), len(picked) >= lo, key,
                             self_iid)
                    return
    count = h.count
    if count is not None and sub != SUB_PICKED:    # 1.3.6: choose a number, one at a time
        spec = count(g, p, self_iid, act)
        if spec is not None and len(picked) < spec[1]:
            g.stack.append(f[:F_SUB] + (SUB_PICKING,) + f[F_PICKED:])
            g.dec = (K.D_YESNO, spec[0], key, self_iid, step, len(picked), spec[1])
            return
    pos = _after_part(g, f, seq, did if each else False)   # tasks the verb pushes go above it
    if run(g, p, self_iid, act, picked):
        t = g.stack[pos]
        g.stack[pos] = t[:F_DID] + (True,) + t[F_DID + 1:]


def effect_over(g) -> None:
    """An effect's processing has ended.  If no other effect is still being processed (an
    effect resolving inside another -- the damage window of damage it deals, an Attacker
    effect of a battle it declared -- ends inside it) and no damage processing either (a
    trigger ends inside it, which checks 10 damage itself as it ends, 4.5.4.4, and holds
    other effects until then, 8.4.3): a player with 10 or more cards in their damage zone
    loses now (1.2.2.2, 9.2.1.2; the cards an effect puts there, ``to_damage``, count from
    here, not as they arrive), and the ``whenever`` effects met during it are carried out
    (8.4.1.1)."""
    if any(t[0] == K.T_FRAME or t[0] == K.T_DAMAGE_CHECK for t in g.stack):
        return
    for q in (g.tp, 1 - g.tp):
        if len(g.damage[q]) >= 10:
            lose(g, q)
    if not (g.lost[0] or g.lost[1]):
        release(g)


def _next_step(f: tuple) -> tuple:
    return (K.T_FRAME, f[F_P], f[F_SELF], f[F_KEY], f[F_STEP] + 1, SUB_FRESH, (), False, 0)


def _after_part(g, f: tuple, seq: tuple, did: bool) -> int:
    """Push what follows frame ``f``'s action (or its part of an each-player action, now
    being carried out): the next player's part, else the frame's next step, with ``did``
    (an earlier part did something).  Returns the index of the pushed frame.  After the
    last part the next step goes below the action's loss-check marker (8.4.4), so who
    lost in it is settled before the effect goes on."""
    each = each_in_turn(g, seq[f[F_STEP]])
    part = f[F_PART]
    stack = g.stack
    if part + 1 < len(each):                       # 1.3.5.1: then the other player
        stack.append(f[:F_SUB] + (SUB_FRESH, (), did, part + 1))
        return len(stack) - 1
    nxt = _next_step(f)[:F_DID] + (did, 0)
    if each and g.cfg.simultaneous_each_player:
        marker = stack.pop()
        if marker[0] != K.T_LOSS_CHECK:
            raise RuntimeError(f"each-player action: expected its loss-check marker on the "
                               f"work stack, found {marker!r}")
        pos = _push_next(g, nxt, seq)
        stack.append(marker)
        return pos
    return _push_next(g, nxt, seq)


def frame_pick(g, f: tuple, value: int) -> None:
    g.stack.append(f[:F_PICKED] + (f[F_PICKED] + (value,),) + f[F_DID:])


def frame_pass(g, f: tuple) -> None:
    """PASS on a frame: decline a "may" action (or a player's part of it), or stop
    choosing (up to)."""
    if f[F_SUB] == SUB_PICKING:
        g.stack.append(f[:F_SUB] + (SUB_PICKED,) + f[F_SUB + 1:])
    elif f[F_STEP] < 0:
        g.log.append(Decline(f[F_P], g.card(f[F_SELF]).id))
    else:
        seq = g.db.abilities[f[F_KEY]].sequence
        _after_part(g, f, seq, f[F_DID] if each_in_turn(g, seq[f[F_STEP]]) else False)


def frame_yes(g, f: tuple) -> None:
    if f[F_SUB] == SUB_PICKING:                    # one more (a count being chosen)
        frame_pick(g, f, 1)
    else:
        g.stack.append(f[:F_SUB] + (SUB_YES,) + f[F_SUB + 1:])


# ------------------------------------------------------------------- batches

def open_batch(g) -> None:
    """The waiting effects resolve now, as one batch -- but for ``whenever`` effects met
    during an effect still in progress, which wait for its end (8.4.1.1)."""
    keep = kept_waiting(g, g.pend)
    pend = [e for e in g.pend if not is_whenever(e)] if keep else g.pend
    g.pend = keep
    if pend:
        g.stack.append((K.T_BATCH, tuple(pend)))


def _next_group(g, entries) -> list:
    tp = g.tp
    for cls, q in ((K.CONT, tp), (K.CONT, 1 - tp), (K.AUTO, tp), (K.AUTO, 1 - tp)):
        mine = [i for i, e in enumerate(entries) if e[0] == cls and e[1] == q]
        if mine:
            return mine
    return []


def run_batch(g, t: tuple) -> None:
    entries = t[1]
    group = _next_group(g, entries)
    if not group:
        return
    if len(group) > 1 and entries[group[0]][0] == K.AUTO and g.cfg.choose_effect_order:
        g.stack.append(t)                          # 1.3.5: the player orders their effects
        g.dec = (K.D_PICK, entries[group[0]][1], K.P_ORDER, tuple(group), False, -1, -1)
        return
    resolve_from_batch(g, t, group[0])


def resolve_from_batch(g, t: tuple, index: int) -> None:
    entries = t[1]
    rest = entries[:index] + entries[index + 1:]
    if rest:
        g.stack.append((K.T_BATCH, rest))
    resolve_entry(g, entries[index])


def resolve_entry(g, e: tuple) -> None:
    cls, p, kind, iid, stamp, arg, arg2 = e
    moved = g.stamp[iid] != stamp
    if kind == K.K_ABILITY:
        ab = g.db.abilities[arg]
        if moved and ab.when not in (m.EXIT, "trigger"):
            g.log.append(Fizzle(p, g.card(iid).id, None, "left its zone (8.1.3.2.1)"))
            return
        if ab.condition is not None and not condition(g, p, iid, ab.condition):
            return
        g.log.append(Effect(p, g.card(iid).id, arg, ab.when))
        push_frame(g, p, iid, ab)
        return
    label = K.KIND_NAMES[kind]
    pending = PENDING[kind]                        # a sub-keyword's effect (keywords.py)
    if pending.fizzles and moved:
        g.log.append(Fizzle(p, g.card(iid).id, label, "left its zone (8.1.3.2.1)"))
        return
    g.log.append(Keyword(p, g.card(iid).id, label, arg if pending.shows_value else None))
    pending.resolve(g, p, iid, stamp, arg, arg2)


# ------------------------------------------------------------ chosen discards

def run_discard(g, t: tuple) -> None:
    """Discard ``n`` cards of the player's choice (hand limit 6.6.1.4, Credit)."""
    _, p, n, purpose = t
    hand = g.hand[p]
    if n <= 0 or not hand:
        return
    if len(hand) <= n:
        for iid in list(hand):
            _discard(g, p, iid, purpose)
        return
    g.stack.append(t)
    g.dec = (K.D_PICK, p, purpose, tuple(hand), False, -1, -1)


def discard_pick(g, t: tuple, iid: int) -> None:
    _, p, n, purpose = t
    _discard(g, p, iid, purpose)
    if n > 1:
        g.stack.append((K.T_DISCARD, p, n - 1, purpose))


def _discard(g, p: int, iid: int, purpose: int) -> None:
    move(g, iid, K.Z_TRASH)
    g.log.append(Discard(p, g.card(iid).id, iid, K.PICK_PURPOSES[purpose]))
