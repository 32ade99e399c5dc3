"""evaluate.py --ray: the games on Ray give the local backend's results bit for bit, files
a task names reach the workers, and a worker that dies loses no results.

Two ways in: a local Ray instance started for the run on the loopback interface (two worker
processes), and a head started with ``ray start --head`` reached by its address, with
Ray's token authentication as a real cluster has it.  They need the ``[ray]`` extra (CI
installs it)."""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import evaluate  # noqa: E402
from nivel_env.tournaments import games  # noqa: E402
from nivel_env.tournaments.ray_backend import RayPool  # noqa: E402
from conftest import ROOT  # noqa: E402


def _my_deck(tmp_path) -> Path:
    """A deck file of the user's, which the workers must be sent."""
    mine = tmp_path / "my-rush.deck"
    mine.write_text((ROOT / "nivel_env/cards/decks/ember-rush.deck").read_text()
                    .replace("name: Ember Rush", "name: My Rush"))
    return mine


def _bench(tmp_path) -> list:
    return ["decks", "--decks", str(_my_deck(tmp_path)), "stone-bastion", "--pilot",
            "heuristic", "--games", "6", "--no-progress", "--bootstrap", "50",
            "--workers", "2"]


def _report(out: Path):
    data = json.loads((out / "decks.json").read_text())
    return {k: v for k, v in data.items() if k not in ("command", "ran_on")}, data["ran_on"]


def test_a_deck_benchmark_on_a_local_ray_instance_matches_the_local_run(tmp_path,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)          # junk named like the bundled deck and pilot: unused
    for junk in ("stone-bastion", "heuristic"):
        Path(junk).write_text("junk\n")
    evaluate.main(_bench(tmp_path) + ["--out", str(tmp_path / "local")])
    evaluate.main(_bench(tmp_path) + ["--ray", "--out", str(tmp_path / "ray")])
    local, where_local = _report(tmp_path / "local")
    on_ray, where_ray = _report(tmp_path / "ray")
    assert local == on_ray
    assert where_local == {"backend": "local", "workers": 2}
    assert where_ray == {"backend": "ray", "address": "local", "cpus": 2,
                         "batches_retried": 0}
    assert not ray.is_initialized()                   # the run's own instance, shut down


def _dies_once(marker: str):
    def fn(t):
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)                                  # the worker process dies
        return t * 2
    return fn


@pytest.mark.slow
def test_a_worker_that_dies_loses_no_results(tmp_path):
    """Slow tier: a second local Ray instance (~9 s); the fast tier keeps one Ray run."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pool = RayPool(None, 2)
    try:
        out = list(pool.map(_dies_once(str(tmp_path / "died")), list(range(40))))
        assert out == [2 * t for t in range(40)]        # all of them, in order
        assert pool.retried >= 1 and pool.report()["batches_retried"] == pool.retried
    finally:
        pool.shutdown()


def test_without_ray_the_option_says_how_to_install(monkeypatch):
    from nivel_env.tournaments import ray_backend
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(SystemExit, match=r'pip install -e "\.\[ray\]"'):
        ray_backend.RayPool()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_cluster_reached_by_its_address_gives_the_same_results(tmp_path):
    """Slow tier: starting a head takes ~40 s (the local instance above covers the backend
    in the fast tier).  ``ray start --head`` with a token, then ``evaluate.py --ray HOST:PORT`` from a shell
    that has the token, as README.md's "Beyond one machine" says.  The head runs with
    ``--block`` in its own process group, so stopping it stops only this cluster (``ray
    stop`` would stop every Ray instance of the machine)."""
    import signal
    import time
    exe = shutil.which("ray") or os.path.join(os.path.dirname(sys.executable), "ray")
    port = _free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "RAY_USAGE_STATS_ENABLED": "0"}
    head = subprocess.Popen([exe, "start", "--head", "--block", f"--port={port}",
                             "--num-cpus=2", "--include-dashboard=false",
                             "--disable-usage-stats"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:                  # up once its port answers
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert head.poll() is None, "ray start --head exited"
            time.sleep(0.5)
        run = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *_bench(tmp_path),
                              "--ray", f"127.0.0.1:{port}", "--out", str(tmp_path / "ray")],
                             capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "0 batch(es) played again" in run.stdout
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
    evaluate.main(_bench(tmp_path) + ["--out", str(tmp_path / "local")])
    assert _report(tmp_path / "ray")[0] == _report(tmp_path / "local")[0]
    assert _report(tmp_path / "ray")[1]["address"] == f"127.0.0.1:{port}"


def test_only_paths_reach_the_workers_and_bare_names_stay_bundled(tmp_path, monkeypatch):
    """Files in the working directory named like a bundled deck or opponent are not
    shipped to the workers (``_files_named``), and a worker never swaps a bare name for a
    file (``games._local``): bare names are bundled things, paths are files."""
    from nivel_env.tournaments import ray_backend
    monkeypatch.chdir(tmp_path)
    for junk in ("ember-rush", "stone-bastion", "nv2-ppo", "heuristic", "nv2-search"):
        Path(junk).write_text("not a deck, not a policy\n")
    mine = _my_deck(tmp_path)
    Path("rel.deck").write_text(mine.read_text())
    Path("p.pt").write_bytes(b"a policy file of mine")
    tasks = [("ember-rush", "rel.deck", "nv2-ppo", "./p.pt:temperature=0.5", 1, None, "decks"),
             (str(mine), "stone-bastion", "heuristic", "nv2-ppo:random_share=0.2", 2,
              str(tmp_path), "decks"),
             ("ember-rush", "stone-bastion", "nv2-search:simulations=8", "p.pt", 3, None,
              "agents")]
    shipped = ray_backend._files_named(tasks)
    assert sorted(shipped) == sorted(["rel.deck", "./p.pt", str(mine), "p.pt"])
    assert shipped["./p.pt"] == b"a policy file of mine"
    # a worker: the shipped files under their task names, and junk under bare names (as a
    # driver that shipped them would have sent): the bare names still load bundled
    copies = tmp_path / "node"
    copies.mkdir()
    local = {}
    for name, data in {**shipped, "ember-rush": b"junk", "heuristic": b"junk",
                       "nv2-ppo": b"junk"}.items():
        (copies / Path(name).name).write_bytes(data)
        local[name] = str(copies / Path(name).name)
    monkeypatch.setattr(games, "LOCAL_FILES", local)
    monkeypatch.setattr(games, "_CACHE", {})
    assert games._local("ember-rush", "deck") == "ember-rush"
    assert games._local("nv2-ppo", "agent") == "nv2-ppo"
    assert games._local("nv2-ppo:random_share=0.2", "agent") == "nv2-ppo:random_share=0.2"
    assert games._local("heuristic", "agent") == "heuristic"
    assert games._local("./p.pt:temperature=0.5", "agent") == local["./p.pt"] + \
        ":temperature=0.5"
    assert games._local("rel.deck", "deck") == local["rel.deck"]
    assert games._local("p.pt", "deck") == "p.pt"          # a bare deck name, whatever it ends in
    assert games.cached_deck("ember-rush").name == "Ember Rush"
    assert games.cached_deck("rel.deck").name == "My Rush"
    assert type(games.cached_agent("heuristic", 1)).__name__ == "HeuristicAgent"
