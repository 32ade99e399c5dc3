"""Self-play games spread over worker processes, observations in shared memory.

``WorkerSelfPlayVecEnv(workers, games_per_worker, ...)`` is the SB3 ``VecEnv`` of
``SelfPlayVecEnv`` for a machine with more cores: each worker process holds one batch of
games and its own copies of the opponents, and steps them (engine, encoder, the
opponents' batched moves) in parallel with the others.  Observations, masks, actions,
rewards and done flags live in shared memory that the workers' ``GameBatch`` writes in
place; a pipe carries only a one-word command per step and the few infos of games that
ended (with their final observation).  Opponents reach a worker once each
(``set_opponents`` sends only members the worker has not seen); a policy that changes (the
learner as an opponent) is sent again as a new member.  A worker runs
``vector_selfplay.SelfPlayGames`` and imports neither Stable-Baselines3 nor torch unless an
opponent needs it, so it starts in about a second.

Game ``j`` (worker ``j // games_per_worker``) deals what ``SelfPlayVecEnv`` and
``GameBatch`` deal for game ``j`` from the same seed; which opponent plays a deal is drawn
per worker.

The learner's actions are checked here, whole, before any worker moves (integer ids, one
per game, each legal by the shared masks: ``vector.check_legal``, which names the player
from the shared ``actor`` array); the workers play them without checking again.  A
worker that fails -- an opponent raising in it, the process dying, or (with ``timeout``)
no answer in time, when it is stopped -- raises ``WorkerError`` naming the worker, its
games and what happened (a dead worker's exit code or signal).  The other workers' games
have moved by then, so the env is broken: every call but ``reset`` and ``close`` raises,
saying why, and ``reset()`` starts dead workers afresh, sends every worker the pool again
and deals every game anew.  Commands are pickled before any is sent, so a pool member
that cannot be pickled changes nothing.  ``close()`` never hangs: a worker that has not
stopped within its ``timeout`` is terminated.  After ``close()`` every call raises.

    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
    from nivel_env.players import RandomAgent, load

    if __name__ == "__main__":          # workers are spawned: they import this script
        venv = WorkerSelfPlayVecEnv(2, 32, seed=0,
                                    opponents=[RandomAgent(0), load("heuristic", seed=0)])
        ...
        venv.close()
"""
from __future__ import annotations

import math
import multiprocessing as mp
import time
from multiprocessing import shared_memory
from multiprocessing.connection import wait
from multiprocessing.reduction import ForkingPickler

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ..engine import N_ACTIONS
from ..players import RandomAgent, label_of
from .encoder import card_table
from .layout import layout_named
from .single import check_seat
from .vector import batch_actions, check_legal
from .vector_sb3 import WholeBatchMethods
from .vector_selfplay import check_weights, serve_worker, shared_arrays, shared_views


class WorkerError(RuntimeError):
    """A worker process failed: which worker and games, what happened (an error's
    traceback, or how the process ended); the env is broken until ``reset()``."""


