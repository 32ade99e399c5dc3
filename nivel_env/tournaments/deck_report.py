"""The deck benchmark's report: plots and one self-contained HTML page.

A person should rather look at the report than read the JSON: the score matrix as a
heatmap sorted by rating (``tables.heatmap``, each cell with its interval, grey where
that holds 0.5), the ratings with error bars, the metagame with its bootstrap intervals,
the first-player advantage, how long games last and the card analytics -- PNGs
written beside the CSV and JSON, and ``report.html`` embedding them (no files to carry
along, no scripts, opens anywhere).
"""
from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def ratings_plot(ratings, path: Path, scale: str) -> Path:
    """Ratings with their bootstrap intervals, best on top."""
    plt = _plt()
    rs = list(reversed(ratings))
    fig, ax = plt.subplots(figsize=(6.5, 1.2 + 0.38 * len(rs)))
    y = np.arange(len(rs))
    r = np.array([x["rating"] for x in rs])
    ax.errorbar(r, y, xerr=[r - np.array([x["low"] for x in rs]),
                            np.array([x["high"] for x in rs]) - r], fmt="o", capsize=3)
    ax.set_yticks(y, [x["name"] for x in rs])
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(f"rating ({scale}; bootstrap 95%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def lengths_plot(turns, path: Path) -> Path:
    """How many turns games lasted."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    t = np.asarray(turns)
    ax.hist(t, bins=np.arange(t.min() - 0.5, t.max() + 1.5), color="#5b7db1")
    ax.set_xlabel("turns")
    ax.set_ylabel("games")
    ax.set_title(f"Game length: mean {t.mean():.1f} turns, median {np.median(t):.0f}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def table_html(rows, columns, limit: int | None = None) -> str:
    """An HTML table of ``rows`` (dicts) with ``columns``: [(key, heading)]."""
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in columns)
    body = []
    for r in rows[:limit]:
        cells = []
        for key, _ in columns:
            v = r.get(key)
            v = "" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)
            cells.append(f"<td>{html.escape(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def image_html(path: Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode()
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;
border-bottom:1px solid #ddd}table{border-collapse:collapse;font-size:.85em}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}img{max-width:100%}p.note{color:#555}
code{background:#f3f3f3;padding:1px 4px}"""


def write_html(path: Path, title: str, sections) -> Path:
    """``sections``: [(heading, html)] -> one page."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    for heading, body in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>{body}")
    parts.append("</body></html>")
    Path(path).write_text("\n".join(parts), encoding="utf-8")
    return Path(path)


__all__ = ["ratings_plot", "lengths_plot", "table_html", "image_html",
           "write_html"]
