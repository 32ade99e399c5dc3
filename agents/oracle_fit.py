"""The command that fits an oracle value (``agents.oracle``): the dataset, the fit and the
measurements beside the shipped head and random playouts.

    python -m agents.oracle_fit --games 4000 --seed 0 --out agents/values/nv2-oracle.pt

Apart from ``agents.oracle`` (what a search loads at runtime), as ``agents.value_fit`` is
apart from ``agents.value``: the command reads the self-play loop and the shipped
players, which a search must not import back.
"""
from __future__ import annotations

import argparse
import copy
import sys
import time

import numpy as np
import torch as th

from .oracle import (TURN_BUCKETS, OracleNet, Views, full_state, playout_value,
                     save_oracle)
from .value import ValueHead, load_value_head
from .value_fit import scores


# ------------------------------------------------------------------ the dataset
def dataset(agent, games: int, seed: int, keep_states: int = 0, progress: bool = False):
    """nv2-ppo self-play (``value_fit.self_play``) with the full-state features recorded at
    every sample.  Returns a dict of arrays: ``mine``, ``theirs`` (float16 views),
    ``cards``, ``outcome``, ``game``, ``turn``, and ``states``: up to ``keep_states``
    copies of held-out positions' true states with their sample index (for playouts)."""
    from .value_fit import self_play
    views = Views(agent)
    theirs, cards, states = [], [], []
    rng = np.random.default_rng(seed + 1)
    count = [0]

    def record(samples):
        if not samples:
            return []
        gs, ps = [g for g, _ in samples], [p for _, p in samples]
        _, o, c = full_state(views, gs, ps)
        theirs.append(o.astype(np.float16))
        cards.append(c)
        first = count[0]
        count[0] += len(samples)
        if keep_states and len(states) < keep_states * 12:      # a tenth is held out
            for j, (g, p) in enumerate(samples):
                if rng.random() < 0.02:
                    states.append((first + j, g.clone(), p))
        return list(range(first, count[0]))

    mine, z, gid, turns, _, _ = self_play(agent, games, seed, progress=progress,
                                          record=record)
    held = (gid % 10) == 0
    kept = [(i, g, p) for i, g, p in states if held[i]][:keep_states]
    return {"mine": mine, "theirs": np.concatenate(theirs), "cards": np.concatenate(cards),
            "outcome": z, "game": gid, "turn": turns, "states": kept}


def by_turn(v: np.ndarray, z: np.ndarray, turns: np.ndarray) -> dict:
    """``scores`` per turn bucket (``TURN_BUCKETS``)."""
    out = {}
    for a, b in TURN_BUCKETS:
        m = (turns >= a) & (turns <= b)
        if m.sum() > 1:
            out[f"{a}-{b}" if b < 10 ** 6 else f"{a}+"] = scores(v[m], z[m])
    return out


def _tensors(data, rows):
    return (th.as_tensor(data["mine"][rows].astype(np.float32)),
            th.as_tensor(data["theirs"][rows].astype(np.float32)),
            th.as_tensor(data["cards"][rows].astype(np.int64)))


