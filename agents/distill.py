"""Expert iteration: distil a search into the policy it searches with, in rounds.

A search over a policy (``agents.search``) plays better than the policy alone, but costs
tens of milliseconds a move; a policy's move costs about one.  Expert iteration (Anthony
et al. 2017; AlphaZero's training loop) moves the search's strength into the policy:

1. **Data.**  The search over the current policy plays games against itself over the
   bundled decks.  At each real decision (more than one legal move) it records the
   position as its player sees it (the policy's observation), the search's move
   distribution there (its visit counts over the legal moves, normalised: the *target*),
   and, when the game ends, how it ended for that player.  The first ``explore`` real
   decisions of a game are sampled from the visits (varied openings), the rest are the
   most visited move.
2. **Fit.**  The policy network is trained from the current weights to the search's most
   visited move (cross-entropy over the legal moves; ``--target visits`` fits the visit
   shares instead, which a small budget spreads too thin to teach: ``search_targets``),
   then its critic's own layers to the outcomes (squared error), a tenth of the games held
   out: each stage stops when the held-out loss stops falling.  The first round's critic
   starts from the search's value head (``agents/values/``: the same shape as the pointer
   network's critic), so the search of the next round reads a value fit to self-play
   outcomes from its very first move.
3. **Measure.**  The new policy alone, greedy, against the shipped ``nv2-ppo`` and the
   heuristic in duplicate deals (``policy_eval.evaluate_policy``, evaluate.py's deals and
   paired intervals).

The next round searches over the new policy with its own critic as the value.  Rounds
write ``OUT/round-N/``: ``policy.pt`` (a policy file, loadable by every command that takes
one), ``data/*.npz`` (the samples) and ``report.json`` (the fit's held-out figures and the
evaluation); ``OUT/rounds.json`` gathers every round::

    python -m agents.distill --policy nv2-ppo --value agents/values/nv2-ppo.pt \\
        --rounds 2 --games 400 --simulations 64 --out runs/distill

The search reads only what its player may see (the hidden-information check holds it to
that); the data therefore never holds a hidden card either.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

#: how a search game's first real decisions are chosen: sampled from the visits
EXPLORE = 12
#: the share of a round's games held out of the fit (whole games)
HOLDOUT = 0.1


# ------------------------------------------------------------------ the search's games
def _search_agent(policy_file: str, value_file: str | None, settings: dict, seed: int):
    """A ``SearchAgent`` over the policy in ``policy_file`` (and the value head in
    ``value_file``, None: the policy's critic) with ``settings``; cached per process."""
    key = (policy_file, value_file, tuple(sorted(settings.items())))
    cache = _search_agent.__dict__.setdefault("cache", {})
    if key not in cache:
        from .policy import PolicyAgent
        from .search import SearchAgent
        agent = PolicyAgent(policy_file)
        cache[key] = SearchAgent(agent, value=value_file,
                                 policy_path=policy_file if value_file else None,
                                 seed=seed, **settings)
    a = cache[key]
    a.rng = np.random.default_rng(seed)
    return a


def play_search_game(agent, deck_0, deck_1, seed: int, explore: int = EXPLORE) -> dict:
    """One game of ``agent`` (a ``SearchAgent``) against itself: the arrays of its real
    decisions (``obs`` float16, ``legal`` as a bool mask, ``target`` the visit shares,
    ``player``, ``turn``) and ``outcome`` per decision, from the player to act's side."""
    from nivel_env.engine import N_ACTIONS, new_game
    from nivel_env.env.encoder import Encoder
    g = new_game(deck_0, deck_1, seed=seed)
    enc = Encoder(g.db)
    n_obs = agent.n_obs
    obs, masks, targets, improved, who, turns = [], [], [], [], [], []
    real = 0
    while g.result is None:
        legal = g.legal_actions()
        p = g.current_player
        if len(legal) == 1:
            g.apply_action(legal[0])
            continue
        agent.temperature = 1.0 if real < explore else 0.0
        move = agent.act_state(g)
        stats = agent.last_stats
        visits = stats["visits"]
        total = sum(visits.values())
        target = np.zeros(N_ACTIONS, dtype=np.float32)
        for a, v in visits.items():
            target[a] = v / total
        better = np.zeros(N_ACTIONS, dtype=np.float32)  # the Gumbel root's improved policy
        for a, v in stats.get("improved", {}).items():
            better[a] = v
        mask = np.zeros(N_ACTIONS, dtype=bool)
        mask[legal] = True
        obs.append(enc.encode(g, p, legal)[:n_obs].astype(np.float16))
        masks.append(mask)
        targets.append(target)
        improved.append(better)
        who.append(p)
        turns.append(g.turn)
        real += 1
        g.apply_action(move)
    result = g.result
    agent.temperature = 0.0
    n = len(who)
    return {"obs": np.stack(obs) if n else np.zeros((0, n_obs), np.float16),
            "legal": np.stack(masks) if n else np.zeros((0, N_ACTIONS), bool),
            "target": np.stack(targets) if n else np.zeros((0, N_ACTIONS), np.float32),
            "improved": np.stack(improved) if n else np.zeros((0, N_ACTIONS), np.float32),
            "player": np.array(who, dtype=np.int8), "turn": np.array(turns, dtype=np.int16),
            "outcome": np.array([result[p] for p in who], dtype=np.float32)}


def play_search_block(task) -> dict:
    """A worker's share: ``(policy_file, value_file, settings, [(deck, deck, seed)],
    explore, out_path)`` -> the block's samples written to ``out_path`` (an .npz, with
    ``game``: the deal's seed per sample) and a summary."""
    from nivel_env.tournaments.games import cached_deck
    policy_file, value_file, settings, block, explore, out = task
    t0 = time.process_time()
    parts = []
    for d0, d1, seed in block:
        agent = _search_agent(policy_file, value_file, settings, seed)
        part = play_search_game(agent, cached_deck(d0), cached_deck(d1), seed, explore)
        part["game"] = np.full(len(part["player"]), seed, dtype=np.int64)
        parts.append(part)
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    np.savez(out, **data)
    return {"path": str(out), "samples": int(len(data["game"])), "games": len(block),
            "cpu_s": time.process_time() - t0}


def load_samples(paths) -> dict:
    """The samples of several .npz files, concatenated."""
    parts = [dict(np.load(p)) for p in paths]
    keys = [k for k in parts[0] if all(k in p for p in parts)]   # older files: fewer arrays
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


# ------------------------------------------------------------------ the fit
def held_out(games: np.ndarray) -> np.ndarray:
    """A bool mask of the held-out samples: about ``HOLDOUT`` of the games, whole, chosen by
    a hash of the game's seed -- the same games in every round, so a fit that reads earlier
    rounds' data never tests on a game an earlier fit trained on."""
    h = (games.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (h % np.uint64(1000)) < np.uint64(int(HOLDOUT * 1000))


def _losses(policy, obs, legal, target, outcome):
    """(cross-entropy to the targets, squared error of the critic, top-1 agreement with
    the target's most visited move) per sample, as tensors."""
    import torch as th
    logits, value = policy(obs)
    logits = logits.masked_fill(~legal, -1e9)
    logp = th.log_softmax(logits, dim=1)
    ce = -(target * logp).sum(1)
    mse = (value.squeeze(1) - outcome) ** 2
    agree = (logits.argmax(1) == target.argmax(1)).float()
    return ce, mse, agree, value.squeeze(1)


def evaluate_fit(policy, data: dict, rows: np.ndarray, batch: int = 512) -> dict:
    """Mean cross-entropy, critic error, agreement and the critic's correlation with the
    outcome over ``rows`` of ``data``."""
    import torch as th
    policy.eval()
    ce = mse = agree = 0.0
    values = []
    with th.no_grad():
        for k in range(0, len(rows), batch):
            r = rows[k:k + batch]
            c, m, a, v = _losses(policy, *_tensors(data, r))
            ce, mse, agree = ce + c.sum().item(), mse + m.sum().item(), agree + a.sum().item()
            values.append(v.numpy())
    n = max(1, len(rows))
    v = np.concatenate(values) if values else np.zeros(0)
    z = data["outcome"][rows]
    corr = float(np.corrcoef(v, z)[0, 1]) if len(rows) > 2 and v.std() > 0 and z.std() > 0 \
        else float("nan")
    return {"cross_entropy": ce / n, "value_mse": mse / n, "agreement": agree / n,
            "value_corr": corr, "samples": int(len(rows))}


def _tensors(data: dict, rows: np.ndarray):
    import torch as th
    return (th.from_numpy(data["obs"][rows].astype(np.float32)),
            th.from_numpy(data["legal"][rows]), th.from_numpy(data["target"][rows]),
            th.from_numpy(data["outcome"][rows]))


def search_targets(data: dict, kind: str) -> np.ndarray:
    """What the policy is fit to: ``"best"``, the search's most visited move (one-hot),
    ``"visits"``, its visit shares, or ``"improved"``, the Gumbel root's improved policy
    (softmax of the logits plus sigma of the completed values, Danihelka et al. 2022: a
    target that improves on the policy at every budget, visited moves or not).  A small budget over flattened priors spreads the visits
    widely: fit to the shares, the policy grew as flat and its own first choice agreed with
    the search's less often than before the fit (0.875 -> 0.76, 600 games at 64
    simulations); the most visited move is what the search would play."""
    if kind == "visits":
        return data["target"]
    if kind == "improved":
        better = data.get("improved")
        if better is None or not (better.sum(1) > 0).all():
            raise ValueError("search_targets: 'improved' needs the Gumbel root's improved "
                             "policy at every sample (search with --root gumbel)")
        return better
    if kind != "best":
        raise ValueError(f"search_targets: kind must be 'best', 'visits' or 'improved', "
                         f"got {kind!r}")
    out = np.zeros_like(data["target"])
    out[np.arange(len(out)), data["target"].argmax(1)] = 1.0
    return out


def _train(policy, data, train_rows, held_rows, params, loss_of, score_of, *, epochs, lr,
           batch, seed, log, what) -> tuple[dict, int]:
    """Adam over ``params`` on ``train_rows``, an epoch at a time, while the held-out
    ``score_of(figures)`` falls; the best epoch's weights are kept.  Returns (its held-out
    figures, its epoch: 0 when none improved)."""
    import copy

    import torch as th
    for q in policy.parameters():
        q.requires_grad_(False)
    for q in params:
        q.requires_grad_(True)
    opt = th.optim.Adam(params, lr=lr)
    rng = np.random.default_rng(seed)
    now = evaluate_fit(policy, data, held_rows)
    best = (score_of(now), copy.deepcopy(policy.state_dict()), now, 0)
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        order = rng.permutation(train_rows)
        for k in range(0, len(order), batch):
            loss = loss_of(*_losses(policy, *_tensors(data, np.sort(order[k:k + batch]))))
            opt.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(params, 0.5)
            opt.step()
        now = evaluate_fit(policy, data, held_rows)
        log(f"  {what} epoch {epoch}: {_fmt(now)}")
        if score_of(now) < best[0]:
            best = (score_of(now), copy.deepcopy(policy.state_dict()), now, epoch)
        else:
            break
    policy.load_state_dict(best[1])
    policy.set_training_mode(False)
    for q in policy.parameters():
        q.requires_grad_(False)
    return best[2], best[3]


def fit_policy(policy, data: dict, *, seed: int = 0, epochs: int = 6, lr: float = 1e-4,
               batch: int = 256, value_coef: float = 0.25, log=print) -> dict:
    """Train ``policy`` (a ``PolicyNetwork``, in place) to ``data``'s targets and outcomes,
    in two stages, each stopped after the epoch whose held-out loss did not improve (the
    best weights kept): the whole network to the targets (cross-entropy, plus
    ``value_coef`` times the critic's squared error, so the trunk keeps what the value
    reads), then the critic's own layers alone to the outcomes, over the trunk the first
    stage left (the shared trunk moved under it).  Returns the held-out figures before and
    after each stage."""
    held = held_out(data["game"])
    if not held.any() or held.all():                 # a handful of games: hold one out
        held = data["game"] == data["game"].max()
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    before = evaluate_fit(policy, data, held_rows)
    log(f"  held out before: {_fmt(before)}")
    common = {"epochs": epochs, "batch": batch, "seed": seed, "log": log}
    policy_fit, policy_epochs = _train(
        policy, data, train_rows, held_rows, list(policy.parameters()),
        lambda ce, mse, *_: ce.mean() + value_coef * mse.mean(),
        lambda m: m["cross_entropy"] + value_coef * m["value_mse"], lr=lr, what="policy",
        **common)
    after, value_epochs = _train(
        policy, data, train_rows, held_rows, list(policy.value_net.parameters()),
        lambda ce, mse, *_: mse.mean(), lambda m: m["value_mse"], lr=3 * lr, what="value",
        **common)
    return {"before": before, "policy_stage": policy_fit, "after": after,
            "epochs": policy_epochs, "value_epochs": value_epochs,
            "train_samples": int(len(train_rows))}


def _fmt(m: dict) -> str:
    return (f"cross-entropy {m['cross_entropy']:.3f}, agreement {m['agreement']:.3f}, "
            f"value mse {m['value_mse']:.3f}, corr {m['value_corr']:.3f} "
            f"({m['samples']} samples)")


def critic_from_head(policy, head) -> bool:
    """Copy a ``ValueHead``'s weights into the pointer network's critic when they have the
    same shape (a head over the trunk's features); returns whether it did."""
    net = getattr(policy.value_net, "net", None)
    if net is None:
        return False
    want = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    have = {k: tuple(v.shape) for k, v in head.net.state_dict().items()}
    if want != have or getattr(policy.value_net, "trunk_dim", None) != head.width:
        return False
    net.load_state_dict(head.net.state_dict())
    return True


# ------------------------------------------------------------------ rounds
def _deck_specs(decks) -> list:
    from nivel_env.cards import list_decks
    return list(decks) if decks else list(list_decks())


def run_round(r: int, args, policy_file: str, value_file: str | None, out: Path) -> dict:
    """Round ``r``: search games over ``policy_file``, a fit, an evaluation."""
    from nivel_env.cards import load_deck
    from nivel_env.tournaments.arena import deals
    from nivel_env.tournaments.policy_eval import evaluate_policy
    from nivel_env.tournaments.runner import Runner, run_tasks

    from .policy import PolicyAgent, export_policy, read_policy_file
    here = out / f"round-{r}"
    (here / "data").mkdir(parents=True, exist_ok=True)
    specs = _deck_specs(args.decks)
    settings = {"simulations": args.simulations, "worlds": args.worlds, "batch": args.batch,
                "root": args.root}
    plan = deals(specs, args.games, args.seed * 1000 + r)
    size = max(1, args.block)
    tasks = [(policy_file, value_file, settings, plan[k:k + size], args.explore,
              str(here / "data" / f"block-{k // size:04d}.npz"))
             for k in range(0, len(plan), size)]
    t0 = time.perf_counter()
    kept = [t for t in tasks if args.reuse_data and Path(t[5]).is_file()]
    if kept:
        print(f"round {r}: reusing {len(kept)} of {len(tasks)} blocks' samples", flush=True)
    todo = [t for t in tasks if t not in kept]
    done = run_tasks(todo, Runner(args.workers), f"round {r} games", not args.no_progress,
                     fn=play_search_block, size=lambda t: len(t[3]))
    done += [{"path": t[5], "cpu_s": 0.0} for t in kept]
    data_s = time.perf_counter() - t0
    data = load_samples(sorted(d["path"] for d in done))
    for back in range(1, args.window):               # earlier rounds' data, when kept
        old = sorted((out / f"round-{r - back}" / "data").glob("*.npz")) if r - back >= 1 \
            else []
        if old:
            prev = load_samples(old)
            data = {k: np.concatenate([data[k], prev[k]]) for k in data if k in prev}
    print(f"round {r}: {args.games} games, {len(data['game'])} samples in {data_s:.0f} s "
          f"({sum(d['cpu_s'] for d in done):.0f} s CPU)", flush=True)
    data["target"] = search_targets(data, args.target)
    policy, meta = read_policy_file(policy_file)
    if r == 1 and value_file:
        from .value import load_value_head
        critic_from_head(policy, load_value_head(value_file, policy_file))
    t1 = time.perf_counter()
    fit = fit_policy(policy, data, seed=args.seed + r, epochs=args.epochs, lr=args.lr)
    fit_s = time.perf_counter() - t1
    path = export_policy(policy, here / "policy.pt", meta={
        "layout_version": meta["layout_version"],    # the parent's: it reads that prefix
        "trained_by": "agents.distill", "round": r, "parent": str(policy_file),
        "games": args.games, "samples": int(len(data["game"])), "simulations": args.simulations,
        "worlds": args.worlds, "command": " ".join(sys.argv)})
    report = {"round": r, "policy": str(path), "games": args.games,
              "samples": int(len(data["game"])), "data_seconds": round(data_s, 1),
              "fit_seconds": round(fit_s, 1), "fit": fit, "search": settings,
              "target": args.target}
    if args.eval_games:
        decks = [load_deck(s) for s in specs]
        me = PolicyAgent(str(path))
        workers = max(1, args.workers)
        report["evaluation"] = evaluate_policy(
            me, {"nv2-ppo": "nv2-ppo", "heuristic": "heuristic"}, decks, args.eval_games,
            args.seed + 7, workers=workers, policy_file=str(path), deck_specs=specs,
            progress=not args.no_progress, desc=f"round {r} evaluation")
        for label, s in report["evaluation"].items():
            print(f"round {r}: against {label}: {s['score']:.3f} [{s['low']:.3f}, "
                  f"{s['high']:.3f}] over {s['games']} games", flush=True)
    (here / "report.json").write_text(json.dumps(report, indent=1))
    return report


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m agents.distill", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--policy", default="nv2-ppo", help="the policy to start from: a shipped "
                   "name (nv2-ppo) or a policy file")
    p.add_argument("--value", default="auto", help="the first round's value head, fit to "
                   "--policy: a file, 'auto' (the shipped head of a shipped policy, "
                   "agents/values/NAME.pt, else the critic) or 'none' (its critic); later "
                   "rounds use the distilled policy's critic")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--games", type=int, default=200, help="search games a round")
    p.add_argument("--simulations", type=int, default=64)
    p.add_argument("--worlds", type=int, default=4)
    p.add_argument("--batch", type=int, default=16, help="leaves a forward")
    p.add_argument("--explore", type=int, default=EXPLORE, help="a game's first real "
                   "decisions sampled from the visits")
    p.add_argument("--root", choices=("puct", "gumbel"), default="puct",
                   help="the search's root (agents.search)")
    p.add_argument("--target", choices=("best", "visits", "improved"), default=None,
                   help="what the policy is fit to: the search's most visited move "
                   "(default with --root puct), its visit shares, or the Gumbel root's "
                   "improved policy (default with --root gumbel)")
    p.add_argument("--reuse-data", action="store_true", help="keep a block's samples "
                   "already in OUT (a run resumed with the same settings)")
    p.add_argument("--window", type=int, default=2, help="rounds of data a fit reads")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--block", type=int, default=8, help="games a worker task")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--eval-games", type=int, default=200, help="duplicate deals against "
                   "nv2-ppo and the heuristic after each round (0: none)")
    p.add_argument("--decks", nargs="+", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/distill")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.target is None:
        args.target = "improved" if args.root == "gumbel" else "best"
    if args.target == "improved" and args.root != "gumbel":
        p.error("--target improved: only the Gumbel root gives it (add --root gumbel)")
    for name in ("rounds", "games", "simulations", "worlds", "batch", "epochs", "workers",
                 "window"):
        if getattr(args, name) < 1:
            p.error(f"--{name}: must be at least 1, got {getattr(args, name)}")
    return args


def _policy_file(spec: str) -> str:
    """A shipped policy's name or a policy file, as a path (exits naming ``--policy``)."""
    from .opponents import policy_file
    try:
        return str(policy_file(spec))
    except ValueError as e:
        raise SystemExit(f"--policy: {e}") from None


def main(argv=None) -> int:
    import torch as th
    th.set_num_threads(1)
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    policy_file = _policy_file(args.policy)
    value_file = None if args.value in (None, "", "none") else args.value
    if value_file == "auto":
        from .opponents import VALUE_DIR
        shipped = VALUE_DIR / f"{args.policy}.pt"
        value_file = str(shipped) if shipped.is_file() else None
    if value_file and not Path(value_file).is_file():
        raise SystemExit(f"--value: no value-head file {value_file!r} ('none': the critic)")
    rounds = []
    for r in range(1, args.rounds + 1):
        rounds.append(run_round(r, args, policy_file, value_file if r == 1 else None, out))
        policy_file = rounds[-1]["policy"]
        (out / "rounds.json").write_text(json.dumps(rounds, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
