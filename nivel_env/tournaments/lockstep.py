"""Many games in lockstep under one policy, one network forward per step for all of them.

A policy's forward for one position costs nearly what one for sixty-four does, so a deck
benchmark piloted by a trained policy spends most of its time in one-row forwards when
games run one at a time.  ``play_lockstep`` plays a block of games side by side: at each
step every game waiting on the policy contributes its observation to one batch, and the
moves come back together.

It plays exactly the games ``nivel_env.tournaments.arena.play_game`` would: each game and seat gets its
own generator, seeded as evaluate.py seeds a seat's agent for that game, and each row's
move is chosen with that generator from the row's logits (``PolicyAgent.choose``), a
forced move skips the network when the agent would skip it.  (A batched forward may
differ from a one-row one in the last bits of a logit; a move can only change where two
moves tie to those bits.)
"""
from __future__ import annotations

import numpy as np

from nivel_env.engine import N_ACTIONS, new_game
from nivel_env.env.encoder import make_encoder
from nivel_env.players import (ask, inform, informed, observation_layout, reads_game, reseed,
                               use_card_pool)

from .arena import CardLog, GameResult


def play_lockstep(agent, games, rngs, record: bool = False, cards: bool = False,
                  seats=None, opponent=None) -> list:
    """Play ``games`` (``(deck_0, deck_1, seed, mirror)``) with ``agent`` (a
    ``PolicyAgent``) in both seats; ``rngs[i][seat]`` is game i's generator for that seat.
    With ``seats`` and ``opponent``, ``agent`` plays only seat ``seats[i]`` of game i and
    ``opponent`` (any agent whose only state between games is its ``rng``) the other, one
    move at a time as ``play_game`` asks it, with that seat's generator: a policy against
    fixed opponents, its forwards still batched over every game.
    Returns per game ``(GameResult, actions or None, CardLog.sides() or None)``."""
    if (seats is None) != (opponent is None):
        raise ValueError("play_lockstep: give seats and opponent together")
    state = [new_game(d0, d1, seed=s, mirror=mirror) for d0, d1, s, mirror in games]
    enc = make_encoder(state[0].db, observation_layout(agent)) if state else None
    if state:
        use_card_pool(agent, state[0].db)
    logs = [CardLog(g) if cards else None for g in state]
    actions = [[] if record else None for _ in state]
    steps = [0] * len(state)
    forced_free = not agent.temperature and not agent.random_share
    obs = np.zeros((len(state), agent.n_obs), dtype=np.float32)
    masks = np.zeros((len(state), N_ACTIONS), dtype=bool)
    told = informed([agent] if opponent is None else [agent, opponent])

    def apply(i, a):
        g = state[i]
        if told:
            inform(told, g, g.current_player, a)
        g.apply_action(a)
        steps[i] += 1
        if record:
            actions[i].append(a)
        if logs[i] is not None:
            logs[i].update(g)

    live = list(range(len(state)))
    while live:
        waiting = []
        for i in live:
            g = state[i]
            while g.result is None:
                legal = g.legal_actions()
                if seats is not None and g.current_player != seats[i]:
                    apply(i, _move(opponent, g, legal, enc, rngs[i][g.current_player]))
                    continue
                if forced_free and len(legal) == 1:
                    apply(i, int(legal[0]))
                    continue
                k = len(waiting)
                obs[k] = enc.encode(g, g.current_player, legal)[:agent.n_obs]
                masks[k] = False
                masks[k, legal] = True
                waiting.append(i)
                break
        if not waiting:
            break
        logits = agent.logits(obs[:len(waiting)], masks[:len(waiting)])
        for k, i in enumerate(waiting):
            reseed(agent, rngs[i][state[i].current_player])
            apply(i, int(agent.choose(logits[k:k + 1], masks[k:k + 1])[0]))
        live = [i for i in live if state[i].result is None]
    return [(GameResult(g.result, g.turn, steps[i], g.first), actions[i],
             logs[i].sides() if logs[i] is not None else None) for i, g in enumerate(state)]


def _move(agent, g, legal, enc, rng) -> int:
    """``agent``'s move in ``g`` for the player to act, as ``arena.play_game`` asks it."""
    reseed(agent, rng)
    return ask(agent, g, legal=legal, encoder=enc)


def lockstep_ready(agent) -> bool:
    """Whether ``agent`` can be played in lockstep: a policy read from observations, with
    the batch pieces ``logits`` (one forward) and ``choose`` (a move per row)."""
    return hasattr(agent, "logits") and hasattr(agent, "choose") and not reads_game(agent)


__all__ = ["play_lockstep", "lockstep_ready"]
