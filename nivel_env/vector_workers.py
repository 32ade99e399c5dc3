"""Self-play games spread over worker processes, observations in shared memory.

``WorkerSelfPlayVecEnv(workers, games_per_worker, ...)`` is the SB3 ``VecEnv`` of
``SelfPlayVecEnv`` for a machine with more cores: each worker process holds one batch of
games and its own copies of the opponents, and steps them (engine, encoder, the
opponents' batched moves) in parallel with the others.  Observations, masks, actions,
rewards and done flags live in shared memory that the workers' ``GameBatch`` writes in
place; a pipe carries only a one-word command per step and the few infos of games that
ended (with their final observation).  Opponents reach a worker once each (``set_opponents`` sends only members the worker
has not seen); a policy that changes (the learner as an opponent) is sent again as a new
member.

Game ``j`` (worker ``j // games_per_worker``) deals what ``SelfPlayVecEnv`` and
``GameBatch`` deal for game ``j`` from the same seed; which opponent plays a deal is drawn
per worker.

    from agents import HeuristicAgent, RandomAgent
    from nivel_env.vector_workers import WorkerSelfPlayVecEnv

    if __name__ == "__main__":          # workers are spawned: they import this script
        venv = WorkerSelfPlayVecEnv(2, 32, opponents=[RandomAgent(0), HeuristicAgent(0)],
                                    seed=0)
        ...
        venv.close()
"""
from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from multiprocessing import shared_memory

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .engine import N_ACTIONS
from .env.encoder import OBS_SIZE, observation_box
from .vector_sb3 import SelfPlayVecEnv, WholeBatchMethods

#: shared arrays: name -> (dtype, per-game shape)
_ARRAYS = {"obs": (np.float32, (OBS_SIZE,)), "mask": (np.bool_, (N_ACTIONS,)),
           "actions": (np.int64, ()), "reward": (np.float32, ()), "done": (np.bool_, ()),
           "trunc": (np.bool_, ())}


def _views(buffers: dict, n: int, lo: int = 0, hi: int | None = None) -> dict:
    hi = n if hi is None else hi
    return {k: np.ndarray((n, *shape), dtype=dt, buffer=buffers[k].buf)[lo:hi]
            for k, (dt, shape) in _ARRAYS.items()}


def _worker(conn, names: dict, n_total: int, lo: int, hi: int, kwargs: dict) -> None:
    """One worker: a SelfPlayVecEnv over games lo..hi, answering commands on ``conn``."""
    try:
        import torch
        torch.set_num_threads(1)              # one core per worker
    except ImportError:
        pass
    shms = {k: shared_memory.SharedMemory(name=v) for k, v in names.items()}
    views = _views(shms, n_total, lo, hi)
    members: dict = {}
    env = None
    try:
        while True:
            cmd, arg = conn.recv()
            if cmd == "step":
                done, reward, trunc = env.advance(views["actions"])
                views["reward"][:] = reward
                views["done"][:] = done
                views["trunc"][:] = trunc
                conn.send(("ok", (env.end_infos(done, trunc), env.env_seconds,
                                  env.opponent_seconds)))
            elif cmd == "set_opponents":
                sent, keys, weights = arg
                members.update(sent)
                for k in set(members) - set(keys):
                    del members[k]
                agents = [members[k] for k in keys]
                if env is None:
                    env = SelfPlayVecEnv(hi - lo, opponents=agents, weights=weights,
                                         out=(views["obs"], views["mask"]), **kwargs)
                else:
                    env.set_opponents(agents, weights)
                conn.send(("ok", None))
            elif cmd == "reset":
                env.restart(arg)
                conn.send(("ok", None))
            elif cmd == "close":
                conn.send(("ok", None))
                return
            else:
                conn.send(("error", f"unknown command {cmd!r}"))
    except (EOFError, KeyboardInterrupt):
        return
    except Exception:                                  # noqa: BLE001 -- report, then stop
        try:
            conn.send(("error", traceback.format_exc()))
        except (BrokenPipeError, OSError):
            pass
    finally:
        env = views = None
        for s in shms.values():
            try:
                s.close()
            except BufferError:             # a view still held: the OS frees it at exit
                pass


class WorkerError(RuntimeError):
    """A worker process failed; the message carries its traceback."""


