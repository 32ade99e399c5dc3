"""The tournament package (nivel_env/tournaments/) sits beside the players, never on top of
one: it takes players as spec strings through ``nivel_env.players.load``, so it imports no
agent -- at module level, inside a function or by ``importlib``; its game loops
(``arena``, ``lockstep``) ask players through ``nivel_env.players``.  Where the games run is a ``Runner`` passed down to each command,
not a module global set by the command line."""
from __future__ import annotations

import ast
import json
import sys

import pytest

from conftest import ROOT

PACKAGE = ROOT / "nivel_env" / "tournaments"


def _absolute(module: str | None, level: int, here: str) -> str:
    """The absolute module an ``ImportFrom`` names (``here``: the importing module)."""
    if not level:
        return module or ""
    base = here.split(".")[:-level]
    return ".".join(base + ([module] if module else []))


def _is_agents(name: str) -> bool:
    return name == "agents" or name.startswith("agents.")


def agents_imports(source: str, module: str) -> list[str]:
    """``line: what`` for each import of ``agents`` in ``source`` (the module ``module``)."""
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, module)
            names = [base] + [".".join(filter(None, (base, a.name))) for a in node.names]
        elif isinstance(node, ast.Call):      # importlib.import_module("agents..."), __import__
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if called in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        bad = [n for n in names if _is_agents(n)]
        if not bad:
            continue
        out.append(f"{node.lineno}: {lines[node.lineno - 1].strip()}")
    return out


def test_the_tournament_package_imports_no_agent():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 12, modules
    found = []
    for path in modules:
        name = "nivel_env.tournaments." + path.stem
        found += [f"{path.relative_to(ROOT)}:{x}"
                  for x in agents_imports(path.read_text(encoding="utf-8"), name)]
    assert not found, "the tournament package imports agents:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    "from agents.heuristic import HeuristicAgent\n",
    "import agents\n",
    "def f():\n    from agents import load_opponent\n",
    "def f():\n    from agents.arena import play_game\n",
    "import importlib\nimportlib.import_module('agents.opponents')\n",
    "from ... import agents\n",
])
def test_the_check_catches_each_way_in(source):
    assert agents_imports(source, "nivel_env.tournaments.games")


SPECS = ["heuristic", "nv2-ppo", "nv2-ppo:random_share=0.2", "nv2-search:simulations=8",
         "p.pt", "./p.pt:temperature=0.5", "runs/x/policy.pt:simulations=64,worlds=4",
         "C:/runs/x/policy.pt", "runs/a:b/p.pt", "weird:name", "x.pt:notsettings",
         "ember-rush", "my.deck", "./decks/mine.deck"]


@pytest.mark.parametrize("spec", SPECS)
def test_the_tournaments_read_a_spec_as_the_players_do(spec):
    """``specs`` repeats the players' spec grammar (the package imports no player): the
    file a spec names must be the one ``agents.opponents`` would load."""
    from agents.opponents import is_policy_path, split_spec
    from nivel_env.tournaments import specs
    head, settings = split_spec(spec)
    assert specs.split_spec(spec)[0] == head
    assert specs.player_file(spec) == (head if is_policy_path(spec) else None)


def test_the_ray_backend_ships_what_a_policy_file_may_weigh():
    pytest.importorskip("torch")
    from agents.policy import MAX_FILE_BYTES
    from nivel_env.tournaments.ray_backend import MAX_SHIPPED_BYTES
    assert MAX_SHIPPED_BYTES == MAX_FILE_BYTES


class _Cluster:
    """A stand-in cluster: plays the tasks here, in order, and says it did."""

    def __init__(self):
        self.mapped = 0

    def map(self, fn, tasks, chunksize=1):
        for t in tasks:
            self.mapped += 1
            yield fn(t)

    def report(self):
        return {"backend": "stand-in", "tasks": self.mapped}


def test_a_command_runs_where_its_runner_says(tmp_path, capsys):
    """The runner is an argument: evaluate.main hands the one it is given to the command,
    whose games go through it and whose report names it; a local run after it is local
    again (nothing was left set on a module)."""
    sys.path.insert(0, str(ROOT))
    import evaluate
    from nivel_env.tournaments.runner import Runner
    argv = ["agents", "random", "heuristic", "--games", "2", "--workers", "1",
            "--no-progress", "--bootstrap", "20", "--decks", "ember-rush"]
    cluster = _Cluster()
    evaluate.main(argv + ["--out", str(tmp_path / "a")], Runner(1, cluster))
    there = json.loads((tmp_path / "a" / "agents.json").read_text())
    assert cluster.mapped == 2 and there["ran_on"] == {"backend": "stand-in", "tasks": 2}
    evaluate.main(argv + ["--out", str(tmp_path / "b")])
    here = json.loads((tmp_path / "b" / "agents.json").read_text())
    assert here["ran_on"] == {"backend": "local", "workers": 1} and cluster.mapped == 2
    assert here["matrix"] == there["matrix"]            # same seeds, same games


def test_run_tasks_wants_a_runner_not_a_worker_count():
    from nivel_env.tournaments.runner import run_tasks
    with pytest.raises(TypeError, match="runner must be a Runner"):
        run_tasks([], 2, "x", False)
