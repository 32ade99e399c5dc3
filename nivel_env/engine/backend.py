"""Which engine plays a game: the Python engine ("python") or the native core ("native").

``new_game(..., backend=None)`` asks ``resolve_backend``: an explicit argument wins; else
the environment variable ``NIVEL_BACKEND`` (python | native | auto); else "auto".
"auto" means the native core when it is built and loads, else the Python engine -- said
once per process, so a machine without a compiler is told why its games run in Python.
The two play the same games bit for bit (``python -m nivel_env check --backend both``);
the Python engine stays the readable reference of the rules.
Asking for "native" where the core is unavailable is an error that says why.
"""
from __future__ import annotations

import os
import warnings

from .. import native

__all__ = ["BACKENDS", "CHOICES", "DEFAULT", "ENV_VAR", "resolve_backend"]

ENV_VAR = "NIVEL_BACKEND"
BACKENDS = ("python", "native")
CHOICES = BACKENDS + ("auto",)
DEFAULT = "auto"

_fallback_said = False


def _choice(value: str, where: str) -> str:
    if not isinstance(value, str) or value.strip().lower() not in CHOICES:
        raise ValueError(f"{where} is {value!r}; expected one of {', '.join(CHOICES)}")
    return value.strip().lower()


def resolve_backend(backend: str | None = None) -> str:
    """The backend a new game uses: "python" or "native".

    ``backend`` (python | native | auto) wins; None reads ``NIVEL_BACKEND`` (unset or
    empty: ``DEFAULT``, "auto").  A value outside those names is a ValueError naming
    where it came from; "native" where the core is unavailable is
    ``native.NativeCoreUnavailable`` saying why; "auto" there falls back to "python" with one warning per process."""
    if backend is not None:
        choice, where = _choice(backend, "backend"), "backend='native'"
    else:
        raw = os.environ.get(ENV_VAR, "")
        choice = _choice(raw, f"the environment variable {ENV_VAR}") if raw.strip() else DEFAULT
        where = f"{ENV_VAR}=native"
    if choice == "python":
        return "python"
    if native.available():
        return "native"
    if choice == "native":
        raise native.NativeCoreUnavailable(f"{where}: {native.why_unavailable()}")
    _say_fallback()
    return "python"


def _say_fallback() -> None:
    global _fallback_said
    if not _fallback_said:
        _fallback_said = True
        warnings.warn(f"nivel_env: the native core is unavailable, games run on the Python "
                      f"engine ({native.why_unavailable()})", RuntimeWarning, stacklevel=4)