def predict(net: OracleNet, data, rows, table, batch: int = 4096) -> np.ndarray:
    out = []
    with th.inference_mode():
        for i in range(0, len(rows), batch):
            out.append(net(*_tensors(data, rows[i:i + batch]), table).numpy())
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def fit(data, table: th.Tensor, base: ValueHead | None = None, epochs: int = 12,
        seed: int = 0, hidden: int = 256, embed: int = 32, lr: float = 1e-3,
        symmetric: bool = False, weight_decay: float = 0.0, card_dropout: float = 0.0,
        log=print) -> OracleNet:
    """Fit an OracleNet by mean squared error on the games not held out (game id % 10),
    keeping the best held-out epoch; with ``base`` (the shipped head), a residual on it;
    ``symmetric``: the value is antisymmetric in the two seats.  The positions of one game
    share its outcome and nearly all of its hidden cards, so a net can learn games by
    their decks' order instead of values: ``card_dropout`` blanks that share of the hidden
    cards of each training row, ``weight_decay`` is AdamW's."""
    th.manual_seed(seed)
    held = (data["game"] % 10) == 0
    train, val = np.flatnonzero(~held), np.flatnonzero(held)
    net = OracleNet(data["mine"].shape[1], table.shape[1], embed, hidden, base is not None,
                    symmetric)
    if base is not None:
        net.base.load_state_dict(base.state_dict())
        for q in net.base.parameters():
            q.requires_grad_(False)
    opt = th.optim.AdamW([q for q in net.parameters() if q.requires_grad], lr=lr,
                         weight_decay=weight_decay)
    z = th.as_tensor(data["outcome"])
    best, best_state, worse = np.inf, copy.deepcopy(net.state_dict()), 0
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        t0 = time.time()
        net.train()
        perm = train[rng.permutation(len(train))]
        for i in range(0, len(perm), 512):
            j = perm[i:i + 512]
            mine, theirs, cards = _tensors(data, j)
            if card_dropout > 0:
                cards = cards * (th.rand(cards.shape) >= card_dropout)
            loss = ((net(mine, theirs, cards, table) - z[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        s = scores(predict(net, data, val, table), data["outcome"][val])
        log(f"epoch {epoch + 1}: held-out corr {s['corr']:.3f}, mse {s['mse']:.3f} "
            f"({time.time() - t0:.0f} s)")
        if s["mse"] < best - 1e-4:
            best, best_state, worse = s["mse"], copy.deepcopy(net.state_dict()), 0
        else:
            worse += 1
            if worse >= 2:
                break
    net.load_state_dict(best_state)
    return net.eval()


def _playouts(data, head_v, oracle_v, ms, seed, log) -> dict:
    """Random-playout values of the kept held-out states beside the two nets' values on
    the same positions, and the playouts' cost a leaf (CPU seconds, this process)."""
    rows = np.array([i for i, _, _ in data["states"]], dtype=np.int64)
    if not len(rows):
        return {}
    held = np.flatnonzero((data["game"] % 10) == 0)
    where = {r: k for k, r in enumerate(held)}
    at = np.array([where[r] for r in rows])
    z = data["outcome"][rows]
    out = {"positions": int(len(rows)), "head": scores(head_v[at], z),
           "oracle": scores(oracle_v[at], z)}
    rng = np.random.default_rng(seed)
    for m in ms:
        t0 = time.process_time()
        v = np.array([playout_value(g, p, m, rng) for _, g, p in data["states"]])
        cost = (time.process_time() - t0) / len(rows)
        out[f"playouts_{m}"] = {**scores(v, z), "ms_per_leaf": round(cost * 1000, 2)}
        log(f"{m} random playouts a leaf: {out[f'playouts_{m}']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.oracle_fit",
                                 description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", default="nv2-ppo", help="bundled policy name or policy file")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--embed", type=int, default=16, help="a card's embedding size")
    ap.add_argument("--residual", action="store_true",
                    help="fit a residual on the shipped value head")
    ap.add_argument("--symmetric", action="store_true",
                    help="a value antisymmetric in the seats (both views as a pair)")
    ap.add_argument("--weight-decay", type=float, default=0.05)
    ap.add_argument("--card-dropout", type=float, default=0.5,
                    help="share of hidden cards blanked in each training row")
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--playout-states", type=int, default=300,
                    help="held-out positions valued by random playouts (0: none)")
    ap.add_argument("--playouts", default="1,8,32", help="playouts a leaf, comma separated")
    ap.add_argument("--data", help="an .npz written by --save-data (skips self-play)")
    ap.add_argument("--save-data", help="write the dataset here (.npz, states left out)")
    ap.add_argument("--out", required=True, help="where to write the oracle")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 20:
        ap.error("--games must be at least 20 (a tenth is held out)")
    th.set_num_threads(1)
    from .opponents import VALUE_DIR, policy_file
    from .policy import PolicyAgent
    try:
        path = policy_file(args.policy)
    except ValueError as e:
        ap.error(str(e))
    agent = PolicyAgent(path)
    t0 = time.time()
    if args.data:
        data = dict(np.load(args.data))
        data["states"] = []
        took = float(data.pop("seconds", 0.0))
    else:
        data = dataset(agent, args.games, args.seed, args.playout_states,
                       progress=not args.no_progress)
        took = time.time() - t0
        if args.save_data:
            np.savez(args.save_data, seconds=took,
                     **{k: v for k, v in data.items() if k != "states"})
    n_games = len(np.unique(data["game"]))
    print(f"{n_games} self-play games, {len(data['outcome'])} positions in {took:.0f} s")
    from nivel_env.cards import list_decks, load_deck
    table = th.from_numpy(card_rows(load_deck(list_decks()[0]).db))
    head = load_value_head(VALUE_DIR / f"{args.policy}.pt", path)
    net = fit(data, table, head if args.residual else None, args.epochs, args.seed,
              args.hidden, args.embed, lr=args.lr, symmetric=args.symmetric,
              weight_decay=args.weight_decay, card_dropout=args.card_dropout)
    held = np.flatnonzero((data["game"] % 10) == 0)
    z, turns = data["outcome"][held], data["turn"][held]
    with th.no_grad():
        head_v = head(th.as_tensor(data["mine"][held].astype(np.float32))).numpy()
    oracle_v = predict(net, data, held, table)
    report = {"games": n_games, "positions": int(len(data["outcome"])),
              "held_out_positions": int(len(held)), "dataset_seconds": round(took),
              "head": scores(head_v, z), "oracle": scores(oracle_v, z),
              "head_by_turn": by_turn(head_v, z, turns),
              "oracle_by_turn": by_turn(oracle_v, z, turns)}
    print(f"held out: head corr {report['head']['corr']:.3f} mse {report['head']['mse']:.3f};"
          f" oracle corr {report['oracle']['corr']:.3f} mse {report['oracle']['mse']:.3f}")
    for k in report["head_by_turn"]:
        a, b = report["head_by_turn"][k], report["oracle_by_turn"][k]
        print(f"  turns {k:>6}: {a['positions']:7d} positions, head corr {a['corr']:.3f} "
              f"mse {a['mse']:.3f}; oracle corr {b['corr']:.3f} mse {b['mse']:.3f}")
    if data["states"]:
        ms = [int(m) for m in args.playouts.split(",") if m]
        report["playouts"] = _playouts(data, head_v, oracle_v, ms, args.seed, print)
    out = save_oracle(net, args.out, path, {
        "policy": str(args.policy), "seed": args.seed, **report,
        "command": "python -m agents.oracle_fit " + " ".join(sys.argv[1:] if argv is None
                                                          else argv)})
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
