"""Card analytics from benchmark games: which cards pull their weight.

The measures card-game analytics sites give players, per deck and card (by card id: the
copies of a card count as one), over the games that deck played:

* ``in_hand`` (games in hand, GIH): games in which the card was in the hand at some point
  after the mulligan -- in the opening hand or drawn later -- and the deck's win rate in
  them (a draw counts half);
* ``opening`` (OH): games with it in the opening hand, and that win rate;
* ``played`` (GP): games in which the deck played it, and that win rate;
* ``not_in_hand`` (GNS): games it never reached the hand, and that win rate;
* ``iwd``, the improvement when drawn: GIH win rate minus GNS win rate.  A card with a
  large positive IWD wins games when it shows up; near zero or negative, the deck does as
  well without it (a candidate to cut).  Like every such measure it is correlation, not
  cause: a card drawn late is drawn in long games, a card played is played when things
  go well.

Intervals are 95% percentile intervals of a bootstrap over the run's units (a duplicate
deal's two games, in which a deck draws the same cards twice, are resampled together,
since they are correlated).  A rate resting on fewer than ``MIN_GAMES`` games is not
shown: a card some leader fetches into hand nearly every game has no "not drawn" games
to compare with, and its IWD would be noise.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

MEASURES = ("in_hand", "opening", "played", "not_in_hand")


MIN_GAMES = 30     # fewer games than this behind a rate: too few to show it


def card_table(units, samples: int = 1000, seed: int = 0, decks=None, names=None,
               deck_lists=None, min_games: int = MIN_GAMES) -> list:
    """Rows per (deck, card) from ``units``: lists of game sides, each a dict with
    ``deck``, ``points`` (1, 0.5, 0) and the card-id lists ``opening``, ``in_hand`` and
    ``played`` (``nivel_env.tournaments.arena.CardLog``).  ``decks``: keep only these deck names.
    ``names``: card id -> display name.  ``deck_lists``: deck name -> its card ids, so
    that a card never drawn still gets a row.  A rate over fewer than ``min_games`` games
    is left empty (None), and so is the IWD when either of its rates is (a card in hand in
    all but two games has no "not drawn" to compare with).  Sorted by IWD, best first."""
    sides = [(u, s) for u, unit in enumerate(units) for s in unit
             if decks is None or s["deck"] in decks]
    if not sides:
        return []
    played_decks = {s["deck"] for _, s in sides}
    keys = sorted({(s["deck"], c) for _, s in sides for c in s["in_hand"] + s["opening"]
                   + s["played"]} | {(d, c) for d, ids in (deck_lists or {}).items()
                                     if d in played_decks for c in ids})
    col = {k: i for i, k in enumerate(keys)}
    n_units = len(units)
    k = len(keys)
    # per unit and key: games and points for each measure (4 x 2), and the deck's games
    stat = np.zeros((n_units, k, 8))
    deck_games: dict = {}
    for u, s in sides:
        deck_games.setdefault(s["deck"], []).append((u, s["points"]))
    by_deck: dict = {}
    for key in keys:
        by_deck.setdefault(key[0], []).append(col[key])
    for u, s in sides:
        pts = float(s["points"])
        held, opened, played = set(s["in_hand"]), set(s["opening"]), set(s["played"])
        for j in by_deck[s["deck"]]:
            card = keys[j][1]
            for m, hit in enumerate((card in held, card in opened, card in played,
                                     card not in held)):
                if hit:
                    stat[u, j, 2 * m] += 1
                    stat[u, j, 2 * m + 1] += pts
    total = stat.sum(axis=0)                                    # (k, 8)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n_units, np.full(n_units, 1 / n_units), size=samples)
    boot = np.einsum("bu,ukm->bkm", weights.astype(float), stat)   # (samples, k, 8)

    def rate(a, m):
        n, p = a[..., 2 * m], a[..., 2 * m + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, p / np.where(n > 0, n, 1), np.nan)

    rows = []
    for j, (deck, card) in enumerate(keys):
        row = {"deck": deck, "card": card, "name": (names or {}).get(card, card),
               "games": len(deck_games[deck])}
        enough = [total[j, 2 * m] >= min_games for m in range(len(MEASURES))]
        for m, measure in enumerate(MEASURES):
            r = rate(total[j], m) if enough[m] else np.nan
            b = rate(boot[:, j], m)
            b = b[~np.isnan(b)] if enough[m] else b[:0]
            row[f"{measure}_games"] = int(total[j, 2 * m])
            row[f"{measure}_win"] = _round(r)
            lo, hi = (np.percentile(b, [2.5, 97.5]) if len(b) else (np.nan, np.nan))
            row[f"{measure}_low"], row[f"{measure}_high"] = _round(lo), _round(hi)
        both = enough[0] and enough[3]
        iwd = rate(total[j], 0) - rate(total[j], 3) if both else np.nan
        b = rate(boot[:, j], 0) - rate(boot[:, j], 3)
        b = b[~np.isnan(b)] if both else b[:0]
        row["iwd"] = _round(iwd)
        lo, hi = (np.percentile(b, [2.5, 97.5]) if len(b) else (np.nan, np.nan))
        row["iwd_low"], row["iwd_high"] = _round(lo), _round(hi)
        rows.append(row)
    rows.sort(key=lambda r: (-(r["iwd"] if r["iwd"] is not None else -9), r["deck"], r["card"]))
    return rows


def _round(x):
    x = float(x)
    return None if x != x else round(x, 4)


def write_card_report(rows, out: Path, stem: str = "cards", top: int = 30) -> list[Path]:
    """CSV and JSON of ``rows`` and a plot of the IWD with its interval for the ``top``
    cards by how often they were in hand."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / f"{stem}.csv", out / f"{stem}.json", out / f"{stem}.png"]
    with open(files[0], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["deck", "card"])
        w.writeheader()
        w.writerows(rows)
    files[1].write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [r for r in rows if r["iwd"] is not None]
    shown = sorted(sorted(shown, key=lambda r: -r["in_hand_games"])[:top],
                   key=lambda r: r["iwd"])
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.28 * max(1, len(shown))))
    y = np.arange(len(shown))
    iwd = np.array([r["iwd"] for r in shown])
    lo = np.array([r["iwd_low"] if r["iwd_low"] is not None else r["iwd"] for r in shown])
    hi = np.array([r["iwd_high"] if r["iwd_high"] is not None else r["iwd"] for r in shown])
    ax.barh(y, iwd, xerr=[iwd - lo, hi - iwd], color=np.where(iwd >= 0, "#4c9a5a", "#c0504d"),
            capsize=2)
    multi = len({r["deck"] for r in shown}) > 1
    ax.set_yticks(y, [f"{r['name']} ({r['card']}{', ' + r['deck'] if multi else ''})"
                      for r in shown], fontsize=7)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("improvement when drawn: win rate in hand minus never in hand (95%)")
    ax.set_title(f"Card impact ({len(shown)} cards most often in hand)")
    fig.tight_layout()
    fig.savefig(files[2], dpi=110)
    plt.close(fig)
    return files


__all__ = ["card_table", "write_card_report", "MEASURES"]
