"""Win rates and ratings with honest intervals.

* ``wilson``: the Wilson score interval of a win rate (draws count half).
* ``bradley_terry``: maximum-likelihood strengths from pairwise results (Hunter's MM
  algorithm), reported on the Elo scale (400 * log10 of the strength ratio) and
  centred on the mean, or anchored on one player.
* ``bootstrap_ratings``: 95% percentile intervals by resampling the games of every
  pair with replacement.
"""
from __future__ import annotations

import math

import numpy as np


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / d
    return max(0.0, c - h), min(1.0, c + h)


def bradley_terry(wins: np.ndarray, anchor: int | None = None, prior: float = 0.5,
                  iters: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings from ``wins[i, j]`` = points i scored against j (a draw is half
    a point to each), centred on the mean, or on ``anchor`` (one index, or several whose
    mean is then 0: a field's scale).  ``prior`` adds that many points each way to every
    pair that met, so a player who won (or lost) everything still gets a finite rating."""
    w = np.asarray(wins, dtype=float)
    k = w.shape[0]
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    total = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), p)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = 400 * np.log10(p)
    return r - (np.mean(r[anchor]) if anchor is not None else r.mean())


def bootstrap_ratings(results: dict, k: int, samples: int = 1000, seed: int = 0,
                      anchor: int | None = None,
                      games_per_unit: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """95% intervals: ``results[(i, j)]`` is the list of i's points against j in each
    unit of ``games_per_unit`` games (one game: 1, 0.5, 0; a duplicate pair: 0..2).  Units
    are resampled whole, since the games of a unit are correlated.  Returns (low, high)."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j, np.asarray(v, dtype=float)) for (i, j), v in results.items() if len(v)]
    draws = np.empty((samples, k))
    for b in range(samples):
        w = np.zeros((k, k))
        for i, j, pts in pairs:
            s = pts[rng.integers(len(pts), size=len(pts))]
            w[i, j] += s.sum()
            w[j, i] += games_per_unit * len(s) - s.sum()
        draws[b] = bradley_terry(w, anchor)
    return np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)


def points_matrix(results: dict, k: int, games_per_unit: int = 1) -> np.ndarray:
    w = np.zeros((k, k))
    for (i, j), pts in results.items():
        s = float(np.sum(pts))
        w[i, j] += s
        w[j, i] += games_per_unit * len(pts) - s
    return w


def paired_score(units, games_per_unit: int = 2, z: float = 1.96) -> dict:
    """Score and 95% interval from per-unit points (a duplicate pair of games: 0..2).

    The two games of a pair are correlated, so the standard error comes from the pairs:
    ``se_paired`` = sd(pair score) / sqrt(pairs).  ``se_independent`` is what as many
    independent games would give (sd of single-game points / sqrt(games), estimated from
    the score), so ``se_paired / se_independent`` is the duplicate design's effect (below 1:
    variance removed).  The interval is Wilson's at the effective number of games
    ``p(1 - p) / se**2`` (se from the pairs plus one pseudo-pair at 0 and one at 1), which
    is well behaved near 0 and 1 and narrow, not empty, when every pair splits its two
    games (a deterministic agent against itself scores exactly 0.5)."""
    u = np.asarray(units, dtype=float) / games_per_unit
    n = len(u)
    if n == 0:
        return {"score": float("nan"), "low": 0.0, "high": 1.0, "se_paired": float("nan"),
                "se_independent": float("nan"), "pairs": 0}
    p = float(u.mean())
    se_pair = float(u.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    se_ind = math.sqrt(p * (1 - p) / (games_per_unit * n))
    if 0 < p < 1:
        # the spread of the pairs, with one pseudo-pair at 0 and one at 1 (as Agresti-Coull
        # adds pseudo-games) so that a run in which every pair scored alike still gets an
        # interval
        padded = np.concatenate([u, [0.0, 1.0]])
        se_reg = float(padded.std(ddof=1) / math.sqrt(len(padded)))
        n_eff = p * (1 - p) / se_reg ** 2
        lo, hi = wilson(p * n_eff, n_eff, z)
    else:                                  # all won or all lost: as independent games
        lo, hi = wilson(p * games_per_unit * n, games_per_unit * n, z)
    return {"score": p, "low": lo, "high": hi, "se_paired": se_pair, "se_independent": se_ind,
            "pairs": n}
