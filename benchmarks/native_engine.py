"""The native core beside the Python engine: random legal play, clone, a batch of games.

Interleaved rounds on the same deals, CPU time (``time.process_time``) for the
single-threaded figures; medians with the spread (min-max) over the rounds, and the ratio
of the medians.  Every bundled deck pair is drawn from the pool (``GameBatch``'s deals).

* engine, Python loop: a uniform random player in Python (``random.choice`` over
  ``legal_actions()``) on each engine -- what a Python caller of ``Game`` sees;
* engine, native loop: the core's own uniform player (``Batch.random_steps``), no Python
  per decision -- the engine's speed: 64 games stepped in turn (as a batch steps them: each
  step starts on a game out of the cache), and one game at a time (as the Python loop
  plays them);
* clone: ``Game.clone()`` and ``NativeGame.clone()`` mid-game;
* batch: ``GameBatch`` (Python) against ``GameBatch(backend="native")`` stepping 256 games
  with random legal moves (native_batch.py's vectorised numpy draw, timed with the step),
  observations (both layouts) and masks, on 1 and 2 threads, and the native batch with
  masks only (wall time; one pass -- ``benchmarks/native_batch.py`` times the batch alone,
  interleaved over several runs).

    python benchmarks/native_engine.py [--rounds 5]
"""
from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import time

import numpy as np

from nivel_env.cards import load_card_db
from nivel_env.cards.deck import list_decks, load_deck
from nivel_env.engine import new_game
from nivel_env.env.setup import SeedStream
from nivel_env.native import _core
from nivel_env.native.game import config_tuple, new_native_game
from nivel_env.native.program import load_program
from nivel_env.engine import RuleConfig
from native_batch import random_legal  # benchmarks/: the batch benchmark's random player


python_game = functools.partial(new_game, backend="python")    # the default is the core


def python_loop(factory, decks, games: int, seed: int) -> tuple[int, float]:
    dec, t = 0, time.process_time()
    for gi in range(games):
        rnd = random.Random(seed + gi)
        g = factory(rnd.choice(decks), rnd.choice(decks), seed=seed + gi)
        while not g.is_terminal():
            g.apply_action(rnd.choice(g.legal_actions()))
            dec += 1
    return dec, time.process_time() - t


def native_batch(db, decks, n: int, threads: int):
    specs = [(d.leader.index, [c.index for c in d.cards]) for d in decks]
    b = _core.Batch(load_program(db, _core), config_tuple(RuleConfig()), specs, False, -1, n,
                    threads)
    arrays = (np.zeros((n, 337), bool), np.zeros(n, np.int8), np.zeros(n, np.int8),
              np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.float32),
              np.zeros(n, np.int64), np.zeros((n, 2), np.int8), np.zeros(n, bool))
    b.bind(*arrays)
    b.reset([SeedStream(i).state for i in range(n)],
            [SeedStream(i ^ 0x5EA7).state for i in range(n)])
    return b, arrays[0]


def native_loop(db, decks, rounds: int, seed: int, games: int = 64) -> tuple[int, float]:
    b, _ = native_batch(db, decks, games, 1)
    t = time.process_time()
    err = b.random_steps(rounds, seed)
    if err:
        raise RuntimeError(err)
    return games * rounds, time.process_time() - t


def clone_us(factory, decks, reps: int = 20000) -> float:
    g = factory(decks[0], decks[1], seed=3)
    rnd = random.Random(3)
    for _ in range(60):
        if g.is_terminal():
            break
        g.apply_action(rnd.choice(g.legal_actions()))
    t = time.process_time()
    for _ in range(reps):
        g.clone()
    return (time.process_time() - t) / reps * 1e6


def batch_rate(step, mask, steps: int, n: int) -> float:
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for _ in range(steps):
        step(random_legal(mask, rng))
    return steps * n / (time.perf_counter() - t)


def spread(xs) -> str:
    return f"{statistics.median(xs):,.1f} ({min(xs):,.1f}-{max(xs):,.1f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=20, help="games per round, Python loops")
    ap.add_argument("--no-batch", action="store_true",
                    help="the engine and clone figures only (no GameBatch section)")
    args = ap.parse_args()
    db = load_card_db()
    decks = [load_deck(n, db) for n in list_decks()]
    py, nat_py, nat, nat1 = [], [], [], []
    cl_py, cl_nat = [], []
    for r in range(args.rounds):
        d, t = python_loop(python_game, decks, args.games, 1000 * r)
        d2, t2 = python_loop(new_native_game, decks, args.games, 1000 * r)
        if d != d2:
            raise RuntimeError("the backends played different games: run the differential "
                               "check (python -m nivel_env check --backend both)")
        # 64 games x 1,500 rounds: about as long a timing as the Python loop's (a short
        # one, 400 rounds at first, caught more of the shared machine's noise)
        d3, t3 = native_loop(db, decks, 1500, r)
        d4, t4 = native_loop(db, decks, 96000, r, games=1)
        py.append(d / t)
        nat_py.append(d2 / t2)
        nat.append(d3 / t3)
        nat1.append(d4 / t4)
        cl_py.append(clone_us(python_game, decks))
        cl_nat.append(clone_us(new_native_game, decks))
    so = _core.__file__
    print(f"engine, random legal play over the {len(decks)} bundled decks "
          f"({args.rounds} interleaved rounds, CPU time, median (min-max))")
    print(f"  Python engine, Python loop     {spread(py)} decisions/s")
    print(f"  native engine, Python loop     {spread(nat_py)} decisions/s  "
          f"{statistics.median(nat_py) / statistics.median(py):.1f}x")
    print(f"  native engine, native loop     {spread(nat)} decisions/s  "
          f"{statistics.median(nat) / statistics.median(py):.1f}x  (64 games in turn)")
    print(f"  native engine, native loop     {spread(nat1)} decisions/s  "
          f"{statistics.median(nat1) / statistics.median(py):.1f}x  (one game at a time)")
    print(f"clone: Python {spread(cl_py)} us, native {spread(cl_nat)} us  "
          f"({statistics.median(cl_py) / statistics.median(cl_nat):.1f}x)")
    if args.no_batch:
        print_sizes(so)
        return
    n = 256
    from nivel_env.env.vector import GameBatch
    print(f"batch of {n}, random legal moves, observations and masks (wall time):")
    for obs in ("compact", "full"):
        gb = GameBatch(n, obs=obs, backend="python")
        gb.reset(seed=0)
        base = batch_rate(gb.step, gb.mask, 8, n)
        print(f"  {obs:8} GameBatch (Python)            {base:,.0f} steps/s")
        for threads in (1, 2):
            nb = GameBatch(n, obs=obs, backend="native", threads=threads)
            nb.reset(seed=0)
            rate = batch_rate(nb.step, nb.mask, 200, n)
            print(f"  {obs:8} native, {threads} thread{'s' if threads > 1 else ' '}          "
                  f"{rate:,.0f} steps/s  {rate / base:.0f}x")
    for threads in (1, 2):
        b, mask = native_batch(db, decks, n, threads)
        rate = batch_rate(lambda a: b.step(a, None), mask, 300, n)
        print(f"  masks only, native, {threads} thread{'s' if threads > 1 else ' '}  "
              f"{rate:,.0f} steps/s")
    print_sizes(so)


def print_sizes(so: str) -> None:
    print(f"extension: {os.path.getsize(so) / 1e6:.1f} MB ({os.path.basename(so)}); a native "
          f"game state: {_core.GAME_BYTES:,} bytes fixed, plus its work stack and its share "
          f"of the event log (28 bytes an event, in chunks of 64 that clones share)")


if __name__ == "__main__":
    main()
