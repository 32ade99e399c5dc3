"""``NativeGame``: a game played by the native core, with the Python ``Game``'s API.

The core (``_core.Core``) holds the state and runs the rules; this class gives it the
engine's public face (``engine/state.py``): legal actions, apply_action with the same
errors, clone, surrender, events as the engine's typed records, ``to_dict``/``from_dict``,
pickling, and every state field consumers read (``hand``, ``where``, ``dec``, ...).

Fields are served from a *mirror*: a Python ``Game`` built from the core's fields, once per
state (it is dropped when an action changes the state).  The hot path -- legal_actions,
apply_action, clone, is_terminal -- never builds it.  Writing a field (``determinize``
redraws hidden cards that way) writes it on the mirror and reloads the core from it.

Events: the core logs a kind and six ints per event; ``EVENT_DECODERS`` turns them into
the engine's records (``engine/events.py``), converting each event once.  Events from
before the core took over (``Start``, a scenario's or a loaded game's log) stay Python
objects (``_prefix``).
"""
from __future__ import annotations

from dataclasses import fields as dc_fields
from numbers import Integral

from ..engine import const as K, events as E
from ..engine.actions import N_ACTIONS
from ..engine.config import RuleConfig
from ..engine.errors import IllegalActionError, action_id
from ..engine.rng import seed_state
from ..engine import state as _state
from .program import NONE, load_program

_PICKLED = _state._PICKLED
_LOG = _PICKLED.index("log")
#: the state fields a consumer may read or write (the Python Game's saved slots)
STATE_FIELDS = frozenset(_PICKLED)


def _core_module():
    from . import core
    return core()


def config_tuple(cfg: RuleConfig) -> tuple:
    """The rule options the core plays by, in ``RuleConfig``'s order (a subclass's added
    options are carried in ``to_dict`` and read by neither engine)."""
    return tuple(getattr(cfg, f.name) for f in dc_fields(RuleConfig))


# ------------------------------------------------------------------ events
_PHASES = ("attack", "end")
_OVER = ("loss", "both lost", "max_turns")
_RESULTS = ("unblocked", "defender_trashed", "attacker_trashed", "attacker_gone",
            "defender_gone")
_TRASH = ("battle", "effect", "upgrade", "rule")
_DISCARD = tuple(K.PICK_PURPOSES) + ("effect", "barrier")
_REVEAL = ("return_to_hand", "to_deck_bottom", "salvage", "search")
_UNTIL = ("turn", "battle", "leaves")
_PAYMENTS = ("barrier", "sacrifice", "offset")


def _opt(v):
    return None if v == NONE else v


def _seats(mask: int):
    return None if mask < 0 else [s for s in (0, 1) if mask >> s & 1]


