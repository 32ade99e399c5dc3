"""Card-file schema: validate raw YAML data and compile it into ``model`` objects.

Validation is strict on purpose: an unknown key is far more often a typo that
would silently drop an effect than an intended extension.  Every error names
the file, the card id and the field path, e.g.
``cards.yaml: card T-012: abilities[0].do[1].trash.target.zone: unknown zone 'graveyard'``.
"""
from __future__ import annotations

from typing import Any

from . import model as m, vocab as voc


class CardDataError(ValueError):
    """A card file is malformed. ``file``, ``card`` and ``field`` say where."""

    def __init__(self, file: str, card: str | None, field: str | None, message: str):
        self.file, self.card, self.field, self.message = file, card, field, message
        where = file
        if card:
            where += f": card {card}"
        if field:
            where += f": {field}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):       # picklable, so it crosses to and from worker processes
        return type(self), (self.file, self.card, self.field, self.message)


class _Ctx:
    """Where we are while compiling, so errors can say so."""

    def __init__(self, file: str, card: str | None = None):
        self.file, self.card = file, card

    def fail(self, path: str, msg: str):
        raise CardDataError(self.file, self.card, path, msg)


# ----------------------------------------------------------------- primitives

def _int(ctx: _Ctx, v: Any, path: str, lo: int | None = 0, hi: int | None = 99) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        ctx.fail(path, f"expected a whole number, got {type(v).__name__} {v!r}")
    if lo is not None and v < lo:
        ctx.fail(path, f"must be at least {lo}, got {v}")
    if hi is not None and v > hi:
        ctx.fail(path, f"must be at most {hi}, got {v}")
    return v


def _str(ctx: _Ctx, v: Any, path: str) -> str:
    if not isinstance(v, str) or not v.strip():
        ctx.fail(path, f"expected a non-empty string, got {v!r}")
    return v.strip()


