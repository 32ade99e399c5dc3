"""Determinization: redraw what one player cannot see, keeping what they can.

A player sees every public zone (3.1.4), their own hand (3.8.2) and the number of
cards in each hidden zone (3.1.5); they see neither the opponent's hand nor the
order of either deck (3.2.2).  ``determinize`` returns a copy of a game in which
those hidden cards are redrawn: the cards in the opponent's hand and deck are
shuffled among themselves, the player's own deck is shuffled, and the game's
random generator is reseeded.  Card instances stay where they are -- only which
card each hidden instance is changes -- so pending decisions and effects that
name instances stay valid.

Redrawing the opponent's true hidden cards keeps their multiset, i.e. their deck list,
which the player does not know (docs/rulings.md R24).  That is right for checking an
observation, which must not change under it; a search samples worlds from what it may
know instead: ``determinize(..., opponent=prior)`` draws the opponent's hidden cards from
a prior that sees only ``opponent_view`` (the leader, the cards in view, the count).

Uses: the hidden-information tests (an observation must not change under
``determinize``), and search agents (``agents.search``, priors in ``agents.worlds``) that
sample worlds consistent with what they know (information-set MCTS).  While ``player``
chooses among candidates in a hidden zone (11.2.1: they look at them), those candidates
keep their cards, and so do the cards known to be in the opponent's hand (``g.known``:
revealed under 3.1.7, or gone there from an open zone).  A card revealed into a deck is
treated as unknown.

``substitute`` and ``relabel`` make the other kinds of world the hidden-information
check tries: hidden cards replaced by other cards of the pool, and hidden instances
renamed.

``who_sees`` and ``seat_event`` say the same for the event log: a card an effect moves out
of a hand or a deck without a card condition is not shown to the other player (3.1.7,
3.8.3), so its event records who could tell which card it was, and ``seat_event`` gives
the event as one seat may read it (the narration reads events through it).
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from . import const as K
from .events import Event
from .rng import next_u64, seed_state, shuffle


def determinize(g, player: int, seed: int, opponent=None):
    """A copy of ``g`` with everything ``player`` cannot see redrawn from ``seed``.

    ``opponent`` says where the opponent's hidden cards come from.  None: the true hidden
    cards, shuffled -- right where the opponent's deck list is public, and for checks that
    an observation does not change.  Else a function ``opponent(view, state) -> (state,
    cards)`` given only ``opponent_view(g, player)`` (and a generator state): it returns
    ``view.hidden`` card indices, so the world depends on nothing ``player`` cannot see
    (``agents.worlds`` has the priors a search uses, docs/rulings.md R24)."""
    state = seed_state(seed)
    defs = list(g.defs)
    seen = seen_candidates(g, player)
    for k, iids in enumerate(hidden_groups(g, player)):
        iids = [i for i in iids if i not in seen]
        if k == 0 and opponent is not None:
            state, cards = opponent(opponent_view(g, player), state)
            cards = list(cards)
            if len(cards) != len(iids):
                raise ValueError(f"determinize: the opponent's prior gave {len(cards)} cards "
                                 f"for {len(iids)} hidden ones")
        else:
            # drawn from the cards sorted, not in the order they really lie: two games that
            # differ only in what ``player`` cannot see give the same world for one seed
            cards = sorted(defs[i] for i in iids)
        state = shuffle(state, cards)
        for i, d in zip(iids, cards):
            defs[i] = d
    state, rng = next_u64(state)
    h = g.clone()
    h.set_deal(tuple(defs), rng)
    return h


class OpponentView(NamedTuple):
    """What ``player`` may know of the opponent's cards: the leader (the level zone is
    open, 3.3.2), the cards of theirs in view -- in open zones (3.1.4), known to be in
    their hand (3.1.7), or among candidates ``player`` is looking at (11.2.1) -- and how
    many are hidden (3.1.5).  Card indices of the pool (``CardDB.cards``)."""
    leader: int
    seen: tuple                # sorted
    hidden: int


def opponent_view(g, player: int) -> OpponentView:
    """``OpponentView`` of ``g`` for ``player``: built from the cards ``player`` sees only."""
    opp = 1 - player
    looking = seen_candidates(g, player)
    hidden = [i for i in hidden_groups(g, player)[0] if i not in looking]
    mine = set(hidden)
    cards = [i for i in g.hand[opp] + g.deck[opp] if i not in mine]       # known, looked at
    cards += [i for i in g.unit[opp * 3:opp * 3 + 3] if i >= 0]
    for lane in range(3):
        cards += g.items[opp * 3 + lane]
    cards += g.skill[opp] + g.trash[opp] + g.damage[opp]
    return OpponentView(g.defs[opp * K.PER], tuple(sorted(g.defs[i] for i in cards)),
                        len(hidden))


def hidden_groups(g, player: int) -> tuple[list, list]:
    """The instances ``player`` cannot see, by owner: the opponent's hand (less the cards
    known to be there, ``g.known``) and deck, and the player's own deck."""
    opp = 1 - player
    known = g.known[opp]
    return [i for i in g.hand[opp] if i not in known] + g.deck[opp], list(g.deck[player])


