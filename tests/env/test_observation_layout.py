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
#: the shipped layout's versions: (hash, values read), never to change
SHIPPED_VERSIONS = {1: ("8ec8ba45303d", 8439), 2: (NV2, 9519), 3: ("b33956590be7", 11097)}
#: the version a change made now would add (the documented "next version")
NEXT = L.LAYOUT.version + 1


def sub_keyword(name: str, version: int = NEXT) -> cf.Terms:
    """A sub-keyword with a value, as the vocabulary would gain one at layout ``version``:
    a section-10 keyword with a printed value, a lane's flag and a lane's value."""
    return cf.Terms(keywords=(name,), keyword_values=(name,), gate_values=(),
                    subkeywords=(name,), value_keywords=(name,), added_in=((name, version),))


OVERRUN = sub_keyword("Overrun")


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
    assert sorted(lay.versions) == list(range(1, lay.version + 1))  # one after another
    assert {v: lay.versions[v] for v in SHIPPED_VERSIONS} == SHIPPED_VERSIONS
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
    grown = L.build_layout(extra=(L.Block("test_feature", (3,), "a feature added later",
                                          NEXT),))
    assert grown.offsets == {**OFFSETS, "test_feature": OBS_SIZE}
    assert grown.size == OBS_SIZE + 3 and grown.version == NEXT
    assert grown.hash not in READABLE_LAYOUTS
    assert {h: n for h, n in grown.readable().items() if h != grown.hash} == READABLE_LAYOUTS
    with pytest.raises(ValueError, match="version above 3"):
        L.build_layout(extra=(L.Block("late", (1,), "reuses version 3", 3),))
    with pytest.raises(ValueError, match=f"skip {NEXT}: a new version is the next one"):
        L.build_layout(extra=(L.Block("late", (1,), "a version left out", NEXT + 1),))


def test_features_and_terms_append_in_any_mix_in_version_order():
    """A feature at the next version, a term at the one after, another feature after that
    (walk 3 of issue 31): the versions follow one another, each version's blocks come after
    the earlier ones', and every earlier version keeps its hash and length."""
    f1 = L.Block("test_feature", (3,), "a feature", NEXT)
    f2 = L.Block("test_later", (2,), "a later feature", NEXT + 2)
    one = L.build_layout(extra=(f1,))
    two = L.build_layout(cf.Terms.of_vocabulary(cf.SHIPPED, more=sub_keyword("Overrun",
                                                                             NEXT + 1)),
                         extra=(f1,))
    three = L.build_layout(two.terms, extra=(f1, f2))
    assert sorted(three.versions) == list(range(1, NEXT + 3))
    since = [b.since for b in three.blocks]
    assert since == sorted(since)
    assert [b.name for b in three.blocks if b.since > L.LAYOUT.version] == [
        "test_feature", f"field_added_values_v{NEXT + 1}", f"field_added_flags_v{NEXT + 1}",
        f"cards_added_terms_v{NEXT + 1}", f"zones_added_terms_v{NEXT + 1}",
        f"known_added_terms_v{NEXT + 1}", "test_later"]
    for earlier in (one, two):
        for v, hv in earlier.versions.items():
            assert three.versions[v] == hv
    for lay in (one, two, three):
        assert all(lay.versions[v] == hv for v, hv in L.LAYOUT.versions.items())


