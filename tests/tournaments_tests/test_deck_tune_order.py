"""``evaluate.py tune``'s proposal order and resumed tests: swaps ordered by a scripted
causal ranking, a test resumed on fresh seeds holding the same state as one never
stopped, the undecided test of highest LLR resumed, and random proposals as before."""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import pytest

from conftest import ROOT
from nivel_env.cards import deck_problems, load_deck
from nivel_env.tournaments.deck_tune import Ranking, propose, propose_ranked

sys.path.insert(0, str(ROOT))
import evaluate  # noqa: E402

SMALL = ["--workers", "1", "--bootstrap", "20", "--no-progress"]
WEAK, BEST, SECOND = "FI-22", "FI-16", "FI-09"     # Flame Burst out; Molten Brute, Wyrm in


def scripted_ranking(deck) -> Ranking:
    """WEAK costs the deck 0.1 against the baseline, every other card is worth 0.05; of the
    pool, BEST gains 0.08 in WEAK's place, SECOND 0.02, the rest lose 0.05."""
    values = {c: 0.05 for c in deck.card_ids()}
    values[WEAK] = -0.1
    gains = {c.id: -0.05 for c in deck.db.cards if c.type != "leader"}
    gains[BEST], gains[SECOND] = 0.08, 0.02
    return Ranking(values, gains, WEAK, games=123, seeds=4)


def test_swaps_come_best_estimate_first():
    deck = load_deck("ember-rush")
    r = scripted_ranking(deck)
    props = propose_ranked(deck, r, 5)
    assert [(g, c) for g, c, _, _ in props[:2]] == [(WEAK, BEST), (WEAK, SECOND)]
    assert props[0][3] == pytest.approx(0.08) and props[1][3] == pytest.approx(0.02)
    est = [e for *_, e in props]
    assert est == sorted(est, reverse=True) and len(props) == 5
    for gone, come, cand, e in props:
        assert not deck_problems(cand) and e == pytest.approx(r.estimate(gone, come))
        ids = deck.card_ids()
        ids[ids.index(gone)] = come                  # the same place in the card list
        assert cand.card_ids() == ids
    # a rejected pair is not proposed again; the next best moves up
    again = propose_ranked(deck, r, 2, skip={(WEAK, BEST)})
    assert [(g, c) for g, c, _, _ in again] == [(WEAK, SECOND), props[2][:2]]
    # after -WEAK +BEST the new card is valued by additivity
    r.after_swap(WEAK, BEST)
    assert r.values[BEST] == pytest.approx(-0.1 + 0.08)
    with pytest.raises(ValueError, match="no value for"):
        propose_ranked(deck, Ranking({}, r.gains, WEAK), 1)


def _sprt_args(**kw):
    base = dict(elo0=0.0, elo1=10.0, alpha=0.001, beta=0.001, batch=2, bootstrap=20,
                pilot="heuristic", seed=3, deal="mirror", save_replays=None,
                no_progress=True, max_games=8, workers=1)
    return argparse.Namespace(**{**base, **kw})


def test_a_resumed_test_holds_the_state_of_one_never_stopped():
    from nivel_env.tournaments.deck_commands import sprt_test
    from nivel_env.tournaments.runner import Runner
    from nivel_env.tournaments.sprt import DIFFERENCE_VALUES, SprtRun, llr
    args, runner = _sprt_args(), Runner(1)
    decks = ("ember-rush", "tide-scholars", ["stone-bastion"])
    whole = SprtRun.start(args, 0)
    r_whole = sprt_test(args, runner, *decks, seeds_from=0, max_games=16, say=lambda x: None,
                        state=whole)
    part = SprtRun.start(args, 0)
    r1 = sprt_test(args, runner, *decks, seeds_from=0, max_games=8, say=lambda x: None,
                   state=part)
    assert r1["status"] is None and r1["games"] == 8 and r1["seeds"] == [0, 2]
    with pytest.raises(ValueError, match="fresh seeds"):
        sprt_test(args, runner, *decks, seeds_from=1, max_games=16, state=part)
    r2 = sprt_test(args, runner, *decks, seeds_from=2, max_games=16, say=lambda x: None,
                   state=part)
    assert r2["games"] == r_whole["games"] == 16 and r2["seeds"] == [2, 4]
    assert part.seed_ranges == whole.seed_ranges == [[0, 4]]
    assert part.sprt.units == whole.sprt.units and part.history == whole.history
    assert r2["history"] == r_whole["history"]
    # the LLR after resuming is the GSPRT LLR over every unit, computed from the points
    units = [(a - b) / 2 for a, b in zip(part.pts_a, part.pts_b)]
    counts = [sum(np.isclose(u, v) for u in units) for v in DIFFERENCE_VALUES]
    mu0, mu1 = part.sprt.means()
    assert len(units) == 4 and part.llr == pytest.approx(llr(DIFFERENCE_VALUES, counts,
                                                             mu0, mu1))
    assert r2["history"][-1]["llr"] == pytest.approx(part.llr, abs=1e-3)


