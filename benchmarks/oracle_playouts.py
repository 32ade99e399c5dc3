"""Leaf values against how games end, on the same held-out positions: the shipped value
head (what ``nv2-search`` reads), the full-state oracle (``agents/values/nv2-oracle.pt``)
and the mean outcome of ``m`` uniformly random playouts from the TRUE state (the
oracle's cheap rival, ``agents.oracle.playout_value``), with the cost of each a leaf; and,
as a gauge of how far any value of a position can follow these outcomes, the mean
outcome of ``nv2-ppo`` playing on against itself from the true state (greedy once, and
``m`` times at temperature 0.5 and 1: the self-play games' own seats play at 0, 0.5 or 1).

Positions: real decisions of fresh ``nv2-ppo`` self-play games (``agents.oracle_fit.dataset``,
the fit's own game mix, another seed), about ``--states`` of them from the games a fit
would hold out.  Printed per value: correlation and mean squared error with the outcome
for the player to act, and CPU ms a leaf (``process_time``; the nets in batches of 64,
one torch thread).

    python benchmarks/oracle_playouts.py --games 800 --states 300 --seed 7
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def policy_playouts(agent, games, players, m: int, temperature: float, rng):
    """The mean outcome for ``players[k]`` of ``m`` games of ``agent`` against itself from
    each of ``games`` (copies), every game a row of one forward per step."""
    import torch as th

    from agents.value import value_features
    from nivel_env.engine import N_ACTIONS
    from nivel_env.env.encoder import Encoder
    enc = Encoder(games[0].db)
    live = [(k, g.clone()) for k, g in enumerate(games) for _ in range(m)]
    total = np.zeros(len(games))
    while live:
        obs = np.zeros((len(live), agent.n_obs), np.float32)
        mask = np.zeros((len(live), N_ACTIONS), bool)
        for i, (_, g) in enumerate(live):
            legal = g.legal_actions()
            obs[i] = enc.encode(g, g.current_player, legal)[:agent.n_obs]
            mask[i, legal] = True
        with th.no_grad():
            logits = value_features(agent.policy, th.from_numpy(obs))[0].float().numpy()
        z = np.where(mask, logits, -np.inf)
        nxt = []
        for i, (k, g) in enumerate(live):
            a = int(np.argmax(z[i] / temperature - np.log(-np.log(rng.random(N_ACTIONS)))))\
                if temperature > 0 else int(np.argmax(z[i]))
            g.apply_action(a)
            if g.result is None:
                nxt.append((k, g))
            else:
                total[k] += g.result[players[k]]
        live = nxt
    return total / m


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
    from agents.oracle import load_oracle, playout_value
    from agents.oracle_fit import dataset, scores
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
    for m, temperature in ((1, 0.0), (8, 0.5), (8, 1.0)):
        t0 = time.process_time()
        v = policy_playouts(agent, games, players, m, temperature, rng)
        ms = (time.process_time() - t0) * 1000 / len(games)
        print(f"{f'{m} nv2-ppo T={temperature}':18s} {scores(v, z)}  {ms:.1f} ms a leaf")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
