"""train.py's self-play run as one loop: set up, then collect a rollout, update, report.

``train(args, command)`` is the whole run, in the shape of CleanRL's ``ppo.py``: the
setup in small functions (the output folder, decks, threads, device, the games and their
opponent pool, the model), then the loop -- MaskablePPO's own ``learn`` (sb3-contrib),
written out so that each of its steps is in view:

    while steps < --total-steps and --time-limit has not run out:
        collect   one rollout of --n-steps per game slot against the pool's opponents
        update    PPO's epochs over it (the losses are logged here)
    save, export policy.pt, evaluate it, write train.json

Between the learner's steps, inside the collection, ``BetweenSteps`` (an SB3 callback)
counts finished games per opponent, takes snapshots and checkpoints, runs the
evaluations and watches the clock.  The learner's inference time is measured with
PyTorch's forward hooks (``ForwardTimer``); nothing of SB3's is replaced.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat
from stable_baselines3.common.vec_env import VecMonitor

from nivel_env import threads
from nivel_env.cards import DeckError, list_decks, load_deck
from nivel_env.env.vector_sb3 import SelfPlayVecEnv
from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
from nivel_env.tournaments.policy_eval import auto_workers, evaluate_policy

from .network import policy_kwargs, pointer_policy
from .policy import PolicyAgent, export_policy, frozen_copy, read_policy_file
from .precision import apply_to_policy, resolve
from .train_progress import Every, RunBar, RunClock
from .training_pool import POOL_KINDS, Pool

#: the fixed opponents of every evaluation: label -> agent name
EVAL_OPPONENTS = {"heuristic": "heuristic", "random": "random"}
#: what a run writes into --out (a folder holding any of them holds a run)
OUTPUTS = ("tb", "checkpoints", "snapshots", "train.json", "policy.pt")
DEFAULT_LR = 3e-4


class SetupError(Exception):
    """A run that cannot start (the message says why; train.py prints it, exit code 2)."""


# ------------------------------------------------------------------ the run
def train(args, command: str) -> int:
    """The run train.py's ``args`` describe; ``command`` is recorded in its files.
    Returns the exit code (2: refused before training, with the reason on stderr)."""
    out = Path(args.out)
    try:
        claim_output(out, args.resume, args.force)
        names, decks = load_decks(args.decks)
        set_threads(args.threads)
        device, where = pick_device(args.device)
        precision = pick_precision(getattr(args, "precision", "auto"), device,
                                   args.batch_size)
    except SetupError as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    print(f"device: {device} ({where}), torch threads: {th.get_num_threads()} "
          f"({threads.describe()}), games together: {args.envs}, network: {args.net}, "
          f"observation: {getattr(args, 'obs', 'full')}")
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    pool = Pool(args.pool, args.seed, args.max_snapshots, args.snapshot_draw)
    games, venv = make_games(args, pool, decks)
    # opponents in worker processes get CPU copies; here they share the learner's device
    opponent_device = "cpu" if args.workers > 1 else device
    model, resumed = make_model(args, venv, out, device)
    args.precision_used = apply_to_policy(model.policy, precision)
    print(f"precision: {args.precision_used}")
    if resumed:                                 # the pool's snapshots come back too
        for snap in sorted((out / "snapshots").glob("*.pt"))[-args.max_snapshots:]:
            policy, _ = read_policy_file(snap, device=opponent_device)
            pool.add_snapshot(policy_agent(policy, pool.snapshot_seed(int(
                snap.stem.split("_")[-1]))))
    run = Run(args, model, venv, games, pool, decks, out, opponent_device)
    run.refresh_current()
    games.set_opponents(*pool.members())

    # the loop: MaskablePPO.learn (sb3-contrib >= 2.3), each step in view
    total, between_steps = model._setup_learn(
        max(0, args.total_steps - model.num_timesteps), BetweenSteps(run),
        reset_num_timesteps=False, tb_log_name="ppo", progress_bar=False)
    between_steps.on_training_start(locals(), globals())
    iteration, interrupted = 0, False
    try:
        while model.num_timesteps < total and run.stopped_at is None:
            # collect: the pool's opponents for this rollout, then --n-steps per slot
            run.prepare_rollout()
            t = time.perf_counter()
            if not model.collect_rollouts(model.env, between_steps, model.rollout_buffer,
                                          model.n_steps, use_masking=True):
                break
            run.rollout_done(t)
            # update: the losses of this rollout's epochs go out with this dump
            t = time.perf_counter()
            iteration += 1
            model._update_current_progress_remaining(model.num_timesteps, total)
            dump_logs(model, iteration)
            model.train()
            run.trained_steps = model.num_timesteps
            run.timing["update"] += time.perf_counter() - t
        between_steps.on_training_end()
    except KeyboardInterrupt:                       # stop early, keep what was learnt
        interrupted = True
    finally:
        run.bar.close()
    run.learner.remove()

    # report: save, export policy.pt and evaluate it, write train.json
    finish(run, interrupted, device, where, names, command)
    return 0


def finish(run: Run, interrupted: bool, device: str, where: str, names, command: str):
    """After the loop: the last checkpoint, policy.pt (exported, evaluated against the
    fixed opponents, exported again with the scores), TensorBoard's last points and
    train.json; the report is printed too."""
    args, model, out = run.args, run.model, run.out
    wall = time.perf_counter() - run.start
    untrained = run.untrained_steps()
    if interrupted:
        print(f"\ninterrupted at {model.num_timesteps:,} steps; the last {untrained:,} (a "
              f"rollout under way) were not trained; saving and exporting", file=sys.stderr)
    if run.stopped_at is not None:
        print(f"--time-limit {args.time_limit:g} min ran out at {run.stopped_at:,} steps; "
              f"the rollout under way was finished and trained: {model.num_timesteps:,} "
              f"steps, {untrained:,} untrained")
    model.save(out / "checkpoints" / f"model_{model.num_timesteps}.zip")
    try:
        run.venv.close()
    except Exception:                                        # noqa: BLE001 -- workers gone
        pass
    meta = {"command": command, "decks": names}
    # written before the final evaluation, which plays this file (and rewritten with the
    # scores after it)
    policy_path = export_policy(model, out / "policy.pt", meta)
    final, eval_workers, t = {}, 0, time.perf_counter()
    if args.final_games:
        final, eval_workers = run.final_evaluation(policy_path, device, names)
        run.record_eval(final, model.num_timesteps, final=True)
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
        "stopped_by_time_limit": run.stopped_at is not None,
        "time_limit_ran_out_at": run.stopped_at,
        "untrained_steps": untrained,
        "envs": args.envs, "workers": args.workers, "network": args.net,
        "observation": getattr(args, "obs", "full"), "interrupted": interrupted,
        "pool": dict(zip(POOL_KINDS, args.pool)), "snapshot_draw": args.snapshot_draw,
        "max_snapshots": args.max_snapshots,
        "ppo": {"n_steps": args.n_steps, "batch_size": args.batch_size,
                "epochs": args.epochs, "lr": args.lr or DEFAULT_LR, "lr_end": args.lr_end},
        "device": f"{device} ({where})", "torch_threads": th.get_num_threads(),
        "precision": getattr(args, "precision_used", "float32"),
        "omp_wait_policy": os.environ.get(threads.VARIABLE),
        "wall_seconds": round(wall, 1),
        "steps_per_second": round((model.num_timesteps - run.start_steps) / wall, 1)
        if wall else None,
        "time_shares": run.shares(wall),
        "final_eval_seconds": round(eval_seconds, 1),
        "final_eval_processes": eval_workers,
        "eval_curve": run.curve,
        "final_eval": final, "policy": str(policy_path),
    }
    (out / "train.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "eval_curve"}, indent=2))
    print(f"\npolicy written to {policy_path}; play it with "
          f"agents.load_opponent({str(policy_path)!r}) or evaluate it with "
          f"python evaluate.py agents heuristic random {policy_path}")


# ------------------------------------------------------------------ setup
def claim_output(out: Path, resume: bool, force: bool) -> None:
    """Refuse an ``out`` that holds a run unless told to resume it or (``force``) to
    replace it -- then its files go."""
    held = [n for n in OUTPUTS if (out / n).exists() and
            (not (out / n).is_dir() or any((out / n).iterdir()))]
    if held and not resume and not force:
        raise SetupError(f"{out} already holds a run ({', '.join(held)}); --resume continues "
                         f"it, --force starts afresh (replacing those files), or choose "
                         f"another --out (two runs in one folder would mix their "
                         f"TensorBoard series)")
    if held and force and not resume:
        for n in held:
            (shutil.rmtree if (out / n).is_dir() else os.remove)(out / n)


def load_decks(specs) -> tuple[list, list]:
    """(names, decks): the bundled decks or deck files named (default: every bundled
    deck)."""
    names = specs or list_decks()
    try:
        return names, [load_deck(n) for n in names]
    except DeckError as e:
        raise SetupError(str(e)) from None


def set_threads(threads: int | None) -> int:
    """Torch threads: ``threads``, or the machine's cores up to 4.  Games and updates
    take turns in this one process, so the update may use every core (2 threads ran it
    1.4x faster than 1 on 2 cores); past 4 it gains little here."""
    threads = threads or max(1, min(4, os.cpu_count() or 1))
    th.set_num_threads(threads)
    return threads


def pick_device(name: str) -> tuple[str, str]:
    """(device, what it is): ``auto`` is CUDA when present, else the CPU."""
    device = ("cuda" if th.cuda.is_available() else "cpu") if name == "auto" else name
    try:
        th.zeros(1, device=device)
    except (RuntimeError, AssertionError) as e:
        raise SetupError(f"--device {name}: {e}") from None
    return device, (th.cuda.get_device_name(th.device(device)) if device.startswith("cuda")
                    else "CPU")


def pick_precision(choice: str, device: str, batch_size: int) -> str:
    """--precision on ``device`` (``agents.precision.resolve``): auto is bfloat16 for the
    feature extractor on CUDA with minibatches of 2,048 or more, float32 otherwise."""
    try:
        return resolve(choice, device, batch_size)
    except ValueError as e:
        raise SetupError(f"--precision: {e}") from None


def make_games(args, pool: Pool, decks):
    """(games, venv): the ``--envs`` games (in ``--workers`` processes when more than
    one) against the pool's fixed members, and SB3's view of them.  VecMonitor fills
    rollout/ep_rew_mean and ep_len_mean from info["episode"]: the learner's reward and
    decisions in each of its games."""
    first = dict(opponents=[pool.random, pool.heuristic],
                 weights=args.pool[:2] if sum(args.pool[:2]) > 0 else None, seed=args.seed,
                 deck_pool=decks, obs=getattr(args, "obs", "full"))
    if args.workers > 1:
        games = WorkerSelfPlayVecEnv(args.workers, args.envs // args.workers, **first)
    else:
        games = SelfPlayVecEnv(args.envs, **first)
    return games, VecMonitor(games)


class LinearRate:
    """From ``start`` to ``end`` as SB3's progress goes 1 -> 0.  With the steps done kept
    (``reset_num_timesteps=False``), SB3's progress counts over the whole run, so a
    resumed run goes on where it was."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def __call__(self, progress_remaining: float) -> float:
        return self.end + (self.start - self.end) * max(0.0, progress_remaining)


