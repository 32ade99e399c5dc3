"""What both environments share before a game starts: decks from options, and seeds.

Decks may be given as bundled names, file paths or ``Deck`` objects.  With no
decks the environment draws a pair of bundled decks per episode from its own
seeded stream, so ``reset(seed=s)`` fixes the decks as well as the shuffles.
"""
from __future__ import annotations

import secrets
from pathlib import Path

from ..cards import CardDB, Deck, list_decks, load_deck, load_card_db
from ..engine.rng import next_u64, seed_state


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
