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

#: what an environment does with an action id that is not legal now
ILLEGAL_ACTION_MODES = ("raise", "lose")
#: the offender's reward under ``illegal_action="lose"`` (PettingZoo classic's)
ILLEGAL_REWARD = -1.0


def check_illegal_mode(mode, where: str) -> str:
    """``"raise"`` (an illegal action raises ``IllegalActionError`` and changes nothing)
    or ``"lose"`` (it ends the episode, -1 for the player who chose it)."""
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"{where}: illegal_action must be 'raise' or 'lose', got {mode!r}"[:200])
    return mode


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
