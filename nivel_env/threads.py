"""How this project's command lines let torch's threads wait: passively.

Torch runs a forward or an update on several OpenMP threads.  Between parallel regions
OpenMP's idle threads spin (busy-wait) unless told otherwise, and on a machine whose cores
are shared -- a second process, other people's jobs, the game loop between two forwards --
that spinning takes the cores the work needs: a learner step measured 9-13x more CPU
(17.9-23.2 ms instead of 1.7-1.9 ms) with torch's default threads on 2 shared cores.
``OMP_WAIT_POLICY=PASSIVE`` makes idle threads sleep instead.

OpenMP reads the variable once, when torch first loads it, so it must be in the
environment before ``import torch``: ``train.py`` and ``evaluate.py`` call
``passive_waiting()`` first thing (their worker processes inherit it).  A value the user
set is kept.  Your own scripts: set ``OMP_WAIT_POLICY=PASSIVE`` in the shell, call this
function before importing torch, or run one torch thread per process
(``torch.set_num_threads(1)``), which leaves nothing to wait.
"""
from __future__ import annotations

import os
import sys

VARIABLE = "OMP_WAIT_POLICY"


def passive_waiting() -> str:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the environment already names a policy, and
    return the policy in force (``"PASSIVE"``, or the user's own).  Called after torch was
    imported it changes nothing torch already started, and says so."""
    if VARIABLE in os.environ:
        return os.environ[VARIABLE]
    os.environ[VARIABLE] = "PASSIVE"
    if "torch" in sys.modules:
        return "PASSIVE (set after torch was loaded: its threads may still spin)"
    return "PASSIVE"


def describe() -> str:
    """One line for a run's header: the waiting policy OpenMP was started with."""
    return f"OpenMP waiting: {os.environ.get(VARIABLE, 'the default (idle threads spin)')}"


__all__ = ["VARIABLE", "describe", "passive_waiting"]
