"""Differential check: two backends of the engine must play the same game, bit for bit.

Seeded games are played in lockstep on two games made by a factory (by default
``new_game(..., backend=a)`` and ``backend=b``).  At the start and after every action
the two are compared, in this order: ``is_terminal()``, ``current_player``,
``decision_name``, ``legal_actions()``, ``returns()``, the whole state (``to_dict()``,
every event included; the first differing key path is named, ``hand[1][3]: 17 != 23``),
then both seats' observations in both layouts ("full" and "compact") and their action
masks, as the AEC environment hands them out (``observe``, its encoder from
``env.encoder.make_encoder``) -- at every ``obs_every``-th decision, since encoding
costs more than stepping.  Every ``clone_every`` decisions both games are cloned and play continues on the
clones (a clone must equal its original), and once a game both are pickled and play
continues on the copies.

The moves come from players that read only ``legal_actions()`` and their own seeded
generator (one per seat, drawn from the game's seed), never a game's generator: a uniform
player and a biased one (plays, activations, attacks, YES and PICK weighted over passing,
so games reach deep effect chains).

Three pools: the bundled pool with every pair of bundled decks, the test pool with its
decks, and decks built from a list of cards (``decks_of_cards``: the cards of the
per-card scenario files, tests/cards/*.yaml, which name every bundled card) so every card
is in some deck.  The first difference is reported with the pool, decks, seed, player
kind, decision number, the actions so far (replayable: ``replay``) and what differed.
"""
from __future__ import annotations

import inspect
import itertools
import json
import pickle
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..engine import actions as A
from ..engine.actions import N_ACTIONS
from ..engine.rng import next_u64, seed_state
from .soak import MAX_DECISIONS            # a game longer than the soak allows: an error
from ..engine.state import _PICKLED

_LOG = _PICKLED.index("log")                # the log's place among the saved fields

LAYOUTS = ("full", "compact")
PLAYER_KINDS = ("uniform", "biased")
#: the biased player's weight for each kind of move (others weigh 1): plays, activations,
#: attacks, YES and PICK over passing, so games reach long effect chains
BIAS = {"PLAY": 6, "ACTIVATE": 6, "ATTACK": 6, "YES": 4, "PICK": 3, "DEFEND": 2,
        "GUARDIAN": 2}
#: event kinds that put a card from hand into play: a card "seen played"
PLAYED = ("play", "equip", "skill")


class NativeUnavailable(RuntimeError):
    """The native side cannot run here; says why."""


# ------------------------------------------------------------------ backends
def native_missing() -> str | None:
    """Why the native backend cannot run in this install, or None when it can."""
    from .. import engine
    try:
        from .. import native
    except ImportError as e:
        return f"the native core is not part of this install (nivel_env.native: {e})"
    if "backend" not in inspect.signature(engine.new_game).parameters:
        return "new_game takes no backend= here (the native core is not wired in)"
    ok = getattr(native, "available", None)
    if ok is not None and not ok():
        why = getattr(native, "why_unavailable", None)
        return "the native core is not built" + (f": {why()}" if callable(why) else
                                                 " (nivel_env.native.available() is False)")
    return None


def new_game_on(backend: str, deck_0, deck_1, seed: int, config=None, db=None):
    """The default game factory: ``new_game(..., backend=backend)``.  Where ``new_game``
    takes no backend (a tree without the native core), "python" is today's ``Game`` and
    anything else raises ``NativeUnavailable``."""
    from ..engine import new_game
    if "backend" in inspect.signature(new_game).parameters:
        return new_game(deck_0, deck_1, seed=seed, config=config, db=db, backend=backend)
    if backend != "python":
        raise NativeUnavailable(native_missing() or f"no backend {backend!r}")
    return new_game(deck_0, deck_1, seed=seed, config=config, db=db)


# ------------------------------------------------------------------ players
def _kind(a: int) -> str:
    return A.decode(a).kind


