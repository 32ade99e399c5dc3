"""Self-play training with MaskablePPO (sb3-contrib).

The learner plays a random seat of a deck pair drawn per episode, against an opponent
drawn per episode from a pool: frozen snapshots of itself (taken every
``--snapshot-every`` steps), the heuristic agent and the random agent.  Environments
run in parallel across the machine's cores.  Writes to ``--out``:

    tb/                 TensorBoard logs (losses, episode length and reward, and
                        eval/win_rate_vs_heuristic, eval/win_rate_vs_random)
    checkpoints/        model zips every --checkpoint-every steps (--resume continues)
    snapshots/          the opponent pool's frozen policies
    policy.pt           the final policy: load it with agents.load_opponent(path)
    train.json          the command, settings, throughput and final evaluation

    python train.py --quick                                  # about a minute, smoke test
    python train.py --total-steps 3000000 --out runs/nv1     # a real run
    python train.py --out runs/nv1 --resume                  # continue it (--force: restart)

An --out that already holds a run is refused without --resume or --force.  The device is
CUDA when present (--device cpu to keep to the CPU); it is printed and kept in train.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def make_env(rank: int, seed: int, decks, weights=(0.2, 0.3, 0.5)):
    def _init():
        import gymnasium
        from stable_baselines3.common.monitor import Monitor
        from nivel_env import NivelArenaGymEnv

        class Timed(gymnasium.Wrapper):
            """Seconds spent inside the environment (engine, encoder, opponent moves)."""
            env_seconds = 0.0

            def step(self, action):
                t = time.perf_counter()
                out = self.env.step(action)
                self.env_seconds += time.perf_counter() - t
                return out

            def reset(self, **kw):
                t = time.perf_counter()
                out = self.env.reset(**kw)
                self.env_seconds += time.perf_counter() - t
                return out

            def add_snapshot(self, path):
                self.env.unwrapped.opponent.add_snapshot(path)

            def action_masks(self):
                return self.env.unwrapped.action_masks()

        from agents.pool import OpponentPool
        pool = OpponentPool(seed * 1000 + rank, weights=weights)
        e = NivelArenaGymEnv(opponent=pool, seat="random", deck_pool=decks)
        e.reset(seed=seed * 1000 + rank)
        return Timed(Monitor(e))
    return _init


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--total-steps", type=int, default=None,
                    help="learner steps (default 2,000,000; 4,096 with --quick)")
    ap.add_argument("--decks", nargs="+", help="bundled names or deck files (default: all "
                                                "bundled decks)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/selfplay")
    ap.add_argument("--envs", type=int, default=os.cpu_count() or 1, help="parallel environments")
    ap.add_argument("--snapshot-every", type=int, default=100_000)
    ap.add_argument("--checkpoint-every", type=int, default=200_000)
    ap.add_argument("--eval-every", type=int, default=100_000)
    ap.add_argument("--eval-games", type=int, default=50, help="seeds per evaluation (x2 seats)")
    ap.add_argument("--final-games", type=int, default=None,
                    help="seeds for the final evaluation (x2 seats; 250 gives Wilson 95%% "
                         "intervals no wider than +-0.05; 8 with --quick)")
    ap.add_argument("--pool", type=float, nargs=3, default=(0.2, 0.3, 0.5),
                    metavar=("RANDOM", "HEURISTIC", "SNAPSHOTS"),
                    help="how often each kind of opponent is drawn (relative weights; "
                         "default 0.2 0.3 0.5)")
    ap.add_argument("--n-steps", type=int, default=1024, help="rollout steps per environment")
    ap.add_argument("--lr", type=float, default=None,
                    help="learning rate (default 3e-4; with --resume, the checkpoint's unless "
                         "given)")
    ap.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    ap.add_argument("--force", action="store_true",
                    help="start afresh in an --out that holds a run (its files are replaced)")
    ap.add_argument("--device", default="auto",
                    help="torch device: auto (CUDA when present, else CPU), cpu, cuda, cuda:1 ...")
    ap.add_argument("--quick", action="store_true", help="a tiny run (about a minute)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.total_steps is None:
        args.total_steps = 4096 if args.quick else 2_000_000
    if args.final_games is None:
        args.final_games = 8 if args.quick else 250
    if any(w < 0 for w in args.pool) or sum(args.pool) <= 0:
        ap.error(f"--pool weights must be >= 0 and not all 0, got {args.pool}")
    if args.quick:
        args.n_steps, args.snapshot_every, args.checkpoint_every = 256, 1024, 2048
        args.eval_every, args.eval_games = 2048, 4
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
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    except ImportError as e:
        print(f"train.py needs the train extra: pip install torch==2.13.0 && "
              f'pip install -e ".[train]" ({e})', file=sys.stderr)
        return 2
    from agents import HeuristicAgent, RandomAgent
    from agents.arena import head_to_head
    from agents.network import policy_kwargs
    from agents.policy import PolicyAgent, export_policy
    from nivel_env.cards import DeckError, list_decks, load_deck

    names = args.decks or list_decks()
    try:
        decks = [load_deck(n) for n in names]
    except DeckError as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    # one torch thread: the environment processes use the other cores (2.4x faster under
    # load on 2 cores, README)
    th.set_num_threads(1)
    device = ("cuda" if th.cuda.is_available() else "cpu") if args.device == "auto" \
        else args.device
    try:
        th.zeros(1, device=device)
    except (RuntimeError, AssertionError) as e:
        print(f"train.py: --device {args.device}: {e}", file=sys.stderr)
        return 2
    where = th.cuda.get_device_name(th.device(device)) if device.startswith("cuda") else "CPU"
    print(f"device: {device} ({where}), torch threads: {th.get_num_threads()}")
    factory = [make_env(i, args.seed, names, tuple(args.pool)) for i in range(args.envs)]
    venv = SubprocVecEnv(factory) if args.envs > 1 else DummyVecEnv(factory)

    checkpoints = sorted((out / "checkpoints").glob("model_*.zip"),
                         key=lambda p: int(p.stem.split("_")[1]))
    if args.resume and checkpoints:
        model = MaskablePPO.load(checkpoints[-1], env=venv, tensorboard_log=str(out / "tb"),
                                 device=device)
        print(f"resuming from {checkpoints[-1]} ({model.num_timesteps} steps)")
        if args.lr is not None:
            model.learning_rate = args.lr
            model._setup_lr_schedule()
        for snap in sorted((out / "snapshots").glob("*.pt"))[-5:]:
            venv.env_method("add_snapshot", str(snap))
    else:
        if args.resume:
            print(f"no checkpoint in {out / 'checkpoints'}; starting afresh")
        model = MaskablePPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=256,
                            n_epochs=4, learning_rate=args.lr or 3e-4, gamma=0.995, gae_lambda=0.95,
                            ent_coef=0.01, policy_kwargs=policy_kwargs(), seed=args.seed,
                            tensorboard_log=str(out / "tb"), verbose=0, device=device)

    timing = {"rollout": 0.0, "update": 0.0}

    class SelfPlay(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_snap = model.num_timesteps + args.snapshot_every
            self.next_ckpt = model.num_timesteps + args.checkpoint_every
            self.next_eval = model.num_timesteps + args.eval_every
            self.t_rollout = time.perf_counter()
            self.t_update = None

        def _on_rollout_start(self):
            now = time.perf_counter()
            if self.t_update is not None:
                timing["update"] += now - self.t_update
            self.t_rollout = now

        def _on_rollout_end(self):
            now = time.perf_counter()
            timing["rollout"] += now - self.t_rollout
            self.t_update = now

        def _on_step(self) -> bool:
            n = self.num_timesteps
            if n >= self.next_snap:
                self.next_snap += args.snapshot_every
                path = export_policy(model, out / "snapshots" / f"step_{n:09d}.pt")
                self.training_env.env_method("add_snapshot", str(path))
            if n >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                model.save(out / "checkpoints" / f"model_{n}.zip")
            if n >= self.next_eval:
                self.next_eval += args.eval_every
                for name, r in evaluate_now(args.eval_games, args.seed + n).items():
                    self.logger.record(f"eval/win_rate_vs_{name}", r["score"])
            return True

    def evaluate_now(games: int, seed: int) -> dict:
        me = PolicyAgent(policy=model.policy, meta={}, temperature=0.0)
        model.policy.set_training_mode(False)
        return {"heuristic": head_to_head(me, HeuristicAgent(seed), decks, games, seed),
                "random": head_to_head(me, RandomAgent(seed), decks, games, seed)}

    start, start_steps = time.perf_counter(), model.num_timesteps
    remaining = max(0, args.total_steps - model.num_timesteps)
    try:
        model.learn(total_timesteps=remaining, callback=SelfPlay(), reset_num_timesteps=False,
                    progress_bar=not args.no_progress, tb_log_name="ppo")
        interrupted = False
    except KeyboardInterrupt:                       # stop early, keep what was learnt
        interrupted = True
        print(f"\ninterrupted at {model.num_timesteps} steps; saving and exporting",
              file=sys.stderr)
    wall = time.perf_counter() - start
    steps = model.num_timesteps - start_steps
    model.save(out / "checkpoints" / f"model_{model.num_timesteps}.zip")
    env_seconds = float("nan")
    try:
        if not interrupted:             # after a Ctrl-C the worker pipes may be mid-message
            env_seconds = sum(venv.get_attr("env_seconds"))
        venv.close()
    except Exception:                                        # noqa: BLE001 -- workers gone
        pass
    command = "python train.py " + " ".join(sys.argv[1:] if argv is None else argv)
    from agents.ratings import wilson
    final = evaluate_now(args.final_games, args.seed + 999)
    for name, r in final.items():
        lo, hi = wilson(r["wins"] + 0.5 * r["draws"], r["games"])
        r["low"], r["high"] = round(lo, 4), round(hi, 4)
        print(f"final: {r['score']:.3f} [{lo:.3f}, {hi:.3f}] against {name} over {r['games']} "
              f"seat-swapped games (Wilson 95%)")
    policy_path = export_policy(model, out / "policy.pt",
                                {"command": command, "decks": names,
                                 "eval": {k: v["score"] for k, v in final.items()}})
    report = {
        "command": command, "total_steps": model.num_timesteps, "decks": names,
        "envs": args.envs, "pool": dict(zip(("random", "heuristic", "snapshots"), args.pool)),
        "device": f"{device} ({where})", "torch_threads": th.get_num_threads(),
        "wall_seconds": round(wall, 1),
        "steps_per_second": round(steps / wall, 1) if wall else None,
        "share_rollout": round(timing["rollout"] / wall, 3) if wall else None,
        "share_update": round(timing["update"] / wall, 3) if wall else None,
        "env_busy_share": (round(env_seconds / (wall * args.envs), 3)
                           if wall and env_seconds == env_seconds else None),
        "final_eval": final, "policy": str(policy_path),
    }
    (out / "train.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    print(f"\npolicy written to {policy_path}; play it with "
          f"agents.load_opponent({str(policy_path)!r}) or evaluate it with "
          f"python evaluate.py agents heuristic random {policy_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
