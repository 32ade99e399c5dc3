"""Players: anything with ``act(observation, action_mask) -> int`` (and optional ``reset()``);
the protocol, and how every caller asks a player for its move, is ``nivel_env.players``."""
from __future__ import annotations

# the protocol (Agent, its name here) and the uniform random player live in nivel_env
from nivel_env.players import Player as Agent
from nivel_env.players import RandomAgent

from .heuristic import HeuristicAgent  # noqa: E402
from .opponents import bundled_opponents, load_opponent  # noqa: E402


def __getattr__(name):                      # torch is only needed for trained policies
    if name in ("PolicyAgent", "export_policy", "PolicyFileError"):
        from . import policy
        return getattr(policy, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = ["Agent", "HeuristicAgent", "PolicyAgent", "RandomAgent", "bundled_opponents",
           "export_policy", "load_opponent"]
