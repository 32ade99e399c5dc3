"""Environments over the rules engine.

``nivel_env.env`` is this package *and*, called, the PettingZoo constructor::

    from nivel_env import env, raw_env
    e = env(decks=("ember-rush", "stone-bastion"))   # same as nivel_env.env.aec.env(...)

(Python binds a package's name to its subpackage ``env`` on import, so the package
itself is made callable rather than letting the two names fight.)

* ``aec``: the PettingZoo AEC environment (``NivelArenaEnv``, ``raw_env``, ``env``).
* ``single``: the Gymnasium single-agent wrapper (``NivelArenaGymEnv``) for MaskablePPO.
* ``encoder`` / ``card_features``: the observation; the layout is docs/observation.md.
"""
import sys
import types

from .aec import AGENTS, NivelArenaEnv, raw_env
from .aec import env as _make_env
from .encoder import OBS_HIGH, OBS_LOW, OBS_SIZE, Encoder, observation_box
from .single import NivelArenaGymEnv, RandomOpponent


class _CallablePackage(types.ModuleType):
    def __call__(self, **kwargs):
        return _make_env(**kwargs)

    def __reduce_ex__(self, protocol):
        # pickled by name, like a function, so frameworks that ship env creators to
        # workers (Ray, multiprocessing) can ship this one
        import importlib
        return (importlib.import_module, (self.__name__,))


sys.modules[__name__].__class__ = _CallablePackage

__all__ = ["AGENTS", "Encoder", "NivelArenaEnv", "NivelArenaGymEnv", "OBS_SIZE",
           "RandomOpponent", "observation_box", "raw_env", "OBS_LOW", "OBS_HIGH"]

from .. import register_gymnasium  # noqa: E402

register_gymnasium()                  # gymnasium.make("nivel_env/NivelArena-v0")
