"""Seeded games for evaluate.py's commands, played in worker processes.

A task is one seed of one pairing, played twice (``play_pair``), or a block of such seeds
played in lockstep under one policy (``play_block``); ``runner.run_tasks`` maps tasks over
a pool of worker processes in order.  Each game's agents are loaded from their spec
strings (``nivel_env.players.load``, so a worker process or a Ray node builds them itself)
and seeded from the game's seed and their seat, never from the worker, so results depend
only on the seeds.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from nivel_env import players

from .arena import play_game

from .specs import deck_file, player_file

_CACHE: dict = {}
#: on a Ray worker: file named by a task -> this node's copy of it (``ray_backend``)
LOCAL_FILES: dict = {}
WORKER_READY = False


def _local(spec: str, kind: str) -> str:
    """The spec of a deck (``kind`` "deck") or an agent ("agent") with a shipped file's
    name replaced by this node's copy of it -- only where the spec names that file by a
    path (``nivel_env.paths``): a bare name is a bundled deck or opponent on every node,
    whatever was shipped under it."""
    if not LOCAL_FILES:
        return spec
    if kind == "deck":
        return LOCAL_FILES[spec] if deck_file(spec) and spec in LOCAL_FILES else spec
    name = player_file(spec)
    if name is None:
        return spec
    if spec in LOCAL_FILES:
        return LOCAL_FILES[spec]
    if name in LOCAL_FILES:
        return LOCAL_FILES[name] + spec[len(name):]
    return spec


#: a deck file named ``*.unchecked.deck`` is loaded without the deck-building rules: a
#: measurement's variant deck (``card_value``) may break them; the engine does not need them
UNCHECKED_SUFFIX = ".unchecked.deck"


def cached_deck(spec: str):
    """A deck by name or file, loaded once per process."""
    from nivel_env.cards import load_deck
    if spec not in _CACHE:
        _CACHE[spec] = load_deck(_local(spec, "deck"),
                                 validate=not str(spec).endswith(UNCHECKED_SUFFIX))
    return _CACHE[spec]


def cached_agent(spec: str, seed: int, seat: int = 0):
    """The agent ``spec`` for one seat (each seat has its own instance, so an agent
    playing itself never shares a generator), reseeded for this game and seat."""
    key = ("agent", spec, seat)
    if key not in _CACHE:
        _CACHE[key] = players.load(_local(spec, "agent"), seed=seed)
    a = _CACHE[key]
    players.reseed(a, seed * 2 + seat)    # results independent of which worker plays which game
    return a


def play_pair(task):
    """One seed, played twice: ``(d0, d1, a0, a1, seed, replay_dir, mode)`` -> two result
    dicts from the point of view of the task's first side (a0 in ``agents`` mode, d0 in
    ``decks`` mode), and two replay files when ``replay_dir`` is set.

    ``agents`` mode is duplicate play: the same deal both times (d0 in seat 0, d1 in seat
    1, the same shuffles and first player, all from the seed) with the agents exchanged,
    so the luck of the deal cancels.  ``decks-swap`` mode exchanges the decks' seats on the
    same seed (each deck reshuffled).  ``decks`` mode is the duplicate deal for decks: the
    decks exchange seats and the second game is the seed's mirror (``new_game``), so each
    deck draws the same cards in both games and the deck that went first goes second."""
    d0, d1, a0, a1, seed, replay_dir, mode = task
    out = []
    for swap in (False, True):
        decks = (cached_deck(d0), cached_deck(d1))
        if mode != "agents" and swap:
            decks = decks[::-1]
        specs = (a1, a0) if swap else (a0, a1)
        agents = (cached_agent(specs[0], seed, 0), cached_agent(specs[1], seed, 1))
        actions: list = []
        times: tuple = ([], [])
        mirror = swap and mode == "decks"
        cards: list | None = [] if mode != "agents" else None
        r = play_game(decks[0], decks[1], seed, agents, record=actions, think_times=times,
                      mirror=mirror, cards=cards)
        if replay_dir:
            save_replay(replay_dir, decks, specs, seed, actions, mirror)
        think = ({specs[0]: times[0], specs[1]: times[1]} if specs[0] != specs[1]
                 else {specs[0]: times[0] + times[1]})
        out.append(_record(seed, swap, r, think, (d0, d1), cards))
    return out


def _record(seed, swap: bool, r, think: dict, sides, cards) -> dict:
    """One game's result from the task's first side (``sides[0]``, in seat 0 unless
    ``swap``); with ``cards`` (``CardLog.sides()``) also each seat's deck, points and cards."""
    side = 1 if swap else 0
    rec = {"seed": seed, "swap": swap, "points": (r.returns[side] + 1) / 2,
           "first_player_won": r.returns[r.first] > 0, "draw": r.returns == (0, 0),
           "turns": r.turns, "decisions": r.decisions, "think_seconds": think}
    if cards is not None:
        seat_decks = sides[::-1] if swap else sides
        rec["sides"] = [{"deck": seat_decks[p], "points": (r.returns[p] + 1) / 2, **cards[p]}
                        for p in (0, 1)]
    return rec


