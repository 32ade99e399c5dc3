"""The learner against an opponent pool over a ``GameBatch``, without Stable-Baselines3.

``SelfPlayGames`` is what ``vector_sb3.SelfPlayVecEnv`` (the SB3 ``VecEnv`` in one process)
and each worker process of ``vector_workers.WorkerSelfPlayVecEnv`` run: every game has one
learner seat; the other seat is played by a member of ``opponents`` (drawn per deal with
``weights``).  ``advance`` applies the learner's moves, then answers every game waiting on
an opponent with one batched call per member (``nivel_env.players.ask_batch``: the
member's ``act_batch(observations, masks)`` when it has one -- a policy: one forward for
all its games --, else its ``act`` row by row, or a search's ``act_state`` per game) until
every game waits on the learner again.  It lives apart from the SB3 classes so that
a worker process starts without importing Stable-Baselines3 and torch (unless an opponent
needs torch).

A step moves every game or none.  The learner's actions are checked whole first, and
only there (integer ids, one per game, each legal: ``vector.check_legal``, whose
``IllegalActionError`` names the game, the player and the action); each opponent's
answers are checked the same way as they come.  The step then runs inside
``GameBatch.all_or_nothing``: if an opponent raises or answers with a move that is not
legal (``OpponentError``, naming the opponent and the games) -- or anything else fails --
every game, deal stream and opponent draw is put back where it was before the step, so
the same observations and masks stand and the step may be taken again (after
``set_opponents`` if that member keeps failing).  The opponents' own state (a random
agent's generator) is theirs and is not rewound.  Only a ``restart`` that fails (an
opponent's opening move) leaves the games broken: every step then raises, saying why,
until a restart succeeds.
"""
from __future__ import annotations

import sys
import time
import traceback
from multiprocessing import shared_memory

import numpy as np

from ..engine import N_ACTIONS
from ..players import (RandomAgent, ask_batch, label_of, observation_layout, reads_game,
                       reads_layout, use_card_pool)
from .encoder import make_encoder
from .single import OpponentError, check_seat
from .vector import GameBatch, batch_actions, check_legal


def check_weights(opponents, weights, where: str) -> np.ndarray:
    """``weights`` (default equal) as probabilities, one per member; a ``ValueError``
    names ``where`` (the caller's class and method) otherwise."""
    try:
        w = np.ones(len(opponents)) if weights is None else np.asarray(weights, float)
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (len(opponents),) or not np.isfinite(w).all() \
            or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"{where}: weights must be {len(opponents)} non-negative numbers, "
                         f"not all 0, got {weights!r}"[:300])
    return w / w.sum()


