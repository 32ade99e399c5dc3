"""The oracle value: full-state features, its file, and a search that uses it."""
import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import load_opponent                                  # noqa: E402
from agents.opponents import VALUE_DIR, policy_file               # noqa: E402
from agents.oracle import (CARD_SLOTS, DECK_TOP, OracleFileError, OracleNet,  # noqa: E402
                           OracleValue, Views, card_rows, full_state, hidden_cards,
                           load_oracle, playout_value, save_oracle)
from agents.search import SearchAgent                             # noqa: E402
from nivel_env.cards import load_deck                             # noqa: E402
from nivel_env.engine import new_game                             # noqa: E402
from nivel_env.engine.hidden import determinize                   # noqa: E402

SHIPPED = VALUE_DIR / "nv2-oracle.pt"


def positions(count=3, seed=0):
    """Mid-game positions with a real choice to make."""
    r = np.random.default_rng(seed)
    out = []
    for k in range(count):
        g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=seed + k)
        for _ in range(25 + 5 * k):
            legal = g.legal_actions()
            g.apply_action(legal[r.integers(len(legal))])
        while g.result is None and len(g.legal_actions()) < 2:
            g.apply_action(g.legal_actions()[0])
        assert g.result is None
        out.append(g)
    return out


@pytest.fixture(scope="module")
def policy():
    return load_opponent("nv2-ppo")


@pytest.fixture(scope="module")
def oracle(policy):
    th.manual_seed(0)
    g = positions(1)[0]
    net = OracleNet(Views(policy).width, card_rows(g.db).shape[1], embed=8, hidden=32)
    with th.no_grad():
        for q in net.parameters():
            q.normal_(0, 0.1)
    return OracleValue(net, policy)


def test_features_have_their_shape_and_are_deterministic(policy):
    games = positions()
    players = [g.current_player for g in games]
    views = Views(policy)
    mine, theirs, cards = full_state(views, games, players)
    assert mine.shape == theirs.shape == (3, views.width)
    assert cards.shape == (3, CARD_SLOTS) and cards.dtype == np.int16
    again = full_state(Views(policy), games, players)
    for a, b in zip((mine, theirs, cards), again):
        assert np.array_equal(a, b)
    # the two views are of different seats
    assert not np.array_equal(mine, theirs)


def test_the_oracle_sees_a_decks_order(policy, oracle):
    """Two games that differ only in one deck's order: the views are the same (no
    observation shows it), the hidden cards and the value are not."""
    for g in positions(2, seed=5):
        p = g.current_player
        h = g.clone()
        deck = list(g.deck[p])
        assert len(set(g.defs[i] for i in deck[-DECK_TOP:])) > 1
        h.deck = [deck[::-1], list(g.deck[1])] if p == 0 else [list(g.deck[0]), deck[::-1]]
        ma, ta, _ = full_state(Views(policy), [g, h], [p, p])
        assert np.array_equal(ma[0], ma[1]) and np.array_equal(ta[0], ta[1])
        assert not np.array_equal(hidden_cards(g, p), hidden_cards(h, p))
        v = oracle.values([g, h], [p, p])
        assert v.shape == (2,) and np.all(np.abs(v) <= 1)
        assert v[0] != v[1]


def test_an_oracle_file_round_trips_and_a_bad_one_is_refused_by_name(policy, oracle,
                                                                      tmp_path):
    path = save_oracle(oracle.net, tmp_path / "o.pt", policy_file("nv2-ppo"), {"x": 1})
    back = load_oracle(path, policy, policy_file("nv2-ppo"))
    games = positions(2, seed=7)
    players = [g.current_player for g in games]
    assert np.allclose(back.values(games, players), oracle.values(games, players),
                       atol=2e-2)                                 # saved as float16
    saved = th.load(path, weights_only=True)
    cases = {
        "not a nivel_env oracle file": {**saved, "format": "something else"},
        "field 'features'": {**saved, "features": "v0"},
        "field 'hidden'": {**saved, "hidden": -3},
        "field 'state_dict' does not fit": {**saved, "hidden": 64},
    }
    for message, bad in cases.items():
        p = tmp_path / "bad.pt"
        th.save(bad, p)
        with pytest.raises(OracleFileError, match="bad.pt") as e:
            load_oracle(p, policy)
        assert message in str(e.value)
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(OracleFileError, match="junk.pt: not a readable oracle file"):
        load_oracle(tmp_path / "junk.pt", policy)
    with pytest.raises(OracleFileError, match="another policy"):
        load_oracle(path, policy, policy_file("nv1-ppo"))


def test_random_playouts_value_the_true_state_within_bounds():
    g = positions(1, seed=3)[0]
    before = g.to_dict()
    v = playout_value(g, g.current_player, 3, np.random.default_rng(1))
    assert -1 <= v <= 1
    assert v == playout_value(g, g.current_player, 3, np.random.default_rng(1))
    assert g.to_dict() == before


def test_an_oracle_search_only_uses_what_the_acting_player_may_see(policy, oracle):
    """The oracle reads whole worlds, but only worlds the search drew: two games that
    differ only in what the acting player cannot see get the same move."""
    for g in positions(2, seed=10):
        me = g.current_player
        other = determinize(g, me, 999)
        assert other.to_dict() != g.to_dict()
        a = SearchAgent(policy, simulations=16, worlds=4, seed=5, oracle=oracle)
        b = SearchAgent(policy, simulations=16, worlds=4, seed=5, oracle=oracle)
        assert a.act_state(g) == b.act_state(other)


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped oracle")
def test_the_shipped_oracle_loads_by_spec_and_plays():
    agent = load_opponent("nv2-search:oracle=nv2,simulations=8", seed=1)
    assert isinstance(agent.oracle, OracleValue)
    g = positions(1, seed=2)[0]
    assert agent.act_state(g) in g.legal_actions()
    with pytest.raises(ValueError, match="no bundled oracle 'nv9'"):
        load_opponent("nv2-search:oracle=nv9")


def test_a_symmetric_oracle_gives_the_two_seats_opposite_values(policy):
    th.manual_seed(1)
    games = positions(2, seed=4)
    net = OracleNet(Views(policy).width, card_rows(games[0].db).shape[1], embed=8,
                    hidden=32, symmetric=True)
    oracle = OracleValue(net, policy)
    mine = oracle.values(games, [g.current_player for g in games])
    theirs = oracle.values(games, [1 - g.current_player for g in games])
    assert np.allclose(mine, -theirs, atol=1e-6) and np.all(mine != 0)
