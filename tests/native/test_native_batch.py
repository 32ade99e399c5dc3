"""The native GameBatch's own parts: observations written through its per-game row caches
and split over its helper threads stay the Python GameBatch's bytes (both layouts, final
views included, across deals, selections and a rolled-back block), and its C++ random
player draws legal, seeded actions."""
import os
import signal
import time

import numpy as np
import pytest

pytest.importorskip("nivel_env.native._core")

from nivel_env.env.vector import GameBatch  # noqa: E402


def same(py, nb, where: str) -> None:
    for name in ("obs", "mask", "actor", "learner_seat", "done", "truncated", "reward",
                 "episodes"):
        a, b = getattr(py, name), getattr(nb, name)
        if not np.array_equal(a, b):
            bad = np.argwhere(a != b)[:5].tolist()
            raise AssertionError(f"{where}: {name} differs at {bad}")
    ended = py.done
    assert np.array_equal(py.final_obs[ended], nb.final_obs[ended]), f"{where}: final_obs"
    assert py.last_returns == nb.last_returns, where


@pytest.mark.parametrize("obs", ["full", "compact"])
def test_native_batch_writes_the_python_batch_bytes(obs):
    n = 40                                    # five chunks of eight: the step is split
    py = GameBatch(n, obs=obs, backend="python")
    nb = GameBatch(n, obs=obs, backend="native", threads=2)
    py.reset(seed=7)
    nb.reset(seed=7)
    rng = np.random.default_rng(1)
    same(py, nb, "after reset")
    ends = 0
    for step in range(260):
        acts = np.argmax(py.mask * rng.random(py.mask.shape), axis=1)
        which = None if step % 5 else rng.random(n) < 0.5
        py.step(acts, which)
        nb.step(acts, which)
        same(py, nb, f"step {step}")
        ends += int(py.done.sum())
    assert ends > 0                           # deals after ends went through the caches


def test_a_rolled_back_block_and_a_written_obs_are_rewritten_whole():
    n = 16
    py = GameBatch(n, obs="full", backend="python")
    nb = GameBatch(n, obs="full", backend="native")
    py.reset(seed=3)
    nb.reset(seed=3)
    rng = np.random.default_rng(2)

    def step():
        acts = np.argmax(py.mask * rng.random(py.mask.shape), axis=1)
        py.step(acts)
        nb.step(acts)

    for _ in range(20):
        step()
    for b in (py, nb):                        # steps that stand, then are taken back
        with pytest.raises(KeyError):
            with b.all_or_nothing():
                for _ in range(6):
                    b.step(np.argmax(b.mask * np.random.default_rng(9).random(b.mask.shape),
                                     axis=1))
                raise KeyError("roll back")
    same(py, nb, "after the roll-back")
    for _ in range(10):
        step()
        same(py, nb, "stepping after the roll-back")
    nb.obs[:] = -1.0                          # someone wrote into obs: told, it heals
    nb.forget_rows()
    step()
    same(py, nb, "after forget_rows")


def test_random_actions_are_legal_and_follow_the_reset_seed():
    def play(seed):
        b = GameBatch(12, obs="compact", backend="native")
        b.reset(seed=seed)
        seen = []
        for _ in range(150):
            a = b.random_actions()
            assert a.dtype == np.int64 and a.shape == (12,)
            assert b.mask[np.arange(12), a].all()
            seen.append(a.copy())
            b.step(a)
        return np.array(seen), b.episodes.sum()
    first, ended = play(4)
    again, _ = play(4)
    other, _ = play(5)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert ended > 0
    b = GameBatch(3, backend="native")
    b.reset(seed=1)
    out = np.zeros(3, np.int64)
    assert b.random_actions(out) is out
    with pytest.raises(ValueError, match="random_actions out"):
        b.random_actions(np.zeros(3, np.int32))


def test_a_step_checked_in_the_core_refuses_a_bad_action_and_moves_nothing():
    from nivel_env.engine.errors import IllegalActionError
    b = GameBatch(6, obs="compact", backend="native")
    b.reset(seed=2)
    before = b.obs.copy(), b.mask.copy()
    acts = b.random_actions()
    bad = acts.copy()
    bad[4] = np.flatnonzero(~b.mask[4])[0]             # not legal in game 4
    with pytest.raises(IllegalActionError, match="game 4"):
        b.step(bad)
    bad[4] = 999                                      # not an action id at all
    with pytest.raises(IllegalActionError, match="game 4"):
        b.step(bad)
    assert (b.obs == before[0]).all() and (b.mask == before[1]).all() and b.broken is None
    b.step(acts)                                      # the checked fast path moves them all
    assert not (b.obs == before[0]).all()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_steps_and_drops_a_threaded_batch():
    """The helper threads do not cross a fork: a child (a multiprocessing worker) steps the
    batch on threads of its own and frees it without waiting on its parent's."""
    b = GameBatch(64, obs="compact", backend="native", threads=2)
    b.reset(seed=1)
    for _ in range(3):
        b.step(b.random_actions())
    pid = os.fork()
    if pid == 0:                                        # the child
        code = 1
        try:
            for _ in range(5):
                b.step(b.random_actions())
            b._native = None                            # the batch freed here, in the child
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError("the forked child hung stepping or freeing the batch")
        time.sleep(0.05)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    b.step(b.random_actions())                          # the parent's threads still serve