def choose(kind: str, legal: list[int], state: int) -> tuple[int, int]:
    """(generator state after, the move) for a player of ``kind`` over ``legal``."""
    state, r = next_u64(state)
    if kind == "uniform":
        return state, legal[r % len(legal)]
    weights = [BIAS.get(_kind(a), 1) for a in legal]
    x = r % sum(weights)
    for a, w in zip(legal, weights):
        if x < w:
            return state, a
        x -= w
    raise AssertionError("unreachable")


# ------------------------------------------------------------------ comparing
def first_difference(x, y, path: str = "") -> str | None:
    """The first key path where ``x`` and ``y`` differ, with both values
    (``hand[1][3]: 17 != 23``, ``log[212].card: 'FI-02' != 'FI-03'``), or None."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in list(x) + [k for k in y if k not in x]:
            where = f"{path}.{k}" if path else str(k)
            if k not in x or k not in y:
                return f"{where}: {'missing' if k not in x else _short(x[k])} != " \
                       f"{'missing' if k not in y else _short(y[k])}"
            d = first_difference(x[k], y[k], where)
            if d:
                return d
        return None
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        for i, (u, v) in enumerate(zip(x, y)):
            d = first_difference(u, v, f"{path}[{i}]")
            if d:
                return d
        if len(x) != len(y):
            return f"{path}: length {len(x)} != {len(y)}"
        return None
    if x != y or type(x) is not type(y):
        return f"{path}: {_short(x)} != {_short(y)}"
    return None


def _json(d) -> str:
    return json.dumps(d, sort_keys=True, default=lambda x: f"<{type(x).__name__} {x!r}>")


def _short(v, n: int = 120) -> str:
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def _obs_difference(enc, a: np.ndarray, b: np.ndarray) -> str:
    """Where two observation vectors differ: the first index, its block, both values."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shapes {a.shape} {a.dtype} != {b.shape} {b.dtype}"
    bits = [np.frombuffer(x.tobytes(), np.uint8).reshape(x.size, -1) for x in (a, b)]
    diff = np.flatnonzero((bits[0] != bits[1]).any(axis=1))      # bitwise: -0.0, NaN
    i = int(diff[0])
    block = next((bl for bl in enc.layout.blocks if bl.offset <= i < bl.stop), None)
    name = f"block {block.name}[{i - block.offset}]" if block else "?"
    u, v = str(a[i]), str(b[i])
    if u == v:                                 # same printed value, other bits
        u, v = a[i:i + 1].tobytes().hex(), b[i:i + 1].tobytes().hex()
    return f"index {i} ({name}): {u} != {v} ({len(diff)} values differ)"


def seat_envs(spec) -> list:
    """One AEC environment per layout for ``spec``'s decks and rules: what builds each
    seat's observation and mask (``observe``) once its ``game`` is set to the game
    compared.  One set per game, never shared: the encoder keeps blocks between calls."""
    from ..env.aec import raw_env
    out = []
    for layout in LAYOUTS:
        e = raw_env(decks=(spec.deck_0, spec.deck_1), config=spec.config,
                    card_db=spec.deck_0.db, obs=layout)
        e.reset(seed=spec.seed)
        out.append(e)
    return out


def observation_difference(envs, g, h) -> str | None:
    """The first difference between what each seat is shown of ``g`` and of ``h`` -- the
    observation in each layout, then the action mask -- as the AEC environments ``envs``
    (one ``seat_envs`` list per game) hand them out, or None."""
    for p, agent in enumerate(envs[0][0].possible_agents):
        for k, layout in enumerate(LAYOUTS):
            got = []
            for e, x in zip((envs[0][k], envs[1][k]), (g, h)):
                e.game = x
                got.append(e.observe(agent))
            x, y = (o["observation"] for o in got)
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                return f"seat {p}'s {layout} observation: " + \
                    _obs_difference(envs[0][k]._source.encoder, x, y)
            x, y = (o["action_mask"] for o in got)
            if x.dtype != y.dtype or x.tobytes() != y.tobytes():
                return f"seat {p}'s action mask ({layout} environment): " \
                       f"{np.flatnonzero(x).tolist()} != {np.flatnonzero(y).tolist()}"
    return None


