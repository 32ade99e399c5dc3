"""Tables, ratings and plots shared by evaluate.py's reports: the score matrix with
paired intervals, Bradley-Terry ratings with bootstrap intervals, short labels for agent
specs, the heatmap, the files and the printed summary.

Numbers measured on too few games say so where they are printed (``ratings.few_games``),
and the heatmap shades its cells by the evidence, not by the score alone: a cell whose
interval holds 0.5 is grey, and a decided cell is the paler the wider its interval
(``cell_colour``)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from .ratings import bootstrap_ratings, bradley_terry, few_games, paired_score, points_matrix


GREY = (0.82, 0.82, 0.82)
#: an interval this wide (or wider) leaves a decided cell at its palest
WIDE = 0.5
PALEST = 0.2
SHADING = ("grey: the 95% interval holds 0.5 (undecided); coloured cells are the paler "
           "the wider their interval")


def cell_colour(score: float, low: float | None = None, high: float | None = None,
                cmap=None) -> tuple:
    """The RGB colour of a heatmap cell: the score's colour (red 0, green 1), grey when
    the interval [low, high] holds 0.5, and otherwise mixed towards grey by the
    interval's width (saturation ``1 - width / WIDE``, at least ``PALEST``), so that a
    cell's colour shows the evidence as well as the score.  Without an interval, the
    score's colour; a missing score (the diagonal) is white."""
    if score != score:
        return (1.0, 1.0, 1.0)
    if cmap is None:
        import matplotlib
        cmap = matplotlib.colormaps["RdYlGn"]
    full = np.asarray(cmap(float(score))[:3])
    if low is None or high is None or low != low or high != high:
        return tuple(float(c) for c in full)
    if low <= 0.5 <= high:
        return GREY
    sat = float(np.clip(1 - (high - low) / WIDE, PALEST, 1))
    grey = np.asarray(GREY)
    return tuple(float(c) for c in grey + sat * (full - grey))


