"""``GameBatch`` on the native core: the same deals, arrays and checks, stepped in C++.

``NativeGameBatch`` keeps ``GameBatch``'s public face (``obs``, ``mask``, ``actor``,
``learner_seat``, ``done``, ``truncated``, ``reward``, ``final_obs``, ``episodes``,
``last_returns``, ``reset``, ``step``, ``all_or_nothing``) and its deals: game ``i`` of a
batch reset with seed ``s`` plays what the Python batch's game ``i`` plays.  A step is
checked whole in Python first (``batch_actions``, ``check_legal``: the batched envs' one
legality check, and its messages); then the core applies the moves, deals finished games
anew and writes masks and observations with the GIL released, split over ``threads``
(at most: a step is split only while splitting has been the faster way lately -- on a
machine whose other cores are busy a helper thread can cost more than it brings).

``games[i]`` is a snapshot of game ``i`` (a ``NativeGame`` copy, for reading).

``obs`` is also the batch's record of what it wrote: as the Python encoder keeps its own
array's card rows, the core rewrites a game's card rows, known-hand rows and zone sums
(the full layout's bulk) only when they change.  Read ``obs`` (or copy it) but do not
write into it; after writing into it, ``forget_rows()`` makes the next step write every
row again.

``random_actions()`` is a uniform random player in C++ on the batch's own generator.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..engine import N_ACTIONS
from ..env.setup import SeedStream, check_seed
from ..env.vector import GameBatch, batch_actions, check_legal
from .game import NativeGame, config_tuple
from .program import load_program


_SAMPLER = 0x5A3B1E  # random_actions' stream: seed ^ this, apart from the deal streams


class NativeGameBatch(GameBatch):
    """``GameBatch`` (same arguments) on the native core; ``threads`` splits each step."""

    def __init__(self, n: int, decks=None, deck_pool=None, config=None, card_db=None,
                 seat="random", out=None, obs="full", backend=None, threads: int = 1):
        super().__init__(n, decks, deck_pool, config, card_db, seat, out, obs)
        from . import core
        _core = core()
        db = self._decks.card_db
        self._prog = load_program(db, _core)
        pairs = self._decks.fixed or self._decks.pool
        specs = [(d.leader.index, [c.index for c in d.cards]) for d in pairs]
        self._native = _core.Batch(self._prog, config_tuple(self.config), specs,
                                   self._decks.fixed is not None,
                                   -1 if self.seat_option == "random" else self.seat_option,
                                   n, threads)
        self._last = np.zeros((n, 2), dtype=np.int8)
        self._has_last = np.zeros(n, dtype=bool)
        self._native.bind(self.mask, self.actor, self.learner_seat, self.done, self.truncated,
                          self.reward, self.episodes, self._last, self._has_last)
        from .encoder import native_spec
        self._encoder = _core.Encoder(native_spec(self.encoders[0]))
        self._native.attach_encoder(self._encoder, self.obs, self.final_obs)

    backend = "native"

    @property
    def threads(self) -> int:
        return self._native.threads

    @threads.setter
    def threads(self, t: int) -> None:
        self._native.threads = int(t)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            seed = check_seed(seed, "GameBatch.reset")
            streams = [SeedStream(seed + i) for i in range(self.n)]
            seats = [SeedStream((seed + i) ^ 0x5EA7) for i in range(self.n)]
        else:
            streams = [SeedStream() for _ in range(self.n)]
            seats = [SeedStream() for _ in range(self.n)]
        self.done[:] = False
        self.truncated[:] = False
        self.reward[:] = 0
        self._has_last[:] = False
        self.broken = "reset() failed part-way"
        self._native.reset([s.state for s in streams], [s.state for s in seats])
        self._native.sampler_state = SeedStream(None if seed is None else seed ^ _SAMPLER).state
        self.broken = None

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (int64, shape ``(n,)``, into
        ``out`` when given), drawn in C++ from the batch's own SplitMix64 stream: seeded by
        ``reset(seed)`` (the same seed, the same random games), from the OS otherwise.
        Pass it to ``step``: a random player for baselines and benchmarks that costs a
        few nanoseconds a game."""
        if out is None:
            out = np.empty(self.n, dtype=np.int64)
        return self._native.random_actions(out)

    def forget_rows(self) -> None:
        """Make the next step write every cached row of ``obs`` again (after something
        other than the batch wrote into ``obs``)."""
        self._native.forget_rows()

    def _game(self, i: int) -> NativeGame:
        return NativeGame(self.card_db, self.config, self._native.game(i))

    @property
    def games(self) -> list:
        return [self._game(i) for i in range(self.n)]

    @games.setter
    def games(self, value) -> None:              # GameBatch.__init__ sets it
        pass

    @property
    def legal(self) -> list:
        return [np.flatnonzero(self.mask[i]).tolist() for i in range(self.n)]

    @legal.setter
    def legal(self, value) -> None:
        pass

    @property
    def last_returns(self) -> list:
        return [tuple(int(x) for x in self._last[i]) if self._has_last[i] else None
                for i in range(self.n)]

    @last_returns.setter
    def last_returns(self, value) -> None:
        pass

    def step(self, actions, which=None) -> None:
        if self.broken is not None:
            raise RuntimeError(f"GameBatch.step: {self.broken}; call reset()")
        if (which is None and type(actions) is np.ndarray and actions.dtype == np.int64
                and actions.shape == (self.n,) and actions.flags.c_contiguous):
            # the common case, checked in the core in one pass: a move of every game, each
            # legal (else nothing moved, and the checks below say what is wrong)
            err = self._native.try_step(actions)
            if err is not False:
                self._failed(err)
                return
        rows = self._rows(which, "GameBatch.step")
        acts = batch_actions(actions, self.n, "GameBatch.step", rows)
        check_legal("GameBatch.step", acts, self.mask, self.actor, rows)
        self._apply(acts, rows)

    def _apply(self, acts: np.ndarray, rows) -> None:
        if self.broken is not None:
            raise RuntimeError(f"GameBatch.step: {self.broken}; call reset()")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        self._failed(self._native.step(acts, None if rows is None else rows.tolist()))

    def _failed(self, err: str) -> None:
        if err:
            self.broken = f"{err} (the core refused it part-way through a step)"
            raise RuntimeError(f"GameBatch.step: {self.broken}")

    @contextmanager
    def all_or_nothing(self):
        """As ``GameBatch.all_or_nothing``: a failure inside puts every game back."""
        if self._journal is not None:
            raise RuntimeError("GameBatch.all_or_nothing: already inside one")
        arrays = [a.copy() for a in (self.obs, self.mask, self.actor, self.learner_seat,
                                     self.episodes, self._last, self._has_last,
                                     self.final_obs)]
        self._native.save()
        self._journal = {"native": True}
        try:
            yield
        except BaseException:
            self._journal = None
            self._native.restore()
            for dst, src in zip((self.obs, self.mask, self.actor, self.learner_seat,
                                 self.episodes, self._last, self._has_last,
                                 self.final_obs), arrays):
                dst[...] = src
            self.done[:] = False
            self.truncated[:] = False
            self.reward[:] = 0
            self.broken = None
            raise
        finally:
            self._journal = None
            self._native.drop_saved()


__all__ = ["NativeGameBatch", "N_ACTIONS"]
