"""Where a tournament's games run, passed down explicitly: ``Runner(workers)`` plays them
in that many local worker processes, ``Runner(workers, cluster)`` on a Ray cluster
(``ray_backend.RayPool``).  evaluate.py builds one from ``--workers`` and ``--ray`` and
hands it to the command; nothing is set on a module, so two runs in one process (a test,
a benchmark timing local against Ray) cannot leak a backend into each other.

``run_tasks`` maps tasks over the runner in order; results depend only on the tasks'
seeds, never on where they ran."""
from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass


@dataclass(frozen=True)
class Runner:
    """``workers`` local processes (1: this process), or ``cluster``, any pool with
    ``map(fn, tasks, chunksize)`` in task order and ``report()`` (a ``RayPool``)."""
    workers: int = 1
    cluster: object | None = None

    def info(self) -> dict:
        """Where the games ran, for reports (Ray: the cluster and how many batches were
        retried after a worker died)."""
        if self.cluster is not None:
            return self.cluster.report()
        return {"backend": "local", "workers": self.workers}

    def pool(self):
        """A pool to reuse across batches of ``run_tasks`` (starting worker processes
        takes seconds), or None where each batch plays in this process; shut it down
        after the last batch (the cluster's own shutdown is its owner's)."""
        if self.cluster is not None:
            return _Shared(self.cluster)
        if self.workers <= 1:
            return None
        return local_pool(self.workers)


class _Shared:
    """The cluster handed to a command as its pool: the command's ``shutdown`` leaves it
    running for the command's next step (its owner, evaluate.py, shuts it down)."""

    def __init__(self, pool):
        self.pool = pool

    def map(self, fn, tasks, chunksize: int = 1):
        return self.pool.map(fn, tasks, chunksize)

    def shutdown(self) -> None:
        pass


def worker_init():
    """One thread per worker process: the workers already use every core."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass


def local_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` worker processes on this machine."""
    # not fork: a parent that loaded torch (a policy file) can deadlock forked children
    ctx = multiprocessing.get_context("forkserver")
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=worker_init)


def _threads(n: int | None) -> int | None:
    """Set torch's thread count (when torch is loaded); returns the previous one."""
    torch = sys.modules.get("torch")
    if torch is None or n is None:
        return None
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    return old


def run_tasks(tasks, runner: Runner, desc: str, progress: bool, pool=None, fn=None,
              size=None, on_result=None):
    """``fn`` (default ``games.play_pair``) over ``tasks`` on ``runner`` (or on ``pool``,
    one ``Runner.pool()`` gave), in order; the bar counts seeds (``size(task)`` of them
    a task).  ``on_result(task, result)`` is called as each result arrives, in task order
    (a deck run writes its raw results as it goes)."""
    from tqdm import tqdm

    from .games import carry_card_files, play_pair
    if not isinstance(runner, Runner):
        raise TypeError(f"run_tasks: runner must be a Runner (Runner(workers) or "
                        f"Runner(workers, cluster)), got {type(runner).__name__}")
    fn = fn or play_pair
    size = size or (lambda t: 1)
    results = []

    def got(t, r):
        results.append(r)
        if on_result is not None:
            on_result(t, r)
        bar.update(size(t))
    bar = tqdm(total=sum(size(t) for t in tasks), desc=desc, unit="seed", disable=not progress)
    chunk = 1 if fn is not play_pair else max(1, len(tasks) // (runner.workers * 8))
    if pool is None and runner.cluster is not None:
        pool = runner.cluster
    if pool is not None:                # the run's --cards travel with each task
        for t, r in zip(tasks, pool.map(carry_card_files(fn), tasks, chunksize=chunk)):
            got(t, r)
    elif runner.workers <= 1:
        threads = _threads(1)         # one-position forwards: more threads only wait
        try:
            for t in tasks:
                got(t, fn(t))
        finally:
            _threads(threads)
    else:
        with local_pool(runner.workers) as ex:
            for t, r in zip(tasks, ex.map(carry_card_files(fn), tasks, chunksize=chunk)):
                got(t, r)
    bar.close()
    return results


__all__ = ["Runner", "local_pool", "run_tasks", "worker_init"]