def _bool(ctx: _Ctx, v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        ctx.fail(path, f"expected true or false, got {v!r}")
    return v


def _dict(ctx: _Ctx, v: Any, path: str) -> dict:
    if not isinstance(v, dict):
        ctx.fail(path, f"expected a mapping, got {type(v).__name__}")
    for k in v:
        if not isinstance(k, str):
            ctx.fail(path, f"keys must be strings, got {k!r}")
    return v


def _list(ctx: _Ctx, v: Any, path: str) -> list:
    if not isinstance(v, list):
        ctx.fail(path, f"expected a list, got {type(v).__name__}")
    return v


def _keys(ctx: _Ctx, d: dict, allowed: set, path: str, required: tuple = ()):
    for k in d:
        if k not in allowed:
            ctx.fail(f"{path}.{k}" if path else k,
                     f"unknown field (allowed: {', '.join(sorted(allowed))})")
    for k in required:
        if k not in d:
            ctx.fail(f"{path}.{k}" if path else k, "missing required field")


def _strs(ctx: _Ctx, v: Any, path: str) -> tuple:
    if isinstance(v, str):
        v = [v]
    return tuple(_str(ctx, x, f"{path}[{i}]") for i, x in enumerate(_list(ctx, v, path)))


# -------------------------------------------------------------------- filters

_FILTER_KEYS = {"type", "attribute", "affiliation", "cost_min", "cost_max", "power_min",
                "power_max", "hit_min", "hit_max", "keyword", "has_item", "has_trigger", "id"}


def parse_filter(ctx: _Ctx, d: Any, path: str) -> m.Filter:
    if d is None or d is True:
        return m.EMPTY_FILTER
    d = _dict(ctx, d, path)
    _keys(ctx, d, _FILTER_KEYS, path)
    kw = {}
    if "type" in d:
        types = _strs(ctx, d["type"], f"{path}.type")
        for t in types:
            if t not in m.CARD_TYPES:
                ctx.fail(f"{path}.type", f"unknown card type {t!r}")
        kw["types"] = types
    if "attribute" in d:
        attrs = _strs(ctx, d["attribute"], f"{path}.attribute")
        for a in attrs:
            if a not in m.ATTRIBUTES:
                ctx.fail(f"{path}.attribute", f"unknown attribute {a!r} (one of {', '.join(m.ATTRIBUTES)})")
        kw["attributes"] = attrs
    if "affiliation" in d:
        kw["affiliations"] = _strs(ctx, d["affiliation"], f"{path}.affiliation")
    for k in ("cost_min", "cost_max", "power_min", "power_max", "hit_min", "hit_max"):
        if k in d:
            kw[k] = _int(ctx, d[k], f"{path}.{k}")
    if "keyword" in d:
        name = _str(ctx, d["keyword"], f"{path}.keyword")
        if name not in voc.BY_NAME:
            ctx.fail(f"{path}.keyword", f"unknown keyword {name!r}")
        kw["keyword"] = name
    for k in ("has_item", "has_trigger"):
        if k in d:
            kw[k] = _bool(ctx, d[k], f"{path}.{k}")
    if "id" in d:
        kw["ids"] = _strs(ctx, d["id"], f"{path}.id")
    return m.Filter(**kw)


# ------------------------------------------------------------------ selectors

REFS = ("self", "encounter", "attacker", "defender", "battle_opponent", "equipped")
ZONES = ("unit", "item", "hand", "trash", "deck", "damage", "skill")
_SEL_KEYS = {"who", "zone", "lanes", "other", "filter", "all", "choose", "up_to", "random"}


def parse_selector(ctx: _Ctx, d: Any, path: str, default: m.Selector) -> m.Selector:
    if d is None:
        return default
    if isinstance(d, str):
        if d not in REFS:
            ctx.fail(path, f"unknown card reference {d!r} (one of {', '.join(REFS)})")
        return m.Selector(ref=d, mode="all")
    d = _dict(ctx, d, path)
    _keys(ctx, d, _SEL_KEYS, path)
    who = d.get("who", default.who)
    if who not in ("you", "opponent", "any"):
        ctx.fail(f"{path}.who", f"expected you, opponent or any, got {who!r}")
    zone = d.get("zone", default.zone)
    if zone not in ZONES:
        ctx.fail(f"{path}.zone", f"unknown zone {zone!r} (one of {', '.join(ZONES)})")
    lanes = d.get("lanes", "any")
    if lanes not in ("any", "same", "adjacent", "other"):
        ctx.fail(f"{path}.lanes", f"expected any, same, adjacent or other, got {lanes!r}")
    modes = [k for k in ("all", "choose", "up_to", "random") if k in d]
    if len(modes) > 1:
        ctx.fail(path, f"give only one of all / choose / up_to / random, got {', '.join(modes)}")
    mode, n = default.mode, default.n
    if modes:
        mode = modes[0]
        if mode == "all":
            if d["all"] is not True:
                ctx.fail(f"{path}.all", "expected true")
            n = 0
        else:
            n = _int(ctx, d[mode], f"{path}.{mode}", lo=1, hi=40)
    other = _bool(ctx, d["other"], f"{path}.other") if "other" in d else False
    return m.Selector(ref=None, who=who, zone=zone, lanes=lanes, other=other,
                      filter=parse_filter(ctx, d.get("filter"), f"{path}.filter"), mode=mode, n=n)


def parse_value(ctx: _Ctx, v: Any, path: str, lo: int = 0) -> m.Value:
    if isinstance(v, int) and not isinstance(v, bool):
        return m.Value(_int(ctx, v, path, lo=lo, hi=40))
    d = _dict(ctx, v, path)
    _keys(ctx, d, {"count", "times", "stat", "who"}, path)
    times = _int(ctx, d.get("times", 1), f"{path}.times", lo=1, hi=10)
    if "count" in d:
        sel = parse_selector(ctx, d["count"], f"{path}.count", m.Selector(mode="all", n=0))
        return m.Value(count=m.Selector(ref=sel.ref, who=sel.who, zone=sel.zone, lanes=sel.lanes,
                                        other=sel.other, filter=sel.filter, mode="all"),
                       times=times)
    if "stat" in d:
        stat = d["stat"]
        if stat not in ("level", "damage", "hand"):
            ctx.fail(f"{path}.stat", f"expected level, damage or hand, got {stat!r}")
        who = d.get("who", "you")
        if who not in ("you", "opponent"):
            ctx.fail(f"{path}.who", f"expected you or opponent, got {who!r}")
        return m.Value(stat=stat, who=who, times=times)
    ctx.fail(path, "a value is a number, {count: selector} or {stat: level|damage|hand}")


# ----------------------------------------------------------------- conditions

def _gate_names() -> str:
    return ", ".join(t.key for t in voc.GATES)


def parse_gate(ctx: _Ctx, val: Any, path: str) -> m.Condition:
    """One ``while:`` entry: a section-10 continuous keyword condition."""
    if isinstance(val, str):
        t = voc.GATE_BY_KEY.get(val)
        if t is not None and t.arg != "int":
            return m.Condition(val)
        ctx.fail(path, f"unknown gate {val!r} (one of {_gate_names()})")
    d = _dict(ctx, val, path)
    if len(d) != 1:
        ctx.fail(path, "a gate has exactly one key")
    (k, arg), = d.items()
    t = voc.GATE_BY_KEY.get(k)
    if t is None:
        ctx.fail(path, f"unknown gate {k!r} (one of {_gate_names()})")
    if t.arg == "affiliation?":
        if arg is True or arg is None:
            return m.Condition(k)
        return m.Condition(k, text=_str(ctx, arg, f"{path}.{k}"))          # 10.1.8.3
    if t.arg == "int":
        return m.Condition(k, n=_int(ctx, arg, f"{path}.{k}", lo=t.lo, hi=t.hi))
    if arg is not True:
        ctx.fail(f"{path}.{k}", "expected true")
    return m.Condition(k)


def parse_condition(ctx: _Ctx, val: Any, path: str) -> m.Condition:
    d = _dict(ctx, val, path)
    if "count" in d:
        _keys(ctx, d, {"count", "at_least", "at_most"}, path)
        sel = parse_selector(ctx, d["count"], f"{path}.count", m.Selector(mode="all", n=0))
        for bound in ("at_least", "at_most"):
            if bound in d:
                return m.Condition(f"count_{bound}", n=_int(ctx, d[bound], f"{path}.{bound}"),
                                   selector=sel)
        ctx.fail(path, "a count condition needs at_least or at_most")
    if len(d) != 1:
        ctx.fail(path, "a condition has exactly one key")
    (k, arg), = d.items()
    t = voc.CONDITION_BY_KEY.get(k)
    if t is not None and t.kind == voc.GATE:
        return parse_gate(ctx, d, path)
    if t is not None and t.arg == "int":
        return m.Condition(k, n=_int(ctx, arg, f"{path}.{k}", lo=t.lo, hi=t.hi))
    names = [t.key for t in voc.CONDITIONS if t.arg != "count"]
    ctx.fail(path, f"unknown condition {k!r} (one of {', '.join(names)}, count)")


def parse_gates(ctx: _Ctx, v: Any, path: str) -> tuple:
    if v is None:
        return ()
    if not isinstance(v, list):
        v = [v]
    return tuple(parse_gate(ctx, x, f"{path}[{i}]") for i, x in enumerate(v))


# -------------------------------------------------------------- sub-keywords

def parse_subkeyword(ctx: _Ctx, val: Any, path: str) -> m.Keyword:
    gates: tuple = ()
    if isinstance(val, str):
        name, arg = val, True
    else:
        d = dict(_dict(ctx, val, path))
        gates = parse_gates(ctx, d.pop("while", None), f"{path}.while")
        if len(d) != 1:
            ctx.fail(path, "a keyword entry has one keyword (plus an optional while)")
        (name, arg), = d.items()
    t = voc.SUBKEYWORD_BY_KEY.get(name)
    if t is None:
        ctx.fail(path, f"unknown sub-keyword {name!r} (one of "
                       f"{', '.join(t.key for t in voc.SUBKEYWORDS)})")
    p = f"{path}.{name}"
    kw = {"name": t.en, "term": t.key, "gates": gates}
    if t.arg == "int":
        return m.Keyword(n=_int(ctx, arg, p, lo=t.lo, hi=t.hi), **kw)
    if t.arg == "filter?":                           # 10.2.3.4.3: no condition = all units
        return m.Keyword(filter=m.EMPTY_FILTER if arg is True else parse_filter(ctx, arg, p),
                         **kw)
    if t.arg == "guardian":                          # 10.2.6.3.4
        g = _dict(ctx, arg, p)
        if len(g) != 1 or next(iter(g)) not in voc.PAYMENT_BY_KEY:
            ctx.fail(p, f"{name} needs exactly one condition: "
                        f"{', '.join(t.key for t in voc.GUARDIAN_PAYMENTS)}")
        (kind, garg), = g.items()
        pay = voc.PAYMENT_BY_KEY[kind]
        if pay.arg == "filter":
            return m.Keyword(guardian=kind, filter=parse_filter(ctx, garg, f"{p}.{kind}"), **kw)
        return m.Keyword(guardian=kind, n=_int(ctx, garg, f"{p}.{kind}", lo=pay.lo, hi=pay.hi),
                         **kw)
    if arg is not True:
        ctx.fail(p, "this sub-keyword takes no value (write just its name)")
    return m.Keyword(**kw)


# -------------------------------------------------------------------- actions

_ACTION_MODS = {t.key for t in voc.MODIFIERS} | {"if", "text"}


def parse_action(ctx: _Ctx, v: Any, path: str, continuous: bool = False,
                 default_until: str = m.UNTIL_TURN) -> m.Action:
    d = _dict(ctx, v, path)
    verbs = [k for k in d if k in voc.VERB_BY_KEY]
    if len(verbs) != 1:
        unknown = [k for k in d if k not in voc.VERB_BY_KEY and k not in _ACTION_MODS]
        if unknown:
            ctx.fail(f"{path}.{unknown[0]}", f"unknown verb (one of {', '.join(voc.VERB_BY_KEY)})")
        ctx.fail(path, f"an action has exactly one verb, got {verbs or 'none'}")
    verb = verbs[0]
    _keys(ctx, d, _ACTION_MODS | {verb}, path)
    term = voc.VERB_BY_KEY[verb]
    allowed, default_target, scalar = set(term.args), term.target, term.scalar
    p = f"{path}.{verb}"
    args = d[verb]
    if not isinstance(args, dict):
        args = {scalar: args}                      # `draw: 2`, `trash: encounter`
    elif scalar == "target" and not (set(args) & allowed):
        args = {"target": args}                    # `trash: {who: opponent, ...}`
    args = _dict(ctx, args, p)
    _keys(ctx, args, allowed, p)
    if continuous and not term.passive:
        ctx.fail(p, "a continuous (passive) ability can only "
                    + " or ".join(t.key for t in voc.VERBS if t.passive))
    kw: dict[str, Any] = {"verb": verb, "until": m.UNTIL_LEAVES if continuous else default_until,
                          "player": term.player}
    if "target" in allowed:
        kw["target"] = parse_selector(ctx, args.get("target"), f"{p}.target", default_target)
    if "amount" in args:                       # size may go down (4.7.3): -20..20
        kw["amount"] = parse_value(ctx, args["amount"], f"{p}.amount",
                                   lo=-20 if verb == "size" else 0)
    if verb == "size":
        a = args.get("amount")
        if not isinstance(a, int) or isinstance(a, bool):
            ctx.fail(f"{p}.amount", "size takes a whole number (negative to reduce)")
        kw["size"] = _int(ctx, a, f"{p}.amount", lo=-20, hi=20)
    if "player" in args:
        pl = args["player"]
        if pl not in ("you", "opponent", "each"):
            ctx.fail(f"{p}.player", f"expected you, opponent or each, got {pl!r}")
        kw["player"] = pl
    if verb == "scale":
        _scale_args(ctx, args, p, kw)
    for stat in ("power", "hit", "attacks", "cost"):
        if stat in args and verb == "modify":
            kw[stat] = _int(ctx, args[stat], f"{p}.{stat}", lo=-20, hi=20)
    if term.needs and not any(k in args for k in term.needs):
        ctx.fail(p, f"{verb} needs {' or '.join(term.needs)}")
    if "until" in args:
        if args["until"] not in m.DURATIONS:
            ctx.fail(f"{p}.until", f"expected one of {', '.join(m.DURATIONS)}")
        kw["until"] = args["until"]
    if "keyword" in args:
        kw["keyword"] = parse_subkeyword(ctx, args["keyword"], f"{p}.keyword")
    if verb == "prohibit":
        what = args.get("what")
        if what not in ("attack", "defend"):
            ctx.fail(f"{p}.what", "expected attack or defend")
        kw["prohibit"] = what
    if "up_to" in args:
        kw["up_to"] = _bool(ctx, args["up_to"], f"{p}.up_to")
    if "random" in args:
        kw["random"] = _bool(ctx, args["random"], f"{p}.random")
    if "filter" in allowed:
        kw["filter"] = parse_filter(ctx, args.get("filter"), f"{p}.filter")
    if kw.get("up_to") and verb == "draw" and kw["player"] == "each":
        ctx.fail(f"{p}.up_to", "draw up to N is chosen by one player: player you or opponent")
    if verb == "win" and kw["player"] == "each":
        ctx.fail(f"{p}.player", "both players cannot win (write lose: each for a draw)")
    if verb == "trash" and kw["target"].ref is None and kw["target"].zone == "trash":
        ctx.fail(f"{p}.target.zone", "a card in the trash cannot be trashed (4.8.2): this "
                                     "action could never be carried out")
    if verb == "attack":
        t = kw["target"]
        if t.ref not in ("self", None) or (t.ref is None and (t.who, t.zone) != ("you", "unit")):
            ctx.fail(f"{p}.target", "attack: only your own unit declares an attack "
                                    "(self, or who: you, zone: unit)")
    if "additionally" in d:
        kw["additionally"] = _bool(ctx, d["additionally"], f"{path}.additionally")
        if kw["additionally"] and continuous:
            ctx.fail(f"{path}.additionally", "a passive ability's actions are not carried out "
                                             "one after another; additionally does not apply")
    if "may" in d:
        kw["optional"] = _bool(ctx, d["may"], f"{path}.may")
    if "if_done" in d:
        kw["if_done"] = _bool(ctx, d["if_done"], f"{path}.if_done")
    if "if" in d:
        kw["condition"] = parse_condition(ctx, d["if"], f"{path}.if")
    if "text" in d:
        kw["text"] = _str(ctx, d["text"], f"{path}.text")
    return m.Action(**kw)


def _scale_args(ctx: _Ctx, args: dict, p: str, kw: dict) -> None:
    stat = args.get("stat", "power")
    if stat not in ("power", "hit"):
        ctx.fail(f"{p}.stat", f"expected power or hit, got {stat!r}")
    f = args["factor"]
    if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0.01 <= f <= 10 or \
            abs(f * 100 - round(f * 100)) > 1e-9:
        ctx.fail(f"{p}.factor", f"expected a number 0.01..10 in hundredths (0.5 halves), "
                                f"got {f!r}")
    kw["stat"], kw["percent"] = stat, int(round(f * 100))


def parse_actions(ctx: _Ctx, v: Any, path: str, continuous: bool = False,
                  default_until: str = m.UNTIL_TURN) -> tuple:
    items = _list(ctx, v, path)
    if not items:
        ctx.fail(path, "needs at least one action")
    out = tuple(parse_action(ctx, a, f"{path}[{i}]", continuous, default_until)
                for i, a in enumerate(items))
    if out[0].additionally:                        # 8.4.4.1: together with the one before
        ctx.fail(f"{path}[0].additionally", "the first action has no action before it to be "
                                            "carried out with")
    return out


_ABILITY_KEYS = {"when", "do", "while", "if", "may", "cost", "limit", "watch", "whose"}
#: 8.4.1.1: the verbs that can meet each condition a ``whenever`` ability watches (a card
#: drawn, discarded, put into the trash or the damage zone), for either player: an
#: ability whose actions could meet its own condition is refused, and with it every loop
#: two such abilities could make without using up a deck (see ``_whenever``)
_FEEDS = {"draw": {"draw"}, "discard": {"discard", "trash"},
          "trash": {"discard", "trash", "mill", "heal"}, "damage": {"damage", "to_damage"}}


def _whenever(ctx: _Ctx, d: dict, path: str, actions: tuple) -> dict:
    """``watch`` and ``whose`` of a ``whenever`` ability (8.4.1.1), checked.  Its actions may not
    use a verb that can meet the condition it watches, whoever's: "whenever a card is put
    into your trash: discard a card, then take a card back" would be carried out for ever.
    Of what is left, only drawing, damage and the other verbs that use up a deck, a hand or
    the field can lead back to a watched action, so every chain of them ends."""
    on = d.get("watch")
    if on not in m.WHENEVER_EVENTS:
        ctx.fail(f"{path}.watch", f"whenever needs the action it watches: one of "
                               f"{', '.join(m.WHENEVER_EVENTS)}, got {on!r}")
    whose = d.get("whose", "you")
    if whose not in ("you", "opponent"):
        ctx.fail(f"{path}.whose", f"expected you or opponent, got {whose!r}")
    for i, a in enumerate(actions):
        if a.verb in _FEEDS[on]:
            ctx.fail(f"{path}.do[{i}].{a.verb}", f"a whenever-{on} ability cannot {a.verb}: "
                                                 f"each time it is carried out it could meet "
                                                 f"its own condition again")
    return {"watch": on, "whose": whose}


def parse_ability(ctx: _Ctx, v: Any, path: str, card_type: str) -> m.Ability:
    d = _dict(ctx, v, path)
    _keys(ctx, d, _ABILITY_KEYS, path, required=("when", "do"))
    when = d["when"]
    timing = voc.TIMING_BY_KEY.get(when) if isinstance(when, str) else None
    if timing is None:
        ctx.fail(f"{path}.when", f"unknown timing {when!r} (one of "
                                 f"{', '.join(t.key for t in voc.TIMINGS)})")
    if card_type == m.LEADER and not timing.leader:
        ctx.fail(f"{path}.when", f"a leader's effects are "
                                 f"{', '.join(t.key for t in voc.TIMINGS if t.leader)}, not {when}")
    if card_type == m.SKILL:
        ctx.fail(path, "a skill has one 'effect', not abilities")
    continuous = when == m.PASSIVE
    cost = ()
    if "cost" in d:
        if when not in m.ACTIVATED:
            ctx.fail(f"{path}.cost", "only activated (active_main / active_attack) effects have a cost")
        cost = parse_actions(ctx, d["cost"], f"{path}.cost")
        for i, a in enumerate(cost):
            if not voc.VERB_BY_KEY[a.verb].cost:
                ctx.fail(f"{path}.cost[{i}]", f"{a.verb} cannot be a cost")
    limit = 1
    if "limit" in d:
        if when not in m.ACTIVATED:
            ctx.fail(f"{path}.limit", "only activated effects have a per-turn limit")
        limit = _int(ctx, d["limit"], f"{path}.limit", lo=1, hi=9)
    # 10.1.5.2 / 10.1.6.2: Attacker and Defender effects last until the battle ends
    actions = parse_actions(ctx, d["do"], f"{path}.do", continuous, timing.until)
    watch = {}
    if when == m.WHENEVER:                         # 8.4.1.1
        watch = _whenever(ctx, d, path, actions)
    elif "watch" in d or "whose" in d:
        ctx.fail(f"{path}.{'watch' if 'watch' in d else 'whose'}", "only a whenever ability "
                                                            "watches an action")
    return m.Ability(
        when=when,
        actions=actions,
        gates=parse_gates(ctx, d.get("while"), f"{path}.while"),
        condition=parse_condition(ctx, d["if"], f"{path}.if") if "if" in d else None,
        optional=_bool(ctx, d["may"], f"{path}.may") if "may" in d else False,
        cost=cost, limit=limit, **watch,
    )


# ---------------------------------------------------------------------- cards

_COMMON = {"id", "type", "name", "name_ko"}
_TYPE_KEYS = {
    m.LEADER: _COMMON | {"attribute", "oath", "awakening", "abilities", "keywords", "back"},
    m.UNIT: _COMMON | {"cost", "power", "hit", "attribute", "affiliation", "trigger", "abilities",
                       "keywords"},
    m.ITEM: _COMMON | {"cost", "attribute", "affiliation", "equip", "trigger", "abilities",
                       "keywords"},
    m.SKILL: _COMMON | {"cost", "attribute", "affiliation", "trigger", "effect", "if"},
}
_REQUIRED = {
    m.LEADER: ("oath",),
    m.UNIT: ("cost", "power", "hit", "attribute"),
    m.ITEM: ("cost", "attribute", "equip"),
    m.SKILL: ("cost", "attribute", "effect"),
}


def _parse_oath(ctx: _Ctx, v: Any, path: str) -> tuple:
    rules = []
    for i, r in enumerate(_list(ctx, v, path)):
        p = f"{path}[{i}]"
        d = _dict(ctx, r, p)
        if "all" in d:
            _keys(ctx, d, {"all", "text"}, p)
            rules.append(m.OathRule("all", parse_filter(ctx, d["all"], f"{p}.all"), 0,
                                    d.get("text", "")))
        elif "at_least" in d or "at_most" in d:
            kind = "at_least" if "at_least" in d else "at_most"
            _keys(ctx, d, {kind, "filter", "text"}, p, required=("filter",))
            rules.append(m.OathRule(kind, parse_filter(ctx, d["filter"], f"{p}.filter"),
                                    _int(ctx, d[kind], f"{p}.{kind}", hi=40), d.get("text", "")))
        else:
            ctx.fail(p, "an oath rule is {all: filter}, {at_least: N, filter} or {at_most: N, filter}")
    return tuple(rules)


def _leader_stays(ctx: _Ctx, abilities: tuple, path: str) -> None:
    """3.3.4: a leader card never leaves the level zone, by effect or by rule.  On a leader,
    ``self`` is the leader card itself, so an action of a verb that moves cards (``trash``,
    ``return_to_hand``, ...) aimed at ``self`` could only ever try to move the leader: it
    would never do anything, and is refused.  (A selector that may take a leader among
    other cards is fine: the engine skips the leader, engine/verbs.py.)"""
    for i, ab in enumerate(abilities):
        for part, acts in (("cost", ab.cost), ("do", ab.actions)):
            for j, a in enumerate(acts):
                if voc.VERB_BY_KEY[a.verb].moves and a.target is not None and \
                        a.target.ref == "self":
                    ctx.fail(f"{path}[{i}].{part}[{j}].{a.verb}.target",
                             f"self is this leader, and a leader never leaves the level zone "
                             f"(3.3.4): {a.verb} could never be carried out")


def compile_card(raw: Any, file: str, index: int) -> m.Card:
    """Validate one card mapping and build its immutable ``Card``."""
    ctx = _Ctx(file)
    d = _dict(ctx, raw, f"cards[{index}]")
    cid = d.get("id")
    if not isinstance(cid, str) or not cid.strip():
        ctx.fail(f"cards[{index}].id", f"missing or empty card id, got {cid!r}")
    # every whitespace character but ' ' is unprintable (a Unicode separator or control)
    if " " in cid or "#" in cid or not cid.isprintable() or len(cid) > 64:
        # a deck file names cards as 'COUNT ID' with '#' comments: such an id could never
        # be written there
        ctx.fail(f"cards[{index}].id", f"card id {cid[:80]!r} must be at most 64 characters "
                                       f"with no spaces, '#' or control characters")
    ctx.card = cid
    ctype = d.get("type")
    if ctype not in m.CARD_TYPES:
        ctx.fail("type", f"expected one of {', '.join(m.CARD_TYPES)}, got {ctype!r}")
    _keys(ctx, d, _TYPE_KEYS[ctype], "", required=("name",) + _REQUIRED[ctype])
    kw: dict[str, Any] = dict(id=cid, type=ctype, name=_str(ctx, d["name"], "name"),
                              name_ko=_str(ctx, d.get("name_ko", d["name"]), "name_ko"),
                              source=file, raw=d)
    if "cost" in d:
        kw["cost"] = _int(ctx, d["cost"], "cost", hi=20)
    if ctype == m.UNIT:
        kw["power"] = _int(ctx, d["power"], "power", lo=1, hi=50)
        kw["hit"] = _int(ctx, d["hit"], "hit", hi=10)
    if "attribute" in d:
        a = _str(ctx, d["attribute"], "attribute")
        if a not in m.ATTRIBUTES:
            ctx.fail("attribute", f"unknown attribute {a!r} (one of {', '.join(m.ATTRIBUTES)})")
        kw["attribute"] = a
    if "affiliation" in d:
        kw["affiliations"] = _strs(ctx, d["affiliation"], "affiliation")
    if "trigger" in d:
        kw["trigger"] = parse_actions(ctx, d["trigger"], "trigger")
    active = 0
    if "abilities" in d:                  # (most cards have none: no loop to set up)
        abilities = tuple(parse_ability(ctx, a, f"abilities[{i}]", ctype)
                          for i, a in enumerate(_list(ctx, d["abilities"], "abilities")))
        active = sum(1 for a in abilities if a.when in m.ACTIVATED)
        kw["abilities"] = abilities
    if "keywords" in d:
        kw["subkeywords"] = tuple(parse_subkeyword(ctx, k, f"keywords[{i}]")
                                  for i, k in enumerate(_list(ctx, d["keywords"], "keywords")))
    if active > 4:
        ctx.fail("abilities", f"a card has at most 4 activated effects, this one has {active}")
    if ctype == m.ITEM:
        kw["equip"] = parse_filter(ctx, d["equip"], "equip")
    if ctype == m.SKILL:
        kw["effect"] = m.Ability(
            when=m.ACTIVE_MAIN, actions=parse_actions(ctx, d["effect"], "effect"),
            condition=parse_condition(ctx, d["if"], "if") if "if" in d else None)
    if ctype == m.LEADER:
        _leader_stays(ctx, kw.get("abilities", ()), "abilities")
        kw["oath"] = _parse_oath(ctx, d["oath"], "oath")
        if "awakening" in d or "back" in d:
            if "awakening" not in d or "back" not in d:
                ctx.fail("awakening", "a leader with awakening needs both 'awakening' (level) and 'back'")
            kw["awakening"] = _int(ctx, d["awakening"], "awakening", lo=2, hi=10)
            b = _dict(ctx, d["back"], "back")
            _keys(ctx, b, {"name", "name_ko", "abilities", "keywords"}, "back", required=("name",))
            kw["back"] = m.Face(
                name=_str(ctx, b["name"], "back.name"),
                name_ko=_str(ctx, b.get("name_ko", b["name"]), "back.name_ko"),
                abilities=tuple(parse_ability(ctx, a, f"back.abilities[{i}]", ctype)
                                for i, a in enumerate(_list(ctx, b.get("abilities", []),
                                                            "back.abilities"))),
                subkeywords=tuple(parse_subkeyword(ctx, k, f"back.keywords[{i}]")
                                  for i, k in enumerate(_list(ctx, b.get("keywords", []),
                                                              "back.keywords"))))
            _leader_stays(ctx, kw["back"].abilities, "back.abilities")
    card = m.Card(**kw)
    return card
