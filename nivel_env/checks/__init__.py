"""Conformance checks: the rules, the mask, determinism and hidden information,
checked by playing many seeded games.

Used three ways: by the test suite on the bundled pool, by
``python -m nivel_env check`` on a user's own cards and decks, and by long soaks
before a release (``python -m nivel_env check --games 100000 --workers 2``).

    from nivel_env.checks import run_checks, summary
    print(summary(run_checks(decks, games=500)))

Each check reports messages rather than raising, with the seed, decks and action
list of the game that failed, so a failure can be replayed
(``nivel_env.checks.soak.replay_game``).
"""
from .determinism import determinism_errors
from .hidden import hidden_info_errors
from .invariants import invariant_errors, play_cost_errors
from .mask import mask_errors
from .policies import POLICIES
from .runner import CHECKS, CheckResult, plan, run_checks, summary
from .soak import GameCheck, play_checked, replay_game

__all__ = ["CHECKS", "CheckResult", "GameCheck", "POLICIES", "determinism_errors",
           "hidden_info_errors", "invariant_errors", "mask_errors", "plan", "play_checked",
           "play_cost_errors", "replay_game", "run_checks", "summary"]
