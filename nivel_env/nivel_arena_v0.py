"""PettingZoo-style versioned name: ``from nivel_env import nivel_arena_v0``."""
from .env.aec import NivelArenaEnv, env, raw_env

__all__ = ["NivelArenaEnv", "env", "raw_env"]
