"""The native core as the default engine: what changes for code written against the
Python ``Game`` (read-only state lists, equality across backends, every kind of bad
action id) and how an environment is put on either engine.

Skipped where the core is not built (a machine without a C++ compiler).
"""
from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

pytest.importorskip("nivel_env.native._core")

from nivel_env import native  # noqa: E402
from nivel_env.cards import list_decks, load_deck  # noqa: E402
from nivel_env.engine import Game, IllegalActionError, new_game  # noqa: E402
from nivel_env.env import raw_env  # noqa: E402
from nivel_env.env.single import NivelArenaGymEnv  # noqa: E402
from nivel_env.env.vector import GameBatch  # noqa: E402
from nivel_env.native.game import NativeGame, ReadOnlyList  # noqa: E402


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("NIVEL_BACKEND", raising=False)


def _played(backend, moves=40, seed=2):
    names = list_decks()
    g = new_game(load_deck(names[0]), load_deck(names[3]), seed=seed, backend=backend)
    for i in range(moves):
        legal = g.legal_actions()
        g.apply_action(legal[i % len(legal)])
    return g


def test_new_game_and_the_environments_default_to_the_core():
    assert type(new_game(load_deck(list_decks()[0]), load_deck(list_decks()[1]))) \
        is NativeGame
    e = raw_env()
    e.reset(seed=1)
    assert e.game.backend == "native"
    assert GameBatch(2).backend == "native"


def test_an_environment_takes_its_backend_and_keeps_it(monkeypatch):
    monkeypatch.setenv("NIVEL_BACKEND", "native")
    e = raw_env(backend="python")
    for seed in (1, 2):
        e.reset(seed=seed)
        assert type(e.game) is Game
    g = NivelArenaGymEnv(backend="python")
    g.reset(seed=1)
    assert type(g.game) is Game
    n, p = raw_env(backend="native"), raw_env(backend="python")
    n.reset(seed=5)
    p.reset(seed=5)
    assert n.game.to_dict() == p.game.to_dict()
    assert np.array_equal(n.observe("player_0")["observation"],
                          p.observe("player_0")["observation"])
    with pytest.raises(ValueError, match="nivel_arena_v0: backend is 'rust'"):
        raw_env(backend="rust")
    assert GameBatch(2, backend="python").backend == "python"
    b = GameBatch(2, backend="python")
    b.reset(seed=1)
    assert all(type(x) is Game for x in b.games)      # the env variable does not leak in


def test_state_lists_refuse_changes_in_place_and_say_what_to_do():
    g = _played("native")
    before = g.to_dict()
    for change in (lambda: g.hand[0].append(1), lambda: g.trash[1].extend([1, 2]),
                   lambda: g.unit.__setitem__(0, 3), lambda: g.deck[0].pop(),
                   lambda: g.where.sort()):
        with pytest.raises(TypeError, match=r"read-only.*assign the whole field.*from_python"):
            change()
    assert g.to_dict() == before
    assert isinstance(g.hand[0], ReadOnlyList) and g.hand[0] == list(g.hand[0])
    # copies are plain lists, and a whole field assigned is taken by the core
    for c in (g.hand[0][:], list(g.hand[0]), copy.copy(g.hand[0]), copy.deepcopy(g.hand)[0],
              pickle.loads(pickle.dumps(g.hand[0]))):
        assert type(c) is list
    json.dumps(g.to_dict())
    card = g.hand[0][-1]
    g.hand = [g.hand[0][:-1], g.hand[1] + [card]]
    assert card in g.hand[1] and card not in g.hand[0]


def test_a_position_edited_in_python_moves_onto_the_core():
    g = _played("python")
    g.trash[0].extend(g.deck[0][:3])
    g.deck[0] = g.deck[0][3:]
    h = native.from_python(g)
    assert type(h) is NativeGame and h.to_dict() == g.to_dict()
    assert h.legal_actions() == g.legal_actions()


def test_games_are_equal_across_backends_either_way_round():
    g, h = _played("python"), _played("native")
    assert g == h and h == g and not (g != h)
    h.apply_action(h.legal_actions()[0])
    assert g != h and h != g
    assert g != 5 and h != 5


@pytest.mark.parametrize("action", [10 ** 30, -(10 ** 30), -1, 337, 2 ** 31, np.int64(400)])
def test_any_bad_action_id_is_an_illegal_action_on_both_backends(action):
    for backend in ("python", "native"):
        g = _played(backend, moves=10)
        before = g.to_dict()
        with pytest.raises(IllegalActionError, match="not legal now"):
            g.apply_action(action)
        assert g.to_dict() == before


def test_a_redrawn_deal_is_taken_in_place_and_checked():
    from nivel_env.engine.hidden import determinize
    g, h = _played("python"), _played("native")
    for seed in range(5):
        a, b = determinize(g, 0, seed), determinize(h, 0, seed)
        assert type(b) is NativeGame and a.to_dict() == b.to_dict()
        assert a.legal_actions() == b.legal_actions()
    assert h.to_dict() == g.to_dict()                        # the original is untouched
    with pytest.raises(ValueError, match="set_deal: expected 82"):
        h.set_deal((0, 1), 5)
    with pytest.raises(ValueError, match="set_deal: card index out of range"):
        h.set_deal((10 ** 6,) * 82, 5)
    assert h.to_dict() == g.to_dict()


def test_fields_read_once_follow_every_move_clone_and_write():
    """A native game keeps the fields it served (fast reads for checks); each move, clone,
    surrender, new deal or written field must show the new state, never the kept one."""
    g, p = _played("native", moves=20), _played("python", moves=20)
    rounds = 0
    while not p.is_terminal() and rounds < 60:
        assert (g.hand, g.where, g.deck, g.unit) == (p.hand, p.where, p.deck, p.unit)
        c, before = g.clone(), p.clone()
        a = p.legal_actions()[rounds % len(p.legal_actions())]
        g.apply_action(a)
        p.apply_action(a)
        assert (c.hand, c.where, c.unit) == (before.hand, before.where, before.unit)
        c.apply_action(a)                                  # the clone moves on by itself
        assert (c.hand, c.where, c.unit) == (p.hand, p.where, p.unit)
        rounds += 1
    h = g.clone()
    h.hand = [h.hand[1], h.hand[0]]
    assert h.hand[0] == g.hand[1] and g.hand == p.hand
    h.surrender(0)
    assert h.result == (-1, 1) and h.to_dict()["result"] == [-1, 1]
