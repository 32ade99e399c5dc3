"""The terminal game (python -m nivel_env play), replays and the replay viewer."""
import json
import subprocess
import sys

import pytest
from rich.console import Console

from conftest import ROOT
from nivel_env.cards import load_deck
from nivel_env.engine import new_game
from nivel_env.engine.hidden import determinize
from nivel_env.replay import ReplayError, load_replay, record_game


def run(args, text, timeout=300):
    return subprocess.run([sys.executable, "-m", "nivel_env", *args], input=text,
                          capture_output=True, text=True, timeout=timeout)


def test_a_whole_game_through_the_command(tmp_path):
    path = tmp_path / "game.jsonl"
    r = run(["play", "--seed", "5", "--opponent", "heuristic", "--deck", "ember-rush",
             "--opponent-deck", "stone-bastion", "--save-replay", str(path)],
            "help\nfoo\n999\nboard\n" + "1\n" * 3000)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "The screen, top to bottom" in out                    # help
    assert "'foo' is not a move" in out and "'999' is not a move" in out
    assert "Game over" in out and "you surrendered" not in out
    assert any(x in out for x in ("You win!", "You lose.", "Draw."))
    rep = load_replay(path)                                      # verified on load
    assert rep.result is not None and rep.header["players"].count("you") == 1
    assert rep.header["decks"][rep.header["players"].index("you")]["name"] == "Ember Rush"


@pytest.mark.parametrize("text", ["1\nquit\n", "1\n1\n"])     # quit, or input ends
def test_leaving_is_a_clean_surrender(tmp_path, text):
    path = tmp_path / "left.jsonl"
    r = run(["play", "--seed", "8", "--opponent", "random", "--seat", "0",
             "--save-replay", str(path)], text)
    assert r.returncode == 0, r.stderr
    assert "Game over: you lose — you surrendered" in r.stdout and "You lose." in r.stdout
    rep = load_replay(path)
    assert rep.rows[-1]["kind"] == "surrender" and rep.rows[-1]["player"] == 0
    assert list(rep.games[-1].returns()) == [-1, 1]


def test_moves_by_key_and_the_commands_that_explain(tmp_path):
    text = "k\nrules\ninspect h0\ninspect 1\ninspect leader\ninspect nowhere\n" \
           "card scorch lancer\ncard zzz\ne\n" + "1\n" * 3000
    r = run(["play", "--seed", "5", "--opponent", "random", "--seat", "0", "--deck",
             "ember-rush", "--opponent-deck", "stone-bastion"], text)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "You keep the opening hand." in out                  # k: keep, by its key
    assert "Size and costs." in out and "Pierce N (10.2.3.2)" in out     # rules primer
    assert "Opponent, lane 1:" in out and "You, lane 1:" in out         # inspect 1
    assert "Oath:" in out                                       # inspect leader: full text
    assert "inspect what?" in out and "no card is named like 'zzz'" in out
    assert "Scorch Lancer  (unit · fire · cost" in out           # card NAME
    assert "Game over" in out


def test_move_keys_name_the_same_move_at_every_decision():
    from nivel_env.engine import actions as A
    from nivel_env.screen import move_key
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1)
    assert move_key(g, A.END_MAIN) == move_key(g, A.END_ATTACK) == "e"
    assert move_key(g, A.play_id(2, 0)) == "h20" and move_key(g, A.play_id(3, 3)) == "h3s"
    assert move_key(g, A.ATTACK + 1) == "a1" and move_key(g, A.GUARDIAN + 2) == "g2"
    assert move_key(g, A.activate_id(0, 0)) == "xl0" and move_key(g, A.activate_id(2, 1)) == "x11"
    assert move_key(g, A.PICK + 3) == ""                        # picks: by number only
    keys = [move_key(g, a) for a in range(A.N_ACTIONS) if move_key(g, a)]
    assert len(keys) == len(set(keys)) + 1                       # only "e" is shared


def test_the_board_shows_keyword_values():
    from nivel_env.primer import keyword_label
    from nivel_env.cards import load_card_db
    labels = {keyword_label(k) for c in load_card_db().cards for k in c.subkeywords}
    assert {"Pierce 1", "Pierce 2", "Guardian (Barrier 1)", "Credit 1",
            "Breakthrough (with power 3 or less)"} <= labels


def test_bad_arguments_name_what_is_wrong(tmp_path):
    r = run(["play", "--deck", "no-such-deck"], "")
    assert r.returncode == 2 and "no-such-deck" in r.stderr
    r = run(["play", "--opponent", str(tmp_path / "missing.pt")], "")
    assert r.returncode == 2 and "missing.pt" in r.stderr


def _text(renderable):
    c = Console(record=True, width=160, file=open("/dev/null", "w"))
    c.print(renderable)
    return c.export_text()


