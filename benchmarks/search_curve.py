"""Strength against compute for the search's two roots (PUCT and Gumbel, ``agents.search``):
score against nv2-ppo by simulations a move and by milliseconds a move, one line per root
kind and worlds count.

One evaluate.py gauntlet of seat-swapped duplicate games per run: each point
``ROOT/SIMULATIONS/WORLDS`` is ``nv2-search:root=ROOT,simulations=..,worlds=..`` (a budget
of 512 or more takes nv2-search-deep's 64 leaves a forward, ``--deep-batch``) against each
``--against`` agent.  Writes ``curve.csv`` (each point's score with its 95% interval, mean
and p99 ms per real decision, one core a game) and ``curve.png`` (score against simulations
and against ms/move) into ``--out``, with the gauntlet's own files under ``--out/gauntlets``.
``--append`` adds the points to the CSV already there (a point measured again replaces its
row), so a long curve can be measured in parts; the plot shows every row.

The gauntlet's ms/move is wall time, which other work on the machine inflates (a
game's process may get a quarter of a core).  ``--cpu N`` measures instead, without
playing a game, each row's CPU time a move (``time.process_time``, this process, torch on
one thread) on N positions of nv2-ppo self-play games (decisions with more than one legal
move), the rows' agents interleaved position by position; it writes the median and the
90th percentile as ``cpu_ms`` and ``cpu_p90_ms`` into the CSV's rows (and every timed
spec, ``--points`` not in the CSV included, into ``cpu.csv``), and the plot's second
panel uses them.

    python benchmarks/search_curve.py --cpu 60 --points puct/512/4 \
        --out docs/results/search-curve

    python benchmarks/search_curve.py --points puct/16/4 gumbel/16/4 puct/64/4 gumbel/64/4 \
        --games 40 --seed 1 --out docs/results/search-curve

Training rounds: ``--rounds LABEL=FILE ...`` reads the ``rounds.json`` of
``agents.distill`` runs (each round's policy alone against nv2-ppo, with its interval)
into ``rounds.csv`` (a label given again replaces its rows) and adds a third panel, score
against the self-play games distilled so far (round 0 is the starting policy, 0.5
against itself by definition):

    python benchmarks/search_curve.py --rounds "PUCT teacher=runs/distill/rounds.json" \
        "Gumbel teacher=runs/distill-gumbel/rounds.json" --out docs/results/search-curve
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROUND_COLUMNS = ("label", "round", "games", "samples", "simulations", "root", "target",
                 "score", "low", "high", "eval_games")
COLUMNS = ("root", "simulations", "worlds", "extra", "spec", "against", "games", "score",
           "low", "high", "mean_ms", "p99_ms", "cpu_ms", "cpu_p90_ms")


def spec_of(point: str, deep_batch: int, extra: str = "") -> tuple[dict, str]:
    """``"gumbel/64/4"`` -> its fields and the agent spec evaluate.py loads."""
    try:
        root, sims, worlds = point.split("/")
        sims, worlds = int(sims), int(worlds)
    except ValueError:
        raise SystemExit(f"search_curve: a point is ROOT/SIMULATIONS/WORLDS, got {point!r}")
    spec = f"nv2-search:root={root},simulations={sims},worlds={worlds}"
    if sims >= 512:
        spec += f",batch={deep_batch}"
    if extra:
        spec += f",{extra}"
    return {"root": root, "simulations": sims, "worlds": worlds, "extra": extra}, spec


def measure(points: list, against: list, games: int, seed: int, workers, out: Path,
            deep_batch: int, extra: str) -> list[dict]:
    import json

    import evaluate
    fields = [spec_of(p, deep_batch, extra) for p in points]
    specs = [s for _, s in fields]
    runs = out / "gauntlets"
    cmd = ["agents", *specs, "--against", *against, "--games", str(games), "--seed",
           str(seed), "--out", str(runs), "--no-progress"]
    if workers:
        cmd += ["--workers", str(workers)]
    evaluate.main(cmd)
    report = json.loads((runs / "agents.json").read_text())
    name = f"agents-{len(list(runs.glob('agents-*.json'))) + 1}.json"
    (runs / name).write_text(json.dumps(report, indent=1))    # each part's gauntlet kept
    labels = dict(zip(report["agents"], report["labels"]))
    cells = {(r["row"], r["column"]): r for r in report["matrix"]}
    rows = []
    for f, spec in fields:
        t = report["think_time"].get(spec, {})
        for a in against:
            c = cells[(labels[spec], labels[a])]
            rows.append({**f, "spec": spec, "against": a, "games": c["games"],
                         "score": c["score"], "low": c["low"], "high": c["high"],
                         "mean_ms": t.get("mean_ms"), "p99_ms": t.get("p99_ms")})
    return rows


def self_play_positions(count: int, seed: int) -> list:
    """``count`` decisions with a real choice from nv2-ppo playing itself over the bundled
    decks (its move: a search with no simulation to spend, the policy's argmax), spread
    over games by taking every 7th."""
    import numpy as np

    from agents import load_opponent
    from nivel_env.cards.deck import list_decks, load_deck
    from nivel_env.engine import new_game
    policy = load_opponent("nv2-search:simulations=1,worlds=1", seed=seed)
    decks = list_decks()
    rng = np.random.default_rng(seed)
    out, k = [], 0
    while len(out) < count:
        a, b = rng.choice(len(decks), 2)
        g = new_game(load_deck(decks[a]), load_deck(decks[b]), seed=int(rng.integers(1 << 30)))
        while g.result is None and len(out) < count:
            legal = g.legal_actions()
            if len(legal) > 1:
                k += 1
                if k % 7 == 0:
                    out.append(g.clone())
            g.apply_action(policy.act_state(g))
    return out


def cpu_times(specs: list, positions: int, seed: int) -> dict:
    """Each spec's CPU ms a move on the same positions, interleaved (see the docstring):
    ``{spec: (median, 90th percentile)}``."""
    import time

    import numpy as np
    import torch

    from agents import load_opponent
    torch.set_num_threads(1)
    games = self_play_positions(positions, seed)
    agents = {spec: load_opponent(spec, seed=seed) for spec in specs}
    times: dict = {spec: [] for spec in agents}
    for g in games[:3]:                                         # warm-up, not counted
        for agent in agents.values():
            agent.act_state(g)
    for g in games:
        for spec, agent in agents.items():
            t = time.process_time()
            agent.act_state(g)
            times[spec].append((time.process_time() - t) * 1000)
    return {spec: (float(np.median(ms)), float(np.percentile(ms, 90)))
            for spec, ms in times.items()}


def read_rows(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open() as fh:
        return list(csv.DictReader(fh))


def read_distill_rounds(label: str, path: Path) -> list[dict]:
    """``rounds.csv`` rows from an ``agents.distill`` run's ``rounds.json``: each round's
    policy against nv2-ppo, and the self-play games distilled up to it."""
    import json
    try:
        rounds = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"search_curve: --rounds {label}={path}: not a readable rounds.json "
                         f"({e})") from None
    rows, games = [], 0
    for r in rounds:
        ev = (r.get("evaluation") or {}).get("nv2-ppo")
        if ev is None:
            raise SystemExit(f"search_curve: --rounds {label}={path}: round {r.get('round')} "
                             f"has no evaluation against nv2-ppo (run with --eval-games)")
        games += int(r["games"])
        rows.append({"label": label, "round": r["round"], "games": games,
                     "samples": r["samples"], "simulations": r["search"]["simulations"],
                     "root": r["search"].get("root", "puct"), "target": r.get("target", ""),
                     "score": ev["score"], "low": ev["low"], "high": ev["high"],
                     "eval_games": ev["games"]})
    return rows


def plot(rows: list[dict], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rounds = read_rows(out / "rounds.csv")
    fig, axes = plt.subplots(1, 3 if rounds else 2, figsize=(16 if rounds else 11, 4.2),
                             sharey=True)
    groups: dict = {}
    for r in rows:
        key = (r["against"], r["root"], int(r["worlds"]), r.get("extra") or "")
        groups.setdefault(key, []).append(r)
    for (against, root, worlds, extra), rs in sorted(groups.items()):
        rs.sort(key=lambda r: int(r["simulations"]))
        y = [float(r["score"]) for r in rs]
        err = [[float(r["score"]) - float(r["low"]) for r in rs],
               [float(r["high"]) - float(r["score"]) for r in rs]]
        label = f"{root}, {worlds} worlds" + (f", {extra}" if extra else "") + \
            f" (vs {against})"
        style = dict(marker="o" if root == "gumbel" else "s", capsize=3, label=label,
                     ls="-" if worlds == 4 and not extra else "--")
        axes[0].errorbar([int(r["simulations"]) for r in rs], y, yerr=err, **style)
        cpu = all(r.get("cpu_ms") for r in rs)
        axes[1].errorbar([float(r["cpu_ms" if cpu else "mean_ms"]) for r in rs], y, yerr=err,
                         **style)
    cpu = all(r.get("cpu_ms") for r in rows)
    for ax, what in zip(axes, ("simulations per move",
                               "median CPU ms per move (one thread)" if cpu else
                               "mean wall ms per move (one core a game, shared)")):
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel(what)
    axes[0].set_ylabel("score (95% interval)")
    axes[1].legend(fontsize=7, loc="lower right")
    if rounds:
        labels: dict = {}
        for r in rounds:
            labels.setdefault(r["label"], []).append(r)
        for label, rs in labels.items():
            rs.sort(key=lambda r: int(r["round"]))
            x = [0] + [int(r["games"]) for r in rs]
            y = [0.5] + [float(r["score"]) for r in rs]
            err = [[0] + [float(r["score"]) - float(r["low"]) for r in rs],
                   [0] + [float(r["high"]) - float(r["score"]) for r in rs]]
            axes[2].errorbar(x, y, yerr=err, marker="D", capsize=3,
                             label=f"{label} ({rs[0]['simulations']} simulations)")
        axes[2].axhline(0.5, color="grey", lw=0.8, ls=":")
        axes[2].set_xlabel("self-play games distilled (agents.distill rounds)")
        axes[2].set_title("the distilled policy alone, no search", fontsize=9)
        axes[2].legend(fontsize=7, loc="lower right")
    fig.suptitle("nv2-search: strength against compute, PUCT and Gumbel roots"
                 + (", and training rounds" if rounds else "") + " (against nv2-ppo)")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--points", nargs="+", metavar="ROOT/SIMS/WORLDS")
    ap.add_argument("--cpu", type=int, metavar="POSITIONS",
                    help="measure the CSV's rows' CPU time a move instead of playing (and "
                         "--points' too, into cpu.csv only)")
    ap.add_argument("--extra", default="", help="settings added to every point's spec "
                                                "(e.g. c_scale=1.0); a column of the CSV")
    ap.add_argument("--against", nargs="+", default=["nv2-ppo"])
    ap.add_argument("--games", type=int, default=40, help="seeds per pair (each twice)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--deep-batch", type=int, default=64,
                    help="leaves a forward at 512 simulations or more (nv2-search-deep's)")
    ap.add_argument("--append", action="store_true", help="keep the CSV's other rows")
    ap.add_argument("--rounds", nargs="+", metavar="LABEL=FILE",
                    help="agents.distill runs' rounds.json: a training-rounds panel")
    ap.add_argument("--out", default="results/search-curve")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.rounds:
        new = []
        for item in args.rounds:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                raise SystemExit(f"search_curve: --rounds takes LABEL=FILE, got {item!r}")
            new += read_distill_rounds(label, Path(path))
        kept = [r for r in read_rows(out / "rounds.csv")
                if r["label"] not in {n["label"] for n in new}]
        with (out / "rounds.csv").open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=ROUND_COLUMNS)
            w.writeheader()
            w.writerows(kept + new)
        rows = read_rows(out / "curve.csv")
        plot(rows, out)
        for r in kept + new:
            print(f"{r['label']}, round {r['round']} ({r['games']} games): "
                  f"{float(r['score']):.3f} [{float(r['low']):.3f}, {float(r['high']):.3f}]")
        return 0
    if args.cpu:
        rows = read_rows(out / "curve.csv")
        if not rows:
            raise SystemExit(f"search_curve: --cpu times the rows of {out / 'curve.csv'}, "
                             f"and there are none")
        more = [spec_of(p, args.deep_batch, args.extra)[1] for p in args.points or []]
        specs = list(dict.fromkeys([r["spec"] for r in rows] + more))
        cpu = cpu_times(specs, args.cpu, args.seed)
        with (out / "cpu.csv").open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["spec", "positions", "cpu_ms_median", "cpu_ms_p90"])
            for spec, (med, p90) in cpu.items():
                w.writerow([spec, args.cpu, f"{med:.2f}", f"{p90:.2f}"])
                print(f"{spec}: CPU ms a move, median {med:.2f}, p90 {p90:.2f}")
        for r in rows:
            r["cpu_ms"], r["cpu_p90_ms"] = (f"{x:.2f}" for x in cpu[r["spec"]])
        write(rows, out)
        return 0
    if not args.points:
        raise SystemExit("search_curve: give --points (or --cpu to time the CSV's rows)")
    new = measure(args.points, args.against, args.games, args.seed, args.workers, out,
                  args.deep_batch, args.extra)
    fresh = {(r["spec"], r["against"]) for r in new}
    old = [r for r in read_rows(out / "curve.csv") if (r["spec"], r["against"]) not in fresh] \
        if args.append else []
    rows = old + [{k: r.get(k, "") for k in COLUMNS} for r in new]
    write(rows, out)
    return 0


def write(rows: list[dict], out: Path) -> None:
    """The CSV, the plot and a table on stdout."""
    with (out / "curve.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    plot(rows, out)
    print("| root | simulations | worlds | extra | vs | score [95%] | wall ms mean | p99 | "
          "CPU ms median | p90 |")
    print("|---|---:|---:|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['root']} | {r['simulations']} | {r['worlds']} | {r['extra']} | "
              f"{r['against']} | {float(r['score']):.3f} [{float(r['low']):.3f}, "
              f"{float(r['high']):.3f}] | {float(r['mean_ms']):.0f} | "
              f"{float(r['p99_ms']):.0f} | {r.get('cpu_ms') or '-'} | "
              f"{r.get('cpu_p90_ms') or '-'} |")
    print(f"wrote {out / 'curve.csv'}, {out / 'curve.png'}")


if __name__ == "__main__":
    sys.exit(main())
