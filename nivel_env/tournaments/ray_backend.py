"""evaluate.py's games on a Ray cluster (``--ray [ADDRESS]``): the same tasks as the local
worker pool, sent as Ray tasks in batches.

Why it is built this way:

* Results are the local backend's, bit for bit: a task's games depend only on its seeds
  (``games``), batches are contiguous runs of tasks, and results come back in task
  order whatever node played them.
* Files a task names (your deck files, policy files) reach each worker once: their bytes go
  into Ray's object store once per run, every batch carries only references, and a worker
  writes a file to its own cache the first time it sees it and keeps the loaded deck or
  agent (``games.cached_deck`` / ``cached_agent``) for the batches after -- under the
  name the task uses, so nothing in a result says where it was played.  The run's own
  card files (``--cards``) travel the same way: ``run_tasks`` hands over the task function
  wrapped with them (``games.WithCardFiles``), and each node reads its copies.  Bundled decks,
  cards and policies come with nivel_env, which every node has installed.
* A worker or node that dies loses no results: its batch is submitted again (up to
  ``RETRIES`` times) and the run reports how many batches were retried.  An error raised
  by a game itself is not retried: it stops the run, as it would locally.
* No scheduler of our own: Ray places the batches; batches are sized for about eight per
  CPU so a slow node or a retry does not hold up the end of the run.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from nivel_env.install_hints import extra

INSTALL_HINT = f"--ray needs Ray: {extra('ray')}, then run again"
RETRIES = 3
BATCHES_PER_CPU = 8
#: a file over this is not shipped (the worker's loader says what is wrong with it): the
#: cap on a policy file (``agents.policy.MAX_FILE_BYTES``;
#: tests/tournaments_tests/test_tournaments_layer.py checks they agree)
MAX_SHIPPED_BYTES = 1 << 30


def _ray():
    try:
        import ray
    except ImportError:
        raise SystemExit(f"evaluate.py: {INSTALL_HINT}") from None
    return ray


def _files_named(tasks, card_files=()) -> dict:
    """Every existing file a task names *by a path* (a deck file, a policy file, the
    policy of a ``path.pt:settings`` spec) -> its bytes.  Only what the project's rule
    calls a path (``nivel_env.paths``: a separator or the kind's suffix) is shipped: a
    file in the working directory named like a bundled deck or opponent (``ember-rush``,
    ``nv2-ppo``) is not, so every node loads the bundled one, as a local run does."""
    from nivel_env.files import FileRefused, read_bytes

    from .specs import deck_file, player_file
    found: dict = {}

    def visit(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        elif isinstance(x, str) and x:
            cands = [c for c in (deck_file(x), player_file(x)) if c is not None]
            for cand in cands:
                if cand in found:
                    break
                try:                  # a regular file within a policy file's cap, read once
                    found[cand] = read_bytes(cand, MAX_SHIPPED_BYTES)
                    break
                except FileRefused:   # no such file, a folder (an --out), a FIFO: not sent;
                    pass              # the worker's loader says what is wrong with it
    visit(tasks)
    for name in card_files:             # validated by the driver: every node needs them
        if name not in found:
            found[name] = read_bytes(name, MAX_SHIPPED_BYTES, "card file")
    return found


def _localise(files: dict) -> None:
    """On a worker: write each shipped file into this node's cache (once) and point
    ``games`` at it, under the name the tasks use."""
    import tempfile

    import ray

    from . import games
    cache = Path(tempfile.gettempdir()) / "nivel-env-ray-files"
    for name, ref in files.items():
        if name in games.LOCAL_FILES:
            continue
        data = ray.get(ref)
        digest = hashlib.sha256(data).hexdigest()[:16]
        local = cache / digest / Path(name).name
        if not local.is_file():
            local.parent.mkdir(parents=True, exist_ok=True)
            tmp = local.with_suffix(local.suffix + f".{os.getpid()}.part")
            tmp.write_bytes(data)
            os.replace(tmp, local)                 # atomic: workers of one node share it
        games.LOCAL_FILES[name] = str(local)


def _run_batch(fn, batch, files):
    """One batch on a worker: ``fn`` over its tasks, in order."""
    from . import games
    from .runner import worker_init
    if not games.WORKER_READY:
        worker_init()
        games.WORKER_READY = True
    _localise(files)
    return [fn(t) for t in batch]


class RayPool:
    """``map(fn, tasks, chunksize)`` over a Ray cluster, results in task order (the
    interface ``runner.run_tasks`` uses for a pool: ``Runner(workers, RayPool(...))``);
    ``retried`` counts batches sent again after a worker or node died."""

    def __init__(self, address: str | None = None, workers: int | None = None):
        ray = _ray()
        self.started = not ray.is_initialized()
        if self.started:
            kw = dict(include_dashboard=False, log_to_driver=False,
                      configure_logging=False)
            if address:
                ray.init(address=address, **kw)
            else:                          # a new local instance for this run, on the loopback
                ray.init(address="local", num_cpus=workers or os.cpu_count() or 1,
                         _node_ip_address="127.0.0.1", **kw)
        self.address = address or "local"
        self.retried = 0
        self._remote = ray.remote(max_retries=0)(_run_batch)

    def cpus(self) -> int:
        return max(1, int(_ray().cluster_resources().get("CPU", 1)))

    def map(self, fn, tasks, chunksize: int = 1):
        ray = _ray()
        from ray import exceptions as rx
        lost = tuple(getattr(rx, n) for n in (
            "WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "OwnerDiedError",
            "ObjectLostError", "ObjectReconstructionFailedError") if hasattr(rx, n))
        tasks = list(tasks)
        size = max(1, -(-len(tasks) // (self.cpus() * BATCHES_PER_CPU)))
        batches = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        named = _files_named(tasks, getattr(fn, "card_files", ()))
        files = {name: ray.put(data) for name, data in named.items()}
        fn_ref = ray.put(fn)
        refs = [self._remote.remote(fn_ref, b, files) for b in batches]
        for i, b in enumerate(batches):
            for attempt in range(RETRIES + 1):
                try:
                    out = ray.get(refs[i])
                    break
                except lost:
                    if attempt == RETRIES:
                        raise
                    self.retried += 1
                    refs[i] = self._remote.remote(fn_ref, b, files)
            yield from out

    def report(self) -> dict:
        return {"backend": "ray", "address": self.address, "cpus": self.cpus(),
                "batches_retried": self.retried}

    def shutdown(self) -> None:
        if self.started:
            _ray().shutdown()
            self.started = False


__all__ = ["RayPool", "INSTALL_HINT"]
