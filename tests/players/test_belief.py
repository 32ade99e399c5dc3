"""Worlds weighted by belief (agents.belief): the drivers tell a search every move, the
weights follow the opponent's moves, read nothing the searching player cannot see, and a
search with the belief off plays as before."""
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import RandomAgent, load_opponent                     # noqa: E402
from agents.belief import (Belief, TEMPERED_ESS, make_belief, normalised,  # noqa: E402
                           systematic, tempering)
from agents.search import SearchAgent                             # noqa: E402
from nivel_env import players                                     # noqa: E402
from nivel_env.cards import load_deck                             # noqa: E402
from nivel_env.engine import N_ACTIONS, new_game                  # noqa: E402
from nivel_env.engine.hidden import relabel, substitute           # noqa: E402
from nivel_env.tournaments.arena import play_game                 # noqa: E402


def start(seed):
    return new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=seed)


def random_moves(seed, steps=60):
    """The moves of a game played at random from ``start(seed)`` for ``steps`` moves and
    on to the next real choice."""
    g, r, moves = start(seed), np.random.default_rng(seed), []
    while len(moves) < steps or len(g.legal_actions()) < 2:
        assert g.result is None, "the game ended: take fewer steps"
        legal = g.legal_actions()
        a = legal[r.integers(len(legal))] if len(moves) < steps else legal[0]
        moves.append(a)
        g.apply_action(a)
    return g, moves


def replay(first, moves, agent):
    """``moves`` played from a copy of ``first``, ``agent`` told each (as a driver does)."""
    g = first.clone()
    told = players.informed([agent])
    for a in moves:
        players.inform(told, g, g.current_player, a)
        g.apply_action(a)
    return g


@pytest.fixture(scope="module")
def prior():
    return load_opponent("nv1-ppo")


def test_off_is_todays_search_and_is_not_told_moves(prior):
    """Off (the default) the agent has no ``inform_action``, so no driver tells it
    anything; on, with nothing remembered yet, it draws the worlds it drew before."""
    g, _ = random_moves(3, 40)
    off = SearchAgent(prior, simulations=16, worlds=2, seed=4)
    assert off.belief is None and players.informed([off]) == ()
    on = SearchAgent(prior, simulations=16, worlds=2, seed=4, belief="on")
    assert players.informed([on]) == (on.inform_action,)
    assert on.act_state(g) == off.act_state(g)
    assert on.last_stats["visits"] == off.last_stats["visits"]
    assert on.belief.last == {}                       # nothing weighed


def test_bad_settings_are_refused_by_name(prior):
    for kw, word in [({"memory": 0}, "memory"), ({"candidates": 0}, "candidates"),
                     ({"epsilon": 0.0}, "epsilon"), ({"epsilon": 1.5}, "epsilon"),
                     ({"temperature": 0}, "temperature"), ({"min_ess": -0.1}, "min_ess"),
                     ({"min_ess": 1.5}, "min_ess")]:
        with pytest.raises(ValueError, match=word):
            Belief(**kw)
    with pytest.raises(ValueError, match="belief"):
        SearchAgent(prior, belief="maybe")
    with pytest.raises(ValueError, match="belief"):
        load_opponent("nv2-search:belief=sometimes")
    assert make_belief("off") is None and isinstance(make_belief("on"), Belief)
    assert make_belief("on").min_ess == 0 and make_belief("tempered").min_ess == TEMPERED_ESS


def test_legal_moves_are_remembered_per_game_forced_ones_too():
    b = Belief(memory=3)
    g, _ = random_moves(5, 30)
    legal = g.legal_actions()
    p = g.current_player
    illegal = next(a for a in range(N_ACTIONS) if a not in legal)
    b.record(g, p, illegal)                           # a move the game would refuse
    assert b.history(g, p) == []
    for a in legal + legal:
        b.record(g, p, a)
    assert [a for _, a in b.history(g, p)] == (legal + legal)[-3:]
    forced, r = g.clone(), np.random.default_rng(0)
    while len(forced.legal_actions()) != 1:
        legal = forced.legal_actions()
        forced.apply_action(legal[r.integers(len(legal))])
    b.record(forced, forced.current_player, forced.legal_actions()[0])
    assert len(b.history(forced, forced.current_player)) == 1
    assert b.history(g.clone(), p) == [] and b.history(g, 1 - p) == []
    b.reset()
    assert b.history(g, p) == []


