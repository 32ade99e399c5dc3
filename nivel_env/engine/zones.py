"""Moving cards between zones, and the automatic effects those moves cause.

Every move goes through ``put``/``take`` so that ``where`` and ``stamp`` are always
right: a card that moved is a new object for the rules (8.1.3.2.1), which the
engine checks by comparing stamps, and modifiers on it end (they are pruned here).
"""
from __future__ import annotations

from ..cards import model as m
from . import const as K
from .events import DeckOut, Draw, Place, Trash
from .hooks import ACTION_DONE, LEFT_FIELD, UNIT_PLACED
from .match import gates_ok
from .stats import ensure


def _pile(g, zone: int, p: int) -> list | None:
    """The list holding a player's cards of a zone without lanes."""
    return (g.deck[p], g.hand[p], None, None, g.skill[p], g.trash[p], g.damage[p])[zone] \
        if 0 <= zone <= K.Z_DAMAGE else None


def _done(g, zone: int, src: int, p: int) -> None:
    """A card of ``p`` was moved into the trash (from the hand: a discard) or the damage zone
    (``move``; a position being built with ``put`` is no action): the abilities watching
    such an action hear of it (8.4.1.1, ``hooks.ACTION_DONE``)."""
    for h in ACTION_DONE.values():
        if zone == K.Z_DAMAGE:
            h(g, "damage", p, 1)
        else:
            if src == K.Z_HAND:
                h(g, "discard", p, 1)
            h(g, "trash", p, 1)


def take(g, iid: int) -> None:
    """Remove a card from wherever it is -- never a leader from the level zone, which no
    effect or rule can make it leave (3.3.4): the verbs skip a leader (``verbs._takes``), so
    reaching here with one is an engine error, refused before anything moves."""
    w = g.where[iid]
    z, lane, p = w >> 2, w & 3, iid // K.PER
    if z == K.Z_LEVEL:
        raise RuntimeError(f"3.3.4: the leader {g.card(iid).id} cannot leave the level zone")
    if z == K.Z_UNIT:
        g.unit[p * 3 + lane] = -1
    elif z == K.Z_ITEM:
        g.items[p * 3 + lane].remove(iid)
    else:
        pile = _pile(g, z, p)
        if pile is not None:
            pile.remove(iid)
            if z == K.Z_HAND and iid in g.known[p]:
                g.known[p].remove(iid)


#: zones every player sees: a card going from one of these into a hand stays known
_OPEN = (K.Z_UNIT, K.Z_ITEM, K.Z_SKILL, K.Z_TRASH, K.Z_DAMAGE, K.Z_LEVEL)


def put(g, iid: int, zone: int, lane: int = 3, bottom: bool = False) -> None:
    """Place a card (already taken) into a zone of its owner (4.2.2)."""
    p = iid // K.PER
    if zone == K.Z_UNIT:
        g.unit[p * 3 + lane] = iid
    elif zone == K.Z_ITEM:
        g.items[p * 3 + lane].append(iid)
    elif zone == K.Z_DECK and bottom:
        g.deck[p].insert(0, iid)              # the top of the deck is the end of the list
    else:
        _pile(g, zone, p).append(iid)
        if zone == K.Z_HAND and g.where[iid] >> 2 in _OPEN and iid not in g.known[p]:
            g.known[p].append(iid)              # the other player saw it go (3.1.4)
    g.where[iid] = zone * 4 + lane
    g.stamp[iid] += 1
    if g.mods:
        g.mods = [md for md in g.mods if md[1] != iid or md[0] == K.M_SIZE]
    g.dirty = True


# ------------------------------------------------------- simultaneous actions (8.4.4)
# One simultaneous action -- damage an effect deals to each player (8.4.4), or actions
# joined by "additionally" (8.4.4.1) -- has a ``(T_LOSS_CHECK, losers)`` marker on the work
# stack below the tasks it makes.  Until the marker is reached, a player who meets a loss
# condition is only noted in it, and a unit whose power reached 0 stays (1.3.7.3 waits):
# both are handled once every part is done, so both players losing there is a draw.

def continues_group(g, f: tuple) -> bool:
    """Whether frame ``f`` (on the stack, about to run its step) is in the middle of one
    simultaneous action: a group of actions joined by "additionally", or an action with a
    choice done to each player, past the turn player's part (8.4.4, 1.3.5.1)."""
    if f[8] > 0:
        return True
    seq = g.db.abilities[f[3]].sequence
    step = f[4]
    return 0 < step < len(seq) and seq[step].additionally


def _marker(g) -> int:
    """Index of the marker of the simultaneous action in progress, else -1."""
    stack = g.stack
    for i in range(len(stack) - 1, -1, -1):
        kind = stack[i][0]
        if kind == K.T_LOSS_CHECK:
            return i
        if kind == K.T_FRAME and not continues_group(g, stack[i]):
            return -1                              # another effect's actions: not ours
    return -1


def in_simultaneous_action(g) -> bool:
    return _marker(g) >= 0


def lose(g, p: int) -> None:
    """``p`` meets a loss condition (1.2.2): at once, or inside a simultaneous action once
    all of it is done (8.4.4, 1.2.3)."""
    i = _marker(g)
    if i < 0:
        g.lost[p] = True
        return
    t = g.stack[i]
    if p not in t[1]:
        g.stack[i] = (K.T_LOSS_CHECK, t[1] + (p,))