def learning_rate(start: float, end: float | None):
    """A constant, or (``end``, --lr-end) a linear decay over the run's --total-steps."""
    return start if end is None else LinearRate(start, end)


def make_model(args, venv, out: Path, device: str) -> tuple[MaskablePPO, bool]:
    """(the learner, whether it was resumed): the latest checkpoint in ``out`` with
    --resume, else a new one."""
    checkpoints = sorted((out / "checkpoints").glob("model_*.zip"),
                         key=lambda p: int(p.stem.split("_")[1]))
    if args.resume and checkpoints:
        model = MaskablePPO.load(checkpoints[-1], env=venv, tensorboard_log=str(out / "tb"),
                                 device=device)
        print(f"resuming from {checkpoints[-1]} ({model.num_timesteps} steps)")
        if args.lr is not None or args.lr_end is not None:
            model.learning_rate = learning_rate(args.lr or model.lr_schedule(1.0),
                                                args.lr_end)
            model._setup_lr_schedule()
        return model, True
    if args.resume:
        print(f"no checkpoint in {out / 'checkpoints'}; starting afresh")
    if getattr(args, "obs", "full") == "compact":
        from .network import compact_pointer_policy
        policy_class, kwargs = compact_pointer_policy(venv.unwrapped.card_table())
    elif args.net == "pointer":
        policy_class, kwargs = pointer_policy()
    else:
        policy_class, kwargs = "MlpPolicy", policy_kwargs()
    return MaskablePPO(policy_class, venv, n_steps=args.n_steps, batch_size=args.batch_size,
                       n_epochs=args.epochs,
                       learning_rate=learning_rate(args.lr or DEFAULT_LR, args.lr_end),
                       gamma=0.995, gae_lambda=0.95, ent_coef=0.01, policy_kwargs=kwargs,
                       seed=args.seed, tensorboard_log=str(out / "tb"), verbose=0,
                       device=device), False


