"""What the environments do with an action id.

What counts as one is the engine's rule (``engine.errors.action_id``, re-exported here):
Python and numpy integers and 0-d integer arrays; ``2.7``, ``"2"``, ``True``, ``inf`` or a
1-element array are refused with ``IllegalActionError`` naming the value (the game is left
unchanged), rather than silently truncated or coerced into another move.
"""
from __future__ import annotations

from ..engine.errors import action_id

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


__all__ = ["ILLEGAL_ACTION_MODES", "ILLEGAL_REWARD", "action_id", "check_illegal_mode"]
