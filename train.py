"""Self-play training with MaskablePPO (sb3-contrib) on batched games.

The learner plays a random seat of a deck pair drawn per deal, in ``--envs`` games held
in one process (``nivel_env.vector_sb3.SelfPlayVecEnv``), against an opponent drawn per
deal from a pool: the random agent, the heuristic, frozen snapshots of the learner (taken
every ``--snapshot-every`` steps and held in memory) and the learner itself as it is now.
All games waiting on one policy opponent get their moves from one batched forward.
Writes to ``--out``:

    tb/                 TensorBoard logs (losses; rollout/ep_rew_mean and ep_len_mean, the
                        learner's games; win rate per opponent kind;
                        eval/win_rate_vs_heuristic and _vs_random every --eval-every and at
                        the end; time/share_* -- where the wall time goes)
    checkpoints/        model zips every --checkpoint-every steps (--resume continues)
    snapshots/          the pool's snapshots as policy files (read back by --resume only)
    policy.pt           the final policy: load it with agents.load_opponent(path)
    train.json          the command, settings, throughput, time shares, final evaluation

    python train.py --quick                                  # under a minute, smoke test
    python train.py --total-steps 6000000 --out runs/nv2     # a real run
    python train.py --out runs/nv2 --resume                  # continue it (--force: restart)

An --out that already holds a run is refused without --resume or --force.  The device is
CUDA when present (--device cpu to keep to the CPU); it is printed and kept in train.json.
The bar counts toward whichever limit will stop the run, --total-steps or --time-limit; a
time limit ends the run after the rollout under way and its update (nothing is dropped).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

#: pool member kinds, in --pool order
POOL_KINDS = ("random", "heuristic", "snapshots", "current")
DEFAULT_POOL = (0.1, 0.35, 0.35, 0.2)
#: the fixed opponents of every evaluation: label -> agent name
EVAL_OPPONENTS = {"heuristic": "heuristic", "random": "random"}


def every(text: str) -> tuple[str, float]:
    """``--eval-every``: learner steps or a time (``agents.train_progress.parse_every``)."""
    from agents.train_progress import parse_every
    try:
        return parse_every(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="train.py", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--total-steps", type=int, default=None,
                    help="learner steps (default 6,000,000; 8,192 with --quick)")
    ap.add_argument("--decks", nargs="+", help="bundled names or deck files (default: all "
                                                "bundled decks)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/selfplay")
    ap.add_argument("--envs", type=int, default=64, help="games played together (default 64)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes the games are spread over (shared memory; each holds "
                         "--envs / --workers games and its own opponents; default 1: games, "
                         "opponents and learner in this process)")
    ap.add_argument("--net", choices=("pointer", "card_set"), default="pointer",
                    help="policy network: pointer (card rows as a set, actions scored "
                         "against the rows they name; default) or card_set (shared card "
                         "encoder, plain action layer: nv1-ppo's)")
    ap.add_argument("--snapshot-every", type=int, default=200_000)
    ap.add_argument("--max-snapshots", type=int, default=8,
                    help="snapshots kept in the pool (the oldest leaves)")
    ap.add_argument("--snapshot-draw", choices=("rollout", "deal"), default="rollout",
                    help="rollout (default): one kept snapshot, drawn anew each rollout, "
                         "meets every snapshot deal of that rollout (one batched forward for "
                         "them all); deal: a snapshot drawn per deal (a forward per snapshot)")
    ap.add_argument("--checkpoint-every", type=int, default=500_000)
    ap.add_argument("--eval-every", type=every, default=None, metavar="N|TIME",
                    help="evaluate against the heuristic and random every N learner steps "
                         "(default 500000) or every TIME of the run (90s, 5m, 1h); the final "
                         "evaluation is always a point too")
    ap.add_argument("--eval-games", type=int, default=50,
                    help="deals per evaluation (each played twice, seats swapped)")
    ap.add_argument("--final-games", type=int, default=None,
                    help="deals for the final evaluation (each played twice, seats swapped; "
                         "250 gives 95%% intervals about +-0.05 wide or less; 8 with --quick; "
                         "0: none)")
    ap.add_argument("--eval-workers", type=int, default=None,
                    help="processes for the final evaluation (default: one a core while each "
                         "gets two blocks of 32 deals or more; 1: this process)")
    ap.add_argument("--pool", type=float, nargs="+", default=DEFAULT_POOL,
                    metavar="W",
                    help="how often each kind of opponent is drawn, relative weights for "
                         "RANDOM HEURISTIC SNAPSHOTS [CURRENT] (default "
                         f"{' '.join(map(str, DEFAULT_POOL))}; the snapshots' share goes to "
                         "the current policy until the first snapshot)")
    ap.add_argument("--n-steps", type=int, default=64, help="rollout steps per game slot")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=None,
                    help="learning rate (default 3e-4; with --resume, the checkpoint's unless "
                         "given)")
    ap.add_argument("--lr-end", type=float, default=None,
                    help="decay the learning rate linearly from --lr to this by "
                         "--total-steps (default: constant)")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch threads (default: the machine's cores, at most 4; games and "
                         "updates take turns in one process, so the update may use them all)")
    ap.add_argument("--time-limit", type=float, default=None, metavar="MINUTES",
                    help="stop learning after this many minutes (the rollout under way is "
                         "finished and trained; the final evaluation and export follow), or "
                         "at --total-steps, whichever comes first")
    ap.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    ap.add_argument("--force", action="store_true",
                    help="start afresh in an --out that holds a run (its files are replaced)")
    ap.add_argument("--device", default="auto",
                    help="torch device: auto (CUDA when present, else CPU), cpu, cuda, cuda:1 ...")
    ap.add_argument("--quick", action="store_true", help="a tiny run (under a minute)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.total_steps is None:
        args.total_steps = 8192 if args.quick else 6_000_000
    if args.final_games is None:
        args.final_games = 8 if args.quick else 250
    if len(args.pool) == 3:
        args.pool = list(args.pool) + [0.0]
    if len(args.pool) != 4 or any(w < 0 for w in args.pool) or sum(args.pool) <= 0:
        ap.error(f"--pool takes 3 or 4 weights (random heuristic snapshots [current]), "
                 f">= 0 and not all 0, got {args.pool}")
    if args.time_limit is not None and not args.time_limit > 0:
        ap.error("--time-limit must be a positive number of minutes")
    if args.final_games < 0:
        ap.error("--final-games must be 0 (no final evaluation) or more")
    if args.eval_games < 1:
        ap.error("--eval-games must be at least 1")
    if args.eval_workers is not None and args.eval_workers < 1:
        ap.error("--eval-workers must be at least 1")
    for name in ("envs", "workers", "n_steps", "batch_size", "epochs", "snapshot_every",
                 "checkpoint_every", "max_snapshots"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be at least 1")
    if args.envs % args.workers:
        ap.error(f"--envs ({args.envs}) must be a multiple of --workers ({args.workers})")
    if args.quick:
        args.envs = min(args.envs, 16)
        args.n_steps, args.batch_size = 64, 256
        args.snapshot_every, args.checkpoint_every = 2048, 4096
        args.eval_games = 4
        args.eval_every = args.eval_every or ("steps", 4096)
    args.eval_every = args.eval_every or ("steps", 500_000)
    return ap, args


class LinearRate:
    """From ``start`` to ``end`` as SB3's progress goes 1 -> 0.  With learn() given the
    steps left and the steps done kept, SB3's progress counts over the whole run, so a
    resumed run goes on where it was."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def __call__(self, progress_remaining: float) -> float:
        return self.end + (self.start - self.end) * max(0.0, progress_remaining)


