"""Worlds weighted by belief: a search's worlds made likelier where the opponent's moves
were likelier.

A determinized search (``agents.search``) draws the opponent's hidden cards from a prior
that sees only public cards (``agents.worlds``), so a world in which the opponent held a
card they would surely have played, and did not, counts as much as any other.  A
``Belief`` remembers the opponent's recent moves -- the game before the move and the
move, told by the drivers through the player protocol's ``inform_action``
(``nivel_env.players``), forced moves included (whether a move was forced can turn on
the opponent's hidden cards) -- and at the search's own move:

1. draws ``candidates`` times as many worlds as the search uses (``determinize``, as the
   plain search does);
2. for each candidate and each remembered opponent decision, builds that past position
   with the candidate's cards behind every instance (``clone``, then ``set_deal`` with
   the world's whole ``defs`` and a fixed generator state): instances are stable over a
   game, so a world's card for an instance hidden now is its card then too, and a card
   public now is its true card in every world anyway;
3. scores the opponent's move there with the policy, from the opponent's observation of
   that position: one batched forward for every candidate and decision (a move forced in
   the candidate's position weighs nothing and needs no row).  The policy is
   softened -- its probabilities at ``temperature``, mixed with the uniform choice over
   the legal moves by ``epsilon`` -- because the opponent is not the policy: a person, the
   heuristic, another network.  With ``epsilon`` one decision can move a world's weight
   by at most a factor ``1 + (1 - epsilon) * n / epsilon`` (``n`` legal moves), so a move
   the policy finds absurd does not wipe out every world at once, and a run of moves that
   fit one world well still tells.  A move that is not legal in a candidate's past
   position makes it impossible (weight 0; when every candidate is, all count alike);
4. tempers the weights when ``min_ess`` is set: the log-likelihoods times the largest
   power beta in [0, 1] that keeps the effective sample size (``1 / sum(w^2)`` of the
   normalised weights) at ``min_ess`` of the candidates or above, as adaptive tempering
   in sequential Monte Carlo chooses its next step.  Untempered, about 25 remembered
   moves put nearly all the weight on one or two candidates (an effective sample size of
   2-7 of 16, ``benchmarks/belief.py``); the opponent is not the policy, so the product
   of 25 of its probabilities is far more certain than it has a right to be.  Beta keeps
   the order of the worlds and only limits how far the likeliest pull ahead;
5. picks the search's worlds from the candidates by weight (systematic resampling, from
   the search's own seeded generator), which are then searched as before.

What the weights may read: the candidates come from ``determinize`` (public information
only); a past position takes every card from the candidate and a generator state that
is not the game's, so no hidden card of the real game is read.  What a remembered
position still holds of the real game is where each instance lay then, and which
instance is which is hidden information (``engine.hidden.relabel`` renames hidden
instances).  The observation the weights read does not depend on instance names -- it
lists cards by zone and slot (``nivel_env.env.encoder``), and moves name slots, lanes and
candidates, not instances (``engine.actions``) -- so games whose histories differ only by
such a renaming, or by cards the searching player never saw, get the same weights bit for
bit and the same move (``tests/players/test_belief.py`` plays both).
"""
from __future__ import annotations

import math
import time
import weakref
from collections import deque

import numpy as np

from nivel_env.engine import N_ACTIONS

#: a past position's generator state: fixed, never the real game's (a legal move or an
#: observation does not read it; a different one would only make a world depend on it)
PAST_RNG = 0x9E3779B97F4A7C15
#: the games a belief follows at once (lockstep play seats one search in many games;
#: the oldest is forgotten first)
MAX_GAMES = 256
#: ``belief="tempered"``: the effective sample size kept, a share of the candidates
TEMPERED_ESS = 0.5


