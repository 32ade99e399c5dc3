"""nivel_env: rules engine and RL environment for the Nivel Arena trading card game.

``from nivel_env import env, raw_env`` gives the PettingZoo environment; the engine
(``nivel_env.engine``) never imports gymnasium or pettingzoo, so those are loaded
only when an environment is asked for.
"""
__version__ = "0.1.0"

_LAZY = {"env": "nivel_env.env", "raw_env": "nivel_env.env.aec",
         "NivelArenaEnv": "nivel_env.env.aec", "NivelArenaGymEnv": "nivel_env.env.single",
         "nivel_arena_v0": "nivel_env.nivel_arena_v0"}


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'nivel_env' has no attribute {name!r}")
    import importlib
    m = importlib.import_module(mod)
    return m if name in ("env", "nivel_arena_v0") else getattr(m, name)


__all__ = ["env", "raw_env", "NivelArenaEnv", "NivelArenaGymEnv", "nivel_arena_v0"]
