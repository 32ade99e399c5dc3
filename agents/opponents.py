"""Opponents by name: ``load_opponent("heuristic")``, a shipped policy, or a file.

Bundled names: ``random``, ``heuristic``, and the shipped trained policies in
``agents/policies/`` by file stem (``nv2-ppo``, the strongest; ``nv1-ppo``).  ``difficulty`` applies to trained
policies: ``hard`` (greedy), ``normal`` (samples from the policy), ``easy`` (samples,
and 30% of moves are random); see ``agents.policy.DIFFICULTIES``.
"""
from __future__ import annotations

from pathlib import Path

from .heuristic import HeuristicAgent

POLICY_DIR = Path(__file__).with_name("policies")


def bundled_opponents() -> list[str]:
    return ["random", "heuristic"] + sorted(p.stem for p in POLICY_DIR.glob("*.pt"))


def is_policy_path(spec: str | Path) -> bool:
    """A policy *file* is named with a path: it holds a directory separator or ends in
    ``.pt``.  Anything else is a bundled opponent's name, so a file in the working
    directory called ``nv1-ppo`` can never stand in for the shipped ``nv1-ppo``."""
    if isinstance(spec, Path):
        return True
    s = str(spec)
    return "/" in s or "\\" in s or s.endswith(".pt")


def load_opponent(name_or_path: str | Path, difficulty: str = "hard", seed: int | None = None):
    """An agent (``act(observation, action_mask)``) by bundled name or policy file path.

    Names resolve to bundled opponents only (``bundled_opponents()``); a policy file
    needs a path (``./my.pt``, ``runs/x/policy.pt``).  Raises ``ValueError`` naming the
    known opponents for an unknown name, and ``PolicyFileError`` for a file that is not a
    usable policy (nothing is loaded from it).
    """
    from . import RandomAgent
    if not isinstance(name_or_path, (str, Path)):
        raise TypeError(f"load_opponent: give a name or a path, got "
                        f"{type(name_or_path).__name__}")
    name = str(name_or_path)
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    if is_policy_path(name_or_path):
        path = Path(name)
    else:
        path = POLICY_DIR / f"{name}.pt"
        if not path.is_file():
            raise ValueError(f"load_opponent: no bundled opponent {name!r}; known: "
                             f"{', '.join(bundled_opponents())} (a policy file needs a path: "
                             f"./{name}.pt or a name ending in .pt)")
    from .policy import PolicyAgent
    return PolicyAgent(path, difficulty=difficulty, seed=seed)
