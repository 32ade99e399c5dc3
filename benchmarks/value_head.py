"""Is a trained policy's critic a usable value estimate?  (The search agent's leaves.)

Plays ``--games`` seeds twice (seats swapped) of the policy (greedy) against the heuristic
over the bundled decks, asks the policy's critic for the value of every position from the
point of view of the player to act (either side: the search evaluates both), and compares
it with how that game ended for that player (+1, -1, 0).  Prints, overall and by turn:
the correlation, the mean squared error against the outcome (a constant 0 scores about
1.0), how often the sign is right where the critic is confident (|v| > 0.2), and a
calibration table (mean outcome per band of v).

    python benchmarks/value_head.py --policy nv2-ppo --games 100
    python benchmarks/value_head.py --policy nv2-ppo --value agents/values/nv2-ppo.pt

``--value`` measures a value head fit by ``agents.value_fit`` on the same positions, beside
the critic.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="nv2-ppo", help="bundled name or policy file")
    ap.add_argument("--games", type=int, default=100, help="seeds (each played twice)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--value", help="also measure this value head (agents.value_fit)")
    args = ap.parse_args()
    import torch as th

    from agents import HeuristicAgent, load_opponent
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import N_ACTIONS, new_game
    from nivel_env.env.encoder import Encoder
    th.set_num_threads(1)
    me = load_opponent(args.policy)
    net = me.policy
    decks = [load_deck(n) for n in list_decks()]
    enc = Encoder(decks[0].db)
    values, outcomes, turns, head_values = [], [], [], []
    head = None
    if args.value:
        from agents.opponents import policy_file
        from agents.value import load_value_head, value_features
        head = load_value_head(args.value, policy_file(args.policy))
    rng = np.random.default_rng(args.seed)
    for i in range(args.games):
        d0, d1 = decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]
        for policy_seat in (0, 1):
            g = new_game(d0, d1, seed=args.seed * 1_000_003 + i)
            heur = HeuristicAgent(i)
            rows, who, when = [], [], []
            mask = np.zeros(N_ACTIONS, dtype=np.int8)
            while g.result is None:
                p = g.dec[1]
                legal = g.legal_actions()
                obs = enc.encode(g, p, legal).copy()
                rows.append(obs[:me.n_obs])
                who.append(p)
                when.append(g.turn)
                mask[:] = 0
                mask[legal] = 1
                agent = me if p == policy_seat else heur
                g.apply_action(int(agent.act(obs, mask)))
            with th.no_grad():
                x = th.as_tensor(np.stack(rows))
                v = net.predict_values(x).numpy().reshape(-1)
                if head is not None:
                    head_values.extend(head(value_features(net, x)[1]).numpy().tolist())
            values.extend(v.tolist())
            outcomes.extend(float(g.result[p]) for p in who)
            turns.extend(when)
    z, t = np.array(outcomes), np.array(turns)
    for name, vals in (("critic", values), (f"value head {args.value}", head_values)):
        if vals:
            print(f"\n{args.policy}, {name}: {len(z):,} positions from {2 * args.games} "
                  f"games against the heuristic (both sides' positions)")
            report(np.clip(np.array(vals), -1, 1), z, t)


def report(v, z, t) -> None:
    """Correlation, error and sign accuracy overall and by turn; a calibration table."""
    def line(name, sel):
        if sel.sum() < 10:
            return
        vv, zz = v[sel], z[sel]
        conf = np.abs(vv) > 0.2
        sign = (np.sign(vv[conf]) == np.sign(zz[conf])).mean() if conf.any() else float("nan")
        print(f"{name:<14s} n={sel.sum():6d}  corr={np.corrcoef(vv, zz)[0, 1]:+.3f}  "
              f"mse={np.mean((vv - zz) ** 2):.3f}  sign right where |v|>0.2: {sign:.3f} "
              f"({conf.mean():.0%} of positions)")
    line("all", np.ones_like(v, bool))
    for lo, hi in ((1, 3), (4, 6), (7, 9), (10, 99)):
        line(f"turns {lo}-{hi}", (t >= lo) & (t <= hi))
    print("calibration: band of v -> mean outcome (count)")
    for lo in np.arange(-1.0, 1.0, 0.25):
        sel = (v >= lo) & (v < lo + 0.25 + (1e-9 if lo >= 0.75 else 0))
        if sel.any():
            print(f"  [{lo:+.2f}, {lo + 0.25:+.2f})  {z[sel].mean():+.3f}  ({sel.sum()})")


if __name__ == "__main__":
    main()