def scripted_case():
    """A remembered choice of player ``p`` and two worlds that differ only in the card of
    the first card in ``p``'s hand then: the scripted policy plays ``move`` exactly when
    that card is ``card``."""
    g, _ = random_moves(11, 40)
    while not g.hand[g.current_player]:
        g.apply_action(g.legal_actions()[-1])
    p, legal = g.current_player, g.legal_actions()
    assert len(legal) > 1
    iid, move = g.hand[p][0], legal[-1]
    card = g.defs[iid]
    other = next(c.index for c in g.db.cards if c.type != "leader" and c.index != card)

    def world(c):
        w = g.clone()
        defs = list(g.defs)
        defs[iid] = c
        w.set_deal(tuple(defs), 1)
        return w

    def scripted(rows):
        out = np.zeros((len(rows), N_ACTIONS), dtype=np.float32)
        for j, (h, q, legal_h) in enumerate(rows):
            assert q == p
            plays = h.defs[h.hand[q][0]] == card
            out[j, move if plays else [a for a in legal_h if a != move][0]] = 20.0
        return out
    return g, p, move, world(card), world(other), scripted


def test_weights_favour_the_world_whose_card_explains_the_opponents_move():
    g, p, move, holds, lacks, scripted = scripted_case()
    history = [(g.clone(), move)]
    b = Belief(epsilon=0.1)
    logw = b.log_weights([holds, lacks], history, p, scripted)
    n = len(g.legal_actions())
    assert logw[0] == pytest.approx(np.log(0.9 + 0.1 / n), abs=1e-6)
    assert logw[1] == pytest.approx(np.log(0.1 / n), abs=1e-3)
    # resampled from candidates alternating between the two: the one that explains it
    b._games[id(g)] = (g, [history, history])
    picked = b.worlds(g, 1 - p, 4, lambda s: (holds, lacks)[s % 2],
                      _Seeds(), scripted)
    assert all(w is holds for w in picked)
    assert b.last["candidates"] == 16 and b.last["distinct"] == 4
    assert b.last["ess"] < 16 * 0.6


class _Seeds:
    """A generator stand-in: seeds 0, 1, 2, ... and the systematic draw's 0.3."""

    def integers(self, high, size):
        return np.arange(size)

    def random(self):
        return 0.3


def test_a_move_illegal_in_a_world_makes_it_impossible():
    g, p, move, holds, lacks, scripted = scripted_case()
    b = Belief()
    illegal = next(a for a in range(N_ACTIONS) if a not in g.legal_actions())
    logw = b.log_weights([holds, lacks], [(g.clone(), move), (g.clone(), illegal)], p,
                         scripted)
    assert np.all(logw == -np.inf)
    b._games[id(g)] = (g, [[(g.clone(), illegal)]] * 2)
    picked = b.worlds(g, 1 - p, 2, lambda s: (holds, lacks)[s % 2], _Seeds(), scripted)
    assert b.last["impossible"] == 8               # every one: all count alike, so the
    assert [w is lacks for w in picked] == [True, True]    # points 0.15, 0.65: 1 and 5


def test_systematic_resampling_follows_the_weights():
    assert systematic(np.array([0.5, 0.25, 0.25]), 4, 0.5) == [0, 0, 1, 2]
    assert systematic(np.array([0.0, 1.0, 0.0]), 3, 0.99) == [1, 1, 1]
    w = np.random.default_rng(0).dirichlet(np.ones(7))
    picks = systematic(w, 1000, 0.3)
    assert np.all(np.abs(np.bincount(picks, minlength=7) - 1000 * w) <= 1)