class Belief:
    """What a search remembers of the opponent's moves, and the worlds it weights by them
    (see the module docstring).

    Args:
        memory: opponent moves remembered per game (the latest, forced ones included:
            ``record``).
        candidates: candidate worlds drawn per searched world.
        epsilon: the share of the uniform choice in the opponent model, in (0, 1].
        temperature: the policy's probabilities at this temperature (above 1 flatter).
        min_ess: temper the weights so that their effective sample size stays at this
            share of the candidates or above, in [0, 1] (0: untempered, the default).
    """

    def __init__(self, memory: int = 48, candidates: int = 4, epsilon: float = 0.25,
                 temperature: float = 1.0, min_ess: float = 0.0):
        if not (isinstance(memory, int) and memory >= 1):
            raise ValueError(f"Belief: memory must be an int of at least 1, got {memory!r}")
        if not (isinstance(candidates, int) and candidates >= 1):
            raise ValueError(f"Belief: candidates must be an int of at least 1, got "
                             f"{candidates!r}")
        if not (isinstance(epsilon, (int, float)) and 0 < epsilon <= 1):
            raise ValueError(f"Belief: epsilon must be in (0, 1], got {epsilon!r}")
        if not (isinstance(temperature, (int, float)) and temperature > 0
                and math.isfinite(temperature)):
            raise ValueError(f"Belief: temperature must be positive, got {temperature!r}")
        if not (isinstance(min_ess, (int, float)) and 0 <= min_ess <= 1):
            raise ValueError(f"Belief: min_ess must be in [0, 1], got {min_ess!r}")
        self.memory, self.candidates, self.min_ess = memory, candidates, float(min_ess)
        self.epsilon, self.temperature = float(epsilon), float(temperature)
        self._games: dict = {}          # id(game) -> (game, [seat 0's, seat 1's decisions])
        #: the last weighting: candidates, opponent moves remembered, impossible
        #: candidates, the tempering power, the effective sample size (after tempering),
        #: distinct worlds picked, ms, and the log-weights (before tempering)
        self.last: dict = {}

    def reset(self) -> None:
        """Forget every game (a new game starts)."""
        self._games.clear()

    def __getstate__(self) -> dict:
        """Pickled without the games it follows (a pool member is pickled to its worker
        between games)."""
        return {**self.__dict__, "_games": {}}

    # ------------------------------------------------------------ remembering
    def record(self, game, player: int, action: int) -> None:
        """``inform_action``: ``player`` is about to play ``action`` in ``game``.  Kept (a
        clone of the game) when it is legal -- a driver may tell a move the game then
        refuses, and that move never happens.  Forced moves are kept too: whether a move
        was the only legal one can turn on the mover's hidden cards (no card in hand they
        could play), so leaving them out would let the hidden cards choose what is
        remembered; in a world where the move was forced it weighs nothing
        (``log_weights``)."""
        if action not in game.legal_actions():
            return
        games = self._games
        entry = games.get(id(game))
        if entry is None or entry[0] is not game:
            if len(games) >= MAX_GAMES:
                del games[next(iter(games))]
            entry = games[id(game)] = (game, [deque(maxlen=self.memory),
                                              deque(maxlen=self.memory)])
        entry[1][player].append((game.clone(), int(action)))

    def history(self, game, player: int) -> list:
        """``player``'s remembered decisions in ``game``: [(game before, move)], oldest
        first."""
        entry = self._games.get(id(game))
        if entry is None or entry[0] is not game:
            return []
        return list(entry[1][player])

    # ------------------------------------------------------------ weighing
    def log_weights(self, worlds: list, history: list, player: int, logits_of) -> np.ndarray:
        """Each world's log-likelihood of ``player``'s moves in ``history`` under the
        softened policy (-inf where a move is not legal).  ``logits_of(rows)`` gives the
        policy's logits, shape (len(rows), N_ACTIONS), for rows (game, player, legal)."""
        rows, owner, moves = [], [], []
        impossible = np.zeros(len(worlds), dtype=bool)
        for k, w in enumerate(worlds):
            defs = w.defs
            for past, action in history:
                h = past.clone()
                h.set_deal(defs, PAST_RNG)
                legal = h.legal_actions()
                if action not in legal:
                    impossible[k] = True
                    break
                if len(legal) == 1:
                    continue                              # forced here: probability 1
                rows.append((h, player, legal))
                owner.append(k)
                moves.append(action)
        out = np.zeros(len(worlds))
        if rows:
            out += np.bincount(owner, weights=self.log_probs(logits_of(rows), rows, moves),
                               minlength=len(worlds))
        out[impossible] = -np.inf
        return out

    def log_probs(self, logits: np.ndarray, rows: list, moves: list) -> np.ndarray:
        """log p(move) per row under the softened policy: softmax over the row's legal
        moves at ``temperature``, mixed with uniform by ``epsilon``."""
        n = len(rows)
        mask = np.zeros((n, N_ACTIONS), dtype=bool)
        for j, (_, _, legal) in enumerate(rows):
            mask[j, legal] = True
        z = np.where(mask, np.asarray(logits, dtype=np.float64)[:, :N_ACTIONS]
                     / self.temperature, -np.inf)
        top = z.max(axis=1, keepdims=True)
        log_soft = z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))
        picked = log_soft[np.arange(n), moves]
        eps = self.epsilon
        size = mask.sum(axis=1)
        return np.logaddexp(np.log1p(-eps) + picked if eps < 1 else -np.inf,
                            np.log(eps / size))

    def worlds(self, game, player: int, n: int, draw_world, rng, logits_of) -> list | None:
        """``n`` worlds for ``player`` to search in ``game``, picked by belief from
        ``n * candidates`` drawn with ``draw_world(seed)`` (seeds from ``rng``); None when
        nothing of the opponent is remembered in this game (the caller draws as before)."""
        history = self.history(game, 1 - player)
        if not history:
            return None
        t0 = time.perf_counter()
        seeds = rng.integers(1 << 62, size=n * self.candidates)
        worlds = [draw_world(int(s)) for s in seeds]
        logw = self.log_weights(worlds, history, 1 - player, logits_of)
        beta = tempering(logw, self.min_ess * len(worlds)) if self.min_ess else 1.0
        w = normalised(logw, beta)
        picks = systematic(w, n, rng.random())
        self.last = {"candidates": len(worlds), "moves": len(history),
                     "impossible": int((~np.isfinite(logw)).sum()), "beta": beta,
                     "ess": float(1.0 / (w * w).sum()), "distinct": len(set(picks)),
                     "ms": (time.perf_counter() - t0) * 1000, "log_weights": logw}
        return [worlds[i] for i in picks]


