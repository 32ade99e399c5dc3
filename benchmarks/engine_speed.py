"""Engine speed: seeded uniform-random games over legal_actions().

Prints decisions/s, games/s, mean decisions per game and µs per clone(); run it
pinned to one core for comparable figures (``taskset -c 0 python ...``).
Targets (issue 2): >= 25,000 decisions/s on one core, clone <= 30 µs.
"""
from __future__ import annotations

import argparse
import random
import time
import timeit

from nivel_env.cards import load_deck
from nivel_env.engine import new_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--decks", nargs=2, default=["ember-rush", "stone-bastion"])
    args = ap.parse_args()
    d0, d1 = load_deck(args.decks[0]), load_deck(args.decks[1])
    decisions = 0
    mids = []
    t0 = time.perf_counter()
    for seed in range(args.games):
        g = new_game(d0, d1, seed=seed)
        r = random.Random(seed)
        n = 0
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
            n += 1
            if n == 60 and len(mids) < 50:
                mids.append(g.clone())
        decisions += n
    dt = time.perf_counter() - t0
    clone_us = min(timeit.repeat(lambda: [m.clone() for m in mids], number=200, repeat=5)) \
        / (200 * len(mids)) * 1e6
    print(f"games            {args.games}")
    print(f"decisions/s      {decisions / dt:,.0f}")
    print(f"games/s          {args.games / dt:,.1f}")
    print(f"decisions/game   {decisions / args.games:.1f}")
    print(f"clone() µs       {clone_us:.1f}   (mid-game states, decision 60)")


if __name__ == "__main__":
    main()
