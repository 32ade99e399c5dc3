"""The observation layout module: blocks by name, versions as prefixes, and the documented
way to grow the observation (docs/observation.md, "Growing the observation") -- a new
feature or vocabulary term appends a block, so the shipped policies keep reading their
prefix byte for byte."""
import dataclasses
import random

import numpy as np
import pytest
from conftest import ROOT

from nivel_env.cards import load_card_db, load_deck
from nivel_env.engine import new_game
from nivel_env.engine.scenario import build
from nivel_env.cards import model as m, vocab
from nivel_env.env import card_features as cf, layout as L
from nivel_env.env.encoder import (BLOCKS, LAYOUT_VERSION, OBS_SIZE, OFFSETS, READABLE_LAYOUTS,
                                   Encoder, observation_box)

POLICIES = ROOT / "agents" / "policies"
NV2 = "ad1491a31dc9"          # the layout nv2-ppo.pt was made for (docs/observation.md)
#: a sub-keyword with a value, as the vocabulary would gain one: a section-10 keyword with
#: a printed value, a lane's flag and a lane's value
OVERRUN = cf.Terms(keywords=("Overrun",), keyword_values=("Overrun",), gate_values=(),
                   subkeywords=("Overrun",), value_keywords=("Overrun",))


def positions(n_games=3, every=7, seed=3):
    """Positions of random games of two bundled decks with Credit units (wind)."""
    rng = random.Random(seed)
    for s in range(n_games):
        g = new_game(load_deck("gale-runners"), load_deck("ember-rush"), seed=s)
        k = 0
        while not g.is_terminal():
            if k % every == 0:
                yield g
            legal = g.legal_actions()
            g.apply_action(legal[rng.randrange(len(legal))])
            k += 1


def test_the_layout_is_the_encoders_and_the_spaces():
    lay = L.LAYOUT
    assert [(b.name, b.spec_shape(), b.meaning) for b in lay.blocks] == list(BLOCKS)
    assert lay.offsets == OFFSETS and lay.size == OBS_SIZE and lay.hash == LAYOUT_VERSION
    assert lay.readable() == READABLE_LAYOUTS
    assert [v for v, _ in sorted(lay.versions.items())] == [1, 2, 3]
    assert lay.versions[1] == ("8ec8ba45303d", 8439) and lay.versions[2] == (NV2, 9519)
    stops = [b.offset for b in lay.blocks[1:]] + [lay.size]
    assert all(b.stop == s for b, s in zip(lay.blocks, stops))       # blocks tile the vector
    box = observation_box()
    assert box == L.LAYOUT.box() and box.shape == (OBS_SIZE,)
    assert box.low.min() == L.OBS_LOW and box.high.max() == L.OBS_HIGH
    assert L.LAYOUT.box(9519).shape == (9519,)


def test_blocks_by_name_are_views():
    obs = np.zeros(OBS_SIZE, np.float32)
    hand = L.LAYOUT.view(obs, "hand_slots")
    assert hand.shape == (L.HAND_ROWS, len(L.HAND_FEATURES)) and hand.base is obs
    hand[2, 1] = 1
    assert obs[OFFSETS["hand_slots"] + 2 * len(L.HAND_FEATURES) + 1] == 1
    batch = np.zeros((5, OBS_SIZE), np.float32)
    assert L.LAYOUT.view(batch, "cards").shape == (5, L.CARD_ROWS, L.LAYOUT.block("cards").shape[1])
    assert L.LAYOUT.slice("seat") == slice(OFFSETS["seat"], OFFSETS["seat"] + 1)
    with pytest.raises(KeyError, match="no block 'hand'.*hand_slots"):
        L.LAYOUT.block("hand")
    assert L.LAYOUT.in_prefix("count", OBS_SIZE) and not L.LAYOUT.in_prefix("count", 9519)
    assert L.LAYOUT.version_of_size(9519) == 2


def test_an_appended_feature_block_is_a_new_version_that_keeps_every_old_prefix():
    grown = L.build_layout(extra=(L.Block("test_feature", (3,), "a feature added later", 4),))
    assert grown.offsets == {**OFFSETS, "test_feature": OBS_SIZE}
    assert grown.size == OBS_SIZE + 3 and grown.version == 4
    assert grown.hash not in READABLE_LAYOUTS
    assert {h: n for h, n in grown.readable().items() if h != grown.hash} == READABLE_LAYOUTS
    with pytest.raises(ValueError, match="version above 3"):
        L.build_layout(extra=(L.Block("late", (1,), "reuses version 3", 3),))


def test_the_shipped_terms_keep_their_columns():
    """Terms come from the vocabulary, the shipped ones first in their shipped order (a
    term the vocabulary lists among them gets a column after them); dropping one fails."""
    assert cf.TERMS == cf.SHIPPED and cf.KEYWORDS == vocab.KEYWORD_NAMES
    early = cf.Terms(**{f.name: ("Overrun",) + getattr(cf.SHIPPED, f.name)
                        for f in dataclasses.fields(cf.Terms)}).ordered(cf.SHIPPED)
    assert early.keywords == cf.SHIPPED.keywords + ("Overrun",)
    assert early.value_keywords == L.SHIPPED_VALUE_KEYWORDS + ("Overrun",)
    gone = dataclasses.replace(cf.SHIPPED, subkeywords=cf.SHIPPED.subkeywords[1:])
    with pytest.raises(RuntimeError, match=r"subkeywords columns for \['Pierce'\]"):
        L.build_layout(gone)
    assert not any(b.since > 3 for b in L.LAYOUT.blocks) and cf.added_term_columns() == ()


