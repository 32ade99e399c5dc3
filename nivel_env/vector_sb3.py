"""A Stable-Baselines3 ``VecEnv`` over ``GameBatch``: the learner against an opponent pool.

Every game has one learner seat; the other seat is played by a member of ``opponents``
(drawn per deal with ``weights``).  ``step_wait`` applies the learner's moves, then
answers every game waiting on an opponent with one batched call per member --
``member.act_batch(observations, masks)`` when it has one (a policy: one forward for all
its games), else its ``act`` row by row -- until every game waits on the learner again.
sb3-contrib's MaskablePPO trains on it unchanged (``env_method("action_masks")``).
``set_opponents`` changes the pool while games are under way (games keep the member they
were dealt until they end); ``env_seconds`` and ``opponent_seconds`` add up the time spent
in the games (engine, encoder, bookkeeping) and in the opponents' moves.

    from sb3_contrib import MaskablePPO
    from agents import HeuristicAgent, RandomAgent
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    venv = SelfPlayVecEnv(64, opponents=[RandomAgent(0), HeuristicAgent(0)], seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=64).learn(10_000)
"""
from __future__ import annotations

import time

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .engine import N_ACTIONS
from .env.encoder import observation_box
from .vector import GameBatch


def act_batch(agent, obs: np.ndarray, masks: np.ndarray, games=None) -> np.ndarray:
    """Moves of ``agent`` for a batch of rows: its ``act_batch`` if it has one, else ``act``
    row by row (``None`` for observations when it does not read them); a search agent
    (``needs_state``) gets ``act_state(game)`` for each of ``games``."""
    if getattr(agent, "needs_state", False):
        if games is None:
            raise TypeError(f"{type(agent).__name__} searches the game: give the games")
        return np.array([agent.act_state(g) for g in games], dtype=np.int64)
    if hasattr(agent, "act_batch"):
        return np.asarray(agent.act_batch(obs, masks), dtype=np.int64)
    see = getattr(agent, "needs_observation", True)
    return np.array([agent.act(obs[k] if see else None, masks[k]) for k in range(len(masks))],
                    dtype=np.int64)


def label_of(agent) -> str:
    """A short name for an opponent in infos and logs: its ``label``, else its class."""
    return str(getattr(agent, "label", None) or type(agent).__name__)


