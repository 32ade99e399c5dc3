"""Uncertainty where decisions are made: the metagame's bootstrap, the small-sample note
(``ratings.few_games``), the heatmap's shading by evidence (``tables.cell_colour``) and
``compare``'s page with its history -- on hand-computed cases."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nivel_env.tournaments.metagame import bootstrap_nash, metagame, nash
from nivel_env.tournaments.ratings import (FEW_GAMES, bootstrap_ratings, few_games,
                                           resampled_units)
from nivel_env.tournaments.tables import GREY, cell_colour


# ------------------------------------------------------------- the metagame's bootstrap

def test_a_dominant_deck_is_the_whole_equilibrium_in_every_resample():
    # deck 0 wins every deal against 1 and 2; 1 and 2 split theirs
    per_pair = {(0, 1): [2.0] * 20, (0, 2): [2.0] * 20, (1, 2): [2.0, 0.0, 1.0, 1.0] * 5}
    m = np.array([[np.nan, 1.0, 1.0], [0.0, np.nan, 0.5], [0.0, 0.5, np.nan]])
    rep = metagame(m, ["a", "b", "c"], per_pair, samples=100, seed=1)
    top = rep["equilibrium"][0]
    assert top["deck"] == "a"
    assert (top["weight"], top["weight_low"], top["weight_high"]) == (1.0, 1.0, 1.0)
    assert top["support_freq"] == 1.0
    for r in rep["equilibrium"][1:]:
        assert (r["weight_low"], r["weight_high"], r["support_freq"]) == (0.0, 0.0, 0.0)
    assert rep["bootstrap_samples"] == 100 and rep["support_sometimes"] == ["a"]


def rps_units(score: float, n: int = 40) -> list[float]:
    """Duplicate-pair points (0 or 2) whose mean score is ``score``."""
    wins = round(score * n)
    return [2.0] * wins + [0.0] * (n - wins)


def test_rock_paper_scissors_weights_scatter_around_a_third():
    # a beats b, b beats c, c beats a, each 0.8: the equilibrium is a third each; in a
    # resample with edges a, b, c above 0.5 it is (b, c, a) / (a + b + c) (A x = 0)
    per_pair = {(0, 1): rps_units(0.8), (1, 2): rps_units(0.8), (0, 2): rps_units(0.2)}
    m = np.array([[np.nan, 0.8, 0.2], [0.2, np.nan, 0.8], [0.8, 0.2, np.nan]])
    rep = metagame(m, ["rock", "paper", "scissors"], per_pair, samples=100, seed=0)
    for r in rep["equilibrium"]:
        assert r["weight"] == pytest.approx(1 / 3, abs=1e-4)
        assert r["weight_low"] < 1 / 3 < r["weight_high"]
        assert 0.15 < r["weight_low"] and r["weight_high"] < 0.55
        assert r["support_freq"] == 1.0            # no resample turns an edge around
    w = bootstrap_nash(per_pair, 3, samples=5, seed=0)
    for row, sample in zip(w, resampled_units(per_pair, 5, 0)):
        edge = {(i, j): pts.mean() / 2 - 0.5 for i, j, pts in sample}
        a, b, c = edge[(0, 1)], edge[(1, 2)], -edge[(0, 2)]
        assert row == pytest.approx(np.array([b, c, a]) / (a + b + c), abs=1e-6)


def test_a_deck_on_the_edge_of_the_support_is_in_it_sometimes():
    # c is dominated by a hair over few deals: some resamples let it in
    per_pair = {(0, 1): rps_units(0.5, 20), (0, 2): rps_units(0.55, 20),
                (1, 2): rps_units(0.55, 20)}
    rep = metagame(np.array([[np.nan, .5, .55], [.5, np.nan, .55], [.45, .45, np.nan]]),
                   ["a", "b", "c"], per_pair, samples=100, seed=2)
    c = next(r for r in rep["equilibrium"] if r["deck"] == "c")
    assert c["weight"] == 0.0 and 0.05 < c["support_freq"] < 0.95 and c["weight_high"] > 0


def test_the_metagame_resamples_are_the_ratings_resamples():
    from nivel_env.tournaments.ratings import bradley_terry
    per_pair = {(0, 1): [2.0, 0.0, 1.0, 2.0], (0, 2): [0.0, 1.0, 2.0, 2.0],
                (1, 2): [1.0, 2.0, 0.0]}
    ratings, weights = [], []
    for sample in resampled_units(per_pair, 40, seed=7):
        w, m = np.zeros((3, 3)), np.full((3, 3), np.nan)
        for i, j, pts in sample:
            w[i, j], w[j, i] = pts.sum(), 2 * len(pts) - pts.sum()
            m[i, j], m[j, i] = pts.mean() / 2, 1 - pts.mean() / 2
        ratings.append(bradley_terry(w))
        weights.append(nash(m))
    lo, hi = bootstrap_ratings(per_pair, 3, samples=40, seed=7, games_per_unit=2)
    assert lo == pytest.approx(np.percentile(ratings, 2.5, axis=0))
    assert hi == pytest.approx(np.percentile(ratings, 97.5, axis=0))
    assert bootstrap_nash(per_pair, 3, samples=40, seed=7) == pytest.approx(np.array(weights))


# ----------------------------------------------------------------- the small-sample note

def test_few_games_on_hand_numbers():
    assert few_games(0.5, 0) == "no games"
    # 5 games at 0.5, no interval: binomial sd 0.5 -> (1.96 * 0.5 / 0.05)^2 = 384.2
    assert few_games(0.5, 5) == ("only 5 games: about 380 more until the 95% interval "
                                 "is +-0.05 wide")
    # 5 games all lost (a rating of 0.0 [0.0, 0.0]): shrunk to 1/7, the effect 0.5 needs
    # (1.96 * 0.35 / 0.5)^2 = 1.9 games, so the floor of 30 is what is missing
    assert few_games(0.0, 5) == ("only 5 games: about 25 more until 30 games, the fewest "
                                 "an interval is trusted on")
    # 0.60 [0.45, 0.75] over 100 games: the side towards 0.5 is 0.15 against an effect of
    # 0.10 -> 100 * 1.5^2 = 225 games
    assert few_games(0.6, 100, 0.45, 0.75) == ("only 100 games: about 125 more until the "
                                               "95% interval excludes 0.5 at this score")
    # 0.52 [0.46, 0.58] over 400: even within 0.05 is the question -> 400 * 1.2^2 = 576
    assert few_games(0.52, 400, 0.46, 0.58) == ("only 400 games: about 176 more until the "
                                                "95% interval is +-0.05 wide")
    # settled: an interval off 0.5 over enough games, or a narrow one around it
    assert few_games(0.6, 40, 0.52, 0.68) == ""
    assert few_games(0.51, 1000, 0.48, 0.54) == ""
    # the heatmap's example: 0.10 [0.01, 0.58] over 10 games still holds 0.5
    note = few_games(0.10, 10, 0.01, 0.58)
    assert note.startswith("only 10 games: about 20 more")


def test_few_games_agrees_with_the_interval_it_is_given():
    # past the floor, the note is empty exactly when the interval leaves 0.5 out
    for score, low, high in [(0.7, 0.49, 0.85), (0.7, 0.51, 0.85), (0.3, 0.2, 0.52),
                             (0.3, 0.2, 0.48)]:
        assert (few_games(score, 200, low, high) == "") == (not low <= 0.5 <= high)
    assert FEW_GAMES == 30


# -------------------------------------------------------------- the heatmap's shading

def test_a_cell_whose_interval_holds_a_half_is_grey():
    assert cell_colour(0.10, 0.01, 0.58) == GREY
    assert cell_colour(0.90, 0.49, 0.97) == GREY
    assert cell_colour(float("nan"), 0.1, 0.2) == (1.0, 1.0, 1.0)


def test_decided_cells_are_paler_the_wider_their_interval():
    plain = np.array(cell_colour(0.1))                  # the score's own colour
    narrow = np.array(cell_colour(0.1, 0.08, 0.12))     # width 0.04: saturation 0.92
    wide = np.array(cell_colour(0.1, 0.01, 0.41))       # width 0.40: saturation 0.2
    grey = np.array(GREY)
    assert narrow == pytest.approx(grey + 0.92 * (plain - grey))
    assert wide == pytest.approx(grey + 0.2 * (plain - grey))
    assert np.abs(wide - grey).sum() < np.abs(narrow - grey).sum() < np.abs(
        plain - grey).sum()
    assert plain[0] > plain[1]                          # red for a low score


# ------------------------------------------------------------- compare's page and history

def compare_report(a: str, status, elo: float) -> dict:
    history = [{"games": 40 * (n + 1), "llr": 0.9 * (n + 1) * (1 if status == "H1" else -1),
                "elo_diff": elo, "low": elo - 60 / (n + 1), "high": elo + 60 / (n + 1),
                "score_a": 0.55, "score_b": 0.5} for n in range(3)]
    return {"command": "python evaluate.py compare", "kind": "compare", "pilot": "heuristic",
            "deck_a": a, "deck_b": "Stone Bastion", "field": ["Tide Scholars"],
            "elo0": 0.0, "elo1": 30.0, "alpha": 0.05, "beta": 0.05,
            "bounds": [-2.944, 2.944], "status": status,
            "verdict": {"H1": f"{a} is stronger", "H0": f"{a} is not stronger"}[status],
            "games": 120, "seeds": [0, 30], "fixed_test_games": 900, "history": history}


def test_compare_page_lists_the_history_of_the_folder(tmp_path, capsys):
    from nivel_env.tournaments.compare_report import write_compare_report
    write_compare_report(tmp_path, compare_report("Ember Rush", "H0", -20.0))
    (tmp_path / "history.jsonl").open("a").write("not json\n")
    files = write_compare_report(tmp_path, compare_report("Dawn Ascent", "H1", 150.0))
    assert {f.name for f in files} == {"history.jsonl", "compare_sprt.png", "compare.html"}
    lines = [json.loads(x) for x in (tmp_path / "history.jsonl").read_text().splitlines()
             if x.startswith("{")]
    assert [(x["deck_a"], x["status"], x["games"], x["elo_diff"]) for x in lines] == [
        ("Ember Rush", "H0", 120, -20.0), ("Dawn Ascent", "H1", 120, 150.0)]
    page = (tmp_path / "compare.html").read_text()
    assert "Comparisons in this folder (2, newest first)" in page
    assert page.index("Dawn Ascent") < page.index("<td>Ember Rush</td>")
    assert "+150.0 [+130.0, +170.0]" in page and "-20.0 [-40.0, +0.0]" in page
    assert "data:image/png;base64," in page and "fixed-size test" in page
    assert "line 2 is not a comparison" in capsys.readouterr().err
