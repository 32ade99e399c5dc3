"""Bare names and paths: the one rule for telling a bundled thing's name from a file.

Decks, policies and anything else the project ships are named on a command line, in a
``load_*`` call or in an evaluate.py task by a bare name (``ember-rush``, ``nv2-ppo``); a
file of the user's is named by a path.  The rule is syntactic, never a look at the disk:
a name is a path when it is a ``Path``, holds a directory separator (``/`` or ``\\``),
or ends in its kind's suffix (``.deck``, ``.pt``).  So a file or folder in the working
directory that happens to be called ``ember-rush`` can never stand in for the bundled
deck -- locally, in a worker process or on a Ray node (``nivel_env.tournaments.ray_backend``
ships only what this rule calls a path) -- and ``./ember-rush`` names the file.
"""
from __future__ import annotations

from pathlib import Path

SEPARATORS = ("/", "\\")


def names_a_path(spec: str | Path, suffix: str | tuple[str, ...]) -> bool:
    """Whether ``spec`` names a file rather than a bundled thing: a ``Path``, or a string
    holding a directory separator or ending in ``suffix`` (one suffix or a tuple of
    them, each with its dot: ``".deck"``)."""
    if isinstance(spec, Path):
        return True
    s = str(spec)
    return any(sep in s for sep in SEPARATORS) or s.endswith(suffix)


__all__ = ["SEPARATORS", "names_a_path"]