def _state_fields(g) -> dict:
    """``g.to_dict()`` without its event log (compared apart, one new event at a time)."""
    from ..engine.state import _PICKLED, _listify
    d = {s: _listify(getattr(g, s)) for s in _PICKLED if s != "log"}
    d["cfg"] = g.cfg.to_dict()
    return d


def _raw_state(g):
    """The saved fields but the log, as the engine holds them (the core's own copy for a
    native game), pickled: equal bytes are the same values of the same types, which is
    what the JSON comparison establishes at many times the cost.  Unequal bytes (or a
    different sharing of lists) fall back to it, which finds and names the difference."""
    values = g._core.fields() if g.backend == "native" else \
        tuple(getattr(g, s) for s in _PICKLED)
    return pickle.dumps((values[:_LOG] + values[_LOG + 1:], g.cfg), protocol=5)


def state_snapshot(g):
    """A value equal for two moments of ``g`` exactly when its saved state is: the raw
    fields' pickled bytes and the event log's length and last record for the engine's own
    games (many times cheaper than ``to_dict()``, which any other object is compared by).
    For checks that an operation left a game unchanged (``checks.mask``)."""
    if not _engine_games(g):
        return g.to_dict()
    events = g.events
    return _raw_state(g), len(events), pickle.dumps(events[-1]) if len(events) else b""


def _engine_games(*games) -> bool:
    """Whether every game is the engine's own (a Python ``Game`` or a ``NativeGame``), whose
    ``to_dict()`` is built from the fields ``_state_fields`` reads: for anything else (a
    wrapper) the check compares ``to_dict()`` itself."""
    from ..engine.state import Game
    from ..native.game import NativeGame
    return all(type(x) in (Game, NativeGame) for x in games)


def game_difference(g, h, events_from: int | None = None) -> str | None:
    """The first difference between games ``g`` and ``h`` in the module's order, without
    the observations, or None.  ``events_from``: the events before it were already found
    equal (the state's other fields and the newer events are compared; the whole
    ``to_dict()`` when None)."""
    for what, f in (("is_terminal()", lambda x: x.is_terminal()),
                    ("current_player", lambda x: x.current_player),
                    ("decision_name", lambda x: x.decision_name),
                    ("legal_actions()", lambda x: list(x.legal_actions())),
                    ("returns()", lambda x: tuple(x.returns()))):
        u, v = f(g), f(h)
        if u != v:
            return f"{what}: {_short(u, 300)} != {_short(v, 300)}"
    if events_from is not None and _engine_games(g, h):
        if _raw_state(g) != _raw_state(h):
            u, v = _state_fields(g), _state_fields(h)
            if _json(u) != _json(v):
                d = first_difference(u, v) or "differs in its JSON form (a value's type)"
                return f"state (to_dict) {d}"
        eg, eh = g.events, h.events
        if len(eg) != len(eh):
            return f"state (to_dict) log: {len(eg)} events != {len(eh)}"
        for i in range(events_from, len(eg)):
            if pickle.dumps(eg[i]) == pickle.dumps(eh[i]):     # the same record, exactly
                continue
            a, b = eg[i].to_dict(), eh[i].to_dict()
            if _json(a) != _json(b):
                d = first_difference(a, b, f"log[{i}]") or f"log[{i}] differs in its JSON form"
                return f"state (to_dict) {d}"
        return None
    u, v = g.to_dict(), h.to_dict()
    if _json(u) == _json(v):                  # as saved: 1 and 1.0, True and 1 differ
        return None
    d = first_difference(u, v) or "differs in its JSON form (key order or a value's type)"
    return f"state (to_dict) {d}" if d else None


# ------------------------------------------------------------------ one game
@dataclass
class GameSpec:
    """What identifies one differential game (everything a replay needs)."""
    pool: str
    deck_0: object
    deck_1: object
    seed: int
    player: str
    config: object = None

    def label(self) -> str:
        return (f"pool {self.pool}, decks {self.deck_0.name} vs {self.deck_1.name}, seed "
                f"{self.seed}, {self.player} players")