def policy_agent(policy, seed: int | None = None, temperature: float = 1.0,
                 meta: dict | None = None) -> PolicyAgent:
    """A player over ``policy`` (a network in memory)."""
    return PolicyAgent(policy=policy, meta=meta or {}, temperature=temperature, seed=seed)


def dump_logs(model, iteration: int) -> None:
    """SB3's per-rollout log line (time/fps, rollout/ep_*, and the recorded values):
    ``dump_logs`` from sb3-contrib 2.6, ``_dump_logs`` before."""
    dump = getattr(model, "dump_logs", None) or getattr(model, "_dump_logs", None)
    if dump is None:
        raise RuntimeError("train.py needs sb3-contrib 2.6 or newer (MaskablePPO has no "
                           "dump_logs or _dump_logs here)")
    dump(iteration)


class ForwardTimer:
    """Seconds spent in ``module``'s forward, by PyTorch's forward hooks (the learner's
    inference: SB3 calls the policy's forward in its rollouts, and only there)."""

    def __init__(self, module):
        self.seconds, self._began = 0.0, None
        self._hooks = [module.register_forward_pre_hook(self._before),
                       module.register_forward_hook(self._after)]

    def _before(self, module, args) -> None:
        self._began = time.perf_counter()

    def _after(self, module, args, output) -> None:
        self.seconds += time.perf_counter() - self._began

    def remove(self) -> None:
        for hook in self._hooks:
            hook.remove()