def test_the_shipped_terms_keep_their_columns():
    """Terms come from the vocabulary, the shipped ones first in their shipped order (a
    term the vocabulary lists among them gets a column after them); dropping one fails."""
    for f in dataclasses.fields(cf.SHIPPED):                  # shipped terms first
        if f.name != "added_in":
            shipped = getattr(cf.SHIPPED, f.name)
            assert getattr(cf.TERMS, f.name)[:len(shipped)] == shipped, f.name
    assert cf.KEYWORDS == cf.SHIPPED.keywords
    assert set(cf.TERMS.keywords) == set(vocab.KEYWORD_NAMES)
    early = cf.Terms(**{f: ("Overrun",) + getattr(cf.SHIPPED, f) for f in cf._TERM_FIELDS},
                     added_in=(("Overrun", NEXT),)).ordered(cf.SHIPPED)
    assert early.keywords == cf.SHIPPED.keywords + ("Overrun",)
    assert early.value_keywords == L.SHIPPED_VALUE_KEYWORDS + ("Overrun",)
    gone = dataclasses.replace(cf.SHIPPED, subkeywords=cf.SHIPPED.subkeywords[1:])
    with pytest.raises(RuntimeError, match=r"subkeywords columns for \['Pierce'\]"):
        L.build_layout(gone)
    # every block after the shipped layout is a feature's or the terms' of its version
    terms = {L.term_block(k, v) for v, _ in L.LAYOUT.term_versions() for k in L.TERM_BLOCKS}
    features = {b.name for b in L.FEATURES}
    for b in L.LAYOUT.blocks:
        if b.since > 3:
            assert b.name in features or (b.name in terms and b.name.endswith(f"_v{b.since}"))
    assert all(v > 3 for v, _ in L.LAYOUT.term_versions())


def test_a_card_rows_added_term_has_its_column_after_the_shipped_row(monkeypatch):
    """The card row of a card with a term added to the vocabulary: the shipped columns are
    the same bytes, the term's keyword and value columns follow them; a term added at a
    later version has its columns after those, and the earlier row is unchanged."""
    for key, name in (("overrun", "Overrun"), ("surge", "Surge")):
        monkeypatch.setitem(vocab.SUBKEYWORD_BY_KEY, key,
                            vocab.Term(vocab.SUBKEYWORD, key, name, value="n"))
    grown = cf.Terms.of_vocabulary(cf.SHIPPED, more=OVERRUN)
    assert cf.term_column_groups(grown)[-1] == (NEXT, (
        ("added_keywords", 1, "as keywords, for Overrun"),
        ("added_keyword_values", 1, "as keyword_values, for Overrun")))
    card = load_card_db().get("EA-29")
    plain = cf._face_row(card, card.abilities, card.subkeywords, False)
    kw = card.subkeywords + (m.Keyword("Overrun", "overrun", n=2),
                             m.Keyword("Surge", "surge", n=3))
    surged = dataclasses.replace(card, subkeywords=kw)
    row = cf._face_row(surged, card.abilities, kw, False, grown)
    assert row.shape == (plain.size + 2,)
    assert row[:plain.size].tobytes() == plain.tobytes()
    assert row[plain.size] == 1 and np.isclose(row[plain.size + 1], 2 / 5)
    later = cf.Terms.of_vocabulary(cf.SHIPPED, more=cf.Terms(
        **{f: getattr(OVERRUN, f) + getattr(sub_keyword("Surge", NEXT + 1), f)
           for f in ("keywords", "keyword_values", "gate_values", "subkeywords",
                     "value_keywords", "added_in")}))
    assert [v for v, _ in cf.term_column_groups(later)][-2:] == [NEXT, NEXT + 1]
    row2 = cf._face_row(surged, card.abilities, kw, False, later)
    assert row2.shape == (row.size + 2,) and row2[:row.size].tobytes() == row.tobytes()
    assert row2[row.size] == 1 and np.isclose(row2[row.size + 1], 3 / 5)


def test_a_term_without_a_version_is_refused_with_what_to_write():
    nameless = dataclasses.replace(OVERRUN, added_in=())
    with pytest.raises(ValueError, match=rf"Overrun .*name no layout version: write "
                                         rf"obs_version={NEXT} in each one's Term"):
        L.build_layout(cf.Terms.of_vocabulary(cf.SHIPPED, more=nameless))
    with pytest.raises(ValueError, match=r"Overrun name layout version 3, but versions up to 3"):
        L.build_layout(cf.Terms.of_vocabulary(cf.SHIPPED, more=sub_keyword("Overrun", 3)))


