"""A card pool compiled into the flat program the native core loads.

The core parses no YAML and knows no card: it runs numbered terms (verbs, timings,
conditions, sub-keywords) over tables of filters, selectors, values, conditions, actions,
abilities and cards that this module builds from a ``CardDB`` -- the same compiled objects
the Python engine reads, so both engines read one source.  Each term is found by its
vocabulary key in the core's own list of the terms it has (``_core.TERMS``): a pool that
uses a term the core lacks is refused here, by name, before any game starts
(``NativeUnsupported``), never played wrong.

Every table row is a list of ints; ``NONE`` stands for a Python ``None`` (an unset bound).
The core checks each row's width as it loads them (a malformed program is an error naming
the table and the row, not a crash).
"""
from __future__ import annotations

import weakref

from ..cards import model as m
from ..cards.vocab import VERBS

#: an unset bound (``None`` in a ``Filter``), as the core reads it
NONE = -(1 << 30)

TYPES = (m.LEADER, m.UNIT, m.ITEM, m.SKILL)
REFS = ("self", "encounter", "attacker", "defender", "battle_opponent", "equipped")
WHO = ("you", "opponent", "any")
PLAYERS = ("you", "opponent", "each")
ZONES = ("unit", "item", "hand", "trash", "deck", "damage", "skill")
LANES = ("any", "same", "adjacent", "other")
MODES = ("all", "choose", "up_to", "random")
STATS = ("level", "damage", "hand")
UNTIL = (m.UNTIL_TURN, m.UNTIL_BATTLE, m.UNTIL_LEAVES)
PROHIBITS = ("attack", "defend")
SCALE_STATS = ("power", "hit")


class NativeUnsupported(ValueError):
    """A card pool uses a term (or a value) the native core cannot run."""


def _code(table: tuple, value, what: str, where: str) -> int:
    try:
        return table.index(value)
    except ValueError:
        raise NativeUnsupported(f"{where}: {what} {value!r} is not one the native core "
                                f"knows ({', '.join(map(str, table))})") from None


def _opt(v) -> int:
    return NONE if v is None else int(v)


def _tri(v) -> int:
    return -1 if v is None else int(bool(v))