def test_the_screen_shows_only_what_the_player_may_see():
    from nivel_env.screen import board
    d0, d1 = load_deck("tide-scholars"), load_deck("veil-piercers")
    g = new_game(d0, d1, seed=4)
    for _ in range(40):
        g.apply_action(g.legal_actions()[0])
    for viewer in (0, 1):
        shown = _text(board(g, viewer))
        for k in range(4):
            h = determinize(g, viewer, seed=k)         # the opponent's hand and decks redrawn
            assert _text(board(h, viewer)) == shown
    assert any(_text(board(determinize(g, 0, seed=k), 0, reveal=True)) !=
               _text(board(g, 0, reveal=True)) for k in range(4))


# ------------------------------------------------------------------ replays

@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    import random
    d0, d1 = load_deck("dawn-ascent"), load_deck("twilight-pact")
    g = new_game(d0, d1, seed=12)
    r = random.Random(3)
    actions = []
    while not g.is_terminal():
        actions.append(r.choice(g.legal_actions()))
        g.apply_action(actions[-1])
    path = record_game(d0, d1, 12, actions, players=["a", "b"]).write(
        tmp_path_factory.mktemp("rep") / "r.jsonl")
    return path, actions, g


def test_replay_round_trip(replay_file):
    path, actions, g = replay_file
    rep = load_replay(path)
    assert rep.actions == actions and len(rep.games) == len(actions) + 1
    assert rep.games[-1] == g and rep.result["returns"] == list(g.returns())
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "result"
    assert all(x["kind"] == "action" and "events" in x for x in lines[1:-1])
    t = rep.first_step_of_turn(3)
    assert rep.games[t].turn == 3 and rep.games[t - 1].turn < 3


def _tamper(path, tmp_path, fn, name="t.jsonl"):
    lines = path.read_text().splitlines()
    fn(lines)
    out = tmp_path / name
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize("how,match", [
    ("action", "not legal here"),
    ("event", "events differ"),
    ("pool", "card pool"),
    ("result", "recorded result"),
    ("json", "not JSON"),
    ("deck", "unknown card ids"),
    ("format", "format"),
    ("extra", "after the result"),
])
def test_tampered_replays_fail_clearly(replay_file, tmp_path, how, match):
    path = replay_file[0]

    def edit(lines):
        head = json.loads(lines[0])
        if how == "action":
            row = json.loads(lines[8])
            row["action"] = 336
            lines[8] = json.dumps(row)
        elif how == "event":
            i = next(i for i, x in enumerate(lines) if '"type": "play"' in x)
            lines[i] = lines[i].replace('"lane": 0', '"lane": 2').replace('"lane": 1', '"lane": 0')
        elif how == "pool":
            head["card_pool_version"] = "0" * 16
        elif how == "result":
            lines[-1] = lines[-1].replace('"turns": ', '"turns": 1')
        elif how == "json":
            lines[5] = lines[5][:40]
        elif how == "deck":
            head["decks"][0]["cards"][3] = "XX-99"
        elif how == "format":
            head["format"] = 99
        elif how == "extra":
            lines.append(lines[5])
        if how in ("pool", "deck", "format"):
            lines[0] = json.dumps(head)
    bad = _tamper(path, tmp_path, edit)
    with pytest.raises(ReplayError, match=match) as e:
        load_replay(bad)
    assert str(bad) in str(e.value)


def test_replay_viewer_steps_and_summarises(replay_file):
    path = replay_file[0]
    r = run(["replay", str(path)], "n\nn\nt 3\np\ng 7\nnonsense\nhelp\ne\nq\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for want in ("move 0 of", "move 1 of", "move 2 of", "move 7 of", "not a command",
                 "the previous move", "Game over after "):
        assert want in out, want
    assert "Turn 3" in out
    # told in words with card names, seats named as recorded, no raw event dicts
    assert "P0 a" in out and "P1 b" in out and "{'type'" not in out and " . {" not in out
    assert "You draw 5 cards." in out and "-- Turn 1:" in out
    # help stays on screen: the next thing after it is the prompt, not a board
    after_help = out.rsplit("q, quit        leave", 1)[1]
    assert after_help.strip().startswith("move 7/") and \
        after_help.index("(n)ext") < after_help.index(" of ")
    r = run(["replay", str(path), "--summary"], "")
    assert r.returncode == 0 and r.stdout.count("Game over after ") == 1
    assert r.stdout.count(" turn ") >= len(replay_file[1])
    assert "Game over: " not in r.stdout and " attacks." in r.stdout
    r = run(["replay", str(path.parent / "missing.jsonl")], "")
    assert r.returncode == 2 and "missing.jsonl" in r.stderr


