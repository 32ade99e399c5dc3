"""The duplicate deal for decks: ``new_game(b, a, seed, mirror=True)`` is the other half of
``new_game(a, b, seed)`` -- each deck in the same order, the first player exchanged between
the decks -- and evaluate.py's deck mode plays its seeds that way."""
from __future__ import annotations

import pytest

from agents import HeuristicAgent
from nivel_env.tournaments import games
from nivel_env.tournaments.ratings import paired_score
from nivel_env.cards import load_deck
from nivel_env.engine import new_game
from nivel_env.replay import load_replay, record_game


@pytest.fixture(scope="module")
def decks():
    return load_deck("ember-rush"), load_deck("stone-bastion")


def library(g, seat):
    """The seat's cards by id in draw order at the first decision (hand, then deck)."""
    return [g.card(i).id for i in g.hand[seat] + g.deck[seat]]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 17, 123456789])
def test_each_deck_keeps_its_order_and_the_first_player_changes_deck(decks, seed):
    a, b = decks
    x = new_game(a, b, seed)
    y = new_game(b, a, seed, mirror=True)
    assert library(x, 0) == library(y, 1)              # deck a, same cards in the same order
    assert library(x, 1) == library(y, 0)              # deck b
    assert x.first == y.first                          # the same seat goes first, so
    assert x.log[0].decks[x.first] != y.log[0].decks[y.first]   # the other deck
    assert x.rng == y.rng                              # what follows: the same generator
    # without the mirror, exchanging seats reshuffles: the pairing is the flag's doing
    z = new_game(b, a, seed)
    assert library(z, 1) != library(x, 0) or library(z, 0) != library(x, 1)


def test_mirror_of_a_deck_against_itself_is_a_different_game(decks):
    a = decks[0]
    x, y = new_game(a, a, 5), new_game(a, a, 5, mirror=True)
    assert library(x, 0) == library(y, 1) and library(x, 1) == library(y, 0)
    assert library(x, 0) != library(x, 1)


def test_mirrored_replay_round_trip_and_the_flag_is_checked(decks, tmp_path):
    a, b = decks
    g = new_game(b, a, 9, mirror=True)
    agents = (HeuristicAgent(seed=1), HeuristicAgent(seed=2))
    from nivel_env.tournaments.arena import play_game
    actions: list = []
    r = play_game(b, a, 9, agents, record=actions, mirror=True)
    path = record_game(b, a, 9, actions, mirror=True).write(tmp_path / "m.jsonl")
    rep = load_replay(path)
    assert rep.header["mirror"] is True and rep.result["returns"] == list(r.returns)
    assert library(rep.games[0], 0) == library(g, 0)
    # the same file without the flag describes another deal: loading says so
    text = path.read_text().replace('"mirror": true, ', "")
    (tmp_path / "edited.jsonl").write_text(text)
    with pytest.raises(ValueError, match="edited.jsonl"):
        load_replay(tmp_path / "edited.jsonl")
    plain = record_game(b, a, 9, []).lines()[0]
    assert '"mirror"' not in plain                     # ordinary files unchanged


def test_a_deck_against_itself_scores_half_within_its_interval():
    pts = []
    for seed in range(40):
        pair = games.play_pair(("ember-rush", "ember-rush", "heuristic", "heuristic",
                                    seed, None, "decks"))
        assert [x["swap"] for x in pair] == [False, True]
        pts.append(sum(x["points"] for x in pair))
    st = paired_score(pts)
    assert st["low"] <= 0.5 <= st["high"]