class SelfPlayGames:
    """N games, the learner's seat in each, the other seat played by ``opponents``.

    Args:
        n: games.
        opponents: agents (``act`` or ``act_batch``); default: one uniform random agent.
        weights: how often each member is drawn per deal (default: equal).
        seed: seeds the deals and the member draws; ``restart(None)`` keeps the draws'.
        decks, deck_pool, config, card_db, seat, out, obs: as for ``GameBatch``.

    An opponent that reads another observation layout than the games' (the heuristic
    reads the full one; a compact policy the compact one: ``players.observation_layout``)
    is shown its own, encoded for the games it is asked about; a compact reader is given
    the pool's cards (``players.use_card_pool``).
    """

    def __init__(self, n: int, opponents=None, weights=None, seed: int | None = None,
                 decks=None, deck_pool=None, config=None, card_db=None, seat="random",
                 out=None, obs="full"):
        seat = check_seat(seat, type(self).__name__)
        if opponents is None:
            opponents = [RandomAgent(seed)]
        self.opponents = list(opponents)
        if not self.opponents:
            raise ValueError(f"{type(self).__name__}: give at least one opponent")
        self.weights = check_weights(self.opponents, weights, type(self).__name__)
        self.env_seconds = 0.0
        self.opponent_seconds = 0.0
        self.batch = GameBatch(n, decks=decks, deck_pool=deck_pool, config=config,
                               card_db=card_db, seat=seat, out=out, obs=obs)
        self._other: dict = {}         # layout name -> per-game encoders, for opponents
        for m in self.opponents:
            use_card_pool(m, self.batch.card_db)
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self.member = np.zeros(n, dtype=np.int64)
        self._ended_with: list = [None] * n
        self._acts = np.zeros(n, dtype=np.int64)           # the opponents' moves
        #: why no step can be taken (a restart failed), until a restart succeeds
        self.broken: str | None = "reset() not called yet"
        self.closed = False

    def set_opponents(self, opponents, weights=None) -> None:
        """Draw later deals' opponents from ``opponents`` (with ``weights``).  A game under
        way keeps the member it was dealt, even one no longer in the pool, until it ends."""
        new = list(opponents)
        w = check_weights(new, weights, f"{type(self).__name__}.set_opponents")
        live = {int(k) for k in self.member}
        retiring = [self.opponents[k] for k in sorted(live)
                    if not any(self.opponents[k] is m for m in new)]
        merged = new + retiring
        for m in new:
            use_card_pool(m, self.batch.card_db)
        where = {id(m): j for j, m in enumerate(merged)}
        self.member[:] = [where[id(self.opponents[k])] for k in self.member]
        self.opponents = merged
        self.weights = np.concatenate([w, np.zeros(len(retiring))])

    def _usable(self, what: str) -> None:
        """Refuse a call on closed or broken games, saying why."""
        if self.closed:
            raise RuntimeError(f"{type(self).__name__}.{what}: the env is closed")
        if self.broken is not None:
            raise RuntimeError(f"{type(self).__name__}.{what}: {self.broken}; call reset()")

    def restart(self, seed) -> None:
        """Deal every game anew from ``seed`` and play the opponents' opening moves.  If
        that fails the games are broken (every step raises) until a restart succeeds."""
        if self.closed:
            raise RuntimeError(f"{type(self).__name__}.reset: the env is closed")
        self.broken = "reset() failed part-way"
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.batch.n
        t = time.perf_counter()
        self.batch.reset(seed=seed)
        self.env_seconds += time.perf_counter() - t
        self.member[:] = self._draw(n)
        for m in self.opponents:
            if hasattr(m, "reset"):
                m.reset()
        done, reward = np.zeros(n, bool), np.zeros(n, np.float32)
        try:
            self._play_opponents(done, reward)
        except OpponentError as e:
            self.broken = f"reset() failed: {e}"
            raise
        self.broken = None

    def check_actions(self, actions, where: str) -> np.ndarray:
        """The learner's actions as int64 ids, one per game, each legal in its game (every
        game waits on the learner between steps); ``IllegalActionError`` otherwise, naming
        the game, the player and the action, before anything moves."""
        b = self.batch
        acts = batch_actions(actions, b.n, where)
        check_legal(where, acts, b.mask, b.actor, games=b.games)
        return acts

    def advance(self, actions):
        """The learner's moves, then the opponents' until every game waits on the learner
        again; (done, reward, truncated) arrays.  Observations are left in
        ``batch.obs`` (not copied).  All or nothing: if anything fails, every game and
        opponent draw is back where it was and the error goes on."""
        self._usable("step")
        return self._advance(self.check_actions(actions, f"{type(self).__name__}.step"))

    def _advance(self, acts: np.ndarray):
        """``advance`` for actions ``check_actions`` has passed in this position (a step is
        checked once: ``SelfPlayVecEnv.step_async`` checks, ``step_wait`` comes here)."""
        self._usable("step")
        b = self.batch
        saved = (self.member.copy(), self._rng.bit_generator.state, self._ended_with[:])
        try:
            with b.all_or_nothing():
                t = time.perf_counter()
                b._apply(acts, None)              # every game waits on the learner here
                self.env_seconds += time.perf_counter() - t
                done, reward = b.done.copy(), b.reward.copy()
                trunc = b.truncated.copy()
                self._redraw(b.done)
                self._play_opponents(done, reward, trunc)
        except BaseException:
            self.member[:], self._ended_with[:] = saved[0], saved[2]
            self._rng.bit_generator.state = saved[1]
            raise
        return done, reward, trunc

    def end_infos(self, done, trunc) -> dict:
        """Game index -> info for the games that ended on this step: SB3's
        ``terminal_observation`` (the learner's view of the final position, which SB3
        bootstraps from when the turn cap cut the game short), the returns and the
        opponent's label."""
        b = self.batch
        return {int(i): {"terminal_observation": b.final_obs[i].copy(),
                         "TimeLimit.truncated": bool(trunc[i]),
                         "returns": b.last_returns[i],
                         "opponent": self._ended_with[i]} for i in np.flatnonzero(done)}

    def _draw(self, k: int) -> np.ndarray:
        return self._rng.choice(len(self.opponents), size=k, p=self.weights)

    def _redraw(self, which) -> None:
        """New members for the games that just ended (their old one's label is kept for
        this step's infos)."""
        idx = np.flatnonzero(which)
        if idx.size:
            for i in idx:
                self._ended_with[i] = label_of(self.opponents[self.member[i]])
            self.member[idx] = self._draw(idx.size)

    def _play_opponents(self, done, reward, trunc=None) -> None:
        """Move for the opponents until every game waits on the learner; a game the
        opponent finishes counts for this step (its deal is replaced).  An opponent that
        raises or picks an illegal move raises ``OpponentError`` before any of this round's
        moves is made."""
        b = self.batch
        while True:
            waiting = ~b.learner_to_act
            if not waiting.any():
                return
            acts = self._acts
            t0 = time.perf_counter()
            for k, m in enumerate(self.opponents):
                rows = waiting & (self.member == k)
                if rows.any():
                    self._ask(m, rows, acts)
            t1 = time.perf_counter()
            b._apply(acts, np.flatnonzero(waiting))     # each member's moves checked in _ask
            self.opponent_seconds += t1 - t0
            self.env_seconds += time.perf_counter() - t1
            ended = b.done
            if ended.any():
                done |= ended
                reward[ended] = b.reward[ended]
                if trunc is not None:
                    trunc |= b.truncated
                self._redraw(ended)

    def _ask(self, m, rows: np.ndarray, acts: np.ndarray) -> None:
        """Member ``m``'s moves for the games ``rows`` into ``acts``, each checked legal
        (``check_legal``; ``OpponentError`` names the opponent)."""
        b = self.batch
        idx = np.flatnonzero(rows)
        name, me = label_of(m), type(self).__name__
        try:
            games = [b.games[i] for i in idx] if reads_game(m) else None
            obs = b.obs[rows] if games is not None else self._observations(m, idx)
            got = batch_actions(ask_batch(m, obs, b.mask[rows], games), len(idx),
                                f"{name}'s moves")
        except Exception as e:
            raise OpponentError(f"{me}.step: the opponent {name} (games {_games(idx)}) raised "
                                f"{type(e).__name__}: {e}; no game moved") from e
        acts[idx] = got
        check_legal(f"{me}.step: the opponent {name}", acts, b.mask, b.actor, idx, b.games,
                    OpponentError)

    def _observations(self, m, idx: np.ndarray) -> np.ndarray:
        """The observations of games ``idx`` for the player to act there, in the layout
        ``m`` reads: the batch's own, or encoded anew in ``m``'s."""
        b = self.batch
        if reads_layout(m, b.layout.name):
            return b.obs[idx]
        want = observation_layout(m)
        encs = self._other.get(want)
        if encs is None:
            encs = self._other[want] = [make_encoder(b.card_db, want) for _ in range(b.n)]
        return np.stack([encs[i].encode(b.games[i], int(b.actor[i]), b.legal[i])
                         for i in idx])

    def close(self) -> None:
        """Later calls raise; closing twice is harmless."""
        self.closed = True


