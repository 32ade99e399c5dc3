"""What both environments share: decks from options, seeds, starting a game, the encoder
(``GameSource``).  (The uniform random player, the environments' default opponent, is
``nivel_env.players.RandomAgent``.)

Decks may be given as bundled names, file paths or ``Deck`` objects.  With no
decks the environment draws a pair of bundled decks per episode from its own
seeded stream, so ``reset(seed=s)`` fixes the decks as well as the shuffles.
"""
from __future__ import annotations

import secrets
from pathlib import Path

from ..cards import CardDB, Deck, list_decks, load_deck, load_card_db
from ..engine import RuleConfig, new_game
from ..engine.backend import resolve_backend
from ..engine.rng import next_u64, seed_state
import numpy as np

from .encoder import card_table, make_encoder
from .layout import layout_named


def resolve_deck(spec, db: CardDB, where: str) -> Deck:
    if isinstance(spec, Deck):
        return spec
    if isinstance(spec, (str, Path)):
        return load_deck(spec, db)
    raise TypeError(f"{where}: a deck is a bundled deck name, a deck file path or a Deck, "
                    f"got {type(spec).__name__} {spec!r}")


class DeckChoice:
    """Fixed decks, or a pool to draw a pair from each episode."""

    def __init__(self, decks=None, deck_pool=None, card_db: CardDB | None = None,
                 where: str = "env"):
        self.db = card_db
        if decks is not None:
            if isinstance(decks, (str, Path, Deck)) or len(decks) != 2:
                raise ValueError(f"{where}: decks must be a pair (deck for player_0, deck for "
                                 f"player_1), got {decks!r}")
            self.fixed = tuple(resolve_deck(s, self._db(s), f"{where}: decks[{i}]")
                               for i, s in enumerate(decks))
            self.pool = ()
        else:
            self.fixed = None
            if isinstance(deck_pool, (str, Path, Deck)):
                raise TypeError(f"{where}: deck_pool is a list of decks (names, paths or Deck "
                                f"objects), got the single {type(deck_pool).__name__} "
                                f"{str(deck_pool)!r}; write deck_pool=[{str(deck_pool)!r}] or "
                                f"decks=(a, b)")
            names = list_decks() if deck_pool is None else list(deck_pool)
            if len(names) < 1:
                raise ValueError(f"{where}: deck_pool is empty")
            self.pool = tuple(resolve_deck(s, self._db(s), f"{where}: deck_pool[{i}]")
                              for i, s in enumerate(names))
        dbs = {id(d.db) for d in (self.fixed or self.pool) if d.db is not None}
        if len(dbs) > 1:
            raise ValueError(f"{where}: the decks were loaded with different card pools; "
                             f"load them with one CardDB")

    def _db(self, spec):
        if isinstance(spec, Deck):
            return spec.db or self.db or load_card_db()
        return self.db or load_card_db()

    @property
    def card_db(self) -> CardDB:
        d = (self.fixed or self.pool)[0]
        return d.db or self.db or load_card_db()

    def draw(self, stream: "SeedStream") -> tuple[Deck, Deck]:
        if self.fixed is not None:
            return self.fixed
        return (self.pool[stream.below(len(self.pool))], self.pool[stream.below(len(self.pool))])


def check_seed(seed, where: str) -> int:
    """A seed is a non-negative Python or numpy integer (``1e999``, ``2.5`` or ``"7"`` are
    refused by name rather than crashing or being truncated)."""
    import numbers
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"{where}: seed must be a non-negative integer, got "
                         f"{type(seed).__name__} {seed!r}"[:200])
    return int(seed)


class SeedStream:
    """A SplitMix64 stream seeded by ``reset(seed=...)``, or from the OS when never seeded."""

    def __init__(self, seed: int | None = None):
        self.state = seed_state(secrets.randbits(63) if seed is None
                                else check_seed(seed, "seed"))

    def next(self) -> int:
        self.state, r = next_u64(self.state)
        return r

    def below(self, n: int) -> int:
        return self.next() % n


class GameSource:
    """Seeds, decks and the encoder of one environment, and each episode's new game: the
    part of ``reset`` the AEC environment and the Gym wrapper have in common.

    Each episode draws from the stream, in order: the game's seed, then (without fixed
    decks) the two decks; a caller may draw more after (the Gym wrapper's seat)."""

    def __init__(self, decks, deck_pool, config, card_db, where: str, obs="full",
                 backend=None):
        if config is not None and not isinstance(config, RuleConfig):
            raise TypeError(f"{where}: config must be a RuleConfig, got "
                            f"{type(config).__name__}")
        self.where = where
        self.config = config or RuleConfig()
        self.card_db = card_db
        self.decks = DeckChoice(decks, deck_pool, card_db, where)
        try:
            self.layout = layout_named(obs)
        except ValueError as e:
            raise ValueError(f"{where}: obs: {e}") from None
        self.encoder = make_encoder(self.decks.card_db, self.layout)
        self.stream = SeedStream()
        try:
            self.backend = resolve_backend(backend)      # fixed for the environment's life
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    def reseed(self, seed) -> None:
        """``reset(seed=...)``: the stream restarts from ``seed`` (checked, by name)."""
        self.stream = SeedStream(check_seed(seed, f"{self.where}.reset"))

    def new_game(self, decks=None):
        """The next episode's game, and its decks: ``decks`` (as an option may give them,
        for this episode only) or a pair drawn from the pool."""
        game_seed = self.stream.next()
        if decks is not None:
            pair = DeckChoice(decks, None, self.card_db, f"{self.where}.reset options").fixed
        else:
            pair = self.decks.draw(self.stream)
        game = new_game(pair[0], pair[1], seed=game_seed, config=self.config,
                        backend=self.backend)
        if game.db is not self.encoder.db:
            self.encoder = make_encoder(game.db, self.layout)
        return game, pair

    def card_table(self) -> np.ndarray:
        """The card table of the pool being played (the latest game's), which a compact
        observation's indices point into."""
        return card_table(self.encoder.db)

