"""The native ``GameBatch`` beside the Python one: 256 games, random legal moves,
observations and masks.

What is timed is what a user's loop pays per step: the random player's draw from the mask
(numpy), ``GameBatch.step`` (its checks, the moves, new deals for ended games, masks and
observations written into the batch's numpy arrays).  Wall time (``time.perf_counter``),
since the native batch splits a step over threads.  Each run measures every line once, in
the same order, one after another (the Python batch first), so the lines of a run share
the machine's load; the figures are the median and the spread (min-max) over the runs,
and the ratio is to the Python batch's median.

The random player of every line but the last two is the same vectorised numpy draw
(``random_legal``: a uniform k-th legal id per row).  The native batch is also timed with
its own C++ player (``GameBatch.random_actions``: actions drawn into a numpy array, then
passed to ``step``) and with the draw the earlier figures used (``argmax`` of random keys
under the mask, which costs about as much as the native step itself).

    python benchmarks/native_batch.py [--runs 3] [--steps 300] [--layouts compact full]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from nivel_env.env.vector import GameBatch

N = 256
TARGETS = {"compact": 200_000, "full": 100_000}      # 2 threads, steps/s


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` ((n, actions) bool, every row
    with a legal action): the k-th set column of each row for a uniform k."""
    n, width = mask.shape
    flat = np.flatnonzero(mask)
    starts = np.searchsorted(flat, np.arange(0, (n + 1) * width, width))
    counts = np.diff(starts)
    pick = starts[:-1] + (rng.random(n) * counts).astype(np.int64)
    return flat[pick] - np.arange(0, n * width, width)


def argmax_draw(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The earlier figures' random player: argmax of random keys under the mask."""
    return np.argmax(mask * rng.random(mask.shape, dtype=np.float32), axis=1)


def rate(batch, player, steps: int, rng) -> tuple[float, float]:
    """Steps (one game's move) per second over ``steps`` batch steps: per second of wall
    time, and per second of this process's CPU time (all its threads)."""
    t, c = time.perf_counter(), time.process_time()
    for _ in range(steps):
        batch.step(player(batch, rng))
    done = steps * batch.n
    return done / (time.perf_counter() - t), done / (time.process_time() - c)


def numpy_player(b, rng):
    return random_legal(b.mask, rng)


def argmax_player(b, rng):
    return argmax_draw(b.mask, rng)


def native_player(b, rng):
    return b.random_actions()


def spread(xs) -> str:
    return f"{statistics.median(xs):>9,.0f} ({min(xs):,.0f}-{max(xs):,.0f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=300, help="batch steps per native line")
    ap.add_argument("--python-steps", type=int, default=8, help="batch steps, Python line")
    ap.add_argument("--layouts", nargs="+", default=["compact", "full"])
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    lines: dict = {}
    batches = {}
    for obs in args.layouts:
        py = GameBatch(N, obs=obs, backend="python")
        nb = GameBatch(N, obs=obs, backend="native", threads=2)
        py.reset(seed=1)
        nb.reset(seed=1)
        rate(nb, numpy_player, 200, rng)            # warm up: games in every phase
        batches[obs] = (py, nb)
        plan = [("GameBatch (Python)", py, 1, numpy_player),
                ("native, 1 thread", nb, 1, numpy_player),
                ("native, 2 threads", nb, 2, numpy_player)]
        if hasattr(nb, "random_actions"):
            plan.append(("native, 2 threads, C++ player", nb, 2, native_player))
        plan.append(("native, 2 threads, argmax draw", nb, 2, argmax_player))
        lines[obs] = plan
    got = {(obs, name): [] for obs, plan in lines.items() for name, *_ in plan}
    py_of = {obs: py for obs, (py, _) in batches.items()}
    for _ in range(args.runs):
        for obs, plan in lines.items():
            for name, b, threads, player in plan:
                if b is not py_of[obs]:
                    b.threads = threads
                steps = args.python_steps if b is py_of[obs] else args.steps
                got[obs, name].append(rate(b, player, steps, rng))
    print(f"GameBatch, {N} games, random legal moves, observations + masks out to numpy, "
          f"actions in from numpy; steps/s of wall time, median (min-max) over {args.runs} "
          f"interleaved runs, the ratio to the Python batch; and steps per CPU second "
          f"(all threads; less sensitive to the machine's other load)")
    for obs, plan in lines.items():
        base = statistics.median(x for x, _ in got[obs, plan[0][0]])
        for name, *_ in plan:
            xs = [x for x, _ in got[obs, name]]
            cpu = statistics.median(c for _, c in got[obs, name])
            print(f"  {obs:8} {name:32} {spread(xs)}  {statistics.median(xs) / base:5.1f}x"
                  f"   CPU {cpu:>9,.0f}")
        two = [x for x, _ in got[obs, "native, 2 threads"]]
        met = sum(x >= TARGETS[obs] for x in two)
        print(f"  {obs:8} target >= {TARGETS[obs]:,} on 2 threads (numpy player): met in "
              f"{met} of {len(two)} runs")


if __name__ == "__main__":
    main()