def normalised(logw: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Weights summing to 1 from log-weights raised to the power ``beta`` (-inf: weight
    0; when every one is -inf, all count alike)."""
    possible = np.isfinite(logw)
    if not possible.any():
        return np.full(len(logw), 1.0 / len(logw))          # none fits: all alike
    z = np.where(possible, logw, 0.0) * beta
    w = np.where(possible, np.exp(z - z[possible].max()), 0.0)
    return w / w.sum()


def tempering(logw: np.ndarray, target: float, steps: int = 30) -> float:
    """The largest power beta in [0, 1] whose weights (``normalised``) keep an effective
    sample size of ``target`` or more, by bisection (the size falls as beta grows, from
    the possible candidates' count at 0).  1 when the untempered weights already do; 0
    when even equal weights on the possible candidates fall short."""
    def ess(beta: float) -> float:
        w = normalised(logw, beta)
        return 1.0 / float((w * w).sum())
    if ess(1.0) >= target:
        return 1.0
    if ess(0.0) < target:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ess(mid) >= target else (lo, mid)
    return lo


def systematic(weights: np.ndarray, n: int, u: float) -> list:
    """Systematic resampling: ``n`` indices of ``weights`` (summing to 1), index i about
    ``n * weights[i]`` times, from one uniform ``u`` in [0, 1): the points (u + j) / n."""
    edges = np.cumsum(weights)
    edges[-1] = 1.0                                  # rounding: the last point falls inside
    points = (u + np.arange(n)) / n
    return np.searchsorted(edges, points, side="right").tolist()


def make_belief(setting) -> Belief | None:
    """``SearchAgent(belief=...)`` as the agent keeps it: None for off (False, None,
    ``"off"``), a ``Belief`` with the defaults for on (True, ``"on"``), one tempered to
    an effective sample size of half its candidates for ``"tempered"``, or the ``Belief``
    given.  Anything else is refused by name."""
    if setting is None or setting is False or setting == "off":
        return None
    if setting is True or setting == "on":
        return Belief()
    if setting == "tempered":
        return Belief(min_ess=TEMPERED_ESS)
    if isinstance(setting, Belief):
        return setting
    raise ValueError(f"belief: expected on, tempered, off or a Belief, got {setting!r}")


_ENCODERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class PolicyLogits:
    """``logits_of`` for a search's network: each row's observation for its player (the
    prefix the network reads of an ``Encoder``'s vector, one encoder per card pool kept
    while the pool lives: one costs milliseconds to make), one forward for all rows.
    ``forward(obs) -> logits``."""

    def __init__(self, forward, n_obs: int):
        self.forward, self.n_obs = forward, n_obs

    def __call__(self, rows: list) -> np.ndarray:
        from nivel_env.env.encoder import Encoder
        db = rows[0][0].db
        enc = _ENCODERS.get(db)
        if enc is None:
            enc = _ENCODERS[db] = Encoder(db)
        size = self.n_obs
        obs = np.empty((len(rows), size), dtype=np.float32)
        for j, (g, p, legal) in enumerate(rows):
            obs[j] = enc.encode(g, p, legal)[:size]
        return self.forward(obs)


__all__ = ["Belief", "MAX_GAMES", "PAST_RNG", "PolicyLogits", "TEMPERED_ESS", "make_belief",
           "normalised", "systematic", "tempering"]
