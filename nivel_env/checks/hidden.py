"""Hidden information: everything a player's agent can read is a function of what that
player may see (3.1.4, 3.1.5, 3.2.2, 3.8.2, 11.2.1) and nothing else.

Positions come from games stepped through the AEC environment, so the mask checked is
the one agents receive.  At each checked position and for each player, four channels --
the observation, the action mask, the env's ``infos`` entry and the names of the actions
offered (``action_name``) -- must be byte-identical in worlds that differ only in what
that player cannot see:

* ``determinize``: the opponent's hand and deck, and the player's own deck, shuffled;
* ``substitute``: those cards replaced by other cards of the pool;
* ``relabel``: those card instances renamed.

The game's generator is redrawn in each.  Swapping a card of the player's own hand must
change the observation (the check would pass trivially on a blind encoder otherwise).
"""
from __future__ import annotations

import numpy as np

from ..engine.hidden import determinize, relabel, substitute
from ..engine.rng import next_u64, seed_state

CHANNELS = ("observation", "mask", "infos", "action names")


def view(enc, g, p: int) -> tuple:
    """What player ``p``'s agent can read at ``g``: (observation bytes, legal actions,
    infos entry, names of the legal actions), as the AEC environment hands them out."""
    acting = g.current_player == p
    legal = g.legal_actions() if acting else []
    obs = enc.encode(g, p, legal if acting else None).tobytes()
    info = (None if g.result is not None else
            (g.decision_name if acting else None), g.turn)
    names = tuple(g.action_name(a) for a in legal)
    return obs, tuple(legal), info, names


def hidden_info_errors(deck_0, deck_1, seed: int, config=None, worlds: int = 3,
                       every: int = 4, stats: dict | None = None) -> tuple[list[str], int]:
    """(errors, positions checked) for one random game of ``seed``, checking every
    ``every``-th decision in ``worlds`` redrawn worlds plus one substituted and one
    relabelled world.  ``stats["comparisons"]`` counts the channel comparisons made."""
    from ..env.aec import raw_env
    from ..env.encoder import Encoder
    e = raw_env(decks=(deck_0, deck_1), config=config, card_db=deck_0.db)
    e.reset(seed=seed)
    enc = Encoder(deck_0.db)
    state, step, checked, out = seed_state(seed ^ 0x41DE), 0, 0, []
    stats = stats if stats is not None else {}
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
            info = e.infos[agent]
            if info.get("decision") != (g.decision_name if g.current_player == p
                                        else None) or info.get("turn") != g.turn:
                out.append(f"decision {step}: {agent}'s infos {info} say more or less than "
                           f"the decision they face")
            if step % every:
                continue
            checked += 1
            base = view(enc, g, p)
            if base[0] != o["observation"].tobytes():
                out.append(f"decision {step}: {agent}'s env observation differs from the "
                           f"encoder's")
            errs = world_errors(enc, g, p, seed * 7919 + step * 31 + p * 7, worlds, stats,
                                base)
            out += [f"decision {step} ({g.decision_name}): {x}" for x in errs]
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


def world_errors(enc, g, p: int, seed: int, worlds: int = 3, stats: dict | None = None,
                 base: tuple | None = None) -> list[str]:
    """How player ``p``'s view (``view``) of ``g`` changes in worlds that differ only in
    what ``p`` cannot see: ``worlds`` redrawn ones, one substituted, one relabelled."""
    base = base if base is not None else view(enc, g, p)
    made = [("redrawn", determinize(g, p, seed=seed + w)) for w in range(worlds)]
    made += [("substituted", substitute(g, p, seed=seed + 101)),
             ("relabelled", relabel(g, p, seed=seed + 202))]
    for how, h in made:
        other = view(enc, h, p)
        if stats is not None:
            stats["comparisons"] = stats.get("comparisons", 0) + len(CHANNELS)
        diff = [c for c, x, y in zip(CHANNELS, base, other) if x != y]
        if diff:
            detail = ""
            if "action names" in diff or "mask" in diff:
                detail = f" ({list(zip(base[1], base[3]))[:6]} -> " \
                         f"{list(zip(other[1], other[3]))[:6]})"
            return [f"a {how} world of what player {p} cannot see changes their "
                    f"{', '.join(diff)}{detail}"]
    return []


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


__all__ = ["CHANNELS", "hidden_info_errors", "view", "world_errors"]
