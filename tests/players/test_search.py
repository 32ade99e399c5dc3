"""The search agent: legal, reproducible, leaves the game alone, blind to hidden cards."""
import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import load_opponent                                  # noqa: E402
from agents.search import SearchAgent, _advance, _Node            # noqa: E402
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
    from nivel_env.tournaments.arena import play_game
    from nivel_env import NivelArenaGymEnv
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
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
    from nivel_env.tournaments.arena import play_game
    s = load_opponent("nv2-search:simulations=8,worlds=2", seed=0)
    assert s.value is not None
    r = play_game(load_deck("ember-rush"), load_deck("stone-bastion"), 4,
                  [RandomAgent(1), s])
    assert r.returns in ((1, -1), (-1, 1), (0, 0))


def _layout(g):
    """Which card lies where (by position, not instance): equal for worlds that differ only
    in instance names."""
    d = g.defs
    return ([[d[i] for i in x] for x in g.hand + g.deck + g.skill + g.trash + g.damage],
            [d[i] if i >= 0 else -1 for i in g.unit], [[d[i] for i in x] for x in g.items])


def test_search_moves_do_not_depend_on_the_opponents_hidden_cards(prior):
    """docs/rulings.md R24: deck lists are closed, so replacing the opponent's hidden cards
    by others (``substitute``) or renaming them (``relabel``) must not change the move.  The
    first position is one where worlds redrawn from the true hidden cards (what the search
    did before, and still does with open deck lists) changed it."""
    from nivel_env.engine.hidden import relabel, substitute
    cases = [(positions(4, seed=8)[1], 101)] + [(g, 100) for g in positions(3, seed=12)]
    for g, s in cases:
        me = g.current_player
        a = SearchAgent(prior, simulations=64, worlds=4, seed=5).act_state(g)
        for h in (substitute(g, me, s, own_deck=False), relabel(g, me, s),
                  determinize(g, me, s)):
            assert SearchAgent(prior, simulations=64, worlds=4, seed=5).act_state(h) == a
    # open lists: the opponent's list is known, so some substitution of it changes a move
    g = cases[0][0]
    me = g.current_player

    def open_move(x):
        return SearchAgent(prior, simulations=64, worlds=4, seed=5,
                           deck_lists="open").act_state(x)
    moved = open_move(g)
    assert any(open_move(substitute(g, me, s, own_deck=False)) != moved
               for s in range(101, 109))


def test_closed_worlds_draw_the_opponents_cards_from_what_may_be_known():
    """The worlds of a closed-list search: the same for every game that differs only in
    what the player cannot see; the opponent's hidden cards legal for their leader (oath,
    at most 3 copies counting those seen, at most 8 triggers)."""
    from collections import Counter
    from nivel_env.cards.filters import card_matches_static
    from nivel_env.engine.hidden import opponent_view, relabel, substitute
    from agents.worlds import CandidateDecks, PoolPrior
    for g in positions(3, seed=30):
        me, opp = g.dec[1], 1 - g.dec[1]
        pool = PoolPrior(g.db)
        view = opponent_view(g, me)
        assert view.hidden == len(g.deck[opp]) + len(g.hand[opp]) - len(g.known[opp])
        worlds = {}
        for name, x in (("real", g), ("substituted", substitute(g, me, 3, own_deck=False)),
                        ("relabelled", relabel(g, me, 4))):
            assert opponent_view(x, me) == view
            worlds[name] = [_layout(determinize(x, me, s, opponent=pool)) for s in range(3)]
        assert worlds["real"] == worlds["substituted"] == worlds["relabelled"]
        leader = g.db.cards[g.defs[opp * 41]]
        for s in range(5):
            w = determinize(g, me, s, opponent=pool)
            cards = [g.db.cards[w.defs[i]] for i in range(opp * 41 + 1, opp * 41 + 41)]
            assert max(Counter(c.id for c in cards).values()) <= 3
            assert sum(c.has_trigger for c in cards) <= 8
            for r in leader.oath:
                n = sum(card_matches_static(c, r.filter) for c in cards)
                assert {"all": n == 40, "at_least": n >= r.n, "at_most": n <= r.n}[r.kind]
        # a known metagame: the opponent's deck is the only bundled one with its leader,
        # so the worlds hold exactly its cards
        meta = CandidateDecks([load_deck("ember-rush"), load_deck("stone-bastion")], g.db)
        w = determinize(g, me, 7, opponent=meta)
        assert sorted(w.defs[opp * 41 + 1:opp * 41 + 41]) == \
            sorted(g.defs[opp * 41 + 1:opp * 41 + 41])


