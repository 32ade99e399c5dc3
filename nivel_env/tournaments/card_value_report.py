"""``evaluate.py cards``'s report (``card_value``): the ranking printed, CSV, JSON, a plot
of each card's causal value beside its IWD, and one HTML page (``deck_report``)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

STATUS_TEXT = {"precision": "interval narrow enough", "decided": "sign decided early",
               "max": "--games reached", "baseline": "is the baseline"}


def write_card_values(report: dict, out: Path, command: str = "") -> list[Path]:
    """cards_value.csv, cards_value.json, cards_value.png and cards_value.html in
    ``out``."""
    from . import deck_report as R
    out.mkdir(parents=True, exist_ok=True)
    rows = report["rows"]
    files = [out / "cards_value.csv", out / "cards_value.json", out / "cards_value.png",
             out / "cards_value.html"]
    cols = list(dict.fromkeys(k for r in rows for k in r))
    with open(files[0], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    files[1].write_text(json.dumps({**report, "command": command}, indent=1,
                                   ensure_ascii=False))
    value_plot(rows, files[2], report)
    base = report["baseline"]
    rel = (f"relative to the deck's weakest card, {report['weakest']['name']} "
           f"({report['weakest']['card']}), paired on the same deals (additivity assumed)"
           if report.get("weakest") else f"relative to {base['name']} ({base['card']})")
    broken = [r for r in rows if r.get("breaks")]
    text = (f"<p>Each card's causal value: the deck's score against the field minus that "
            f"of the deck with one copy of the card replaced by {base['name']} "
            f"({base['card']}, {base['why']}), on the same deals; {rel}. Pilot "
            f"<code>{report['pilot']}</code> in both seats; field: "
            f"{', '.join(map(str, report['field']))}. {report['games']:,} games. Intervals: "
            f"{round(100 * report['level'])}% under the sequential stopping "
            f"(docs/decks.md). IWD (improvement when drawn) from the deck's own games: "
            f"correlation, not cause.</p>"
            + (f"<p class='note'>{len(broken)} variant(s) break deck-building rules; the "
               f"engine plays them anyway.</p>" if broken else "")
            + (f"<p>Command: <code>{command}</code></p>" if command else ""))
    sections = [("How this was measured", text),
                ("Ranking", R.image_html(files[2], "card values") + R.table_html(
                    [{**r, "status": STATUS_TEXT.get(r["status"], r["status"])}
                     for r in rows],
                    [("card", "card"), ("name", "name"), ("copies", "copies"),
                     ("value", "value"), ("low", "low"), ("high", "high"),
                     ("games", "games"), ("status", "stopped"),
                     ("identical", "identical deals"), ("iwd", "IWD"),
                     ("iwd_low", "IWD low"), ("iwd_high", "IWD high")]))]
    R.write_html(files[3], f"Card values: {report['deck']} ({report['pilot']})", sections)
    return files


def value_plot(rows, path: Path, report: dict) -> Path:
    """Causal value and IWD side by side, cards in the causal ranking's order."""
    from .deck_report import _plt
    plt = _plt()
    rs = list(reversed(rows))
    fig, axes = plt.subplots(1, 2, figsize=(10, 1.4 + 0.3 * max(1, len(rs))), sharey=True)
    y = np.arange(len(rs))
    v = np.array([r["value"] for r in rs])
    axes[0].barh(y, v, xerr=[v - np.array([r["low"] for r in rs]),
                             np.array([r["high"] for r in rs]) - v],
                 color=np.where(v >= 0, "#4c9a5a", "#c0504d"), capsize=2)
    axes[0].set_yticks(y, [f"{r['name']} ({r['card']}) x{r['copies']}" for r in rs],
                       fontsize=7)
    axes[0].axvline(0, color="grey", lw=0.8)
    axes[0].set_xlabel(f"causal value vs {report['baseline']['card']}"
                       f"{' (minus the weakest)' if report.get('weakest') else ''} "
                       f"({round(100 * report['level'])}%)")
    iw = np.array([np.nan if r["iwd"] is None else r["iwd"] for r in rs])
    lo = np.array([np.nan if r["iwd_low"] is None else r["iwd_low"] for r in rs])
    hi = np.array([np.nan if r["iwd_high"] is None else r["iwd_high"] for r in rs])
    ok = ~np.isnan(iw)
    axes[1].errorbar(iw[ok], y[ok], xerr=[iw[ok] - lo[ok], hi[ok] - iw[ok]], fmt="o",
                     capsize=2, color="#5b7db1")
    axes[1].axvline(0, color="grey", lw=0.8)
    axes[1].set_xlabel("IWD, observational (95% bootstrap)")
    fig.suptitle(f"{report['deck']}: what each card is worth ({report['pilot']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def print_values(report: dict) -> None:
    """The ranking as a table on stdout."""
    rows = report["rows"]
    w = max([len(r["name"]) for r in rows] + [4])
    print(f"\n{'card':8s} {'name':{w}s} cp  {'value':>7s} {'[low,':>8s} {'high]':>7s} "
          f"{'games':>7s} {'stopped':24s} {'IWD':>7s} {'[low,':>8s} {'high]':>7s}")
    f = lambda x: "      -" if x is None else f"{x:+7.3f}"         # noqa: E731
    for r in rows:
        print(f"{r['card']:8s} {r['name']:{w}s} {r['copies']:2d}  {r['value']:+7.3f} "
              f"[{r['low']:+7.3f}, {r['high']:+6.3f}] {r['games']:7,d} "
              f"{STATUS_TEXT.get(r['status'], r['status']):24s} {f(r['iwd'])} "
              f"[{f(r['iwd_low'])}, {f(r['iwd_high'])}]")


__all__ = ["STATUS_TEXT", "print_values", "value_plot", "write_card_values"]
