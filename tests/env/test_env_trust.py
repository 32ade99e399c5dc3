"""The environments under copying, pickling, failing opponents and hostile arguments.

Each test here failed before the fix it guards: copies of an env produced wrong
observations, an opponent's error left the next learner step applied as the
opponent's move, ``2.7``/``"2"``/``True`` were applied as actions, and several
misuses ended in bare tracebacks."""
import copy
import math
import pickle
import time

import numpy as np
import pytest

from nivel_env import NivelArenaGymEnv, env
from nivel_env.cards import load_deck
from nivel_env.engine import IllegalActionError, new_game
from nivel_env.env.encoder import Encoder
from nivel_env.env.single import OpponentError


def _play(e, n):
    for _ in range(n):
        obs = e.last()[0]
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))


def _fresh_obs(g, p):
    legal = g.legal_actions() if g.result is None and g.dec[1] == p else None
    return Encoder(g.db).encode(g, p, legal).copy()


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_aec_copies_observe_exactly(how):
    e = env()
    e.reset(seed=3)
    _play(e, 40)
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    for _ in range(200):
        if c.game.result is not None:
            break
        for p in (0, 1):
            assert np.array_equal(c.observe(f"player_{p}")["observation"], _fresh_obs(c.game, p))
        _play(c, 1)
        _play(e, 1)                   # the original goes on unaffected, in step with the copy
        assert e.game == c.game
        assert np.array_equal(e.observe("player_0")["observation"],
                              c.observe("player_0")["observation"])


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_gym_copies_observe_exactly(how):
    e = NivelArenaGymEnv(seat=0)
    obs, _ = e.reset(seed=5)
    for _ in range(15):
        obs, *_ = e.step(int(np.flatnonzero(e.action_masks())[0]))
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    for _ in range(100):
        a = int(np.flatnonzero(c.action_masks())[-1])
        obs, _, done, trunc, _ = c.step(a)
        if done or trunc:
            break
        assert np.array_equal(obs, _fresh_obs(c.game, c.seat))


def test_game_pickles_by_reference_small_and_fast():
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1)
    for _ in range(60):
        g.apply_action(g.legal_actions()[0])
    blob = pickle.dumps(g)
    assert len(blob) < 10_000                     # 127 KB when the pool went by value
    t = time.perf_counter()
    for _ in range(20):
        h = pickle.loads(pickle.dumps(g))
    assert h == g and h.db is g.db
    assert (time.perf_counter() - t) / 20 < 0.005  # generous: ~0.1 ms here, 17 ms before
    d = load_deck("ember-rush")
    d2 = pickle.loads(pickle.dumps(d))
    assert d2 == d and d2.db is d.db and len(pickle.dumps(d)) < 2_000


def test_a_pool_changed_on_disk_is_refused_on_unpickle(tmp_path):
    from nivel_env.cards import CardDataError, load_card_db
    from nivel_env.cards.db import _LIVE, bundled_card_files
    f = tmp_path / "pool.yaml"
    f.write_text(bundled_card_files()[0].read_text(encoding="utf-8"), encoding="utf-8")
    db = load_card_db([f])
    blob = pickle.dumps(db)
    version = db.version
    del db
    _LIVE.pop(version, None)
    f.write_text(f.read_text(encoding="utf-8").replace("power: 3", "power: 4", 1),
                 encoding="utf-8")
    with pytest.raises(CardDataError, match="changed since the game was saved"):
        pickle.loads(blob)


class _Boom:
    def act(self, obs, mask):
        raise ZeroDivisionError("opponent bug")


class _Illegal:
    needs_observation = False

    def act(self, obs, mask):
        return int(np.flatnonzero(np.asarray(mask) == 0)[0])


@pytest.mark.parametrize("opponent,msg", [(_Boom(), "raised ZeroDivisionError"),
                                          (_Illegal(), "chose")])
def test_an_opponent_error_ends_the_episode_cleanly(opponent, msg):
    e = NivelArenaGymEnv(opponent=opponent, seat=0)
    e.reset(seed=2)
    with pytest.raises(OpponentError, match=msg):
        for _ in range(50):
            e.step(int(np.flatnonzero(e.action_masks())[0]))
    g = e.game.to_dict()
    assert not e.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):   # never taken as the opponent's
        e.step(0)
    assert e.game.to_dict() == g
    e.set_opponent(None)
    e.reset(seed=2)
    e.step(int(np.flatnonzero(e.action_masks())[0]))


BAD_ACTIONS = [2.7, 2.0, "2", True, False, math.inf, -math.inf, math.nan, 1e999, None,
               np.float64(3), [3], np.array([3]), b"\x03", 3 + 0j]


def test_actions_must_be_integers_in_both_envs():
    g = NivelArenaGymEnv(seat=0)
    g.reset(seed=1)
    a = env()
    a.reset(seed=1)
    for e, step in ((g, g.step), (a, a.step)):
        before = e.game.to_dict()
        for bad in BAD_ACTIONS:
            if bad is None and e is a:
                continue                       # None is the AEC's "agent is done" action
            with pytest.raises(IllegalActionError, match="integer id"):
                step(bad)
            assert e.game.to_dict() == before
        for huge in (10 ** 30, -1, 337):
            with pytest.raises(IllegalActionError):
                step(huge)
        legal = e.game.legal_actions()[0]
        step(np.int64(legal))                  # numpy integers are fine
        assert e.game.to_dict() != before


def test_aec_misuse_gets_clear_errors():
    e = env()
    e.reset(seed=9)
    with pytest.raises(ValueError, match="unknown agent 'player_2'; the agents are player_0"):
        e.observe("player_2")
    with pytest.raises(TypeError, match="options must be a dict"):
        e.reset(options=["decks"])
    for seed in (1e999, 2.5, -1, "7"):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            e.reset(seed=seed)
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            NivelArenaGymEnv().reset(seed=seed)
    with pytest.raises(TypeError, match="deck_pool is a list of decks"):
        env(deck_pool="ember-rush")
    # play to the end, step every agent out, then once more
    import random
    r = random.Random(0)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            with pytest.raises(IllegalActionError, match=r"step\(None\)"):
                e.step(0)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[r.randrange(len(legal))]))
    with pytest.raises(RuntimeError, match="episode is over .* call reset"):
        e.step(None)
