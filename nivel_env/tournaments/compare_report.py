"""``compare``'s page, as chess-engine testing shows its tests: ``OUT/compare.html``.

A sequential test is read best as a path: the log-likelihood ratio after each batch
against the games played, between the two bounds it stops at, and the Elo difference
with its interval narrowing as the games come in.  The page draws both
(``compare_plot``) and lists every comparison run into the same folder: each run
appends one line to ``OUT/history.jsonl`` (decks, field, pilot, bounds, verdict, games,
Elo with its interval, when), so a designer trying versions of a deck sees them side by
side.  The page is self-contained (``deck_report.write_html``).
"""
from __future__ import annotations

import html
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

HISTORY = "history.jsonl"
PAGE = "compare.html"
PLOT = "compare_sprt.png"
#: the Elo panel shows at most +-this (an interval from a few games can be far wider)
ELO_VIEW = 600


def history_entry(report: dict) -> dict:
    """The line a comparison leaves in ``history.jsonl``."""
    last = report["history"][-1] if report["history"] else {}
    return {"when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "deck_a": report["deck_a"], "deck_b": report["deck_b"],
            "field": report["field"], "pilot": report["pilot"],
            "elo0": report["elo0"], "elo1": report["elo1"],
            "alpha": report["alpha"], "beta": report["beta"],
            "status": report["status"], "verdict": report["verdict"],
            "games": report["games"], "llr": last.get("llr"),
            "elo_diff": last.get("elo_diff"), "low": last.get("low"),
            "high": last.get("high"), "command": report.get("command"),
            # what `evaluate.py history` reads: every comparison in the folder, not only
            # the last compare.json
            "time": report.get("time"), "deck_specs": report.get("deck_specs"),
            "deck_contents": report.get("deck_contents")}


def append_history(out: Path, report: dict) -> Path:
    path = Path(out) / HISTORY
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(history_entry(report)) + "\n")
    return path


def read_history(out: Path) -> list[dict]:
    """The comparisons recorded in ``OUT/history.jsonl``, oldest first; a line that is
    not one (a hand edit, a cut-off write) is left out with a note naming it."""
    path = Path(out) / HISTORY
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            row = None
        if not isinstance(row, dict) or "deck_a" not in row:
            print(f"note: {path} line {n} is not a comparison; left out of the page",
                  file=sys.stderr)
            continue
        rows.append(row)
    return rows


def compare_plot(report: dict, path: Path) -> Path:
    """Two panels over the games played: the LLR with the SPRT's bounds, and the Elo
    difference of A over B with its bootstrap 95% interval and the hypotheses."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    h = report["history"]
    games = [r["games"] for r in h]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    lower, upper = report["bounds"]
    ax1.plot(games, [r["llr"] for r in h], "o-", color="#2b5d9b", label="LLR")
    ax1.axhline(upper, color="#2e7d32", ls="--", label=f"accept H1 ({upper:.2f})")
    ax1.axhline(lower, color="#c62828", ls="--", label=f"accept H0 ({lower:.2f})")
    ax1.axhline(0, color="grey", lw=0.7)
    ax1.set_ylabel("log-likelihood ratio")
    ax1.legend(fontsize=8, loc="best")
    ax1.set_title(f"{report['deck_a']} against {report['deck_b']}: SPRT elo0 "
                  f"{report['elo0']:g}, elo1 {report['elo1']:g}")
    ax2.fill_between(games, [r["low"] for r in h], [r["high"] for r in h],
                     color="#9bb7dd", alpha=0.6, label="95% interval")
    ax2.plot(games, [r["elo_diff"] for r in h], "o-", color="#2b5d9b", label="Elo A - B")
    ax2.axhline(report["elo0"], color="#c62828", ls=":", label="elo0")
    ax2.axhline(report["elo1"], color="#2e7d32", ls=":", label="elo1")
    lo = min(min(r["low"] for r in h), report["elo0"])
    hi = max(max(r["high"] for r in h), report["elo1"])
    if hi - lo > 2 * ELO_VIEW:           # the first batches' intervals can span thousands
        ax2.set_ylim(max(lo, -ELO_VIEW), min(hi, ELO_VIEW))
    ax2.set_ylabel("Elo difference (vs the field)")
    ax2.set_xlabel("games played")
    ax2.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def _elo(row) -> str:
    if row.get("elo_diff") is None:
        return ""
    return f"{row['elo_diff']:+.1f} [{row['low']:+.1f}, {row['high']:+.1f}]"


def write_compare_report(out: Path, report: dict) -> list[Path]:
    """Append this comparison to ``OUT/history.jsonl`` and write ``OUT/compare.html``
    (this run's LLR and Elo paths, its batches, every comparison in the folder);
    returns the files written."""
    from . import deck_report as R
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    hist = append_history(out, report)
    sections = []
    note = (f"<p>Pilot <code>{html.escape(report['pilot'])}</code>; field: "
            f"{html.escape(', '.join(report['field']))}. H1: {html.escape(report['deck_a'])} "
            f"is {report['elo1']:g} Elo stronger than {html.escape(report['deck_b'])} "
            f"against the field; H0: {report['elo0']:g}; error rates alpha "
            f"{report['alpha']:g}, beta {report['beta']:g}; the test stops when the LLR "
            f"leaves [{report['bounds'][0]:.2f}, {report['bounds'][1]:.2f}]. "
            f"<b>{html.escape(report['verdict'])}</b> after {report['games']:,} games"
            + (f" (a fixed-size test with the same error rates: about "
               f"{report['fixed_test_games']:,})" if report.get("fixed_test_games") else "")
            + (f". {html.escape(report['note'])}" if report.get("note") else "")
            + f". Command: <code>{html.escape(str(report.get('command', '')))}</code></p>")
    files = [hist]
    if report["history"]:
        plot = compare_plot(report, out / PLOT)
        files.append(plot)
        sections.append(("This comparison", note + R.image_html(plot, "LLR and Elo")))
        sections.append(("Batches", R.table_html(
            report["history"], [("games", "games"), ("llr", "LLR"),
                                ("elo_diff", "Elo A - B"), ("low", "low"),
                                ("high", "high"), ("score_a", "A vs field"),
                                ("score_b", "B vs field")])))
    else:
        sections.append(("This comparison", note))
    past = read_history(out)
    rows = [{"when": r.get("when", ""), "a": r["deck_a"], "b": r.get("deck_b", ""),
             "verdict": r.get("status") or "undecided", "games": r.get("games"),
             "elo": _elo(r), "bounds": f"{r.get('elo0', '')}..{r.get('elo1', '')}",
             "pilot": r.get("pilot", "")} for r in reversed(past)]
    sections.append((f"Comparisons in this folder ({len(rows)}, newest first)", R.table_html(
        rows, [("when", "when"), ("a", "A"), ("b", "B"), ("verdict", "verdict"),
               ("games", "games"), ("elo", "Elo A - B [95%]"), ("bounds", "elo0..elo1"),
               ("pilot", "pilot")])))
    files.append(R.write_html(out / PAGE, f"Nivel Arena compare: {report['deck_a']} "
                                          f"against {report['deck_b']}", sections))
    return files


__all__ = ["write_compare_report", "compare_plot", "read_history", "append_history",
           "history_entry", "HISTORY", "PAGE"]
