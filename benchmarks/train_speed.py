"""Training throughput: train.py end to end, beside the engine's own speed, same run.

Runs ``train.py`` for ``--steps`` learner steps (no evaluation; snapshots taken from an
eighth of the way on, as a long run's pool would hold them) and, before and after it,
uniform-random engine games for ``--engine-seconds`` each, in this one process, so the
two figures come from the same machine state.  Prints learner steps/s, the share of wall
time in the environment (engine + encoder + batch bookkeeping) and in each other part, the
engine's random-play decisions/s, and their ratio, which compares across machines.

Targets: >= 2,000 learner steps/s on 2 cores with the compact pointer network
(``--obs compact``), and learner steps/s / engine decisions/s >= 0.08.

    python benchmarks/train_speed.py                       # pointer network, 1 process
    python benchmarks/train_speed.py --obs compact --workers 2   # the compact network
    python benchmarks/train_speed.py --net card_set --workers 2 --threads 1
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def engine_rate(seconds: float, seed: int = 0) -> float:
    """Random-play decisions/s over bundled deck pairs for about ``seconds``."""
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import new_game
    decks = [load_deck(n) for n in list_decks()]
    r = random.Random(seed)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        g = new_game(r.choice(decks), r.choice(decks), seed=r.randrange(1 << 30))
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
            n += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=131_072)
    ap.add_argument("--engine-seconds", type=float, default=15.0)
    ap.add_argument("train_args", nargs=argparse.REMAINDER,
                    help="further train.py options (e.g. --net card_set --workers 2)")
    args, extra = ap.parse_known_args()
    import train
    before = engine_rate(args.engine_seconds)
    with tempfile.TemporaryDirectory() as out:
        # snapshots from an eighth of the way on, so the pool plays as in a long run
        argv = ["--total-steps", str(args.steps), "--out", out, "--no-progress",
                "--final-games", "0", "--eval-every", str(10 ** 12),
                "--snapshot-every", str(max(4096, args.steps // 8)), *extra,
                *[a for a in args.train_args if a != "--"]]
        with contextlib.redirect_stdout(io.StringIO()):
            code = train.main(argv)
        if code:
            sys.exit(f"train.py {' '.join(argv)} failed ({code})")
        report = json.loads((Path(out) / "train.json").read_text())
    after = engine_rate(args.engine_seconds)
    engine = (before + after) / 2
    rate = report["steps_per_second"]
    shares = report["time_shares"]
    given = [*extra, *[a for a in args.train_args if a != "--"]]
    print(f"train.py {' '.join(given) or '(defaults)'}: network {report['network']} over "
          f"the {report.get('observation', 'full')} observation, "
          f"{report['envs']} games, {report['workers']} process(es), "
          f"{report['torch_threads']} torch thread(s), {report['device']}")
    print(f"learner steps/s        {rate:,.0f}   (target >= 2,000)")
    print(f"engine decisions/s     {engine:,.0f}   (before {before:,.0f}, after {after:,.0f})")
    print(f"ratio                  {rate / engine:.3f}   (target >= 0.08)")
    for k, v in shares.items():
        print(f"share {k:<24s} {v:.3f}")


if __name__ == "__main__":
    main()
