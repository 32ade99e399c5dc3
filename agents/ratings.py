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
    a point to each).  ``prior`` adds that many points each way to every pair that met,
    so a player who won (or lost) everything still gets a finite rating."""
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
    return r - (r[anchor] if anchor is not None else r.mean())


def bootstrap_ratings(results: dict, k: int, samples: int = 1000, seed: int = 0,
                      anchor: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """95% intervals: ``results[(i, j)]`` is the list of i's points (1, 0.5, 0) in each
    game against j.  Returns (low, high) arrays."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j, np.asarray(v, dtype=float)) for (i, j), v in results.items() if len(v)]
    draws = np.empty((samples, k))
    for b in range(samples):
        w = np.zeros((k, k))
        for i, j, pts in pairs:
            s = pts[rng.integers(len(pts), size=len(pts))]
            w[i, j] += s.sum()
            w[j, i] += len(s) - s.sum()
        draws[b] = bradley_terry(w, anchor)
    return np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)


def points_matrix(results: dict, k: int) -> np.ndarray:
    w = np.zeros((k, k))
    for (i, j), pts in results.items():
        s = float(np.sum(pts))
        w[i, j] += s
        w[j, i] += len(pts) - s
    return w
