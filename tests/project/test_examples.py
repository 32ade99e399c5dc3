"""The RLlib and Tianshou examples run: a short training on a local Ray instance (RLlib:
self-play, and against a frozen shipped opponent) and with Tianshou's collectors, each
ending with its learner's score against the random agent.  They need the ``[rllib]`` and
``[tianshou]`` extras (CI installs them)."""
import importlib.util
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT


def _run(script: str, args: list, tmp_path) -> dict:
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args, "--quick",
                          "--out", str(out)], capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("opponent", [[], ["--opponent", "random"],
                                      ["--opponent", "nv2-ppo"]])
def test_rllib_selfplay_trains_and_scores_against_random(tmp_path, opponent):
    """Self-play, and a frozen opponent in one seat: the random agent, and the shipped
    nv2-ppo, which loads with torch alone (the rllib extra has no stable-baselines3)."""
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


def test_rllib_seats_alternate_whatever_the_hash_seed():
    """Against a frozen opponent the learner changes seat every episode, the same way
    under any PYTHONHASHSEED (``hash(episode.id_) % 2`` did neither)."""
    code = """
import importlib.util, json, sys
from types import SimpleNamespace
spec = importlib.util.spec_from_file_location("rl", "examples/rllib_selfplay.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
f = m.AlternateSeats()
seats = []
for n in range(8):
    ep = SimpleNamespace(id_=f"episode-{n}")
    got = {a: f(a, ep) for a in ("player_1", "player_0", "player_1")}
    seats.append([a for a, who in got.items() if who == "learner"])
print(json.dumps(seats))
"""
    outs = []
    for seed in ("1", "2", "3"):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=120, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.returncode == 0, run.stderr[-2000:]
        outs.append(json.loads(run.stdout))
    assert outs[0] == outs[1] == outs[2]
    assert outs[0] == [[f"player_{n % 2}"] for n in range(8)]


def test_rllib_a_long_episode_keeps_its_seat_while_many_others_start():
    """The seat table forgets the least recently asked episodes, not the oldest started:
    an episode still being asked keeps its seat however many short ones come and go."""
    spec = importlib.util.spec_from_file_location("rl", ROOT / "examples/rllib_selfplay.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    f = m.AlternateSeats()
    long = SimpleNamespace(id_="long")
    seat = f.learner_seat(long)
    for n in range(3 * f.KEEP):
        f.learner_seat(SimpleNamespace(id_=f"short-{n}"))
        if n % 50 == 0:
            assert f.learner_seat(long) == seat
    assert f.learner_seat(long) == seat and len(f.seats) <= f.KEEP
