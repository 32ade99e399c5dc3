"""How many games ``evaluate.py tune`` needs with causal-value proposals against random ones.

Runs ``evaluate.py tune`` on one deck once per proposal mode and ``--seed`` (the same
seeds, field, pilot and test settings for every mode) and tabulates, from each run's
``tune.json``: the games the search played until its first accepted swap and in all
(the ranking's games included for ``value``), the swaps tried and accepted, and the
tuned deck's held-out score against the original (seeds no search used).

Modes: ``random`` is today's tune (random proposals, no resumed test: ``--propose random
--resume 0``), ``random+resume`` random proposals with the undecided test resumed,
``value`` the default (``--propose value --resume 1``) and ``value-rank4`` the same with a
cheaper ranking (``--rank-games 4``).

    nice -n 19 env OMP_NUM_THREADS=1 python benchmarks/tune_proposals.py ember-rush \\
        --pilot heuristic --modes random value value-rank4 --seeds 1 2 --steps 2 \\
        --candidates 4 --max-games 2000 --holdout 300 --workers 2 \\
        --out docs/results/tune-proposals

A run already in ``OUT/MODE-seedN/tune.json`` is kept (``--again`` plays it again), so the
table can be built up run by run; ``--table`` only prints it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODES = {"random": ["--propose", "random", "--resume", "0"],
         "random+resume": ["--propose", "random", "--resume", "1"],
         "value": ["--propose", "value", "--resume", "1"],
         "value-rank4": ["--propose", "value", "--resume", "1", "--rank-games", "4"]}


def run_one(args, mode: str, seed: int, out: Path) -> dict:
    """One tune run; its tune.json with the wall seconds it took added (the games are the
    measure: they depend only on the seeds; wall time on how busy the machine was)."""
    import evaluate
    argv = ["tune", args.deck, "--pilot", args.pilot, "--steps", str(args.steps),
            "--candidates", str(args.candidates), "--max-games", str(args.max_games),
            "--elo1", str(args.elo1), "--holdout", str(args.holdout), "--seed", str(seed),
            "--workers", str(args.workers), "--no-progress", "--out", str(out),
            *MODES[mode], *(["--field", *args.field] if args.field else [])]
    t0 = time.perf_counter()
    evaluate.main(argv)
    rep = json.loads((out / "tune.json").read_text())
    rep["wall_s"] = round(time.perf_counter() - t0, 1)
    (out / "tune.json").write_text(json.dumps(rep, indent=2, ensure_ascii=False))
    return rep


def row(mode: str, seed: int, rep: dict) -> dict:
    g, h = rep["games"], rep["holdout"]
    return {"mode": mode, "seed": seed, "first_accepted": g["first_accepted"],
            "ranking": g["ranking"], "search": g["search"], "tried": rep["tried"],
            "accepted": len(rep["path"]),
            "resumed": sum(t["resumed"] for t in rep["tests"]),
            "swaps": " ".join(f"-{p['out']}+{p['in']}" for p in rep["path"]),
            "holdout": None if h is None else [h["score"], h["low"], h["high"]],
            "wall_s": rep.get("wall_s")}


def table(rows) -> str:
    """Markdown: one line per run, then each mode's medians."""
    def hold(r):
        return "-" if r["holdout"] is None else "{:.3f} [{:.3f}, {:.3f}]".format(*r["holdout"])
    lines = ["| mode | seed | games to 1st accept | games in all (ranking) | tried | accepted "
             "| swaps | held out |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        first = "-" if r["first_accepted"] is None else f"{r['first_accepted']:,}"
        lines.append(f"| {r['mode']} | {r['seed']} | {first} | {r['search']:,} "
                     f"({r['ranking']:,}) | {r['tried']} | {r['accepted']} | {r['swaps']} | "
                     f"{hold(r)} |")
    lines.append("")
    for mode in dict.fromkeys(r["mode"] for r in rows):
        rs = [r for r in rows if r["mode"] == mode]
        fa = [r["first_accepted"] for r in rs if r["first_accepted"] is not None]
        lines.append(f"{mode}: median games in all {np.median([r['search'] for r in rs]):,.0f}"
                     f", to the first accepted swap "
                     f"{np.median(fa) if fa else float('nan'):,.0f} ({len(fa)} of {len(rs)} "
                     f"runs accepted one), accepted {sum(r['accepted'] for r in rs)} swaps")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deck")
    ap.add_argument("--field", nargs="+", help="default: the other bundled decks")
    ap.add_argument("--pilot", default="heuristic")
    ap.add_argument("--modes", nargs="+", choices=tuple(MODES), default=list(MODES))
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--candidates", type=int, default=4)
    ap.add_argument("--max-games", type=int, default=2000)
    ap.add_argument("--elo1", type=float, default=20.0)
    ap.add_argument("--holdout", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="results/tune-proposals")
    ap.add_argument("--again", action="store_true", help="play runs already there again")
    ap.add_argument("--table", action="store_true", help="only print the table")
    args = ap.parse_args(argv)
    root = Path(args.out)
    rows = []
    for seed in args.seeds:
        for mode in args.modes:
            out = root / f"{mode}-seed{seed}"
            done = (out / "tune.json").exists()
            if args.table and not done:
                continue
            if not done or (args.again and not args.table):
                print(f"== {mode}, seed {seed}", flush=True)
                rep = run_one(args, mode, seed, out)
            else:
                rep = json.loads((out / "tune.json").read_text())
            rows.append(row(mode, seed, rep))
    text = table(rows)
    print(text)
    if rows:
        (root / "summary.json").write_text(json.dumps(rows, indent=2))
        (root / "summary.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
