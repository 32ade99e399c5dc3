"""The command lines make torch's idle OpenMP threads sleep instead of spin (a learner step
cost 9-13x more CPU with spinning threads on shared cores), set before torch loads, and
keep a policy the user chose."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT

from nivel_env import threads


def _run(code: str, **env) -> str:
    clean = {k: v for k, v in os.environ.items() if k != threads.VARIABLE}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={**clean, **env}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


HELP = ("import os, sys\nimport {m}\ntry:\n    {m}.main(['--help'])\nexcept SystemExit:\n"
        "    pass\nprint(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)")


def test_train_and_evaluate_set_passive_waiting_before_torch_loads():
    for module in ("train", "evaluate"):
        assert _run(HELP.format(m=module)) == "PASSIVE False", module


def test_a_policy_the_user_set_is_kept():
    assert _run(HELP.format(m="train"), OMP_WAIT_POLICY="ACTIVE") == "ACTIVE False"


def test_passive_waiting_says_when_it_comes_too_late():
    code = ("import torch\nfrom nivel_env import threads\nprint(threads.passive_waiting())")
    assert "after torch was loaded" in _run(code)
    assert _run("from nivel_env import threads\nprint(threads.passive_waiting(), "
                "threads.describe())") == "PASSIVE OpenMP waiting: PASSIVE"