class WholeBatchMethods:
    """SB3's per-environment calls for a VecEnv that is one object, not N environments:
    an attribute or method is the whole batch's, answered once per index asked;
    ``env_method("action_masks")`` gives each game's row of ``action_masks()``."""

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        return [getattr(self, method_name)(*args, **kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]


class SelfPlayVecEnv(WholeBatchMethods, VecEnv):
    """N games in this process as an SB3 VecEnv; the opponent seat played by ``opponents``.

    Args:
        n: games.
        opponents: agents (``act`` or ``act_batch``); default: one uniform random agent.
        weights: how often each member is drawn per deal (default: equal).
        seed: seeds the deals and the member draws; ``reset`` restarts from it.
        decks, deck_pool, config, card_db, seat, out: as for ``GameBatch``.
    """

    def __init__(self, n: int, opponents=None, weights=None, seed: int | None = None,
                 decks=None, deck_pool=None, config=None, card_db=None, seat="random",
                 out=None):
        if opponents is None:
            from agents import RandomAgent
            opponents = [RandomAgent(seed)]
        self.opponents = list(opponents)
        if not self.opponents:
            raise ValueError("SelfPlayVecEnv: give at least one opponent")
        self.weights = self._check_weights(self.opponents, weights)
        self.env_seconds = 0.0
        self.opponent_seconds = 0.0
        self.batch = GameBatch(n, decks=decks, deck_pool=deck_pool, config=config,
                               card_db=card_db, seat=seat, out=out)
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self.member = np.zeros(n, dtype=np.int64)
        self._ended_with: list = [None] * n
        self._actions = np.zeros(n, dtype=np.int64)
        self.render_mode = None
        super().__init__(n, observation_box(), spaces.Discrete(N_ACTIONS))

    @staticmethod
    def _check_weights(opponents, weights) -> np.ndarray:
        w = np.ones(len(opponents)) if weights is None else np.asarray(weights, float)
        if w.shape != (len(opponents),) or not np.isfinite(w).all() or (w < 0).any() \
                or w.sum() <= 0:
            raise ValueError(f"SelfPlayVecEnv: weights must be {len(opponents)} "
                             f"non-negative numbers, not all 0, got {weights!r}")
        return w / w.sum()

    def set_opponents(self, opponents, weights=None) -> None:
        """Draw later deals' opponents from ``opponents`` (with ``weights``).  A game under
        way keeps the member it was dealt, even one no longer in the pool, until it ends."""
        new = list(opponents)
        w = self._check_weights(new, weights)
        live = {int(k) for k in self.member}
        retiring = [self.opponents[k] for k in sorted(live)
                    if not any(self.opponents[k] is m for m in new)]
        merged = new + retiring
        where = {id(m): j for j, m in enumerate(merged)}
        self.member[:] = [where[id(self.opponents[k])] for k in self.member]
        self.opponents = merged
        self.weights = np.concatenate([w, np.zeros(len(retiring))])

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        seed = self._seeds[0] if any(s is not None for s in self._seeds) else self._seed
        self._seeds = [None] * self.num_envs
        self.restart(seed)
        return self.batch.obs.copy()

    def restart(self, seed) -> None:
        """Deal every game anew from ``seed`` and play the opponents' opening moves."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        t = time.perf_counter()
        self.batch.reset(seed=seed)
        self.env_seconds += time.perf_counter() - t
        self.member[:] = self._draw(self.num_envs)
        for m in self.opponents:
            if hasattr(m, "reset"):
                m.reset()
        done, reward = np.zeros(self.num_envs, bool), np.zeros(self.num_envs, np.float32)
        self._play_opponents(done, reward)

    def step_async(self, actions) -> None:
        self._actions[:] = np.asarray(actions).reshape(-1)

    def step_wait(self):
        done, reward, trunc = self.advance(self._actions)
        obs = self.batch.obs.copy()
        infos = [{} for _ in range(self.num_envs)]
        for i, info in self.end_infos(done, trunc).items():
            infos[i] = info
        return obs, reward, done, infos

    def advance(self, actions):
        """The learner's moves, then the opponents' until every game waits on the learner
        again; (done, reward, truncated) arrays.  Observations are left in
        ``batch.obs`` (not copied)."""
        b = self.batch
        t = time.perf_counter()
        b.step(actions)                       # every game waits on the learner here
        self.env_seconds += time.perf_counter() - t
        done, reward = b.done.copy(), b.reward.copy()
        trunc = b.truncated.copy()
        self._redraw(b.done)
        self._play_opponents(done, reward, trunc)
        return done, reward, trunc

    def end_infos(self, done, trunc) -> dict:
        """Game index -> info for the games that ended on this step: SB3's
        ``terminal_observation`` (the learner's view of the final position, which SB3
        bootstraps from when the turn cap cut the game short), the returns and the
        opponent's label."""
        b = self.batch
        return {int(i): {"terminal_observation": b.final_obs[i].copy(),
                         "TimeLimit.truncated": bool(trunc[i]),
                         "returns": b.last_returns[i],
                         "opponent": self._ended_with[i]} for i in np.flatnonzero(done)}

    def _draw(self, k: int) -> np.ndarray:
        return self._rng.choice(len(self.opponents), size=k, p=self.weights)

    def _redraw(self, which) -> None:
        """New members for the games that just ended (their old one's label is kept for
        this step's infos)."""
        idx = np.flatnonzero(which)
        if idx.size:
            for i in idx:
                self._ended_with[i] = label_of(self.opponents[self.member[i]])
            self.member[idx] = self._draw(idx.size)

    def _play_opponents(self, done, reward, trunc=None) -> None:
        """Move for the opponents until every game waits on the learner; a game the
        opponent finishes counts for this step (its deal is replaced)."""
        b = self.batch
        while True:
            waiting = ~b.learner_to_act
            if not waiting.any():
                return
            acts = self._actions
            t0 = time.perf_counter()
            for k, m in enumerate(self.opponents):
                rows = waiting & (self.member == k)
                if rows.any():
                    games = [b.games[i] for i in np.flatnonzero(rows)] \
                        if getattr(m, "needs_state", False) else None
                    acts[rows] = act_batch(m, b.obs[rows], b.mask[rows], games)
            t1 = time.perf_counter()
            b.step(acts, which=waiting)
            self.opponent_seconds += t1 - t0
            self.env_seconds += time.perf_counter() - t1
            ended = b.done
            if ended.any():
                done |= ended
                reward[ended] = b.reward[ended]
                if trunc is not None:
                    trunc |= b.truncated
                self._redraw(ended)

    def action_masks(self) -> np.ndarray:
        return self.batch.mask.copy()

    def close(self) -> None:
        pass


    def has_attr(self, attr_name) -> bool:
        return hasattr(self, attr_name)


__all__ = ["SelfPlayVecEnv", "WholeBatchMethods", "act_batch", "label_of"]
