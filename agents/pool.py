"""Self-play opponent pools: a different opponent each episode."""
from __future__ import annotations

import numpy as np

from nivel_env.players import RandomAgent

from .heuristic import HeuristicAgent


class OpponentPool:
    """An opponent that is a different member each episode (sampled at ``reset``)."""

    def __init__(self, seed: int, weights=(0.2, 0.3, 0.5), max_snapshots: int = 5):
        self.rng = np.random.default_rng(seed)
        self.random, self.heuristic = RandomAgent(seed), HeuristicAgent(seed)
        self.weights = weights                      # random, heuristic, snapshots
        self.snapshots: list = []
        self.max_snapshots = max_snapshots
        self.current = self.random

    def add_snapshot(self, path: str) -> None:
        from .policy import PolicyAgent
        self.snapshots.append(PolicyAgent(path, temperature=1.0,
                                          seed=int(self.rng.integers(1 << 31))))
        del self.snapshots[:-self.max_snapshots]

    @property
    def needs_observation(self) -> bool:
        return getattr(self.current, "needs_observation", True)

    def reset(self) -> None:
        w = np.array(self.weights[:2] + ((self.weights[2],) if self.snapshots else (0.0,)))
        if w.sum() <= 0:                            # only snapshots wanted, none taken yet
            w = np.array([1.0, 0.0, 0.0])
        k = self.rng.choice(3, p=w / w.sum())
        self.current = (self.random, self.heuristic,
                        self.snapshots[self.rng.integers(len(self.snapshots))]
                        if self.snapshots else self.random)[k]

    def act(self, observation, action_mask) -> int:
        return self.current.act(observation, action_mask)
