"""A value head for search, fit to how self-play games of a policy end.

PPO's critic estimates the return of the policy *against the training pool* (mostly
weaker opponents), so it is optimistic for whichever seat it is asked about; a search
needs the value of a position when both sides play well.  This fits a small head over the
policy's own value features (the trunk the critic reads) to the outcome of self-play
games of that policy -- the actor is untouched, and a search reads both from one forward.

    python -m agents.value_fit --policy nv2-ppo --games 20000 --out agents/values/nv2-ppo.pt

Games: the policy against itself over the bundled decks, each seat at a temperature drawn
from 0 / 0.5 / 1 per game (varied positions, still the policy's own play).  Every real
decision (more than one legal move) is a sample: the value features of the position seen
by the player to act, and how the game ended for that player (+1, -1, 0).  A tenth of the
games (by game) is held out; training stops when the held-out error stops improving.
The file records the policy it belongs to (its SHA-256) and the held-out figures of the
old critic and the new head.  The head itself, and the reader a search uses, live in
``agents.value``; this module is only the command that fits one.
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np
import torch as th
from torch import nn

from .value import (VALUE_FORMAT, VALUE_VERSION, ValueHead, critic_width, sha256,
                    value_features)

TEMPERATURES = (0.0, 0.5, 1.0)


# ------------------------------------------------------------------ self-play data
def self_play(agent, games: int, seed: int, batch: int = 64, progress: bool = False,
              record=None):
    """``games`` self-play games of ``agent`` (a PolicyAgent), ``batch`` at a time, one
    forward per step.  Returns (features float16 [n, width], outcome [n], game id [n],
    turn [n], old critic value [n]).

    ``record``, if given, is called once a step with that step's samples as a list of
    (game, player to act) before their moves are played (the games are live: copy what
    is kept), and returns one item per sample; the list of all items, in sample order,
    is returned as a sixth element (``agents.oracle_fit`` records the full state this way)."""
    from tqdm import tqdm

    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import N_ACTIONS, new_game
    from nivel_env.env.encoder import Encoder
    net = agent.policy
    width = critic_width(net)
    decks = [load_deck(d) for d in list_decks()]
    enc = Encoder(decks[0].db)
    rng = np.random.default_rng(seed)
    feats, who, gid, turns, old, extra = [], [], [], [], [], []
    results: dict = {}
    live: list = []
    started = 0
    bar = tqdm(total=games, unit="game", disable=not progress)

    def start():
        nonlocal started
        d0, d1 = decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]
        g = new_game(d0, d1, seed=int(rng.integers(1 << 31)))
        live.append((started, g, rng.choice(TEMPERATURES, size=2)))
        started += 1

    while started < min(batch, games):
        start()
    obs = np.zeros((batch, agent.n_obs), dtype=np.float32)
    masks = np.zeros((batch, N_ACTIONS), dtype=bool)
    while live:
        k = len(live)
        masks[:k] = False
        legals = []
        for i, (_, g, _) in enumerate(live):
            legal = g.legal_actions()
            legals.append(legal)
            obs[i] = enc.encode(g, g.current_player, legal)[:agent.n_obs]
            masks[i, legal] = True
        with th.no_grad():
            logits, latent = value_features(net, th.as_tensor(obs[:k]).to(net.device))
            v = net.value_net(latent).reshape(-1).float().cpu().numpy()
            logits = logits.float().cpu().numpy()
            latent = latent[:, :width].float().cpu().numpy().astype(np.float16)
        z = np.where(masks[:k], logits, -np.inf)
        if record is not None:
            extra.extend(record([(g, g.current_player) for i, (_, g, _) in enumerate(live)
                                 if len(legals[i]) > 1]))
        nxt = []
        for i, (n, g, temps) in enumerate(live):
            p = g.current_player
            if len(legals[i]) > 1:
                feats.append(latent[i])
                who.append(p)
                gid.append(n)
                turns.append(g.turn)
                old.append(v[i])
            t = temps[p]
            a = int(np.argmax(z[i] / t - np.log(-np.log(rng.random(N_ACTIONS)))) if t > 0
                    else np.argmax(z[i]))
            g.apply_action(a)
            if g.result is None:
                nxt.append((n, g, temps))
            else:
                results[n] = g.result
                bar.update()
        live[:] = nxt
        while len(live) < batch and started < games:
            start()
    bar.close()
    outcome = np.array([results[n][p] for n, p in zip(gid, who)], dtype=np.float32)
    out = (np.array(feats, dtype=np.float16), outcome, np.array(gid), np.array(turns),
           np.array(old, dtype=np.float32))
    return out if record is None else out + (extra,)


def scores(v: np.ndarray, z: np.ndarray) -> dict:
    """Correlation and mean squared error of values (clipped to [-1, 1]) with outcomes."""
    v = np.clip(v, -1.0, 1.0)
    corr = float(np.corrcoef(v, z)[0, 1]) if len(z) > 1 and v.std() > 0 else float("nan")
    return {"corr": round(corr, 4), "mse": round(float(np.mean((v - z) ** 2)), 4),
            "positions": int(len(z))}


def fit(features, outcome, games, init: nn.Module | None = None, epochs: int = 20,
        seed: int = 0, log=print) -> tuple[ValueHead, np.ndarray]:
    """Fit a ValueHead by mean squared error; a tenth of the games held out, the best
    held-out epoch kept.  Returns the head and the held-out mask."""
    th.manual_seed(seed)
    held = (games % 10) == 0
    width = features.shape[1]
    head = ValueHead(width)
    if init is not None:                              # start from the policy's critic
        try:
            head.net.load_state_dict(copy.deepcopy(init.net).float().state_dict())
        except (AttributeError, RuntimeError):
            pass
    x = th.as_tensor(features[~held].astype(np.float32))
    y = th.as_tensor(outcome[~held])
    xv = th.as_tensor(features[held].astype(np.float32))
    opt = th.optim.Adam(head.parameters(), lr=1e-3)
    best, best_state, worse = np.inf, copy.deepcopy(head.state_dict()), 0
    for epoch in range(epochs):
        perm = th.randperm(len(y))
        for i in range(0, len(perm), 512):
            j = perm[i:i + 512]
            loss = ((head(x[j]) - y[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with th.no_grad():
            s = scores(head(xv).numpy(), outcome[held])
        log(f"epoch {epoch + 1}: held-out corr {s['corr']:.3f}, mse {s['mse']:.3f}")
        if s["mse"] < best - 1e-4:
            best, best_state, worse = s["mse"], copy.deepcopy(head.state_dict()), 0
        else:
            worse += 1
            if worse >= 3:
                break
    head.load_state_dict(best_state)
    return head.eval(), held


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.value_fit",
                                 description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--policy", default="nv2-ppo", help="bundled policy name or policy file")
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=None, help="torch threads")
    ap.add_argument("--out", required=True, help="where to write the value head")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 20:
        ap.error("--games must be at least 20 (a tenth is held out)")
    if args.threads:
        th.set_num_threads(args.threads)
    from .opponents import policy_file
    try:
        path = policy_file(args.policy)
    except ValueError as e:
        ap.error(str(e))
    from .policy import PolicyAgent
    agent = PolicyAgent(path)
    t0 = time.time()
    feats, z, gid, turns, old = self_play(agent, args.games, args.seed,
                                          progress=not args.no_progress)
    print(f"{args.games} self-play games, {len(z)} positions in {time.time() - t0:.0f} s")
    head, held = fit(feats, z, gid, init=agent.policy.value_net, epochs=args.epochs,
                     seed=args.seed)
    with th.no_grad():
        new = head(th.as_tensor(feats[held].astype(np.float32))).numpy()
    before, after = scores(old[held], z[held]), scores(new, z[held])
    late = turns[held] >= 10
    after_late = scores(new[late], z[held][late])
    print(f"held out: the policy's critic corr {before['corr']:.3f} mse {before['mse']:.3f}; "
          f"this head corr {after['corr']:.3f} mse {after['mse']:.3f} "
          f"(turn 10 on: corr {after_late['corr']:.3f})")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    th.save({"format": VALUE_FORMAT, "version": VALUE_VERSION, "width": head.width,
             "hidden": head.hidden, "policy_sha256": sha256(path),
             "state_dict": {k: v.half() for k, v in head.state_dict().items()},
             "meta": {"policy": str(args.policy), "games": args.games, "seed": args.seed,
                      "positions": int(len(z)), "held_out_critic": before,
                      "held_out_head": after, "held_out_head_turn10": after_late,
                      "command": "python -m agents.value_fit " + " ".join(
                          sys.argv[1:] if argv is None else argv)}}, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
