"""Batched training data is never silently wrong (issue 28 section 4).

Each test here failed before its fix: a float action was truncated into another move, a
scalar was broadcast to every game, a bad action in game k left games 0..k-1 moved, an
opponent that raised or cheated left the learner's moves applied and the next step was
taken in games waiting on the opponent, and a dead worker gave a bare BrokenPipeError."""
import math

import numpy as np
import pytest

from nivel_env.engine import IllegalActionError
from nivel_env.env.single import OpponentError
from nivel_env.vector import GameBatch


def _states(games):
    return [g.to_dict() for g in games]


def _first_legal(masks):
    return np.array([np.flatnonzero(m)[0] for m in masks], dtype=np.int64)


def _bad_batches(acts):
    """Action batches of 3 games that must be refused, each with what the error says."""
    return [
        (acts + 0.7, "float64 array"),                    # used to play acts
        (acts.astype(np.float64), "float64 array"),       # integer-valued floats: as the AEC
        (acts.astype(np.float32), "float32 array"),
        ([int(a) for a in acts[:2]] + [float(acts[2])], "game 2: got float"),
        ([int(a) for a in acts[:2]] + [True], "game 2: got bool"),
        (np.array([True, False, True]), "bool array"),
        (acts.astype(str), "<U"),
        ([str(a) for a in acts], "game 0: got str"),
        (int(acts[0]), "for the whole batch"),            # used to be broadcast
        (np.int64(acts[0]), "for the whole batch"),
        (acts[:2], "shape"),
        (list(acts) + [0], "got 4"),
        (acts.reshape(3, 1), "shape"),
        (np.array([acts[0], None, acts[2]], dtype=object), "game 1: got NoneType"),
        ([int(acts[0]), math.nan, 0], "game 1: got float"),
        ([int(acts[0]), 400, 0], "400 is not an action id"),
        (np.array([acts[0], -1, acts[2]]), "-1 is not an action id"),
        (None, "for the whole batch"),
    ]


def test_gamebatch_refuses_anything_but_one_integer_id_per_game():
    b = GameBatch(3, seat=0)
    b.reset(seed=1)
    acts = _first_legal(b.mask)
    before, obs = _states(b.games), b.obs.copy()
    for bad, says in _bad_batches(acts):
        with pytest.raises(IllegalActionError, match="integer ids") as e:
            b.step(bad)
        assert says in str(e.value), (says, str(e.value))
        assert _states(b.games) == before and (b.obs == obs).all(), says
    b.step([np.int32(a) for a in acts])                   # numpy integers are ids
    assert _states(b.games) != before


def test_gamebatch_checks_the_whole_batch_before_any_game_moves():
    b = GameBatch(4, seat=0)
    b.reset(seed=2)
    acts = _first_legal(b.mask)
    acts[2] = np.flatnonzero(~b.mask[2])[0]               # game 2's move is illegal
    before, obs, mask = _states(b.games), b.obs.copy(), b.mask.copy()
    with pytest.raises(IllegalActionError, match="game 2: .*no game moved"):
        b.step(acts)
    assert _states(b.games) == before                     # games 0 and 1 used to move
    assert (b.obs == obs).all() and (b.mask == mask).all()
    with pytest.raises(ValueError, match="which must be a bool array"):
        b.step(_first_legal(b.mask), which=[0, 1, 2, 3])
    b.step(_first_legal(b.mask))
    assert GameBatch(1).broken is not None                # not dealt: step says so
    with pytest.raises(RuntimeError, match="not dealt yet; call reset"):
        GameBatch(1).step([0])


