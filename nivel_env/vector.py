"""Many games in one process, stepped together: the batched core of self-play training.

``GameBatch`` holds N games and preallocated arrays -- observations ``(N, OBS_SIZE)``
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

    from nivel_env.vector import GameBatch
    b = GameBatch(64)
    b.reset(seed=0)
    while True:
        actions = my_policy(b.obs, b.mask)          # one move per game, for b.actor
        b.step(actions)
"""
from __future__ import annotations

import numpy as np

from .engine import N_ACTIONS, RuleConfig, new_game
from .engine.errors import IllegalActionError
from .env.encoder import OBS_SIZE, Encoder
from .env.setup import DeckChoice, SeedStream, check_seed


class GameBatch:
    """N self-play games with preallocated observation, mask and result arrays.

    Args:
        n: number of games.
        decks, deck_pool, config, card_db: as for the environments (a fixed pair, or a
            pool to draw a pair from per game).
        seat: the learner's seat, ``0``, ``1`` or ``"random"`` (drawn per deal).
        out: optional ``(observations, masks)`` arrays of shapes ``(n, OBS_SIZE)`` float32
            and ``(n, 337)`` bool to write into (e.g. views of shared memory).
    """

    def __init__(self, n: int, decks=None, deck_pool=None, config: RuleConfig | None = None,
                 card_db=None, seat="random", out=None):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"GameBatch: n must be a positive whole number, got {n!r}")
        if seat not in (0, 1, "random"):
            raise ValueError(f"GameBatch: seat must be 0, 1 or 'random', got {seat!r}")
        self.n = n
        self.config = config or RuleConfig()
        self.seat_option = seat
        self._decks = DeckChoice(decks, deck_pool, card_db, "GameBatch")
        db = self._decks.card_db
        self.encoders = [Encoder(db) for _ in range(n)]     # per game: their caches follow it
        if out is None:
            out = (np.zeros((n, OBS_SIZE), dtype=np.float32), np.zeros((n, N_ACTIONS), bool))
        self.obs, self.mask = out
        if self.obs.shape != (n, OBS_SIZE) or self.obs.dtype != np.float32 \
                or self.mask.shape != (n, N_ACTIONS) or self.mask.dtype != bool:
            raise ValueError(f"GameBatch: out must be ({n}, {OBS_SIZE}) float32 and "
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
        self.final_obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.games: list = [None] * n
        self.episodes = np.zeros(n, dtype=np.int64)       # finished games per slot
        self._streams = [SeedStream() for _ in range(n)]
        self._seats = [SeedStream() for _ in range(n)]
        self.legal: list = [None] * n

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
        for i in range(self.n):
            self._deal(i)

    def _deal(self, i: int) -> None:
        st = self._streams[i]
        game_seed = st.next()
        d0, d1 = self._decks.draw(st)
        self.learner_seat[i] = (self._seats[i].below(2) if self.seat_option == "random"
                                else self.seat_option)
        self.games[i] = new_game(d0, d1, seed=game_seed, config=self.config)
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
        boolean array ``which`` is set).  Each must be legal for the player that game waits
        on (``IllegalActionError`` names the game; games before it have moved).  A game
        that ends is dealt anew; ``done``, ``truncated`` and ``reward`` (the learner's
        return) say so for this call."""
        actions = np.asarray(actions)
        self.done[:] = False
        self.truncated[:] = False
        self.reward[:] = 0
        idx = range(self.n) if which is None else np.flatnonzero(which)
        for i in idx:
            g = self.games[i]
            a = actions[i]
            try:
                g.apply_action(int(a))
            except (IllegalActionError, TypeError, ValueError, OverflowError) as e:
                raise IllegalActionError(f"GameBatch.step: game {i}: {e}") from None
            if g.result is not None:
                self.final_obs[i] = self.encoders[i].encode(g, int(self.learner_seat[i]))
                self.done[i] = True
                self.truncated[i] = g.truncated
                self.reward[i] = g.result[self.learner_seat[i]]
                self.last_returns[i] = g.result
                self.episodes[i] += 1
                self._deal(i)
            else:
                self._write(i)

    @property
    def learner_to_act(self) -> np.ndarray:
        """Games waiting on the learner."""
        return self.actor == self.learner_seat


__all__ = ["GameBatch"]