def test_a_term_added_to_the_vocabulary_appends_columns_and_the_shipped_prefix_stays():
    """A fifth value keyword and a twelfth sub-keyword (no bundled card has them yet): the
    observation gains field_added_values and field_added_flags at its end, every earlier
    value is the same bytes, and nv2-ppo.pt loads and plays reading its prefix."""
    from agents.policy import PolicyAgent
    grown = L.build_layout(cf.Terms.of_vocabulary(cf.SHIPPED, more=OVERRUN))
    assert [b.name for b in grown.blocks if b.since == NEXT] == [
        f"{k}_v{NEXT}" for k in ("field_added_values", "field_added_flags", "cards_added_terms",
                                 "zones_added_terms", "known_added_terms")]
    assert grown.block(f"cards_added_terms_v{NEXT}").shape == (L.CARD_ROWS, 2)
    assert grown.offset(f"field_added_values_v{NEXT}") == OBS_SIZE and grown.version == NEXT
    assert all(grown.versions[v] == hv for v, hv in L.LAYOUT.versions.items())
    assert grown.versions[2] == (NV2, 9519)
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


def late(*names: str, first: int = NEXT) -> L.Layout:
    """Replay shipped sub-keywords ``names`` being added after the layout shipped, one
    version each from ``first`` on: a layout whose shipped lanes lack them."""
    shipped = dataclasses.replace(
        cf.SHIPPED, subkeywords=tuple(k for k in cf.SHIPPED.subkeywords if k not in names),
        value_keywords=tuple(k for k in cf.SHIPPED.value_keywords if k not in names))
    terms = dataclasses.replace(cf.TERMS, added_in=cf.TERMS.added_in + tuple(
        (n, first + i) for i, n in enumerate(names)))
    return L.build_layout(terms, shipped=shipped)


def without(lay: L.Layout, name: str) -> L.Layout:
    """``lay`` as it was before its vocabulary had sub-keyword ``name`` at all."""
    t = lay.terms
    return L.build_layout(dataclasses.replace(
        t, subkeywords=tuple(k for k in t.subkeywords if k != name),
        value_keywords=tuple(k for k in t.value_keywords if k != name)), shipped=lay.shipped)


def test_the_added_columns_hold_the_new_terms_values():
    """Replay Credit being added after the layout shipped (a layout whose shipped terms end
    before it): its value and flag land in the appended blocks, and they are what the real
    layout writes in Credit's shipped columns."""
    lay = late("Credit")
    assert "Credit" in lay.added_subkeywords() and "Credit" in lay.added_value_keywords()
    group = dict(lay.term_versions())[NEXT]
    assert group.subkeywords == group.value_keywords == ("Credit",)
    g = build({"players": [{"leader": "LD-06", "level": 6, "deck": ["EA-29"] * 10,
                            "units": ["WI-05", None, "WA-23"]},
                           {"leader": "LD-08", "level": 6, "deck": ["EA-29"] * 10,
                            "units": [None, "WI-02"]}],
               "config": {"choose_effect_order": False}, "check_field_cost": False},
              load_card_db())
    real, replay = Encoder(g.db), Encoder(g.db, layout=lay)
    seen = 0
    for p in (0, 1):
        r, x = real.encode(g, p).copy(), replay.encode(g, p)
        L_ = L.LAYOUT
        fv, ff = L_.view(r, "field_values"), L_.view(r, "field_flags")
        credit_v = [n for n, _ in L_.field_values()].index("credit_value")
        credit_f = [n for n, _ in L_.field_flags()].index("has_credit")
        assert np.array_equal(lay.view(x, f"field_added_values_v{NEXT}")[:, 0], fv[:, credit_v])
        assert np.array_equal(lay.view(x, f"field_added_flags_v{NEXT}")[:, 0], ff[:, credit_f])
        assert np.array_equal(lay.view(x, "field_values"), np.delete(fv, credit_v, axis=1))
        assert np.array_equal(lay.view(x, "field_flags"), np.delete(ff, credit_f, axis=1))
        seen += int((fv[:, credit_v] > 0).sum())
        for name in ("cards", "zones", "hand_slots", "candidate_slots", "me_values"):
            assert np.array_equal(lay.view(x, name), L_.view(r, name)), name
    assert seen == 6                     # three Credit units, seen from both seats
    assert np.isclose(fv[:, credit_v].max(), 2 / 5)          # Cloud Dancer: Credit 2


