"""Engine speed: seeded uniform-random games over legal_actions().

Prints decisions/s, games/s, mean decisions per game, µs per clone(), and the cost and
size of a pickle round trip and of to_dict/JSON; run it pinned to one core for
comparable figures (``taskset -c 0 python ...``).
Targets: >= 25,000 decisions/s on one core, clone <= 30 µs, pickle round trip well under
1 ms and a few KB (the card pool goes by reference).
"""
from __future__ import annotations

import argparse
import json
import pickle
import random
import time
import timeit

from nivel_env.cards import load_deck
from nivel_env.engine import new_game
from nivel_env.engine.backend import resolve_backend


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
    print(f"engine: {resolve_backend()} (NIVEL_BACKEND=python or native picks one)")
    print(f"games            {args.games}")
    print(f"decisions/s      {decisions / dt:,.0f}")
    print(f"games/s          {args.games / dt:,.1f}")
    print(f"decisions/game   {decisions / args.games:.1f}")
    print(f"clone() µs       {clone_us:.1f}   (mid-game states, decision 60)")
    pk_us = min(timeit.repeat(lambda: [pickle.loads(pickle.dumps(m)) for m in mids],
                              number=20, repeat=5)) / (20 * len(mids)) * 1e6
    pk_bytes = sum(len(pickle.dumps(m)) for m in mids) / len(mids)
    js_us = min(timeit.repeat(lambda: [type(m).from_dict(json.loads(json.dumps(m.to_dict())))
                                       for m in mids], number=5, repeat=3)) / (5 * len(mids)) * 1e6
    js_bytes = sum(len(json.dumps(m.to_dict())) for m in mids) / len(mids)
    print(f"pickle round trip µs   {pk_us:.0f}   ({pk_bytes / 1024:.1f} KB)")
    print(f"to_dict/JSON/from_dict round trip µs   {js_us:.0f}   ({js_bytes / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