def loss_check(g, t: tuple) -> None:
    """The end of a simultaneous action: who met a loss condition in it loses (or, inside
    an enclosing one, is noted there)."""
    for p in t[1]:
        lose(g, p)


def move(g, iid: int, zone: int, lane: int = 3, bottom: bool = False) -> None:
    src = g.where[iid] >> 2
    take(g, iid)
    put(g, iid, zone, lane, bottom)
    if zone == K.Z_TRASH or zone == K.Z_DAMAGE:
        _done(g, zone, src, iid // K.PER)


def draw(g, p: int, n: int) -> int:
    """Draw n cards (4.4.3); an empty deck when a draw is due loses (1.2.2.4)."""
    done = 0
    for _ in range(n):
        if not g.deck[p]:
            g.log.append(DeckOut(p))
            lose(g, p)
            break
        iid = g.deck[p].pop()
        g.hand[p].append(iid)
        g.where[iid] = K.Z_HAND * 4 + 3
        g.stamp[iid] += 1
        done += 1
    if done:
        g.dirty = True      # hand size feeds conditions (hand_at_least / hand_at_most)
        g.log.append(Draw(p, done))
        for h in ACTION_DONE.values():                             # 8.4.1.1
            h(g, "draw", p, done)
    return done


def queue(g, cls: int, p: int, kind: int, self_iid: int, arg=0, arg2=0) -> None:
    g.pend.append((cls, p, kind, self_iid, g.stamp[self_iid], arg, arg2))


def unit_abilities(g, iid: int):
    """(ability, source card) pairs a unit has: its own, then its items' (8.6.1)."""
    c = g.card(iid)
    out = [(a, iid) for a in c.abilities]
    w = g.where[iid]
    if w >> 2 == K.Z_UNIT:
        for it in g.items[(iid // K.PER) * 3 + (w & 3)]:
            out.extend((a, it) for a in g.card(it).abilities)
    return out


def trigger_timing(g, iid: int, timing: str) -> None:
    """Queue a unit's automatic abilities of one timing (their gates checked now)."""
    p = iid // K.PER
    for a, _src in unit_abilities(g, iid):
        if a.when == timing and (not a.gates or gates_ok(g, p, iid, a.gates)):
            queue(g, K.AUTO, p, K.K_ABILITY, iid, a.key)


def place_unit(g, iid: int, lane: int) -> None:
    """A unit card enters a unit zone (3.5.3): Entry (10.1.2.2), then the handlers of the
    sub-keywords it has as it arrives (Credit, 10.2.6.4.3): its printed ones and those a
    passive ability grants it (10.2.6.4.2: Credit is a continuous effect of the unit, from
    wherever it comes), as leaving the field reads them (``trash_from_field``)."""
    move(g, iid, K.Z_UNIT, lane)
    g.log.append(Place(g.card(iid).id, iid, iid // K.PER, lane))
    trigger_timing(g, iid, m.ENTRY)
    p = iid // K.PER
    ensure(g)
    for k in g.kws[p * 3 + lane]:
        h = UNIT_PLACED.get(k.term)
        if h is not None:
            h(g, p, iid, k)


def trash_from_field(g, iid: int, by_effect: bool, by_battle: bool = False,
                     other: int = -1, upgrade: bool = False, pays: str | None = None) -> None:
    """Trash a unit, item or skill from the field (``pays``: "guardian" where it pays for
    Guardian, 10.2.6.3.4.2-3, recorded in its event).

    A unit's items go first, not by effect (3.5.6.1).  A unit trashed by battle
    or effect fires Exit (10.1.7.2; not for an upgrade, 10.1.7.2.2); then each keyword it
    had is asked what leaving does (Return, Mutual Destruction, Credit: ``keywords.py``).
    """
    w = g.where[iid]
    z = w >> 2
    p = iid // K.PER
    if z == K.Z_UNIT:
        s = p * 3 + (w & 3)
        exits = []
        if by_effect or by_battle:
            exits = [a for a, _src in unit_abilities(g, iid)
                     if a.when == m.EXIT and (not a.gates or gates_ok(g, p, iid, a.gates))]
        ensure(g)
        subs = list(g.kws[s])
        for it in list(g.items[s]):
            move(g, it, K.Z_TRASH)
            g.log.append(Trash(g.card(it).id, it, p, "rule"))
        move(g, iid, K.Z_TRASH)
        reason = "battle" if by_battle else "effect" if by_effect else "upgrade" if upgrade else "rule"
        g.log.append(Trash(g.card(iid).id, iid, p, reason, pays))
        for a in exits:                                  # 10.1.7.2.1: resolves from the trash
            queue(g, K.AUTO, p, K.K_ABILITY, iid, a.key)
        for k in subs:
            h = LEFT_FIELD.get(k.term)
            if h is not None:
                h(g, p, iid, k, by_battle, by_effect, other)
    elif z in (K.Z_ITEM, K.Z_SKILL):
        move(g, iid, K.Z_TRASH)
        g.log.append(Trash(g.card(iid).id, iid, p, "effect" if by_effect else "rule", pays))


def leave_field(g, iid: int, zone: int, bottom: bool = False) -> None:
    """A unit/item/skill goes to hand or deck; a unit's items are trashed (3.5.6.1)."""
    w = g.where[iid]
    p = iid // K.PER
    if w >> 2 == K.Z_UNIT:
        for it in list(g.items[p * 3 + (w & 3)]):
            move(g, it, K.Z_TRASH)
    move(g, iid, zone, bottom=bottom)
