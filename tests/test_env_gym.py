"""The Gymnasium single-agent wrapper: API, embedded opponents, VecEnvs, MaskablePPO."""
import numpy as np
import pytest
from gymnasium.utils import env_checker as ec
from gymnasium.utils import passive_env_checker as pc

from nivel_env import NivelArenaGymEnv
from nivel_env.engine import N_ACTIONS, IllegalActionError, RuleConfig
from nivel_env.env.encoder import OBS_SIZE


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


def run_episode(e, seed, policy=None):
    obs, info = e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, total = 0, 0.0
    while True:
        mask = e.action_masks()
        assert mask.dtype == bool and mask.shape == (N_ACTIONS,) and mask.any()
        g = e.game
        assert g.current_player == e.seat
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(g.legal_actions())
        a = policy(obs, mask) if policy else int(rng.choice(np.flatnonzero(mask)))
        obs, r, term, trunc, info = e.step(a)
        total += r
        steps += 1
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        if term or trunc:
            return steps, total, info, term, trunc


def test_gymnasium_env_checker():
    """gymnasium's check_env steps unmasked random actions, which this env refuses (an
    illegal action raises); run its checks with legal actions instead."""
    e = NivelArenaGymEnv(render_mode="ansi")
    pc.check_space(e.observation_space, "observation", pc._check_box_observation_space)
    ec.check_reset_return_type(e)
    ec.check_reset_seed_determinism(e)
    ec.check_reset_options(e)
    obs, info = pc.env_reset_passive_checker(e, seed=0)
    for _ in range(30):
        a = int(np.flatnonzero(e.action_masks())[0])
        obs, r, term, trunc, info = pc.env_step_passive_checker(e, a)
        if term or trunc:
            break
    assert isinstance(pc.env_render_passive_checker(e), str)


def test_episodes_end_with_plus_minus_one_for_the_learners_seat():
    e = NivelArenaGymEnv()
    seats, rewards = set(), set()
    for s in range(8):
        steps, total, info, term, trunc = run_episode(e, s)
        seats.add(e.seat)
        rewards.add(total)
        assert term and not trunc and total == info["returns"][e.seat]
        assert not e.action_masks().any()
    assert seats == {0, 1} and rewards == {-1.0, 1.0}


def test_fixed_seat_and_truncation():
    e = NivelArenaGymEnv(seat=1, config=RuleConfig(max_turns=2))
    never_attack = lambda obs, mask: int(next(a for a in np.flatnonzero(mask)
                                              if not 200 <= a < 203))
    e.set_opponent(never_attack)
    steps, total, info, term, trunc = run_episode(e, 0, never_attack)
    assert e.seat == 1 and trunc and not term and total == 0.0


def test_opponent_protocols_and_swapping():
    calls = []

    class Agent:
        def reset(self):
            calls.append("reset")

        def act(self, obs, mask):
            calls.append("act")
            assert obs.shape == (OBS_SIZE,) and mask.dtype == np.int8
            return first_legal(obs, mask)

    e = NivelArenaGymEnv(opponent=Agent(), seat=0)
    run_episode(e, 1)
    assert calls[0] == "reset" and "act" in calls
    plain = []
    e.set_opponent(lambda o, m: plain.append(1) or first_legal(o, m))
    assert isinstance(e.opponent, Agent)            # takes effect at the next reset
    run_episode(e, 2)
    assert plain
    with pytest.raises(TypeError, match="callable"):
        e.set_opponent(42)


def test_opponents_that_ignore_observations_get_none():
    seen = []

    class Blind:
        needs_observation = False

        def act(self, obs, mask):
            seen.append(obs)
            return first_legal(obs, mask)

    e = NivelArenaGymEnv(opponent=Blind(), seat=0)
    run_episode(e, 3)
    assert seen and all(o is None for o in seen)
    from agents import RandomAgent
    e.set_opponent(RandomAgent(0))
    run_episode(e, 4)


def test_same_seed_same_episode_and_bad_input():
    def trace(seed):
        e = NivelArenaGymEnv()
        obs, _ = e.reset(seed=seed)
        out = [obs.tobytes()]
        for _ in range(40):
            obs, r, term, trunc, _ = e.step(int(np.flatnonzero(e.action_masks())[-1]))
            out.append(obs.tobytes())
            if term or trunc:
                break
        return out
    assert trace(3) == trace(3) and trace(3) != trace(4)
    e = NivelArenaGymEnv()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    e.reset(seed=0)
    before = e.game.to_dict()
    illegal = int(np.flatnonzero(~e.action_masks())[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(illegal)
    assert e.game.to_dict() == before
    with pytest.raises(ValueError, match="unknown option"):
        e.reset(options={"seats": 1})
    with pytest.raises(ValueError, match="seat"):
        NivelArenaGymEnv(seat=2)
    bad = NivelArenaGymEnv(opponent=lambda o, m: N_ACTIONS - 1, seat=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        bad.reset(seed=0)
        for _ in range(5):                      # the opponent's first decision comes soon
            bad.step(int(np.flatnonzero(bad.action_masks())[0]))


def test_gymnasium_make():
    import gymnasium
    e = gymnasium.make("nivel_env/NivelArena-v0", decks=("ember-rush", "stone-bastion"))
    obs, info = e.reset(seed=0)
    assert obs.shape == (OBS_SIZE,) and e.unwrapped.action_masks().any()


def test_both_environments_share_one_core_and_one_random_player():
    """Reset, seeding, deck choice and the encoder come from one GameSource in both
    environments; the default opponent is agents.RandomAgent."""
    import agents
    from nivel_env import NivelArenaGymEnv
    from nivel_env.env import RandomOpponent
    from nivel_env.env.aec import env as aec_env
    from nivel_env.env.setup import GameSource
    assert RandomOpponent is agents.RandomAgent
    a, g = aec_env(), NivelArenaGymEnv()
    assert type(a.unwrapped._source) is type(g._source) is GameSource
    a.reset(seed=5)
    g.reset(seed=5)
    # the same seed gives both the same first game seed and decks (the Gym wrapper draws
    # its default opponent's seed first, so compare against a fresh source)
    src = GameSource(None, None, None, None, "test")
    src.reseed(5)
    game, pair = src.new_game()
    assert [d.name for d in pair] == [d.name for d in a.unwrapped.decks]
    assert game.to_dict() == a.unwrapped.game.to_dict()
