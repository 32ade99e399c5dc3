"""How long a person waits for the expert: its time per real decision, uncapped and with
the interactive time cap, on one core, idle and under load.

Each load is a fresh process that plays ``--games`` deals, each twice, of a person-like
player (uniformly random legal moves) against ``expert`` through
``nivel_env.session.PlaySession``, timing every call of the agent's ``act_state`` where it
has more than one legal move (wall time, ``perf_counter``, and the process's CPU time):

* ``off``: ``PlaySession(think_seconds=None)``, the expert as ``load_opponent`` makes it
  (what tournaments play: uncapped, torch's default threads);
* ``on``: ``PlaySession(think_seconds=--cap)`` (default ``PLAY_THINK_SECONDS``, what the
  game screens use): the agent through ``agents.opponents.for_play``, one torch thread.

The two alternate game by game (off first on even deals, on first on odd ones), so both
see the same load from whatever else the machine runs.

Loads (``--loads``), the search process pinned to core 0 except in ``incident``:

* ``idle``: nothing else started (the machine's other users aside);
* ``other``: a CPU burner (``while 1: pass``) pinned to core 1;
* ``same``: a burner pinned to core 0, sharing the search's core;
* ``incident``: the search process unpinned (torch's default, one thread per core) and a
  burner on core 1 -- how a screen ran the expert before ``for_play``.

It prints, per load and cap, the decisions timed and their mean / p50 / p90 / p99 / max
wall time, the CPU share of it, the share of moves that hit the cap, the simulations a
move, and the p99 / max of what the person waits from a move to their next decision
(``PlaySession.play``, which may hold several opponent decisions).

    python benchmarks/think_time.py --games 6
    python benchmarks/think_time.py --games 2 --loads incident
    python benchmarks/think_time.py --games 2 --cap 0.1 --out /tmp/think.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOADS = ("idle", "other", "same", "incident")
BURNER = {"idle": None, "other": 1, "same": 0, "incident": 1}


def play_games(games: int, seed: int, seconds: float) -> dict:
    """The child's work: ``games`` deals against the expert, each uncapped and capped in
    turn; for each cap ("off", "on") every timed decision, every wait for a reply and the
    torch threads the games ran with."""
    import numpy as np
    import torch

    from agents.search import SearchAgent
    from nivel_env.session import PlaySession
    default_threads = torch.get_num_threads()
    out = {c: {"decisions": [], "waits": [], "threads": None} for c in ("off", "on")}
    cap = {"now": "off"}
    act = SearchAgent.act_state

    def timed(self, g):
        real = len(g.legal_actions()) > 1
        w, c = time.perf_counter(), time.process_time()
        a = act(self, g)
        if real:
            out[cap["now"]]["decisions"].append(
                (time.perf_counter() - w, time.process_time() - c,
                 bool(self.last_stats["capped"]), int(self.last_stats["simulations"])))
        return a
    SearchAgent.act_state = timed
    for k in range(games):
        for now in (("off", "on") if k % 2 == 0 else ("on", "off")):
            cap["now"] = now
            rng = np.random.default_rng(seed + k)
            if now == "off":                     # as if the process had never played "on"
                torch.set_num_threads(default_threads)
            s = PlaySession(opponent="expert", seed=seed + k,
                            think_seconds=seconds if now == "on" else None)
            out[now]["threads"] = torch.get_num_threads()
            while not s.over:
                legal = s.legal()
                t = time.perf_counter()
                s.play(legal[rng.integers(len(legal))])
                out[now]["waits"].append(time.perf_counter() - t)
    return out


def summary(raw: dict) -> dict:
    import numpy as np
    wall = np.array([d[0] for d in raw["decisions"]]) * 1000
    cpu = np.array([d[1] for d in raw["decisions"]]) * 1000
    waits = np.array(raw["waits"]) * 1000
    return {"decisions": len(wall), "mean_ms": wall.mean(), "p50_ms": np.percentile(wall, 50),
            "p90_ms": np.percentile(wall, 90), "p99_ms": np.percentile(wall, 99),
            "max_ms": wall.max(), "cpu_share": cpu.sum() / wall.sum(),
            "capped_share": float(np.mean([d[2] for d in raw["decisions"]])),
            "simulations": float(np.mean([d[3] for d in raw["decisions"]])),
            "wait_p99_ms": np.percentile(waits, 99), "wait_max_ms": waits.max(),
            "threads": raw["threads"]}


def run_child(load: str, args) -> dict:
    cmd = [sys.executable, __file__, "--child", json.dumps(
        {"load": load, "games": args.games, "seed": args.seed, "seconds": args.cap})]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"think_time: the {load} run failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--games", type=int, default=4,
                    help="deals per load, each played uncapped and capped")
    ap.add_argument("--seed", type=int, default=5000, help="the first game's seed")
    ap.add_argument("--cap", type=float, default=None,
                    help="the cap in seconds (default agents.opponents.PLAY_THINK_SECONDS)")
    ap.add_argument("--loads", nargs="+", choices=LOADS, default=["idle", "other", "same"],
                    help="default: idle other same (incident's uncapped games take seconds "
                         "a move)")
    ap.add_argument("--out", default=None, help="also write the figures here (JSON)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        c = json.loads(args.child)
        if c["load"] != "incident":
            os.sched_setaffinity(0, {0})          # before torch picks its thread count
        raw = play_games(c["games"], c["seed"], c["seconds"])
        print(json.dumps(raw))
        return 0
    if args.cap is None:
        from agents.opponents import PLAY_THINK_SECONDS
        args.cap = PLAY_THINK_SECONDS
    if os.cpu_count() < 2:
        ap.error("needs two cores (the loads pin a burner to core 0 or core 1)")
    rows = []
    for load in args.loads:
        burner = None
        if BURNER[load] is not None:
            burner = subprocess.Popen([sys.executable, "-c", "while 1: pass"])
            os.sched_setaffinity(burner.pid, {BURNER[load]})
        try:
            raw = run_child(load, args)
            for cap in ("off", "on"):
                r = summary(raw[cap])
                r.update(load=load, cap=cap, cap_s=args.cap if cap == "on" else None)
                rows.append(r)
                print(f"{load:>8} cap {r['cap']:>3}: {r['decisions']} decisions, mean "
                      f"{r['mean_ms']:.0f} p50 {r['p50_ms']:.0f} p90 {r['p90_ms']:.0f} p99 "
                      f"{r['p99_ms']:.0f} max {r['max_ms']:.0f} ms", flush=True)
        finally:
            if burner is not None:
                burner.kill()
                burner.wait()
    print(f"\nexpert, time per real decision (ms, wall), {args.games} games a row, seeds "
          f"{args.seed}..{args.seed + args.games - 1}, cap {args.cap} s:\n")
    print("| load | cap | torch threads | decisions | mean | p50 | p90 | p99 | max | CPU/wall "
          "| hit the cap | simulations | wait p99 | wait max |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['load']} | {r['cap']} | {r['threads']} | {r['decisions']} | "
              f"{r['mean_ms']:.0f} | {r['p50_ms']:.0f} | {r['p90_ms']:.0f} | "
              f"{r['p99_ms']:.0f} | {r['max_ms']:.0f} | {r['cpu_share']:.2f} | "
              f"{r['capped_share']:.1%} | {r['simulations']:.0f} | {r['wait_p99_ms']:.0f} | "
              f"{r['wait_max_ms']:.0f} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
