"""The state's read API: derived stats by name, card places through named helpers."""
from __future__ import annotations

import json
import pickle
import random

from nivel_env.cards import load_deck
from nivel_env.engine import const as K, new_game
from nivel_env.engine.state import CACHE_SLOTS, DERIVED_SLOTS, Game
from nivel_env.engine.view import (Derived, derived, is_leader, lane_of, leader_of, owner_of,
                                   zone_of)


def _midgame(seed=3, steps=60):
    g, r = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=seed,
                    backend="python"), \
        random.Random(seed)
    for _ in range(steps):
        if g.is_terminal():
            break
        legal = g.legal_actions()
        g.apply_action(legal[r.randrange(len(legal))])
    return g


def test_derived_slots_name_every_derived_field():
    assert len(DERIVED_SLOTS) == len(Derived._fields)
    assert set(DERIVED_SLOTS) <= set(Game.__slots__) and set(CACHE_SLOTS) <= set(Game.__slots__)
    g = _midgame()
    dv = derived(g)
    for slot, field in zip(DERIVED_SLOTS, Derived._fields):
        assert getattr(dv, field) is getattr(g, slot), (slot, field)


def test_clone_copies_each_cache_slot_and_shares_no_list():
    g = _midgame()
    derived(g)
    c = g.clone()
    for slot in CACHE_SLOTS:
        assert getattr(c, slot) == getattr(g, slot), slot
        if isinstance(getattr(g, slot), list):
            assert getattr(c, slot) is not getattr(g, slot), slot


def test_caches_are_not_saved_and_come_back_fresh():
    g = _midgame()
    want = derived(g)
    d = g.to_dict()
    assert not set(CACHE_SLOTS) & set(d)
    for back in (Game.from_dict(json.loads(json.dumps(d))), pickle.loads(pickle.dumps(g))):
        assert back.dirty and derived(back) == want


def test_place_helpers_agree_with_the_game():
    g = _midgame()
    for iid in range(2 * K.PER):
        if g.where[iid] < 0:
            continue
        assert (zone_of(g, iid), lane_of(g, iid), owner_of(iid)) == \
            (g.zone(iid), g.lane(iid), g.owner(iid))
        assert is_leader(iid) == (iid in (leader_of(0), leader_of(1)))
    for p in (0, 1):
        assert zone_of(g, leader_of(p)) == K.Z_LEVEL and owner_of(leader_of(p)) == p
        for lane in range(3):
            u = g.unit[p * 3 + lane]
            if u >= 0:
                assert (zone_of(g, u), lane_of(g, u), owner_of(u)) == (K.Z_UNIT, lane, p)
