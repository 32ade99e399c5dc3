"""Mask soundness and completeness: what ``legal_actions()`` lists is exactly what
``apply_action`` accepts."""
from __future__ import annotations

from ..engine import N_ACTIONS, IllegalActionError


def mask_errors(g) -> list[str]:
    """Every legal id applies without error on a clone; every other id raises
    IllegalActionError and leaves the game exactly as it was."""
    from .differential import state_snapshot      # differential imports this package
    out = []
    legal = set(g.legal_actions())
    before = state_snapshot(g)                 # the saved state, compared cheaply
    for a in range(N_ACTIONS):
        if a in legal:
            try:
                g.clone().apply_action(a)
            except Exception as e:                               # noqa: BLE001 -- reported
                out.append(f"legal action {a} ({g.action_name(a)}) raised "
                           f"{type(e).__name__}: {e}")
        else:
            try:
                g.apply_action(a)
            except IllegalActionError:
                continue
            except Exception as e:                               # noqa: BLE001 -- reported
                out.append(f"illegal action {a} raised {type(e).__name__} instead of "
                           f"IllegalActionError: {e}")
            else:
                out.append(f"illegal action {a} was accepted")
            return out                                          # the game has moved on
    for bad in (-1, N_ACTIONS, 10**9):
        try:
            g.apply_action(bad)
            out.append(f"out-of-range action {bad} was accepted")
            return out
        except IllegalActionError:
            pass
    if state_snapshot(g) != before:
        out.append("trying illegal actions changed the game")
    return out


__all__ = ["mask_errors"]
