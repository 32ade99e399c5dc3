"""How the search agent's strength grows with its budget (simulations per move).

One evaluate.py gauntlet: the search agent at each budget against each --against agent,
seat-swapped duplicate games; then a table (score with its 95% interval, mean and 99th
percentile time per real decision on one core) and a plot of score against budget.

    python benchmarks/search_budget.py --budgets 16 64 256 1024 --against nv2-ppo \
        --games 100 --out results/search-budget
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--search", default="nv2-search", help="the search agent (a name or a "
                                                          "policy file; budgets are added)")
    ap.add_argument("--budgets", type=int, nargs="+", default=[16, 64, 256, 1024])
    ap.add_argument("--against", nargs="+", default=["nv2-ppo"])
    ap.add_argument("--games", type=int, default=100, help="seeds per pair (each twice)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default="results/search-budget")
    args = ap.parse_args(argv)
    import evaluate
    specs = [f"{args.search}:simulations={b}" for b in args.budgets]
    cmd = ["agents", *specs, "--against", *args.against, "--games", str(args.games),
           "--seed", str(args.seed), "--out", args.out, "--no-progress"]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    evaluate.main(cmd)
    report = json.loads((Path(args.out) / "agents.json").read_text())
    labels = dict(zip(report["agents"], report["labels"]))
    cells = {(r["row"], r["column"]): r for r in report["matrix"]}
    rows = []
    for b, spec in zip(args.budgets, specs):
        t = report["think_time"].get(spec, {})
        row = {"simulations": b, "mean_ms": t.get("mean_ms"), "p99_ms": t.get("p99_ms")}
        for a in args.against:
            c = cells[(labels[spec], labels[a])]
            row[a] = {"score": c["score"], "low": c["low"], "high": c["high"],
                      "games": c["games"]}
        rows.append(row)
    head = "| simulations | " + " | ".join(f"vs {a}" for a in args.against) + \
        " | mean ms/move | p99 ms/move |"
    lines = [head, "|" + "---|" * (3 + len(args.against))]
    for r in rows:
        lines.append(f"| {r['simulations']} | " + " | ".join(
            f"{r[a]['score']:.3f} [{r[a]['low']:.3f}, {r[a]['high']:.3f}]"
            for a in args.against) + f" | {r['mean_ms']:.0f} | {r['p99_ms']:.0f} |")
    table = "\n".join(lines)
    print(f"\n{args.search}: score by budget ({rows[0][args.against[0]]['games']} games per "
          f"cell, duplicate)\n{table}")
    out = Path(args.out)
    (out / "budget.md").write_text(table + "\n")
    (out / "budget.json").write_text(json.dumps({"command": "python benchmarks/search_budget.py "
                                                 + " ".join(sys.argv[1:] if argv is None
                                                            else argv), "rows": rows},
                                                indent=2))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for a in args.against:
        y = [r[a]["score"] for r in rows]
        err = [[r[a]["score"] - r[a]["low"] for r in rows],
               [r[a]["high"] - r[a]["score"] for r in rows]]
        ax.errorbar(args.budgets, y, yerr=err, marker="o", capsize=3, label=f"vs {a}")
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("simulations per move")
    ax.set_ylabel("score (95% interval)")
    ax.set_title(f"{args.search}: strength by search budget")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "budget.png", dpi=120)
    print(f"wrote {out / 'budget.md'}, {out / 'budget.json'}, {out / 'budget.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