class WorkerSelfPlayVecEnv(WholeBatchMethods, VecEnv):
    """``workers`` processes of ``games_per_worker`` games each, as one SB3 VecEnv.

    Args:
        workers, games_per_worker: the layout (``num_envs`` is their product).
        opponents, weights: the pool, as for ``SelfPlayVecEnv`` (members must pickle).
        seed: game ``j`` deals from ``seed + j``; worker ``w`` draws opponents from
            ``seed + w * games_per_worker``.
        decks, deck_pool, config, card_db, seat, obs: as for ``GameBatch``.
        start_method: multiprocessing start method (default ``spawn``: safe with torch).
        timeout: seconds ``step_wait``, ``reset`` and ``set_opponents`` wait for the
            workers' answers; a worker that has not answered by then is stopped and
            ``WorkerError`` raised (the env broken until ``reset()``, which starts it
            again).  A worker's first answer after it starts may take ``STARTUP`` seconds
            more (a spawned process imports numpy, the engine and perhaps torch first).
            None (the default) waits as long as a step takes.  ``close()`` never waits
            long, whatever this is.
    """

    #: seconds a started worker may take, beyond ``timeout``, to give its first answer
    STARTUP = 120.0

    def __init__(self, workers: int, games_per_worker: int, opponents=None, weights=None,
                 seed: int | None = None, decks=None, deck_pool=None, config=None,
                 card_db=None, seat="random", start_method: str = "spawn",
                 timeout: float | None = None, obs="full"):
        for name, v in (("workers", workers), ("games_per_worker", games_per_worker)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"WorkerSelfPlayVecEnv: {name} must be a positive whole "
                                 f"number, got {v!r}")
        seat = check_seat(seat, "WorkerSelfPlayVecEnv")       # here, not in every worker
        if timeout is not None and (isinstance(timeout, bool) or
                                    not isinstance(timeout, (int, float)) or
                                    not math.isfinite(timeout) or timeout <= 0):
            raise ValueError(f"WorkerSelfPlayVecEnv: timeout must be a positive number of "
                             f"seconds or None, got {timeout!r}"[:200])
        self.timeout = timeout
        if opponents is None:
            opponents = [RandomAgent(seed)]
        opponents = list(opponents)
        check_weights(opponents, weights, "WorkerSelfPlayVecEnv")
        self.layout = layout_named(obs)
        n = workers * games_per_worker
        self._shms = {}
        try:
            for k, (dt, shape) in shared_arrays(self.layout.size).items():
                size = max(1, n * int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize)
                self._shms[k] = shared_memory.SharedMemory(create=True, size=size)
        except OSError:
            self._release()
            raise
        self._arrays = shared_views(self._shms, n, obs_size=self.layout.size)
        self._seed = seed
        self._sent: list = [set() for _ in range(workers)]   # member keys each worker has
        self._keys: dict = {}                                # id(agent) -> key
        self._agents: dict = {}                              # key -> agent (kept alive)
        self._next_key = 0
        #: busy seconds in the games and in the opponents' moves, summed over workers;
        #: seconds this process waited on them in step_wait
        self.env_seconds = self.opponent_seconds = self.wait_seconds = 0.0
        self._times = [(0.0, 0.0)] * workers
        self._ctx = mp.get_context(start_method)
        self._per = games_per_worker
        self._kwargs = {"decks": decks, "deck_pool": deck_pool, "config": config,
                        "card_db": card_db, "seat": seat, "obs": self.layout.name}
        self._conns: list = [None] * workers
        self._procs: list = [None] * workers
        self._starting: set = set()            # workers started that have not answered yet
        self._pool = ([], None)                              # keys, weights of the pool
        self.closed = False
        #: why the env cannot step (a worker failed), until ``reset()``
        self.broken: str | None = None
        self._pending = False                                # step commands sent
        self.render_mode = None
        super().__init__(n, self.layout.box(), spaces.Discrete(N_ACTIONS))
        try:
            for w in range(workers):
                self._start(w)
            self.set_opponents(opponents, weights)
        except BaseException:
            self.close()
            raise

    def _start(self, w: int) -> None:
        """Start (or start again) worker ``w``; it holds no opponents yet."""
        lo, hi = w * self._per, (w + 1) * self._per
        kw = {"seed": None if self._seed is None else self._seed + lo, **self._kwargs}
        names = {k: s.name for k, s in self._shms.items()}
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=serve_worker, daemon=True,
                                 args=(child, names, self.num_envs, lo, hi, kw))
        proc.start()
        child.close()
        if self._conns[w] is not None:
            self._conns[w].close()
        self._conns[w], self._procs[w] = parent, proc
        self._sent[w] = set()
        self._starting.add(w)                  # its first answer may take STARTUP longer

    def _who(self, w: int) -> str:
        return f"worker {w} (games {w * self._per}..{(w + 1) * self._per - 1})"

    def _how_it_ended(self, w: int) -> str:
        proc = self._procs[w]
        proc.join(timeout=2)
        code = proc.exitcode
        if code is None:
            return "stopped answering (its pipe closed)"
        if code < 0:
            try:
                import signal
                return f"died, killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"died, killed by signal {-code}"
        return f"died, exit code {code}"

    def _usable(self, what: str) -> None:
        """Refuse a call on a closed or broken env, saying why."""
        if self.closed:
            raise RuntimeError(f"WorkerSelfPlayVecEnv.{what}: the env is closed")
        if self.broken is not None:
            raise RuntimeError(f"WorkerSelfPlayVecEnv.{what}: {self.broken}; call reset() "
                               f"(it starts dead workers again and deals every game anew)")

    def _stop(self, *ws: int) -> None:
        """End workers ``ws`` now (they do not answer): SIGTERM to all, a second for them
        to go, then SIGKILL to the rest (a stopped process ignores SIGTERM until it is
        continued): at most about 6 seconds however many there are."""
        procs = [self._procs[w] for w in ws]
        procs = [p for p in procs if p is not None and p.is_alive()]
        for proc in procs:
            proc.terminate()
        for limit in (1.0, 5.0):
            end = time.monotonic() + limit
            for proc in procs:
                proc.join(timeout=max(0.0, end - time.monotonic()))
            procs = [p for p in procs if p.is_alive()]
            for proc in procs:
                proc.kill()

    def _fail(self, errors: list, moved: bool = True) -> None:
        self.broken = "a worker failed: " + "; ".join(e.splitlines()[0] for e in errors)
        raise WorkerError("\n".join(errors) + (
            "\nThe other workers' games may have moved: the env is broken until reset()."
            if moved else "\nNo game moved, but that worker's games are lost: the env is "
                          "broken until reset()."))

    # ------------------------------------------------------------------ pool
    def set_opponents(self, opponents, weights=None) -> None:
        """As ``SelfPlayVecEnv.set_opponents``; each member is pickled to a worker once
        (pass a new object for a policy whose weights changed).  Every message is pickled
        before anything is sent or recorded: a member that cannot be pickled raises
        ``TypeError`` naming it, and the pool is left as it was.  On a broken env the pool
        is kept for the ``reset()`` that mends it."""
        where = "WorkerSelfPlayVecEnv.set_opponents"
        if self.closed:
            raise RuntimeError(f"{where}: the env is closed")
        if self._pending:
            raise RuntimeError(f"{where}: a step is under way; call step_wait() first")
        opponents = list(opponents)
        check_weights(opponents, weights, where)        # fail here, not in a worker
        keys_of, agents, next_key = dict(self._keys), dict(self._agents), self._next_key
        keys = []
        for m in opponents:
            if id(m) not in keys_of or agents.get(keys_of[id(m)]) is not m:
                keys_of[id(m)] = next_key
                agents[next_key] = m
                next_key += 1
            keys.append(keys_of[id(m)])
        for k in set(agents) - set(keys):
            keys_of.pop(id(agents.pop(k)), None)
        payloads = self._pool_messages(keys, weights, agents, where)
        # pickled: only now does the bookkeeping move, so it never runs ahead of the workers
        self._keys, self._agents, self._next_key = keys_of, agents, next_key
        self._pool = (keys, weights)
        if self.broken is None:
            self._send(payloads)
            for w in range(len(self._conns)):
                self._sent[w] = set(keys)
            self._gather()

    def _pool_messages(self, keys, weights, agents, where: str) -> list:
        """Each worker's ``set_opponents`` command (the members it has not seen), pickled;
        ``TypeError`` naming a member that cannot be."""
        try:
            return self._pickle([("set_opponents",
                                  ({k: agents[k] for k in keys if k not in self._sent[w]},
                                   keys, weights)) for w in range(len(self._conns))])
        except Exception as e:                             # noqa: BLE001 -- name the member
            culprit = "a member"
            for k in keys:
                try:
                    ForkingPickler.dumps(agents[k])
                except Exception:                          # noqa: BLE001
                    culprit = f"the opponent {label_of(agents[k])}"
                    break
            raise TypeError(f"{where}: {culprit} cannot be pickled to the workers "
                            f"({type(e).__name__}: {e}); the pool is unchanged"[:500]) from e

    @staticmethod
    def _pickle(messages: list) -> list:
        return [ForkingPickler.dumps(m) for m in messages]

    def _send_pool(self) -> None:
        keys, weights = self._pool
        self._send(self._pool_messages(keys, weights, self._agents, "WorkerSelfPlayVecEnv"))
        for w in range(len(self._conns)):
            self._sent[w] = set(keys)
        self._gather()

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        """Deal every game anew.  Dead workers are started again first; after a failure
        every worker is sent the pool again (what it held may be out of step)."""
        if self.closed:
            raise RuntimeError("WorkerSelfPlayVecEnv.reset: the env is closed")
        seed = self._seeds[0] if any(s is not None for s in self._seeds) else self._seed
        self._seeds = [None] * self.num_envs
        if self._pending:                     # a step sent and never waited for: its answers
            self._pending = False
            if self._gather(raise_=False):
                self.broken = "a step failed"
        mend = self.broken is not None or not all(p.is_alive() for p in self._procs)
        if mend:
            self.broken = "reset() failed part-way"
            for w, proc in enumerate(self._procs):
                if not proc.is_alive():
                    self._start(w)
                self._sent[w] = set()
            self._send_pool()
        per = self._per
        self._send(self._pickle([("reset", None if seed is None else seed + w * per)
                                 for w in range(len(self._conns))]))
        self._gather()
        self.broken = None
        return self._arrays["obs"].copy()

    def step_async(self, actions) -> None:
        self._usable("step")
        if self._pending:
            raise RuntimeError("WorkerSelfPlayVecEnv.step_async: the last step's step_wait "
                               "has not been called")
        where, a = "WorkerSelfPlayVecEnv.step", self._arrays
        acts = batch_actions(actions, self.num_envs, where)
        check_legal(where, acts, a["mask"], a["actor"])   # the workers play them unchecked
        a["actions"][:] = acts
        self._send([_STEP] * len(self._conns))
        self._pending = True

    def step_wait(self):
        self._usable("step")
        if not self._pending:
            raise RuntimeError("WorkerSelfPlayVecEnv.step_wait: no step_async before it")
        self._pending = False
        t = time.perf_counter()
        answers = self._gather()
        self.wait_seconds += time.perf_counter() - t
        a = self._arrays
        obs = a["obs"].copy()
        infos = [{} for _ in range(self.num_envs)]
        per = self._per
        for w, (ended, env_s, opp_s) in enumerate(answers):
            self._times[w] = (env_s, opp_s)
            for i, info in ended.items():
                infos[w * per + i] = info
        # busy seconds summed over workers (they run side by side)
        self.env_seconds = sum(t[0] for t in self._times)
        self.opponent_seconds = sum(t[1] for t in self._times)
        return obs, a["reward"].copy(), a["done"].copy(), infos

    def _send(self, payloads: list) -> None:
        """One pickled command (``_pickle``) to each worker, none sent unless every worker
        is alive; a worker that dies while they go out is reported once the others have
        answered."""
        dead = [w for w, p in enumerate(self._procs) if not p.is_alive()]
        if dead:
            self._fail([f"{self._who(w)} {self._how_it_ended(w)}" for w in dead], moved=False)
        errors, sent = [], []
        for w, payload in enumerate(payloads):
            try:
                self._conns[w].send_bytes(payload)
                sent.append(w)
            except (BrokenPipeError, ConnectionResetError, EOFError, OSError) as e:
                errors.append(f"{self._who(w)} {self._how_it_ended(w)} "
                              f"({type(e).__name__} sending a command)")
        if errors:
            errors += self._gather(sent, raise_=False)
            self._fail(errors)

    def _gather(self, which=None, raise_: bool = True):
        """Every worker's answer (the ``which`` workers'); a failure breaks the env.  With
        a ``timeout``, a worker that has not answered when it runs out is stopped."""
        out, errors = [], []
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        for w in range(len(self._conns)) if which is None else which:
            conn = self._conns[w]
            try:
                limit = None
                if deadline is not None:
                    limit = deadline + (self.STARTUP if w in self._starting else 0.0)
                if limit is not None and not conn.poll(max(0.0, limit - time.monotonic())):
                    self._stop(w)
                    status, value = "died", (f"did not answer within {self.timeout} s "
                                             f"(timeout) and was stopped")
                else:
                    status, value = conn.recv()
                    self._starting.discard(w)
            except (EOFError, ConnectionResetError, OSError) as e:
                status, value = "died", f"{self._how_it_ended(w)} ({type(e).__name__})"
            if status == "error":
                message, trace = value
                errors.append(f"{self._who(w)}: {message}\n{trace}")
            elif status != "ok":
                errors.append(f"{self._who(w)} {value}")
            out.append(value)
        if not raise_:
            return errors
        if errors:
            self._fail(errors)
        return out

    def action_masks(self) -> np.ndarray:
        self._usable("action_masks")
        return self._arrays["mask"].copy()

    def card_table(self) -> np.ndarray:
        """The pool's card table, which a compact observation's indices point into
        (``encoder.card_table``)."""
        from .setup import DeckChoice
        k = self._kwargs
        return card_table(DeckChoice(k["decks"], k["deck_pool"], k["card_db"],
                                     "WorkerSelfPlayVecEnv").card_db)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the workers and free the shared memory; later calls raise, closing twice
        is harmless.  Each worker is asked to stop (after the step it may be in the middle
        of, whose answer is dropped); those that have not ended within ``timeout`` seconds
        -- stuck in an opponent, or stopped -- are terminated, then killed, so close returns
        within about ``timeout`` + 7 seconds whatever the workers do."""
        if self.closed:
            return
        self.closed = True
        self._pending = False
        live = [w for w, p in enumerate(self._procs) if p is not None and p.is_alive()]
        for w in live:
            try:
                self._conns[w].send_bytes(_CLOSE)
            except (BrokenPipeError, EOFError, OSError):
                pass
        deadline = time.monotonic() + timeout
        reading = set(live)                    # pipes that may still bring an answer
        while live:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            conns = {self._conns[w]: w for w in live if w in reading}
            for c in wait(list(conns) + [self._procs[w].sentinel for w in live], timeout=left):
                if c in conns:                 # answers still coming: read them so that a
                    try:                       # worker blocked writing one can go on
                        c.recv_bytes()
                    except (EOFError, OSError):
                        reading.discard(conns[c])
            live = [w for w in live if self._procs[w].is_alive()]
        self._stop(*live)
        for w, proc in enumerate(self._procs):
            if proc is not None:
                proc.join(timeout=1)
            if self._conns[w] is not None:
                self._conns[w].close()
        self._release()

    def _release(self) -> None:
        self._arrays = {}
        for s in self._shms.values():
            try:
                s.close()
            except BufferError:              # a caller still holds a view of it
                pass
            try:
                s.unlink()
            except FileNotFoundError:
                pass
        self._shms = {}

    def __del__(self):
        try:
            self.close()
        except Exception:                                  # noqa: BLE001 -- at exit
            pass



_STEP = ForkingPickler.dumps(("step", None))
_CLOSE = ForkingPickler.dumps(("close", None))

__all__ = ["WorkerSelfPlayVecEnv", "WorkerError"]