def heatmap(matrix, labels, title, path, low=None, high=None):
    """Row's score against column; with ``low`` and ``high``, each cell's 95% interval
    under its score and the cell shaded by it (``cell_colour``; the figure says how)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    k = len(labels)
    longest = max(len(x) for x in labels)                  # room for long agent settings
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * k + 0.08 * longest,
                                    1.3 + 0.8 * k + 0.06 * longest))
    m = np.array(matrix, dtype=float)
    cmap = matplotlib.colormaps["RdYlGn"]
    rgb = np.array([[cell_colour(m[i, j], None if low is None else low[i, j],
                                 None if high is None else high[i, j], cmap)
                     for j in range(k)] for i in range(k)])
    ax.imshow(rgb)
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
    fig.suptitle(title, fontsize=11)       # over the figure: a long title clears the colour bar
    ax.set_xlabel("opponent")
    sm = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(0, 1), cmap=cmap)
    fig.colorbar(sm, ax=ax, label="row's score" + ("" if low is None else
                                                   " (95% interval below)"))
    if low is not None:
        fig.text(0.01, 0.005, SHADING.replace("; ", ";\n"), fontsize=7, color="#444",
                 ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.08 if low is not None else 0, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def interval_arrays(labels, rows):
    """The matrix rows' low and high as two k x k arrays in ``labels``' order."""
    k = len(labels)
    at = {x: n for n, x in enumerate(labels)}
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for r in rows:
        low[at[r["row"]], at[r["column"]]] = r["low"]
        high[at[r["row"]], at[r["column"]]] = r["high"]
    return low, high


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
                         "se_independent": round(st["se_independent"], 5),
                         "note": few_games(st["score"], 2 * len(v), st["low"], st["high"])})
    return m, rows


def se_ratio(rows):
    """Mean over the matrix of the paired standard error over that of as many independent
    games: below 1, the duplicate pairing removed that much noise."""
    ratios = [r["se_paired"] / r["se_independent"] for r in rows
              if r["se_independent"] > 0 and r["se_paired"] == r["se_paired"]]
    return round(float(np.mean(ratios)), 3) if ratios else None


def player_units(per_pair, i) -> list:
    """Player ``i``'s points in every unit it played (0..2 a duplicate pair), from its
    side."""
    return [p for (a, b), v in per_pair.items()
            for p in (v if a == i else [2 - q for q in v] if b == i else [])]


def rating_table(labels, per_pair, seed, samples, anchor=None):
    """Bradley-Terry ratings with bootstrap intervals, best first; each row with the
    games behind it and the small-sample note of its overall score (``few_games``: a
    rating from five games can print as 0.0 [0.0, 0.0])."""
    k = len(labels)
    r = bradley_terry(points_matrix(per_pair, k, games_per_unit=2), anchor)
    lo, hi = bootstrap_ratings(per_pair, k, samples, seed, anchor, games_per_unit=2)
    rows = []
    for i in np.argsort(-r):
        pts = player_units(per_pair, i)
        st = paired_score(pts)
        rows.append({"name": labels[i], "rating": round(float(r[i]), 1),
                     "low": round(float(lo[i]), 1), "high": round(float(hi[i]), 1),
                     "games": 2 * len(pts),
                     "note": few_games(st["score"], 2 * len(pts), st["low"], st["high"])})
    return rows


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


def _note(text: str) -> str:
    return f"  ({text})" if text else ""


def print_report(report, labels, m, files):
    """The summary on the terminal; every number measured on too few games carries its
    ``few_games`` note (undecided matrix cells are marked ``?``)."""
    how = ("duplicate: each deal twice, agents exchanged" if report["kind"] == "agents"
           else report.get("play", "each seed twice"))
    print(f"\n{report['kind']}: {report['games_per_pair']} games per pair ({how})")
    if report.get("se_ratio_vs_independent") is not None:
        print(f"standard error {report['se_ratio_vs_independent']:.2f}x that of as many "
              f"independent games (mean over pairs)")
    if report.get("against_field"):
        print(f"\n{report['deck']} against the field (score, 95% interval):")
        for r in report["against_field"]:
            print(f"  {r['column']:24s} {r['score']:.3f}  [{r['low']:.3f}, {r['high']:.3f}]"
                  + _note(r.get("note", "")))
        me = next(r for r in report["overall"] if r["deck"] == report["deck"])
        print(f"  {'overall':24s} {me['score']:.3f}  [{me['low']:.3f}, {me['high']:.3f}]"
              + _note(me.get("note", "")))
    elif report.get("overall"):
        print("\noverall score against every other deck (95% interval):")
        for r in report["overall"]:
            print(f"  {r['deck']:24s} {r['score']:.3f}  [{r['low']:.3f}, {r['high']:.3f}]"
                  + _note(r.get("note", "")))
    if report["ratings"]:
        print("\nratings (" + report["rating_scale"] + ", bootstrap 95%):")
        for r in report["ratings"]:
            print(f"  {r['name']:24s} {r['rating']:7.1f}  [{r['low']:7.1f}, "
                  f"{r['high']:7.1f}]" + _note(r.get("note", "")))
    if report.get("metagame"):
        mg = report["metagame"]
        boot = mg.get("bootstrap_samples")
        print("\nmetagame (Nash equilibrium)" + (
            f": weight, bootstrap 95% over {boot} resamples, share of them with the deck "
            f"in the support:" if boot else ":"))
        for r in mg["equilibrium"]:
            if boot and r["support_freq"] > 0:
                print(f"  {r['deck']:24s} {r['weight']:.2f}  [{r['weight_low']:.2f}, "
                      f"{r['weight_high']:.2f}]  in support {r['support_freq']:.0%}")
            elif not boot and r["weight"] > 0:
                print(f"  {r['deck']:24s} {r['weight']:.2f}")
        print(f"  the uniform field is exploitable by {mg['exploitability_uniform']:.3f} "
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
    notes = {(r["row"], r["column"]): r.get("note", "") for r in report.get("matrix", [])}
    print("\nrow's score against column (? : undecided, see below):")
    print(" " * (w + 2) + " ".join(f"{x[:7]:>7s}" for x in labels))
    for i, name in enumerate(labels):
        cells = " ".join("      -" if np.isnan(v) else f"{v:6.2f}" +
                         ("?" if notes.get((name, labels[j])) else " ")
                         for j, v in enumerate(m[i]))
        print(f"{name:{w}s}  {cells}")
    undecided, seen = [], set()
    for r in report.get("matrix", []):              # each pair once, from the winner's side
        pair = frozenset((r["row"], r["column"]))
        if r.get("note") and r["score"] >= 0.5 and pair not in seen:
            seen.add(pair)
            undecided.append((r["row"], r["column"], r["note"]))
    if undecided:
        print(f"? : {len(undecided)} pair(s) not settled by their games:")
        for a, b, note in undecided[:10]:
            print(f"  {a} against {b}: {note}")
        if len(undecided) > 10:
            print(f"  ... and {len(undecided) - 10} more ({report['kind']}_matrix.csv, "
                  f"column note)")
    print("\nwrote " + ", ".join(str(f) for f in files))