def test_gamebatch_all_or_nothing_puts_every_game_back():
    b = GameBatch(5, seat="random")
    b.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):                                   # some games end and are dealt anew
        b.step([rng.choice(np.flatnonzero(m)) for m in b.mask])
    snap = (_states(b.games), b.obs.copy(), b.mask.copy(), b.actor.copy(),
            b.learner_seat.copy(), b.episodes.copy(), list(b.last_returns),
            b.final_obs.copy())
    with pytest.raises(KeyError, match="boom"):
        with b.all_or_nothing():
            for _ in range(120):                          # ends games: new deals, final_obs
                b.step([rng.choice(np.flatnonzero(m)) for m in b.mask])
            assert b.episodes.sum() > snap[5].sum()
            raise KeyError("boom")
    now = (_states(b.games), b.obs, b.mask, b.actor, b.learner_seat, b.episodes,
           b.last_returns, b.final_obs)
    for was, got in zip(snap, now):
        assert (was == got) if isinstance(was, list) else (was == got).all()
    assert b.broken is None and not b.done.any()
    # the deal streams were put back too: the same moves now replay the same games
    c = GameBatch(5, seat="random")
    c.reset(seed=3)
    rng2 = np.random.default_rng(0)
    for _ in range(40):
        c.step([rng2.choice(np.flatnonzero(m)) for m in c.mask])
    for _ in range(60):
        acts = [rng.choice(np.flatnonzero(m)) for m in b.mask]
        b.step(acts)
        c.step(acts)
        assert (b.obs == c.obs).all() and (b.done == c.done).all()
    # a game changed behind the batch's back cannot be put back: said, not hidden
    b.games[1].surrender(0)
    with pytest.raises(IllegalActionError):
        with b.all_or_nothing():
            b.step(_first_legal(b.mask))
    with pytest.raises(RuntimeError, match=r"games \[1\] could not be put back.*outside"):
        b.step(_first_legal(b.mask))


def test_selfplay_refuses_bad_learner_actions_and_moves_nothing():
    pytest.importorskip("stable_baselines3")
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    venv = SelfPlayVecEnv(3, seed=4)
    venv.reset()
    acts = _first_legal(venv.action_masks())
    before, obs = _states(venv.batch.games), venv.batch.obs.copy()
    for bad, says in _bad_batches(acts):
        with pytest.raises(IllegalActionError, match="integer ids") as e:
            venv.step(bad)
        assert says in str(e.value), (says, str(e.value))
        assert _states(venv.batch.games) == before and (venv.batch.obs == obs).all(), says
    illegal = acts.copy()
    illegal[1] = np.flatnonzero(~venv.action_masks()[1])[0]
    with pytest.raises(IllegalActionError, match="game 1: .*no game moved"):
        venv.step(illegal)
    assert _states(venv.batch.games) == before and venv.batch.learner_to_act.all()
    venv.step(acts)
    assert _states(venv.batch.games) != before


class _Flaky:
    """Answers like a random agent, but fails on chosen calls: raises, or plays an
    illegal move, or a float."""
    needs_observation = False
    label = "flaky"

    def __init__(self, fail_on, how):
        self.calls, self.fail_on, self.how = 0, set(fail_on), how

    def act(self, obs, mask):
        self.calls += 1
        legal = np.flatnonzero(mask)
        if self.calls in self.fail_on:
            if self.how == "raise":
                raise ZeroDivisionError("opponent bug")
            if self.how == "illegal":
                return int(np.flatnonzero(np.asarray(mask) == 0)[0])
            return float(legal[0])
        return int(legal[self.calls % len(legal)])


@pytest.mark.parametrize("how,says", [("raise", "raised ZeroDivisionError: opponent bug"),
                                      ("illegal", "chose action"),
                                      ("float", "integer ids")])
