"""The native core's observation encoders write, bit for bit, the Python encoders' vectors
(both layouts, both seats) and the env's action mask, at every decision of random games
on the bundled pool and on the test pool (tests/data/test-pool.yaml)."""
import random

import numpy as np
import pytest

pytest.importorskip("nivel_env.native._core")

from conftest import TEST_DATA, test_db as pool_with_test_cards  # noqa: E402
from nivel_env.cards import load_card_db, load_deck  # noqa: E402
from nivel_env.cards.db import bundled_card_files  # noqa: E402
from nivel_env.engine import new_game  # noqa: E402
from nivel_env.engine.actions import N_ACTIONS  # noqa: E402
from nivel_env.env.encoder import make_encoder  # noqa: E402
from nivel_env.native.encoder import NativeEncoder  # noqa: E402
from nivel_env.native.game import from_python, new_native_game  # noqa: E402

BUNDLED_PAIRS = (("ember-rush", "tide-scholars"), ("anvil-guild", "veil-piercers"),
                 ("dawn-ascent", "twilight-pact"), ("gale-runners", "stone-bastion"))


def _bundled():
    db = load_card_db(bundled_card_files())
    return db, [(load_deck(a, db), load_deck(b, db)) for a, b in BUNDLED_PAIRS]


def _test_pool():
    db = pool_with_test_cards()
    return db, [(load_deck(TEST_DATA / "test-blaze.deck", db),
                 load_deck(TEST_DATA / "test-tide.deck", db))]


def _compare(db, deck_0, deck_1, seed, max_steps=400):
    """Play one random game on both backends side by side; at every decision compare
    both seats' observations (bytes) in both layouts and the mask.  Returns positions."""
    g = new_game(deck_0, deck_1, seed=seed, db=db)
    h = new_native_game(deck_0, deck_1, seed=seed, db=db)
    py_enc = {obs: make_encoder(db, obs) for obs in ("full", "compact")}
    nat_enc = {obs: NativeEncoder(make_encoder(db, obs)) for obs in ("full", "compact")}
    rng = random.Random(seed)
    positions = 0
    for step in range(max_steps):
        legal = g.legal_actions() if not g.is_terminal() else []
        assert list(h.legal_actions() if not h.is_terminal() else []) == list(legal)
        actor = g.current_player
        for obs in ("full", "compact"):
            for p in (0, 1):
                lg = legal if p == actor else None
                want = py_enc[obs].encode(g, p, lg)
                got = np.full(want.shape, np.nan, np.float32)
                nat_enc[obs].encode(h, p, got, lg)
                if want.tobytes() != got.tobytes():
                    bad = np.flatnonzero(want.view(np.uint32) != got.view(np.uint32))
                    names = [b.name for i in bad[:5] for b in py_enc[obs].layout.blocks
                             if b.offset <= i < b.stop]
                    raise AssertionError(
                        f"seed {seed} step {step} {obs} seat {p}: {len(bad)} values differ, "
                        f"first at {bad[:5].tolist()} ({names}): python "
                        f"{want[bad[:5]].tolist()} native {got[bad[:5]].tolist()}")
        for dtype in (np.int8, np.uint8, bool):
            want = np.zeros(N_ACTIONS, dtype)
            want[legal] = 1
            got = np.full(N_ACTIONS, 7 if dtype is not bool else True, dtype)
            NativeEncoder.mask(h, got)
            assert got.tobytes() == want.tobytes(), (seed, step, dtype)
        positions += 1
        if g.is_terminal():
            break
        a = rng.choice(legal)
        g.apply_action(a)
        h.apply_action(a)
    return positions


@pytest.mark.parametrize("pair", range(len(BUNDLED_PAIRS)))
def test_bundled_pool_matches_python_bit_for_bit(pair):
    db, decks = _bundled()
    n = sum(_compare(db, *decks[pair], seed=100 * pair + s, max_steps=150) for s in range(2))
    assert n > 100


def test_test_pool_matches_python_bit_for_bit():
    db, decks = _test_pool()
    n = sum(_compare(db, *decks[0], seed=s, max_steps=150) for s in range(3))
    assert n > 100


def test_env_encoder_dispatches_native_games_and_keeps_its_caches_right():
    """``Encoder.encode`` encodes a NativeGame with the core, and a Python game after it
    with its caches forgotten: one encoder used for both gives each backend's vector."""
    db, decks = _bundled()
    g = new_game(*decks[0], seed=5, db=db)
    rng = random.Random(5)
    for _ in range(60):
        g.apply_action(rng.choice(g.legal_actions()))
    for obs in ("full", "compact"):
        ref = make_encoder(db, obs)
        shared = make_encoder(db, obs)
        h = from_python(g)
        for p in (0, 1):
            want = ref.encode(g, p).copy()
            assert shared.encode(h, p).tobytes() == want.tobytes()
            assert shared.encode(g, p).tobytes() == want.tobytes()   # caches forgotten


