"""Batched game steps against separate environments, in one process.

For each N, random legal moves for N games: ``GameBatch`` (one call steps every game and
writes every observation and mask into preallocated arrays) against N separate AEC
environments stepped one after another (``last()`` then ``step()``).  Prints steps/s for
both and the ratio; the two are interleaved, best of ``--repeat``.  Run it pinned to one
core for comparable figures (``taskset -c 0 python benchmarks/vector_speed.py``).
Target: the batch at N = 64 at least 1.5x the separate environments per step.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from nivel_env.engine.backend import resolve_backend


def batched(n: int, steps: int, seed: int = 0) -> float:
    from nivel_env.env.vector import GameBatch
    b = GameBatch(n)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    done = 0
    acts = np.zeros(n, dtype=np.int64)
    while done < steps:
        # one uniform legal move per game (the batch keeps each game's legal list)
        r = rng.random(n)
        for i, legal in enumerate(b.legal):
            acts[i] = legal[int(r[i] * len(legal))]
        b.step(acts)
        done += n
    return done / (time.perf_counter() - t0)


def separate(n: int, steps: int, seed: int = 0) -> float:
    from nivel_env import env
    envs = [env() for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    done = 0
    while done < steps:
        for e in envs:
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.reset()
                obs = e.observe(e.agent_selection)
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[int(rng.random() * len(legal))]))
            done += 1
    return done / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 8, 64, 256])
    ap.add_argument("--steps", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"engine: {resolve_backend()} (NIVEL_BACKEND=python or native picks one)")
    print(f"{'N':>5} {'batched steps/s':>16} {'separate steps/s':>17} {'ratio':>6}")
    for n in args.sizes:
        steps = max(args.steps, n * 20)
        best_b = best_s = 0.0
        for _ in range(args.repeat):
            best_b = max(best_b, batched(n, steps))
            best_s = max(best_s, separate(n, steps))
        print(f"{n:>5} {best_b:>16,.0f} {best_s:>17,.0f} {best_b / best_s:>6.2f}")


if __name__ == "__main__":
    main()