def play_pair(spec: GameSpec, backends=("python", "native"), factory=new_game_on,
              obs_every: int = 1, clone_every: int = 50, stats: dict | None = None
              ) -> tuple[list[str], int]:
    """(errors -- at most one, the first difference --, decisions played) for one game of
    ``spec`` played in lockstep on ``backends`` (``factory(backend, deck_0, deck_1, seed,
    config, db)`` makes each game).  ``stats`` gathers "observations" (seat-layout
    comparisons), "clones", "pickles" and "played" (card ids seen played)."""
    stats = stats if stats is not None else {}
    db = spec.deck_0.db
    games = [factory(b, spec.deck_0, spec.deck_1, spec.seed, spec.config, db) for b in backends]
    envs = [seat_envs(spec) for _ in backends]
    seats = [seed_state((spec.seed * 2 + p) ^ 0xD1FF) for p in (0, 1)]
    actions: list[int] = []
    pickle_at = 3 + spec.seed % 17
    copied: list[str] = []                    # how the games now played were copied

    def fail(what: str) -> tuple[list[str], int]:
        how = f" (playing on copies: {', '.join(copied)})" if copied else ""
        return [f"{spec.label()}, {backends[0]} vs {backends[1]}: decision {len(actions)}"
                f"{how}: {what}; actions so far {actions}"], len(actions)

    compared = 0                              # events found equal so far
    while True:
        g, h = games
        d = game_difference(g, h, None if g.is_terminal() else compared)
        if d:
            return fail(d)
        compared = len(g.events)
        legal = list(g.legal_actions())
        if len(actions) % obs_every == 0 or g.is_terminal():
            d = observation_difference(envs, g, h)
            stats["observations"] = stats.get("observations", 0) + 2 * len(LAYOUTS)
            if d:
                return fail(d)
        if g.is_terminal():
            played = stats.setdefault("played", set())
            played.update(e.card for e in g.events if e.kind in PLAYED)
            return [], len(actions)
        if len(actions) >= MAX_DECISIONS:
            return fail(f"no result after {MAX_DECISIONS} decisions")
        if actions and len(actions) % clone_every == 0:
            copies = [x.clone() for x in games]
            for b, x, c in zip(backends, games, copies):
                d = game_difference(x, c)
                if d:
                    return fail(f"a {b} clone differs from its original: {d}")
            games = copies
            copied.append(f"cloned at decision {len(actions)}")
            stats["clones"] = stats.get("clones", 0) + 1
        if len(actions) == pickle_at:
            copies = [pickle.loads(pickle.dumps(x)) for x in games]
            for b, x, c in zip(backends, games, copies):
                d = game_difference(x, c)
                if d:
                    return fail(f"a {b} pickle round trip differs from its original: {d}")
            games = copies
            copied.append(f"pickled at decision {len(actions)}")
            stats["pickles"] = stats.get("pickles", 0) + 1
        p = g.current_player
        seats[p], a = choose(spec.player, legal, seats[p])
        actions.append(a)
        for x in games:
            x.apply_action(a)


def replay(spec: GameSpec, actions: list[int], backend: str = "python", factory=new_game_on):
    """The game of a reported difference rebuilt on ``backend``: ``spec``'s new game with
    ``actions`` applied (compare ``replay(..., "python")`` with ``replay(..., "native")``)."""
    g = factory(backend, spec.deck_0, spec.deck_1, spec.seed, spec.config, spec.deck_0.db)
    for a in actions:
        g.apply_action(a)
    return g


# ------------------------------------------------------------------ pools
def bundled_pool() -> tuple[str, list]:
    from ..cards import list_decks, load_card_db, load_deck
    db = load_card_db()
    return "bundled", [load_deck(n, db) for n in list_decks()]


def files_pool(name: str, card_files, deck_files) -> tuple[str, list]:
    """A pool of the bundled cards plus ``card_files``, with the decks of ``deck_files``."""
    from ..cards import load_card_db, load_deck
    from ..cards.db import bundled_card_files
    db = load_card_db(bundled_card_files() + [Path(f) for f in card_files])
    return name, [load_deck(Path(f), db, validate=False) for f in deck_files]


