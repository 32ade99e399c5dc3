"""The RLlib and Tianshou examples run: a short training on a local Ray instance (RLlib:
self-play, and against a frozen shipped opponent) and with Tianshou's collectors, each
ending with its learner's score against the random agent.  They need the ``[rllib]`` and
``[tianshou]`` extras (CI installs them)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def _run(script: str, args: list, tmp_path) -> dict:
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args, "--quick",
                          "--out", str(out)], capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("opponent", [[], ["--opponent", "random"]])
def test_rllib_selfplay_trains_and_scores_against_random(tmp_path, opponent):
    pytest.importorskip("ray.rllib")
    rep = _run("rllib_selfplay.py", ["--iterations", "2", *opponent], tmp_path)
    assert rep["iterations"] == 2 and rep["env_steps"] >= 512
    assert rep["opponent"] == (opponent[1] if opponent else "self-play")
    ev = rep["vs_random"]
    assert ev["games"] == 4 and 0 <= ev["score"] <= 1 and ev["ci95"][0] <= ev["score"]


def test_tianshou_trains_and_scores_against_random(tmp_path):
    pytest.importorskip("tianshou")
    rep = _run("tianshou_selfplay.py", ["--epochs", "1"], tmp_path)
    assert rep["env_steps"] >= 200 and rep["env_steps_per_s"] > 0
    assert rep["vs_random"]["games"] == 2