def test_a_second_term_goes_in_a_later_version_and_the_first_versions_prefix_stays():
    """Keyword A added at one version, keyword B at the next (issue 31 walk 2, twice):
    A's version keeps its hash and length, every observation's prefix up to it is the same
    bytes, and a reader of A's version (nv2-ppo here, of an earlier one too) still reads
    its prefix.  Replayed with Credit (A) and Infiltrate (B), which wind decks print."""
    from agents.policy import PolicyAgent
    both = late("Credit", "Infiltrate")                 # A at NEXT, B at NEXT + 1
    first = without(both, "Infiltrate")                 # before the vocabulary had B
    assert first.version == NEXT and both.version == NEXT + 1
    a_hash, a_size = first.versions[NEXT]
    assert both.versions[NEXT] == (a_hash, a_size)
    assert all(both.versions[v] == first.versions[v] for v in range(1, NEXT + 1))
    assert both.readable()[a_hash] == a_size and both.version_of_size(a_size) == NEXT
    assert both.block(f"field_added_flags_v{NEXT + 1}").offset >= a_size
    db = load_card_db()
    old, new = Encoder(db, layout=first), Encoder(db, layout=both)
    agent = PolicyAgent(POLICIES / "nv2-ppo.pt")
    n = flags = 0
    for g in positions(n_games=2, every=5):
        for p in (0, 1):
            legal = g.legal_actions() if g.current_player == p else None
            a, b = old.encode(g, p, legal).copy(), new.encode(g, p, legal)
            assert a.tobytes() == b[:a_size].tobytes()
            flags += int(both.view(b, f"field_added_flags_v{NEXT + 1}").any())
            if legal:
                mask = np.zeros(337, np.int8)
                mask[legal] = 1
                assert agent.act(b, mask) == agent.act(a, mask)
                n += 1
    assert n > 12 and flags > 0                           # B's columns were written


def test_every_block_but_the_card_rows_is_cleared_per_call(monkeypatch):
    """A per-call block appended after a version of added terms (so after cached blocks)
    comes back zero when the encoder does not write it, whatever it held before."""
    from nivel_env.env import encoder as E
    lay = L.build_layout(late("Credit").terms, shipped=late("Credit").shipped,
                         extra=(L.Block("test_feature", (3,), "written by nobody", NEXT + 1),))
    monkeypatch.setattr(E, "LAYOUT", lay)          # as if the feature were in FEATURES
    db = load_card_db()
    enc = Encoder(db, layout=lay)
    cached = [b.name for b in lay.blocks if b.cached]
    assert f"known_added_terms_v{NEXT}" not in cached           # Credit's card row shipped
    assert lay.offset("test_feature") > lay.offset("known_added")
    g = next(positions(n_games=1))
    for p in (0, 1):
        enc.bufs[p][:] = 7.0                                     # stale values everywhere
        obs = enc.encode(g, p)
        assert not lay.view(obs, "test_feature").any()
        assert not lay.view(obs, f"field_added_flags_v{NEXT}").any()
    stale = L.Block("test_cached", (3,), "a cached block no card rows fill", NEXT,
                    cached=True)
    lay2 = L.build_layout(extra=(stale,))
    monkeypatch.setattr(E, "LAYOUT", lay2)
    with pytest.raises(ValueError, match="cannot fill.*test_cached"):
        Encoder(db, layout=lay2)


def test_an_encoder_refuses_a_block_it_cannot_fill():
    grown = L.build_layout(extra=(L.Block("test_feature", (3,), "nobody writes it", NEXT),))
    with pytest.raises(ValueError, match="cannot fill.*test_feature"):
        Encoder(load_card_db(), layout=grown)