class Pool:
    """The opponents the learner meets and how often, kept in step with the env."""

    def __init__(self, weights, seed: int, max_snapshots: int, draw: str = "rollout"):
        import numpy as np

        from agents import HeuristicAgent, RandomAgent
        self.weights = dict(zip(POOL_KINDS, weights))
        self.draw = draw
        self.rng = np.random.default_rng(seed + 17)
        self.active = None                    # the snapshot of this rollout (draw=rollout)
        self.random, self.heuristic = RandomAgent(seed), HeuristicAgent(seed)
        self.random.label, self.heuristic.label = "random", "heuristic"
        self.snapshots: list = []
        self.current = None
        self.max_snapshots = max_snapshots
        self.seed = seed

    def members(self):
        """(agents, weights) for SelfPlayVecEnv.set_opponents."""
        w = self.weights
        agents, weights = [self.random, self.heuristic], [w["random"], w["heuristic"]]
        snap_share = w["snapshots"]
        if self.current is not None:
            if not self.snapshots:                  # no snapshot yet: the current policy
                snap_share, cur = 0.0, w["current"] + w["snapshots"]
            else:
                cur = w["current"]
            agents.append(self.current)
            weights.append(cur)
        playing = self.snapshots if self.draw == "deal" else \
            [self.active] if self.active is not None else []
        for s in playing:
            agents.append(s)
            weights.append(snap_share / len(playing))
        if sum(weights) <= 0:                       # e.g. only snapshots, none yet
            weights[0] = 1.0
        return agents, weights

    def add_snapshot(self, policy, step: int) -> None:
        from agents.policy import PolicyAgent
        agent = PolicyAgent(policy=policy, meta={}, temperature=1.0,
                            seed=self.seed * 7919 + step)
        agent.label = "snapshot"
        self.snapshots.append(agent)
        del self.snapshots[:-self.max_snapshots]
        if self.active not in self.snapshots:
            self.next_rollout()

    def next_rollout(self) -> None:
        """With draw=rollout, the snapshot that new deals meet until the next rollout:
        one policy forward per opponent round for all snapshot games, instead of one per
        kept snapshot (games under way keep theirs)."""
        if self.snapshots:
            self.active = self.snapshots[int(self.rng.integers(len(self.snapshots)))]


