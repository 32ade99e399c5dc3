"""Many games in one process, stepped together: the batched core of self-play training.

``GameBatch`` holds N games and preallocated arrays -- observations ``(N, layout size)``
float32 and masks ``(N, 337)`` bool, written in place -- for the player each game waits
on, plus which seat that is (``actor``) and which seat is the learner's
(``learner_seat``).  Both seats' decisions are exposed, so a caller can answer every
game waiting on an opponent with one batched forward of that opponent's network instead
of one forward per move (``step(actions, which=...)`` applies moves to a subset).

A finished game is replaced at once by a fresh deal from that game's own seeded stream
(the deck pair drawn from the deck list; the learner's seat from a second stream), its
final returns kept in ``last_returns``.  Game ``i`` of a batch reset with seed ``s`` deals
what a PettingZoo AEC env reset with seed ``s + i`` deals, episode after episode (its next
episodes by plain ``reset()``), with the same observations and masks for the player to
act (a test compares them step by step).

    from nivel_env.env.vector import GameBatch
    b = GameBatch(64)
    b.reset(seed=0)
    while True:
        actions = my_policy(b.obs, b.mask)          # one move per game, for b.actor
        b.step(actions)

A step is checked whole before any game moves: ``actions`` must be integer ids, exactly
one per game (``batch_actions``: what the engine and the AEC and Gym envs take as an id,
no float, bool, string or scalar), each legal for the player its game waits on
(``check_legal``, the one legality check of every batched env); otherwise
``IllegalActionError`` names the game, the player, the action and its name, and no game
has moved.  With ``which`` only the selected games' actions are read.

Inside ``with batch.all_or_nothing():`` the steps either all stand or, if anything
raises, every game is put back where it was (what ``SelfPlayVecEnv`` uses so that an
opponent's failure moves nothing): the batch keeps each game's deal and moves, and a
failure deals the moved games again and replays them (the engine is deterministic), so
the common path copies nothing.  Games move only through ``step``.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..engine import N_ACTIONS, RuleConfig, new_game
from ..engine.backend import resolve_backend
from ..engine.errors import ACTION_ID, IllegalActionError, action_id
from ..engine.render import action_meaning
from .encoder import card_table, make_encoder
from .layout import layout_named
from .setup import DeckChoice, SeedStream, check_seed
from .single import check_seat


def batch_actions(actions, n: int, where: str, rows=None) -> np.ndarray:
    """``actions`` as an int64 array of exactly ``n`` ids, one per game, or
    ``IllegalActionError`` saying what was passed.

    An integer array of shape ``(n,)`` or a list/tuple of ``n`` integers (each as
    ``engine.errors.action_id`` takes one, in its words); a float (even ``2.0``), bool,
    string, scalar or wrongly shaped array is refused, as the engine and the AEC and Gym
    envs refuse such an action, instead of being truncated or broadcast.  Only the games
    in ``rows`` (an int array; all when None) are read further: their ids must lie in
    ``0..N_ACTIONS-1``; the others may hold any integer of the array's type (``-1``
    placeholders) or, in a list, anything at all, and mean nothing in the result (a list's
    come back as ``-1``).  Legality is ``check_legal``'s."""
    if isinstance(actions, (list, tuple)):
        if len(actions) != n:
            raise IllegalActionError(f"{where}: one action per game ({n}), got {len(actions)}")
        out = np.full(n, -1, dtype=np.int64)
        for i in (range(n) if rows is None else rows.tolist()):
            x = actions[i]
            a = x if type(x) is int else action_id(x, f"{where}: game {i}")
            if not 0 <= a < N_ACTIONS:
                raise IllegalActionError(_out_of_range(where, i, a))
            out[i] = a
        return out
    try:
        arr = np.asarray(actions)
    except Exception as e:                                # noqa: BLE001 -- say what it was
        raise IllegalActionError(f"{where}: one action per game ({n}), got a "
                                 f"{type(actions).__name__}, not an array "
                                 f"({type(e).__name__})") from None
    if arr.ndim == 0:
        raise IllegalActionError(f"{where}: one action per game ({n}), got one "
                                 f"{type(actions).__name__} {actions!r} for the whole batch"
                                 [:300])
    if arr.shape != (n,):
        raise IllegalActionError(f"{where}: one action per game ({n}), got an array of shape "
                                 f"{arr.shape}")
    if arr.dtype == object:
        return batch_actions(arr.tolist(), n, where, rows)
    if arr.dtype.kind not in "iu":
        i = 0 if rows is None or not len(rows) else int(rows[0])
        raise IllegalActionError(f"{where}: {ACTION_ID}, got a {arr.dtype} array "
                                 f"({arr[i].item()!r} for game {i})"[:300])
    sel = arr if rows is None else arr[rows]
    out = (sel < 0) | (sel >= N_ACTIONS)
    if out.any():
        j = int(np.flatnonzero(out)[0])
        raise IllegalActionError(_out_of_range(where, j if rows is None else int(rows[j]),
                                               int(sel[j])))
    return arr.astype(np.int64, copy=False)


