"""What a strong field would play: the Nash equilibrium of a deck matrix.

A deck matrix ``M[i, j]`` (row deck's score against the column deck, ``M + M.T = 1``) is a
symmetric zero-sum game between two players who each pick a deck.  Its equilibrium is a
mix of decks that no deck beats on average: the metagame a field of strong players drifts
to.  Each deck's payoff against that mix says which decks are viable (payoff 0.5 for the
decks in the support, below for the rest), and the exploitability of a mix -- how much
the best single deck scores above 0.5 against it -- says how far from equilibrium a field
is (the uniform field: every bundled deck played equally).

The equilibrium comes from a linear program (``scipy.optimize.linprog``, HiGHS): maximise
``v`` subject to ``sum_i x_i (M[i, j] - 1/2) >= v`` for every column ``j``, ``x`` a
probability vector.  It can have many solutions; the program returns one, and ``nash``
then takes, among mixes of the same value, the one closest to uniform (a second program
that maximises the smallest weight over the same support), so that equally good decks
share the weight instead of one standing in for the rest.

The matrix is measured, each cell with its noise, so the equilibrium is uncertain too: a
deck at weight 0 may be one lucky cell away from the support.  ``bootstrap_nash``
resamples each pair's units (the same draws the ratings' bootstrap makes,
``ratings.resampled_units``), solves each resampled matrix, and gives each deck's weight
a 95% percentile interval and the share of resamples in which it is in the support.
"""
from __future__ import annotations

import numpy as np


def _check(matrix) -> np.ndarray:
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise ValueError(f"metagame: the matrix must be square, got shape {m.shape}")
    m = np.where(np.isnan(m), 0.5, m)                  # the diagonal (a deck against itself)
    if np.any(m < 0) or np.any(m > 1):
        raise ValueError("metagame: scores must lie between 0 and 1")
    return m


def nash(matrix, tol: float = 1e-7) -> np.ndarray:
    """An equilibrium mix of the symmetric game ``matrix`` (see the module docstring)."""
    from scipy.optimize import linprog
    m = _check(matrix)
    a = m - 0.5
    k = len(a)
    # variables: x (k), v;  minimise -v;  v - x.A[:, j] <= 0;  sum x = 1
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((k, 1))])
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0, None)] * k + [(None, None)]
    r = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                method="highs")
    if not r.success:
        raise RuntimeError(f"metagame: the equilibrium program failed: {r.message}")
    value = r.x[-1]
    # among mixes that keep that value, the most even one: maximise the smallest weight t
    # over the decks any equilibrium may use (those not beaten by the first solution)
    x0 = r.x[:k]
    payoff = a @ x0
    support = payoff >= value - 1e-6
    idx = np.flatnonzero(support)
    s = len(idx)
    # variables: x over the support (s), t;  minimise -t;  t - x_i <= 0;
    # value - x.A[:, j] <= 0 for all j;  sum x = 1
    c2 = np.zeros(s + 1)
    c2[-1] = -1.0
    a_ub2 = np.vstack([np.hstack([-np.eye(s), np.ones((s, 1))]),
                       np.hstack([-a[idx].T, np.zeros((k, 1))])])
    b_ub2 = np.concatenate([np.zeros(s), np.full(k, -(value - tol))])
    a_eq2 = np.hstack([np.ones((1, s)), np.zeros((1, 1))])
    r2 = linprog(c2, A_ub=a_ub2, b_ub=b_ub2, A_eq=a_eq2, b_eq=[1.0],
                 bounds=[(0, None)] * (s + 1), method="highs")
    x = np.zeros(k)
    if r2.success:
        x[idx] = r2.x[:s]
    else:
        x = x0
    x = np.clip(x, 0, None)
    x[x < 1e-9] = 0.0
    return x / x.sum()


def payoffs(matrix, mix) -> np.ndarray:
    """Each deck's expected score against a field playing ``mix``."""
    return _check(matrix) @ np.asarray(mix, dtype=float)


def exploitability(matrix, mix) -> float:
    """How far the best single deck scores above 0.5 against ``mix`` (0 at equilibrium)."""
    return float(payoffs(matrix, mix).max() - 0.5)


def bootstrap_nash(per_pair: dict, k: int, samples: int = 1000, seed: int = 0,
                   games_per_unit: int = 2) -> np.ndarray:
    """Equilibria of resampled matrices, one row of ``k`` weights per sample:
    ``per_pair[(i, j)]`` holds i's points against j per unit of ``games_per_unit``
    games (a duplicate deal: 0..2), every pair of the ``k`` decks present."""
    from .ratings import resampled_units
    out = np.empty((samples, k))
    for b, sample in enumerate(resampled_units(per_pair, samples, seed)):
        m = np.full((k, k), np.nan)
        for i, j, pts in sample:
            m[i, j] = pts.mean() / games_per_unit
            m[j, i] = 1 - m[i, j]
        out[b] = nash(m)
    return out


def metagame(matrix, names, per_pair: dict | None = None, samples: int = 0,
             seed: int = 0) -> dict:
    """The equilibrium, each deck's payoff against it, and the exploitability of the
    equilibrium (about 0) and of the uniform field, as a report section.  With
    ``per_pair`` (the matrix's units, as ``bootstrap_nash`` takes them) and ``samples``,
    each deck's weight gets a bootstrap 95% interval and its support frequency."""
    m = _check(matrix)
    x = nash(m)
    k = len(m)
    pay, pay_uniform = payoffs(m, x), payoffs(m, np.full(k, 1 / k))
    boot, freq = {}, np.zeros(k)
    if per_pair is not None and samples > 0:
        w = bootstrap_nash(per_pair, k, samples, seed)
        lo, hi = np.percentile(w, [2.5, 97.5], axis=0)
        freq = (w > 0).mean(axis=0)
    order = np.lexsort((-freq, -x))            # by weight, then by support frequency
    rows = [{"deck": names[i], "weight": round(float(x[i]), 4),
             "payoff": round(float(pay[i]), 4),
             "payoff_vs_uniform": round(float(pay_uniform[i]), 4)} for i in order]
    if per_pair is not None and samples > 0:
        for r, i in zip(rows, order):
            r.update(weight_low=round(float(lo[i]), 4), weight_high=round(float(hi[i]), 4),
                     support_freq=round(float(freq[i]), 4))
        # every deck that any resample put in the support, most often first
        boot = {"bootstrap_samples": samples,
                "support_sometimes": [names[i] for i in np.argsort(-freq, kind="stable")
                                      if 0 < freq[i]]}
    return {
        "equilibrium": rows,
        "support": [names[i] for i in order if x[i] > 0],
        **boot,
        "exploitability_equilibrium": round(exploitability(m, x), 4),
        "exploitability_uniform": round(exploitability(m, np.full(k, 1 / k)), 4),
        "best_response_to_uniform": names[int(np.argmax(pay_uniform))],
    }


__all__ = ["nash", "bootstrap_nash", "payoffs", "exploitability", "metagame"]