class _Compiler:
    def __init__(self, db, terms: dict):
        self.db = db
        self.terms = {k: tuple(v) for k, v in terms.items()}
        self.names: dict[str, int] = {}          # interned strings: keyword names, affiliations
        self.filters: list = []
        self.selectors: list = []
        self.values: list = []
        self.conditions: list = []
        self.actions: list = []
        self._memo: dict = {}

    def name(self, s: str) -> int:
        return self.names.setdefault(s, len(self.names))

    def term(self, kind: str, key: str, where: str) -> int:
        table = self.terms[kind]
        if key not in table:
            raise NativeUnsupported(f"{where}: the native core has no {kind[:-1]} {key!r} "
                                    f"(it has {', '.join(table)}); play this pool with "
                                    f"backend='python'")
        return table.index(key)

    def _row(self, table: list, kind: str, obj, build) -> int:
        key = (kind, obj)
        i = self._memo.get(key)
        if i is None:
            table.append(build())
            i = self._memo[key] = len(table) - 1
        return i

    def filter(self, f: m.Filter | None, where: str) -> int:
        if f is None:
            return -1

        def build():
            by_id = self.db.by_id
            return [int(f.is_empty()),
                    sum(1 << _code(TYPES, t, "card type", where) for t in f.types),
                    int(bool(f.attributes)),
                    sum(1 << _code(m.ATTRIBUTES, a, "attribute", where) for a in f.attributes),
                    [self.name(a) for a in f.affiliations],
                    _opt(f.cost_min), _opt(f.cost_max), _opt(f.power_min), _opt(f.power_max),
                    _opt(f.hit_min), _opt(f.hit_max),
                    -1 if f.keyword is None else self.name(f.keyword),
                    _tri(f.has_item), _tri(f.has_trigger),
                    int(bool(f.ids)), [by_id[i].index for i in f.ids if i in by_id]]
        return self._row(self.filters, "filter", f, build)

    def selector(self, s: m.Selector | None, where: str) -> int:
        if s is None:
            return -1

        def build():
            return [-1 if s.ref is None else _code(REFS, s.ref, "card reference", where),
                    _code(WHO, s.who, "whose", where), _code(ZONES, s.zone, "zone", where),
                    _code(LANES, s.lanes, "lanes", where), int(s.other),
                    self.filter(s.filter, where), _code(MODES, s.mode, "mode", where), s.n]
        return self._row(self.selectors, "selector", s, build)

    def value(self, v: m.Value, where: str) -> int:
        def build():
            return [v.n, self.selector(v.count, where), v.times,
                    -1 if v.stat is None else _code(STATS, v.stat, "stat", where),
                    _code(("you", "opponent"), v.who, "whose", where)]
        return self._row(self.values, "value", v, build)

    def condition(self, c: m.Condition | None, where: str) -> int:
        if c is None:
            return -1

        def build():
            return [self.term("conditions", c.kind, where), c.n,
                    self.name(c.text) if c.text else -1, self.selector(c.selector, where)]
        return self._row(self.conditions, "condition", c, build)

    def action(self, a: m.Action, where: str) -> int:
        def build():
            return [self.term("verbs", a.verb, where), self.selector(a.target, where),
                    self.value(a.amount, where), _code(PLAYERS, a.player, "player", where),
                    a.power, a.hit, a.attacks, a.cost, a.size,
                    _code(UNTIL, a.until, "duration", where),
                    -1 if a.keyword is None else a.keyword.key,
                    -1 if not a.prohibit else _code(PROHIBITS, a.prohibit, "prohibition",
                                                    where),
                    int(a.optional), int(a.if_done), self.condition(a.condition, where),
                    int(a.up_to), int(a.random), self.filter(a.filter, where),
                    int(a.additionally), _code(SCALE_STATS, a.stat, "stat", where), a.percent]
        return self._row(self.actions, "action", a, build)

    def ability(self, ab: m.Ability, where: str) -> list:
        where = f"{where}, ability {ab.key} ({ab.when})"
        return [self.term("timings", ab.when, where),
                [self.action(a, where) for a in ab.actions],
                [self.condition(c, where) for c in ab.gates],
                self.condition(ab.condition, where), int(ab.optional),
                [self.action(a, where) for a in ab.cost], ab.key, ab.limit,
                -1 if not ab.watch else _code(m.WHENEVER_EVENTS, ab.watch, "watched action",
                                              where),
                _code(("you", "opponent"), ab.whose, "whose", where)]

    def keyword(self, k: m.Keyword, where: str) -> list:
        where = f"{where}, keyword {k.name}"
        return [self.name(k.name), self.term("subkeywords", k.term, where), k.n,
                self.filter(k.filter, where),
                -1 if not k.guardian else self.term("guardian_payments", k.guardian, where),
                [self.condition(c, where) for c in k.gates], k.key]

    def card(self, c: m.Card) -> list:
        where = f"card {c.id} ({c.source or 'no file'})"
        back = c.back
        return [_code(TYPES, c.type, "card type", where), c.cost, c.power, c.hit,
                m.ATTRIBUTES.index(c.attribute) if c.attribute in m.ATTRIBUTES else -1,
                [self.name(a) for a in c.affiliations],
                [a.key for a in c.abilities], [k.key for k in c.subkeywords],
                -1 if c.trigger_ability is None else c.trigger_ability.key,
                -1 if c.effect is None else c.effect.key,
                self.filter(c.equip, where), c.awakening,
                None if back is None else [[a.key for a in back.abilities],
                                           [k.key for k in back.subkeywords]],
                sorted(self.name(n) for n in c.keywords),
                [a.key for a in c.activated], [a.key for a in c.passives]]


def _owner_of_abilities(db) -> dict:
    """ability key -> the card printing it (for error messages)."""
    out = {}
    for c in db.cards:
        abs_ = list(c.abilities) + ([c.trigger_ability] if c.trigger_ability else []) + \
            ([c.effect] if c.effect else []) + (list(c.back.abilities) if c.back else [])
        for a in abs_:
            out.setdefault(a.key, c)
    return out


def compile_program(db, terms: dict) -> dict:
    """``db`` as the native core's program: a dict of tables (lists of int rows).

    ``terms`` is the core's ``TERMS`` (term kind -> the keys it has, in its code order).
    Raises ``NativeUnsupported`` naming the card and the term when the pool uses one the core
    lacks."""
    comp = _Compiler(db, terms)
    owners = _owner_of_abilities(db)
    abilities = []
    for ab in db.abilities:
        c = owners.get(ab.key)
        abilities.append(comp.ability(ab, f"card {c.id}" if c is not None else "the pool"))
    keywords = []
    kw_owner = {}
    for c in db.cards:
        for k in tuple(c.subkeywords) + (tuple(c.back.subkeywords) if c.back else ()):
            kw_owner.setdefault(k.key, c)
    for k in db.keywords:
        c = kw_owner.get(k.key)
        keywords.append(comp.keyword(k, f"card {c.id}" if c is not None else "the pool"))
    cards = [comp.card(c) for c in db.cards]
    moving = [comp.terms["verbs"].index(t.key) for t in VERBS
              if t.moves and t.key in comp.terms["verbs"]]
    return {"filters": comp.filters, "selectors": comp.selectors, "values": comp.values,
            "conditions": comp.conditions, "actions": comp.actions,
            "abilities": abilities, "keywords": keywords, "cards": cards,
            "moving_verbs": moving, "names": list(comp.names)}


_LOADED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def load_program(db, core):
    """The core's loaded ``Program`` for ``db``, compiled once per pool and process."""
    prog = _LOADED.get(db)
    if prog is None:
        prog = _LOADED[db] = core.Program(compile_program(db, core.TERMS))
    return prog
