"""Observation encoding per position: the Python encoders vs the native core's, both
layouts (full, compact).

Positions: every decision of a few random games on the bundled decks, in game order (so the
Python encoder's caches help as they do in play), each encoded for both seats.  Each round
times, in turn, the Python encoder on the Python games, the env's ``Encoder.encode`` on the
same positions as NativeGames (the dispatch the env uses) and ``NativeEncoder.encode``
direct; rounds interleave the three, and the figures are CPU time (``time.process_time``)
per encoded position: median over rounds, with the spread (min-max).

    python benchmarks/native_encoder.py [--games 6] [--rounds 7]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from nivel_env.cards import load_card_db, load_deck
from nivel_env.cards.db import bundled_card_files
from nivel_env.engine import new_game
from nivel_env.env.encoder import make_encoder
from nivel_env.native.encoder import NativeEncoder
from nivel_env.native.game import from_python

PAIRS = (("ember-rush", "tide-scholars"), ("anvil-guild", "veil-piercers"),
         ("dawn-ascent", "twilight-pact"), ("gale-runners", "stone-bastion"))


def positions(db, games: int):
    out = []
    for s in range(games):
        a, b = PAIRS[s % len(PAIRS)]
        g = new_game(load_deck(a, db), load_deck(b, db), seed=s, db=db, backend="python")
        rng = random.Random(s)
        while not g.is_terminal():
            legal = g.legal_actions()
            out.append((g.clone(), g.current_player, legal))
            g.apply_action(rng.choice(legal))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    db = load_card_db(bundled_card_files())
    pos = positions(db, args.games)
    nat = [(from_python(g), p, legal) for g, p, legal in pos]
    n = 2 * len(pos)
    print(f"{len(pos)} positions x 2 seats from {args.games} random games; CPU time per "
          f"encoded position, median (min-max) of {args.rounds} interleaved rounds")
    for obs in ("full", "compact"):
        py_enc, env_enc = make_encoder(db, obs), make_encoder(db, obs)
        direct = NativeEncoder(make_encoder(db, obs))
        out = np.zeros(direct.size, np.float32)

        def run_python():
            for g, p, legal in pos:
                py_enc.encode(g, p, legal)
                py_enc.encode(g, 1 - p)

        def run_env_native():
            for g, p, legal in nat:
                env_enc.encode(g, p, legal)
                env_enc.encode(g, 1 - p)

        def run_direct():
            for g, p, legal in nat:
                direct.encode(g, p, out, legal)
                direct.encode(g, 1 - p, out)

        runs = {"python": run_python, "native (Encoder.encode)": run_env_native,
                "native (NativeEncoder)": run_direct}
        times = {k: [] for k in runs}
        for f in runs.values():                    # warm-up: caches, first-use setup
            f()
        for _ in range(args.rounds):
            for k, f in runs.items():
                t = time.process_time()
                f()
                times[k].append((time.process_time() - t) / n * 1e6)
        base = statistics.median(times["python"])
        print(f"\n{obs} layout ({direct.size} values):")
        for k, ts in times.items():
            med = statistics.median(ts)
            print(f"  {k:26s} {med:8.2f} us ({min(ts):.2f}-{max(ts):.2f})  "
                  f"{base / med:5.1f}x python")


if __name__ == "__main__":
    main()
