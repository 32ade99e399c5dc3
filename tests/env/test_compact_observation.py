"""The compact observation: the full layout's facts, with card rows as indices
into the pool's card table -- the same information, a twelfth of the values."""
import pickle

import numpy as np
import pytest

from nivel_env import native
from nivel_env.cards import list_decks, load_deck
from nivel_env.engine import new_game
from nivel_env.env import raw_env
from nivel_env.env.encoder import CompactEncoder, Encoder, card_table, make_encoder
from nivel_env.env.layout import COMPACT, LAYOUT, LAYOUTS, layout_named


def _positions(seeds=(1, 2), limit=300):
    """(game, legal) at each decision of random games over bundled deck pairs."""
    names = list_decks()
    for seed in seeds:
        g = new_game(load_deck(names[seed % len(names)]),
                     load_deck(names[(seed * 5 + 1) % len(names)]), seed=seed)
        rng = np.random.default_rng(seed)
        n = 0
        while not g.is_terminal() and n < limit:
            legal = g.legal_actions()
            yield g, legal
            g.apply_action(int(rng.choice(legal)))
            n += 1


def _full_rows(full, block, added):
    return np.concatenate([LAYOUT.view(full, block), LAYOUT.view(full, added)], axis=-1)


def test_compact_is_under_an_eighth_of_the_full_layout():
    assert COMPACT.size * 8 <= LAYOUT.size
    assert set(LAYOUTS) == {"full", "compact"} and layout_named("compact") is COMPACT
    assert COMPACT.hash != LAYOUT.hash
    with pytest.raises(ValueError, match="'tiny'.*'full', 'compact'"):
        layout_named("tiny")


def test_compact_shows_exactly_what_the_full_layout_shows():
    """Every shared block is bit for bit the full layout's; the table rows the indices
    point at are the full layout's card rows; zone sums rebuilt from the listed cards
    equal the full layout's sums."""
    first = next(_positions())[0]
    full_enc, comp_enc = Encoder(first.db), CompactEncoder(first.db)
    table = card_table(first.db)
    shared = [b.name for b in COMPACT.blocks if b.name in LAYOUT]
    assert len(shared) == sum(1 for b in LAYOUT.blocks if not b.cached)
    n = 0
    for g, legal in _positions():
        for p in (0, 1):
            lg = legal if g.current_player == p else None
            f = full_enc.encode(g, p, lg).copy()
            c = comp_enc.encode(g, p, lg).copy()
            for name in shared:
                assert np.array_equal(COMPACT.view(c, name), LAYOUT.view(f, name)), name
            idx = COMPACT.view(c, "card_index").astype(np.int64)
            assert np.array_equal(idx, COMPACT.view(c, "card_index"))    # whole numbers
            assert np.array_equal(table[idx], _full_rows(f, "cards", "cards_added"))
            known = COMPACT.view(c, "known_index").astype(np.int64)
            assert np.array_equal(table[known],
                                  _full_rows(f, "opponent_known_hand", "known_added"))
            sums = np.concatenate([(table[COMPACT.view(c, k).astype(np.int64)]
                                    * np.float32(0.1)).sum(axis=1)
                                   for k in ("trash_index", "damage_index", "skill_index")])
            assert np.allclose(sums, _full_rows(f, "zones", "zones_added"), atol=1e-4)
            assert COMPACT.box().contains(c)
            n += 1
    assert n > 200


def test_zone_lists_hold_the_latest_cards_in_zone_order():
    g, _ = next(_positions(seeds=(3,)))
    enc = CompactEncoder(g.db)
    # edited in place below, so a Python game (a native game's lists are read-only)
    g = g.python_game() if g.backend == "native" else g.clone()
    cards = list(g.deck[0][:5])
    g.trash[0].extend(cards)
    obs = enc.encode(g, 0)
    if native.available():                     # the core, given the same state, agrees
        assert np.array_equal(enc.encode(native.from_python(g), 0), obs)
    rows = [c + 1 for c in (g.defs[i] for i in g.trash[0])]
    trash = COMPACT.view(obs, "trash_index")
    assert trash[0, :len(rows)].tolist() == rows and not trash[0, len(rows):].any()
    assert not trash[1].any()
    # the opponent sees the same list on their side
    assert COMPACT.view(enc.encode(g, 1), "trash_index")[1, :len(rows)].tolist() == rows


