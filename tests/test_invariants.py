"""Random play with invariants checked at every decision."""
import random

import pytest

from nivel_env.engine import IllegalActionError, N_ACTIONS, RuleConfig, new_game
from nivel_env.engine import const as K
from nivel_env.engine.stats import ensure


def check(g):
    for p in (0, 1):
        zones = {}
        for z, lst in ((K.Z_DECK, g.deck[p]), (K.Z_HAND, g.hand[p]), (K.Z_TRASH, g.trash[p]),
                       (K.Z_DAMAGE, g.damage[p]), (K.Z_SKILL, g.skill[p])):
            for iid in lst:
                assert g.where[iid] >> 2 == z, (iid, z)
                zones[iid] = z
        for lane in range(3):
            u = g.unit[p * 3 + lane]
            if u >= 0:
                assert g.where[u] == K.Z_UNIT * 4 + lane
                zones[u] = K.Z_UNIT
            for it in g.items[p * 3 + lane]:
                assert u >= 0 and g.where[it] == K.Z_ITEM * 4 + lane
                zones[it] = K.Z_ITEM
        assert len(zones) == 40                                  # every card somewhere, once
        assert all(i // K.PER == p for i in zones)
    ensure(g)
    if not g.is_terminal():
        assert g.legal_actions()
        for s in range(6):
            assert g.unit[s] < 0 or g.pw[s] > 0                 # 1.3.7.3
        # 4.5.4.3-4: the 10th card's trigger resolves before the check, and may ask a choice
        checking = any(t[0] == K.T_DAMAGE_CHECK for t in g.stack)
        assert checking or (len(g.damage[0]) < 10 and len(g.damage[1]) < 10)
    else:
        assert g.legal_actions() == [] and sum(g.returns()) == 0


@pytest.mark.parametrize("order", [True, False])
def test_random_play_invariants(decks, order):
    cfg = RuleConfig(choose_effect_order=order)
    for seed in range(60):
        g = new_game(*decks, seed=seed, config=cfg)
        r = random.Random(seed)
        while not g.is_terminal():
            check(g)
            g.apply_action(r.choice(g.legal_actions()))
        check(g)


def test_mask_sound_and_complete(decks):
    """Every legal id applies on a clone; every other id raises and changes nothing."""
    for seed in range(6):
        g = new_game(*decks, seed=seed)
        r = random.Random(seed)
        steps = 0
        while not g.is_terminal() and steps < 150:
            legal = set(g.legal_actions())
            snap = g.to_dict()
            for a in range(N_ACTIONS):
                if a in legal:
                    g.clone().apply_action(a)
                else:
                    with pytest.raises(IllegalActionError):
                        g.apply_action(a)
            assert g.to_dict() == snap
            g.apply_action(r.choice(sorted(legal)))
            steps += 1