def test_wrong_buffers_are_refused_by_name():
    db, decks = _bundled()
    h = new_native_game(*decks[0], seed=1, db=db)
    enc = NativeEncoder(make_encoder(db, "compact"))
    with pytest.raises(ValueError, match="float32"):
        enc.encode(h, 0, np.zeros(enc.size, np.float64))
    with pytest.raises(ValueError, match="float32"):
        enc.encode(h, 0, np.zeros(enc.size + 1, np.float32))
    with pytest.raises(ValueError, match="seat"):
        enc.encode(h, 2, np.zeros(enc.size, np.float32))
    with pytest.raises(ValueError, match="mask"):
        NativeEncoder.mask(h, np.zeros(N_ACTIONS, np.float32))


def _same_here(db, g):
    """Both seats' observations (both layouts) and the mask of Python game ``g`` and of a
    native game in its state are the same bytes."""
    h = from_python(g)
    legal = g.legal_actions() if not g.is_terminal() else []
    for obs in ("full", "compact"):
        enc, nat = make_encoder(db, obs), NativeEncoder(make_encoder(db, obs))
        for p in (0, 1):
            lg = legal if p == g.current_player else None
            got = nat.encode(h, p, np.full(nat.size, np.nan, np.float32), lg)
            assert enc.encode(g, p, lg).tobytes() == got.tobytes(), (obs, p, g.decision_name)
    mask = np.zeros(N_ACTIONS, np.int8)
    mask[legal] = 1
    assert NativeEncoder.mask(h, np.ones(N_ACTIONS, np.int8)).tobytes() == mask.tobytes()


def test_ordering_cards_into_a_deck_and_effects_match(tmp_path):
    """The picks random games seldom reach: a player ordering cards into their deck (3.1.6;
    the other seat sees only how many), both seats' observations at every step."""
    from conftest import P, do, make, pool_with
    from test_rules_who_decides import CARDS
    db = pool_with(tmp_path, CARDS)
    g = make(db, P(level=8, hand=["W-SWEEP"], units=["T-002", "T-003", "T-001"],
                   deck=["T-004"] * 3), P("T-L02", units=["T-021", "T-022"],
                                          deck=["T-004"] * 3))
    _same_here(db, g)
    do(g, "use Undertow")
    purposes = set()
    while not g.is_terminal() and g.decision_name != "main":
        purposes.add(g.decision.context.get("purpose"))
        _same_here(db, g)
        g.apply_action(g.legal_actions()[0])
    _same_here(db, g)
    assert "card order" in purposes


def test_choosing_how_many_to_draw_matches(tmp_path):
    """4.4.4: the "one more?" decision's count and most (the ``count`` block)."""
    from conftest import P, do, make, pool_with
    from nivel_env.engine.view import decision_info
    from test_rules_added_terms import EXTRA
    db = pool_with(tmp_path, EXTRA)
    g = make(db, P(hand=["X-UPTO"], deck=["T-002"] * 5), P("T-L02"))
    do(g, "Measured Study")
    assert decision_info(g).most == 2
    _same_here(db, g)
    do(g, "one more")
    assert decision_info(g).count == 1
    _same_here(db, g)


HUGE = """cards:
  - {id: H-TITAN, type: unit, name: Titan, name_ko: 거인, cost: 2, power: 50, hit: 10,
     attribute: fire, keywords: [{pierce: 9}]}
"""


def test_values_past_the_bounds_are_clipped_alike(tmp_path):
    """A custom card with extreme numbers: the clipped field values and the clipped zone
    sums (a trash of 30 such cards passes 10 in its power column) match."""
    from conftest import P, make, pool_with
    db = pool_with(tmp_path, HUGE)
    assert make_encoder(db)._zone_safe < 30
    g = make(db, P(units=["H-TITAN"], trash=["H-TITAN"] * 30, deck=["T-002"] * 5),
             P("T-L02", units=["H-TITAN", "T-002"], damage=["H-TITAN"] * 3))
    obs = make_encoder(db).encode(g, 0)
    assert obs.max() == 10.0                                 # something was clipped
    _same_here(db, g)
    g.attacked = [(g.unit[0], 0)] * 60                       # attacks past the scale too
    _same_here(db, g)
