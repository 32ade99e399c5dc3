"""evaluate.py cards measured: how long ranking a deck's cards takes, how stable the
ranking is, and how often it disagrees with the observational IWD.

    # one deck's ranking, timed (worker CPU seconds and wall), JSON to --out
    nice -n 19 env OMP_NUM_THREADS=1 python benchmarks/card_value.py run ember-rush \\
        --pilot heuristic --precision 0.03 --workers 2 --out docs/results/card-value/x.json

    # two rankings of one deck (two pilots, or two seed ranges): rank correlations
    python benchmarks/card_value.py stability A.json B.json

    # causal against observational, over many runs' JSON files
    python benchmarks/card_value.py iwd docs/results/card-value/iwd-*.json

CPU seconds are the worker processes' own (user + system, read from /proc for every
descendant process just before the pool shuts down) plus this process's; wall is the
whole run.  The machine's 2 cores were shared with other people's work while these ran,
so wall times are upper bounds; CPU seconds are what the games cost.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _descendants_cpu() -> float:
    """User + system CPU seconds of every live descendant of this process (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            raw = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        f = raw[raw.rindex(")") + 2:].split()
        parent[int(d)] = int(f[1])
        cpu[int(d)] = (int(f[11]) + int(f[12])) / tick
    total, todo = 0.0, [os.getpid()]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p:
                total += cpu[c]
                todo.append(c)
    return total


def run(a) -> dict:
    from nivel_env.cards import list_decks
    from nivel_env.tournaments.card_value import card_values
    from nivel_env.tournaments.runner import Runner
    field = [d for d in (a.field or list_decks()) if d != a.deck]
    runner = Runner(a.workers)
    t0, c0 = time.perf_counter(), time.process_time()
    pool = runner.pool()
    try:
        r = card_values(a.deck, field, a.pilot, runner=runner, pool=pool,
                        baseline=a.baseline, precision=a.precision, max_seeds=a.max_seeds,
                        batch=a.batch, seeds_from=a.seeds_from, early=not a.no_early,
                        out=a.decks_out, say=lambda x: print(x, flush=True))
        workers_cpu = _descendants_cpu()
    finally:
        if pool is not None:
            pool.shutdown()
    r["timing"] = {"wall_s": round(time.perf_counter() - t0, 1),
                   "cpu_s": round(workers_cpu + time.process_time() - c0, 1),
                   "workers": a.workers, "machine": "2 cores, shared with other work",
                   "games_per_cpu_s": round(r["games"] / max(1e-9, workers_cpu), 1)}
    widths = [(x["high"] - x["low"]) / 2 for x in r["rows"] if x["status"] != "baseline"]
    r["timing"]["max_half_width"] = round(max(widths), 4) if widths else None
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(r, indent=1, ensure_ascii=False))
    print(json.dumps(r["timing"]))
    return r


def _corr_interval(r: float, n: int, kind: str) -> tuple[float, float]:
    """95% interval of a rank correlation by Fisher's z with Fieller, Hartley and Pearson's
    variances (1.06/(n-3) for Spearman, 0.437/(n-4) for Kendall)."""
    var = 1.06 / (n - 3) if kind == "spearman" else 0.437 / (n - 4)
    if n < 5 or abs(r) >= 1:
        return (r, r) if abs(r) >= 1 else (-1.0, 1.0)
    z, h = math.atanh(r), 1.96 * math.sqrt(var)
    return math.tanh(z - h), math.tanh(z + h)


def rank_agreement(x, y) -> dict:
    """Spearman and Kendall between two value lists (same cards, same order)."""
    from scipy.stats import kendalltau, spearmanr
    n = len(x)
    s, k = float(spearmanr(x, y).statistic), float(kendalltau(x, y).statistic)
    return {"cards": n, "spearman": round(s, 3),
            "spearman_95": [round(v, 3) for v in _corr_interval(s, n, "spearman")],
            "kendall": round(k, 3),
            "kendall_95": [round(v, 3) for v in _corr_interval(k, n, "kendall")]}


