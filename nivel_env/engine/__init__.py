"""The Nivel Arena rules engine (Comprehensive Rules Ver.2.0).

A pure Python library: it never imports gymnasium or pettingzoo.

    from nivel_env.engine import new_game, RuleConfig, IllegalActionError
    g = new_game(deck_0, deck_1, seed=7)
    while not g.is_terminal():
        g.apply_action(g.legal_actions()[0])
"""
from __future__ import annotations

from numbers import Integral

from ..cards import CardDB, Deck, load_card_db
from . import actions, const as K
from .actions import N_ACTIONS
from .backend import resolve_backend
from .config import RuleConfig
from .errors import IllegalActionError, ScenarioError
from .events import Start
from .flow import setup
from .state import Decision, Game, blank_game
from . import keywords  # registers the sub-keywords' handlers at the trigger points (hooks.py)
# explanations for the screens, read from what a player may see (explain, legal, forecast)
from .explain import unit_keywords
from .forecast import BattleForecast, BlockOutcome, Unblocked, battle_forecast
from .legal import play_blockers

__all__ = ["BattleForecast", "BlockOutcome", "Decision", "Game", "IllegalActionError",
           "N_ACTIONS", "RuleConfig", "ScenarioError", "Unblocked", "actions",
           "battle_forecast", "keywords", "new_game", "play_blockers", "unit_keywords"]


def _deal(deck_0: Deck, deck_1: Deck, seed, db: CardDB | None, mirror: bool):
    """``new_game``'s checks, shared by both backends: the seed as a plain int, the pool,
    each card instance's pool index (``defs``) and the game's first event."""
    if type(seed) is not int:                  # kept in the events: a plain int (JSON)
        if not isinstance(seed, Integral) or isinstance(seed, bool):
            raise TypeError(f"new_game: seed must be an integer, got {type(seed).__name__} "
                            f"{seed!r}"[:200])
        seed = int(seed)
    db = db or getattr(deck_0, "db", None) or load_card_db()
    defs = [0] * (2 * K.PER)
    for p, deck in enumerate((deck_0, deck_1)):
        if not isinstance(deck, Deck):
            raise TypeError(f"new_game: deck_{p} must be a Deck (see nivel_env.cards.load_deck), "
                            f"got {type(deck).__name__}")
        if not 1 <= len(deck.cards) <= K.PER - 1:
            raise ValueError(f"new_game: deck_{p} ({deck.name}) has {len(deck.cards)} cards; "
                             f"the engine takes 1 to {K.PER - 1}")
        for c in (deck.leader,) + tuple(deck.cards):
            if db.by_id.get(c.id) is not c:
                raise ValueError(f"new_game: card {c.id} of deck_{p} ({deck.name}) is not from "
                                 f"this card pool (load decks with the same CardDB)")
        defs[p * K.PER] = deck.leader.index
        for i, c in enumerate(deck.cards):
            defs[p * K.PER + 1 + i] = c.index
    start = Start(seed, [deck_0.name, deck_1.name], [deck_0.leader.id, deck_1.leader.id],
                  bool(mirror))
    return seed, db, defs, start


def new_game(deck_0: Deck, deck_1: Deck, seed: int = 0, config: RuleConfig | None = None,
             db: CardDB | None = None, mirror: bool = False, backend: str | None = None) -> Game:
    """Set up a game (5.1) and run it to the first decision (the first mulligan).

    ``backend`` picks the engine (``backend.resolve_backend``): "python" (this package's
    ``Game``), "native" (a ``NativeGame`` on the C++ core, with the same public API),
    "auto", or None for the environment variable ``NIVEL_BACKEND`` (default "python").

    The card pool is ``db``, else the one ``deck_0`` was loaded with, else the bundled pool.

    ``mirror`` gives the other half of a duplicate deal for decks: ``new_game(b, a, seed,
    mirror=True)`` shuffles each deck into the order it had in ``new_game(a, b, seed)``
    and makes the same seat go first, so each deck draws the same cards while the deck
    that went first goes second.  (It does so by shuffling seat 1's deck before seat 0's;
    everything after the shuffles comes from the same generator state.)
    """
    if resolve_backend(backend) == "native":
        # the one function-local import of the engine: the native wrapper imports the engine
        from ..native.game import new_native_game
        return new_native_game(deck_0, deck_1, seed, config, db, mirror)
    seed, db, defs, start = _deal(deck_0, deck_1, seed, db, mirror)
    g = blank_game(db, defs, seed, config)
    for p, deck in enumerate((deck_0, deck_1)):
        for i in range(len(deck.cards)):
            iid = p * K.PER + 1 + i
            g.deck[p].append(iid)
            g.where[iid] = K.Z_DECK * 4 + 3
    g.log.append(start)
    setup(g, mirror)
    return g
