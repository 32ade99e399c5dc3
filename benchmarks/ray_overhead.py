"""What evaluate.py --ray costs on one machine, against the local worker processes.

Runs the same deck benchmark (evaluate.py decks: every pair of ``--decks``, ``--games``
seeds a pair, one pilot) on the local backend and on a local Ray instance of the same
number of CPUs, interleaved ``--rounds`` times, and prints games per second for each and
their ratio -- with and without the seconds Ray takes to start (a cluster that is already
running pays only the second figure).  Checks the two reports agree.

    python benchmarks/ray_overhead.py --games 40 --rounds 2
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _run(argv: list, out: Path, runner=None) -> tuple[float, dict]:
    import evaluate
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        evaluate.main(argv + ["--out", str(out)], runner)
    dt = time.perf_counter() - t
    rep = json.loads((out / "decks.json").read_text())
    return dt, {k: v for k, v in rep.items() if k not in ("command", "ran_on")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", nargs="+",
                    default=["ember-rush", "stone-bastion", "tide-scholars", "veil-piercers"])
    ap.add_argument("--games", type=int, default=40, help="seeds per pair")
    ap.add_argument("--pilot", default="heuristic")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args(argv)
    from nivel_env.tournaments.ray_backend import RayPool
    from nivel_env.tournaments.runner import Runner
    n = len(a.decks)
    n_games = 2 * a.games * (n * (n - 1) // 2 + n)
    base = ["decks", "--decks", *a.decks, "--pilot", a.pilot, "--games", str(a.games),
            "--workers", str(a.workers), "--no-progress", "--bootstrap", "50"]
    tmp = Path(tempfile.mkdtemp())
    rows = {"local": [], "ray, start included": [], "ray, running": []}
    reports = []
    for r in range(a.rounds):
        dt, rep = _run(base, tmp / f"local{r}")
        rows["local"].append(n_games / dt)
        reports.append(rep)
        t = time.perf_counter()
        cluster = RayPool(None, a.workers)                 # what --ray does, timed apart
        start = time.perf_counter() - t
        dt, rep = _run(base, tmp / f"ray{r}", Runner(a.workers, cluster))
        cluster.shutdown()
        rows["ray, running"].append(n_games / dt)
        rows["ray, start included"].append(n_games / (dt + start))
        reports.append(rep)
        print(f"round {r + 1}: local {rows['local'][-1]:.1f} games/s, ray "
              f"{rows['ray, running'][-1]:.1f} games/s once running (start {start:.1f} s)",
              flush=True)
    same = all(rep == reports[0] for rep in reports)
    mean = {k: sum(v) / len(v) for k, v in rows.items()}
    print(f"\n{n_games} games a run ({n} decks, {a.games} seeds a pair, pilot {a.pilot}, "
          f"{a.workers} CPUs), {a.rounds} rounds interleaved")
    for k, v in mean.items():
        print(f"  {k:<22} {v:7.1f} games/s  ({v / mean['local']:.2f}x local)")
    print(f"reports identical across backends and rounds: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
