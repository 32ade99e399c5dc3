"""evaluate.py cards (nivel_env.tournaments.card_value): the estimator and the stopping
rule on hand-computed cases, the variant decks (same position, read back the same), the
causal value on a pool where one card is known to be far stronger, and the command end
to end on a tiny budget."""
from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

from nivel_env.cards import db as card_db
from nivel_env.cards import load_deck
from nivel_env.cards.deck import parse_deck
from nivel_env.tournaments import card_value as cv
from nivel_env.tournaments import games
from nivel_env.tournaments.runner import Runner
from conftest import ROOT, TEST_DATA

sys.path.insert(0, str(ROOT))
import evaluate  # noqa: E402

#: in a folder of their own: the differential check plays every tests/data/*.deck on the
#: engine tests' pool, which lacks these cards
POOL = TEST_DATA / "card-value" / "pool.yaml"
#: one Ash Champion among 39 Ash Recruits, and a field deck of Recruits alone (both break
#: the copy limit, so they are ``*.unchecked.deck`` files: the engine plays them anyway)
CHAMPION = str(TEST_DATA / "card-value" / "champions.unchecked.deck")
RECRUITS = str(TEST_DATA / "card-value" / "recruits.unchecked.deck")


@pytest.fixture
def value_pool(monkeypatch):
    """The bundled pool plus tests/data/card-value/pool.yaml as every loader's default
    (games run in this process: Runner(1)), and a clean deck cache."""
    monkeypatch.setattr(card_db, "_DEFAULT", card_db.build_db(
        card_db.bundled_card_files() + [POOL]))
    monkeypatch.setattr(games, "_CACHE", {})
    return card_db._DEFAULT


# ----------------------------------------------------------------- hand-computed

def test_seed_differences_average_the_field_per_seed():
    orig = {(1, 0): 2.0, (2, 0): 1.0, (1, 1): 0.0, (2, 1): 1.0}
    var = {(1, 0): 1.0, (2, 0): 1.0, (1, 1): 0.0, (2, 1): 2.0}
    # seed 0: ((2-1)/2 + 0) / 2 = 0.25; seed 1: (0 + (1-2)/2) / 2 = -0.25
    assert cv.seed_differences(orig, var, [0, 1], [1, 2]).tolist() == [0.25, -0.25]


def test_t_interval_by_hand():
    d = [0.0, 0.5, 0.5, 1.0]                 # mean 0.5, sd sqrt(1/6)
    mean, lo, hi = cv.t_interval(d, 0.05)
    half = 3.182446305284263 * math.sqrt(1 / 6) / 2          # t(0.975, 3)
    assert mean == 0.5 and lo == pytest.approx(0.5 - half) and hi == pytest.approx(1.0)
    assert cv.t_interval([0.2], 0.05) == (0.2, -1.0, 1.0)      # one value: no interval
    assert cv.t_interval([0.0] * 9, 0.05) == (0.0, 0.0, 0.0)


def test_decision_looks_are_planned_powers_of_two():
    assert cv.decision_looks(1) == []
    assert cv.decision_looks(20) == [2, 4, 8, 16]


def test_stop_on_precision_only_when_narrow_and_guarded():
    rng = np.random.default_rng(0)
    d = rng.choice([-0.5, 0.0, 0.5], size=400, p=[0.2, 0.6, 0.2])
    half = (lambda i: (i[2] - i[1]) / 2)(cv.t_interval(d, cv.ALPHA_FIXED))
    status, iv = cv.stop_status(d, 3, 100, precision=half + 1e-9, early=False)
    assert status == "precision" and iv == cv.t_interval(d, cv.ALPHA_FIXED)
    assert cv.stop_status(d, 3, 100, precision=half - 1e-6, early=False)[0] is None
    # too few batches, or too few seeds that differed: go on, however narrow
    assert cv.stop_status(d, 1, 100, precision=1.0)[0] is None
    sparse = np.zeros(400)
    sparse[:cv.MIN_NONZERO - 1] = 0.5
    assert cv.stop_status(sparse, 5, 100, precision=1.0)[0] is None
    # the last planned batch stops whatever the guards say
    assert cv.stop_status(np.zeros(10), 4, 4, precision=0.01)[0] == "max"


