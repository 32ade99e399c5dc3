"""The two observation layouts side by side: values per observation and encoding time.

Records the positions of random games over bundled deck pairs, then encodes each position
for both seats with the full encoder and the compact one in interleaved rounds (the same
positions, the same process), CPU time (``time.process_time``).  Prints the median and
spread per observation and the compact/full ratio, and the same with the copy a batch
makes of each observation (``GameBatch`` copies into its array) added.

Issue 32's targets: the compact observation <= 1/8 of the full one's values, and encoding
it <= 1/3 of the full one's time.

    python benchmarks/observation_layouts.py [--games 12] [--rounds 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def positions(games: int) -> list:
    import numpy as np
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import new_game
    names = list_decks()
    out = []
    for seed in range(games):
        g = new_game(load_deck(names[seed % len(names)]),
                     load_deck(names[(seed * 7 + 1) % len(names)]), seed=seed)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            out.append((g.clone(), legal))
            g.apply_action(int(rng.choice(legal)))
    return out


def encode_all(enc, pos, copy_into=None) -> float:
    """CPU seconds to encode every position for both seats (the actor with its legal
    moves), optionally copying each observation into a batch row as ``GameBatch`` does."""
    t = time.process_time()
    if copy_into is None:
        for g, legal in pos:
            p = g.current_player
            enc.encode(g, p, legal)
            enc.encode(g, 1 - p)
    else:
        for g, legal in pos:
            p = g.current_player
            copy_into[0] = enc.encode(g, p, legal)
            copy_into[1] = enc.encode(g, 1 - p)
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    import numpy as np
    from nivel_env.env.encoder import make_encoder
    from nivel_env.env.layout import LAYOUTS
    pos = positions(args.games)
    db = pos[0][0].db
    n = 2 * len(pos)
    times: dict = {(k, c): [] for k in LAYOUTS for c in (False, True)}
    for _ in range(args.rounds):
        for copy in (False, True):
            for kind, lay in LAYOUTS.items():
                enc = make_encoder(db, kind)                 # fresh caches every round
                rows = np.zeros((2, lay.size), np.float32) if copy else None
                times[kind, copy].append(encode_all(enc, pos, rows) / n * 1e6)
    full, comp = LAYOUTS["full"].size, LAYOUTS["compact"].size
    print(f"{len(pos)} positions x 2 seats, {args.rounds} interleaved rounds, CPU time")
    print(f"values per observation: full {full}, compact {comp} ({comp / full:.3f} = "
          f"1/{full / comp:.1f}; target <= 1/8)")
    for copy in (False, True):
        f, c = times["full", copy], times["compact", copy]
        ratios = [b / a for a, b in zip(f, c)]
        what = "encode + copy into a batch row" if copy else "encode"
        print(f"{what:32s} full {statistics.median(f):6.1f} us [{min(f):.1f}-{max(f):.1f}]"
              f"  compact {statistics.median(c):6.1f} us [{min(c):.1f}-{max(c):.1f}]"
              f"  compact/full {statistics.median(ratios):.2f} "
              f"[{min(ratios):.2f}-{max(ratios):.2f}] (target <= 0.33)")


if __name__ == "__main__":
    main()
