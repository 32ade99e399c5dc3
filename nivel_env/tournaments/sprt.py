"""Sequential probability ratio tests on Elo bounds, as chess-engine testing runs them.

Is deck A stronger than deck B?  Playing a fixed, large number of games answers it but
wastes most of them when the difference is clear early.  Wald's SPRT plays in batches and
stops as soon as the log-likelihood ratio of H1 (the difference is ``elo1``) against H0
(it is ``elo0``) leaves the bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``: error rates alpha (accepting H1 when H0 holds) and beta (the
reverse) with, on average, far fewer games than a fixed-size test.

The outcome of one unit (a duplicate deal: two games, or the difference of two such
pairs) is a discrete value, and its distribution is not known.  The generalised SPRT
(GSPRT) replaces each hypothesis by the maximum-likelihood distribution over the observed
outcome values whose mean is the hypothesis's (Michel Van den Bergh's formulation, the one
Fishtest uses on pentanomial game pairs): with empirical frequencies ``f_i`` of values
``x_i``, that distribution is ``f_i / (1 + lam (x_i - mu))`` with ``lam`` solving
``sum f_i (x_i - mu) / (1 + lam (x_i - mu)) = 0``, and the LLR is
``N * sum f_i log(p1_i / p0_i)``.  ``llr_normal`` is the familiar approximation
``N (mu1 - mu0) (2 mean - mu0 - mu1) / (2 var)``.

Two kinds of unit, ``SPRT.kind``:

* ``"pair"``: a duplicate pair's points of A against B, 0..2 (pentanomial); hypotheses
  on the Elo difference map to a mean score ``L(elo) = 1 / (1 + 10^(-elo / 400))``.
* ``"difference"``: A's pair points against a field deck minus B's on the same deal,
  halved (-1..1); the hypotheses are the mean score difference ``L(elo) - 1/2`` that an
  Elo advantage gives between decks of the field's average strength.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference that gives ``score`` (clipped away from 0 and 1)."""
    s = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / s - 1.0)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): accept H0 at or below the lower bound, H1 at or above the upper."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"SPRT: alpha and beta must be between 0 and 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _constrained(values: np.ndarray, freq: np.ndarray, mu: float) -> np.ndarray:
    """The distribution over ``values`` closest to ``freq`` (maximum likelihood) with mean
    ``mu``; ``mu`` must lie strictly between the smallest and largest value."""
    from scipy.optimize import brentq
    d = values - mu
    if not d.min() < 0 < d.max():
        raise ValueError(f"SPRT: a mean of {mu} is outside the outcomes {values.tolist()}")
    lo, hi = -1.0 / d.max(), -1.0 / d.min()          # where every 1 + lam * d stays positive
    eps = 1e-12 * (hi - lo)
    lam = brentq(lambda t: float(np.sum(freq * d / (1.0 + t * d))), lo + eps, hi - eps,
                 xtol=1e-14)
    p = freq / (1.0 + lam * d)
    return p / p.sum()


def llr(values, counts, mu0: float, mu1: float, prior: float = 1e-3) -> float:
    """GSPRT log-likelihood ratio of mean ``mu1`` against ``mu0`` for ``counts[i]``
    observations of ``values[i]``.  ``prior`` adds that many pseudo-observations to every
    value, so that a value not seen yet can take probability (as Fishtest regularises)."""
    x = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=float)
    n = c.sum()
    if n == 0:
        return 0.0
    f = (c + prior) / (n + prior * len(c))
    p0, p1 = _constrained(x, f, mu0), _constrained(x, f, mu1)
    return float(n * np.sum(f * np.log(p1 / p0)))


def llr_normal(values, counts, mu0: float, mu1: float) -> float:
    """The normal approximation of the GSPRT LLR (for checks and for intuition)."""
    x = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=float)
    n = c.sum()
    if n < 2:
        return 0.0
    mean = float(np.sum(c * x) / n)
    var = float(np.sum(c * (x - mean) ** 2) / n)
    if var <= 0:
        return 0.0
    return n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * var)


def fixed_sample_units(sd: float, mu0: float, mu1: float, alpha: float, beta: float) -> int:
    """Units a fixed-size one-sided test needs for the same alpha and beta, with unit
    standard deviation ``sd``: ``((z_alpha + z_beta) sd / (mu1 - mu0))^2``."""
    from scipy.stats import norm
    z = norm.ppf(1 - alpha) + norm.ppf(1 - beta)
    return int(math.ceil((z * sd / abs(mu1 - mu0)) ** 2))


