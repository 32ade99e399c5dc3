"""The optional native core: a C++ build of the engine, ``nivel_env.native._core``.

The package's own build compiles it from ``src/core.cpp`` when a C++17 compiler is there
(setup.py); without one the install goes on in pure Python and the Python engine plays
alone.  Importing this package never fails and never loads the core: ``available()``
tries the import once, on first use, and remembers what happened.

    from nivel_env import native
    if native.available():
        core = native.core()
    else:
        print(native.why_unavailable())
"""
from __future__ import annotations

import importlib

from ..install_hints import NATIVE_CORE

__all__ = ["NativeCoreUnavailable", "available", "core", "from_python", "why_unavailable"]

MODULE = "nivel_env.native._core"

#: (the module, or None; why not, or "") once the import was tried
_loaded: tuple[object | None, str] | None = None


class NativeCoreUnavailable(ImportError):
    """The native core was asked for and cannot be loaded; the message says why."""


def explain(err: ImportError) -> str:
    """Why the core could not be imported, in words a user can act on."""
    if isinstance(err, ModuleNotFoundError) and err.name == MODULE:
        return (f"the native core ({MODULE}) is not built: it could not be compiled when "
                f"nivel_env was installed; {NATIVE_CORE}")
    return (f"the native core ({MODULE}) is built but does not load ({err}); it may have "
            f"been built for another Python or an older core; {NATIVE_CORE}")


def _load() -> tuple[object | None, str]:
    global _loaded
    if _loaded is None:
        try:
            _loaded = (importlib.import_module(MODULE), "")
        except ImportError as err:
            _loaded = (None, explain(err))
    return _loaded


def available() -> bool:
    """Whether the native core is built and loads."""
    return _load()[0] is not None


def why_unavailable() -> str:
    """Why the native core is unavailable, in words ("" when it is available)."""
    return _load()[1]


def core():
    """The native core module; ``NativeCoreUnavailable`` (an ImportError) saying why when
    it is not built or does not load."""
    module, why = _load()
    if module is None:
        raise NativeCoreUnavailable(why)
    return module


def from_python(g):
    """A native game in the state of Python game ``g`` (a scenario, a replay, a position
    edited in place); ``NativeCoreUnavailable`` when the core is not built."""
    core()
    from .game import from_python as move
    return move(g)
