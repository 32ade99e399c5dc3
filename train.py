"""Self-play training with MaskablePPO (sb3-contrib) on batched games.

The learner plays a random seat of a deck pair drawn per deal, in ``--envs`` games held
in one process (``nivel_env.env.vector_sb3.SelfPlayVecEnv``), against an opponent drawn per
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

This file is the command line; the run, one loop (collect a rollout, update, evaluate and
checkpoint between steps, report), is ``agents.training.train``, and the opponent pool
``agents.training_pool.Pool``.
"""
from __future__ import annotations

import argparse
import sys

from agents.train_progress import parse_every
from agents.training_pool import DEFAULT_POOL
from nivel_env.threads import passive_waiting


def every(text: str) -> tuple[str, float]:
    """``--eval-every``: learner steps or a time (``agents.train_progress.parse_every``)."""
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
    ap.add_argument("--obs", choices=("full", "compact"), default="full",
                    help="observation layout: full (159 card features in every card slot; "
                         "default, what the shipped policies read) or compact (card table "
                         "indices, the table embedded once per forward: ~6x cheaper per "
                         "sample; the pointer network only; docs/observation.md)")
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
    ap.add_argument("--precision", choices=("auto", "float32", "bfloat16"), default="auto",
                    help="bfloat16: on CUDA the feature extractor runs in bfloat16 (heads, "
                         "losses, weights and the optimizer stay float32); auto (default): "
                         "that on CUDA with --batch-size 2048 or more, where it pays "
                         "(measured), float32 otherwise")
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
    if args.obs == "compact" and args.net != "pointer":
        ap.error("--obs compact needs --net pointer (the card_set network reads full card "
                 "rows)")
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


def main(argv=None) -> int:
    """The command: its arguments, then the run (``agents.training.train``)."""
    passive_waiting()                # before torch loads: idle OpenMP threads sleep, not spin
    _, args = parse_args(argv)
    try:
        from agents.training import train
    except ImportError as e:
        from nivel_env.install_hints import TRAIN
        print(f"train.py cannot start: {TRAIN} ({e})", file=sys.stderr)
        return 2
    command = "python train.py " + " ".join(sys.argv[1:] if argv is None else argv)
    return train(args, command)


if __name__ == "__main__":
    sys.exit(main())
