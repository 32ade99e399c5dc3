"""Determinization: redraw what one player cannot see, keeping what they can.

A player sees every public zone (3.1.4), their own hand (3.8.2) and the number of
cards in each hidden zone (3.1.5); they see neither the opponent's hand nor the
order of either deck (3.2.2).  ``determinize`` returns a copy of a game in which
those hidden cards are redrawn: the cards in the opponent's hand and deck are
shuffled among themselves, the player's own deck is shuffled, and the game's
random generator is reseeded.  Card instances stay where they are -- only which
card each hidden instance is changes -- so pending decisions and effects that
name instances stay valid.

Uses: the hidden-information tests (an observation must not change under
``determinize``), and search agents that sample worlds consistent with what they
know (information-set MCTS).  Cards the player saw move into a hidden zone (a
salvaged card, 3.1.7) are treated as unknown: the observation does not track them.
"""
from __future__ import annotations


from .rng import next_u64, seed_state, shuffle


def determinize(g, player: int, seed: int):
    """A copy of ``g`` with everything ``player`` cannot see redrawn from ``seed``."""
    h = g.clone()
    state = seed_state(seed)
    defs = list(h.defs)
    opp = 1 - player
    for iids in (h.hand[opp] + h.deck[opp], h.deck[player]):
        cards = [defs[i] for i in iids]
        state = shuffle(state, cards)
        for i, d in zip(iids, cards):
            defs[i] = d
    h.defs = tuple(defs)
    state, h.rng = next_u64(state)
    h.dirty, h._legal = True, None
    return h


__all__ = ["determinize"]

