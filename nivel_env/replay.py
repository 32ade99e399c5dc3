"""Replays: a game as JSON Lines, re-simulated and checked when loaded.

A replay holds what is needed to play the game again -- card pool version, seed, both
decks card by card, rule config, every action -- and the engine's events after each
action, so loading can prove the file describes what this engine does with those
inputs.  A file from another card pool, a hand-edited action or event, or a file cut
short fails with a ReplayError naming the file and line.  Format: docs/replays.md.
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path

from .cards import CardDB, Deck, load_card_db
from .cards import model as m
from .cards.yamlio import read_text
from .engine import IllegalActionError, RuleConfig, new_game
from .engine import const as K
from .engine.events import EVENT_VERSION, to_dicts

FORMAT = 1


class ReplayError(ValueError):
    """A replay file cannot be loaded or does not match the engine; says file and line."""

    def __init__(self, file: str, line: int | None, message: str):
        self.file, self.line, self.message = file, line, message
        super().__init__(f"{file}{f': line {line}' if line else ''}: {message}")

    def __reduce__(self):       # picklable, so it crosses to and from worker processes
        return type(self), (self.file, self.line, self.message)


def _norm(events: list, version: int = EVENT_VERSION) -> list:
    """Event records as they read back from JSON (tuples become lists), written as event
    format ``version`` (``engine/events.py``: an older replay is checked as it was written)."""
    return json.loads(json.dumps(to_dicts(events, version)))


class ReplayRecorder:
    """Builds a replay while a game is played: ``step`` after each action,
    ``surrender`` when a player leaves, ``lines()`` or ``write(path)`` at the end."""

    def __init__(self, game, seed: int, decks: tuple[Deck, Deck], config: RuleConfig | None = None,
                 players=("player 0", "player 1"), meta: dict | None = None):
        self.g = game
        self.seen = len(game.events)
        cfg = config or game.cfg
        self.rows = [{
            "kind": "header", "format": FORMAT, "event_version": EVENT_VERSION,
            "card_pool_version": game.db.version,
            "seed": seed, "config": cfg.to_dict(),
            **({"mirror": True} if _mirrored(game) else {}),
            "decks": [{"name": d.name, "leader": d.leader.id, "cards": d.card_ids()}
                      for d in decks],
            "players": list(players),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "meta": meta or {}, "events": _norm(game.events[:self.seen])}]

    def _new_events(self) -> list:
        ev = _norm(self.g.events[self.seen:])
        self.seen = len(self.g.events)
        return ev

    def step(self, player: int, action: int, name: str, turn: int) -> None:
        """Record ``action`` (already applied to the game) and the events it caused."""
        self.rows.append({"kind": "action", "step": self.n_actions, "turn": turn,
                          "player": player, "action": int(action), "name": name,
                          "events": self._new_events()})

    def surrender(self, player: int) -> None:
        """Record that ``player`` left (already applied with Game.surrender)."""
        self.rows.append({"kind": "surrender", "step": self.n_actions, "player": player,
                          "events": self._new_events()})

    @property
    def n_actions(self) -> int:
        return sum(r["kind"] == "action" for r in self.rows)

    def lines(self) -> list[str]:
        g = self.g
        rows = self.rows
        if g.result is not None and rows[-1]["kind"] != "result":
            rows = rows + [{"kind": "result", "returns": list(g.result), "turns": g.turn,
                            "truncated": g.truncated, "steps": self.n_actions}]
        return [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows]

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines()) + "\n", encoding="utf-8")
        return path


def _mirrored(game) -> bool:
    """Whether ``game`` was set up as the mirror half of a duplicate deal (new_game)."""
    return bool(game.log and game.log[0].kind == "start" and game.log[0].mirror)


def record_game(deck_0: Deck, deck_1: Deck, seed: int, actions: list[int],
                config: RuleConfig | None = None, players=("player 0", "player 1"),
                meta: dict | None = None, mirror: bool = False) -> ReplayRecorder:
    """A replay of a game known by its seed and actions (evaluate.py plays in worker
    processes and records only the actions; this re-simulates them)."""
    g = new_game(deck_0, deck_1, seed=seed, config=config, mirror=mirror)
    rec = ReplayRecorder(g, seed, (deck_0, deck_1), config, players, meta)
    for a in actions:
        p, turn = g.current_player, g.turn
        name = g.action_name(a)
        g.apply_action(a)
        rec.step(p, a, name, turn)
    return rec


@dataclass
class Replay:
    """A loaded, verified replay.  ``games[i]`` is the game before action ``i``
    (``games[-1]`` the final position); ``rows[i]`` the recorded action ``i``."""
    file: str
    header: dict
    decks: tuple
    config: RuleConfig
    rows: list = field(default_factory=list)
    games: list = field(default_factory=list)
    result: dict | None = None

    @property
    def actions(self) -> list[int]:
        return [r["action"] for r in self.rows if r["kind"] == "action"]

    def first_step_of_turn(self, turn: int) -> int:
        """The first position at or after the start of ``turn`` (or the last one)."""
        for i, g in enumerate(self.games):
            if g.turn >= turn:
                return i
        return len(self.games) - 1


def load_replay(path: str | Path, db: CardDB | None = None) -> Replay:
    """Read ``path``, re-simulate the game and check every recorded event."""
    name = str(path)
    try:
        text = read_text(path, MAX_BYTES)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ReplayError(name, None, f"cannot read file: {e}") from None
    return parse_replay(text, name, db)


def parse_replay(text: str, name: str = "replay", db: CardDB | None = None) -> Replay:
    """``load_replay`` for replay text already read (an upload); ``name`` is what errors
    call it."""
    if len(text) > MAX_BYTES:
        raise ReplayError(name, None, f"{len(text):,} characters; a replay is at most "
                                      f"{MAX_BYTES:,}")
    rows = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise ReplayError(name, no, f"a line of {len(line):,} characters; replay lines "
                                        f"are at most {MAX_LINE:,}")
        try:
            row = json.loads(line, parse_constant=_no_constant, parse_int=_small_int)
        except (ValueError, RecursionError) as e:      # JSONDecodeError is a ValueError
            what = "nested too deeply" if isinstance(e, RecursionError) else str(e)[:200]
            raise ReplayError(name, no, f"not JSON: {what}") from None
        if not isinstance(row, dict) or "kind" not in row:
            raise ReplayError(name, no, "each line must be an object with a 'kind'")
        rows.append((no, row))
    if not rows or rows[0][1]["kind"] != "header":
        raise ReplayError(name, 1, "the first line must be the header")
    no, h = rows[0]
    if h.get("format") != FORMAT:
        raise ReplayError(name, no, f"replay format {h.get('format')!r}; this version reads "
                                    f"format {FORMAT}")
    version = h.get("event_version", 1)              # files from before it was written: 1
    if not _is_int(version) or not 1 <= version <= EVENT_VERSION:
        raise ReplayError(name, no, f"event format {version!r}; this version reads event "
                                    f"formats 1 to {EVENT_VERSION}")
    db = db or load_card_db()
    if not isinstance(h.get("card_pool_version"), str) or \
            not db.extends(h["card_pool_version"]):       # cards appended since are fine
        raise ReplayError(name, no, f"recorded with card pool {h.get('card_pool_version')}, "
                                    f"but the loaded pool is {db.version}; load it with the "
                                    f"same card files")
    try:
        config = RuleConfig.from_dict(h["config"])
        decks = tuple(_deck(d, db) for d in h["decks"])
        seed = h["seed"]
        if not _is_int(seed) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be a whole number 0..2^64-1, got {seed!r}")
        mirror = h.get("mirror", False)
        if not isinstance(mirror, bool):
            raise ValueError(f"mirror must be true or false, got {mirror!r}")
        if len(decks) != 2:
            raise ValueError("expected two decks")
    except (KeyError, TypeError, ValueError) as e:
        raise ReplayError(name, no, f"bad header: {e}") from None
    g = new_game(*decks, seed=seed, config=config, mirror=mirror)
    if _norm(g.events, version) != h.get("events"):
        raise ReplayError(name, no, "the setup events differ from the recorded ones "
                                    "(another engine version, or an edited file)")
    rep = Replay(name, h, decks, config)
    seen = len(g.events)
    for no, row in rows[1:]:
        kind = row["kind"]
        if rep.result is not None:
            raise ReplayError(name, no, "lines after the result")
        if kind == "result":
            want = {"returns": list(g.returns()), "turns": g.turn, "truncated": g.truncated}
            got = {k: row.get(k) for k in want}
            if not g.is_terminal() or got != want:
                raise ReplayError(name, no, f"recorded result {got} but the game gives "
                                            f"{want if g.is_terminal() else 'no result yet'}")
            rep.result = row
            continue
        rep.games.append(g.clone())
        if kind == "action":
            a = row.get("action")
            if not _is_int(a):
                raise ReplayError(name, no, f"bad action line: the action must be a whole "
                                            f"number, got {a!r}"[:300])
            try:
                g.apply_action(a)
            except IllegalActionError as e:
                raise ReplayError(name, no, f"action not legal here ({e}); the file was "
                                            f"edited or comes from another engine") from None
        elif kind == "surrender":
            p = row.get("player")
            if not _is_int(p) or p not in (0, 1):
                raise ReplayError(name, no, f"bad surrender player {p!r}")
            g.surrender(p)
        else:
            raise ReplayError(name, no, f"unknown line kind {kind!r}")
        if _norm(g.events[seen:], version) != row.get("events"):
            raise ReplayError(name, no, "the events differ from the recorded ones (another "
                                        "engine version, or an edited file)")
        seen = len(g.events)
        rep.rows.append(row)
    rep.games.append(g)
    return rep


MAX_BYTES = 64 * 2 ** 20        # a 200-turn game records about 2 MB
MAX_LINE = 4 * 2 ** 20


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a replay holds")


def _small_int(text: str) -> int:
    if len(text) > 40:
        raise ValueError(f"a number with {len(text)} digits")
    return int(text)


def _deck(d: dict, db: CardDB) -> Deck:
    if not isinstance(d, dict) or not isinstance(d.get("cards"), list) or \
            not all(isinstance(c, str) for c in [d.get("leader")] + d["cards"]):
        raise ValueError("each deck is a mapping with a leader id and a list of card ids")
    ids = [d["leader"]] + list(d["cards"])
    missing = [c for c in ids if c not in db]
    if missing:
        raise ValueError(f"deck {d.get('name')!r}: unknown card ids {missing[:5]}")
    leader = db.get(d["leader"])
    if leader.type != m.LEADER:
        raise ValueError(f"deck {d.get('name')!r}: {leader.id} is not a leader")
    if not 1 <= len(d["cards"]) <= K.PER - 1:
        raise ValueError(f"deck {d.get('name')!r}: {len(d['cards'])} cards")
    return Deck(name=str(d.get("name", "deck")), leader=leader,
                cards=tuple(db.get(c) for c in d["cards"]), source="<replay>", db=db)


__all__ = ["FORMAT", "Replay", "ReplayError", "ReplayRecorder", "load_replay", "parse_replay",
           "record_game"]