def main(argv=None) -> int:
    ap, args = parse_args(argv)
    out = Path(args.out)
    owned = ("tb", "checkpoints", "snapshots", "train.json", "policy.pt")
    held = [n for n in owned if (out / n).exists() and
            (not (out / n).is_dir() or any((out / n).iterdir()))]
    if held and not args.resume and not args.force:
        print(f"train.py: {out} already holds a run ({', '.join(held)}); --resume continues it, "
              f"--force starts afresh (replacing those files), or choose another --out "
              f"(two runs in one folder would mix their TensorBoard series)", file=sys.stderr)
        return 2
    if held and args.force and not args.resume:
        import shutil
        for n in held:
            (shutil.rmtree if (out / n).is_dir() else os.remove)(out / n)

    try:
        import torch as th
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.vec_env import VecMonitor
    except ImportError as e:
        from nivel_env.install_hints import TRAIN
        print(f"train.py cannot start: {TRAIN} ({e})", file=sys.stderr)
        return 2
    from agents.network import policy_kwargs, pointer_policy
    from agents.policy import PolicyAgent, export_policy, frozen_copy, read_policy_file
    from nivel_env.tournaments.policy_eval import evaluate_policy
    from agents.train_progress import Every, RunBar, RunClock
    from nivel_env.cards import DeckError, list_decks, load_deck
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv

    names = args.decks or list_decks()
    try:
        decks = [load_deck(n) for n in names]
    except DeckError as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    # Games and updates take turns in this one process: the update may use every core
    # (2 threads ran it 1.4x faster than 1 on 2 cores); past 4 it gains little here.
    threads = args.threads or max(1, min(4, os.cpu_count() or 1))
    th.set_num_threads(threads)
    device = ("cuda" if th.cuda.is_available() else "cpu") if args.device == "auto" \
        else args.device
    try:
        th.zeros(1, device=device)
    except (RuntimeError, AssertionError) as e:
        print(f"train.py: --device {args.device}: {e}", file=sys.stderr)
        return 2
    where = th.cuda.get_device_name(th.device(device)) if device.startswith("cuda") else "CPU"
    print(f"device: {device} ({where}), torch threads: {th.get_num_threads()}, "
          f"games together: {args.envs}, network: {args.net}")
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)

    pool = Pool(args.pool, args.seed, args.max_snapshots, args.snapshot_draw)
    first = dict(opponents=[pool.random, pool.heuristic],
                 weights=args.pool[:2] if sum(args.pool[:2]) > 0 else None, seed=args.seed,
                 deck_pool=decks)
    if args.workers > 1:
        games = WorkerSelfPlayVecEnv(args.workers, args.envs // args.workers, **first)
    else:
        games = SelfPlayVecEnv(args.envs, **first)
    # SB3 fills rollout/ep_rew_mean and ep_len_mean from info["episode"]: the learner's
    # reward and decisions in each of its games
    venv = VecMonitor(games)
    # opponents in worker processes get CPU copies; here they share the learner's device
    opponent_device = "cpu" if args.workers > 1 else device

    def learning_rate(start: float):
        """A constant, or (--lr-end) a linear decay over the run's --total-steps."""
        return start if args.lr_end is None else LinearRate(start, args.lr_end)

    stopped: list = []                      # the step at which --time-limit ran out
    trained = {"steps": None}               # the step count of the last update

    class PPO(MaskablePPO):
        """MaskablePPO that starts no rollout once --time-limit has run out: the rollout
        under way when it ran out is finished and gets its update, so no step is played
        and then thrown away."""

        def collect_rollouts(self, *a, **kw):
            return False if stopped else super().collect_rollouts(*a, **kw)

        def train(self) -> None:
            super().train()
            trained["steps"] = self.num_timesteps

    checkpoints = sorted((out / "checkpoints").glob("model_*.zip"),
                         key=lambda p: int(p.stem.split("_")[1]))
    if args.resume and checkpoints:
        model = PPO.load(checkpoints[-1], env=venv, tensorboard_log=str(out / "tb"),
                         device=device)
        print(f"resuming from {checkpoints[-1]} ({model.num_timesteps} steps)")
        if args.lr is not None or args.lr_end is not None:
            model.learning_rate = learning_rate(args.lr or model.lr_schedule(1.0))
            model._setup_lr_schedule()
        for snap in sorted((out / "snapshots").glob("*.pt"))[-args.max_snapshots:]:
            policy, _ = read_policy_file(snap, device=opponent_device)
            pool.add_snapshot(policy, int(snap.stem.split("_")[-1]))
    else:
        if args.resume:
            print(f"no checkpoint in {out / 'checkpoints'}; starting afresh")
        if args.net == "pointer":
            policy_class, kwargs = pointer_policy()
        else:
            policy_class, kwargs = "MlpPolicy", policy_kwargs()
        model = PPO(policy_class, venv, n_steps=args.n_steps, batch_size=args.batch_size,
                    n_epochs=args.epochs, learning_rate=learning_rate(args.lr or 3e-4),
                    gamma=0.995, gae_lambda=0.95, ent_coef=0.01, policy_kwargs=kwargs,
                    seed=args.seed, tensorboard_log=str(out / "tb"), verbose=0,
                    device=device)

    def refresh_current() -> None:
        """The learner as it is now, as a pool member: itself in this process, a copy of
        its weights (sent once per rollout) for worker processes."""
        policy = model.policy if args.workers == 1 else frozen_copy(model.policy, "cpu")
        pool.current = PolicyAgent(policy=policy, meta={}, temperature=1.0,
                                   seed=args.seed * 31 + model.num_timesteps)
        pool.current.label = "current"
    refresh_current()
    games.set_opponents(*pool.members())

    # learner inference: time the policy's forward during rollouts
    timing = {"rollout": 0.0, "update": 0.0, "learner_inference": 0.0, "callbacks": 0.0}
    forward = model.policy.forward

    def timed_forward(*a, **kw):
        t = time.perf_counter()
        r = forward(*a, **kw)
        timing["learner_inference"] += time.perf_counter() - t
        return r
    model.policy.forward = timed_forward

    def evaluate_now(deals: int, seed: int) -> dict:
        """The learner as it is now, greedy, against the fixed opponents (batched)."""
        me = PolicyAgent(policy=model.policy, meta={}, temperature=0.0)
        model.policy.set_training_mode(False)
        return evaluate_policy(me, EVAL_OPPONENTS, decks, deals, seed)

    def record_eval(results: dict, step: int, final: bool = False) -> None:
        """One evaluation point: TensorBoard's eval/win_rate_vs_* at the step it was taken
        (not at the next dump of SB3's logger, where two in one rollout would be one), and
        train.json's curve."""
        from stable_baselines3.common.logger import TensorBoardOutputFormat
        writers = [f.writer for f in model.logger.output_formats
                   if isinstance(f, TensorBoardOutputFormat)]
        for name, r in results.items():
            for w in writers:
                w.add_scalar(f"eval/win_rate_vs_{name}", r["score"], step)
            curve.append({"steps": step, "seconds": round(time.perf_counter() - start, 1),
                          "opponent": name, "score": r["score"], "low": r["low"],
                          "high": r["high"], "games": r["games"],
                          **({"final": True} if final else {})})

    class SelfPlay(BaseCallback):
        """Snapshots, checkpoints, evaluations, the time limit and the bar, between the
        learner's steps."""

        def __init__(self):
            super().__init__()
            self.next_snap = model.num_timesteps + args.snapshot_every
            self.next_ckpt = model.num_timesteps + args.checkpoint_every
            self.evals = Every(args.eval_every, model.num_timesteps, start)
            self.t_rollout = time.perf_counter()
            self.t_update = None
            self.results: dict = {}

        def _on_rollout_start(self):
            now = time.perf_counter()
            if self.t_update is not None:
                timing["update"] += now - self.t_update
                self.t_update = None
            if args.workers > 1 and pool.weights["current"] + (
                    0 if pool.snapshots else pool.weights["snapshots"]) > 0:
                refresh_current()
            pool.next_rollout()
            games.set_opponents(*pool.members())
            self.t_rollout = time.perf_counter()

        def _on_rollout_end(self):
            now = time.perf_counter()
            timing["rollout"] += now - self.t_rollout
            self.t_update = now
            wall = now - start
            for k, v in shares(wall).items():
                self.logger.record(f"time/share_{k}", v)
            for label, (won, n) in self.results.items():
                self.logger.record(f"rollout/win_rate_vs_{label}", won / n)
            self.results.clear()
            bar.update(self.num_timesteps, now, force=True)

        def _on_training_end(self):
            if self.t_update is not None:                   # the last update
                timing["update"] += time.perf_counter() - self.t_update
                self.t_update = None
            bar.update(model.num_timesteps, force=True)

        def _on_step(self) -> bool:
            infos, rewards = self.locals.get("infos", ()), self.locals.get("rewards")
            for i, info in enumerate(infos):
                if "returns" in info:                       # a game ended on this step
                    won, n = self.results.get(info["opponent"], (0.0, 0))
                    r = float(rewards[i])
                    self.results[info["opponent"]] = (won + (r > 0) + 0.5 * (r == 0), n + 1)
            n = self.num_timesteps
            t = time.perf_counter()
            if n >= self.next_snap:
                self.next_snap += args.snapshot_every
                export_policy(model, out / "snapshots" / f"step_{n:09d}.pt")
                pool.add_snapshot(frozen_copy(model.policy, opponent_device), n)
                games.set_opponents(*pool.members())
            if n >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                model.save(out / "checkpoints" / f"model_{n}.zip")
            if self.evals.due(n, t):
                record_eval(evaluate_now(args.eval_games, args.seed + n), n)
                self.evals.done(n, time.perf_counter())
            now = time.perf_counter()
            timing["callbacks"] += now - t
            if args.time_limit is not None and not stopped and now - start > args.time_limit * 60:
                stopped.append(n)                           # no new rollout: PPO above
            bar.update(n, now)
            return True

    def shares(wall: float) -> dict:
        """Shares of the wall time.  With worker processes, env and opponent inference are
        each worker's busy time (they overlap one another and the wait)."""
        if wall <= 0:
            return {}
        w = args.workers
        env, opp = games.env_seconds / w, games.opponent_seconds / w
        learn = timing["learner_inference"]
        waited = getattr(games, "wait_seconds", env + opp)
        rollout_rest = timing["rollout"] - waited - learn - timing["callbacks"]
        out = {"env": round(env / wall, 3), "opponent_inference": round(opp / wall, 3),
               "learner_inference": round(learn / wall, 3),
               "update": round(timing["update"] / wall, 3),
               "evaluation_and_checkpoints": round(timing["callbacks"] / wall, 3),
               "rollout_bookkeeping": round(max(0.0, rollout_rest) / wall, 3)}
        if w > 1:
            out["waiting_on_workers"] = round(waited / wall, 3)
        return out

    def final_evaluation(path: Path) -> tuple[dict, int]:
        """The exported policy (``path``), greedy, against the fixed opponents: batched,
        in worker processes that read the file when there are enough blocks for them, with
        its own bar.  Returns (results, processes)."""
        from nivel_env.tournaments.policy_eval import auto_workers
        workers = args.eval_workers or auto_workers(args.final_games, len(EVAL_OPPONENTS))
        policy, meta = read_policy_file(path, device=device if workers == 1 else "cpu")
        me = PolicyAgent(policy=policy, meta=meta, temperature=0.0)
        print(f"final evaluation: {args.final_games} deals, each played twice with the seats "
              f"swapped, against {', '.join(EVAL_OPPONENTS)} "
              f"({'this process' if workers == 1 else f'{workers} processes'})", flush=True)
        return evaluate_policy(me, EVAL_OPPONENTS, decks, args.final_games, args.seed + 999,
                               workers=workers, policy_file=path, deck_specs=names,
                               progress=not args.no_progress, desc="final evaluation"), workers

    curve: list = []
    start, start_steps = time.perf_counter(), model.num_timesteps
    remaining = max(0, args.total_steps - model.num_timesteps)
    bar = RunBar(RunClock(args.total_steps, start_steps,
                          None if args.time_limit is None else args.time_limit * 60),
                 enabled=not args.no_progress, start=start)
    try:
        model.learn(total_timesteps=remaining, callback=SelfPlay(), reset_num_timesteps=False,
                    progress_bar=False, tb_log_name="ppo")
        interrupted = False
    except KeyboardInterrupt:                       # stop early, keep what was learnt
        interrupted = True
    finally:
        bar.close()
    wall = time.perf_counter() - start
    steps = model.num_timesteps - start_steps
    # steps played in this session after its last update: only an interrupt leaves any
    untrained = model.num_timesteps - (trained["steps"] if trained["steps"] is not None
                                       else start_steps)
    if interrupted:
        print(f"\ninterrupted at {model.num_timesteps:,} steps; the last {untrained:,} (a "
              f"rollout under way) were not trained; saving and exporting", file=sys.stderr)
    if stopped:
        print(f"--time-limit {args.time_limit:g} min ran out at {stopped[0]:,} steps; the "
              f"rollout under way was finished and trained: {model.num_timesteps:,} steps, "
              f"{untrained:,} untrained")
    model.policy.forward = forward
    model.save(out / "checkpoints" / f"model_{model.num_timesteps}.zip")
    try:
        venv.close()
    except Exception:                                        # noqa: BLE001 -- workers gone
        pass
    command = "python train.py " + " ".join(sys.argv[1:] if argv is None else argv)
    meta = {"command": command, "decks": names}
    # written before the final evaluation, which plays this file (and rewritten with the
    # scores after it)
    policy_path = export_policy(model, out / "policy.pt", meta)
    final, eval_workers, t = {}, 0, time.perf_counter()
    if args.final_games:
        final, eval_workers = final_evaluation(policy_path)
        record_eval(final, model.num_timesteps, final=True)
        for name, r in final.items():
            print(f"final: {r['score']:.3f} [{r['low']:.3f}, {r['high']:.3f}] against {name} "
                  f"over {r['games']} games ({r['deals']} deals, seats swapped; paired 95% "
                  f"interval)")
        policy_path = export_policy(model, out / "policy.pt",
                                    {**meta, "eval": {k: v["score"] for k, v in final.items()}})
    eval_seconds = time.perf_counter() - t
    model.logger.dump(model.num_timesteps)         # the last update's losses, the final point
    model.logger.close()
    report = {
        "command": command, "total_steps": model.num_timesteps, "decks": names,
        "stopped_by_time_limit": bool(stopped),
        "time_limit_ran_out_at": stopped[0] if stopped else None,
        "untrained_steps": untrained,
        "envs": args.envs, "workers": args.workers, "network": args.net, "interrupted": interrupted,
        "pool": dict(zip(POOL_KINDS, args.pool)), "snapshot_draw": args.snapshot_draw,
        "max_snapshots": args.max_snapshots,
        "ppo": {"n_steps": args.n_steps, "batch_size": args.batch_size,
                "epochs": args.epochs, "lr": args.lr or 3e-4, "lr_end": args.lr_end},
        "device": f"{device} ({where})", "torch_threads": th.get_num_threads(),
        "wall_seconds": round(wall, 1),
        "steps_per_second": round(steps / wall, 1) if wall else None,
        "time_shares": shares(wall),
        "final_eval_seconds": round(eval_seconds, 1),
        "final_eval_processes": eval_workers,
        "eval_curve": curve,
        "final_eval": final, "policy": str(policy_path),
    }
    (out / "train.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "eval_curve"}, indent=2))
    print(f"\npolicy written to {policy_path}; play it with "
          f"agents.load_opponent({str(policy_path)!r}) or evaluate it with "
          f"python evaluate.py agents heuristic random {policy_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
