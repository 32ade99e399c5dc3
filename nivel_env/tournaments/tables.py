"""Tables, ratings and plots shared by evaluate.py's reports: the score matrix with
paired intervals, Bradley-Terry ratings with bootstrap intervals, short labels for agent
specs, the heatmap, the files and the printed summary."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from .ratings import bootstrap_ratings, bradley_terry, paired_score, points_matrix


def heatmap(matrix, labels, title, path, low=None, high=None):
    """Row's score against column; with ``low`` and ``high``, each cell's 95% interval
    under its score."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    k = len(labels)
    longest = max(len(x) for x in labels)                  # room for long agent settings
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * k + 0.08 * longest,
                                    1.0 + 0.8 * k + 0.06 * longest))
    m = np.array(matrix, dtype=float)
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    for i in range(k):
        for j in range(k):
            if np.isnan(m[i, j]):
                continue
            text = f"{m[i, j]:.2f}"
            if low is not None:
                text += f"\n{low[i, j]:.2f}-{high[i, j]:.2f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=8 if low is None else 6.5)
    ax.set_title(title)
    ax.set_xlabel("opponent")
    fig.colorbar(im, ax=ax, label="row's score" + ("" if low is None else
                                                   " (95% interval below)"))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def unique_labels(specs) -> list[str]:
    """Short names for a table: a policy file by its stem, lengthened by its parent
    folders until no two agree (runs/a/policy.pt, runs/b/policy.pt -> a/policy,
    b/policy); the same name given twice gets #2, #3."""
    parts = [Path(str(s)).with_suffix("").parts if str(s).endswith(".pt") else (str(s),)
             for s in specs]
    depth = [1] * len(specs)
    while True:
        names = ["/".join(p[-d:]) for p, d in zip(parts, depth)]
        clash = [i for i, n in enumerate(names) if names.count(n) > 1
                 and depth[i] < len(parts[i])]
        if not clash:
            break
        for i in clash:
            depth[i] += 1
    out, seen = [], {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def score_matrix(labels, per_pair):
    """Score matrix (row vs column) with intervals from per-pair lists of per-seed points
    (each seed's two games, 0..2)."""
    k = len(labels)
    m = np.full((k, k), np.nan)
    rows = []
    for (i, j), pts in per_pair.items():
        pts = np.asarray(pts, dtype=float)
        for a, b, v in ((i, j, pts), (j, i, 2 - pts)):
            st = paired_score(v)
            m[a, b] = st["score"]
            rows.append({"row": labels[a], "column": labels[b], "games": 2 * len(v),
                         "score": round(st["score"], 4), "low": round(st["low"], 4),
                         "high": round(st["high"], 4),
                         "se_paired": round(st["se_paired"], 5),
                         "se_independent": round(st["se_independent"], 5)})
    return m, rows


def se_ratio(rows):
    """Mean over the matrix of the paired standard error over that of as many independent
    games: below 1, the duplicate pairing removed that much noise."""
    ratios = [r["se_paired"] / r["se_independent"] for r in rows
              if r["se_independent"] > 0 and r["se_paired"] == r["se_paired"]]
    return round(float(np.mean(ratios)), 3) if ratios else None


def rating_table(labels, per_pair, seed, samples, anchor=None):
    k = len(labels)
    r = bradley_terry(points_matrix(per_pair, k, games_per_unit=2), anchor)
    lo, hi = bootstrap_ratings(per_pair, k, samples, seed, anchor, games_per_unit=2)
    return [{"name": labels[i], "rating": round(float(r[i]), 1), "low": round(float(lo[i]), 1),
             "high": round(float(hi[i]), 1)} for i in np.argsort(-r)]


def write_tables(out: Path, stem: str, matrix_rows, report, m, labels, title, low=None,
                 high=None):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{stem}_matrix.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(matrix_rows[0]))
        w.writeheader()
        w.writerows(matrix_rows)
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2))
    heatmap(m, labels, title, out / f"{stem}_heatmap.png", low, high)
    return [out / f"{stem}_matrix.csv", out / f"{stem}.json", out / f"{stem}_heatmap.png"]


def print_report(report, labels, m, files):
    how = ("duplicate: each deal twice, agents exchanged" if report["kind"] == "agents"
           else report.get("play", "each seed twice"))
    print(f"\n{report['kind']}: {report['games_per_pair']} games per pair ({how})")
    if report.get("se_ratio_vs_independent") is not None:
        print(f"standard error {report['se_ratio_vs_independent']:.2f}x that of as many "
              f"independent games (mean over pairs)")
    if report.get("against_field"):
        print(f"\n{report['deck']} against the field (score, 95% interval):")
        for r in report["against_field"]:
            print(f"  {r['column']:24s} {r['score']:.3f}  [{r['low']:.3f}, {r['high']:.3f}]")
        me = next(r for r in report["overall"] if r["deck"] == report["deck"])
        print(f"  {'overall':24s} {me['score']:.3f}  [{me['low']:.3f}, {me['high']:.3f}]")
    if report["ratings"]:
        print("\nratings (" + report["rating_scale"] + ", bootstrap 95%):")
        for r in report["ratings"]:
            print(f"  {r['name']:24s} {r['rating']:7.1f}  [{r['low']:7.1f}, "
                  f"{r['high']:7.1f}]")
    if report.get("metagame"):
        mg = report["metagame"]
        print("\nmetagame (Nash equilibrium): " + ", ".join(
            f"{r['deck']} {r['weight']:.2f}" for r in mg["equilibrium"] if r["weight"] > 0)
            + f"; the uniform field is exploitable by {mg['exploitability_uniform']:.3f} "
              f"({mg['best_response_to_uniform']})")
    if report.get("think_time"):
        print("\ntime per real decision (one core per game): mean, 99th percentile")
        for spec, t in report["think_time"].items():
            print(f"  {spec:24s} {t['mean_ms']:9.2f} ms {t['p99_ms']:9.2f} ms  "
                  f"({t['moves']} moves)")
    if "first_player_win_rate" in report:
        f = report["first_player_win_rate"]
        print(f"\nfirst player wins {f['rate']} [{f['low']}, {f['high']}]; "
              f"{report['draws']} draws; {report['mean_turns']} turns, "
              f"{report['mean_decisions']} decisions a game")
    w = max(len(x) for x in labels)
    print("\nrow's score against column:")
    print(" " * (w + 2) + " ".join(f"{x[:7]:>7s}" for x in labels))
    for i, name in enumerate(labels):
        cells = " ".join("      -" if np.isnan(v) else f"{v:7.2f}" for v in m[i])
        print(f"{name:{w}s}  {cells}")
    print("\nwrote " + ", ".join(str(f) for f in files))
