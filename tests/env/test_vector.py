"""The batched game core equals independent environments, step by step."""
import random

import numpy as np
import pytest

from nivel_env import env
from nivel_env.engine import IllegalActionError
from nivel_env.env.vector import GameBatch


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
                # the learner's view of the final position (one of the seats whose return
                # the learner got)
                assert any(np.array_equal(e.observe(f"player_{s}")["observation"],
                                          b.final_obs[i])
                           for s in (0, 1) if e.game.result[s] == b.reward[i])
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


def test_step_with_which_reads_only_the_selected_games():
    """``step(actions, which=...)`` range-checked every game's entry, so a caller with
    ``-1`` placeholders for the games it does not move was refused."""
    b = GameBatch(4, seat=0)
    b.reset(seed=2)
    which = np.array([False, True, True, False])
    before = [g.to_dict() for g in b.games]
    acts = np.full(4, -1, dtype=np.int64)
    acts[which] = [np.flatnonzero(b.mask[i])[0] for i in (1, 2)]
    b.step(acts, which=which)
    after = [g.to_dict() for g in b.games]
    assert after[0] == before[0] and after[3] == before[3] and after[1] != before[1]
    placeholders = [None, int(np.flatnonzero(b.mask[1])[0]), "-", 10 ** 30]   # a list: any
    b.step(placeholders, which=np.array([False, True, False, False]))
    for bad, says in (([0, 0, -1, 0], "game 2: action -1 is out of range"),
                      (np.array([-1, 999, -1, -1]), "game 1: action 999 is out of range"),
                      ([None, 2.0, None, None], "game 1: an action is an integer id")):
        snap = [g.to_dict() for g in b.games]
        with pytest.raises(IllegalActionError, match=says):
            b.step(bad, which=np.array([False, True, True, False]))
        assert [g.to_dict() for g in b.games] == snap
    with pytest.raises(IllegalActionError, match="float64 array"):
        b.step(np.full(4, -1.0), which=np.zeros(4, bool))   # the array's type is still read
    b.step(np.full(4, -1), which=np.zeros(4, bool))          # nothing selected: nothing moves


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
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
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


def _deterministic_opponent():
    from agents import load_opponent
    return load_opponent("nv1-ppo", difficulty="hard")


def test_worker_processes_equal_one_process():
    """Two worker processes of 3 games (shared memory) deal and play what one process of
    6 games does, observation for observation."""
    pytest.importorskip("sb3_contrib")
    from agents import HeuristicAgent, RandomAgent
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
    one = SelfPlayVecEnv(6, opponents=[_deterministic_opponent()], seed=3)
    many = WorkerSelfPlayVecEnv(2, 3, opponents=[_deterministic_opponent()], seed=3)
    try:
        assert (one.reset() == many.reset()).all()
        ended = 0
        for t in range(120):
            masks = one.action_masks()
            assert (masks == many.action_masks()).all()
            acts = masks.argmax(axis=1)
            o1, r1, d1, i1 = one.step(acts)
            o2, r2, d2, i2 = many.step(acts)
            assert (o1 == o2).all() and (r1 == r2).all() and (d1 == d2).all(), t
            assert [i.get("returns") for i in i1] == [i.get("returns") for i in i2]
            ended += int(d1.sum())
        assert ended > 0 and many.env_seconds > 0
        many.set_opponents([RandomAgent(1), HeuristicAgent(1)], [0.5, 0.5])
        obs, *_ = many.step(many.action_masks().argmax(axis=1))
        assert obs.shape == (6, many.observation_space.shape[0])
        with pytest.raises(ValueError, match="weights"):
            many.set_opponents([RandomAgent(1)], [0.5, 0.5])
    finally:
        many.close()
    many.close()                                      # closing twice is harmless


def test_pool_changes_keep_games_under_way():
    from agents import HeuristicAgent, RandomAgent
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    a, b = RandomAgent(0), HeuristicAgent(0)
    a.label, b.label = "first", "second"
    venv = SelfPlayVecEnv(8, opponents=[a], seed=0)
    venv.reset()
    venv.set_opponents([b])
    assert venv.opponents[0] is b and venv.opponents[1] is a      # a retires, still playing
    assert (venv.member == 1).all() and venv.weights[1] == 0
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        masks = venv.action_masks()
        _, _, done, infos = venv.step([rng.choice(np.flatnonzero(m)) for m in masks])
        seen |= {infos[i]["opponent"] for i in np.flatnonzero(done)}
        if (venv.member == 0).all():
            break
    assert (venv.member == 0).all(), "every game dealt after the change meets the new member"
    assert seen >= {"first"}
    venv.set_opponents([b])
    assert venv.opponents == [b]                      # nobody plays a any more: dropped


