"""The typed action decoder (engine/actions.py): every id has one typed move and back."""
from __future__ import annotations

import random

import numpy as np
import pytest

from nivel_env.cards import load_deck
from nivel_env.engine import actions as A, new_game
from nivel_env.engine.render import action_meaning


def test_decode_encode_round_trip_every_id():
    ids = list(range(A.N_ACTIONS))
    assert len(ids) == 337 and A.decode(7) == A.Move("RESERVED")
    moves = [A.decode(a) for a in ids]
    assert [A.encode(mv) for mv in moves] == ids
    assert len(set(moves)) == len(ids)                                 # no two ids alike
    for a, mv in zip(ids, moves):
        lo, hi = A.RANGES[mv.kind]
        assert lo <= a < hi and A.range_of(a) == mv.kind


def test_decode_fields_follow_the_table():
    assert A.decode(A.play_id(39, A.SKILL_TARGET)) == A.Move("PLAY", hand_slot=39, target=3)
    assert A.decode(A.play_id(2, 1)).target_lane == 1
    assert A.decode(A.play_id(2, A.SKILL_TARGET)).target_lane is None
    mv = A.decode(A.activate_id(3, 7))
    assert (mv.kind, mv.source, mv.slot, mv.source_lane) == ("ACTIVATE", 3, 7, 2)
    assert A.decode(A.activate_id(0, 0)).source_lane is None
    assert A.decode(A.ATTACK + 2) == A.Move("ATTACK", lane=2)
    assert A.decode(A.DEFEND) == A.Move("DEFEND", lane=0)
    assert A.decode(A.GUARDIAN + 1) == A.Move("GUARDIAN", lane=1)
    assert A.decode(A.N_ACTIONS - 1) == A.Move("PICK", pick=A.PICK_SLOTS - 1)
    assert A.decode(np.int64(A.PASS)) == A.Move("PASS")
    for a in range(A.N_ACTIONS):
        mv = A.decode(a)
        assert A.hand_slot_of(a) == mv.hand_slot
        assert A.lane_of_action(a) == (mv.lane if mv.lane is not None else mv.target_lane)


@pytest.mark.parametrize("bad", [-1, A.N_ACTIONS, 10**6])
def test_decode_names_the_bad_id(bad):
    with pytest.raises(ValueError, match=f"action id {bad} "):
        A.decode(bad)


@pytest.mark.parametrize("bad", [2.0, "8", True, None])
def test_decode_refuses_non_integers(bad):
    with pytest.raises(ValueError, match="must be an integer"):
        A.decode(bad)


@pytest.mark.parametrize("move, field", [
    (A.Move("PLAY", hand_slot=40, target=0), "hand_slot"),
    (A.Move("PLAY", hand_slot=0), "target"),
    (A.Move("ACTIVATE", source=4, slot=0), "source"),
    (A.Move("ACTIVATE", source=0, slot=8), "slot"),
    (A.Move("ATTACK", lane=3), "lane"),
    (A.Move("GUARDIAN"), "lane"),
    (A.Move("PICK", pick=128), "pick"),
])
def test_encode_names_the_bad_field(move, field):
    with pytest.raises(ValueError, match=f"{move.kind} needs {field}"):
        A.encode(move)


def test_encode_refuses_unknown_kind():
    with pytest.raises(ValueError, match="unknown move kind 'CAST'"):
        A.encode(A.Move("CAST"))


def test_moves_are_frozen():
    with pytest.raises(AttributeError):
        A.decode(A.PLAY).hand_slot = 3


def test_every_legal_id_in_played_games_decodes_and_names():
    """Ids the engine offers decode, re-encode, and are named from their move."""
    d0, d1 = load_deck("ember-rush"), load_deck("stone-bastion")
    seen = set()
    for seed in range(3):
        g, r = new_game(d0, d1, seed=seed), random.Random(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            for a in legal:
                assert A.encode(A.decode(a)) == a
                seen.add(A.decode(a).kind)
                assert "out of range" not in action_meaning(a)
            g.apply_action(legal[r.randrange(len(legal))])
    assert {"KEEP", "PLAY", "ATTACK", "END_MAIN", "END_ATTACK"} <= seen
