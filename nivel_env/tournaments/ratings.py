"""Win rates and ratings with honest intervals.

* ``wilson``: the Wilson score interval of a win rate (draws count half).
* ``bradley_terry``: maximum-likelihood strengths from pairwise results (Hunter's MM
  algorithm), reported on the Elo scale (400 * log10 of the strength ratio) and
  centred on the mean, or anchored on one player.
* ``bootstrap_ratings``: 95% percentile intervals by resampling the games of every
  pair with replacement (``resampled_units``, which the metagame's bootstrap shares).
* ``few_games``: the warning every printed number from too few games carries, with how
  many more games would settle it.
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


def resampled_units(results: dict, samples: int, seed: int = 0):
    """The bootstrap samples of ``results[(i, j)]`` (per-unit points of i against j):
    for each of ``samples`` draws, ``[(i, j, pts), ...]`` with each pair's units drawn
    with replacement.  Units are resampled whole, since the games of a unit are
    correlated.  The same ``seed`` gives the same draws, so the ratings and the metagame
    of one report are computed on the very same resamples."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j, np.asarray(v, dtype=float)) for (i, j), v in results.items() if len(v)]
    for _ in range(samples):
        yield [(i, j, pts[rng.integers(len(pts), size=len(pts))]) for i, j, pts in pairs]


def bootstrap_ratings(results: dict, k: int, samples: int = 1000, seed: int = 0,
                      anchor: int | None = None,
                      games_per_unit: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """95% intervals: ``results[(i, j)]`` is the list of i's points against j in each
    unit of ``games_per_unit`` games (one game: 1, 0.5, 0; a duplicate pair: 0..2),
    resampled by ``resampled_units``.  Returns (low, high)."""
    draws = np.empty((samples, k))
    for b, sample in enumerate(resampled_units(results, samples, seed)):
        w = np.zeros((k, k))
        for i, j, s in sample:
            w[i, j] += s.sum()
            w[j, i] += games_per_unit * len(s) - s.sum()
        draws[b] = bradley_terry(w, anchor)
    return np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)


#: below this many games no interval is trusted (a percentile bootstrap of 5 games can
#: be one point wide); the card analytics leave rates over fewer games empty
FEW_GAMES = 30
#: a score within this of 0.5 is "even": past it, the interval need only be this narrow
EVEN_WITHIN = 0.05


def few_games(score: float, games: int, low: float | None = None,
              high: float | None = None, z: float = 1.96) -> str:
    """A warning for a score (0..1, 0.5 even) measured over ``games`` games, or "" when
    they settle it.  Settled means at least ``FEW_GAMES`` games and a 95% interval
    that excludes 0.5 at the observed effect -- or, when the effect is under
    ``EVEN_WITHIN``, one within +-``EVEN_WITHIN`` of the score (then "even, within
    0.05" is the answer, and excluding 0.5 could take any number of games).

    Games needed: the interval's half-width shrinks as 1/sqrt(games), so
    ``need = games * (half_width / target)^2``, target the effect |score - 0.5| (or
    ``EVEN_WITHIN``), half-width the interval's side towards 0.5 when ``low`` and
    ``high`` are given (it carries the duplicate pairing and the interval's own shape, so
    ``need > games`` exactly when the printed interval still holds 0.5); without them,
    ``z`` binomial standard errors at the score shrunk by one win and one loss."""
    if games <= 0:
        return "no games"
    effect = abs(score - 0.5)
    target = max(effect, EVEN_WITHIN)
    if low is not None and high is not None and high > low:
        if effect >= EVEN_WITHIN:              # the side of the interval facing 0.5
            half = score - low if score > 0.5 else high - score
        else:
            half = max(score - low, high - score)
        need = games * (half / target) ** 2
    else:
        p = (score * games + 1) / (games + 2)
        need = (z * math.sqrt(p * (1 - p)) / target) ** 2
    need = math.ceil(need - 1e-9)
    if need <= games and games >= FEW_GAMES:
        return ""
    if need <= FEW_GAMES:
        goal = f"{FEW_GAMES} games, the fewest an interval is trusted on"
    elif effect >= EVEN_WITHIN:
        goal = "the 95% interval excludes 0.5 at this score"
    else:
        goal = f"the 95% interval is +-{EVEN_WITHIN} wide"
    return (f"only {games:,} games: about {max(need, FEW_GAMES) - games:,} more until "
            f"{goal}")


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