def _games(idx) -> str:
    idx = [int(i) for i in idx]
    return ", ".join(map(str, idx[:8])) + (" ..." if len(idx) > 8 else "")


# --------------------------------------------------------------- worker processes

def shared_arrays(obs_size: int) -> dict:
    """The arrays shared between WorkerSelfPlayVecEnv and its workers, for observations
    of ``obs_size`` values: name -> (dtype, per-game shape)."""
    return {"obs": (np.float32, (obs_size,)), "mask": (np.bool_, (N_ACTIONS,)),
            "actions": (np.int64, ()), "actor": (np.int8, ()), "reward": (np.float32, ()),
            "done": (np.bool_, ()), "trunc": (np.bool_, ())}


def shared_views(buffers: dict, n: int, lo: int = 0, hi: int | None = None,
                 obs_size: int = 0) -> dict:
    """Games ``lo..hi`` of each shared array, as numpy views of the buffers."""
    hi = n if hi is None else hi
    return {k: np.ndarray((n, *shape), dtype=dt, buffer=buffers[k].buf)[lo:hi]
            for k, (dt, shape) in shared_arrays(obs_size).items()}


def serve_worker(conn, names: dict, n_total: int, lo: int, hi: int, kwargs: dict) -> None:
    """One worker process: ``SelfPlayGames`` over games lo..hi, answering commands on
    ``conn`` -- ``("ok", value)``, or ``("error", (message, traceback))`` and on to the next
    command (a failed step has put this worker's games back)."""
    shms = {k: shared_memory.SharedMemory(name=v) for k, v in names.items()}
    from .layout import layout_named
    views = shared_views(shms, n_total, lo, hi, layout_named(kwargs.get("obs", "full")).size)
    members: dict = {}
    env = None
    try:
        while True:
            cmd, arg = conn.recv()
            try:
                if cmd == "step":        # checked by the parent against the shared masks
                    done, reward, trunc = env._advance(views["actions"])
                    views["actor"][:] = env.batch.actor
                    views["reward"][:] = reward
                    views["done"][:] = done
                    views["trunc"][:] = trunc
                    answer = (env.end_infos(done, trunc), env.env_seconds,
                              env.opponent_seconds)
                elif cmd == "set_opponents":
                    sent, keys, weights = arg
                    members.update(sent)
                    for k in set(members) - set(keys):
                        del members[k]
                    agents = [members[k] for k in keys]
                    if "torch" in sys.modules:        # a policy came: one core per worker
                        sys.modules["torch"].set_num_threads(1)
                    if env is None:
                        env = SelfPlayGames(hi - lo, opponents=agents, weights=weights,
                                            out=(views["obs"], views["mask"]), **kwargs)
                    else:
                        env.set_opponents(agents, weights)
                    answer = None
                elif cmd == "reset":
                    env.restart(arg)
                    views["actor"][:] = env.batch.actor
                    answer = None
                elif cmd == "close":
                    conn.send(("ok", None))
                    return
                else:
                    raise ValueError(f"unknown command {cmd!r}")
            except Exception as e:                     # noqa: BLE001 -- report, serve on
                conn.send(("error", (f"{type(e).__name__}: {e}", traceback.format_exc())))
            else:
                conn.send(("ok", answer))
    except (EOFError, KeyboardInterrupt, BrokenPipeError, ConnectionResetError):
        return
    finally:
        env = views = None
        for s in shms.values():
            try:
                s.close()
            except BufferError:             # a view still held: the OS frees it at exit
                pass


__all__ = ["OpponentError", "SelfPlayGames", "check_weights", "label_of"]
