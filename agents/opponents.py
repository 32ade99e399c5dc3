"""Opponents by name: ``load_opponent("heuristic")``, a shipped policy, or a file.

Bundled names: ``random``, ``heuristic``, and the shipped trained policies in
``agents/policies/`` by file stem (``nv1-ppo``).  ``difficulty`` applies to trained
policies: ``hard`` (greedy), ``normal`` (samples from the policy), ``easy`` (samples,
and 30% of moves are random); see ``agents.policy.DIFFICULTIES``.
"""
from __future__ import annotations

from pathlib import Path

from .heuristic import HeuristicAgent

POLICY_DIR = Path(__file__).with_name("policies")


def bundled_opponents() -> list[str]:
    return ["random", "heuristic"] + sorted(p.stem for p in POLICY_DIR.glob("*.pt"))


def load_opponent(name_or_path: str | Path, difficulty: str = "hard", seed: int | None = None):
    """An agent (``act(observation, action_mask)``) by bundled name or policy file path."""
    from . import RandomAgent
    name = str(name_or_path)
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    path = Path(name)
    if not path.exists():
        bundled = POLICY_DIR / f"{name}.pt"
        if not bundled.exists():
            raise ValueError(f"load_opponent: {name!r} is neither a file nor a bundled opponent "
                             f"({', '.join(bundled_opponents())})")
        path = bundled
    from .policy import PolicyAgent
    return PolicyAgent(path, difficulty=difficulty, seed=seed)
