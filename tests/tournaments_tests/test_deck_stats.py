"""The statistics behind the deck commands, against small cases computed by hand: the
GSPRT's log-likelihood ratio and bounds, the Nash equilibrium of a deck matrix, card
analytics over a scripted set of games."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nivel_env.tournaments.sprt import (SPRT, elo_to_score, fixed_sample_units, llr, llr_normal,
                         score_to_elo, sprt_bounds)


def test_bounds_and_elo_scale():
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(-lo)
    assert elo_to_score(0) == 0.5 and elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(elo_to_score(123.0)) == pytest.approx(123.0)
    with pytest.raises(ValueError, match="alpha"):
        sprt_bounds(0, 0.05)


def test_llr_on_two_outcomes_is_the_binomial_ratio():
    # only 0 and 2 points seen: the constrained maximum-likelihood distribution of mean m
    # over {0, 2} puts m/2 on 2, so the LLR is the binomial one, computed by hand
    counts = [40, 0, 0, 0, 60]
    s0, s1 = 0.5, elo_to_score(10)
    want = 40 * math.log((1 - s1) / (1 - s0)) + 60 * math.log(s1 / s0)
    got = llr([0, 0.5, 1, 1.5, 2], counts, 2 * s0, 2 * s1, prior=1e-9)
    assert got == pytest.approx(want, rel=1e-4)


def test_llr_agrees_with_the_normal_approximation_and_signs():
    counts = [30, 180, 400, 230, 60]                    # a slightly better side, 900 pairs
    vals = [0, 0.5, 1, 1.5, 2]
    mu0, mu1 = 2 * elo_to_score(0), 2 * elo_to_score(10)
    exact, approx = llr(vals, counts, mu0, mu1), llr_normal(vals, counts, mu0, mu1)
    assert exact == pytest.approx(approx, rel=0.03)
    mean = sum(c * v for c, v in zip(counts, vals)) / sum(counts)
    assert exact > 0 and mean > (mu0 + mu1) / 2
    # the mirror image of the outcomes flips the evidence
    assert llr(vals, counts[::-1], mu0, mu1) < 0


def test_sprt_stops_where_the_evidence_is_and_counts_a_fixed_test():
    rng = np.random.default_rng(0)
    strong = SPRT(0, 10, 0.05, 0.05)
    vals = np.array([0, 0.5, 1, 1.5, 2])
    while strong.status is None:          # a 40-Elo-better side: accepts H1, quickly
        strong.add(rng.choice(vals, size=50, p=[0.05, 0.15, 0.4, 0.27, 0.13]))
    assert strong.status == "H1" and strong.llr >= strong.upper
    assert len(strong.units) < strong.fixed_units()
    even = SPRT(0, 10, 0.05, 0.05)
    while even.status is None:
        even.add(rng.choice(vals, size=50, p=[0.1, 0.2, 0.4, 0.2, 0.1]))
    assert even.status == "H0"
    assert fixed_sample_units(0.5, 1.0, 1.1, 0.05, 0.05) == math.ceil((3.2897 * 5) ** 2)


def test_sprt_rejects_bad_input():
    with pytest.raises(ValueError, match="elo1"):
        SPRT(10, 0)
    with pytest.raises(ValueError, match="kind"):
        SPRT(kind="games")
    s = SPRT(kind="difference")
    s.add([0.25, -1.0])
    with pytest.raises(ValueError, match="not a difference outcome"):
        s.add([0.3])
    assert len(s.units) == 2 and s.means()[0] == 0.0


# ------------------------------------------------------------------ the metagame

from nivel_env.tournaments.metagame import exploitability, metagame, nash  # noqa: E402


def test_nash_of_rock_paper_scissors_is_uniform():
    rps = [[0.5, 0.2, 0.8], [0.8, 0.5, 0.2], [0.2, 0.8, 0.5]]
    x = nash(rps)
    assert x == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert exploitability(rps, x) == pytest.approx(0.0, abs=1e-6)


def test_nash_of_a_dominant_deck_and_shared_weight_between_equals():
    m = [[0.5, 0.7, 0.6], [0.3, 0.5, 0.55], [0.4, 0.45, 0.5]]
    assert nash(m) == pytest.approx([1, 0, 0], abs=1e-6)
    # two decks equally good against everything (and even with each other): split evenly
    twins = [[0.5, 0.5, 0.7], [0.5, 0.5, 0.7], [0.3, 0.3, 0.5]]
    assert nash(twins) == pytest.approx([0.5, 0.5, 0], abs=1e-6)


def test_metagame_report_by_hand():
    # a beats b 0.6, b beats c 0.6, c beats a 0.9: by hand the mix x solves
    # 0.1 x_b - 0.4 x_c = 0, -0.1 x_a + 0.1 x_c = 0, 0.4 x_a - 0.1 x_b = 0 -> (1, 4, 1) / 6
    m = np.array([[0.5, 0.6, 0.1], [0.4, 0.5, 0.6], [0.9, 0.4, 0.5]])
    rep = metagame(m, ["a", "b", "c"])
    w = {r["deck"]: r["weight"] for r in rep["equilibrium"]}
    assert w == pytest.approx({"a": 1 / 6, "b": 4 / 6, "c": 1 / 6}, abs=1e-4)
    assert all(r["payoff"] == pytest.approx(0.5, abs=1e-4) for r in rep["equilibrium"])
    # uniform field: a scores 0.4, b 0.5, c 0.6 -> c is the best response, 0.1 above 0.5
    assert rep["best_response_to_uniform"] == "c"
    assert rep["exploitability_uniform"] == pytest.approx(0.1, abs=1e-4)
    with pytest.raises(ValueError, match="square"):
        nash([[0.5, 0.4]])


# ------------------------------------------------------------------ card analytics

from nivel_env.tournaments.card_stats import card_table, write_card_report  # noqa: E402


def side(points, in_hand, opening=(), played=(), deck="mine"):
    return {"deck": deck, "points": points, "in_hand": list(in_hand),
            "opening": list(opening), "played": list(played)}


def test_card_table_by_hand(tmp_path):
    # four units of one game each for "mine" (and an opponent that must not leak in)
    units = [[side(1, ["x", "y"], ["x"], ["x"]), side(0, ["z"], deck="theirs")],
             [side(1, ["x"], [], ["x"])],
             [side(0, ["y"], ["y"])],
             [side(0.5, [])]]
    rows = {r["card"]: r for r in card_table(units, samples=200, decks={"mine"},
                                             names={"x": "Ex"}, min_games=1,
                                             deck_lists={"mine": ["x", "y", "w"]})}
    assert set(rows) == {"x", "y", "w"}
    x, y, w = rows["x"], rows["y"], rows["w"]
    # x: in hand in games 1, 2 (won both); never in hand in 3, 4 (0 and 0.5)
    assert (x["in_hand_games"], x["in_hand_win"]) == (2, 1.0)
    assert (x["not_in_hand_games"], x["not_in_hand_win"]) == (2, 0.25)
    assert x["iwd"] == 0.75 and (x["opening_games"], x["opening_win"]) == (1, 1.0)
    assert (x["played_games"], x["played_win"]) == (2, 1.0) and x["name"] == "Ex"
    # y: in hand in 1 (won) and 3 (lost) -> 0.5; not in 2 (won), 4 (draw) -> 0.75
    assert y["in_hand_win"] == 0.5 and y["not_in_hand_win"] == 0.75 and y["iwd"] == -0.25
    assert w["in_hand_games"] == 0 and w["in_hand_win"] is None and w["games"] == 4
    # best first, the interval around the estimate
    assert [r["card"] for r in card_table(units, samples=50, decks={"mine"},
                                          min_games=1)] == ["x", "y"]
    # below the minimum sample the rates and the IWD are still given, flagged as few (the
    # report greys them) and left out of the multiple-testing family
    thin = {r["card"]: r for r in card_table(units, samples=50, decks={"mine"}, min_games=3)}
    assert thin["x"]["iwd"] == 0.75 and thin["x"]["in_hand_games"] == 2
    assert thin["x"]["in_hand_win"] == 1.0 and thin["x"]["in_hand_few"]
    assert thin["x"]["iwd_few"] and thin["x"]["iwd_q"] is None
    assert x["iwd_low"] <= x["iwd"] <= x["iwd_high"]
    files = write_card_report(list(rows.values()), tmp_path)
    assert all(f.stat().st_size > 0 for f in files)
    assert files[0].read_text().splitlines()[0].startswith("deck,card,name,games")


def test_card_log_of_a_real_game():
    from agents import HeuristicAgent
    from nivel_env.tournaments.arena import play_game
    from nivel_env.cards import load_deck
    a, b = load_deck("ember-rush"), load_deck("tide-scholars")
    cards: list = []
    play_game(a, b, 11, (HeuristicAgent(seed=1), HeuristicAgent(seed=2)), cards=cards)
    assert len(cards) == 2
    for deck, s in zip((a, b), cards):
        ids = set(deck.card_ids())
        assert len(s["opening"]) == 5 and set(s["opening"]) <= set(s["in_hand"]) <= ids
        assert s["played"] and set(s["played"]) <= set(s["in_hand"])   # played from hand
