"""The game state and its public API.

State is flat on purpose: ints, card-instance ids and short lists, so that
``clone()`` is a handful of list copies and ``to_dict()`` is plain JSON.  The
rules live in the sibling modules (``flow``, ``combat``, ``effects``, ``verbs``,
``legal``); this class only holds state and delegates.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ..cards.db import _LIVE, CardDB, load_card_db
from . import const as K
from .config import RuleConfig
from .errors import IllegalActionError, action_id, as_int
from .events import Event, Surrender, event_from_dict
from .flow import finish
from .legal import apply_action, legal_actions
from .render import action_name, decision_context, render
from .rng import seed_state

_LIST_FIELDS = ("deck", "hand", "trash", "damage", "skill", "items", "known")

#: The derived-stat caches ``stats.refresh`` writes from printed values and continuous
#: effects, per unit slot (player * 3 + lane; ``size`` per player), in the order of
#: ``view.Derived``'s fields: power, hit, attacks allowed, keywords, prohibitions
#: (const.PROHIBIT_* bits), size, unit cost on the field.  Never saved (recomputed);
#: consumers read them by name through ``view.derived``.
DERIVED_SLOTS = ("pw", "ht", "na", "kws", "cant", "size", "uc")
#: What a state caches and never saves: the derived stats, whether they are stale, the
#: legal ids.
CACHE_SLOTS = ("dirty",) + DERIVED_SLOTS + ("_legal",)


def reset_derived(g) -> None:
    """Blank derived stats, marked stale (``dirty``): the first read recomputes them."""
    g.dirty, g._legal = True, None
    g.pw, g.ht, g.na, g.kws, g.cant, g.size = [0] * 6, [0] * 6, [0] * 6, [()] * 6, [0] * 6, [0, 0]
    g.uc = [0] * 6


class Decision(NamedTuple):
    """What is being asked now: ``kind``, who decides, and its context."""
    kind: str
    player: int
    context: dict


def _seat(player) -> int:
    seat = as_int(player)
    if seat not in (0, 1):
        raise ValueError(f"surrender: player must be 0 or 1, got {type(player).__name__} "
                         f"{player!r}"[:200])
    return seat


def _tuplify(x):
    return tuple(_tuplify(i) for i in x) if isinstance(x, list) else x


class Game:
    __slots__ = (
        "db", "cfg", "defs", "rng", "deck", "hand", "trash", "damage", "skill", "unit", "items",
        "where", "stamp", "level", "awake", "turn", "tp", "first", "phase", "placed", "attacked",
        "used", "mods", "battle", "pend", "stack", "dec", "lost", "result", "truncated",
        "delayed", "log", "mulled", "known",
    ) + CACHE_SLOTS
    #: which engine this is (``NativeGame.backend`` is "native"); a class attribute
    backend = "python"

    # ------------------------------------------------------------ public API
    @property
    def current_player(self) -> int | None:
        return None if self.result is not None else self.dec[1]

    def legal_actions(self) -> list[int]:
        """The pending decision's legal action ids, sorted (empty once the game is over).

        A new list each call, the caller's to keep or change: the engine's cache (shared
        with clones) is never handed out, so no caller can make an illegal id legal."""
        legal = self._legal
        if legal is None:
            legal = self._legal = legal_actions(self)
        return legal[:]

    def apply_action(self, action: int) -> None:
        """Play ``action`` (an id of ``legal_actions()``) for the player to decide.

        ``action`` is an integer (``errors.action_id``: Python, numpy or a 0-d integer
        array), checked before anything else: a float, bool, string or Fraction -- even
        one equal to a legal id -- is refused with ``IllegalActionError``, as is an id that
        is not legal now, and the game is left exactly as it was.  The id is stored as a
        plain int (``to_dict()`` stays JSON)."""
        if type(action) is not int:
            action = action_id(action, "Game.apply_action")
        if self.result is not None:
            raise IllegalActionError(f"action {action}: the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = legal_actions(self)
        if action not in legal:
            raise IllegalActionError(
                f"action {action} ({action_name(self, action)}) is not legal now; "
                f"{K.DECISION_NAMES[self.dec[0]]} decision for player {self.dec[1]}, "
                f"legal: {legal}")
        self._legal = None
        apply_action(self, action)

    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> tuple[int, int]:
        return self.result if self.result is not None else (0, 0)

    def surrender(self, player: int) -> None:
        """1.2.4: ``player`` (0 or 1, a Python or numpy integer) loses at once."""
        if type(player) is not int or player not in (0, 1):
            player = _seat(player)
        if self.result is None:
            self.log.append(Surrender(player))
            self.lost[player] = True
            finish(self)
            self._legal = None

    def clone(self) -> "Game":
        g = Game.__new__(Game)
        g.db, g.cfg, g.defs, g.rng = self.db, self.cfg, self.defs, self.rng
        g.deck = [self.deck[0][:], self.deck[1][:]]
        g.hand = [self.hand[0][:], self.hand[1][:]]
        g.trash = [self.trash[0][:], self.trash[1][:]]
        g.damage = [self.damage[0][:], self.damage[1][:]]
        g.skill = [self.skill[0][:], self.skill[1][:]]
        g.unit = self.unit[:]
        g.items = [x[:] for x in self.items]
        g.where, g.stamp = self.where[:], self.stamp[:]
        g.level, g.awake = self.level[:], self.awake[:]
        g.turn, g.tp, g.first, g.phase = self.turn, self.tp, self.first, self.phase
        g.placed, g.attacked, g.used = self.placed[:], self.attacked[:], self.used[:]
        g.mods = self.mods[:]
        g.battle = self.battle[:] if self.battle is not None else None
        g.pend, g.stack, g.dec = self.pend[:], self.stack[:], self.dec
        g.lost, g.result, g.truncated = self.lost[:], self.result, self.truncated
        g.delayed, g.log, g.mulled = self.delayed[:], self.log[:], self.mulled[:]
        g.known = [self.known[0][:], self.known[1][:]]
        # CACHE_SLOTS, copied by name: a loop over them costs ~10% of a clone
        # (tests/engine/test_actions.py checks that each is copied)
        g.dirty = self.dirty
        g.pw, g.ht, g.na, g.kws, g.cant, g.size = (self.pw[:], self.ht[:], self.na[:],
                                                   self.kws[:], self.cant[:], self.size[:])
        g.uc = self.uc[:]
        g._legal = self._legal
        return g

    def python_game(self) -> "Game":
        """A Python ``Game`` in this exact state, its own copy: what code that edits a
        position with the engine's own functions (a forecast's what-if) works on, whichever
        engine ``self`` is (``NativeGame.python_game`` is the same)."""
        return self.clone()

    def set_deal(self, defs: tuple, rng: int) -> None:
        """Put other cards behind the instances and another generator state, every place
        kept (``hidden.determinize``'s world): derived stats and legality go stale."""
        self.defs, self.rng = defs, rng
        self.dirty, self._legal = True, None

    @property
    def decision_name(self) -> str | None:
        """The pending decision's kind by name (``const.DECISION_NAMES``), None when over;
        cheaper than ``decision``, which also gathers its context."""
        return None if self.result is not None else K.DECISION_NAMES[self.dec[0]]

    @property
    def decision(self) -> Decision | None:
        if self.result is not None:
            return None
        return Decision(K.DECISION_NAMES[self.dec[0]], self.dec[1], decision_context(self))

    @property
    def events(self) -> list[Event]:
        """What happened so far, in order: typed records (``engine/events.py``; one class
        per kind, ``e.kind``, ``e.to_dict()``).  The engine's own list: read, never change."""
        return self.log

    def action_name(self, action: int) -> str:
        return action_name(self, action)

    def render(self, perspective: int | None = None) -> str:
        return render(self, perspective)

    # ----------------------------------------------------------- card helpers
    def card(self, iid: int):
        return self.db.cards[self.defs[iid]]

    def owner(self, iid: int) -> int:
        return iid // K.PER

    def zone(self, iid: int) -> int:
        return self.where[iid] >> 2

    def lane(self, iid: int) -> int:
        return self.where[iid] & 3

    def leader_face(self, p: int):
        c = self.card(p * K.PER)
        return c.back if self.awake[p] and c.back is not None else c

    # --------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        d = {s: getattr(self, s) for s in self.__slots__
             if s not in _NOT_SAVED}
        d["log"] = [e.to_dict() for e in self.log]
        d = {k: _listify(v) for k, v in d.items()}
        d["cfg"] = self.cfg.to_dict()
        d["card_ids"] = [self.card(i).id for i in range(2 * K.PER)]
        d["card_pool_version"] = self.db.version
        d["format"] = 1
        return d

    @classmethod
    def from_dict(cls, d: dict, db: CardDB | None = None) -> "Game":
        """The game ``d`` describes.  Without ``db``, the pool is the live one whose version
        ``d`` names (any pool loaded in this process), else the bundled pool."""
        if db is None:
            db = _LIVE.get(d.get("card_pool_version")) or load_card_db()
        if d.get("format") != 1:
            raise ValueError(f"Game.from_dict: unknown format {d.get('format')!r}")
        missing = [cid for cid in d["card_ids"] if cid not in db]
        if missing:
            raise ValueError(f"Game.from_dict: card ids not in the card pool: {missing[:5]}")
        g = cls.__new__(cls)
        g.db, g.cfg = db, RuleConfig.from_dict(d["cfg"])
        g.defs = tuple(db.get(cid).index for cid in d["card_ids"])
        for s in cls.__slots__:
            if s in _NOT_SAVED or s == "defs":
                continue
            v = d[s] if s != "known" else d.get("known", [[], []])   # older dicts: none known
            if s in _LIST_FIELDS:
                v = [list(x) for x in v]
            elif s in ("pend", "stack", "mods", "used", "delayed", "attacked"):
                v = [_tuplify(x) for x in v]
            elif s in ("dec", "result"):
                v = _tuplify(v)
            elif s == "log":
                v = [event_from_dict(e) for e in v]
            elif isinstance(v, list):
                v = list(v)
            setattr(g, s, v)
        if g.battle is not None:
            g.battle = [_tuplify(x) for x in g.battle]
        reset_derived(g)
        return g

    def __reduce__(self):
        # The pool goes by reference (CardDB.__reduce_ex__); derived stats are recomputed.
        return (_from_pickle, (self.db, self.cfg,
                               tuple(getattr(self, s) for s in _PICKLED)))

    def __eq__(self, other) -> bool:
        # another class (a NativeGame) answers for itself: the same state is equal across
        # backends
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None


