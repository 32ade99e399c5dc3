"""Hidden information: a player's observation and mask are functions of what that
player may see (3.1.4, 3.1.5, 3.2.2, 3.8.2) and nothing else.

Positions come from games stepped through the AEC environment, so the mask checked
is the one agents receive.  At each position and for each player, worlds redrawn
by ``determinize`` (the opponent's hand and deck, the player's own deck order, the
game's generator) must leave the observation and mask byte-identical, while
swapping a card of the player's own hand must change them.
"""
from __future__ import annotations

import numpy as np

from ..engine import const as K
from ..engine.hidden import determinize
from ..engine.rng import next_u64, seed_state


def hidden_info_errors(deck_0, deck_1, seed: int, config=None, worlds: int = 3,
                       every: int = 4) -> tuple[list[str], int]:
    """(errors, positions checked) for one random game of ``seed``, checking every
    ``every``-th decision."""
    from ..env.aec import raw_env
    from ..env.encoder import Encoder
    e = raw_env(decks=(deck_0, deck_1), config=config, card_db=deck_0.db)
    e.reset(seed=seed)
    enc = Encoder(deck_0.db)
    state, step, checked, out = seed_state(seed ^ 0x41DE), 0, 0, []
    while not e.game.is_terminal():
        g = e.game
        legal = g.legal_actions()
        for p, agent in enumerate(e.agents):
            o = e.observe(agent)
            mask = o["action_mask"]
            want = np.zeros_like(mask)
            if g.current_player == p:
                want[legal] = 1
            if not np.array_equal(mask, want):
                out.append(f"decision {step}: {agent}'s mask is not legal_actions() "
                           f"({np.flatnonzero(mask).tolist()} vs {legal})")
            if step % every:
                continue
            checked += 1
            for w in range(worlds):
                h = determinize(g, p, seed=seed * 7919 + step * 31 + p * 7 + w)
                hl = h.legal_actions() if h.current_player == p else None
                if hl is not None and hl != legal:
                    out.append(f"decision {step}: redrawing what {agent} cannot see changes "
                               f"their legal actions ({legal} -> {hl})")
                if not np.array_equal(enc.encode(h, p, hl), o["observation"]):
                    out.append(f"decision {step} ({K.DECISION_NAMES[g.dec[0]]}): redrawing "
                               f"what {agent} cannot see changes their observation")
                    break
            h = _swap_own_hand_card(g, p)
            if h is not None:
                hl = h.legal_actions() if h.current_player == p else None
                if np.array_equal(enc.encode(h, p, hl), o["observation"]):
                    out.append(f"decision {step}: {agent}'s observation does not show "
                               f"their own hand (a swapped card changes nothing)")
        if out:
            return out, checked
        state, r = next_u64(state)
        e.step(legal[r % len(legal)])
        step += 1
    return out, checked


def _swap_own_hand_card(g, p: int):
    """A copy with player p's first hand card swapped for a different card of their
    deck, or None when there is no such pair."""
    if not g.hand[p]:
        return None
    defs = list(g.defs)
    a = g.hand[p][0]
    b = next((d for d in g.deck[p] if defs[d] != defs[a]), None)
    if b is None:
        return None
    h = g.clone()
    defs[a], defs[b] = defs[b], defs[a]
    h.defs, h.dirty, h._legal = tuple(defs), True, None
    return h


__all__ = ["hidden_info_errors"]