def case_card_ids(case_dir) -> list[str]:
    """Every card id the per-card scenario files in ``case_dir`` (``*.yaml``) name: the
    cards a case is about and those its setup puts anywhere."""
    import yaml
    ids: list[str] = []
    for path in sorted(Path(case_dir).glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            ids += [case["card"]] if "card" in case else list(case.get("cards", ()))
            for pd in ((case.get("setup") or {}).get("players") or []):
                for key, v in (pd or {}).items():
                    if key == "leader":
                        ids.append(v)
                    elif key in ("hand", "deck", "skills", "damage", "trash", "units"):
                        for u in v or ():
                            if isinstance(u, dict):
                                ids += [u["card"], *u.get("items", ())]
                            elif isinstance(u, str):
                                ids.append(u)
    return list(dict.fromkeys(ids))


def decks_of_cards(db, ids, copies: int = 2, size: int = 30) -> list:
    """Decks holding every non-leader card of ``ids`` (``copies`` each, ``size`` cards a
    deck, grouped by attribute so a deck's cards suit one another), led in turn by the
    leaders of ``ids`` (the pool's when ``ids`` names none).  They ignore deck-building
    rules on purpose: the engine does not need them."""
    from ..cards import Deck
    from ..cards import model as m
    cards = [db.get(i) for i in ids if i in db]
    leaders = [c for c in cards if c.type == m.LEADER] or \
        [c for c in db if c.type == m.LEADER]
    rest = sorted((c for c in cards if c.type != m.LEADER), key=lambda c: (c.attribute, c.id))
    per = max(1, size // copies)
    out = []
    for k in range(0, len(rest), per):
        chunk = rest[k:k + per]
        lead = next((x for x in leaders if x.attribute == chunk[0].attribute),
                    leaders[(k // per) % len(leaders)])
        out.append(Deck(f"cards-{k // per + 1}", lead,
                        tuple(c for c in chunk for _ in range(copies)), db=db,
                        source="<decks_of_cards>"))
    return out


def cards_pool(case_dir=None) -> tuple[str, list]:
    """The bundled pool with decks holding every card the scenario files in ``case_dir``
    name (every card of the pool when ``case_dir`` is None or absent)."""
    from ..cards import load_card_db
    db = load_card_db()
    if case_dir is not None and Path(case_dir).is_dir():
        ids, name = case_card_ids(case_dir), "cards(tests/cards)"
    else:
        ids, name = [c.id for c in db], "cards(every bundled card)"
    return name, decks_of_cards(db, ids)


def repo_dir() -> Path:
    """The repository root when the package runs from a checkout (its tests beside it)."""
    return Path(__file__).resolve().parents[2]


def default_pools() -> list[tuple[str, list]]:
    """The three pools of the module docstring; the test pool and the scenario files'
    cards come from the checkout's tests/ when it is there."""
    root = repo_dir()
    data = root / "tests" / "data"
    pools = [bundled_pool()]
    if (data / "test-pool.yaml").is_file():
        pools.append(files_pool("test", [data / "test-pool.yaml"],
                                sorted(data.glob("*.deck"))))
    pools.append(cards_pool(root / "tests" / "cards"))
    return pools


def schedule(pools, games: int, seed: int = 0, players=PLAYER_KINDS, config=None):
    """``games`` GameSpecs taking the pools in turn, each pool's ordered deck pairs (a
    deck against itself too) in turn, and the player kinds in turn."""
    pairs = [[(name, a, b) for a, b in itertools.product(decks, repeat=2)]
             for name, decks in pools]
    for i in range(games):
        ps = pairs[i % len(pairs)]
        k = i // len(pairs)                  # this pool's k-th game
        name, a, b = ps[k % len(ps)]
        # the kind turns with each pair and once more with each round of the pairs, so
        # every pair meets every kind
        kind = players[(k % len(ps) + k // len(ps)) % len(players)]
        yield GameSpec(name, a, b, seed + i, kind, config)


# ------------------------------------------------------------------ many games
@dataclass
class DifferentialResult:
    backends: tuple
    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    observations: int = 0
    clones: int = 0
    pickles: int = 0
    obs_every: int = 1
    played: set = field(default_factory=set)
    deck_cards: set = field(default_factory=set)
    errors: list = field(default_factory=list)

    def summary(self) -> str:
        a, b = self.backends
        stride = "every decision" if self.obs_every == 1 else \
            f"every {self.obs_every}th decision"
        return (f"differential {a} vs {b}: {self.games:,} games, {self.decisions:,} "
                f"decisions, {self.seconds:.1f} s; state, legal actions and results compared "
                f"at every decision, both seats' observations (full and compact) and masks "
                f"at {stride} ({self.observations:,} seat-layout comparisons); "
                f"{self.clones:,} clone and {self.pickles:,} pickle round trips; "
                f"{len(self.played & self.deck_cards)} of {len(self.deck_cards)} distinct "
                f"deck cards seen played; {len(self.errors)} differences")


def differential_errors(games: int = 12, seed: int = 0, backends=("python", "native"),
                        factory=new_game_on, pools=None, obs_every: int = 1,
                        clone_every: int = 50, config=None, stop_at: int = 1,
                        progress=None, workers: int = 1, share: tuple = (0, 1)
                        ) -> DifferentialResult:
    """Play ``games`` games (``schedule`` over ``pools``, default ``default_pools()``) on
    ``backends`` and return the result, its ``errors`` one message per differing game
    (stopping after ``stop_at`` of them).  ``progress(i)`` is called after each game.

    ``workers`` > 1 spreads the games over processes (the default pools and factory
    only: each worker rebuilds them), each stopping at its own first ``stop_at``
    differences; ``share=(k, n)`` plays only games ``k, k + n, ...`` (a worker's part)."""
    t0 = time.perf_counter()
    if workers > 1:
        if pools is not None or factory is not new_game_on:
            raise ValueError("differential_errors: workers > 1 takes the default pools and "
                             "factory (each worker rebuilds them)")
        return _in_workers(games, seed, tuple(backends), obs_every, clone_every, config,
                           stop_at, progress, workers, t0)
    pools = pools if pools is not None else default_pools()
    r = DifferentialResult(tuple(backends), obs_every=obs_every)
    for _, decks in pools:
        for d in decks:
            r.deck_cards.update(c.id for c in d.cards)
    st: dict = {}
    k, n = share
    for spec in itertools.islice(schedule(pools, games, seed, config=config), k, None, n):
        errs, m = play_pair(spec, backends, factory, obs_every, clone_every, st)
        r.games += 1
        r.decisions += m
        r.errors += errs
        if progress:
            progress(r.games)
        if len(r.errors) >= stop_at:
            break
    r.observations, r.clones, r.pickles = (st.get("observations", 0), st.get("clones", 0),
                                           st.get("pickles", 0))
    r.played = st.get("played", set())
    r.seconds = time.perf_counter() - t0
    return r


def _in_workers(games, seed, backends, obs_every, clone_every, config, stop_at, progress,
                workers, t0) -> DifferentialResult:
    """``differential_errors`` over ``workers`` processes, their results summed."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    ctx = multiprocessing.get_context("forkserver")   # not fork: torch may be loaded
    r = DifferentialResult(backends, obs_every=obs_every)
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        jobs = [pool.submit(differential_errors, games, seed, backends, obs_every=obs_every,
                            clone_every=clone_every, config=config, stop_at=stop_at,
                            share=(k, workers)) for k in range(workers)]
        for job in as_completed(jobs):
            part = job.result()
            for f in ("games", "decisions", "observations", "clones", "pickles"):
                setattr(r, f, getattr(r, f) + getattr(part, f))
            r.played |= part.played
            r.deck_cards |= part.deck_cards
            r.errors += part.errors
            if progress:
                progress(r.games)
    r.errors.sort(key=lambda e: int(re.search(r", seed (-?\d+),", e)[1]))
    r.seconds = time.perf_counter() - t0
    return r


__all__ = ["BIAS", "DifferentialResult", "GameSpec", "LAYOUTS", "NativeUnavailable",
           "PLAYER_KINDS", "state_snapshot", "bundled_pool", "cards_pool", "case_card_ids", "choose",
           "decks_of_cards", "default_pools", "differential_errors", "files_pool",
           "first_difference", "game_difference", "native_missing", "new_game_on",
           "observation_difference", "play_pair", "replay", "schedule"]