def test_search_refuses_an_unknown_deck_list_setting(prior, tmp_path):
    with pytest.raises(ValueError, match="deck_lists"):
        SearchAgent(prior, deck_lists="secret")
    for bad in (3, [], "ember-rush"):
        with pytest.raises(ValueError, match="deck_lists"):
            SearchAgent(prior, deck_lists=bad)
    g = positions(1)[0]
    meta = SearchAgent(prior, simulations=4, worlds=2,
                       deck_lists=["ember-rush", "tide-scholars"])
    assert meta.act_state(g) in g.legal_actions()
    # an unknown deck in a list is refused when the agent is made, naming the deck
    for bad, named in ((["ember-rush", "no-such-deck"], "no-such-deck"),
                       (["./missing.deck"], "missing.deck"),
                       (["ember-rush", 3], "3"), ([None], "None"),
                       ([str(tmp_path)], "not a regular file but a directory")):
        with pytest.raises(ValueError, match=rf"deck_lists\[\d\]: .*{named}"):
            SearchAgent(prior, simulations=4, deck_lists=bad)
    decks = (load_deck("ember-rush"), "tide-scholars")
    assert SearchAgent(prior, simulations=4, worlds=2, deck_lists=decks).act_state(g) \
        in g.legal_actions()
    assert load_opponent("nv2-search:deck_lists=open,simulations=4").deck_lists == "open"
    assert load_opponent("nv2-search:simulations=4").deck_lists == "closed"
    with pytest.raises(ValueError, match="deck_lists"):
        load_opponent("nv2-search:deck_lists=secret")


class FakeClock:
    """A clock for the time cap that moves ``step`` seconds each time it is read, so a
    capped search stops at the same point on any machine."""

    def __init__(self, step: float):
        self.t, self.step = 0.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def test_a_cap_the_search_stays_inside_changes_nothing(prior):
    """The same moves, visit counts and simulations as no cap: a cap that does not bind
    (here a clock that never moves) costs nothing in strength or reproducibility."""
    for g in positions(3, seed=40):
        free = SearchAgent(prior, simulations=64, worlds=4, batch=16, seed=9)
        capped = SearchAgent(prior, simulations=64, worlds=4, batch=16, seed=9, max_ms=1)
        capped.clock = FakeClock(0.0)
        assert capped.act_state(g) == free.act_state(g)
        assert capped.last_stats["visits"] == free.last_stats["visits"]
        assert capped.last_stats["simulations"] == free.last_stats["simulations"] == 64
        assert not capped.last_stats["capped"] and not free.last_stats["capped"]


def test_a_capped_search_stops_inside_a_wave_with_its_best_move_so_far(prior):
    """Time up part way through a wave: the selected leaves are still evaluated and backed
    up (every simulation after the roots' expansion shows as a root visit) and the move is
    the most visited one; the same clock gives the same move."""
    g = positions(1, seed=41)[0]
    runs = []
    for _ in range(2):
        s = SearchAgent(prior, simulations=256, worlds=4, batch=64, seed=2, max_ms=100)
        s.clock = FakeClock(0.001)                  # 1 ms a reading: ends inside wave two
        a = s.act_state(g)
        stats = s.last_stats
        assert a in g.legal_actions() and stats["capped"] and stats["worlds"] == 4
        assert 4 + 64 < stats["simulations"] < 4 + 2 * 64
        assert sum(stats["visits"].values()) == stats["simulations"] - 4
        assert stats["visits"][a] == max(stats["visits"].values())
        runs.append((a, stats["visits"]))
    assert runs[0] == runs[1]


def test_a_search_out_of_time_still_samples_a_world_and_plays_the_policys_move(prior):
    """The cap covers every phase: time up after the first world is sampled leaves one
    world and no wave, and the move is the policy's own choice there (the roots' forward
    is always made: it is what ranks the moves)."""
    from nivel_env.engine import N_ACTIONS
    from nivel_env.env.encoder import Encoder
    for g in positions(3, seed=42):
        s = SearchAgent(prior, simulations=64, worlds=4, seed=3, max_ms=1)
        s.clock = FakeClock(1.0)
        a = s.act_state(g)
        assert s.last_stats["worlds"] == 1 and s.last_stats["simulations"] == 1
        assert s.last_stats["capped"] and sum(s.last_stats["visits"].values()) == 0
        legal = g.legal_actions()
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        mask[legal] = 1
        assert a == prior.act(Encoder(g.db).encode(g, g.current_player, legal), mask)