class WorkerSelfPlayVecEnv(WholeBatchMethods, VecEnv):
    """``workers`` processes of ``games_per_worker`` games each, as one SB3 VecEnv.

    Args:
        workers, games_per_worker: the layout (``num_envs`` is their product).
        opponents, weights: the pool, as for ``SelfPlayVecEnv`` (members must pickle).
        seed: game ``j`` deals from ``seed + j``; worker ``w`` draws opponents from
            ``seed + w * games_per_worker``.
        decks, deck_pool, config, card_db, seat: as for ``GameBatch``.
        start_method: multiprocessing start method (default ``spawn``: safe with torch).
    """

    def __init__(self, workers: int, games_per_worker: int, opponents=None, weights=None,
                 seed: int | None = None, decks=None, deck_pool=None, config=None,
                 card_db=None, seat="random", start_method: str = "spawn"):
        for name, v in (("workers", workers), ("games_per_worker", games_per_worker)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"WorkerSelfPlayVecEnv: {name} must be a positive whole "
                                 f"number, got {v!r}")
        if opponents is None:
            from agents import RandomAgent
            opponents = [RandomAgent(seed)]
        n = workers * games_per_worker
        self._shms = {}
        try:
            for k, (dt, shape) in _ARRAYS.items():
                size = max(1, n * int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize)
                self._shms[k] = shared_memory.SharedMemory(create=True, size=size)
        except OSError:
            self._release()
            raise
        self._arrays = _views(self._shms, n)
        self._seed = seed
        self._sent: list = [set() for _ in range(workers)]   # member keys each worker has
        self._keys: dict = {}                                # id(agent) -> key
        self._agents: dict = {}                              # key -> agent (kept alive)
        self._next_key = 0
        #: busy seconds in the games and in the opponents' moves, summed over workers;
        #: seconds this process waited on them in step_wait
        self.env_seconds = self.opponent_seconds = self.wait_seconds = 0.0
        self._times = [(0.0, 0.0)] * workers
        ctx = mp.get_context(start_method)
        names = {k: s.name for k, s in self._shms.items()}
        self._conns, self._procs = [], []
        self.closed = False
        for w in range(workers):
            lo, hi = w * games_per_worker, (w + 1) * games_per_worker
            kw = {"seed": None if seed is None else seed + lo, "decks": decks,
                  "deck_pool": deck_pool, "config": config, "card_db": card_db, "seat": seat}
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, names, n, lo, hi, kw), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self.render_mode = None
        super().__init__(n, observation_box(), spaces.Discrete(N_ACTIONS))
        try:
            self.set_opponents(opponents, weights)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ pool
    def set_opponents(self, opponents, weights=None) -> None:
        """As ``SelfPlayVecEnv.set_opponents``; each member is pickled to a worker once
        (pass a new object for a policy whose weights changed)."""
        opponents = list(opponents)
        SelfPlayVecEnv._check_weights(opponents, weights)     # fail here, not in a worker
        keys = []
        for m in opponents:
            if id(m) not in self._keys or self._agents.get(self._keys[id(m)]) is not m:
                self._keys[id(m)] = self._next_key
                self._agents[self._next_key] = m
                self._next_key += 1
            keys.append(self._keys[id(m)])
        for k in set(self._agents) - set(keys):
            self._keys.pop(id(self._agents.pop(k)), None)
        for w, conn in enumerate(self._conns):
            sent = {k: self._agents[k] for k in keys if k not in self._sent[w]}
            conn.send(("set_opponents", (sent, keys, weights)))
            self._sent[w] = set(keys)
        self._gather()

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        seed = self._seeds[0] if any(s is not None for s in self._seeds) else self._seed
        self._seeds = [None] * self.num_envs
        per = self.num_envs // len(self._conns)
        for w, conn in enumerate(self._conns):
            conn.send(("reset", None if seed is None else seed + w * per))
        self._gather()
        return self._arrays["obs"].copy()

    def step_async(self, actions) -> None:
        self._arrays["actions"][:] = np.asarray(actions).reshape(-1)
        for conn in self._conns:
            conn.send(("step", None))

    def step_wait(self):
        t = time.perf_counter()
        answers = self._gather()
        self.wait_seconds += time.perf_counter() - t
        a = self._arrays
        obs = a["obs"].copy()
        infos = [{} for _ in range(self.num_envs)]
        per = self.num_envs // len(self._conns)
        for w, (ended, env_s, opp_s) in enumerate(answers):
            self._times[w] = (env_s, opp_s)
            for i, info in ended.items():
                infos[w * per + i] = info
        # busy seconds summed over workers (they run side by side)
        self.env_seconds = sum(t[0] for t in self._times)
        self.opponent_seconds = sum(t[1] for t in self._times)
        return obs, a["reward"].copy(), a["done"].copy(), infos

    def _gather(self) -> list:
        out, errors = [], []
        for w, conn in enumerate(self._conns):
            try:
                status, value = conn.recv()
            except (EOFError, ConnectionResetError) as e:
                status, value = "error", f"worker {w} exited ({e!r})"
            if status != "ok":
                errors.append(f"worker {w}: {value}")
            out.append(value)
        if errors:
            raise WorkerError("\n".join(errors))
        return out

    def action_masks(self) -> np.ndarray:
        return self._arrays["mask"].copy()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
                conn.recv()
            except (BrokenPipeError, EOFError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
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



__all__ = ["WorkerSelfPlayVecEnv", "WorkerError"]
