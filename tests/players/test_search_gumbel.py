"""The search's Gumbel root (``SearchAgent(..., root="gumbel")``): reproducible, blind to
hidden cards, the policy's Gumbel sample when it cannot search, a winning move found with a
small budget, bad settings refused by name."""
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents.search as search                                    # noqa: E402
from agents import load_opponent                                  # noqa: E402
from agents.search import SearchAgent                             # noqa: E402
from nivel_env.engine.hidden import determinize, relabel, substitute  # noqa: E402

from test_search import FakeClock, positions                      # noqa: E402


@pytest.fixture(scope="module")
def deep():
    """nv2-search-deep's network and value head."""
    s = load_opponent("nv2-search-deep", seed=0)
    return s.net, s.value


def gumbel(deep, **settings):
    net, value = deep
    return SearchAgent(net, value=value, root="gumbel", **settings)


def test_the_gumbel_root_is_legal_reproducible_and_keeps_to_its_budget(deep):
    for g in positions(3, seed=80):
        before = g.to_dict()
        s = gumbel(deep, simulations=32, worlds=4, seed=3)
        a = s.act_state(g)
        assert a in g.legal_actions() and g.to_dict() == before
        again = gumbel(deep, simulations=32, worlds=4, seed=3)
        assert again.act_state(g) == a
        assert again.last_stats == {**s.last_stats, "ms": again.last_stats["ms"]}
        assert s.last_stats["simulations"] == 32            # the roots' forward included
        assert sum(s.last_stats["visits"].values()) == 32 - 4
    g = positions(1, seed=81)[0]
    for batch in (1, 5, 64):
        s = gumbel(deep, simulations=48, worlds=3, batch=batch, seed=1)
        s.act_state(g)
        assert s.last_stats["simulations"] == 48


def test_the_gumbel_root_only_uses_what_the_acting_player_may_see(deep):
    """The check the plain search passes: games that differ only in what the acting
    player cannot see (hands, decks' order, the opponent's hidden cards replaced or
    renamed) get the same move, visits and scores from the same seed."""
    for g in positions(3, seed=82):
        me = g.current_player
        s = gumbel(deep, simulations=32, worlds=4, seed=5)
        a = s.act_state(g)
        for h in (determinize(g, me, 999), substitute(g, me, 7, own_deck=False),
                  relabel(g, me, 8)):
            assert h.to_dict() != g.to_dict()
            t = gumbel(deep, simulations=32, worlds=4, seed=5)
            assert t.act_state(h) == a
            assert t.last_stats["visits"] == s.last_stats["visits"]
            assert t.last_stats["score"] == s.last_stats["score"]


def _gumbel_and_logits(deep, g, seed: int, worlds: int):
    """The agent's Gumbel noise (its rng after drawing the worlds' seeds) and the policy's
    raw logits over ``g``'s legal moves, computed here from the real game."""
    import torch
    from agents.leaf_forward import LeafForward
    from nivel_env.env.encoder import Encoder
    net, value = deep
    legal = g.legal_actions()
    rng = np.random.default_rng(seed)
    rng.integers(1 << 62, size=worlds)
    noise = rng.gumbel(size=len(legal))
    obs = Encoder(g.db).encode(g, g.current_player, legal)[:net.observation_space.shape[0]]
    logits, _ = LeafForward(net, value)(torch.from_numpy(obs[None].copy()))
    return legal, noise, logits[0][legal].astype(np.float64)


def test_without_a_simulation_to_spend_the_move_is_the_top_gumbel_plus_logits(deep):
    """No simulation beyond the roots' forward, or one move considered: the move is
    argmax g + logits, a sample from the policy (the Gumbel-max trick)."""
    for seed, g in enumerate(positions(4, seed=83)):
        legal, noise, logits = _gumbel_and_logits(deep, g, seed, 4)
        top = legal[int(np.argmax(noise + logits))]
        for settings in (dict(simulations=4), dict(simulations=64, considered=1)):
            s = gumbel(deep, worlds=4, seed=seed, **settings)
            assert s.act_state(g) == top
            got = s.last_stats["gumbel"]
            assert np.allclose([got[a] for a in got], [(noise + logits)[legal.index(a)]
                                                       for a in got], atol=1e-4)
            assert s.last_stats["simulations"] == 4


class _Rigged(SearchAgent):
    """A search whose leaf values say the acting player wins after ``target`` and loses
    after anything else (``tagged``: the games below ``target``, by id)."""

    me = target = None
    tagged: set = set()

    def _expand(self, todo):
        logits = super()._expand(todo)
        for _, leaf in todo:
            v = 1.0 if id(leaf.g) in self.tagged else -1.0
            leaf.value = v if leaf.player == self.me else -v
        return logits


def test_a_winning_move_the_policy_rates_last_is_found_with_a_small_budget(deep,
                                                                             monkeypatch):
    net, value = deep
    real = search._advance
    made: set = set()

    def advance(g, action):
        h, legal = real(g, action)
        if id(g) in _Rigged.tagged or (id(g) not in made and action == _Rigged.target):
            _Rigged.tagged.add(id(h))
        made.add(id(h))
        return h, legal
    monkeypatch.setattr(search, "_advance", advance)
    found = 0
    for seed, g in enumerate(positions(6, seed=84)):
        legal = g.legal_actions()
        if len(legal) < 3:
            continue
        _, _, logits = _gumbel_and_logits(deep, g, seed, 4)
        _Rigged.me, _Rigged.target = g.current_player, legal[int(np.argmin(logits))]
        _Rigged.tagged = set()
        made.clear()
        s = _Rigged(net, value=value, root="gumbel", simulations=32, worlds=4, seed=seed,
                    c_scale=1.0)
        assert s.act_state(g) == _Rigged.target
        found += 1
    assert found >= 2


def test_a_capped_gumbel_search_plays_a_surviving_move(deep):
    g = positions(1, seed=85)[0]
    s = gumbel(deep, simulations=256, worlds=4, batch=16, seed=2, max_ms=100)
    s.clock = FakeClock(0.002)
    a = s.act_state(g)
    assert a in g.legal_actions() and s.last_stats["capped"]
    assert 4 < s.last_stats["simulations"] < 256


def test_bad_gumbel_settings_are_refused_by_name(deep):
    net, _ = deep
    for bad, named in ((dict(root="alpha"), "root"), (dict(root="gumbel", considered=0),
                                                      "considered"),
                       (dict(root="gumbel", considered=2.5), "considered"),
                       (dict(root="gumbel", c_scale=0), "c_scale"),
                       (dict(root="gumbel", c_visit=-1), "c_visit"),
                       (dict(root="gumbel", temperature=0.5), "temperature")):
        with pytest.raises(ValueError, match=named):
            SearchAgent(net, **bad)
    with pytest.raises(ValueError, match="root"):
        load_opponent("nv2-search:root=alpha")
    s = load_opponent("nv2-search:root=gumbel,considered=8,c_scale=1.0,simulations=16")
    assert (s.root, s.considered, s.c_scale) == ("gumbel", 8, 1.0)
    assert load_opponent("nv2-search").root == "puct"