def _decoders(timings):
    """kind code -> f(card, db, ints) building the event record (card(iid) -> card id)."""
    def leader_awaken(c, db, defs, f):
        leader = db.cards[defs[f[0] * K.PER]]
        return E.Awaken(f[0], leader.id, leader.back.name)

    moved = {43: E.ReturnToHand, 44: E.ToDeckBottom, 45: E.Salvage}
    table = [
        lambda c, db, d, f: E.Setup(f[0], None),
        lambda c, db, d, f: E.Mulligan(f[0], bool(f[1])),
        lambda c, db, d, f: E.Turn(f[0], f[1]),
        lambda c, db, d, f: E.Phase(_PHASES[f[0]], f[1]),
        lambda c, db, d, f: E.EndTurn(f[0], f[1]),
        lambda c, db, d, f: E.Expire(f[0]),
        lambda c, db, d, f: E.Level(f[0], f[1]),
        leader_awaken,
        lambda c, db, d, f: E.Draw(f[0], f[1]),
        lambda c, db, d, f: E.DeckOut(f[0], None if f[1] < 0 else "damage"),
        lambda c, db, d, f: E.Surrender(f[0]),
        lambda c, db, d, f: E.GameOver([f[0], f[1]], _OVER[f[2]]),
        lambda c, db, d, f: E.GameEffect(f[0], ("win", "lose")[f[1]], c(f[2])),
        lambda c, db, d, f: E.Play(f[0], c(f[1]), f[1], f[2], c(f[3]) if f[3] >= 0 else None),
        lambda c, db, d, f: E.Equip(f[0], c(f[1]), f[1], f[2], c(f[3])),
        lambda c, db, d, f: E.Skill(f[0], c(f[1]), f[1]),
        lambda c, db, d, f: E.Activate(f[0], c(f[1]), f[2], f[3]),
        lambda c, db, d, f: E.Place(c(f[0]), f[0], f[1], f[2]),
        lambda c, db, d, f: E.Move(c(f[0]), f[0], f[1]),
        lambda c, db, d, f: E.Attack(f[0], c(f[1]), f[1], f[2], bool(f[3])),
        lambda c, db, d, f: E.Guardian(f[0], c(f[1]), f[1], f[2], _PAYMENTS[f[3]]),
        lambda c, db, d, f: E.Defend(f[0], c(f[1]), f[1], f[2]),
        lambda c, db, d, f: E.GuardianDeclined(f[0]),
        lambda c, db, d, f: E.NoDefense(f[0]),
        lambda c, db, d, f: E.Battle(_RESULTS[f[0]], _opt(f[1]), _opt(f[2]), _opt(f[3]),
                                     _opt(f[4])),
        lambda c, db, d, f: E.BattleEnd(),
        lambda c, db, d, f: E.DamageWindow(f[0], f[1]),
        lambda c, db, d, f: E.Damage(f[0], c(f[1]), f[1], f[2], bool(f[3])),
        lambda c, db, d, f: E.Effect(f[0], c(f[1]), f[2], timings[f[3]]),
        lambda c, db, d, f: E.Trigger(f[0], c(f[1]), f[1], f[2]),
        lambda c, db, d, f: E.EffectEnd(f[0], c(f[1]), f[2]),
        lambda c, db, d, f: E.Decline(f[0], c(f[1])),
        lambda c, db, d, f: E.Fizzle(f[0], c(f[1]), None if f[2] < 0 else K.KIND_NAMES[f[2]]),
        lambda c, db, d, f: E.Keyword(f[0], c(f[1]), K.KIND_NAMES[f[2]], _opt(f[3])),
        lambda c, db, d, f: E.Order(f[0]),
        lambda c, db, d, f: E.CardOrder(f[0], f[1], "deck", "bottom"),
        lambda c, db, d, f: E.Discard(f[0], c(f[1]), f[1], _DISCARD[f[2]]),
        lambda c, db, d, f: E.Mill(f[0], c(f[1]), f[1]),
        lambda c, db, d, f: E.ToDamage(f[0], c(f[1]), f[1], f[2]),
        lambda c, db, d, f: E.Heal(f[0], c(f[1]), f[1]),
        lambda c, db, d, f: E.Trash(c(f[0]), f[0], f[1], _TRASH[f[2]],
                                    None if f[3] < 0 else "guardian"),
        lambda c, db, d, f: E.PowerZero(c(f[0]), f[0]),
        lambda c, db, d, f: E.EquipLost(c(f[0]), f[0]),
    ]
    for code in (43, 44, 45):
        cls = moved[code]
        table.append(lambda c, db, d, f, cls=cls: cls(
            c(f[0]), f[0], f[1], None if f[2] < 0 else K.ZONE_NAMES[f[2]], _seats(f[3])))
    table += [
        lambda c, db, d, f: E.Reveal(f[0], c(f[1]), f[1], _REVEAL[f[2]], K.ZONE_NAMES[f[3]]),
        lambda c, db, d, f: E.Search(f[0], c(f[1]), f[1]),
        lambda c, db, d, f: E.Shuffle(f[0]),
        lambda c, db, d, f: E.Modify(c(f[0]), f[0], f[1], f[2], f[3], _UNTIL[f[4]],
                                     _opt(f[5])),
        lambda c, db, d, f: E.Grant(c(f[0]), f[0], db.keywords[f[1]].name),
        lambda c, db, d, f: E.Prohibit(c(f[0]), f[0], ("attack", "defend")[f[1]]),
        lambda c, db, d, f: E.Scale(c(f[0]), f[0], ("power", "hit")[f[1]], f[2] / 100,
                                    _UNTIL[f[3]]),
    ]
    if len(table) != _core_module().N_EVENTS:
        raise RuntimeError(f"native core: {_core_module().N_EVENTS} event kinds, "
                           f"{len(table)} decoders (nivel_env/native/game.py)")
    return tuple(table)


_DECODERS: list = []


def decode_events(db, defs, raw) -> list:
    """The core's raw events (kind, six ints) as the engine's event records."""
    if not _DECODERS:
        _DECODERS.append(_decoders(_core_module().TERMS["timings"]))
    table = _DECODERS[0]
    cards = db.cards

    def card(iid):
        return cards[defs[iid]].id
    return [table[r[0]](card, db, defs, r[1:]) for r in raw]