def test_environments_offer_the_compact_layout_and_its_card_table():
    e = raw_env(obs="compact")
    e.reset(seed=3)
    o = e.observe("player_0")["observation"]
    assert o.shape == (COMPACT.size,) and e.observation_space("player_0")["observation"] \
        .contains(o)
    t = e.card_table()
    assert t.dtype == np.float32 and t.shape[0] > 100 and not t.flags.writeable
    assert e.metadata["observation_layout"] == "compact" and e.metadata["card_table"] is t
    assert raw_env().metadata["observation_layout"] == "full"
    assert "card_table" not in raw_env().metadata
    with pytest.raises(ValueError, match="nivel_arena_v0: obs: observation layout 'x'"):
        raw_env(obs="x")


def test_compact_encoder_pickles_with_its_layout():
    g, _ = next(_positions())
    enc = make_encoder(g.db, "compact")
    back = pickle.loads(pickle.dumps(enc))
    assert isinstance(back, CompactEncoder) and back.layout is COMPACT
    assert np.array_equal(back.encode(g, 0), enc.encode(g, 0))


@pytest.fixture(scope="module")
def all_decks():
    return [load_deck(n) for n in list_decks()]


def test_hidden_information_holds_in_the_compact_layout(all_decks):
    from nivel_env.checks import hidden_info_errors
    errs, k = hidden_info_errors(all_decks[0], all_decks[1], seed=4, obs="compact")
    assert errs == [] and k > 10


def test_hidden_check_catches_a_compact_leak(all_decks, monkeypatch):
    monkeypatch.setenv("NIVEL_BACKEND", "python")           # the leak is planted in Python
    real = CompactEncoder._write_cards

    def leaky(self, g, p, rows, rowof):
        real(self, g, p, rows, rowof)
        if g.hand[1 - p]:                              # the opponent's first hand card
            self._index[p][1][0] = rowof[g.hand[1 - p][0]]
    monkeypatch.setattr(CompactEncoder, "_write_cards", leaky)
    from nivel_env.checks import hidden_info_errors
    errs, _ = hidden_info_errors(all_decks[0], all_decks[1], seed=4, obs="compact")
    assert any("cannot see changes their observation" in e for e in errs)


def test_the_view_and_the_heuristic_read_both_layouts_alike():
    """ObservationView reads a compact observation through the card table as it reads a
    full one, and the heuristic (which decides from the view) plays the same moves."""
    from agents.heuristic import HeuristicAgent
    from nivel_env.env.view import ObservationView
    first = next(_positions())[0]
    fe, ce, table = Encoder(first.db), CompactEncoder(first.db), card_table(first.db)
    full_h, comp_h = HeuristicAgent(seed=5), HeuristicAgent(seed=5)
    comp_h.use_card_pool(first.db)
    n = 0
    for g, legal in _positions(seeds=(4,)):
        p = g.current_player
        mask = np.zeros(337, np.int8)
        mask[legal] = 1
        f, c = fe.encode(g, p, legal).copy(), ce.encode(g, p, legal).copy()
        assert full_h.act(f, mask) == comp_h.act(c, mask)
        vf, vc = ObservationView(f), ObservationView(c, table)
        assert vf.decision == vc.decision and vf.n_candidates == vc.n_candidates
        for name in ("cards", "cards_added", "known", "known_added"):
            assert np.array_equal(getattr(vf, name), getattr(vc, name)), name
        assert np.allclose(vf.zones, vc.zones, atol=1e-4)
        n += 1
    assert n > 50
    with pytest.raises(ValueError, match="needs the pool's card table"):
        ObservationView(c)
    with pytest.raises(ValueError, match="11097 values .full layout. or 949"):
        ObservationView(c[:10])


def test_framework_checks_pass_on_the_compact_layout():
    """PettingZoo's api_test and Gymnasium's check_env accept the compact spaces (integer
    indices in a float Box with their own bounds)."""
    import warnings

    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from nivel_env import NivelArenaGymEnv
    api_test(raw_env(obs="compact", illegal_action="lose"), num_cycles=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(NivelArenaGymEnv(obs="compact", illegal_action="lose"),
                  skip_render_check=True)
    g = NivelArenaGymEnv(obs="compact")
    obs, _ = g.reset(seed=2)
    assert g.observation_space.contains(obs) and g.card_table().shape[1] == 159