def stability(a) -> dict:
    ra, rb = (json.loads(Path(p).read_text()) for p in (a.a, a.b))
    va = {x["card"]: x for x in ra["rows"]}
    vb = {x["card"]: x for x in rb["rows"]}
    cards = sorted(set(va) & set(vb))
    out = rank_agreement([va[c]["value"] for c in cards], [vb[c]["value"] for c in cards])
    rank_a = {c: i + 1 for i, c in enumerate(sorted(cards, key=lambda c: -va[c]["value"]))}
    rank_b = {c: i + 1 for i, c in enumerate(sorted(cards, key=lambda c: -vb[c]["value"]))}
    moves = sorted(cards, key=lambda c: -abs(rank_a[c] - rank_b[c]))
    out["moved"] = [{"card": c, "name": va[c]["name"], "rank_a": rank_a[c],
                     "rank_b": rank_b[c], "value_a": va[c]["value"],
                     "value_b": vb[c]["value"],
                     "overlap": not (va[c]["high"] < vb[c]["low"]
                                     or vb[c]["high"] < va[c]["low"])}
                    for c in moves if abs(rank_a[c] - rank_b[c]) >= 3]
    out["a"] = {"pilot": ra["pilot"], "seeds": ra["seeds"], "file": a.a}
    out["b"] = {"pilot": rb["pilot"], "seeds": rb["seeds"], "file": a.b}
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return out


def iwd(a) -> dict:
    """Per run: rank correlation of causal value and IWD over the cards with an IWD,
    sign disagreements (both intervals exclude 0, opposite signs; and point estimates of
    opposite sign), whether the top and the bottom card differ."""
    per = []
    for p in a.files:
        r = json.loads(Path(p).read_text())
        rows = [x for x in r["rows"] if x["iwd"] is not None and x["status"] != "baseline"]
        if len(rows) < 5:
            continue
        ag = rank_agreement([x["value"] for x in rows], [x["iwd"] for x in rows])
        clear = [x for x in rows if (x["low"] > 0 or x["high"] < 0)
                 and (x["iwd_low"] > 0 or x["iwd_high"] < 0)]
        top_v, top_i = max(rows, key=lambda x: x["value"]), max(rows, key=lambda x: x["iwd"])
        bot_v, bot_i = min(rows, key=lambda x: x["value"]), min(rows, key=lambda x: x["iwd"])
        per.append({"deck": r["deck"], "pilot": r["pilot"], "cards": len(rows), **ag,
                    "sign_differs": sum((x["value"] > 0) != (x["iwd"] > 0) for x in rows
                                        if x["value"] != 0),
                    "both_clear": len(clear),
                    "both_clear_opposite": sum((x["value"] > 0) != (x["iwd"] > 0)
                                               for x in clear),
                    "iwd_clear": sum(x["iwd_low"] > 0 or x["iwd_high"] < 0 for x in rows),
                    "causal_clear": sum(x["low"] > 0 or x["high"] < 0 for x in rows),
                    "top": [top_v["name"], top_i["name"]],
                    "bottom": [bot_v["name"], bot_i["name"]],
                    "top_differs": top_v["card"] != top_i["card"],
                    "bottom_differs": bot_v["card"] != bot_i["card"],
                    "games": r["games"], "cpu_s": r.get("timing", {}).get("cpu_s")})
    out = {"runs": per}
    if per:
        import numpy as np
        out["median_spearman"] = round(float(np.median([x["spearman"] for x in per])), 3)
        out["top_differs"] = sum(x["top_differs"] for x in per)
        out["bottom_differs"] = sum(x["bottom_differs"] for x in per)
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("deck")
    r.add_argument("--field", nargs="+")
    r.add_argument("--pilot", default="heuristic")
    r.add_argument("--baseline", default=None)
    r.add_argument("--precision", type=float, default=0.03)
    r.add_argument("--max-seeds", type=int, default=1000)
    r.add_argument("--batch", type=int, default=32)
    r.add_argument("--seeds-from", type=int, default=0)
    r.add_argument("--no-early", action="store_true")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--decks-out", default="results/card-value-bench")
    r.add_argument("--out", required=True)
    s = sub.add_parser("stability")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--out")
    i = sub.add_parser("iwd")
    i.add_argument("files", nargs="+")
    i.add_argument("--out")
    a = ap.parse_args(argv)
    {"run": run, "stability": stability, "iwd": iwd}[a.cmd](a)


if __name__ == "__main__":
    main()