def test_cap_think_time_and_for_play_cap_only_searches():
    """The screens' API: a search agent gets the cap (None lifts it), other agents are
    left alone; ``for_play`` also sets torch's threads in the thread that searches."""
    import threading

    import torch

    from agents.opponents import PLAY_THINK_SECONDS, cap_think_time, for_play
    expert = load_opponent("expert", seed=0)
    assert expert.max_ms is None                    # tournaments: uncapped by name
    assert cap_think_time(expert, 0.5) is expert and expert.max_ms == 500
    assert cap_think_time(expert, None).max_ms is None
    for other in ("heuristic", "random", "nv2-ppo"):
        agent = load_opponent(other, seed=0)
        before = dict(vars(agent))
        assert for_play(agent) is agent and vars(agent) == before
    for bad in (0, -1, True, "1"):
        with pytest.raises(ValueError, match="seconds"):
            cap_think_time(expert, bad)
    g = positions(1, seed=43)[0]
    seen = {}

    def play():                          # a fresh thread, as the web game's workers are
        start = torch.get_num_threads()
        agent = for_play(load_opponent("nv2-search:simulations=8", seed=0),
                         threads=start + 1)
        torch.set_num_threads(start)     # a thread that used torch before: the agent
        agent.act_state(g)               # sets its own count where it searches
        seen.update(start=start, during=torch.get_num_threads(), ms=agent.max_ms)
        torch.set_num_threads(start)
    t = threading.Thread(target=play)
    t.start()
    t.join()
    assert seen["during"] == seen["start"] + 1
    assert seen["ms"] == PLAY_THINK_SECONDS * 1000


class ReferenceSearch(SearchAgent):
    """The search written plainly, as it first was: a call per selection, priors softmaxed
    leaf by leaf from ``value_features`` on a contiguous copy of each observation.  The
    shipped search's one-loop tree, batched softmax, reused buffer and ``LeafForward``
    must give the same visits as this, bit for bit."""

    def _wave(self, roots, per_world):
        sims, todo = [], []
        for w, root in enumerate(roots):
            for _ in range(per_world):
                path, node = [], root
                while node.expanded and node.g.result is None:
                    fpu = node.w / node.n if node.n else 0.0
                    scale = self.c_puct * math.sqrt(node.n + 1)
                    scores = [(s / n if n else fpu) + scale * p / (1 + n)
                              for n, s, p in zip(node.visits, node.value_sum, node.prior)]
                    k = scores.index(max(scores))
                    if node.children[k] is None:
                        node.children[k] = _Node(_advance(node.g, node.legal[k])[0])
                    path.append((node, k))
                    node.n += 1
                    node.visits[k] += 1
                    node.value_sum[k] -= 1.0
                    node.w -= 1.0
                    node = node.children[k]
                sims.append((path, node))
                if node.g.result is None and not node.expanded and not node.pending:
                    node.pending = True
                    todo.append((w, node))
        if todo:
            self._expand(todo)
        for path, leaf in sims:
            r = leaf.g.result
            v0 = float(r[0]) if r is not None else \
                (leaf.value if leaf.player == 0 else -leaf.value)
            for node, k in path:
                v = (v0 if node.player == 0 else -v0) + 1.0
                node.value_sum[k] += v
                node.w += v
        return len(sims)

    def _expand(self, todo):
        import torch
        from agents.value import value_features
        from nivel_env.env.encoder import Encoder
        enc = Encoder(todo[0][1].g.db)
        obs = np.stack([enc.encode(leaf.g, leaf.player, leaf.legal)[:self.n_obs].copy()
                        for _, leaf in todo])
        with torch.no_grad():
            logits, latent = value_features(self.net, torch.as_tensor(obs))
            head = self.value if self.value is not None else self.net.value_net
            v = head(latent).numpy().reshape(-1)
        logits = logits.numpy()
        for j, (_, leaf) in enumerate(todo):
            z = logits[j][leaf.legal] / self.prior_temperature
            p = np.exp(z - z.max())
            leaf.prior = (p / p.sum()).tolist()
            leaf.value = float(min(1.0, max(-1.0, v[j])))
            leaf.expanded, leaf.pending = True, False


