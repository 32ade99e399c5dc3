"""Card analytics beyond GIH and IWD, against small cases computed by hand: drawn later
(GD), mulliganed, per opposing deck, by the turn a card was first played, the games
beside every rate and the few-games flag, the Benjamini-Hochberg correction; and the
card logs of real games (``arena.CardLog``) that feed them, checked against the engine."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nivel_env.tournaments.card_stats import (card_table, cards_html, mark_significant,
                                              turn_labels, write_card_report)


def side(points, in_hand=(), opening=(), played=(), turns=None, mulliganed=None,
         deck="mine"):
    s = {"deck": deck, "points": points, "in_hand": list(in_hand),
         "opening": list(opening), "played": list(played)}
    if turns is not None:
        s["played_turns"] = list(turns)
    if mulliganed is not None:
        s["mulliganed"] = list(mulliganed)
    return s


def game(mine, opponent, seed=None):
    """One unit: a game's two seats, my deck's side and the opponent's (with ``seed``, as
    ``games._record`` writes them)."""
    unit = [mine, side(1 - mine["points"], ["z"], deck=opponent)]
    return unit if seed is None else [{**s, "seed": seed} for s in unit]


# five games of "mine"; card x:
#   1 vs A, won:   opening hand, played on turn 1, kept the first hand
#   2 vs A, lost:  mulliganed, drawn later, played on turn 3
#   3 vs B, won:   mulliganed (two copies: counts once), drawn later, played turns 4 and 5
#   4 vs B, drawn: mulliganed, never in hand
#   5 vs B, lost:  never in hand
UNITS = [game(side(1, ["x"], ["x"], ["x"], [1], []), "A", 1),
         game(side(0, ["x"], [], ["x"], [3], ["x"]), "A", 2),
         game(side(1, ["x"], [], ["x", "x"], [4, 5], ["x", "x"]), "B", 3),
         game(side(0.5, [], [], [], [], ["x"]), "B", 4),
         game(side(0, [], [], [], [], []), "B", 5)]


def test_every_new_rate_by_hand():
    said: list = []
    (x,) = card_table(UNITS, samples=200, decks={"mine"}, min_games=2, say=said.append)
    assert said == []                      # every side has the newer fields
    assert x["games"] == 5
    want = {"in_hand": (3, 0.6667, False), "opening": (1, 1.0, True),
            "drawn": (2, 0.5, False), "played": (3, 0.6667, False),
            "not_in_hand": (2, 0.25, False), "mulliganed": (3, 0.5, False)}
    for m, (n, win, few) in want.items():
        assert (x[f"{m}_games"], x[f"{m}_win"], x[f"{m}_few"]) == (n, win, few), m
    assert x["iwd"] == round(2 / 3 - 1 / 4, 4) and x["iwd_few"] is False
    opp = {r["opponent"]: r for r in x["by_opponent"]}
    a, b = opp["A"], opp["B"]
    assert (a["games"], a["in_hand_games"], a["in_hand_win"]) == (2, 2, 0.5)
    assert (a["opening_games"], a["drawn_games"], a["drawn_win"]) == (1, 1, 0.0)
    assert (a["not_in_hand_games"], a["not_in_hand_win"], a["iwd"]) == (0, None, None)
    assert (a["mulliganed_games"], a["mulliganed_win"]) == (1, 0.0) and a["iwd_few"]
    assert (b["games"], b["in_hand_games"], b["in_hand_win"], b["in_hand_few"]) == \
        (3, 1, 1.0, True)
    assert (b["not_in_hand_games"], b["not_in_hand_win"], b["iwd"]) == (2, 0.25, 0.75)
    assert (b["mulliganed_games"], b["mulliganed_win"]) == (2, 0.75)
    # first play: turn 1 in game 1 (won), 3 in game 2 (lost), 4 in game 3 (won)
    assert turn_labels() == ["1", "2", "3", "4", "5", "6+"]
    assert [(t["turns"], t["games"], t["win"]) for t in x["by_turn"]] == \
        [("1", 1, 1.0), ("2", 0, None), ("3", 1, 0.0), ("4", 1, 1.0), ("5", 0, None),
         ("6+", 0, None)]
    assert all(t["few"] for t in x["by_turn"])
    # with three games needed, the two-game rates are flagged, still given
    (thin,) = card_table(UNITS, samples=50, decks={"mine"}, min_games=3)
    assert (thin["drawn_games"], thin["drawn_win"], thin["drawn_few"]) == (2, 0.5, True)
    assert thin["iwd"] == x["iwd"] and thin["iwd_few"] and thin["iwd_q"] is None


def test_the_opposing_deck_is_the_other_seat_and_late_turns_share_a_bucket():
    units = [game(side(1, ["x"], [], ["x"], [9], []), "A"),
             game(side(0, ["x"], [], ["x"], [6], []), "A")]
    # the opposing deck's own rows name mine as their opponent
    rows = card_table(units, samples=20, min_games=1)
    z = next(r for r in rows if r["card"] == "z")
    assert z["deck"] == "A" and [o["opponent"] for o in z["by_opponent"]] == ["mine"]
    assert z["in_hand_win"] == 0.5 and z["by_turn"] == []      # A never played it
    x = next(r for r in rows if r["card"] == "x")
    assert x["by_turn"][-1] == {"turns": "6+", "games": 2, "win": 0.5, "few": False}


def test_results_from_before_the_new_fields_still_analyse():
    old = [[{k: v for k, v in s.items() if k not in ("mulliganed", "played_turns", "seed")}
            for s in unit] for unit in UNITS]
    said: list = []
    (x,) = card_table(old, samples=50, decks={"mine"}, min_games=2, say=said.append)
    assert len(said) == 1
    assert all(f in said[0] for f in ("mulliganed", "played_turns", "seed"))
    assert x["mulliganed_games"] is None and x["by_turn"] == []
    assert all(o["mulliganed_games"] is None for o in x["by_opponent"])
    assert (x["in_hand_games"], x["drawn_games"], x["iwd"]) == (3, 2, round(5 / 12, 4))
    assert "recorded before" in cards_html([x])


def test_mismatched_turns_are_named():
    bad = [game(side(1, ["x"], [], ["x"], [1, 2], []), "A")]
    with pytest.raises(ValueError, match="deck 'mine'.*played_turns"):
        card_table(bad, samples=10)


def test_benjamini_hochberg_by_hand():
    rows = [{"iwd_p": p, "iwd_few": few} for p, few in
            [(0.01, False), (0.04, False), (0.03, False), (0.5, False), (0.001, True),
             (None, False)]]
    family = mark_significant(rows, alpha=0.05)
    assert len(family) == 4                  # the flagged row and the one without p are out
    # sorted p 0.01 0.03 0.04 0.5 (m = 4): p * 4 / rank = 0.04 0.06 0.0533 0.5, then the
    # running minimum from the largest down: 0.04 0.0533 0.0533 0.5
    assert [r["iwd_q"] for r in rows] == [0.04, 0.05333, 0.05333, 0.5, None, None]
    assert [r["iwd_significant"] for r in rows] == [True, False, False, False, None, None]
    q = stats.false_discovery_control([0.01, 0.04, 0.03, 0.5], method="bh")
    assert [r["iwd_q"] for r in rows[:4]] == pytest.approx(q, rel=1e-3)


def test_the_p_value_is_the_bootstrap_normal_one_and_the_correction_covers_the_cards():
    # 1,500 independent games: x in hand in about half, winning 0.54 of them against 0.46
    # without; y in hand in about half, no effect
    rng = np.random.default_rng(3)
    units = []
    for seed in range(1500):
        hx, hy = rng.random() < 0.5, rng.random() < 0.5
        won = float(rng.random() < (0.54 if hx else 0.46))
        held = ["x"] * hx + ["y"] * hy
        units.append(game(side(won, held, held, [], [], []), "A", seed))
    rows = {r["card"]: r for r in card_table(units, samples=2000, decks={"mine"})}
    x, y = rows["x"], rows["y"]
    # the bootstrap's standard error is the textbook one of a difference of two rates
    p1, n1, p0, n0 = x["in_hand_win"], x["in_hand_games"], x["not_in_hand_win"], \
        x["not_in_hand_games"]
    assert x["iwd_se"] == pytest.approx(np.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0),
                                        rel=0.08)
    for r in (x, y):
        assert stats.norm.isf(r["iwd_p"] / 2) == pytest.approx(abs(r["iwd"]) / r["iwd_se"],
                                                              abs=0.02)
    q = stats.false_discovery_control([x["iwd_p"], y["iwd_p"]], method="bh")
    assert [x["iwd_q"], y["iwd_q"]] == pytest.approx(q, rel=1e-3)
    assert x["iwd_significant"] and x["iwd_q"] < 0.05
    assert y["iwd_significant"] == (y["iwd_q"] < 0.05)


def test_the_units_of_one_seed_are_resampled_together():
    # 200 deals, each met by four opponents on the same seed with the same draw and result:
    # four copies of one piece of evidence, not four pieces; drawn together, the standard
    # error is that of 200 units (twice that of 800)
    rng = np.random.default_rng(5)
    units = []
    for s in range(200):
        held = ["x"] * (rng.random() < 0.5)
        won = float(rng.random() < 0.5)
        for opp in "ABCD":
            units.append([{**side(won, held, held, [], [], []), "seed": s},
                          {**side(1 - won, deck=opp), "seed": s}])
    (seeded,) = card_table(units, samples=2000, decks={"mine"}, say=lambda m: None)
    (alone,) = card_table([[{k: v for k, v in x.items() if k != "seed"} for x in u]
                           for u in units], samples=2000, decks={"mine"}, say=lambda m: None)
    assert seeded["iwd"] == alone["iwd"]
    assert seeded["iwd_se"] / alone["iwd_se"] == pytest.approx(2, rel=0.1)


def test_the_report_greys_thin_rates_and_writes_every_table(tmp_path):
    rows = card_table(UNITS, samples=50, decks={"mine"}, min_games=2, names={"x": "Ex"})
    page = cards_html(rows)
    # n beside each rate; the one-game opening rate grey, the three-game GIH rate not
    assert '<td style="color:#aaa">1.000 (1)</td>' in page
    assert "<td>0.667 (3)</td>" in page
    assert "Against each deck" in page and "By the turn it was first played" in page
    files = write_card_report(rows, tmp_path)
    assert all(f.stat().st_size > 0 for f in files)
    by_opp = files[3].read_text().splitlines()
    assert by_opp[0].startswith("deck,card,name,opponent,games") and len(by_opp) == 3
    assert len(files[4].read_text().splitlines()) == 1 + len(turn_labels())
    assert "by_turn" not in files[0].read_text().splitlines()[0]


# ------------------------------------------------------------------ real games

class _Mulligans:
    """The heuristic player, except that it always takes the mulligan (5.1.6.1)."""

    def __init__(self, seed):
        from agents import HeuristicAgent
        self.inner = HeuristicAgent(seed=seed)

    def reset(self):
        self.inner.reset()

    def act(self, observation, mask):
        return 1 if mask[1] else self.inner.act(observation, mask)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_card_log_mulligans_match_the_engine(monkeypatch, backend):
    from nivel_env import native
    from nivel_env.cards import load_deck
    from nivel_env.engine import new_game
    from nivel_env.tournaments.arena import play_game
    if backend == "native" and not native.available():
        pytest.skip("the native core is not built")
    monkeypatch.setenv("NIVEL_BACKEND", backend)
    a, b = load_deck("ember-rush"), load_deck("tide-scholars")
    for seed in (4, 5):
        cards: list = []
        play_game(a, b, seed, (_Mulligans(1), _Mulligans(2)), cards=cards)
        g = new_game(a, b, seed=seed)
        dealt = [sorted(g.card(i).id for i in g.hand[p]) for p in (0, 1)]
        g.apply_action(1)
        g.apply_action(1)                 # both seats send their hands back
        kept = [sorted(g.card(i).id for i in g.hand[p]) for p in (0, 1)]
        for p in (0, 1):
            assert cards[p]["mulliganed"] == dealt[p] and cards[p]["opening"] == kept[p]


def test_card_logs_of_a_small_heuristic_run_are_consistent():
    from nivel_env.cards import load_deck
    from nivel_env.tournaments.games import play_pair
    ids = {d: set(load_deck(d).card_ids()) for d in ("ember-rush", "stone-bastion")}
    for seed in range(3):
        for rec in play_pair(("ember-rush", "stone-bastion", "heuristic", "heuristic",
                              seed, None, "decks")):
            own_turns = (rec["turns"] + 1) // 2
            for s in rec["sides"]:
                deck = s["deck"]
                assert s["seed"] == seed
                assert len(s["mulliganed"]) in (0, 5) and set(s["mulliganed"]) <= ids[deck]
                assert len(s["opening"]) == 5 and set(s["opening"]) <= set(s["in_hand"])
                assert len(s["played_turns"]) == len(s["played"])
                assert s["played_turns"] == sorted(s["played_turns"])
                assert all(1 <= t <= own_turns for t in s["played_turns"])
