"""The native core against the Python engine: the same game, bit for bit.

Skipped where the core is not built (a machine without a C++ compiler).  The long
version is the differential check (``python -m nivel_env check --backend both``).
"""
from __future__ import annotations

import pickle
import random
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nivel_env.native._core")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from card_cases import act, load_cases, scenario  # noqa: E402
from conftest import TEST_DATA  # noqa: E402

from nivel_env.cards import load_card_db, load_deck  # noqa: E402
from nivel_env.cards.deck import list_decks  # noqa: E402
from nivel_env.cards.vocab import CONDITIONS, GUARDIAN_PAYMENTS, SUBKEYWORDS, TIMINGS, VERBS  # noqa: E402
from nivel_env.engine import IllegalActionError, RuleConfig, new_game  # noqa: E402
from nivel_env.engine.hidden import determinize  # noqa: E402
from nivel_env.engine.scenario import build  # noqa: E402
from nivel_env.native import _core  # noqa: E402
from nivel_env.native.game import NativeGame, from_python, new_native_game  # noqa: E402
from nivel_env.native.program import NativeUnsupported, compile_program  # noqa: E402


@pytest.fixture(scope="module")
def decks():
    db = load_card_db()
    return [load_deck(n, db) for n in list_decks()]


def lockstep(g, h, rnd, limit=2000):
    """Play ``g`` (Python) and ``h`` (native) on with the same random moves; assert the
    whole state and the legal actions agree at every decision."""
    for step in range(limit):
        assert h.to_dict() == g.to_dict(), f"state differs at decision {step}"
        legal = g.legal_actions()
        assert h.legal_actions() == legal, f"legal actions differ at decision {step}"
        if g.is_terminal():
            assert h.is_terminal() and h.returns() == g.returns()
            return step
        a = rnd.choice(legal)
        g.apply_action(a)
        h.apply_action(a)
    return limit


def test_every_vocabulary_term_has_a_native_handler():
    """Every term of the vocabulary has its handler in both engines (the Python one is
    checked by tests/cards/test_vocab.py)."""
    have = {k: set(v) for k, v in _core.TERMS.items()}
    for kind, terms in (("verbs", VERBS), ("conditions", CONDITIONS), ("timings", TIMINGS),
                        ("subkeywords", SUBKEYWORDS), ("guardian_payments", GUARDIAN_PAYMENTS)):
        missing = sorted(t.key for t in terms if t.key not in have[kind])
        assert not missing, f"the native core has no handler for the {kind} {missing}"


def test_a_pool_with_a_term_the_core_lacks_is_refused_by_name():
    db = load_card_db()
    terms = {k: [t for t in v if t != "scale"] for k, v in _core.TERMS.items()}
    with pytest.raises(NativeUnsupported) as e:
        compile_program(db, terms)
    msg = str(e.value)
    assert "'scale'" in msg and "backend='python'" in msg, msg
    card = db.get(msg.split("card ", 1)[1].split()[0].rstrip(","))
    abilities = list(card.abilities) + [a for a in (card.effect, card.trigger_ability) if a]
    assert any(a.verb == "scale" for ab in abilities for a in ab.sequence), msg


def test_random_games_match_the_python_engine(decks):
    for seed in range(6):
        rnd = random.Random(seed)
        a, b = rnd.choice(decks), rnd.choice(decks)
        lockstep(new_game(a, b, seed=seed), new_native_game(a, b, seed=seed), rnd)


def test_rule_options_and_the_test_pool_match():
    db = load_card_db([str(TEST_DATA / "test-pool.yaml")])
    blaze = load_deck(TEST_DATA / "test-blaze.deck", db)
    tide = load_deck(TEST_DATA / "test-tide.deck", db)
    for seed in range(6):
        rnd = random.Random(seed)
        cfg = RuleConfig(mulligan=seed % 2 == 0, choose_effect_order=seed % 3 != 0,
                         simultaneous_each_player=seed % 2 == 1, hand_owner_chooses=seed > 2,
                         first_turn_attack=seed != 4, damage_if_defender_gone=seed != 5,
                         surrender_action=seed == 1, hand_limit=3 + seed, max_turns=40)
        lockstep(new_game(blaze, tide, seed=seed, config=cfg, mirror=seed == 3),
                 new_native_game(blaze, tide, seed=seed, config=cfg, mirror=seed == 3), rnd)