BLOCK = 32          # seeds per lockstep block: 64 games share each forward


def play_block(block):
    """A block of ``play_pair`` tasks (one deck pair, consecutive seeds) in a deck mode
    with a policy pilot: all their games in lockstep (``nivel_env.tournaments.lockstep``), one
    forward per step.  Returns what ``play_pair`` returns for each task, in order."""
    from .lockstep import play_lockstep
    d0, d1, pilot, mode = block[0][0], block[0][1], block[0][2], block[0][6]
    agent = cached_agent(pilot, 0)
    games, rngs, meta = [], [], []
    for t in block:
        seed = t[4]
        for swap in (False, True):
            decks = (cached_deck(d0), cached_deck(d1))
            decks = decks[::-1] if swap else decks
            games.append((decks[0], decks[1], seed, swap and mode == "decks"))
            rngs.append([np.random.default_rng(seed * 2 + seat) for seat in (0, 1)])
            meta.append((t, swap, decks))
    played = play_lockstep(agent, games, rngs, record=bool(block[0][5]), cards=True)
    out, pair = [], []
    for (t, swap, decks), (r, actions, cards) in zip(meta, played):
        if t[5]:
            save_replay(t[5], decks, (pilot, pilot), t[4], actions, swap and mode == "decks")
        pair.append(_record(t[4], swap, r, {}, (d0, d1), cards))
        if swap:
            out.append(pair)
            pair = []
    return out


def think_time_report(results) -> dict:
    """Per agent: its seconds per real decision (more than one legal move), mean and 99th
    percentile, over every game it played (one core per game)."""
    per: dict = {}
    for pair in results:
        for game in pair:
            for spec, t in game["think_seconds"].items():
                per.setdefault(spec, []).extend(t)
    return {spec: {"moves": len(t), "mean_ms": round(1000 * float(np.mean(t)), 2),
                   "p99_ms": round(1000 * float(np.percentile(t, 99)), 2),
                   "max_ms": round(1000 * float(np.max(t)), 2)}
            for spec, t in per.items() if t}


def save_replay(replay_dir, decks, agents, seed, actions, mirror=False):
    import re

    from nivel_env.replay import record_game
    stem = lambda x: re.sub(r"[^\w.-]", "_", Path(str(x)).stem)           # noqa: E731
    name = (f"{stem(decks[0].source) or decks[0].name}-{stem(agents[0])}-vs-"
            f"{stem(decks[1].source) or decks[1].name}-{stem(agents[1])}-seed{seed}"
            f"{'-mirror' if mirror else ''}.jsonl")
    record_game(decks[0], decks[1], seed, actions, players=[str(a) for a in agents],
                meta={"by": "evaluate.py"}, mirror=mirror).write(Path(replay_dir) / name)