def blank_game(db: CardDB, defs: list, seed: int, config: RuleConfig | None) -> Game:
    """A game with every field initialised and no card anywhere (used by new_game
    and the scenario builder)."""
    g = Game.__new__(Game)
    g.db, g.cfg = db, config or RuleConfig()
    g.defs = tuple(defs)
    g.rng = seed_state(seed)
    g.deck, g.hand, g.trash, g.damage, g.skill = [[], []], [[], []], [[], []], [[], []], [[], []]
    g.unit = [-1] * 6
    g.items = [[] for _ in range(6)]
    g.where = [-4] * (2 * K.PER)
    g.stamp = [0] * (2 * K.PER)
    g.level = [g.cfg.starting_level] * 2
    g.awake = [False, False]
    g.turn, g.tp, g.first, g.phase = 0, 0, 0, K.SETUP
    g.placed, g.attacked, g.used, g.mods = [0, 0], [], [], []
    g.battle = None
    g.pend, g.stack, g.dec = [], [], None
    g.lost, g.result, g.truncated = [False, False], None, False
    g.delayed, g.log, g.mulled = [], [], [False, False]
    g.known = [[], []]
    reset_derived(g)                       # power, hit, ... unit costs (stats.refresh)
    for p in (0, 1):
        g.where[p * K.PER] = K.Z_LEVEL * 4 + 3
    return g


def _listify(v):
    if isinstance(v, (list, tuple)):
        return [_listify(x) for x in v]
    if isinstance(v, dict):
        return {k: _listify(x) for k, x in v.items()}
    return v


_NOT_SAVED = ("db", "cfg") + CACHE_SLOTS      # to_dict and pickles: the pool by reference
_PICKLED = tuple(s for s in Game.__slots__ if s not in _NOT_SAVED)


def _from_pickle(db, cfg, values):
    g = Game.__new__(Game)
    g.db, g.cfg = db, cfg
    for s, v in zip(_PICKLED, values):
        setattr(g, s, v)
    reset_derived(g)
    return g