# --------------------------------------------------------------------- game
class NativeGame:
    """A game on the native core; the Python ``Game``'s public API (see the module doc)."""
    backend = "native"
    # The instance's own values live in its ``__dict__`` (no ``__slots__``): a clone is
    # one core call that copies that dict (``clone``; an ``object.__setattr__`` per slot
    # cost a search's clone four times the core's own copy).  ``__setattr__`` below guards
    # the state fields.

    def __init__(self, db, cfg, core, prefix=()):
        self.__dict__.update(db=db, cfg=cfg, _core=core, _prefix=tuple(prefix), _events=(),
                             _py=None, _defs=None, _seen=False)

    # ------------------------------------------------------------ hot path
    @property
    def current_player(self):
        return self._core.current_player

    def legal_actions(self) -> list[int]:
        return self._core.legal_actions()

    def apply_action(self, action: int) -> None:
        """As ``Game.apply_action``: an illegal id is refused with ``IllegalActionError``
        and the game is left exactly as it was."""
        if type(action) is not int:
            action = action_id(action, "Game.apply_action")
        core = self._core
        if core.over:
            raise IllegalActionError(f"action {action}: the game is over")
        if not (0 <= action < N_ACTIONS and core.apply(action)):   # the core takes int32
            g = self._mirror()
            raise IllegalActionError(
                f"action {action} ({g.action_name(action)}) is not legal now; "
                f"{K.DECISION_NAMES[core.decision_kind]} decision for player "
                f"{core.current_player}, legal: {core.legal_actions()}")
        d = self.__dict__
        d["_py"] = None
        if d["_seen"]:
            _forget_fields(d)

    def is_terminal(self) -> bool:
        return self._core.over

    def returns(self) -> tuple[int, int]:
        r = self._core.result
        return r if r is not None else (0, 0)

    def surrender(self, player: int) -> None:
        """1.2.4: ``player`` (0 or 1, a Python or numpy integer) loses at once."""
        if type(player) is not int or player not in (0, 1):
            player = _state._seat(player)
        self._core.surrender(player)
        d = self.__dict__
        d["_py"] = None
        if d["_seen"]:
            _forget_fields(d)

    def clone(self) -> "NativeGame":
        """An independent copy: the core's state copied, everything else shared (the
        decoded events are an immutable tuple; the mirror is rebuilt when read).  The
        core does it in one call (``_core.clone_game``: this instance's ``__dict__``
        copied, ``_core`` a copy of the core, ``_py`` None)."""
        return _clone_game(self)

    def set_deal(self, defs: tuple, rng: int) -> None:
        """As ``Game.set_deal``, in the core (the events and every place kept)."""
        self._core.set_deal(defs, rng)
        self.__dict__.update(_py=None, _defs=None)
        _forget_fields(self.__dict__)

    # the scalar fields hot loops read (a search reads ``result`` at every node), straight
    # from the core; every other field comes from the mirror (``__getattr__``)
    @property
    def result(self):
        return self._core.result

    @property
    def truncated(self) -> bool:
        return self._core.truncated

    @property
    def turn(self) -> int:
        return self._core.turn

    @property
    def tp(self) -> int:
        return self._core.tp

    @property
    def first(self) -> int:
        return self._core.first

    @property
    def phase(self) -> int:
        return self._core.phase

    @property
    def dec(self):
        return self._core.dec

    @property
    def rng(self) -> int:
        return self._core.rng

    @property
    def defs(self) -> tuple:
        if self._defs is None:
            self.__dict__["_defs"] = self._core.defs
        return self._defs

    @property
    def decision_name(self) -> str | None:
        k = self._core.decision_kind
        return None if k < 0 else K.DECISION_NAMES[k]

    # ------------------------------------------------------------- events
    @property
    def events(self) -> list:
        """Every event so far (the engine's typed records), as ``Game.events``."""
        return [*self._prefix, *self._decoded()]

    log = events

    def _decoded(self) -> tuple:
        """The core's events decoded so far, extended to the current count: a tuple, so
        that clones share it safely."""
        done = self._events
        if len(done) < self._core.n_events:
            done += tuple(decode_events(self.db, self.defs, self._core.events(len(done))))
            self.__dict__["_events"] = done
        return done

    # ------------------------------------------------------ the mirror
    def _mirror(self):
        """This state as a Python ``Game`` (built once per state): what the read API, the
        screens and ``to_dict`` read."""
        g = self._py
        if g is None:
            values = list(self._core.fields())
            values[_LOG] = self.events
            g = _state._from_pickle(self.db, self.cfg, tuple(_frozen(v) for v in values))
            d = self.__dict__
            d["_py"] = g
            # the state fields kept on the instance too, so that a reader's next g.where[i]
            # is a plain attribute read, not a __getattr__ call (the soak checks read
            # hundreds per decision); a move, a new deal or a written field forgets them
            for s in _MIRRORED:
                d[s] = getattr(g, s)
            d["_seen"] = True
        return g

    def python_game(self):
        """A Python ``Game`` in this exact state (its own copy)."""
        return self._mirror().clone()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._mirror(), name)

    def __setattr__(self, name, value):
        """Writing a state field (``engine.hidden.determinize`` and friends do) writes it
        on the mirror and reloads the core from the mirror's fields."""
        if name in _state.CACHE_SLOTS:
            # derived stats (engine.stats.refresh run on this game, as view.derived does):
            # the mirror's own; the core keeps and recomputes its own
            setattr(self._mirror(), name, value)
            return
        if name not in STATE_FIELDS:
            raise AttributeError(f"NativeGame has no field {name!r} to set")
        g = self._mirror()
        setattr(g, name, value)
        core = _core_module().Core.from_fields(load_program(self.db, _core_module()),
                                               config_tuple(self.cfg), _fields_of(g))
        self.__dict__.update(_core=core, _prefix=tuple(g.log), _events=(), _defs=None,
                             _py=None)
        _forget_fields(self.__dict__)

    # --------------------------------------------------- the Game API
    @property
    def decision(self):
        return self._mirror().decision

    def action_name(self, action: int) -> str:
        return self._mirror().action_name(action)

    def render(self, perspective: int | None = None) -> str:
        return self._mirror().render(perspective)

    def card(self, iid: int):
        return self.db.cards[self.defs[iid]]

    def to_dict(self) -> dict:
        return self._mirror().to_dict()

    @classmethod
    def from_dict(cls, d: dict, db=None) -> "NativeGame":
        return from_python(_state.Game.from_dict(d, db))

    def __reduce__(self):
        g = self._mirror()
        return (_from_pickle, (self.db, self.cfg, _fields_of(g)))

    def __eq__(self, other) -> bool:
        return hasattr(other, "to_dict") and hasattr(other, "legal_actions") and \
            self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self) -> str:
        return f"<NativeGame turn {self._core.turn}, {self.decision_name or 'over'}>"