# ------------------------------------------------------------------ the run's state
class Run:
    """What the loop and the between-steps callback share: the clock and time shares,
    the evaluation curve, the time limit, the pool kept in step with the games."""

    def __init__(self, args, model, venv, games, pool: Pool, decks, out: Path,
                 opponent_device):
        self.args, self.model, self.pool = args, model, pool
        self.venv, self.games = venv, games          # SB3's view of the games, and them
        self.decks, self.out, self.opponent_device = decks, out, opponent_device
        self.timing = {"rollout": 0.0, "update": 0.0, "callbacks": 0.0}
        self.learner = ForwardTimer(model.policy)   # its inference in the rollouts
        self.curve: list = []
        self.stopped_at: int | None = None      # the step at which --time-limit ran out
        self.trained_steps: int | None = None   # the step count of the last update
        self.results: dict = {}                 # opponent label -> (score, games) this rollout
        self.start, self.start_steps = time.perf_counter(), model.num_timesteps
        limit = None if args.time_limit is None else args.time_limit * 60
        self.bar = RunBar(RunClock(args.total_steps, self.start_steps, limit),
                          enabled=not args.no_progress, start=self.start)

    def refresh_current(self) -> None:
        """The learner as it is now, as a pool member: itself in this process, a copy of
        its weights (sent once per rollout) for worker processes."""
        model, args = self.model, self.args
        policy = model.policy if args.workers == 1 else frozen_copy(model.policy, "cpu")
        self.pool.current = policy_agent(policy, args.seed * 31 + model.num_timesteps)
        self.pool.current.label = "current"

    def prepare_rollout(self) -> None:
        """Before a rollout: worker processes get the learner's new weights, the pool
        draws this rollout's snapshot, the games get the members."""
        if self.args.workers > 1 and self.pool.wants_current():
            self.refresh_current()
        self.pool.next_rollout()
        self.games.set_opponents(*self.pool.members())

    def rollout_done(self, began: float) -> None:
        """After a rollout: its time, the time shares and the win rate per opponent kind
        go to the logger (written with this rollout's update), the bar moves."""
        now = time.perf_counter()
        self.timing["rollout"] += now - began
        logger = self.model.logger
        for k, v in self.shares(now - self.start).items():
            logger.record(f"time/share_{k}", v)
        for label, (won, n) in self.results.items():
            logger.record(f"rollout/win_rate_vs_{label}", won / n)
        self.results.clear()
        self.bar.update(self.model.num_timesteps, now, force=True)

    def untrained_steps(self) -> int:
        """Steps played in this session after its last update: only an interrupt leaves
        any."""
        last = self.trained_steps if self.trained_steps is not None else self.start_steps
        return self.model.num_timesteps - last

    def shares(self, wall: float) -> dict:
        """Shares of the wall time.  With worker processes, env and opponent inference are
        each worker's busy time (they overlap one another and the wait)."""
        if wall <= 0:
            return {}
        w, games, timing = self.args.workers, self.games, self.timing
        env, opp = games.env_seconds / w, games.opponent_seconds / w
        learn = self.learner.seconds
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

    def evaluate_now(self, deals: int, seed: int) -> dict:
        """The learner as it is now, greedy, against the fixed opponents (batched)."""
        me = policy_agent(self.model.policy, temperature=0.0)
        self.model.policy.set_training_mode(False)
        return evaluate_policy(me, EVAL_OPPONENTS, self.decks, deals, seed)

    def record_eval(self, results: dict, step: int, final: bool = False) -> None:
        """One evaluation point: TensorBoard's eval/win_rate_vs_* at the step it was taken
        (not at the next dump of SB3's logger, where two in one rollout would be one), and
        train.json's curve."""
        writers = [f.writer for f in self.model.logger.output_formats
                   if isinstance(f, TensorBoardOutputFormat)]
        for name, r in results.items():
            for w in writers:
                w.add_scalar(f"eval/win_rate_vs_{name}", r["score"], step)
            self.curve.append({"steps": step,
                               "seconds": round(time.perf_counter() - self.start, 1),
                               "opponent": name, "score": r["score"], "low": r["low"],
                               "high": r["high"], "games": r["games"],
                               **({"final": True} if final else {})})

    def final_evaluation(self, path: Path, device: str, names) -> tuple[dict, int]:
        """The exported policy (``path``), greedy, against the fixed opponents: batched,
        in worker processes that read the file when there are enough blocks for them, with
        its own bar.  Returns (results, processes)."""
        args = self.args
        workers = args.eval_workers or auto_workers(args.final_games, len(EVAL_OPPONENTS))
        policy, meta = read_policy_file(path, device=device if workers == 1 else "cpu")
        me = policy_agent(policy, temperature=0.0, meta=meta)
        print(f"final evaluation: {args.final_games} deals, each played twice with the seats "
              f"swapped, against {', '.join(EVAL_OPPONENTS)} "
              f"({'this process' if workers == 1 else f'{workers} processes'})", flush=True)
        return evaluate_policy(me, EVAL_OPPONENTS, self.decks, args.final_games,
                               args.seed + 999, workers=workers, policy_file=path,
                               deck_specs=names, progress=not args.no_progress,
                               desc="final evaluation"), workers