@pytest.mark.parametrize("backend,policy", [("python", "nv2-ppo"), ("native", "nv2-ppo"),
                                            ("python", "nv1-ppo")])
def test_the_search_visits_what_the_plain_search_visits(backend, policy):
    """The shipped search against ``ReferenceSearch``: the same root visit counts, so the
    same moves, on either engine -- nv2-search-deep's network, value head and settings at
    a smaller budget (``LeafForward``'s own forward), and nv1-ppo with its critic (a
    network it passes to ``value_features``)."""
    if backend == "native":
        pytest.importorskip("nivel_env.native._core")
    from nivel_env.native.game import NativeGame
    if policy == "nv2-ppo":
        deep = load_opponent("nv2-search-deep:simulations=128", seed=0)
        net, value = deep.net, deep.value
    else:
        net, value = load_opponent(policy).policy, None
    settings = dict(simulations=128, worlds=4, batch=64, c_puct=2.5, prior_temperature=8.0)
    for i, g in enumerate(positions(3, seed=50)):
        if backend == "native":
            g = NativeGame.from_dict(g.to_dict())
        fast = SearchAgent(net, value=value, seed=i, **settings)
        plain = ReferenceSearch(net, value=value, seed=i, **settings)
        assert fast.act_state(g) == plain.act_state(g)
        assert fast.last_stats["visits"] == plain.last_stats["visits"]


def test_the_leaf_forward_gives_the_policys_floats():
    """``LeafForward`` (the card layer on present rows, keys from the bias) against
    ``value_features`` and the value head, on observations of real positions with their
    rows longer than the network reads and garbage past the batch."""
    import torch
    from agents.leaf_forward import LeafForward, reference_forward
    from nivel_env.env.encoder import Encoder
    deep = load_opponent("nv2-search-deep", seed=0)
    forward = LeafForward(deep.net, deep.value)
    assert forward.fast
    games = positions(4, seed=60)
    enc = Encoder(games[0].db)
    rows = []
    for g in games:
        for a in g.legal_actions()[:6]:
            h = g.clone()
            h.apply_action(a)
            if h.result is None:
                rows.append(enc.encode(h, h.current_player, h.legal_actions()).copy())
    obs = np.stack(rows)
    buf = np.full((len(rows) + 3, obs.shape[1]), np.nan, dtype=np.float32)
    buf[:len(rows)] = obs
    for n in (1, 5, len(rows)):
        want = reference_forward(deep.net, deep.value, obs[:n])
        got = forward(torch.from_numpy(buf[:n]))
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_leaf_priors_are_each_rows_own_softmax():
    """The batched softmax gives each row the bits its own softmax gives (rows of 1 to 60
    legal moves, logits of any scale; numpy's segmented sum would not)."""
    from agents.search import leaf_priors
    r = np.random.default_rng(7)
    for _ in range(50):
        n = int(r.integers(1, 40))
        logits = (r.standard_normal((n, 337)) * r.uniform(0.1, 40)).astype(np.float32)
        legal = [sorted(r.choice(337, int(r.integers(1, 61)), replace=False).tolist())
                 for _ in range(n)]
        got = leaf_priors(logits, legal, 8.0)
        for j in range(n):
            z = logits[j][legal[j]] / 8.0
            p = np.exp(z - z.max())
            assert got[j] == (p / p.sum()).tolist()


def test_a_search_pickles_after_a_move_and_plays_the_same():
    """A pool member is pickled to its worker: a search that has moved (its encoders,
    buffer and forward made) pickles, and the copy plays what the original plays."""
    import pickle
    g = positions(1, seed=70)[0]
    if pytest.importorskip("nivel_env.native").available():
        from nivel_env.native.game import NativeGame
        g = NativeGame.from_dict(g.to_dict())
    s = load_opponent("nv2-search:simulations=16", seed=4)
    s.act_state(g)
    copy = pickle.loads(pickle.dumps(s))
    assert copy.act_state(g) == s.act_state(g)
    assert copy.last_stats["visits"] == s.last_stats["visits"]
