"""train.py's final evaluation: one game at a time (the previous train.py) against the
batched path (``nivel_env.tournaments.policy_eval``: lockstep blocks in this process, or
in worker processes that read the policy file).

A policy file (default: the shipped nv2-ppo), greedy, against the heuristic and random:
``--deals`` deals each, each played twice with the seats swapped (train.py's default
final evaluation is 250).  Prints wall and CPU seconds (CPU counts the worker processes)
and the scores; run each way in its own process::

    python benchmarks/final_eval.py before            # arena.head_to_head, 2 torch threads
    python benchmarks/final_eval.py here              # lockstep blocks in this process
    python benchmarks/final_eval.py workers           # lockstep blocks, worker processes
"""
from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu() -> float:
    """This process's CPU seconds and those of every process it has reaped."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("how", choices=("before", "here", "workers"))
    ap.add_argument("--deals", type=int, default=250)
    ap.add_argument("--policy", default=str(ROOT / "agents" / "policies" / "nv2-ppo.pt"))
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: as train.py chooses)")
    args = ap.parse_args()
    import torch as th
    th.set_num_threads(2)                       # train.py's default on 2 cores
    from agents import HeuristicAgent, RandomAgent
    from agents.policy import PolicyAgent
    from nivel_env.cards import list_decks, load_deck
    names = list_decks()
    decks = [load_deck(n) for n in names]
    me = PolicyAgent(args.policy, temperature=0.0)
    t, c = time.perf_counter(), cpu()
    how = args.how
    if how == "before":
        from nivel_env.tournaments.arena import head_to_head
        r = {"heuristic": head_to_head(me, HeuristicAgent(999), decks, args.deals, 999),
             "random": head_to_head(me, RandomAgent(999), decks, args.deals, 999)}
    else:
        from nivel_env.tournaments.policy_eval import auto_workers, evaluate_policy
        w = 1 if how == "here" else args.workers or auto_workers(args.deals, 2)
        r = evaluate_policy(me, {"heuristic": "heuristic", "random": "random"}, decks,
                            args.deals, 999, workers=w, policy_file=args.policy,
                            deck_specs=names)
        how += f" ({w} process{'es' if w > 1 else ''})"
        if w > 1:               # reap the forkserver, and through it the workers' CPU time
            from multiprocessing import forkserver
            forkserver._forkserver._stop()
    print(f"{how}: {args.deals} deals x 2 seats x 2 opponents: wall "
          f"{time.perf_counter() - t:.1f} s, CPU {cpu() - c:.1f} s; scores: "
          + ", ".join(f"{k} {v['score']:.3f}" + (f" [{v['low']:.3f}, {v['high']:.3f}]"
                                                     if "low" in v else "")
                      for k, v in r.items()))


if __name__ == "__main__":
    main()
