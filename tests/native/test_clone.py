"""``NativeGame.clone`` (done by the core in one call, ``_core.clone_game``): a new game of
the same class in the same state, with its own core and no mirror of its own yet, which
plays on without touching the game it came from.

Skipped where the core is not built.
"""
from __future__ import annotations

import random

import pytest

pytest.importorskip("nivel_env.native._core")

from nivel_env.cards import load_card_db, load_deck  # noqa: E402
from nivel_env.cards.deck import list_decks  # noqa: E402
from nivel_env.native.game import NativeGame, new_native_game  # noqa: E402


def test_a_clone_is_a_fresh_game_in_the_same_state():
    db = load_card_db()
    names = list_decks()
    g = new_native_game(load_deck(names[0], db), load_deck(names[-1], db), seed=4)
    rnd = random.Random(2)
    for _ in range(30):
        g.apply_action(rnd.choice(g.legal_actions()))
    before = g.to_dict()                     # (builds g's mirror)
    g.events                                 # (and decodes its events)
    h = g.clone()
    assert type(h) is NativeGame and h._core is not g._core
    assert h.__dict__["_py"] is None         # its mirror is built from its own core
    assert h.to_dict() == before and h.legal_actions() == g.legal_actions()
    while not h.is_terminal():
        h.apply_action(rnd.choice(h.legal_actions()))
    assert g.to_dict() == before             # the original did not move
    assert len(h.events) > len(g.events) and h.events[:len(g.events)] == g.events
