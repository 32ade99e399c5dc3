"""Players by spec string, for code that must not import a particular agent (a placeholder
for the merge: the player protocol module, with ``ask`` / ``ask_batch``, replaces it).

``load(spec, **kw)`` resolves a spec through the registered loader (today the one,
``agents.opponents:load_opponent``), found by name at call time, so the tournament
package (``nivel_env.tournaments``) and its Ray workers build players without importing
``agents``.  ``reseed(agent, seed)`` gives a player its own generator for one game."""
from __future__ import annotations

import importlib

import numpy as np

#: "module:function" that turns a spec string into a player
DEFAULT_LOADER = "agents.opponents:load_opponent"


def load(spec, **kw):
    """The player ``spec`` names (a bundled name, a level, a policy file, settings after a
    colon), built by the loader ``DEFAULT_LOADER`` names; ``kw`` go to the loader."""
    module, _, name = DEFAULT_LOADER.partition(":")
    return getattr(importlib.import_module(module), name)(spec, **kw)


def reseed(agent, seed: int) -> None:
    """Give ``agent`` a fresh generator seeded with ``seed`` (a player without one draws
    nothing at random and is left as it is)."""
    if hasattr(agent, "rng"):
        agent.rng = np.random.default_rng(seed)


__all__ = ["DEFAULT_LOADER", "load", "reseed"]