PAIR_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0)                  # a duplicate pair's points
DIFFERENCE_VALUES = tuple(i / 4 - 1 for i in range(9))    # (A pair - B pair) / 2


@dataclass
class SPRT:
    """A running GSPRT.  ``add(units)`` after each batch; ``status`` is ``"H1"`` (A is
    stronger by about ``elo1``: accept), ``"H0"`` (not by more than about ``elo0``:
    reject) or None (keep playing)."""
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    kind: str = "pair"
    units: list = field(default_factory=list)

    def __post_init__(self):
        if self.kind not in ("pair", "difference"):
            raise ValueError(f"SPRT: kind must be 'pair' or 'difference', got {self.kind!r}")
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT: elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        self.lower, self.upper = sprt_bounds(self.alpha, self.beta)

    @property
    def values(self) -> tuple:
        return PAIR_VALUES if self.kind == "pair" else DIFFERENCE_VALUES

    def means(self) -> tuple[float, float]:
        """The hypotheses as mean unit outcomes (H0, H1)."""
        if self.kind == "pair":
            return 2 * elo_to_score(self.elo0), 2 * elo_to_score(self.elo1)
        return elo_to_score(self.elo0) - 0.5, elo_to_score(self.elo1) - 0.5

    def add(self, units) -> None:
        vals = np.asarray(self.values)
        for u in units:
            if not np.any(np.isclose(vals, u)):
                raise ValueError(f"SPRT: {u!r} is not a {self.kind} outcome "
                                 f"({', '.join(map(str, self.values))})")
            self.units.append(float(u))

    def counts(self) -> list[int]:
        u = np.asarray(self.units)
        return [int(np.sum(np.isclose(u, v))) for v in self.values]

    @property
    def llr(self) -> float:
        mu0, mu1 = self.means()
        return llr(self.values, self.counts(), mu0, mu1)

    @property
    def status(self) -> str | None:
        v = self.llr
        return "H1" if v >= self.upper else "H0" if v <= self.lower else None

    def sd(self) -> float:
        return float(np.std(self.units, ddof=1)) if len(self.units) > 1 else float("nan")

    def fixed_units(self) -> int | None:
        """What a fixed-size test with this alpha, beta and the observed spread needs."""
        s = self.sd()
        if not s > 0:
            return None
        mu0, mu1 = self.means()
        return fixed_sample_units(s, mu0, mu1, self.alpha, self.beta)


@dataclass
class SprtRun:
    """Everything a running A-against-B test over a field holds, so that it can stop at a
    game budget and be continued later on fresh seeds exactly as if it had never stopped:
    the GSPRT and its units, the pair points of A and B behind them (for the Elo estimate),
    the history of looks, the seed ranges played (``[from, to)`` each) and the bootstrap's
    random state.  ``deck_commands.sprt_test(..., state=run)`` plays into it."""
    sprt: SPRT
    rng: np.random.Generator
    pts_a: list = field(default_factory=list)
    pts_b: list = field(default_factory=list)
    history: list = field(default_factory=list)
    seed_ranges: list = field(default_factory=list)

    @classmethod
    def start(cls, args, seeds_from: int = 0) -> "SprtRun":
        """A fresh run on ``args``' hypotheses (``elo0``, ``elo1``, ``alpha``, ``beta``),
        units of kind "difference"; the bootstrap seeded from ``args.seed`` and the test's
        first seed, as ``compare`` always seeded it."""
        return cls(SPRT(args.elo0, args.elo1, args.alpha, args.beta, kind="difference"),
                   np.random.default_rng(args.seed + seeds_from))

    @property
    def games(self) -> int:
        """Games played so far: each unit is A's duplicate pair and B's, 4 games."""
        return 4 * len(self.pts_a)

    @property
    def status(self) -> str | None:
        return self.sprt.status

    @property
    def llr(self) -> float:
        return self.sprt.llr

    def played(self, start: int, stop: int) -> None:
        """Record that seeds ``start .. stop - 1`` were played (merging a range that
        continues the last one)."""
        if self.seed_ranges and self.seed_ranges[-1][1] == start:
            self.seed_ranges[-1][1] = stop
        else:
            self.seed_ranges.append([start, stop])


__all__ = ["SPRT", "SprtRun", "llr", "llr_normal", "sprt_bounds", "elo_to_score",
           "score_to_elo", "fixed_sample_units", "PAIR_VALUES", "DIFFERENCE_VALUES"]