def test_value_order_tries_the_best_estimate_first(tmp_path):
    from nivel_env.tournaments.deck_tune import tune
    from nivel_env.tournaments.runner import Runner
    deck = load_deck("ember-rush")
    seen = []

    def ranker(path, pool_ids, field, seeds_from, out):
        seen.append((seeds_from, field))
        return scripted_ranking(load_deck(path))
    args = _sprt_args(deck="ember-rush", field=["stone-bastion"], pool=None, steps=1,
                      candidates=2, elo0=-400.0, elo1=-300.0, alpha=0.3, beta=0.3,
                      max_games=200, holdout=0, out=str(tmp_path), propose="value",
                      resume=0, pilot_why="given", argv=["tune"])
    rep = tune(args, Runner(1), ranker=ranker)
    assert seen == [(0, ["stone-bastion"])]
    assert (rep["tests"][0]["out"], rep["tests"][0]["in"]) == (WEAK, BEST)
    assert rep["path"][0]["estimate"] == pytest.approx(0.08)
    g = rep["games"]
    assert g["ranking"] == 123 and g["search"] == 123 + g["tests"]
    assert g["first_accepted"] == 123 + rep["tests"][0]["games"]
    assert deck.card_ids().count(BEST) == 0
    tuned = load_deck(str(tmp_path / "tuned.deck"))
    assert tuned.card_ids().count(BEST) == 1


def test_random_proposals_as_before_and_the_best_undecided_resumed(tmp_path):
    deck = load_deck("ember-rush")
    pool = [c.id for c in deck.db.cards if c.type != "leader"]
    expect = [(g, c) for g, c, _ in propose(deck, pool, np.random.default_rng(5), 3)]
    # hypotheses no 8-game test can decide: every try ends undecided, one is resumed
    evaluate.main(["tune", "ember-rush", "--field", "stone-bastion", "--pilot", "heuristic",
                   "--propose", "random", "--steps", "1", "--candidates", "3", "--batch",
                   "2", "--max-games", "8", "--alpha", "0.001", "--beta", "0.001",
                   "--resume", "1", "--holdout", "0", "--seed", "5", "--out", str(tmp_path),
                   *SMALL])
    r = json.loads((tmp_path / "tune.json").read_text())
    assert r["propose"] == "random" and r["ranking"] is None and r["path"] == []
    assert [(t["out"], t["in"]) for t in r["tests"]] == expect
    resumed = [t for t in r["tests"] if t["resumed"]]
    assert len(resumed) == 1 and resumed[0]["games"] == 16
    first_llr = lambda t: t["looks"][0][1]                       # noqa: E731
    assert first_llr(resumed[0]) == max(first_llr(t) for t in r["tests"])
    assert all(t["games"] == 8 for t in r["tests"] if not t["resumed"])
    assert r["games"]["tests"] == 3 * 8 + 8 and r["games"]["ranking"] == 0


def test_value_proposals_end_to_end_on_a_tiny_budget(tmp_path, capsys):
    # the default: the causal ranking (card_value, then the pool screen) on 1 seed, then
    # one test under hypotheses far below zero, so that the first swap is accepted
    evaluate.main(["tune", "ember-rush", "--field", "stone-bastion", "--pilot", "heuristic",
                   "--steps", "1", "--candidates", "1", "--batch", "2", "--max-games", "40",
                   "--elo0", "-400", "--elo1", "-300", "--alpha", "0.3", "--beta", "0.3",
                   "--rank-games", "1", "--holdout", "0", "--out", str(tmp_path), *SMALL])
    r = json.loads((tmp_path / "tune.json").read_text())
    rk = r["ranking"]
    assert r["propose"] == "value" and rk["seeds"] == 1
    values = {c["card"]: c["value"] for c in rk["cards"]}
    deck = load_deck("ember-rush")
    assert set(values) == set(deck.card_ids())
    assert rk["weakest"] == min(values, key=lambda c: (values[c], c))
    gains = {p["card"]: p["gain"] for p in rk["pool"]}
    t = r["tests"][0]
    assert t["estimate"] == pytest.approx(gains[t["in"]] + values[rk["weakest"]]
                                          - values[t["out"]], abs=2e-4)
    assert rk["games"] == rk["card_games"] + rk["pool_games"] == r["games"]["ranking"]
    # the pool screen: the deck and each incoming card in the weakest card's place, on
    # each seed against the one field deck, two games a seed
    assert rk["pool_games"] == (len(gains) + 1) * 2
    assert r["games"]["search"] == r["games"]["ranking"] + t["games"]
    assert "until the first accepted swap" in capsys.readouterr().out