def test_the_weights_read_nothing_the_searching_player_cannot_see(prior):
    """The same moves played from three starts that differ only in what the searching
    player cannot see -- the real deal, its hidden instances renamed (``relabel``, which
    then holds through every move: moves name slots, not instances), and the opponent's
    cards still hidden at the end replaced by others from the start (``substitute``:
    those in their hand were in their hand, and in their observation, at the remembered
    decisions) -- give the same weights, bit for bit, and the same move from the same
    seed."""
    from nivel_env.engine.hidden import hidden_groups
    for seed in (2, 3, 5):
        g, moves = random_moves(seed)
        me = g.current_player
        first = start(seed)
        unseen = set(hidden_groups(g, me)[0])
        assert set(g.hand[1 - me]) & unseen
        keep = [i for i in range(len(first.defs)) if i not in unseen]
        starts = [first, relabel(first, me, 7),
                  substitute(first, me, 9, own_deck=False, keep=keep, reseed=False)]
        assert len({s.defs for s in starts}) == 3
        moved, weights = [], []
        for s in starts:
            agent = SearchAgent(prior, simulations=16, worlds=2, seed=5, belief="on")
            end = replay(s, moves, agent)
            if s is starts[2]:                     # only the unseen cards were replaced
                assert [end.defs[i] for i in keep] == [g.defs[i] for i in keep]
                assert any(end.defs[i] != g.defs[i] for i in unseen & set(g.hand[1 - me]))
            moved.append(agent.act_state(end))
            weights.append(agent.belief.last["log_weights"])
            assert agent.belief.last["moves"] > 10
        assert moved[1:] == moved[:-1]
        assert all(np.array_equal(w, weights[0]) for w in weights)


def test_the_arena_tells_a_belief_search_every_choice(prior):
    """``play_game`` tells the search both seats' moves: it remembers the opponent's last
    moves, as the game's record has them; a new game starts with nothing remembered."""
    s = SearchAgent(prior, simulations=4, worlds=2, seed=2, belief=Belief(memory=8))
    record, seen = [], []
    real = s.belief.record

    def spy(game, player, action):
        seen.append(game)
        real(game, player, action)
    s.inform_action = spy
    play_game(load_deck("ember-rush"), load_deck("stone-bastion"), 6, [s, RandomAgent(3)],
              record=record)
    g, theirs = start(6), []
    for a in record:
        if g.current_player == 1:
            theirs.append(a)
        g.apply_action(a)
    assert len(theirs) > 8
    assert [a for _, a in s.belief.history(seen[0], 1)] == theirs[-8:]
    assert s.belief.last["moves"] == 8
    s.reset()
    assert s.belief.history(seen[0], 1) == []


def _ess(w):
    return 1.0 / float((w * w).sum())


def test_tempering_keeps_the_effective_sample_size_and_the_order():
    """Peaked log-weights (25 moves' worth) are tempered by the largest power that keeps
    half the candidates' effective sample size; the order of the worlds is kept, an
    impossible world stays impossible, and weights that already spread are untouched."""
    rng = np.random.default_rng(3)
    logw = rng.normal(0, 1, 16).cumsum() * 6.0
    logw[5] = -np.inf
    assert _ess(normalised(logw)) < 3                      # untempered: collapsed
    beta = tempering(logw, 8.0)
    assert 0 < beta < 1
    w = normalised(logw, beta)
    assert _ess(w) == pytest.approx(8.0, rel=0.01) and w[5] == 0
    assert _ess(normalised(logw, min(1.0, beta * 1.05))) < 8.0   # the largest such power
    possible = np.isfinite(logw)
    assert (np.argsort(w[possible], kind="stable") ==
            np.argsort(logw[possible], kind="stable")).all()
    flat = np.log(np.linspace(1.0, 1.2, 16))
    assert tempering(flat, 8.0) == 1.0                     # spread already: untouched
    assert tempering(logw, 15.5) == 0.0                    # 15 possible: equal weights
    assert normalised(np.full(4, -np.inf)).tolist() == [0.25] * 4


def test_a_tempered_belief_spreads_the_worlds_it_searches(prior):
    """Same game, same seed: the tempered search weighs the same candidates (the same
    log-weights) and keeps an effective sample size of half of them; the untempered one
    does not."""
    _, moves = random_moves(3, 60)
    stats = {}
    for setting in ("on", "tempered"):
        agent = SearchAgent(prior, simulations=8, worlds=4, seed=6, belief=setting)
        agent.act_state(replay(start(3), moves, agent))
        stats[setting] = dict(agent.belief.last)
    on, tempered = stats["on"], stats["tempered"]
    assert on["moves"] == tempered["moves"] > 5
    assert np.array_equal(on["log_weights"], tempered["log_weights"])
    assert on["beta"] == 1.0 and on["ess"] < 2 and on["distinct"] == 1   # collapsed
    assert 0 < tempered["beta"] < 1 and tempered["distinct"] == 4
    assert tempered["ess"] == pytest.approx(TEMPERED_ESS * tempered["candidates"], rel=0.01)