class ReadOnlyList(list):
    """A ``NativeGame`` state list (``g.hand[0]``, ``g.unit``, ...): read like any list;
    changing it in place is refused, as the core would never see the change.  Copies
    (slices, ``list(x)``, ``copy``, pickles) are plain lists."""
    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "a NativeGame's state lists are read-only views of the native core: assign the "
            "whole field to change it (g.trash = [...]), or build the position on the "
            "Python engine (new_game(..., backend='python')) and move it over with "
            "nivel_env.native.from_python")

    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self):
        return (list, (list(self),))

    def __copy__(self):
        return list(self)

    def __deepcopy__(self, memo):
        from copy import deepcopy
        return [deepcopy(x, memo) for x in self]


def _frozen(value):
    """``value`` with its lists (and the lists in them) read-only.  Built once per state a
    reader asks about (the mirror), so the common flat list of ints is one C-level copy."""
    if type(value) is not list:
        return value
    if list in map(type, value):
        return ReadOnlyList([_frozen(x) for x in value])
    return ReadOnlyList(value)


def _clone_game(game):
    """The core's ``clone_game``, looked up on the first clone (the core module loads
    lazily) and bound here for every clone after it."""
    global _clone_game
    _clone_game = _core_module().clone_game
    return _clone_game(game)


def _forget_fields(d: dict) -> None:
    """Drop the state fields ``_mirror`` kept in a game's ``__dict__`` (a clone copies
    them with the rest of the dict, ``_seen`` too: it is the same state until it moves)."""
    for s in _MIRRORED:
        d.pop(s, None)
    d["_seen"] = False


#: the state fields a mirror serves that NativeGame does not itself define (the scalars
#: it reads straight from the core are properties)
_MIRRORED = tuple(s for s in _PICKLED if not hasattr(NativeGame, s))


def _fields_of(g) -> tuple:
    """A Python Game's saved fields, in the core's order (``state._PICKLED``)."""
    return tuple(getattr(g, s) for s in _PICKLED)


def _from_pickle(db, cfg, values):
    core = _core_module()
    c = core.Core.from_fields(load_program(db, core), config_tuple(cfg), tuple(values))
    return NativeGame(db, cfg, c, values[_LOG])


def from_python(g) -> NativeGame:
    """A native game in the state of Python game ``g`` (its events kept as they are)."""
    if isinstance(g, NativeGame):
        return g.clone()
    core = _core_module()
    c = core.Core.from_fields(load_program(g.db, core), config_tuple(g.cfg), _fields_of(g))
    return NativeGame(g.db, g.cfg, c, g.log)


def new_native_game(deck_0, deck_1, seed=0, config=None, db=None, mirror=False) -> NativeGame:
    """``engine.new_game`` on the native core: the same checks, the same deal."""
    from ..engine import _deal
    seed, db, defs, start = _deal(deck_0, deck_1, seed, db, mirror)
    cfg = config or RuleConfig()
    core = _core_module()
    c = core.Core.new_game(load_program(db, core), config_tuple(cfg), list(defs),
                           len(deck_0.cards), len(deck_1.cards), seed_state(seed), bool(mirror))
    return NativeGame(db, cfg, c, (start,))