def test_every_card_case_plays_the_same_on_both_backends():
    """Each per-card scenario (tests/cards/*.yaml): its steps, then a short random
    play-out, on a Python game and a native copy of the same position."""
    db = load_card_db()
    cases = load_cases()
    for case in cases:
        g = build(scenario(case), db)
        h = from_python(g)
        for st in case.get("steps", []):
            if not isinstance(st, str):
                continue
            try:
                act(g, st)
            except AssertionError:
                break
            act(h, st)
            assert h.to_dict() == g.to_dict(), f"{case['_where']}: after {st!r}"
        lockstep(g, h, random.Random(len(case["_where"])), limit=40)


def test_illegal_actions_are_refused_and_change_nothing(decks):
    h = new_native_game(decks[0], decks[1], seed=4)
    before = h.to_dict()
    for bad in (7, 400, -1, 2.0, True, "5"):
        with pytest.raises((IllegalActionError, ValueError, TypeError)):
            h.apply_action(bad)
    assert h.to_dict() == before
    with pytest.raises(IllegalActionError, match="is not legal now"):
        h.apply_action(3)                     # END_ATTACK during the mulligan


def test_clone_pickle_and_dicts_are_interchangeable(decks):
    rnd = random.Random(9)
    g = new_game(decks[2], decks[3], seed=9)
    h = new_native_game(decks[2], decks[3], seed=9)
    for _ in range(40):
        a = rnd.choice(g.legal_actions())
        g.apply_action(a)
        h.apply_action(a)
    c = h.clone()
    assert c == h and c is not h
    c.apply_action(c.legal_actions()[0])
    assert h.to_dict() == g.to_dict()             # the clone moved alone
    p = pickle.loads(pickle.dumps(h))
    assert isinstance(p, NativeGame) and p.to_dict() == g.to_dict()
    assert type(g).from_dict(h.to_dict(), g.db).to_dict() == g.to_dict()
    n = NativeGame.from_dict(g.to_dict(), g.db)
    lockstep(g, n, rnd)


def test_determinize_writes_through_to_the_core(decks):
    rnd = random.Random(2)
    g = new_game(decks[4], decks[5], seed=2)
    h = new_native_game(decks[4], decks[5], seed=2)
    for _ in range(25):
        a = rnd.choice(g.legal_actions())
        g.apply_action(a)
        h.apply_action(a)
    wg, wh = determinize(g, 0, seed=11), determinize(h, 0, seed=11)
    assert isinstance(wh, NativeGame)
    assert wh.to_dict() == wg.to_dict() and h.to_dict() == g.to_dict()
    lockstep(wg, wh, random.Random(5))


def test_native_batch_deals_and_plays_what_game_batch_does():
    from nivel_env.env.setup import SeedStream
    from nivel_env.env.vector import GameBatch
    from nivel_env.native.game import config_tuple
    from nivel_env.native.program import load_program
    n = 8
    py = GameBatch(n)
    py.reset(seed=5)
    specs = [(d.leader.index, [c.index for c in d.cards]) for d in py._decks.pool]
    nb = _core.Batch(load_program(py.card_db, _core), config_tuple(py.config), specs, False,
                     -1, n, 2)
    arrays = (np.zeros((n, 337), bool), np.zeros(n, np.int8), np.zeros(n, np.int8),
              np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.float32),
              np.zeros(n, np.int64), np.zeros((n, 2), np.int8), np.zeros(n, bool))
    mask, actor, learner, done, _, reward, episodes, _, _ = arrays
    nb.bind(*arrays)
    nb.reset([SeedStream(5 + i).state for i in range(n)],
             [SeedStream((5 + i) ^ 0x5EA7).state for i in range(n)])
    rng = np.random.default_rng(0)
    for _ in range(600):
        assert (mask == py.mask).all() and (actor == py.actor).all()
        assert (learner == py.learner_seat).all()
        acts = np.array([rng.choice(np.flatnonzero(py.mask[i])) for i in range(n)])
        py.step(acts)
        assert nb.step(acts, None) == ""
        assert (done == py.done).all() and (reward == py.reward).all()
        assert (episodes == py.episodes).all()
    assert episodes.sum() > 0


def test_native_game_batch_steps_only_the_selected_games():
    from nivel_env.env.vector import GameBatch
    b = GameBatch(4, backend="native")
    b.reset(seed=1)
    before = b.obs.copy(), b.mask.copy()
    b.step(np.full(4, -1), which=np.zeros(4, bool))         # none selected: nothing moves
    assert (b.obs == before[0]).all() and (b.mask == before[1]).all()
    acts = np.array([np.flatnonzero(b.mask[i])[0] for i in range(4)])
    acts[1:] = -1
    b.step(acts, which=np.array([True, False, False, False]))
    assert (b.mask[1:] == before[1][1:]).all()
