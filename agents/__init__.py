"""Players: anything with ``act(observation, action_mask) -> int`` (and optional ``reset()``)."""
from __future__ import annotations

from typing import Protocol

import numpy as np


class Agent(Protocol):
    def act(self, observation, action_mask) -> int: ...


class RandomAgent:
    """Uniform over the legal actions; seeded, so a run can be repeated."""

    #: it never reads the observation, so environments may pass None (and skip encoding)
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])


from .heuristic import HeuristicAgent  # noqa: E402
from .opponents import bundled_opponents, load_opponent  # noqa: E402


def __getattr__(name):                      # torch is only needed for trained policies
    if name in ("PolicyAgent", "export_policy", "PolicyFileError"):
        from . import policy
        return getattr(policy, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = ["Agent", "HeuristicAgent", "PolicyAgent", "RandomAgent", "bundled_opponents",
           "export_policy", "load_opponent"]
