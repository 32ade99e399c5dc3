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

GYM_ID = "nivel_env/NivelArena-v0"


def register_gymnasium() -> None:
    """Register ``nivel_env/NivelArena-v0`` with gymnasium (idempotent).  Registered
    without gymnasium's order-enforcing and passive-checker wrappers, so the made env
    keeps ``action_masks()``; the env checks its own call order."""
    import gymnasium
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(GYM_ID, entry_point="nivel_env.env.single:NivelArenaGymEnv",
                           order_enforce=False, disable_env_checker=True)


class _RegisterWhenGymnasiumLoads:
    """``import nivel_env`` must make ``gymnasium.make("nivel_env/NivelArena-v0")`` work
    whichever is imported first, but importing the engine must not import gymnasium.  So
    when gymnasium is not loaded yet, this finder waits for it and registers right after
    gymnasium's own import finishes."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        import importlib.util
        _sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)          # every other finder, as usual
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            register_gymnasium()
        spec.loader.exec_module = exec_module
        return spec


import sys as _sys  # noqa: E402

if "gymnasium" in _sys.modules:
    register_gymnasium()
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