def _out_of_range(where: str, i: int, a: int) -> str:
    return f"{where}: game {i}: action {a} is out of range; {ACTION_ID}"[:300]


def check_legal(where: str, acts: np.ndarray, mask: np.ndarray, actor, rows=None,
                games=None, error=IllegalActionError) -> None:
    """Raise ``error`` unless ``acts[i]`` is legal (``mask[i]``) for every game ``i`` of
    ``rows`` (an int array; every game when None) -- the one legality check of the batched
    envs, and its one message: the game (and how many more), the player it waits on
    (``actor[i]``), the action id and its name (in the game's context when ``games`` holds
    the games, else the action table's meaning), the legal ids, and that no game moved.
    ``acts`` must already be ids in range (``batch_actions``)."""
    if rows is None:
        ok = mask[np.arange(len(acts)), acts]
        if ok.all():
            return
        bad = np.flatnonzero(~ok)
    else:
        ok = mask[rows, acts[rows]]
        if ok.all():
            return
        bad = rows[~ok]
    i, a = int(bad[0]), int(acts[bad[0]])
    if games is not None:
        name, legal = games[i].action_name(a), games[i].legal_actions()
    else:
        name, legal = action_meaning(a), np.flatnonzero(mask[i]).tolist()
    more = ""
    if len(bad) > 1:
        more = (f" (and game{'s' if len(bad) > 2 else ''} "
                f"{', '.join(map(str, bad[1:6].tolist()))}{' ...' if len(bad) > 6 else ''})")
    raise error(f"{where}: game {i}{more}: action {a} ({name}) is not legal now for player "
                f"{int(actor[i])} (legal: {legal}); no game moved"[:600])


