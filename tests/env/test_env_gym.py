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


# ------------------------------------------------------------------ seats, names, illegal

def test_bad_seats_are_refused_at_construction():
    """``seat=1.0`` used to be accepted and fail at the first reset (a float index)."""
    for bad in (1.0, 0.0, True, False, "1", 2, -1, None, np.float64(1), np.True_,
                np.array(True), np.array([1]), np.array(1.0)):
        with pytest.raises(ValueError, match="seat must be 0, 1 or 'random'"):
            NivelArenaGymEnv(seat=bad)
    e = NivelArenaGymEnv(seat=np.int64(1))
    e.reset(seed=0)
    assert e.seat == 1 and type(e.seat) is int
    # a 0-d integer array is an integer, as for an action id (engine.errors.as_int: the one
    # rule of every env, the batched ones too)
    e = NivelArenaGymEnv(seat=np.array(1))
    e.reset(seed=0)
    assert e.seat == 1 and type(e.seat) is int
    with pytest.raises(ValueError, match="seat must be 0, 1 or 'random'"):
        e.reset(options={"seat": 1.0})


def test_action_names_before_reset_during_and_after_the_episode():
    """Action ids are fixed: before ``reset()`` and after the end an id is named by the
    action table; during the episode in the context of the learner's decision."""
    e = NivelArenaGymEnv(seat=0)
    assert e.action_name(0) == "keep opening hand"
    assert e.action_name(17) == "play hand slot 2 -> lane 1"
    assert e.action_name(np.int64(201)) == "attack with the unit in lane 1"
    assert "out of range" in e.action_name(N_ACTIONS + 3)
    with pytest.raises(IllegalActionError, match="integer"):
        e.action_name(2.7)
    run_episode(e, 0)
    assert e.action_name(17) == "play hand slot 2 -> lane 1"
    e.reset(seed=1)
    while e.game.decision_name != "main":
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    hand = e.game.hand[e.seat]
    assert e.game.card(hand[0]).name in e.action_name(8)     # names the card in slot 0


def test_illegal_action_lose_ends_the_episode_and_changes_nothing():
    e = NivelArenaGymEnv(seat=0, illegal_action="lose")
    obs, _ = e.reset(seed=3)
    before = e.game.to_dict()
    illegal = int(np.flatnonzero(~e.action_masks())[0])
    obs2, r, term, trunc, info = e.step(illegal)
    assert (r, term, trunc) == (-1.0, True, False)
    assert str(illegal) in info["illegal_action"] and "not legal" in info["illegal_action"]
    assert info["returns"] == (-1.0, 0.0)
    assert e.game.to_dict() == before and np.array_equal(obs, obs2)
    assert not e.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        e.step(int(np.flatnonzero(e.game.legal_actions())[0]))
    assert e.action_name(0) == "keep opening hand"
    # ids outside the action space and non-integers still raise, changing nothing
    e.reset(seed=3)
    for bad in (N_ACTIONS, -1, 2.5, "3"):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.game.to_dict() == before
    e.step(int(np.flatnonzero(e.action_masks())[0]))           # the episode goes on
    # the default raises, as before
    d = NivelArenaGymEnv(seat=0)
    d.reset(seed=3)
    with pytest.raises(IllegalActionError, match="not legal"):
        d.step(illegal)
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose'"):
        NivelArenaGymEnv(illegal_action="ignore")


def test_gymnasium_check_env_passes_with_illegal_action_lose():
    """Gymnasium's checker steps unmasked random actions: with ``illegal_action="lose"``
    an illegal one ends the episode, so the full check runs, every render mode included
    (with the default it raises).  SB3's checker: tests/env/test_env_sb3.py."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env
    with pytest.raises(IllegalActionError):
        check_env(NivelArenaGymEnv(), skip_render_check=True)
    made = gymnasium.make("nivel_env/NivelArena-v0", illegal_action="lose",
                          render_mode="rgb_array")
    check_env(made.unwrapped)
    check_env(NivelArenaGymEnv(illegal_action="lose", render_mode="ansi"))


# ------------------------------------------------------------------ rgb_array frames

def test_rgb_array_frames_have_one_size_over_a_whole_game():
    """Video recorders need one frame size: every frame of an episode (and of every
    episode) is FRAME_SIZE, however many cards are in hand or play, with the text
    inside the margins."""
    e = NivelArenaGymEnv(seat=0, render_mode="rgb_array")
    shapes, frames = set(), []
    for seed in (0, 1):
        e.reset(seed=seed)
        frames.append(e.render())
        rng = np.random.default_rng(seed)
        while True:
            _, _, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
            frames.append(e.render())
            if term or trunc:
                break
    assert len({(f.shape, str(f.dtype)) for f in frames}) == 1
    from nivel_env.env.image import FRAME_SIZE, MARGIN
    for f in frames:
        shapes.add((f.shape, str(f.dtype)))
        ink = np.argwhere(f[:, :, 0] < 255)
        assert ink[:, 0].min() >= MARGIN and ink[:, 1].min() >= MARGIN
        assert ink[:, 0].max() < FRAME_SIZE[0] - MARGIN // 2
        assert ink[:, 1].max() < FRAME_SIZE[1] - MARGIN // 2
    assert shapes == {(FRAME_SIZE + (3,), "uint8")}
    assert len(frames) > 60 and len({f.tobytes() for f in frames}) > 30   # they do change
