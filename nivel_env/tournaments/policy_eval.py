"""A policy against fixed opponents in duplicate deals, its moves batched: train.py's
evaluations.

Each seed is one deal (decks, shuffles, first player) played twice with the policy and the
opponent exchanged, the deck pairs and seeds of ``arena.head_to_head``.  The two games of a
deal are correlated, so the deal is the unit of the interval (``ratings.paired_score``),
as in ``evaluate.py agents``.

Played one game at a time, a policy spends most of an evaluation in one-row forwards.
Here a block of deals is played in lockstep (``lockstep.play_lockstep``): one forward
gives the policy's moves in every game of the block, while the opponent answers move by
move.  Blocks run through ``runner.run_tasks``, evaluate.py's path, with its progress bar:
in this process with the live policy (``workers=1``), or over worker processes that read
the policy from a policy file.  Every game and seat draws from its own generator, seeded
from the deal's seed and the seat, so results do not depend on blocks or workers.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from .arena import deals
from .lockstep import play_lockstep
from nivel_env import players

from .games import cached_agent, cached_deck
from .ratings import paired_score
from .runner import Runner, run_tasks

#: deals per lockstep block (two games each: 64 rows a forward)
BLOCK = 32


def auto_workers(games: int, opponents: int, cores: int | None = None) -> int:
    """Processes worth starting for ``games`` deals against each of ``opponents``: one per
    core while each gets two blocks or more (a worker takes a few seconds to start and
    load torch and the policy, so a small evaluation is quicker in this process).  250
    deals against two opponents on 2 cores: 18 s in this process, 12-15 s in two."""
    import os
    blocks = -(-games // BLOCK) * opponents
    return max(1, min(cores or os.cpu_count() or 1, blocks // 2))


def play_block(agent, opponent, block) -> list[tuple]:
    """The deals of ``block`` with ``agent`` (a ``PolicyAgent``) in seat 0 and then seat 1
    against ``opponent``: per deal, the agent's points in its two games (1, 0.5 or 0)."""
    games, seats, rngs = [], [], []
    for d0, d1, s in block:
        for seat in (0, 1):
            games.append((d0, d1, s, False))
            seats.append(seat)
            rngs.append([np.random.default_rng(s * 2 + p) for p in (0, 1)])
    if hasattr(opponent, "reset"):
        opponent.reset()
    played = play_lockstep(agent, games, rngs, seats=seats, opponent=opponent)
    points = [(r.returns[seat] + 1) / 2 for (r, _, _), seat in zip(played, seats)]
    return list(zip(points[0::2], points[1::2]))


def play_file_block(task) -> list[tuple]:
    """``play_block`` in a worker process: ``(policy_file, opponent_spec, block)``, the
    block's decks by name or file."""
    path, spec, block = task
    agent, opponent = cached_agent(path, 0), cached_agent(spec, 0, seat=1)
    return play_block(agent, opponent, [(cached_deck(d0), cached_deck(d1), s)
                                        for d0, d1, s in block])


def summary(pairs) -> dict:
    """Counts, score and paired 95% interval from per-deal points ``(game 1, game 2)``."""
    flat = [p for pair in pairs for p in pair]
    st = paired_score([a + b for a, b in pairs])
    return {"games": len(flat), "wins": sum(p == 1 for p in flat),
            "losses": sum(p == 0 for p in flat), "draws": sum(p == 0.5 for p in flat),
            "score": round(st["score"], 4), "low": round(st["low"], 4),
            "high": round(st["high"], 4), "deals": st["pairs"],
            "se_paired": round(st["se_paired"], 5)}


def evaluate_policy(agent, opponents: dict, decks, games: int, seed: int, *,
                    workers: int = 1, policy_file=None, deck_specs=None,
                    progress: bool = False, desc: str = "evaluation") -> dict:
    """``agent`` against each of ``opponents`` (label -> agent spec, as
    ``nivel_env.players.load`` reads it) over ``games`` duplicate deals of ``decks``:
    label -> ``summary``.

    ``workers`` > 1 plays the blocks in that many processes, which load the policy from
    ``policy_file`` (the agent's weights written there) and the decks from ``deck_specs``
    (their names or files, in the order of ``decks``); otherwise this process plays them
    with ``agent`` itself.  The bar (``progress``) counts deals."""
    remote = workers > 1
    if remote and (policy_file is None or deck_specs is None):
        raise ValueError("evaluate_policy: worker processes need policy_file and deck_specs")
    plan = deals(list(deck_specs) if remote else list(decks), games, seed)
    blocks = [plan[k:k + BLOCK] for k in range(0, len(plan), BLOCK)]
    labels = [label for label in opponents for _ in blocks]
    if remote:
        tasks = [(str(policy_file), opponents[label], b)
                 for label in opponents for b in blocks]
        fn = play_file_block
    else:
        mine = {label: players.load(spec, seed=seed) for label, spec in opponents.items()}
        tasks = [(label, b) for label in opponents for b in blocks]
        fn = partial(_local_block, agent, mine)
    done = run_tasks(tasks, Runner(workers if remote else 1), desc, progress, fn=fn,
                     size=lambda t: len(t[-1]))
    per: dict = {label: [] for label in opponents}
    for label, pairs in zip(labels, done):
        per[label].extend(pairs)
    return {label: summary(pairs) for label, pairs in per.items()}


def _local_block(agent, opponents: dict, task) -> list[tuple]:
    label, block = task
    return play_block(agent, opponents[label], block)


__all__ = ["BLOCK", "auto_workers", "deals", "evaluate_policy", "play_block", "play_file_block", "summary"]