class GameBatch:
    """N self-play games with preallocated observation, mask and result arrays.

    Args:
        n: number of games.
        decks, deck_pool, config, card_db: as for the environments (a fixed pair, or a
            pool to draw a pair from per game).
        seat: the learner's seat, ``0``, ``1`` or ``"random"`` (drawn per deal).
        out: optional ``(observations, masks)`` arrays of shapes ``(n, layout size)``
            float32 and ``(n, 337)`` bool to write into (e.g. views of shared memory).
        obs: the observation layout, ``"full"`` (default) or ``"compact"`` (card table
            indices: ``card_table()``).
        backend: the engine (``engine.backend.resolve_backend``; None: ``NIVEL_BACKEND``,
            else Python).  "native" gives a ``nivel_env.native.batch.NativeGameBatch``: the
            same deals, arrays and checks, stepped in C++ with the GIL released.
        threads: the native batch splits each step over this many threads (Python: unused).
    """

    backend = "python"                      # the engine its games run on

    def __new__(cls, *args, backend=None, **kwargs):
        if cls is GameBatch and resolve_backend(backend) == "native":
            from ..native.batch import NativeGameBatch
            return super().__new__(NativeGameBatch)
        return super().__new__(cls)

    def __init__(self, n: int, decks=None, deck_pool=None, config: RuleConfig | None = None,
                 card_db=None, seat="random", out=None, obs="full", backend=None,
                 threads: int = 1):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"GameBatch: n must be a positive whole number, got {n!r}")
        seat = check_seat(seat, "GameBatch")
        self.n = n
        self.config = config or RuleConfig()
        self.seat_option = seat
        self._decks = DeckChoice(decks, deck_pool, card_db, "GameBatch")
        db = self._decks.card_db
        self.layout = layout_named(obs)
        size = self.layout.size
        # per game: their caches follow it
        self.encoders = [make_encoder(db, self.layout) for _ in range(n)]
        if out is None:
            out = (np.zeros((n, size), dtype=np.float32), np.zeros((n, N_ACTIONS), bool))
        self.obs, self.mask = out
        if self.obs.shape != (n, size) or self.obs.dtype != np.float32 \
                or self.mask.shape != (n, N_ACTIONS) or self.mask.dtype != bool:
            raise ValueError(f"GameBatch: out must be ({n}, {size}) float32 and "
                             f"({n}, {N_ACTIONS}) bool arrays")
        self.actor = np.zeros(n, dtype=np.int8)            # seat each game waits on
        self.learner_seat = np.zeros(n, dtype=np.int8)
        #: set by step(): the game finished on this step (and was dealt anew), with the
        #: learner's return, and whether the turn cap ended it
        self.done = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.reward = np.zeros(n, dtype=np.float32)
        self.last_returns: list = [None] * n               # (r0, r1) of each game's last end
        #: the learner seat's view of each game's final position, written when it ends
        #: (what SB3 bootstraps a game cut short by the turn cap from)
        self.final_obs = np.zeros((n, size), dtype=np.float32)
        self.games: list = [None] * n
        self.episodes = np.zeros(n, dtype=np.int64)       # finished games per slot
        self._streams = [SeedStream() for _ in range(n)]
        self._seats = [SeedStream() for _ in range(n)]
        self.legal: list = [None] * n
        #: why the batch cannot step (a game failed part-way through a step), until reset
        self.broken: str | None = "not dealt yet"
        # each game's deal (decks, seed) and its moves since: all_or_nothing rebuilds a
        # game from them (the engine is deterministic) instead of copying every game
        self._dealt: list = [None] * n
        self._moves: list = [[] for _ in range(n)]
        self._journal: dict | None = None     # inside all_or_nothing: what to go back to

    @property
    def card_db(self):
        """The card pool the games are dealt from."""
        return self._decks.card_db

    def card_table(self) -> np.ndarray:
        """The pool's card table, which a compact observation's indices point into
        (``encoder.card_table``)."""
        return card_table(self._decks.card_db)

    # ------------------------------------------------------------------ deals
    def reset(self, seed: int | None = None) -> None:
        """Deal every game anew (game ``i`` from seed ``seed + i``, or from fresh
        streams)."""
        if seed is not None:
            seed = check_seed(seed, "GameBatch.reset")
            self._streams = [SeedStream(seed + i) for i in range(self.n)]
            self._seats = [SeedStream((seed + i) ^ 0x5EA7) for i in range(self.n)]
        else:
            self._streams = [SeedStream() for _ in range(self.n)]
            self._seats = [SeedStream() for _ in range(self.n)]
        self.done[:] = False
        self.truncated[:] = False
        self.reward[:] = 0
        self.broken = "reset() failed part-way"
        for i in range(self.n):
            self._deal(i)
        self.broken = None

    def _deal(self, i: int) -> None:
        st = self._streams[i]
        game_seed = st.next()
        d0, d1 = self._decks.draw(st)
        self.learner_seat[i] = (self._seats[i].below(2) if self.seat_option == "random"
                                else self.seat_option)
        self.games[i] = new_game(d0, d1, seed=game_seed, config=self.config,
                                 backend="python")
        self._dealt[i] = (d0, d1, game_seed)
        self._moves[i] = []
        self._write(i)

    def _write(self, i: int) -> None:
        """Observation and mask of the player game ``i`` waits on."""
        g = self.games[i]
        p = g.current_player
        legal = g.legal_actions()
        self.actor[i] = p
        self.legal[i] = legal
        m = self.mask[i]
        m[:] = False
        m[legal] = True
        self.obs[i] = self.encoders[i].encode(g, p, legal)

    # ------------------------------------------------------------------ moves
    def step(self, actions, which=None) -> None:
        """Apply ``actions[i]`` to game ``i`` for every ``i`` (or every ``i`` where the
        boolean array ``which`` is set).

        ``actions`` holds one integer id per game (all ``n``, also with ``which``; see
        ``batch_actions``), each legal for the player its game waits on; with ``which``
        only the selected games' entries are read, so the others may be placeholders
        (``-1``).  The whole batch is checked first (``check_legal``): a bad or illegal
        action raises ``IllegalActionError`` naming the game, and no game has moved.  A
        game that ends is dealt anew; ``done``, ``truncated`` and ``reward`` (the
        learner's return) say so for this call.  Should a game fail part-way (an engine
        fault), the batch refuses every later step until ``reset()`` (``broken`` says
        why) -- unless inside ``all_or_nothing``, which puts every game back instead."""
        if self.broken is not None:
            raise RuntimeError(f"GameBatch.step: {self.broken}; call reset()")
        rows = self._rows(which, "GameBatch.step")
        acts = batch_actions(actions, self.n, "GameBatch.step", rows)
        check_legal("GameBatch.step", acts, self.mask, self.actor, rows, self.games)
        self._apply(acts, rows)

    def _rows(self, which, where: str):
        """The games a boolean array ``which`` of shape ``(n,)`` selects, as an int array
        (None, every game, when ``which`` is None)."""
        if which is None:
            return None
        w = np.asarray(which)
        if w.dtype != bool or w.shape != (self.n,):
            raise ValueError(f"{where}: which must be a bool array of shape ({self.n},), "
                             f"got {w.dtype} {w.shape}")
        return np.flatnonzero(w)

    def _apply(self, acts: np.ndarray, rows) -> None:
        """``step`` after its checks: ``acts`` from ``batch_actions`` and legal by
        ``check_legal`` for the games ``rows`` (every game when None).  Callers in this
        package that have just checked the same actions (``SelfPlayGames``) come here so
        that a step is checked once; the engine still refuses an illegal id, and
        ``all_or_nothing`` puts the games back."""
        if self.broken is not None:
            raise RuntimeError(f"GameBatch.step: {self.broken}; call reset()")
        games = self.games
        self.done[:] = False
        self.truncated[:] = False
        self.reward[:] = 0
        journal, moves = self._journal, self._moves
        i = None
        try:
            for i in (range(self.n) if rows is None else rows.tolist()):
                g, a = games[i], int(acts[i])
                g.apply_action(a)
                moves[i].append(a)
                if g.result is not None:
                    self._end(i, journal)
                else:
                    self._write(i)
        except BaseException as e:
            self.broken = (f"game {i} failed part-way through a step ({type(e).__name__}: "
                           f"{e})"[:500])
            if journal is not None:
                journal["failed"] = i
            raise

    def _end(self, i: int, journal) -> None:
        """Game ``i`` is over: its result and final view kept, a new game dealt."""
        g = self.games[i]
        if journal is not None and i not in journal["ended"]:
            journal["ended"][i] = (self._dealt[i], self._moves[i], int(self.learner_seat[i]),
                                   int(self.episodes[i]), self.last_returns[i],
                                   self.final_obs[i].copy())
        self.final_obs[i] = self.encoders[i].encode(g, int(self.learner_seat[i]))
        self.done[i] = True
        self.truncated[i] = g.truncated
        self.reward[i] = g.result[self.learner_seat[i]]
        self.last_returns[i] = g.result
        self.episodes[i] += 1
        self._deal(i)

    # --------------------------------------------------------- all or nothing
    @contextmanager
    def all_or_nothing(self):
        """Steps taken inside stand together: if anything raises in the block, every game
        is put back where it was when the block began (position, deal streams, learner
        seat, counters, observations and masks), ``broken`` is cleared, and the error
        goes on.  The common path costs little: a game is put back by dealing it again
        and replaying its moves (the engine is deterministic), which only a failure pays
        (a few milliseconds a game).  Games must move only through ``step`` meanwhile."""
        if self._journal is not None:
            raise RuntimeError("GameBatch.all_or_nothing: already inside one")
        self._journal = journal = {
            "marks": [len(m) for m in self._moves], "ended": {},
            "check": [(len(g.log), g.rng) for g in self.games],
            "streams": [s.state for s in self._streams],
            "seats": [s.state for s in self._seats]}
        try:
            yield
        except BaseException:
            self._journal = None
            self._restore(journal)
            raise
        finally:
            self._journal = None

    def _restore(self, journal: dict) -> None:
        for i, (dealt, moves, seat, episodes, last, final) in journal["ended"].items():
            self._dealt[i], self._moves[i] = dealt, moves
            self.learner_seat[i] = seat
            self.episodes[i] = episodes
            self.last_returns[i] = last
            self.final_obs[i] = final
        for i, (st, seats) in enumerate(zip(journal["streams"], journal["seats"])):
            self._streams[i].state = st
            self._seats[i].state = seats
        astray = []
        for i, mark in enumerate(journal["marks"]):
            moves = self._moves[i]
            if i in journal["ended"] or len(moves) != mark or i == journal.get("failed"):
                del moves[mark:]
                d0, d1, seed = self._dealt[i]
                g = new_game(d0, d1, seed=seed, config=self.config, backend="python")
                for a in moves:
                    g.apply_action(a)
                if (len(g.log), g.rng) != journal["check"][i]:
                    astray.append(i)
                self.games[i] = g
                self._write(i)
        self.done[:] = False
        self.truncated[:] = False
        self.reward[:] = 0
        self.broken = None if not astray else (
            f"games {astray[:8]} could not be put back after a failed step: they were "
            f"changed outside GameBatch.step")

    @property
    def learner_to_act(self) -> np.ndarray:
        """Games waiting on the learner."""
        return self.actor == self.learner_seat


__all__ = ["GameBatch", "batch_actions", "check_legal"]