def test_evaluate_saves_replays_that_load(tmp_path):
    out = tmp_path / "reps"
    root = ROOT
    r = subprocess.run([sys.executable, str(root / "evaluate.py"), "decks", "--decks", "ember-rush",
                        "anvil-guild", "--games", "1", "--workers", "1", "--no-progress",
                        "--pilot", "heuristic",
                        "--bootstrap", "10", "--out", str(tmp_path / "ev"), "--save-replays",
                        str(out)], capture_output=True, text=True, timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr
    files = sorted(out.glob("*.jsonl"))
    assert len(files) == 2
    for f in files:
        rep = load_replay(f)
        assert rep.result is not None and rep.header["players"] == ["heuristic", "heuristic"]


def test_ctrl_c_at_the_prompt_surrenders_cleanly():
    import os
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-u", "-m", "nivel_env", "play", "--seed", "2",
                          "--opponent", "random"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen = ""
    deadline = time.time() + 120
    while "Move (" not in seen and time.time() < deadline:
        seen += p.stdout.read(1)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert "Game over: you lose — you surrendered" in out and "Traceback" not in err


def test_quit_asks_first_and_forced_moves_play_themselves(tmp_path):
    r = run(["play", "--seed", "8", "--opponent", "random", "--seat", "0"],
            "quit\nn\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    assert "Surrender and leave the game? (y/N)" in r.stdout and "Play on." in r.stdout
    assert "Game over: you lose — you surrendered" in r.stdout
    assert "You's hand" not in r.stdout and "  h0  " in r.stdout
    auto = run(["play", "--seed", "5", "--opponent", "random", "--deck", "ember-rush",
                "--opponent-deck", "stone-bastion"], "1\n" * 3000)
    manual = run(["play", "--seed", "5", "--opponent", "random", "--deck", "ember-rush",
                  "--opponent-deck", "stone-bastion", "--no-auto"], "1\n" * 3000)
    assert "(your only move" in auto.stdout and "(your only move" not in manual.stdout
    assert auto.stdout.count("Move (") < manual.stdout.count("Move (")


def test_card_text_in_brackets_is_printed_not_read_as_markup(monkeypatch):
    """rich reads "[with power 3 or less]" as a style tag unless told not to."""
    from nivel_env import screen
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1)
    monkeypatch.setattr(screen, "move_name",
                        lambda g, a, nums=None: "Breakthrough[with power 3 or less]")
    assert "Breakthrough[with power 3 or less]" in _text(screen.moves_table(g, [0, 1]))
    shown = _text(screen.board(g, 0, names=("[me]", "[you]")))
    assert "[me]" in shown and "[you]" in shown


def test_the_terminal_shows_a_drawn_seed_only_when_the_game_is_over(tmp_path):
    """The seed with the moves deals the opponent's hand again: a seed the game drew is
    shown once the game is over (and in the replay saved then), never during play."""
    path = tmp_path / "drawn.jsonl"
    r = run(["play", "--opponent", "random", "--seat", "0", "--save-replay", str(path)],
            "1\nquit\ny\n")
    assert r.returncode == 0, r.stderr
    seed = load_replay(path).header["seed"]
    during, _, after = r.stdout.partition("Game over")
    assert after, r.stdout
    assert "seed" not in during and str(seed) not in during
    assert f"seed {seed})" in after
    given = run(["play", "--seed", "8", "--opponent", "random", "--seat", "0"], "quit\ny\n")
    assert given.returncode == 0, given.stderr
    assert "(seed 8)" in given.stdout.partition("Game over")[0]     # the user's own seed


def test_a_session_draws_its_seed_from_the_web_apps_space(monkeypatch):
    """One seed space for both screens: 2^63 values, so the opening hand the person sees
    cannot pick the seed (and with it the hidden cards) out of a short list."""
    import secrets
    from nivel_env import session
    asked = []
    real = secrets.randbelow
    monkeypatch.setattr(session.secrets, "randbelow", lambda n: asked.append(n) or real(n))
    s = session.PlaySession(opponent="random", seat=0)
    assert asked == [2 ** 63] and session.SEED_SPACE == 2 ** 63
    assert 0 <= s.seed < 2 ** 63 and s.seed_given is False
    assert session.PlaySession(opponent="random", seed=3).seed_given is True
    pytest.importorskip("starlette")
    from nivel_env.web import app
    assert app.SEED_SPACE is session.SEED_SPACE


def test_a_session_takes_its_seat_and_moves_by_the_engines_rules():
    """The seat goes through the envs' one seat check (True, 1.0, '1' or 2 are refused by
    name, not taken for seat 1 or a random seat), and a move through the engine's integer
    rule (a numpy integer is a move; a float or a bool is not)."""
    import numpy as np

    from nivel_env import session
    for bad in (True, 1.0, "1", 2):
        with pytest.raises(session.SetupError, match="seat must be 0, 1 or 'random'"):
            session.PlaySession(opponent="random", seat=bad, seed=1)
    s = session.PlaySession(opponent="random", seat=np.int64(1), seed=1, auto=False)
    assert s.human == 1 and session.PlaySession(opponent="random", seat="random").human in (0, 1)
    legal = s.legal()
    for bad in (float(legal[0]), True):
        with pytest.raises(session.IllegalMove):
            s.play(bad)
    before = s.moves
    s.play(np.int64(legal[0]))
    assert s.moves > before
