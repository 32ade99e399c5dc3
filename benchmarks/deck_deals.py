"""How much noise each way of pairing a deck benchmark's games removes.

Plays every pair of decks under one pilot three ways on the same seeds, interleaved:

* ``mirror``: the duplicate deal evaluate.py uses -- ``new_game(a, b, s)`` then
  ``new_game(b, a, s, mirror=True)``: each deck draws the same cards twice, the first
  player exchanged;
* ``swap``: the decks exchange seats on the same seed without the mirror (each deck
  reshuffled, the same seat first, so the first player is exchanged too);
* ``independent``: the second game on another seed.

For each, the standard error of a pair's score from the pairs (what evaluate.py's
intervals use) over that of as many independent games, averaged over deck pairs: below 1
the pairing removes noise, above 1 it adds some (a deck that draws well draws well in
both games).

    python benchmarks/deck_deals.py --games 100 --pilot heuristic
"""
from __future__ import annotations

import argparse
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DESIGNS = ("mirror", "swap", "independent")


def play_three(task):
    """One seed of one deck pair, the second game three ways: the first deck's points in
    each design (0..2)."""
    from nivel_env.tournaments.arena import play_game
    from nivel_env.tournaments.games import cached_agent, cached_deck
    d0, d1, pilot, seed = task
    a, b = cached_deck(d0), cached_deck(d1)

    def game(x, y, s, mirror, side):
        agents = (cached_agent(pilot, s, 0), cached_agent(pilot, s, 1))
        r = play_game(x, y, s, agents, mirror=mirror)
        return (r.returns[side] + 1) / 2

    first = game(a, b, seed, False, 0)
    return {"mirror": first + game(b, a, seed, True, 1),
            "swap": first + game(b, a, seed, False, 1),
            "independent": first + game(b, a, seed + 7_777_777, False, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="seeds per deck pair")
    ap.add_argument("--pilot", default="heuristic")
    ap.add_argument("--decks", nargs="+", help="default: every bundled deck")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    import os

    from nivel_env.cards import list_decks
    from nivel_env.tournaments.ratings import paired_score
    from nivel_env.tournaments.runner import Runner, run_tasks
    decks = args.decks or list_decks()
    pairs = list(combinations(decks, 2))
    tasks = [(a, b, args.pilot, args.seed * 1_000_003 + g) for a, b in pairs
             for g in range(args.games)]
    t0 = time.perf_counter()
    res = run_tasks(tasks, Runner(args.workers or os.cpu_count() or 1), "deals", True,
                    fn=play_three)
    took = time.perf_counter() - t0
    print(f"\n{len(pairs)} deck pairs x {args.games} seeds, pilot {args.pilot}, "
          f"{2 * len(tasks):,} games a design, {took:.0f} s")
    print("| design | se from pairs / se of independent games (mean over deck pairs) "
          "| range |\n|---|---:|---|")
    for d in DESIGNS:
        ratios = []
        for k in range(len(pairs)):
            pts = [r[d] for r in res[k * args.games:(k + 1) * args.games]]
            st = paired_score(pts)
            if st["se_independent"] > 0 and st["se_paired"] == st["se_paired"]:
                ratios.append(st["se_paired"] / st["se_independent"])
        if not ratios:
            print(f"| {d} | n/a (every pair scored alike) | |")
            continue
        print(f"| {d} | {np.mean(ratios):.3f} | {np.min(ratios):.2f}-{np.max(ratios):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