class BetweenSteps(BaseCallback):
    """Between the learner's steps in a rollout: finished games counted per opponent,
    snapshots, checkpoints, evaluations, the time limit and the bar."""

    def __init__(self, run: Run):
        super().__init__()
        args, n = run.args, run.model.num_timesteps
        self.run = run
        self.next_snap = n + args.snapshot_every
        self.next_ckpt = n + args.checkpoint_every
        self.evals = Every(args.eval_every, n, run.start)

    def _on_step(self) -> bool:
        run, args, model = self.run, self.run.args, self.run.model
        infos, rewards = self.locals.get("infos", ()), self.locals.get("rewards")
        for i, info in enumerate(infos):
            if "returns" in info:                       # a game ended on this step
                won, n = run.results.get(info["opponent"], (0.0, 0))
                r = float(rewards[i])
                run.results[info["opponent"]] = (won + (r > 0) + 0.5 * (r == 0), n + 1)
        n = self.num_timesteps
        t = time.perf_counter()
        if n >= self.next_snap:
            self.next_snap += args.snapshot_every
            export_policy(model, run.out / "snapshots" / f"step_{n:09d}.pt")
            run.pool.add_snapshot(policy_agent(frozen_copy(model.policy, run.opponent_device),
                                               run.pool.snapshot_seed(n)))
            run.games.set_opponents(*run.pool.members())
        if n >= self.next_ckpt:
            self.next_ckpt += args.checkpoint_every
            model.save(run.out / "checkpoints" / f"model_{n}.zip")
        if self.evals.due(n, t):
            run.record_eval(run.evaluate_now(args.eval_games, args.seed + n), n)
            self.evals.done(n, time.perf_counter())
        now = time.perf_counter()
        run.timing["callbacks"] += now - t
        if (args.time_limit is not None and run.stopped_at is None
                and now - run.start > args.time_limit * 60):
            run.stopped_at = n                          # no new rollout: the loop ends
        run.bar.update(n, now)
        return True

    def _on_training_end(self) -> None:
        self.run.bar.update(self.run.model.num_timesteps, force=True)


__all__ = ["EVAL_OPPONENTS", "LinearRate", "OUTPUTS", "SetupError", "train"]
