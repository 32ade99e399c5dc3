"""The search agent: legal, reproducible, leaves the game alone, blind to hidden cards."""
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import load_opponent                                  # noqa: E402
from agents.search import SearchAgent                             # noqa: E402
from nivel_env.cards import load_deck                             # noqa: E402
from nivel_env.engine import new_game                             # noqa: E402
from nivel_env.engine.hidden import determinize                   # noqa: E402


def positions(count=4, seed=0):
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
def prior():
    return load_opponent("nv1-ppo")


def test_search_is_legal_reproducible_and_leaves_the_game_alone(prior):
    for g in positions():
        before = g.to_dict()
        a = SearchAgent(prior, simulations=16, worlds=4, seed=3).act_state(g)
        assert a in g.legal_actions()
        assert g.to_dict() == before
        again = SearchAgent(prior, simulations=16, worlds=4, seed=3)
        assert again.act_state(g) == a
        assert again.last_stats["simulations"] == 16


def test_search_only_uses_what_the_acting_player_may_see(prior):
    """Two games that differ only in cards the acting player cannot see (the opponent's
    hand, both decks' orders) get the same move from agents with the same seed."""
    for g in positions(3, seed=10):
        me = g.dec[1]
        other = determinize(g, me, 999)
        assert other.to_dict() != g.to_dict()
        a = SearchAgent(prior, simulations=16, worlds=4, seed=5).act_state(g)
        b = SearchAgent(prior, simulations=16, worlds=4, seed=5).act_state(other)
        assert a == b


def test_search_refuses_bad_budgets(prior):
    with pytest.raises(ValueError, match="simulations"):
        SearchAgent(prior, simulations=0)
    with pytest.raises(ValueError, match="max_ms"):
        SearchAgent(prior, max_ms=0)
    with pytest.raises(TypeError, match="act_state"):
        SearchAgent(prior).act(np.zeros(3), np.ones(3))


def test_search_plays_wherever_an_agent_does(prior):
    """The arena, the Gym wrapper's embedded opponent and the batched self-play env hand a
    search agent the game (act_state), never an observation."""
    from agents import RandomAgent
    from agents.arena import play_game
    from nivel_env import NivelArenaGymEnv
    from nivel_env.vector_sb3 import SelfPlayVecEnv
    fast = dict(simulations=4, worlds=2)
    r = play_game(load_deck("ember-rush"), load_deck("stone-bastion"), 1,
                  [SearchAgent(prior, seed=0, **fast), RandomAgent(0)])
    assert r.returns in ((1, -1), (-1, 1), (0, 0))
    env = NivelArenaGymEnv(opponent=SearchAgent(prior, seed=1, **fast), seat=1)
    obs, info = env.reset(seed=2)
    for _ in range(30):
        legal = np.flatnonzero(env.action_masks())
        obs, rew, term, trunc, info = env.step(int(legal[0]))
        if term or trunc:
            break
    venv = SelfPlayVecEnv(2, opponents=[SearchAgent(prior, seed=2, **fast)], seed=0)
    venv.reset()
    for _ in range(5):
        venv.step(venv.action_masks().argmax(axis=1))
        assert venv.batch.learner_to_act.all()


def test_search_keeps_to_its_budget(prior):
    """Simulations are counted exactly whatever the leaf batch; a time budget stops the
    search early (then at least one wave has run)."""
    g = positions(1, seed=20)[0]
    for batch in (1, 3, 16):
        s = SearchAgent(prior, simulations=24, worlds=3, batch=batch, seed=1)
        assert s.act_state(g) in g.legal_actions()
        assert s.last_stats["simulations"] == 24
    s = SearchAgent(prior, simulations=100_000, worlds=2, max_ms=30, seed=1)
    assert s.act_state(g) in g.legal_actions()
    assert 2 <= s.last_stats["simulations"] < 100_000
    assert s.last_stats["ms"] < 5_000


def test_the_shipped_search_agent_plays_whole_games():
    """The shipped nv2-search (value head fit for nv2-ppo) plays whole games legally."""
    from agents import RandomAgent
    from agents.arena import play_game
    s = load_opponent("nv2-search:simulations=8,worlds=2", seed=0)
    assert s.value is not None
    r = play_game(load_deck("ember-rush"), load_deck("stone-bastion"), 4,
                  [RandomAgent(1), s])
    assert r.returns in ((1, -1), (-1, 1), (0, 0))
