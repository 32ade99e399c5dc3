"""A Stable-Baselines3 ``VecEnv`` over ``GameBatch``: the learner against an opponent pool.

Every game has one learner seat; the other seat is played by a member of ``opponents``
(drawn per deal with ``weights``).  ``step_wait`` applies the learner's moves, then
answers every game waiting on an opponent with one batched call per member
(``nivel_env.players.ask_batch``: ``member.act_batch(observations, masks)`` when it has
one -- a policy: one forward for all its games --, else its ``act`` row by row) until
every game waits on the learner again
(``vector_selfplay.SelfPlayGames``, which this class adds SB3's interface to).
sb3-contrib's MaskablePPO trains on it unchanged (``env_method("action_masks")``).

``set_opponents`` changes the pool while games are under way (games keep the member they
were dealt until they end); ``env_seconds`` and ``opponent_seconds`` add up the time spent
in the games (engine, encoder, bookkeeping) and in the opponents' moves.

A step moves every game or none: ``step`` checks the learner's actions whole, once, in
``step_async`` (integer ids, one per game, each legal; ``IllegalActionError`` names the
game, the player and the action), and an opponent
that raises or plays an illegal move (``OpponentError``) -- or any other failure -- puts
every game back where it was before the step, with the same observations and masks, so
the step may be taken again.  Only a ``reset`` that fails (an opponent's opening move)
leaves the env broken: every call but ``reset`` raises, saying why, until a ``reset``
succeeds.  After ``close()`` every call raises.

    from sb3_contrib import MaskablePPO
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    from nivel_env.players import RandomAgent, load
    venv = SelfPlayVecEnv(64, opponents=[RandomAgent(0), load("heuristic", seed=0)], seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=64).learn(10_000)
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ..engine import N_ACTIONS
from ..players import label_of
from .vector_selfplay import OpponentError, SelfPlayGames


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


class SelfPlayVecEnv(SelfPlayGames, WholeBatchMethods, VecEnv):
    """N games in this process as an SB3 VecEnv; the opponent seat played by ``opponents``.

    Args:
        n: games.
        opponents: agents (``act`` or ``act_batch``); default: one uniform random agent.
        weights: how often each member is drawn per deal (default: equal).
        seed: seeds the deals and the member draws; ``reset`` restarts from it.
        decks, deck_pool, config, card_db, seat, out, obs: as for ``GameBatch``.
    """

    def __init__(self, n: int, opponents=None, weights=None, seed: int | None = None,
                 decks=None, deck_pool=None, config=None, card_db=None, seat="random",
                 out=None, obs="full"):
        SelfPlayGames.__init__(self, n, opponents=opponents, weights=weights, seed=seed,
                               decks=decks, deck_pool=deck_pool, config=config,
                               card_db=card_db, seat=seat, out=out, obs=obs)
        self._actions = np.zeros(n, dtype=np.int64)
        self._pending = False                              # step_async called, not waited
        self.render_mode = None
        VecEnv.__init__(self, n, self.batch.layout.box(), spaces.Discrete(N_ACTIONS))

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        if self.closed:
            raise RuntimeError("SelfPlayVecEnv.reset: the env is closed")
        seed = self._seeds[0] if any(s is not None for s in self._seeds) else self._seed
        self._seeds = [None] * self.num_envs
        self._pending = False
        self.restart(seed)
        return self.batch.obs.copy()

    def step_async(self, actions) -> None:
        """Check the learner's actions whole (the step's one check: ``step_wait`` plays
        them as checked here); an error leaves no step pending."""
        self._usable("step")
        self._pending = False
        self._actions[:] = self.check_actions(actions, "SelfPlayVecEnv.step")
        self._pending = True

    def step_wait(self):
        self._usable("step")
        if not self._pending:
            raise RuntimeError("SelfPlayVecEnv.step_wait: no step_async before it")
        self._pending = False
        done, reward, trunc = self._advance(self._actions)    # checked in step_async
        obs = self.batch.obs.copy()
        infos = [{} for _ in range(self.num_envs)]
        for i, info in self.end_infos(done, trunc).items():
            infos[i] = info
        return obs, reward, done, infos

    def action_masks(self) -> np.ndarray:
        self._usable("action_masks")
        return self.batch.mask.copy()

    def card_table(self) -> np.ndarray:
        """The pool's card table, which a compact observation's indices point into."""
        return self.batch.card_table()

    def has_attr(self, attr_name) -> bool:
        return hasattr(self, attr_name)


__all__ = ["OpponentError", "SelfPlayVecEnv", "WholeBatchMethods", "label_of"]
