"""Words that state a rule variant's number follow the game's rules (issue 31, a new rule
variant touches one place): the hand limit is read from the game's ``RuleConfig`` by the
primer wherever a game or a server is at hand (the terminal's ``rules``, the browser's
``/api/rules``), and the opening hand's size, which no option sets yet, is read from the
game (the mulligan's name, the coach's hint) or said without a number (the primer, the
coach's lesson, an action named without a game) -- never a fixed 5 that a variant would
leave wrong."""
import argparse
import io
import re

import pytest

from nivel_env.cards import load_deck
from nivel_env.coach import LESSONS, why
from nivel_env.engine import RuleConfig, new_game
from nivel_env.engine import actions as A
from nivel_env.engine.render import action_meaning
from nivel_env.primer import basics, primer_text

SMALL = RuleConfig(hand_limit=4)


def _game(config=None, backend=None):
    return new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1,
                    config=config, backend=backend)


def test_the_primer_states_the_hand_limit_of_the_rules_it_is_given():
    turn = dict(basics(SMALL))["A turn"]
    assert "a hand of 5 or more is cut to 4" in turn
    assert "a hand of 8 or more is cut to 7" in dict(basics())["A turn"]
    assert "cut to 4" in primer_text(config=SMALL)


def test_no_opening_hand_size_is_written_where_no_game_says_it():
    for text in (dict(basics())["Setting up"], LESSONS["mulligan"], action_meaning(A.MULLIGAN)):
        counts = re.sub(r"\d+(\.\d+)+|40-card", "", text)       # rule numbers, the deck aside
        assert not re.search(r"\d|five", counts), text


def test_the_mulligan_names_the_hand_it_sends_back():
    g = _game(backend="python")          # the test edits a hand: the Python engine's lists
    assert g.decision.kind == "mulligan"
    p = g.current_player
    assert g.action_name(A.MULLIGAN) == f"mulligan (redraw {len(g.hand[p])})" \
        == "mulligan (redraw 5)"                      # the golden files' words, 5.1.6.1
    assert f"{len(g.hand[p])} new cards" in why(g, A.MULLIGAN)
    short = g.clone()
    short.deck[p].append(short.hand[p].pop())          # a smaller hand: another number
    assert short.action_name(A.MULLIGAN) == "mulligan (redraw 4)"
    assert "4 new cards" in why(short, A.MULLIGAN)
    g.apply_action(A.KEEP)
    g.apply_action(A.KEEP)
    assert g.action_name(A.MULLIGAN) == "mulligan (redraw the hand)"   # no mulligan now


def test_the_terminal_rules_command_shows_the_games_rules(monkeypatch, capsys):
    """``rules`` in the terminal game prints the primer under the game's config, not the
    default rules."""
    import nivel_env.session as session
    from nivel_env import cli_play

    class SmallHands(session.PlaySession):
        def __init__(self, *a, **kw):
            super().__init__(*a, **{**kw, "config": SMALL})
    monkeypatch.setattr(session, "PlaySession", SmallHands)
    monkeypatch.setattr("sys.stdin", io.StringIO("rules\nquit\ny\n"))
    p = argparse.ArgumentParser()
    cli_play.add_parser(p.add_subparsers(dest="command"))
    args = p.parse_args(["play", "--opponent", "random", "--seed", "3",
                         "--deck", "ember-rush", "--opponent-deck", "stone-bastion"])
    assert args.func(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "a hand of 5 or more is cut to 4" in out, out[-3000:]


def test_the_browser_rules_are_the_servers_rules():
    pytest.importorskip("starlette.testclient", reason="needs the dev extra")
    from starlette.testclient import TestClient
    from nivel_env.web.app import ServerConfig, create_app
    for rules, words in ((SMALL, "cut to 4"), (None, "cut to 7")):
        with TestClient(create_app(ServerConfig(rules=rules)),
                        base_url="http://127.0.0.1") as client:
            basics_shown = dict(client.get("/api/rules").json()["basics"])
        assert words in basics_shown["A turn"], basics_shown["A turn"]
