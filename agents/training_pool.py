"""Who the learner meets in self-play training, and how often (train.py's ``--pool``).

Four kinds of opponent, drawn per deal by relative weight: the random agent, the
heuristic, frozen snapshots of the learner and the learner itself as it is now.  The pool
holds the agents and hands the env its members and weights; the training loop
(``agents.training``) builds the policy agents (snapshots, the current learner) and adds
them.  Kept free of torch, so train.py's command line reads its defaults without it.
"""
from __future__ import annotations

import numpy as np

from . import HeuristicAgent, RandomAgent

#: pool member kinds, in --pool order
POOL_KINDS = ("random", "heuristic", "snapshots", "current")
DEFAULT_POOL = (0.1, 0.35, 0.35, 0.2)


class Pool:
    """The opponents the learner meets and how often, kept in step with the env.

    ``draw`` is ``rollout`` (one kept snapshot, drawn anew each rollout, meets every
    snapshot deal of it: one batched forward) or ``deal`` (a snapshot drawn per deal)."""

    def __init__(self, weights, seed: int, max_snapshots: int, draw: str = "rollout"):
        self.weights = dict(zip(POOL_KINDS, weights))
        self.draw = draw
        self.rng = np.random.default_rng(seed + 17)
        self.active = None                    # the snapshot of this rollout (draw=rollout)
        self.random, self.heuristic = RandomAgent(seed), HeuristicAgent(seed)
        self.random.label, self.heuristic.label = "random", "heuristic"
        self.snapshots: list = []
        self.current = None
        self.max_snapshots = max_snapshots
        self.seed = seed

    def members(self):
        """(agents, weights) for SelfPlayVecEnv.set_opponents."""
        w = self.weights
        agents, weights = [self.random, self.heuristic], [w["random"], w["heuristic"]]
        snap_share = w["snapshots"]
        if self.current is not None:
            if not self.snapshots:                  # no snapshot yet: the current policy
                snap_share, cur = 0.0, w["current"] + w["snapshots"]
            else:
                cur = w["current"]
            agents.append(self.current)
            weights.append(cur)
        playing = self.snapshots if self.draw == "deal" else \
            [self.active] if self.active is not None else []
        for s in playing:
            agents.append(s)
            weights.append(snap_share / len(playing))
        if sum(weights) <= 0:                       # e.g. only snapshots, none yet
            weights[0] = 1.0
        return agents, weights

    def snapshot_seed(self, step: int) -> int:
        """The generator seed of the snapshot taken at learner step ``step``."""
        return self.seed * 7919 + step

    def add_snapshot(self, agent) -> None:
        """Keep ``agent`` (a frozen copy of the learner) as a snapshot; the oldest past
        ``max_snapshots`` leaves."""
        agent.label = "snapshot"
        self.snapshots.append(agent)
        del self.snapshots[:-self.max_snapshots]
        if self.active not in self.snapshots:
            self.next_rollout()

    def wants_current(self) -> bool:
        """Whether the learner as it is now is drawn at all (its own weight, or the
        snapshots' share while there is no snapshot yet)."""
        return self.weights["current"] + (0 if self.snapshots
                                          else self.weights["snapshots"]) > 0

    def next_rollout(self) -> None:
        """With draw=rollout, the snapshot that new deals meet until the next rollout:
        one policy forward per opponent round for all snapshot games, instead of one per
        kept snapshot (games under way keep theirs)."""
        if self.snapshots:
            self.active = self.snapshots[int(self.rng.integers(len(self.snapshots)))]


__all__ = ["DEFAULT_POOL", "POOL_KINDS", "Pool"]
