"""Build any position from a description (a dict, or a YAML/JSON file).

Used by the rule tests, and by users for puzzles and curricula; the format is
documented in docs/scenarios.md.  The game starts at the turn player's main
(or attack) phase decision with nothing pending.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..cards import CardDB, load_card_db
from ..cards import model as m
from ..cards import yamlio
from . import const as K
from .config import RuleConfig
from .errors import ScenarioError
from .events import Scenario
from .flow import run
from .legal import field_cost
from .state import blank_game
from .stats import ensure
from .zones import put

_TOP = {"turn", "turn_player", "first_player", "phase", "seed", "config", "players",
        "check_field_cost"}
_PLAYER = {"leader", "level", "awakened", "hand", "deck", "units", "skills", "damage", "trash"}


def load_scenario(source: str | Path | dict, db: CardDB | None = None):
    """A ``Game`` at the described position (a dict, or a path to YAML/JSON)."""
    name = "<scenario>"
    if not isinstance(source, dict):
        name = str(source)
        try:
            source = yamlio.parse(yamlio.read_text(source))
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as e:
            raise ScenarioError(f"{name}: cannot read scenario: {e}") from None
    return build(source, db or load_card_db(), name)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _fail(name: str, field: str, msg: str):
    raise ScenarioError(f"{name}: {field}: {msg}")


def build(d: Any, db: CardDB, name: str = "<scenario>"):
    if not isinstance(d, dict):
        _fail(name, "(top)", f"expected a mapping, got {type(d).__name__}")
    for k in d:
        if k not in _TOP:
            _fail(name, str(k), f"unknown field (allowed: {', '.join(sorted(_TOP))})")
    players = d.get("players")
    if not isinstance(players, list) or len(players) != 2:
        _fail(name, "players", "expected a list of two players")
    try:
        cfg = RuleConfig.from_dict({} if d.get("config") is None else d["config"])
    except (TypeError, ValueError) as e:
        _fail(name, "config", str(e))
    tp = d.get("turn_player", 0)
    if not _is_int(tp) or tp not in (0, 1):                  # 1.0 and true are not players
        _fail(name, "turn_player", f"expected 0 or 1, got {tp!r}")
    first = d.get("first_player", tp)
    if not _is_int(first) or first not in (0, 1):
        _fail(name, "first_player", f"expected 0 or 1, got {first!r}")
    turn = d.get("turn", 3)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= cfg.max_turns:
        _fail(name, "turn", f"expected a whole number 1..{cfg.max_turns}, got {turn!r}")
    phase = d.get("phase", "main")
    if phase not in ("main", "attack"):
        _fail(name, "phase", f"expected main or attack, got {phase!r}")
    seed = d.get("seed", 0)
    if not _is_int(seed) or not 0 <= seed < 2 ** 64:
        _fail(name, "seed", f"expected a whole number 0..2^64-1, got {seed!r}"[:200])

    defs = [0] * (2 * K.PER)
    placements: list[tuple] = []           # (iid, zone, lane)
    levels, awake = [1, 1], [False, False]
    for p, pd in enumerate(players):
        f = f"players[{p}]"
        if not isinstance(pd, dict):
            _fail(name, f, "expected a mapping")
        for k in pd:
            if k not in _PLAYER:
                _fail(name, f"{f}.{k}", f"unknown field (allowed: {', '.join(sorted(_PLAYER))})")
        nxt = [p * K.PER + 1]

        def card(cid: Any, field: str, types: tuple = ()) -> int:
            if not isinstance(cid, str) or cid not in db:
                _fail(name, field, f"unknown card id {cid!r}")
            c = db.get(cid)
            if c.type == m.LEADER:
                _fail(name, field, f"{cid} is a leader; put it under 'leader'")
            if types and c.type not in types:
                _fail(name, field, f"{cid} is a {c.type}, expected {' or '.join(types)}")
            if nxt[0] >= (p + 1) * K.PER:
                _fail(name, field, f"a player has at most {K.PER - 1} cards besides the leader")
            iid = nxt[0]
            nxt[0] += 1
            defs[iid] = c.index
            return iid

        def ids(key: str, types: tuple = ()) -> list[int]:
            v = pd.get(key, [])
            if not isinstance(v, list):
                _fail(name, f"{f}.{key}", "expected a list of card ids")
            return [card(cid, f"{f}.{key}[{i}]", types) for i, cid in enumerate(v)]

        lid = pd.get("leader")
        if not isinstance(lid, str) or lid not in db or db.get(lid).type != m.LEADER:
            _fail(name, f"{f}.leader", f"expected a leader card id, got {lid!r}")
        defs[p * K.PER] = db.get(lid).index
        lvl = pd.get("level", 1)
        if not isinstance(lvl, int) or isinstance(lvl, bool) or not 1 <= lvl <= 10:
            _fail(name, f"{f}.level", f"expected 1..10 (4.6.3), got {lvl!r}")
        levels[p] = lvl
        leader = db.get(lid)
        can_wake = leader.back is not None and lvl >= leader.awakening
        aw = pd.get("awakened", can_wake)
        if not isinstance(aw, bool):                           # "no" would read as true
            _fail(name, f"{f}.awakened", f"expected true or false, got {aw!r}")
        if aw and not can_wake:
            _fail(name, f"{f}.awakened", f"{lid} awakens at level {leader.awakening} "
                                         f"(10.2.6.1), this leader is at level {lvl}"
                  if leader.back is not None else f"{lid} has no back face to awaken to")
        awake[p] = aw
        for iid in ids("hand"):
            placements.append((iid, K.Z_HAND, 3))
        for iid in reversed(ids("deck")):             # listed top first; the list ends at the top
            placements.append((iid, K.Z_DECK, 3))
        units = pd.get("units", [])
        if not isinstance(units, list) or len(units) > 3:
            _fail(name, f"{f}.units", "expected a list of at most 3 lanes")
        for lane, u in enumerate(units):
            uf = f"{f}.units[{lane}]"
            if u is None:
                continue
            items = []
            if isinstance(u, dict):
                extra = set(u) - {"card", "items"}
                if extra:
                    _fail(name, f"{uf}.{sorted(extra)[0]}", "unknown field (allowed: card, items)")
                items = u.get("items", [])
                if not isinstance(items, list):
                    _fail(name, f"{uf}.items", "expected a list of item ids")
                u = u.get("card")
            placements.append((card(u, uf, (m.UNIT,)), K.Z_UNIT, lane))
            for i, it in enumerate(items):
                placements.append((card(it, f"{uf}.items[{i}]", (m.ITEM,)), K.Z_ITEM, lane))
        for iid in ids("skills", (m.SKILL,)):
            placements.append((iid, K.Z_SKILL, 3))
        dmg = ids("damage")
        if len(dmg) >= 10:
            _fail(name, f"{f}.damage", "10 or more damage means the game is already over (3.7.3)")
        for iid in dmg:
            placements.append((iid, K.Z_DAMAGE, 3))
        for iid in ids("trash"):
            placements.append((iid, K.Z_TRASH, 3))

    g = blank_game(db, defs, seed, cfg)
    g.level, g.awake = levels, awake
    g.turn, g.tp, g.first = turn, tp, first
    g.mulled = [True, True]
    for iid, zone, lane in placements:
        put(g, iid, zone, lane)
        g.stamp[iid] = 0
    ensure(g)
    check = d.get("check_field_cost", True)
    if not isinstance(check, bool):
        _fail(name, "check_field_cost", f"expected true or false, got {check!r}")
    # 6.4.1.1.2: every card was played within the size.  A game gets past it only when
    # the size falls afterwards (a bonus expiring, 4.7.3; damage healed, 4.7.2); nothing is
    # trashed then (tests/engine/test_field_over_size.py), but a scenario that starts there is
    # more often a mistake, so it is built only when asked for.
    for p in (0, 1) if check else ():
        cost = field_cost(g, p)
        if cost > g.size[p]:
            _fail(name, f"players[{p}]", f"the cards on the field cost {cost} but the size is "
                                         f"{g.size[p]} (level {g.level[p]} + "
                                         f"{len(g.damage[p])} damage, 4.7.2); no card could "
                                         f"have been played into it (6.4.1.1.2) unless the "
                                         f"size fell afterwards (an effect's size bonus "
                                         f"expiring, 4.7.3, or damage healed) -- "
                                         f"check_field_cost: false builds it")
    g.phase = K.MAIN if phase == "main" else K.ATTACK
    g.stack.append((K.T_MAIN,) if phase == "main" else (K.T_ATTACK,))
    g.log.append(Scenario(name, turn, tp))
    run(g)
    return g
