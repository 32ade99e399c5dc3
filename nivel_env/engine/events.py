"""The engine's events: one typed record per kind of happening, the engine's contract.

``Game.events`` (the engine's ``g.log``) is a list of these records, in the order things
happened.  They are what a second implementation of the rules would have to reproduce:
a replay checks them line by line (``nivel_env.replay``), the narration tells them
(``nivel_env.narrate``, a visitor: one method per kind) and a seat reads them through
``engine.hidden.seat_event`` (3.1.7, 3.2.2).  Forge keeps the same split (``GameEvent*``
records, ``GameLogFormatter`` as a visitor).

Each record is a slotted dataclass whose ``kind`` names it; ``to_dict()`` gives the JSON
object a replay or a digest stores (``{"type": kind, ...}``, fields in declaration order,
a field left out where its class says it is "not recorded": ``_omit``), and
``event_from_dict`` reads one back.  ``EVENT_VERSION`` counts changes to these objects:

* 1 -- the untyped dicts the engine wrote before these records (replays without an
  ``event_version`` in their header).
* 2 -- the reasons the narration used to work out for itself are recorded: a Guardian's
  payment (``Guardian.payment``, ``Trash.pays``) and a discard an effect makes
  (``Discard.reason == "effect"``).  ``to_dict(version=1)`` writes an event as version 1
  did, so a replay recorded then still checks.
* 3 -- a trigger's cause: a ``trigger`` record (``Trigger``, 4.5.4.3) opens the events of
  a damage trigger's effect as ``effect`` opens another automatic ability's.  A kind says
  the version that added it (``_event(kind, added=3)``, ``Event.added``); ``to_dicts(events,
  version)`` leaves out the records of kinds newer than ``version``, so a replay recorded
  at version 2 or 1 still checks.

Records are values: the engine never changes one after it is logged (``Game.clone`` shares
them between games).  They are plain slotted dataclasses rather than frozen ones because
the engine logs one to three per decision and a frozen dataclass costs about three times
as much to build.  ``card``/``iid`` are None in a record a seat may not fully read
(``seat_event``): such a field is left out of ``to_dict``.

A record is not a dict: code reads its fields (``e.kind``, ``e.card``) and JSON goes
through ``to_dict``, so a consumer of a renamed or removed field fails loudly.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

EVENT_VERSION = 3

#: kind -> record class
EVENTS: dict[str, type["Event"]] = {}

#: attribute names that are not the JSON key (``from`` is a Python keyword)
_KEY_OF = {"from_zone": "from"}
_ABSENT = object()          # a field with no "not recorded" value


class Event:
    """Base of every event record (see the module docstring)."""
    __slots__ = ()
    kind: ClassVar[str] = ""
    #: the ``EVENT_VERSION`` that added this kind (an older version writes no such record)
    added: ClassVar[int] = 1
    #: (attribute, JSON key, value meaning "not recorded" or _ABSENT, version that added it)
    _spec: ClassVar[tuple] = ()
    _names: ClassVar[dict] = {}            # JSON key -> attribute

    def to_dict(self, version: int = EVENT_VERSION) -> dict[str, Any]:
        """The event as a JSON object, as event format ``version`` writes it (an error for
        a kind that ``version`` did not have: ``to_dicts`` leaves such records out)."""
        if version < self.added:
            raise ValueError(f"event kind {self.kind!r} was added in event format "
                             f"{self.added}; format {version} has no such record "
                             f"(write lists with events.to_dicts)")
        d = {"type": self.kind}
        for name, key, omit, since in self._spec:
            v = getattr(self, name)
            if v is omit or since > version:
                continue
            d[key] = v
        if version < EVENT_VERSION:
            self._downgrade(d, version)
        return d

    def __reduce__(self):       # pickles as (class, field values): 3x faster than the
        return type(self), tuple([getattr(self, f[0]) for f in self._spec])   # default

    def _downgrade(self, d: dict, version: int) -> None:
        """Change ``d`` (written as the current version) into what ``version`` wrote,
        where a change was more than an added field."""


def to_dicts(events, version: int = EVENT_VERSION) -> list[dict[str, Any]]:
    """``events`` as event format ``version`` writes a list of them: each record's
    ``to_dict(version)``, leaving out the records of a kind added after ``version``."""
    return [e.to_dict(version) for e in events if e.added <= version]


def _event(kind: str, omit: dict | None = None, since: dict | None = None,
           added: int = 1):
    """Register a record class for ``kind``: ``omit`` maps a field to the value that means
    "not recorded" (left out of ``to_dict``; by default None for a field whose default is
    None, and for ``card``/``iid``, which a seat's view may withhold), ``since`` a field
    to the ``EVENT_VERSION`` that added it, ``added`` the version that added the kind."""
    if not 1 <= added <= EVENT_VERSION:
        raise ValueError(f"event kind {kind!r}: added={added}, but EVENT_VERSION is "
                         f"{EVENT_VERSION} (raise it, and say what changed in events.py)")
    omit, since = omit or {}, since or {}

    def wrap(cls):
        cls = dataclass(slots=True)(cls)
        cls.kind = kind
        cls.added = added
        spec = []
        for f in fields(cls):
            o = omit.get(f.name, None if f.name in ("card", "iid") or f.default is None
                         else _ABSENT)
            spec.append((f.name, _KEY_OF.get(f.name, f.name), o, since.get(f.name, 1)))
        cls._spec = tuple(spec)
        cls._names = {key: name for name, key, _, _ in spec}
        if kind in EVENTS:
            raise ValueError(f"event kind {kind!r} registered twice")
        EVENTS[kind] = cls
        return cls
    return wrap


def event_from_dict(d: dict) -> Event:
    """The record ``d`` (a ``to_dict()`` result, of this version) describes."""
    if not isinstance(d, dict) or d.get("type") not in EVENTS:
        raise ValueError(f"not an event: {str(d)[:120]} (kinds: engine/events.py EVENTS)")
    cls = EVENTS[d["type"]]
    names = cls._names
    try:
        return cls(**{names[k]: v for k, v in d.items() if k != "type"})
    except KeyError as e:
        raise ValueError(f"event {d['type']!r} has no field {e.args[0]!r}") from None
    except TypeError as e:
        raise ValueError(f"event {d['type']!r}: {e}") from None


# ================================================================ setting up, turns

@_event("start", omit={"mirror": False})
class Start(Event):
    """The game was set up (5.1): from ``seed`` (an int), with the decks and leaders named
    per seat; ``mirror`` for the other half of a duplicate deal (``new_game``)."""
    seed: int
    decks: list
    leaders: list
    mirror: bool = False


@_event("setup")
class Setup(Event):
    """5.1.4: ``first_player`` goes first (``seed_state`` is kept as None)."""
    first_player: int
    seed_state: Any                     # written even when None


@_event("mulligan")
class Mulligan(Event):
    """5.1.6: ``player`` kept the opening hand or (``redraw``) shuffled it back for a new one."""
    player: int
    redraw: bool


@_event("scenario")
class Scenario(Event):
    """A position built by ``engine.scenario`` (a test or a puzzle), not a dealt game."""
    name: str
    turn: int
    player: int


@_event("turn")
class Turn(Event):
    """6.1: turn ``turn`` of ``player`` begins."""
    turn: int
    player: int


@_event("phase")
class Phase(Event):
    """``player`` moved on to the ``phase`` ("attack" or "end")."""
    phase: str
    player: int


@_event("end_turn")
class EndTurn(Event):
    """6.6: turn ``turn`` of ``player`` is over."""
    turn: int
    player: int


@_event("expire")
class Expire(Event):
    """6.6.1.2: ``count`` effects lasting "until end of turn" ended together."""
    count: int


@_event("level")
class Level(Event):
    """``player``'s level is now ``level`` (6.2.1, or an effect)."""
    player: int
    level: int


@_event("awaken")
class Awaken(Event):
    """10.2.6.1: ``player``'s leader ``card`` turned to its back face ``face`` (a name)."""
    player: int
    card: str
    face: str


@_event("draw")
class Draw(Event):
    """``player`` drew ``count`` cards (the count only: 3.8.2)."""
    player: int
    count: int


@_event("deck_out")
class DeckOut(Event):
    """4.5.3 / 1.2.2.3: ``player`` had to take a card from an empty deck (``during``:
    "damage" when it was a point of damage, else a draw)."""
    player: int
    during: str | None = None


@_event("surrender")
class Surrender(Event):
    """1.2.4: ``player`` surrendered."""
    player: int


@_event("game_over")
class GameOver(Event):
    """The game ended with ``result`` (per seat: 1 win, -1 loss, 0 draw); ``reason``:
    "loss", "both lost" or "max_turns"."""
    result: list
    reason: str


@_event("game_effect")
class GameEffect(Event):
    """An effect of ``card`` made ``player`` win or lose (``outcome``)."""
    player: int
    outcome: str
    card: str


# ================================================================ the main phase

@_event("play")
class Play(Event):
    """``player`` played unit ``card`` (instance ``iid``) into ``lane``; ``upgrade``: the
    card it upgraded (3.5.5), else None."""
    player: int
    card: str
    iid: int
    lane: int
    upgrade: str | None                 # written even when None


@_event("equip")
class Equip(Event):
    """``player`` equipped item ``card`` (``iid``) to their ``unit`` (a card id) in ``lane``."""
    player: int
    card: str
    iid: int
    lane: int
    unit: str


@_event("skill")
class Skill(Event):
    """``player`` used skill ``card`` (``iid``); its effect resolves next (3.6.1)."""
    player: int
    card: str
    iid: int


@_event("activate")
class Activate(Event):
    """``player`` activated ``ability`` (a pool key) of ``card`` (``iid``)."""
    player: int
    card: str
    iid: int
    ability: int


@_event("place")
class Place(Event):
    """Unit ``card`` (``iid``) of ``player`` entered the field in ``lane``."""
    card: str
    iid: int
    player: int
    lane: int


@_event("move")
class Move(Event):
    """An effect moved unit ``card`` (``iid``) to ``lane``."""
    card: str
    iid: int
    lane: int


# ================================================================ battle

@_event("attack", omit={"by_effect": False})
class Attack(Event):
    """7.2: ``player``'s unit ``card`` (``iid``) in ``lane`` attacks (``by_effect``: an
    effect made it attack)."""
    player: int
    card: str
    iid: int
    lane: int
    by_effect: bool = False


@_event("guardian", since={"payment": 2})
class Guardian(Event):
    """10.2.6.3: ``player``'s unit ``card`` (``iid``) from ``lane`` stepped in as Guardian,
    paid with ``payment`` ("barrier", "sacrifice" or "offset": the Guardian keyword
    used, 10.2.6.3.4; its cards follow as discard / trash events)."""
    player: int
    card: str
    iid: int
    lane: int
    payment: str | None = None


@_event("defend")
class Defend(Event):
    """7.3: ``player``'s unit ``card`` (``iid``) in ``lane`` blocks."""
    player: int
    card: str
    iid: int
    lane: int


@_event("guardian_declined")
class GuardianDeclined(Event):
    """``player`` chose not to use Guardian."""
    player: int


@_event("no_defense")
class NoDefense(Event):
    """``player`` chose not to block."""
    player: int


@_event("battle")
class Battle(Event):
    """7.4: the battle's ``result``: "unblocked" (``player`` takes ``damage``),
    "defender_trashed" / "attacker_trashed" (with both powers), "attacker_gone" or
    "defender_gone" (a unit left first: no battle)."""
    result: str
    damage: int | None = None
    player: int | None = None
    attacker_power: int | None = None
    defender_power: int | None = None


@_event("battle_end")
class BattleEnd(Event):
    """7.5: the battle is over."""


@_event("damage_window")
class DamageWindow(Event):
    """4.5.2: ``player`` is about to take ``amount`` damage; effects waiting for it
    resolve first."""
    player: int
    amount: int


@_event("damage")
class Damage(Event):
    """4.5.4: a point of damage put ``card`` (``iid``) from ``player``'s deck into their
    damage zone, now ``total`` cards; ``trigger``: it has a trigger ability, which
    resolves next (4.5.4.3) and cancels the rest of the damage."""
    player: int
    card: str
    iid: int
    total: int
    trigger: bool


# ================================================================ effects

@_event("effect")
class Effect(Event):
    """An automatic ability (``ability``, a pool key) of ``player``'s ``card`` starts to
    resolve; ``when`` is its timing (Entry, Exit, ...)."""
    player: int
    card: str
    ability: int
    when: str


@_event("trigger", added=3)
class Trigger(Event):
    """4.5.4.3: the trigger ability (``ability``) of ``card`` (``iid``), which damage just
    put into ``player``'s damage zone face up, starts to resolve; its events follow until
    the ``effect_end`` of the same ability (the cause of what they do)."""
    player: int
    card: str
    iid: int
    ability: int


@_event("effect_end")
class EffectEnd(Event):
    """``ability`` of ``player``'s ``card`` finished resolving."""
    player: int
    card: str
    ability: int


@_event("decline")
class Decline(Event):
    """8.1.2.2: ``player`` declined the optional effect of ``card``."""
    player: int
    card: str


@_event("fizzle")
class Fizzle(Event):
    """An effect of ``card`` (a sub-``keyword``'s, or else an ability's) does nothing:
    ``reason`` (the card left its zone, 8.1.3.2.1)."""
    player: int
    card: str
    keyword: str | None = None
    reason: str = "left its zone (8.1.3.2.1)"


@_event("keyword")
class Keyword(Event):
    """Sub-keyword ``keyword`` (engine/const.py KIND_NAMES) of ``player``'s ``card`` takes
    effect, with ``value`` where its line shows one (else None)."""
    player: int
    card: str
    keyword: str
    value: int | None                   # written even when None


@_event("order")
class Order(Event):
    """``player`` chose which of simultaneous effects resolves first (8.4)."""
    player: int


@_event("card_order")
class CardOrder(Event):
    """3.1.6: ``player`` orders ``count`` cards put into their ``zone`` (at its ``at``)."""
    player: int
    count: int
    zone: str
    at: str


@_event("discard")
class Discard(Event):
    """``player`` discarded ``card`` (``iid``) from their hand; ``reason``: "hand limit
    discard" (6.6.1.4), "credit discard", "barrier" (paying Guardian, 10.2.6.3.4.1) or
    "effect" (a discard effect; recorded from event format 2 on)."""
    player: int
    card: str
    iid: int
    reason: str | None = None

    def _downgrade(self, d, version):
        if version < 2 and d.get("reason") == "effect":
            del d["reason"]


@_event("mill")
class Mill(Event):
    """An effect put ``card`` (``iid``) from ``player``'s deck into their trash."""
    player: int
    card: str
    iid: int


@_event("to_damage")
class ToDamage(Event):
    """1.2.2.2: an effect put ``card`` (``iid``) from ``player``'s deck into their damage
    zone (not damage), now ``total`` cards."""
    player: int
    card: str
    iid: int
    total: int


@_event("heal")
class Heal(Event):
    """An effect removed ``card`` (``iid``) from ``player``'s damage zone."""
    player: int
    card: str
    iid: int


@_event("trash", since={"pays": 2})
class Trash(Event):
    """``card`` (``iid``) of ``player`` went to the trash; ``reason``: "battle", "effect",
    "upgrade" or "rule"; ``pays``: "guardian" where it was trashed to pay for Guardian
    (Sacrifice or Offset, 10.2.6.3.4; recorded from event format 2 on), else None."""
    card: str
    iid: int
    player: int
    reason: str
    pays: str | None = None


@_event("power_zero")
class PowerZero(Event):
    """8.5.3: unit ``card`` (``iid``) has 0 power and is trashed by rule processing."""
    card: str
    iid: int


@_event("equip_lost")
class EquipLost(Event):
    """Item ``card`` (``iid``) no longer qualifies for its unit and is trashed."""
    card: str
    iid: int


class _CardMoved(Event):
    """An effect moved ``card`` (``iid``) of ``player``; ``from_zone`` ("from": "hand" or
    "deck", or for salvage any zone but the trash) and ``seen_by`` (the seats that could
    tell which card it was, 3.1.7 / 3.8.3) where it left a hidden zone."""
    __slots__ = ()


@_event("return_to_hand")
class ReturnToHand(_CardMoved):
    __doc__ = "To its owner's hand. " + _CardMoved.__doc__
    card: str
    iid: int
    player: int
    from_zone: str | None = None
    seen_by: list | None = None


@_event("to_deck_bottom")
class ToDeckBottom(_CardMoved):
    __doc__ = "To the bottom of its owner's deck. " + _CardMoved.__doc__
    card: str
    iid: int
    player: int
    from_zone: str | None = None
    seen_by: list | None = None


@_event("salvage")
class Salvage(_CardMoved):
    __doc__ = "Back to its owner's hand, from the trash unless ``from_zone`` says. " + \
        _CardMoved.__doc__
    card: str
    iid: int
    player: int
    from_zone: str | None = None
    seen_by: list | None = None


@_event("reveal")
class Reveal(Event):
    """3.1.7: ``player``'s ``card`` (``iid``), moved by ``by`` into their ``to`` zone, is
    shown to the other player."""
    player: int
    card: str
    iid: int
    by: str
    to: str


@_event("search")
class Search(Event):
    """``player`` searched their deck and took ``card`` (``iid``); the other seat is told
    which only by a ``reveal`` (3.1.7)."""
    player: int
    card: str
    iid: int


@_event("shuffle")
class Shuffle(Event):
    """3.2.4: ``player``'s deck was shuffled."""
    player: int


@_event("modify")
class Modify(Event):
    """An effect changed unit ``card`` (``iid``) by ``power``, ``hit``, ``attacks`` and
    (where not 0) ``cost`` on the field, ``until`` when."""
    card: str
    iid: int
    power: int
    hit: int
    attacks: int
    until: Any
    cost: int | None = None


@_event("grant")
class Grant(Event):
    """An effect gave unit ``card`` (``iid``) the keyword ``keyword``."""
    card: str
    iid: int
    keyword: str


@_event("prohibit")
class Prohibit(Event):
    """An effect forbade unit ``card`` (``iid``) ``what`` (attack, defend, ...)."""
    card: str
    iid: int
    what: str


@_event("scale")
class Scale(Event):
    """An effect multiplied unit ``card``'s (``iid``) ``stat`` by ``factor``, ``until``."""
    card: str
    iid: int
    stat: str
    factor: float
    until: Any


__all__ = ["EVENTS", "EVENT_VERSION", "Event", "event_from_dict", "to_dicts"] + \
    [c.__name__ for c in EVENTS.values()]