def test_a_card_rows_added_term_has_its_column_after_the_shipped_row(monkeypatch):
    """The card row of a card with a term added to the vocabulary: the shipped columns are
    the same bytes, the term's keyword and value columns follow them."""
    term = vocab.Term(vocab.SUBKEYWORD, "overrun", "Overrun", value="n")
    monkeypatch.setitem(vocab.SUBKEYWORD_BY_KEY, "overrun", term)
    grown = cf.Terms.of_vocabulary(cf.SHIPPED, more=OVERRUN)
    assert cf.added_term_columns(grown) == (
        ("added_keywords", 1, "as keywords, for Overrun"),
        ("added_keyword_values", 1, "as keyword_values, for Overrun"))
    card = load_card_db().get("EA-29")
    plain = cf._face_row(card, card.abilities, card.subkeywords, False)
    kw = card.subkeywords + (m.Keyword("Overrun", "overrun", n=2),)
    row = cf._face_row(dataclasses.replace(card, subkeywords=kw), card.abilities, kw, False,
                       grown)
    assert row.shape == (cf.WIDTH + cf.ADDED_WIDTH + 2,)
    assert row[:plain.size].tobytes() == plain.tobytes()
    assert row[plain.size] == 1 and np.isclose(row[plain.size + 1], 2 / 5)


def test_a_term_added_to_the_vocabulary_appends_columns_and_the_shipped_prefix_stays():
    """A fifth value keyword and a twelfth sub-keyword (no bundled card has them yet): the
    observation gains field_added_values and field_added_flags at its end, every earlier
    value is the same bytes, and nv2-ppo.pt loads and plays reading its prefix."""
    from agents.policy import PolicyAgent
    grown = L.build_layout(cf.Terms.of_vocabulary(cf.SHIPPED, more=OVERRUN))
    assert [b.name for b in grown.blocks if b.since == 4] == [
        "field_added_values", "field_added_flags", "cards_added_terms", "zones_added_terms",
        "known_added_terms"]
    assert grown.block("cards_added_terms").shape == (L.CARD_ROWS, 2)
    assert grown.offset("field_added_values") == OBS_SIZE and grown.version == 4
    assert grown.versions[3] == (LAYOUT_VERSION, OBS_SIZE) and grown.versions[2] == (NV2, 9519)
    db = load_card_db()
    old, new = Encoder(db), Encoder(db, layout=grown)
    agent = PolicyAgent(POLICIES / "nv2-ppo.pt")
    assert agent.meta["layout_version"] in grown.readable()
    n = 0
    for g in positions(n_games=2, every=12):
        for p in (0, 1):
            legal = g.legal_actions() if g.current_player == p else None
            a, b = old.encode(g, p, legal).copy(), new.encode(g, p, legal)
            assert b.shape == (grown.size,)
            assert a.tobytes() == b[:OBS_SIZE].tobytes()
            assert not b[OBS_SIZE:].any()
            if legal:
                mask = np.zeros(337, np.int8)
                mask[legal] = 1
                assert agent.act(b, mask) == agent.act(a, mask)
                n += 1
    assert n > 12


def test_the_added_columns_hold_the_new_terms_values():
    """Replay Credit being added after the layout shipped (a layout whose shipped terms end
    before it): its value and flag land in the appended blocks, and they are what the real
    layout writes in Credit's shipped columns."""
    late = L.build_layout(shipped=dataclasses.replace(
        cf.SHIPPED, subkeywords=L.SHIPPED_SUBKEYWORDS[:-1],
        value_keywords=L.SHIPPED_VALUE_KEYWORDS[:-1]))
    assert late.added_subkeywords() == ("Credit",) and late.added_value_keywords() == ("Credit",)
    g = build({"players": [{"leader": "LD-06", "level": 6, "deck": ["EA-29"] * 10,
                            "units": ["WI-05", None, "WA-23"]},
                           {"leader": "LD-08", "level": 6, "deck": ["EA-29"] * 10,
                            "units": [None, "WI-02"]}],
               "config": {"choose_effect_order": False}, "check_field_cost": False},
              load_card_db())
    real, replay = Encoder(g.db), Encoder(g.db, layout=late)
    seen = 0
    for p in (0, 1):
        r, x = real.encode(g, p).copy(), replay.encode(g, p)
        L_ = L.LAYOUT
        fv, ff = L_.view(r, "field_values"), L_.view(r, "field_flags")
        credit_v = [n for n, _ in L_.field_values()].index("credit_value")
        credit_f = [n for n, _ in L_.field_flags()].index("has_credit")
        assert np.array_equal(late.view(x, "field_added_values")[:, 0], fv[:, credit_v])
        assert np.array_equal(late.view(x, "field_added_flags")[:, 0], ff[:, credit_f])
        assert np.array_equal(late.view(x, "field_values"), np.delete(fv, credit_v, axis=1))
        assert np.array_equal(late.view(x, "field_flags"), np.delete(ff, credit_f, axis=1))
        seen += int((fv[:, credit_v] > 0).sum())
        for name in ("cards", "zones", "hand_slots", "candidate_slots", "me_values"):
            assert np.array_equal(late.view(x, name), L_.view(r, name)), name
    assert seen == 6                     # three Credit units, seen from both seats
    assert np.isclose(fv[:, credit_v].max(), 2 / 5)          # Cloud Dancer: Credit 2


def test_an_encoder_refuses_a_block_it_cannot_fill():
    grown = L.build_layout(extra=(L.Block("test_feature", (3,), "nobody writes it", 4),))
    with pytest.raises(ValueError, match="cannot fill.*test_feature"):
        Encoder(load_card_db(), layout=grown)