def seen_candidates(g, player: int) -> set:
    """Candidates of ``player``'s pending pick: visible to them while they choose."""
    d = g.dec
    if g.result is None and d[0] == K.D_PICK and d[1] == player and d[2] != K.P_ORDER:
        return {v for v in d[3] if v >= 0}
    return set()


def substitute(g, player: int, seed: int, own_deck: bool = True, keep=(),
               reseed: bool = True):
    """A copy of ``g`` in which every card ``player`` cannot see is replaced by a card drawn
    from the whole pool (units, items and skills), not only shuffled.  ``own_deck=False``
    leaves the cards of the player's own deck as they are (only the opponent's change): a
    player knows their own deck list, so an agent may use it (docs/rulings.md R24).
    Instances in ``keep`` keep their cards, and ``reseed=False`` keeps the game's generator:
    the narration check plays the same moves on in both games (``checks.hidden``)."""
    state = seed_state(seed)
    pool = [c.index for c in g.db.cards if c.type != "leader"]
    defs = list(g.defs)
    seen = seen_candidates(g, player) | set(keep)
    for group in hidden_groups(g, player)[:None if own_deck else 1]:
        for i in group:
            if i not in seen:
                state, r = next_u64(state)
                defs[i] = pool[r % len(pool)]
    rng = next_u64(state)[1] if reseed else g.rng
    h = g.clone()
    h.set_deal(tuple(defs), rng)
    return h


def relabel(g, player: int, seed: int, keep=()):
    """A copy of ``g`` in which the instances ``player`` cannot see are renamed: each
    owner's hidden instances permuted among themselves, every card staying where it is.
    Instances named by pending effects, and those in ``keep``, are left alone."""
    h = g.clone()
    state = seed_state(seed)
    named = _named_elsewhere(g) | set(keep)
    perm = {}
    for group in hidden_groups(g, player):
        ids = sorted(i for i in group if i not in named)
        new = ids[:]
        state = shuffle(state, new)
        perm.update(zip(ids, new))
    if not perm:
        return h
    defs, where, stamp = list(h.defs), h.where[:], h.stamp[:]
    for old, new in perm.items():
        defs[new], where[new], stamp[new] = g.defs[old], g.where[old], g.stamp[old]
    h.defs, h.where, h.stamp = tuple(defs), where, stamp
    ren = lambda lst: [perm.get(i, i) for i in lst]          # noqa: E731
    h.hand = [ren(x) for x in h.hand]
    h.deck = [ren(x) for x in h.deck]
    d = h.dec
    if d is not None and d[0] == K.D_PICK and d[2] != K.P_ORDER:
        h.dec = d[:3] + (tuple(perm.get(v, v) if v >= 0 else v for v in d[3]),) + d[4:]
    h.dirty, h._legal = True, None
    return h


def _named_elsewhere(g) -> set:
    """Every int inside pending state (stack, pending and delayed effects, modifiers): an
    instance named there must keep its name."""
    out: set = set()

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, int) and not isinstance(x, bool):
            out.add(x)
    walk((g.stack, g.pend, g.delayed, g.mods, g.battle, g.used, g.attacked))
    return out


def who_sees(g, iid: int) -> tuple:
    """The players who can tell which card instance ``iid`` is, where it lies now: both in
    an open zone (3.1.4); in a hand its owner (3.8.2), and the other player too while it is
    known to be there (``g.known``: revealed under 3.1.7, or gone there from an open zone);
    in a deck nobody (3.2.2)."""
    z = g.where[iid] >> 2
    owner = iid // K.PER
    if z == K.Z_DECK:
        return ()
    if z == K.Z_HAND:
        return (0, 1) if iid in g.known[owner] else (owner,)
    return (0, 1)


def seat_event(e: Event, viewer: int) -> Event:
    """Event ``e`` as ``viewer`` may read it: without the card it names (``card`` and
    ``iid`` None, left out of ``to_dict``) when that seat may not know it -- the other
    player's search (its card is shown by a separate ``reveal`` event when the search has
    a card condition, 3.1.7), and a card moved out of a hand or deck by an effect that the
    seat could not tell (the event's ``seen_by``, 3.8.3) -- and without the instance
    (``iid`` None) of a card put into a deck (3.2.2: once there, which copy comes out
    later is not something any seat can tell)."""
    seen_by = getattr(e, "seen_by", None)
    if (seen_by is not None and viewer not in seen_by) or \
            (e.kind == "search" and e.player != viewer):
        return replace(e, card=None, iid=None)
    if getattr(e, "iid", None) is not None and \
            (e.kind == "to_deck_bottom" or getattr(e, "to", None) == "deck"):
        # 3.2.2: into a deck, where no one may see the cards, no one can follow one copy
        # of a card from another: the card may be named, its instance is not told
        return replace(e, iid=None)
    return e


__all__ = ["OpponentView", "determinize", "opponent_view", "relabel", "seat_event",
           "substitute", "who_sees"]

