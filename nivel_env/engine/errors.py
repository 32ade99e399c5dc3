"""The engine's errors, and the one check of what counts as an integer at its edge.

Every layer that takes an action id -- ``Game.apply_action``, the AEC and Gym envs, the
batched envs -- goes through ``action_id`` (and a seat through ``as_int``), so they all
accept and refuse the same values and say so in the same words.  Accepted: Python ints,
numpy integers and 0-d integer arrays (what SB3's ``predict`` returns for one
observation), read through ``operator.index``, the protocol they share, so the engine
needs no numpy.  Refused: bools (an integer subclass, but never an id), floats even when
whole (``2.0`` would otherwise pass the legality check and fail half-way through a move),
Fractions, strings, and arrays with a dimension (``[3]`` is not one id).
"""
from __future__ import annotations

import operator

from .actions import N_ACTIONS


class IllegalActionError(ValueError):
    """An action id that is not legal now; the game state is left unchanged."""


class ScenarioError(ValueError):
    """A scenario (position description) is malformed; says which field."""


#: what an action id is, in every error that refuses one
ACTION_ID = f"an action is an integer id 0..{N_ACTIONS - 1} (a Python or numpy integer)"


def as_int(x) -> int | None:
    """``x`` as a plain int if it is an integer -- Python, numpy, or a 0-d integer array
    or tensor -- else None (bools, floats, Fractions, strings, arrays with a dimension)."""
    if type(x) is int:
        return x
    if isinstance(x, bool) or getattr(x, "ndim", 0) != 0:
        return None
    dtype = getattr(x, "dtype", None)
    if dtype is not None:                               # numpy's or torch's bool
        kind = getattr(dtype, "kind", None)             # numpy: 'b' (cheap, no str())
        if kind == "b" or (kind is None and "bool" in str(dtype)):
            return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def action_id(action, where: str = "") -> int:
    """``action`` as a plain int, or ``IllegalActionError`` naming ``where`` and what was
    passed.  Only the type is checked: whether the id is legal is the game's question."""
    if type(action) is int:                          # the common case, on every step
        return action
    a = as_int(action)
    if a is None:
        raise IllegalActionError(f"{where + ': ' if where else ''}{ACTION_ID}, got "
                                 f"{type(action).__name__} {action!r}"[:300])
    return a
