"""Players: anything with ``act(observation, action_mask) -> int`` (and optional ``reset()``)."""
from __future__ import annotations

from typing import Protocol

# uniform over the legal actions: one class with the environments' default opponent
from nivel_env.env.setup import RandomAgent


class Agent(Protocol):
    def act(self, observation, action_mask) -> int: ...



from .heuristic import HeuristicAgent  # noqa: E402
from .opponents import bundled_opponents, load_opponent  # noqa: E402


def __getattr__(name):                      # torch is only needed for trained policies
    if name in ("PolicyAgent", "export_policy", "PolicyFileError"):
        from . import policy
        return getattr(policy, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = ["Agent", "HeuristicAgent", "PolicyAgent", "RandomAgent", "bundled_opponents",
           "export_policy", "load_opponent"]
