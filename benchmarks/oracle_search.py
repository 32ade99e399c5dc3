"""What the oracle costs a search a move: ``nv2-search-deep`` (512 simulations, the value
head at the leaves) against the same search with the full-state oracle at the leaves
(``agents.oracle``, ``nv2-search-deep:oracle=nv2``), on the same positions.

Positions: real decisions of ``nv2-ppo`` self-play games on the native core (every
``--every``-th one).  On each position both agents move once, in alternating order (the
plain search first on even positions), so both see the same load from whatever else the
machine runs; one torch thread.  Printed per agent: the moves timed and their median,
10th and 90th percentile wall time (``perf_counter``) and median CPU time
(``process_time``), in ms, and how often the two agents chose the same move.

    python benchmarks/oracle_search.py --games 2 --every 4
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def positions(games: int, every: int, seed: int) -> list:
    from agents import load_opponent
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import new_game
    agent = load_opponent("nv2-ppo")
    decks = [load_deck(d) for d in list_decks()]
    rng = np.random.default_rng(seed)
    out, k = [], 0
    for _ in range(games):
        g = new_game(decks[rng.integers(len(decks))], decks[rng.integers(len(decks))],
                     seed=int(rng.integers(1 << 31)))
        while g.result is None:
            legal = g.legal_actions()
            if len(legal) > 1:
                if k % every == 0:
                    out.append(g.clone())
                k += 1
            g.apply_action(_policy_move(agent, g, legal))
    return out


def _policy_move(agent, g, legal):
    from nivel_env.engine import N_ACTIONS
    from nivel_env.env.encoder import Encoder
    enc = getattr(agent, "_bench_encoder", None)
    if enc is None or enc.db is not g.db:
        enc = agent._bench_encoder = Encoder(g.db)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    return int(agent.act(enc.encode(g, g.current_player, legal)[:agent.n_obs], mask))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--every", type=int, default=4, help="time every n-th real decision")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--oracle", default="nv2", help="the oracle setting: a name or a path")
    args = ap.parse_args(argv)
    import torch as th
    th.set_num_threads(1)
    from agents import load_opponent
    oracle = f"nv2-search-deep:oracle={args.oracle}"
    agents = {"nv2-search-deep": load_opponent("nv2-search-deep", seed=1),
              oracle: load_opponent(oracle, seed=1)}
    games = positions(args.games, args.every, args.seed)
    wall = {k: [] for k in agents}
    cpu = {k: [] for k in agents}
    moves = {k: [] for k in agents}
    names = list(agents)
    for i, g in enumerate(games):
        for name in (names if i % 2 == 0 else names[::-1]):
            t0, c0 = time.perf_counter(), time.process_time()
            moves[name].append(agents[name].act_state(g))
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    for name in names:
        w = np.array(wall[name])
        print(f"{name:28s} {len(w):4d} moves: wall ms median {np.median(w):7.1f} "
              f"(p10 {np.percentile(w, 10):6.1f}, p90 {np.percentile(w, 90):6.1f}), "
              f"cpu ms median {np.median(cpu[name]):7.1f}")
    same = np.mean(np.array(moves[names[0]]) == np.array(moves[names[1]]))
    print(f"same move: {same:.2f} of {len(games)} positions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
