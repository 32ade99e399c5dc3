"""Memory over a long run: many games in one process, resident memory sampled.

Training runs play millions of games in one process, so anything that grows per
game (event logs kept alive, encoder caches keyed by game, card-table copies)
eventually costs the machine.  Plays ``--games`` games of random masked play
through the AEC environment (``--engine``: the engine alone), one environment
reused as trainers do, and prints RSS after warm-up and at the end.
Goal (issue 6): growth under 5% after warm-up over 20,000 games.

    python benchmarks/memory.py --games 20000
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from nivel_env.engine.backend import resolve_backend


def rss_mib() -> float:
    """Current resident set size (Linux /proc; peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (2**20 if sys.platform == "darwin" else 2**10)


def env_games(n: int, seed: int):
    from nivel_env import raw_env
    e = raw_env()
    r = random.Random(seed)
    e.reset(seed=seed)
    for _ in range(n):
        for agent in e.agent_iter():
            obs, _rew, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[r.randrange(len(legal))]))
        yield
        e.reset()


def engine_games(n: int, seed: int):
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import new_game
    decks = [load_deck(d) for d in list_decks()]
    r = random.Random(seed)
    for i in range(n):
        g = new_game(decks[i % len(decks)], decks[(i * 3 + 1) % len(decks)], seed=seed + i)
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
        yield


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--warmup", type=float, default=0.1, help="share of games before the "
                                                               "baseline (default 0.1)")
    ap.add_argument("--engine", action="store_true", help="the engine alone, no environment")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    games = (engine_games if args.engine else env_games)(args.games, args.seed)
    warm = max(1, int(args.games * args.warmup))
    start_rss = rss_mib()
    base = None
    samples = []
    t0 = time.perf_counter()
    every = max(1, args.games // 20)
    for i, _ in enumerate(games, 1):
        if i == warm:
            gc.collect()
            base = rss_mib()
        if i % every == 0 or i == args.games:
            samples.append((i, rss_mib()))
            print(f"  {i:>7,} games  RSS {samples[-1][1]:7.1f} MiB", flush=True)
    gc.collect()
    end = rss_mib()
    growth = (end - base) / base * 100
    print(f"engine: {resolve_backend()} (NIVEL_BACKEND=python or native picks one)")
    print(f"\n{'engine' if args.engine else 'AEC environment'}: {args.games:,} games in "
          f"{time.perf_counter() - t0:.0f} s")
    print(f"RSS at start {start_rss:.1f} MiB, after {warm:,} warm-up games {base:.1f} MiB, "
          f"at the end {end:.1f} MiB")
    print(f"growth after warm-up: {end - base:+.1f} MiB ({growth:+.2f}%); goal < 5%: "
          f"{'met' if growth < 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
