"""Engine, raw_env and encoder speed of this working tree against another commit, interleaved.

A refactor must not make the hot paths slower, and a shared 2-core machine drifts by more
than the effect being measured, so the two trees are measured turn about in one process
pinned to one core: both copies of the package are imported side by side (each tree's
modules swapped into ``sys.modules`` in turn), round r runs the base then the tree (odd
rounds the other way round) on the same seeds, and every figure is CPU time
(``time.process_time``) so a busy neighbour slows both alike.  (Separate processes per
tree were tried first: their figures moved by 5% between runs of the same code, with hash
seeds and memory layouts of their own.)  Reports medians, the spread
(min-max over rounds) and two ratios (tree / base): of the medians, and the median of the
per-round ratios (the paired one, steadier under drift).

    python benchmarks/compare_commits.py                 # against HEAD (uncommitted changes)
    python benchmarks/compare_commits.py --base 96691f0 --rounds 9

Figures (higher is better for the rates, lower for the encoder's µs):
  engine   uniform random legal play over whole games (decisions/s);
  clone    ``Game.clone()`` of positions 60 decisions into a game (µs);
  raw_env  PettingZoo ``raw_env`` steps/s with ``last()`` building observation and mask;
  encoder  ``Encoder.encode`` of recorded positions, both seats (µs per observation).
"""
from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def load(tree: Path) -> dict:
    """Import ``tree``'s own ``nivel_env`` (dropping any other tree's modules first) and
    warm it up, so that the modules its functions import later come from the same tree."""
    for k in [k for k in sys.modules if k == "nivel_env" or k.startswith("nivel_env.")]:
        del sys.modules[k]
    sys.path.insert(0, str(tree))
    try:
        mods = {n: importlib.import_module(n) for n in
                ("nivel_env", "nivel_env.cards", "nivel_env.engine", "nivel_env.env.encoder",
                 "nivel_env.env.aec")}
        assert mods["nivel_env"].__file__.startswith(str(tree)), mods["nivel_env"].__file__
        mods["decks"] = (mods["nivel_env.cards"].load_deck("ember-rush"),
                         mods["nivel_env.cards"].load_deck("stone-bastion"))
        measure(mods, games=2, steps=200)
    finally:
        sys.path.remove(str(tree))
    return mods


def measure(mods: dict, games: int, steps: int, seed0: int = 0) -> dict:
    """One round of every figure with one tree's modules (only the public API both commits
    have): CPU time, so a busy neighbour slows both trees alike."""
    new_game, Encoder = mods["nivel_env.engine"].new_game, mods["nivel_env.env.encoder"].Encoder
    d0, d1 = mods["decks"]
    cpu = time.process_time
    out = {}
    n, mids, kept = 0, [], []
    t = cpu()
    for seed in range(seed0, seed0 + games):
        g = new_game(d0, d1, seed=seed)
        r = random.Random(seed)
        k = 0
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
            k += 1
            if k == 60:
                mids.append(g.clone())
            if k % 7 == 0 and len(kept) < 400:
                kept.append(g.clone())
        n += k
    out["engine"] = n / (cpu() - t)
    t, reps = cpu(), 0
    while cpu() - t < 0.3:                         # at least 0.3 s of CPU per figure
        for g in mids:
            g.clone()
        reps += 1
    out["clone"] = (cpu() - t) / (reps * max(1, len(mids))) * 1e6
    enc = Encoder(kept[0].db)
    live = [(g, g.legal_actions()) for g in kept if not g.is_terminal()]
    t, reps = cpu(), 0
    while cpu() - t < 0.3:                         # positions of many games in turn: the
        for g, legal in live:                      # encoder's caches start cold each time
            enc.encode(g, 0, legal)
            enc.encode(g, 1, legal)
        reps += 1
    out["encoder"] = (cpu() - t) / (reps * 2 * len(live)) * 1e6
    e = mods["nivel_env.env.aec"].raw_env()
    r = random.Random(seed0)
    e.reset(seed=seed0)
    n = 0
    t = cpu()
    while n < steps:
        for _agent in e.agent_iter():
            obs, _rw, term, trunc, _i = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[r.randrange(len(legal))]))
            n += 1
        e.reset()
    out["raw_env"] = n / (cpu() - t)
    return out


HIGHER_IS_BETTER = {"engine": True, "clone": False, "raw_env": True, "encoder": False}
UNITS = {"engine": "decisions/s", "clone": "µs", "raw_env": "steps/s", "encoder": "µs/obs"}


def report(base_runs: list[dict], tree_runs: list[dict], base: str) -> list[str]:
    lines = [f"{'figure':<9} {'base ' + base:>26} {'this tree':>26} {'ratio':>7} {'paired':>7}"]
    for key, higher in HIGHER_IS_BETTER.items():
        b = [r[key] for r in base_runs]
        t = [r[key] for r in tree_runs]
        # ratio > 1 means this tree is faster, whichever way the figure points
        if higher:
            ratio = statistics.median(t) / statistics.median(b)
            paired = statistics.median(x / y for x, y in zip(t, b))
        else:
            ratio = statistics.median(b) / statistics.median(t)
            paired = statistics.median(y / x for x, y in zip(t, b))

        def cell(v):
            return f"{statistics.median(v):,.1f} [{min(v):,.1f}-{max(v):,.1f}]"
        lines.append(f"{key:<9} {cell(b):>26} {cell(t):>26} {ratio:>6.3f}x {paired:>6.3f}x"
                     f"  {UNITS[key]}")
    lines.append("ratio: speed of this tree / speed of the base (> 1 is faster); medians "
                 "[min-max] over rounds, CPU time")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="the commit to compare against (default HEAD)")
    ap.add_argument("--tree", default=str(ROOT), help="the tree to measure (default: this one)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--games", type=int, default=60, help="engine games per round")
    ap.add_argument("--steps", type=int, default=8000, help="raw_env steps per round")
    ap.add_argument("--no-pin", action="store_true", help="don't pin to one core")
    args = ap.parse_args(argv)
    tree = Path(args.tree).resolve()
    work = Path(tempfile.mkdtemp(prefix="nivel-base-"))
    base_tree = work / "base"
    subprocess.run(["git", "-C", str(tree), "worktree", "add", "--detach", "-q", str(base_tree),
                    args.base], check=True)
    try:
        commit = subprocess.run(["git", "-C", str(base_tree), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        if not args.no_pin and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})   # one core, both trees
        sides = [(load(base_tree), []), (load(tree), [])]
        for r in range(args.rounds):
            for mods, runs in (sides if r % 2 == 0 else sides[::-1]):
                runs.append(measure(mods, args.games, args.steps, seed0=r * args.games))
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        base_runs, tree_runs = sides[0][1], sides[1][1]
        print("\n".join(report(base_runs, tree_runs, commit)))
    finally:
        subprocess.run(["git", "-C", str(tree), "worktree", "remove", "--force", str(base_tree)],
                       check=False)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
