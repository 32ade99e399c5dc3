"""What counts as an action id at the environments' edge.

Python and numpy integers only: ``2.7``, ``"2"``, ``True``, ``inf`` or a 1-element array
are refused with ``IllegalActionError`` naming the value (the game is left unchanged),
rather than silently truncated or coerced into another move.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..engine import N_ACTIONS
from ..engine.errors import IllegalActionError


def action_id(action, where: str) -> int:
    """``action`` as a plain int, or ``IllegalActionError`` saying what was passed."""
    if type(action) is int:                          # the common case, on every step
        return action
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        if isinstance(action, np.ndarray) and action.shape == () and \
                np.issubdtype(action.dtype, np.integer):
            return int(action)                       # a 0-d integer array (np.array(3))
        raise IllegalActionError(f"{where}: an action is an integer id 0..{N_ACTIONS - 1} "
                                 f"(Python or numpy int), got {type(action).__name__} "
                                 f"{action!r}"[:300])
    return int(action)
