"""The batched game core equals independent environments, step by step."""
import random

import numpy as np
import pytest

from nivel_env import env
from nivel_env.engine import IllegalActionError
from nivel_env.vector import GameBatch


def test_batch_equals_independent_aec_envs():
    n, seed = 6, 40
    b = GameBatch(n)
    b.reset(seed=seed)
    envs = [env() for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    r = random.Random(0)
    ends = 0
    for _ in range(600):
        actions = np.zeros(n, dtype=np.int64)
        for i, e in enumerate(envs):
            agent = e.agent_selection
            o = e.observe(agent)
            assert b.actor[i] == int(agent[-1])
            assert np.array_equal(o["observation"], b.obs[i])
            assert np.array_equal(o["action_mask"].astype(bool), b.mask[i])
            legal = np.flatnonzero(b.mask[i])
            actions[i] = legal[r.randrange(len(legal))]
        b.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            if e.game.result is not None:
                assert b.done[i] and tuple(b.last_returns[i]) == tuple(e.game.result)
                assert b.reward[i] in e.game.result       # the learner seat of that deal
                ends += 1
                e.reset()                          # the env's own stream, as the batch
            else:
                assert not b.done[i]
    assert ends >= 3


def test_step_on_a_subset_and_bad_moves():
    b = GameBatch(4, decks=("ember-rush", "stone-bastion"), seat=0)
    b.reset(seed=1)
    before = [g.to_dict() for g in b.games]
    which = np.array([True, False, True, False])
    acts = np.array([np.flatnonzero(m)[0] for m in b.mask])
    b.step(acts, which=which)
    after = [g.to_dict() for g in b.games]
    assert after[1] == before[1] and after[3] == before[3]
    assert after[0] != before[0] and after[2] != before[2]
    illegal = np.array([np.flatnonzero(~m)[0] for m in b.mask])
    with pytest.raises(IllegalActionError, match="game 0"):
        b.step(illegal)
    with pytest.raises(ValueError, match="positive"):
        GameBatch(0)


def test_batched_policy_moves_equal_per_game_moves():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents import load_opponent
    b = GameBatch(16, seat=0)
    b.reset(seed=3)
    for _ in range(5):
        b.step([np.flatnonzero(m)[0] for m in b.mask])
    for difficulty in ("hard", "normal", "easy"):
        one = load_opponent("nv1-ppo", difficulty=difficulty, seed=9)
        many = load_opponent("nv1-ppo", difficulty=difficulty, seed=9)
        each = [one.act(b.obs[i], b.mask[i]) for i in range(b.n)]
        assert list(many.act_batch(b.obs, b.mask)) == each


def test_selfplay_vecenv_trains_with_maskable_ppo():
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.vec_env import VecEnv

    from agents import HeuristicAgent, RandomAgent, load_opponent
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    venv = SelfPlayVecEnv(8, opponents=[RandomAgent(0), HeuristicAgent(0),
                                        load_opponent("nv1-ppo", difficulty="normal", seed=1)],
                          seed=0)
    assert isinstance(venv, VecEnv)
    obs = venv.reset()
    assert obs.shape == (8, venv.observation_space.shape[0])
    assert venv.batch.learner_to_act.all()
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    assert is_masking_supported(venv)
    done_seen = 0
    rng = np.random.default_rng(0)
    for _ in range(300):
        masks = get_action_masks(venv)
        assert masks.shape == (8, 337) and masks.any(axis=1).all()
        acts = [rng.choice(np.flatnonzero(m)) for m in masks]
        obs, rew, done, infos = venv.step(np.array(acts))
        assert venv.batch.learner_to_act.all()
        for i in np.flatnonzero(done):
            done_seen += 1
            assert rew[i] in (-1, 0, 1) and "returns" in infos[i]
    assert done_seen > 0
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1,
                                    seed=0, policy_kwargs={"net_arch": [32]})
    model.learn(256)