def test_early_decision_uses_the_corrected_interval_at_planned_looks():
    d = np.full(64, 0.3)
    d[::2] = 0.1                  # mean 0.2, clearly positive
    looks = cv.decision_looks(50)          # 2, 4, 8, 16, 32: five looks
    status, iv = cv.stop_status(d, 4, 50, precision=0.001, margin=0.03)
    assert status == "decided"
    assert iv == cv.t_interval(d, cv.ALPHA_DECIDE / len(looks))
    assert iv[1] > 0.03
    # not a planned look: no early decision; and early=False never decides
    assert cv.stop_status(d, 3, 50, precision=0.001, margin=0.03)[0] is None
    assert cv.stop_status(d, 4, 50, precision=0.001, margin=0.03, early=False)[0] is None
    # inside the margin: not decided
    assert cv.stop_status(d, 4, 50, precision=0.001, margin=0.19)[0] is None


def test_the_levels_add_up_to_95_percent():
    assert cv.LEVEL == pytest.approx(0.95)


def test_paired_se_ratio():
    a = [1.0, 0.0, 1.0, 0.0]
    assert cv.paired_se_ratio(a, a) == 0.0
    assert cv.paired_se_ratio(a, [0.0, 1.0, 0.0, 1.0]) == pytest.approx(math.sqrt(2))


def test_weakest_reexpresses_values_paired_on_the_common_seeds():
    state = {"A": {"d": np.array([0.2, 0.1, 0.3])}, "W": {"d": np.array([-0.1, 0.0])},
             "B": {"d": np.zeros(0)}}
    rows = [{"card": "A", "name": "a", "value": 0.2, "status": "precision"},
            {"card": "W", "name": "w", "value": -0.05, "status": "precision"},
            {"card": "B", "name": "b", "value": 0.0, "status": "baseline"}]
    assert cv.relative_to_weakest(rows, state, ["A", "W", "B"]) == {"card": "W",
                                                                     "name": "w"}
    a, w, b = rows
    # A: (0.2 - -0.1, 0.1 - 0.0) = (0.3, 0.1) on the two seeds W played
    assert (a["value"], a["paired_seeds"], a["value_vs_baseline"]) == (0.2, 2, 0.2)
    assert (a["low"], a["high"]) == tuple(round(x, 4) for x in
                                          cv.t_interval([0.3, 0.1], 1 - cv.LEVEL)[1:])
    assert (w["value"], w["low"], w["high"]) == (0.0, 0.0, 0.0)
    assert b["value"] == 0.05                      # the baseline: 0 - W's differences


# ----------------------------------------------------------------- variant decks

def test_variant_replaces_the_last_copy_in_place_and_reads_back(tmp_path):
    deck = load_deck("ember-rush")
    base = cv.default_baseline(deck)
    assert base.type == "unit" and base.id not in deck.card_ids() and not base.has_trigger
    ids = deck.card_ids()
    path, problems = cv.write_variant(deck, "FI-02", base, tmp_path)
    assert problems == [] and path.endswith("--FI-02-as-" + base.id + ".deck")
    back = load_deck(path).card_ids()
    k = max(i for i, c in enumerate(ids) if c == "FI-02")
    assert back == ids[:k] + [base.id] + ids[k + 1:]


def test_an_illegal_variant_is_written_unchecked_and_still_loads(tmp_path, monkeypatch):
    monkeypatch.setattr(games, "_CACHE", {})
    deck = load_deck("ember-rush")
    water = deck.db.get("WA-01") if "WA-01" in deck.db else None
    water = water or next(c for c in deck.db.cards if c.type == "unit"
                          and c.attribute != "fire")
    path, problems = cv.write_variant(deck, "FI-02", water, tmp_path)
    assert any("oath" in p for p in problems)
    assert path.endswith(games.UNCHECKED_SUFFIX)
    assert games.cached_deck(path).card_ids().count(water.id) == 1