def test_an_opponent_failure_moves_no_game(how, says):
    """Before: the learner's moves stood, the env went on, and the next step's actions
    were applied in games waiting on the opponent's seat."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    flaky = _Flaky(fail_on=range(30, 10_000), how=how)
    venv = SelfPlayVecEnv(4, opponents=[flaky, RandomAgent(0)], seed=5, seat=0)
    venv.reset()
    rng = np.random.default_rng(1)
    with pytest.raises(OpponentError, match=says) as e:
        for _ in range(200):
            before = (_states(venv.batch.games), venv.batch.obs.copy(),
                      venv.action_masks(), venv.member.copy(), venv.batch.episodes.copy())
            draws = venv._rng.bit_generator.state
            venv.step([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
    assert "flaky" in str(e.value) and "no game moved" in str(e.value)
    assert _states(venv.batch.games) == before[0]
    assert (venv.batch.obs == before[1]).all() and (venv.action_masks() == before[2]).all()
    assert (venv.member == before[3]).all() and (venv.batch.episodes == before[4]).all()
    assert venv._rng.bit_generator.state == draws
    assert venv.batch.learner_to_act.all()                # every game waits on the learner
    flaky.fail_on = set()                                 # it recovers: the step is retaken
    for _ in range(30):
        venv.step([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        assert venv.batch.learner_to_act.all()


def test_a_failed_reset_leaves_the_env_broken_until_a_reset_succeeds():
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    flaky = _Flaky(fail_on=[1], how="raise")
    venv = SelfPlayVecEnv(4, opponents=[flaky], seed=6, seat=1)   # opponent moves first
    with pytest.raises(OpponentError, match="opponent bug"):
        venv.reset()
    for call in (lambda: venv.step(np.zeros(4, np.int64)), venv.action_masks):
        with pytest.raises(RuntimeError, match="reset\\(\\) failed: .*opponent bug.*call reset"):
            call()
    venv.set_opponents([RandomAgent(0)])
    venv.reset()
    venv.step(_first_legal(venv.action_masks()))
    venv.close()
    for call in (venv.reset, venv.action_masks, lambda: venv.step(np.zeros(4, np.int64))):
        with pytest.raises(RuntimeError, match="closed"):
            call()


class _DiesOnCall:
    """An opponent that raises on one call: in a worker process it is the worker's bug."""
    needs_observation = False
    label = "dies"

    def __init__(self, when):
        self.calls, self.when = 0, when

    def act(self, obs, mask):
        self.calls += 1
        if self.calls == self.when:
            raise ZeroDivisionError("opponent bug in a worker")
        return int(np.flatnonzero(mask)[0])


def test_a_dead_worker_gives_a_clear_error_and_reset_starts_it_again():
    """Before: a killed worker gave a bare BrokenPipeError on every later step, and a step
    after close() a KeyError."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.vector_workers import WorkerError, WorkerSelfPlayVecEnv
    venv = WorkerSelfPlayVecEnv(2, 2, opponents=[RandomAgent(0)], seed=7)
    try:
        first = venv.reset()
        acts = _first_legal(venv.action_masks())
        for bad, says in _bad_batches(acts[:3])[:3] + [(acts[:3], "shape")]:
            with pytest.raises(IllegalActionError, match="integer ids"):
                venv.step(bad)                      # checked here, before any worker moves
        illegal = acts.copy()
        illegal[3] = np.flatnonzero(~venv.action_masks()[3])[0]
        with pytest.raises(IllegalActionError, match="game 3: .*no game moved"):
            venv.step(illegal)
        assert (venv.reset() == first).all()        # nothing had moved
        venv.step_async(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="step_wait has not been called"):
            venv.step_async(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="a step is under way"):
            venv.set_opponents([RandomAgent(3)])
        assert (venv.reset() == first).all()        # the step's answers read, not mistaken
        venv.step(_first_legal(venv.action_masks()))
        venv._procs[1].kill()
        venv._procs[1].join()
        with pytest.raises(WorkerError, match=r"worker 1 \(games 2..3\) died, killed by SIGKILL"):
            venv.step(_first_legal(venv.action_masks()))
        for call in (lambda: venv.step(acts), venv.action_masks):
            with pytest.raises(RuntimeError, match="worker 1 .*died.*call reset"):
                call()
        assert (venv.reset() == first).all()        # the worker started again, same deals
        venv.step(_first_legal(venv.action_masks()))
        # an opponent failing inside a worker: named, the env broken until reset
        venv.set_opponents([_DiesOnCall(3)])
        with pytest.raises(WorkerError, match="worker 0 .*the opponent dies .*ZeroDivision"):
            venv.reset()                            # the new member plays every deal
            for _ in range(20):
                venv.step(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="worker .*opponent dies.*call reset"):
            venv.step(acts)
        venv.set_opponents([RandomAgent(1)])        # kept for the reset that mends it
        venv.reset()
        venv.step(_first_legal(venv.action_masks()))
    finally:
        venv.close()
    for call in (venv.reset, venv.action_masks, lambda: venv.step(acts),
                 lambda: venv.set_opponents([RandomAgent(0)])):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    venv.close()
