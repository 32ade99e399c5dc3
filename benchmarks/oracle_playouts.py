"""Leaf values against how games end, on the same held-out positions: the shipped value
head (what ``nv2-search`` reads), the full-state oracle (``agents/values/nv2-oracle.pt``)
and the mean outcome of ``m`` uniformly random playouts from the TRUE state (the
oracle's cheap rival, ``agents.oracle.playout_value``), with the cost of each a leaf.

Positions: real decisions of fresh ``nv2-ppo`` self-play games (``agents.oracle.dataset``,
the fit's own game mix, another seed), about ``--states`` of them from the games a fit
would hold out.  Printed per value: correlation and mean squared error with the outcome
for the player to act, and CPU ms a leaf (``process_time``; the nets in batches of 64,
one torch thread).

    python benchmarks/oracle_playouts.py --games 1000 --states 400 --seed 7
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--states", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--playouts", default="1,8,32")
    ap.add_argument("--oracle", default=None, help="an oracle file (default: the shipped)")
    args = ap.parse_args(argv)
    import torch as th
    th.set_num_threads(1)
    from agents.opponents import VALUE_DIR, policy_file
    from agents.oracle import dataset, load_oracle, playout_value, scores
    from agents.policy import PolicyAgent
    from agents.value import load_value_head
    path = policy_file("nv2-ppo")
    agent = PolicyAgent(path)
    head = load_value_head(VALUE_DIR / "nv2-ppo.pt", path)
    oracle = load_oracle(args.oracle or VALUE_DIR / "nv2-oracle.pt", agent, path)
    data = dataset(agent, args.games, args.seed, args.states)
    rows = np.array([i for i, _, _ in data["states"]])
    games = [g for _, g, _ in data["states"]]
    players = [p for _, _, p in data["states"]]
    z = data["outcome"][rows]
    print(f"{len(rows)} held-out positions of {args.games} games")
    t0 = time.process_time()
    with th.no_grad():
        v = head(th.as_tensor(data["mine"][rows].astype(np.float32))).numpy()
    print(f"{'value head':18s} {scores(v, z)}  (views made in self-play)")
    t0 = time.process_time()
    v = np.concatenate([oracle.values(games[i:i + 64], players[i:i + 64])
                        for i in range(0, len(games), 64)])
    ms = (time.process_time() - t0) * 1000 / len(games)
    print(f"{'oracle':18s} {scores(v, z)}  {ms:.2f} ms a leaf")
    rng = np.random.default_rng(args.seed)
    for m in (int(x) for x in args.playouts.split(",")):
        t0 = time.process_time()
        v = np.array([playout_value(g, p, m, rng) for g, p in zip(games, players)])
        ms = (time.process_time() - t0) * 1000 / len(games)
        print(f"{f'{m} playouts':18s} {scores(v, z)}  {ms:.2f} ms a leaf")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