def test_selfplay_vecenv_contract():
    """What SB3 expects of a VecEnv: shapes, dtypes, spaces, no NaN (VecCheckNan)."""
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.vec_env import VecCheckNan

    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    inner = SelfPlayVecEnv(4, seed=1)
    venv = VecCheckNan(inner, raise_exception=True)
    obs = venv.reset()
    assert obs.dtype == np.float32 and obs.shape == (4,) + venv.observation_space.shape
    assert all(venv.observation_space.contains(o) for o in obs)
    rng = np.random.default_rng(1)
    for _ in range(200):
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (4, 337) and masks.dtype == bool
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        assert all(venv.action_space.contains(int(a)) for a in acts)
        obs, rew, done, infos = venv.step(acts)
        assert rew.shape == (4,) and done.shape == (4,) and len(infos) == 4
        assert all(venv.observation_space.contains(o) for o in obs)
    assert venv.get_attr("num_envs") == [4] * 4 and venv.env_is_wrapped(object) == [False] * 4


def test_pointer_head_scores_a_hand_card_from_its_own_row():
    """With the plain action layer silenced, exchanging two hand cards (their rows and
    slot facts) exchanges exactly the scores of playing them, and nothing else: the
    score of "play hand card i" comes from card row i, and the hand reads as a set."""
    th = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.network import PointerPolicy, pointer_policy
    from nivel_env.engine import actions as A
    from nivel_env.env import encoder as E
    from nivel_env.env.card_features import WIDTH
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    cls, kw = pointer_policy(card_dim=16, key_dim=8, trunk_dim=32)
    venv = SelfPlayVecEnv(2, seed=0)
    policy = sb3_contrib.MaskablePPO(cls, venv, policy_kwargs=kw, n_steps=8, seed=0).policy
    assert isinstance(policy, PointerPolicy)
    with th.no_grad():
        policy.action_net.base.weight.zero_()
        policy.action_net.base.bias.zero_()
    b = GameBatch(8, seat=0)
    b.reset(seed=2)
    row = next(i for i in range(b.n)
               if b.obs[i, E.OFFSETS["cards"] + (E.ROW_HAND + 1) * WIDTH] == 1)
    obs = b.obs[row].copy()
    swapped = obs.copy()

    def swap(at, width, i, j):
        a, c = slice(at + i * width, at + (i + 1) * width), slice(at + j * width,
                                                                  at + (j + 1) * width)
        swapped[a], swapped[c] = obs[c], obs[a]
    swap(E.OFFSETS["cards"] + E.ROW_HAND * WIDTH, WIDTH, 0, 1)
    swap(E.OFFSETS["hand_slots"], len(E.HAND_FEATURES), 0, 1)
    assert not np.array_equal(obs, swapped)
    with th.no_grad():
        f = policy.extract_features(th.as_tensor(np.stack([obs, swapped])),
                                    policy.pi_features_extractor)
        logits = policy.action_net(f).numpy()
    perm = np.arange(A.N_ACTIONS)
    for t in range(A.PLAY_TARGETS):
        perm[A.play_id(0, t)], perm[A.play_id(1, t)] = A.play_id(1, t), A.play_id(0, t)
    np.testing.assert_allclose(logits[1], logits[0][perm], rtol=1e-4, atol=1e-5)
    assert not np.allclose(logits[0][A.play_id(0, 0)], logits[0][A.play_id(1, 0)])


def test_pointer_policy_file_round_trip(tmp_path):
    th = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.network import pointer_policy
    from agents import load_opponent
    from agents.policy import PolicyAgent, export_policy
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    cls, kw = pointer_policy(card_dim=16, key_dim=8, trunk_dim=32)
    model = sb3_contrib.MaskablePPO(cls, SelfPlayVecEnv(2, seed=0), policy_kwargs=kw,
                                    n_steps=8, seed=0, device="cpu")
    path = export_policy(model, tmp_path / "p.pt")
    saved = th.load(path, weights_only=True)
    assert saved["network"]["policy"] == "pointer"
    b = GameBatch(4)
    b.reset(seed=0)
    mine = PolicyAgent(policy=model.policy, meta={})
    loaded = load_opponent(str(path))
    # the file keeps float16 weights: the same moves, logits within rounding
    np.testing.assert_allclose(loaded.logits(b.obs, b.mask), mine.logits(b.obs, b.mask),
                               atol=2e-2)
    assert list(loaded.act_batch(b.obs, b.mask)) == list(mine.act_batch(b.obs, b.mask))
