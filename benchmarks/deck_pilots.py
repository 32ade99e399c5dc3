"""What each pilot costs in a deck benchmark, to pick the default.

Runs a slice of the full bundled benchmark (every deck pair, ``--seeds`` deals each) with
each pilot through evaluate.py's own machinery (policies in lockstep blocks), interleaved
pilot by pilot ``--rounds`` times, on all cores; prints games per second and what the
full benchmark at ``--full-seeds`` deals a pair would take.  Also runs the policy pilot
one game at a time, to show what the lockstep blocks gain.

    python benchmarks/deck_pilots.py --pilots heuristic nv2-ppo strong --seeds 32
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pilots", nargs="+", default=["heuristic", "nv2-ppo", "strong"])
    ap.add_argument("--seeds", type=int, default=32, help="deals per deck pair to time")
    ap.add_argument("--full-seeds", type=int, default=200,
                    help="deals per pair of the full benchmark to project")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--one-at-a-time", action="store_true",
                    help="also time policy pilots without lockstep blocks")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    from nivel_env.cards import list_decks
    from nivel_env.tournaments.deck_commands import deck_tasks, run_deck_tasks
    from nivel_env.tournaments.runner import Runner, run_tasks
    decks = list_decks()
    meet = list(combinations(range(len(decks)), 2))
    runs = [(p, True) for p in args.pilots]
    if args.one_at_a_time:
        runs += [(p, False) for p in args.pilots if p not in ("heuristic", "random")]
    took = {r: 0.0 for r in runs}
    games = 2 * len(meet) * args.seeds
    for rnd in range(args.rounds):
        for pilot, lockstep in runs:
            ns = SimpleNamespace(pilot=pilot, workers=args.workers, no_progress=True)
            tasks, _ = deck_tasks(decks, meet, args.seeds, rnd * args.seeds, pilot, None, 0)
            t0 = time.perf_counter()
            if lockstep:
                run_deck_tasks(tasks, ns, Runner(args.workers), "time", progress=False)
            else:
                run_tasks(tasks, Runner(args.workers), "time", False)
            took[(pilot, lockstep)] += time.perf_counter() - t0
    full = 2 * len(meet) * args.full_seeds
    print(f"{len(decks)} decks, {len(meet)} pairs, {games:,} games a run, {args.rounds} "
          f"rounds interleaved, {args.workers} workers")
    print(f"| pilot | games/s | full benchmark ({args.full_seeds} deals a pair, "
          f"{full:,} games) |\n|---|---:|---:|")
    for (pilot, lockstep), t in took.items():
        rate = games * args.rounds / t
        how = "" if lockstep or pilot in ("heuristic", "random") else " (one game at a time)"
        print(f"| {pilot}{how} | {rate:.1f} | {full / rate / 60:.1f} min |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
