"""The native core's event log, which a game shares with its clones (chunks written in
place or copied when a clone logs past a shared end): every clone's events must be what
the same moves give a game never cloned, and a clone's moves must never show in another.

Skipped where the core is not built.
"""
from __future__ import annotations

import random

import pytest

pytest.importorskip("nivel_env.native._core")

from nivel_env.cards import load_card_db, load_deck  # noqa: E402
from nivel_env.cards.deck import list_decks  # noqa: E402
from nivel_env.engine import new_game  # noqa: E402
from nivel_env.native.game import new_native_game  # noqa: E402


def replay(decks, seed, moves):
    """The Python engine's game from the deal through ``moves``."""
    g = new_game(decks[0], decks[1], seed=seed)
    for a in moves:
        g.apply_action(a)
    return g


def test_clones_that_play_on_apart_keep_their_own_events():
    db = load_card_db()
    names = list_decks()
    decks = [load_deck(names[0], db), load_deck(names[1 % len(names)], db)]
    seed = 11
    root = new_native_game(decks[0], decks[1], seed=seed)
    rnd = random.Random(5)
    moves = []
    for _ in range(25):
        a = rnd.choice(root.legal_actions())
        root.apply_action(a)
        moves.append(a)
    assert root._core.n_events > 64            # the log already spans chunks
    # several lines from the same point, and clones of clones, stepped in turn: each
    # logs in place, past a sharer's end (a copy) or across a chunk's end
    lines = [(root, list(moves))]
    for k in range(4):
        src, hist = lines[k % len(lines)]
        lines.append((src.clone(), list(hist)))
    for step in range(120):
        for i, (g, hist) in enumerate(lines):
            if g.is_terminal():
                continue
            r = random.Random(1000 * i + step)
            a = r.choice(g.legal_actions())
            g.apply_action(a)
            hist.append(a)
            if step % 30 == 29 and i == 1:            # a clone made mid-way, played on too
                lines.append((g.clone(), list(hist)))
    for g, hist in lines:
        want = replay(decks, seed, hist).events
        assert g.events == want
        assert g._core.n_events == len(want) - 1      # the deal's Start stays on the Python side
        assert len(g._core.events(0)) == len(want) - 1
        tail = g._core.events(len(want) - 1 - 70)     # a read from inside an earlier chunk
        assert tail == g._core.events(0)[-70:]
