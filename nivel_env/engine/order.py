"""Cards put into a deck together: their owner orders them (3.1.6).

When an effect puts several cards on the bottom of a deck at once, nothing in the effect
says in which order, so the player the deck belongs to decides it (3.1.6).  The cards go
into the deck first, as the effect moves them; then the owner picks them one at a time,
each picked card going under the deck below the ones picked before (the last one left goes
last and is the bottom card).  The deck is hidden (3.2.2): while the owner orders, they see
the cards they are ordering (they put them there) and the other player sees only that an
order is being chosen and how many cards it is (3.1.5), never which card goes where.  When
both players' decks receive several cards, the turn player orders first (1.3.5.1).

The work-stack task is ``(T_ORDER, owner, cards, source)``: the cards still to place and
the card whose effect put them there (named in the question).
"""
from __future__ import annotations

from . import const as K
from .events import CardOrder


def order_into_deck(g, cards: list, source: int) -> None:
    """After ``cards`` went to the bottom of their owners' decks at once: each owner with
    two or more of them orders theirs, the turn player first (3.1.6, 1.3.5.1)."""
    tasks = []
    for q in (g.tp, 1 - g.tp):
        mine = [c for c in cards if c // K.PER == q and g.where[c] >> 2 == K.Z_DECK]
        if len(mine) > 1:
            g.log.append(CardOrder(q, len(mine), "deck", "bottom"))
            tasks.append((K.T_ORDER, q, tuple(mine), source))
    g.stack.extend(reversed(tasks))                # the turn player's on top: theirs first


def run_order(g, t: tuple) -> None:
    """Ask the owner for the next card to go under their deck; the last one goes alone."""
    _, q, cards, source = t
    cards = tuple(c for c in cards if g.where[c] >> 2 == K.Z_DECK and c // K.PER == q)
    if len(cards) <= 1:
        for c in cards:
            _under(g, q, c)
        return
    g.stack.append((K.T_ORDER, q, cards, source))
    # listed by card, never by where they lie now (3.2.2; as effects.hidden_last_by_card)
    g.dec = (K.D_PICK, q, K.P_CARD_ORDER, tuple(sorted(cards, key=lambda c: (g.defs[c], c))),
             False, -1, source)


def order_pick(g, t: tuple, iid: int) -> None:
    """The owner picked ``iid``: it goes under their deck now."""
    _, q, cards, source = t
    _under(g, q, iid)
    g.stack.append((K.T_ORDER, q, tuple(c for c in cards if c != iid), source))


def _under(g, q: int, iid: int) -> None:
    """``iid``, already in ``q``'s deck, goes to its very bottom (the list's start)."""
    deck = g.deck[q]
    deck.remove(iid)
    deck.insert(0, iid)