def test_ordered_text_keeps_interleaved_copies_in_order():
    deck = load_deck("ember-rush")
    ids = deck.card_ids()
    ids[0], ids[-1] = ids[-1], ids[0]          # a card's copies no longer adjacent
    from dataclasses import replace
    mixed = replace(deck, cards=tuple(deck.db.get(i) for i in ids))
    assert parse_deck(cv.ordered_deck_text(mixed), deck.db).card_ids() == ids


# ----------------------------------------------------------------- real games

def test_an_identical_card_is_worth_exactly_zero(value_pool, tmp_path):
    """CV-03 is CV-01 under another id: the variant plays every game move for move as the
    deck (the same position, the same shuffle), so the value is 0 with zero width."""
    r = cv.card_values(CHAMPION, [RECRUITS], "heuristic", runner=Runner(1),
                       baseline="CV-03", cards=["CV-01"], max_seeds=8, batch=4,
                       out=tmp_path, say=lambda x: None)
    (row,) = r["rows"]
    assert (row["value"], row["low"], row["high"]) == (0.0, 0.0, 0.0)
    assert row["identical"] == 1.0 and row["status"] == "max" and row["games"] == 16


@pytest.mark.slow
def test_a_strictly_stronger_card_ranks_above_with_a_positive_interval(value_pool,
                                                                       tmp_path):
    """CV-02 is CV-01 with far more power and hit: valued against CV-01's twin, it must
    come out positive, its interval above 0, ranked above CV-01 (exactly 0)."""
    r = cv.card_values(CHAMPION, [RECRUITS], "heuristic", runner=Runner(1),
                       baseline="CV-03", cards=["CV-01", "CV-02"], precision=0.02,
                       early=False, max_seeds=256, batch=32, out=tmp_path,
                       say=print)
    rows = {x["card"]: x for x in r["rows"]}
    assert r["rows"][0]["card"] == "CV-02"
    assert rows["CV-02"]["value"] > 0 and rows["CV-02"]["low"] > 0
    assert rows["CV-01"]["value"] == 0.0 and rows["CV-01"]["high"] == 0.0
    assert "copies" in rows["CV-02"]["breaks"]           # the variants are unchecked too


def test_cards_command_end_to_end(tmp_path, capsys):
    rc = evaluate.main(["cards", "ember-rush", "--field", "stone-bastion", "--pilot",
                        "heuristic", "--games", "2", "--batch", "1", "--precision", "0.05",
                        "--workers", "1", "--bootstrap", "50", "--no-progress",
                        "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "baseline" in out and "IWD" in out
    r = json.loads((tmp_path / "cards_value.json").read_text())
    deck = load_deck("ember-rush")
    assert {x["card"] for x in r["rows"]} == set(deck.card_ids())
    assert r["games"] == 2 * 2 * (1 + len(set(deck.card_ids())))
    for x in r["rows"]:
        assert x["low"] <= x["value"] <= x["high"] and x["games"] == 4
    page = (tmp_path / "cards_value.html").read_text()
    assert "data:image/png;base64," in page and "IWD" in page
    for f in ("cards_value.csv", "cards_value.png"):
        assert (tmp_path / f).stat().st_size > 0
    assert len(list((tmp_path / "decks").glob("*.deck"))) == len(set(deck.card_ids()))
    # what `evaluate.py history` reads: when, and the deck's contents
    assert r["time"] and r["deck_contents"]["ember-rush"]["leader"] == deck.leader.id
    lines: list[str] = []
    from nivel_env.tournaments.deck_history import history
    assert history("ember-rush", tmp_path, say=lines.append) == 0
    assert any("cards" in line and "first version" in line for line in lines), lines


def test_cards_command_names_bad_input(tmp_path):
    with pytest.raises(SystemExit, match="no such card"):
        evaluate.main(["cards", "ember-rush", "--field", "stone-bastion", "--pilot",
                       "heuristic", "--baseline", "NOPE-1", "--games", "2", "--workers",
                       "1", "--no-progress", "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match="evaluate.py cards"):
        evaluate.main(["cards", "./no-such.deck", "--pilot", "heuristic", "--games", "2",
                       "--workers", "1", "--no-progress", "--out", str(tmp_path)])
