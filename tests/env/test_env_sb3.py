"""The Gymnasium wrapper under Stable-Baselines3: VecEnvs and a short MaskablePPO run.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); CI installs it.
"""
import numpy as np
import pytest

from nivel_env import NivelArenaGymEnv
from nivel_env.engine import N_ACTIONS

sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


def make_env(rank):
    def _f():
        e = NivelArenaGymEnv(decks=("ember-rush", "stone-bastion"))
        e.reset(seed=rank)
        return e
    return _f


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_vec_envs_step_with_masks(vec):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    cls = DummyVecEnv if vec == "dummy" else SubprocVecEnv
    venv = cls([make_env(i) for i in range(2)])
    try:
        venv.seed(0)
        venv.reset()
        rng = np.random.default_rng(0)
        dones = 0
        for _ in range(400):
            masks = get_action_masks(venv)
            assert masks.shape == (2, N_ACTIONS) and masks.any(axis=1).all()
            acts = [int(rng.choice(np.flatnonzero(m))) for m in masks]
            _obs, _r, done, _info = venv.step(np.array(acts))
            dones += int(done.sum())
        assert dones > 0
        venv.env_method("set_opponent", first_legal)
    finally:
        venv.close()


def test_maskable_ppo_trains_a_few_hundred_steps(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv
    torch.set_num_threads(1)
    venv = DummyVecEnv([make_env(i) for i in range(2)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [64]}, verbose=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip")
    e = NivelArenaGymEnv(seat=0)
    obs, _ = e.reset(seed=9)
    for _ in range(50):
        a, _ = loaded.predict(obs, action_masks=e.action_masks(), deterministic=True)
        assert e.action_masks()[int(a)]
        obs, r, term, trunc, _ = e.step(int(a))
        if term or trunc:
            break


def test_readme_gymnasium_recipes_work_after_import_nivel_env():
    """import nivel_env (not nivel_env.env) registers the id, whichever of gymnasium and
    nivel_env comes first; the made env keeps action_masks(); make_vec_env's default
    render_mode="rgb_array" is supported; MaskablePPO trains on it."""
    import subprocess
    import sys
    code = """
import nivel_env, gymnasium
e = gymnasium.make("nivel_env/NivelArena-v0", seat=0)
e.reset(seed=1)
assert e.action_masks().any()
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
venv = make_vec_env("nivel_env/NivelArena-v0", n_envs=2)
MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1).learn(64)
frame = venv.get_images()[0]
assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype.name == "uint8"
print("ok")
"""
    short = code.split("from sb3_contrib")[0] + "print('ok')"
    for text in (code, "import gymnasium\n" + short):
        p = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-2000:]


def test_public_env_creators_pickle():
    import functools
    import pickle

    import nivel_env
    from nivel_env import env, nivel_arena_v0, raw_env
    for creator in (env, raw_env, nivel_arena_v0.env, nivel_env.env,
                    functools.partial(env, decks=("ember-rush", "stone-bastion"))):
        made = pickle.loads(pickle.dumps(creator))()
        made.reset(seed=1)
        assert made.agent_selection in ("player_0", "player_1")


def test_subproc_vec_env_of_a_prebuilt_mid_game_env_observes_exactly():
    """SubprocVecEnv([lambda: env]) pickles an env that already played: the worker's copy
    must observe exactly what a fresh encoder gives (it used to drift)."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from nivel_env.env.encoder import Encoder
    prebuilt = NivelArenaGymEnv(seat=0, decks=("ember-rush", "stone-bastion"))
    prebuilt.reset(seed=4)
    for _ in range(10):
        prebuilt.step(int(np.flatnonzero(prebuilt.action_masks())[0]))
    venv = SubprocVecEnv([lambda: prebuilt])
    try:
        venv.reset()                      # SB3 resets: a fresh game from the env's stream
        for _ in range(60):
            mask = venv.env_method("action_masks")[0]
            obs, _, done, _ = venv.step(np.array([int(np.flatnonzero(mask)[-1])]))
            if done[0]:
                continue
            g = venv.get_attr("game")[0]
            seat = venv.get_attr("seat")[0]
            want = Encoder(g.db).encode(g, seat, g.legal_actions())
            assert np.array_equal(obs[0], want)
    finally:
        venv.close()


def test_sb3_check_env_passes_with_illegal_action_lose():
    """SB3's checker steps unmasked random actions; with ``illegal_action="lose"`` an
    illegal one ends the episode (-1), so it passes, warnings and all; with the default
    the env raises, as training code needs."""
    import warnings

    from stable_baselines3.common.env_checker import check_env

    from nivel_env.engine import IllegalActionError
    with pytest.raises(IllegalActionError):
        check_env(NivelArenaGymEnv(), warn=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(NivelArenaGymEnv(illegal_action="lose", render_mode="rgb_array"), warn=True)
