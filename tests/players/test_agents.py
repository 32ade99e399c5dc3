"""Agents, the arena, ratings, policy files and evaluate.py (train.py: test_train.py)."""
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent, bundled_opponents, load_opponent
from nivel_env.tournaments.arena import head_to_head, play_game
from nivel_env.tournaments.ratings import bootstrap_ratings, bradley_terry, points_matrix, wilson
from nivel_env.cards import list_decks, load_deck
from nivel_env.engine import N_ACTIONS, new_game
from nivel_env.engine.hidden import determinize
from nivel_env.env.encoder import Encoder
from conftest import ROOT


def positions(n_games=4, every=7):
    names = list_decks()
    out = []
    for s in range(n_games):
        r = random.Random(s)
        g = new_game(load_deck(names[s % 8]), load_deck(names[(s + 3) % 8]), seed=s)
        k = 0
        while not g.is_terminal():
            if k % every == 0:
                out.append(g.clone())
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
            k += 1
    return out


def masked(g):
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    m[g.legal_actions()] = 1
    return m


# ------------------------------------------------------------------ rule-based agents

def test_agents_obey_the_mask_everywhere():
    pos = positions()
    enc = Encoder(pos[0].db)
    for agent in (RandomAgent(0), HeuristicAgent(0)):
        for g in pos:
            p = g.current_player
            a = agent.act(enc.encode(g, p, g.legal_actions()).copy(), masked(g))
            assert a in g.legal_actions(), (type(agent).__name__, g.decision)


def test_heuristic_decides_from_its_seat_only():
    """Redrawing what the seat cannot see never changes the heuristic's choice."""
    pos = positions()
    enc = Encoder(pos[0].db)
    for i, g in enumerate(pos):
        p = g.current_player
        a = HeuristicAgent(7).act(enc.encode(g, p, g.legal_actions()).copy(), masked(g))
        h = determinize(g, p, seed=i)
        b = HeuristicAgent(7).act(enc.encode(h, p, h.legal_actions()).copy(), masked(h))
        assert a == b


def test_heuristic_beats_random():
    decks = [load_deck(n) for n in list_decks()]
    r = head_to_head(HeuristicAgent(0), RandomAgent(0), decks, games=24, seed=5)
    assert r["games"] == 48 and r["score"] >= 0.7, r


def test_play_game_records_and_is_deterministic():
    d0, d1 = load_deck("ember-rush"), load_deck("stone-bastion")
    rec1, rec2 = [], []
    a = play_game(d0, d1, 3, (HeuristicAgent(1), RandomAgent(2)), record=rec1)
    b = play_game(d0, d1, 3, (HeuristicAgent(1), RandomAgent(2)), record=rec2)
    assert a == b and rec1 == rec2 and a.decisions == len(rec1) and a.returns in ((1, -1), (-1, 1))


def test_load_opponent():
    assert {"random", "heuristic"} <= set(bundled_opponents())
    assert isinstance(load_opponent("random"), RandomAgent)
    assert isinstance(load_opponent("heuristic", seed=1), HeuristicAgent)
    # the error lists every bundled name, as bundled_opponents lists them (not today's list)
    with pytest.raises(ValueError, match="no bundled opponent 'grandmaster'; known: ") as e:
        load_opponent("grandmaster")
    known = str(e.value).split("known: ", 1)[1].split(" (a policy file", 1)[0]
    assert known.split(", ") == bundled_opponents()


def test_every_bundled_name_is_listed_once_and_described():
    from nivel_env import players
    names = bundled_opponents()
    assert len(names) == len(set(names)), names
    described = players.names()
    assert set(described) == set(names) and all(described.values())
    assert list(described)[:len(players.levels())] == list(players.levels())


def test_a_player_registered_in_by_name_is_loaded_listed_and_checked(monkeypatch):
    """A new player built in code is one entry of ``BY_NAME``: it then loads by name and
    with its settings, is listed by bundled_opponents, players.names and the unknown-name
    error, and refuses a setting it does not take."""
    from agents import opponents
    from nivel_env import players

    class Leaner(RandomAgent):
        def __init__(self, seed=None, lean: int = 0):
            super().__init__(seed)
            self.lean = lean
    monkeypatch.setitem(opponents.BY_NAME, "leaner",
                        opponents.Kind(Leaner, {"lean": int}, "leans one way"))
    agent = load_opponent("leaner:lean=2", seed=3)
    assert isinstance(agent, Leaner) and agent.lean == 2
    assert isinstance(players.load("leaner"), Leaner)
    assert "leaner" in bundled_opponents() and players.names()["leaner"] == "leans one way"
    with pytest.raises(ValueError, match="leaner opponents take lean, not 'depth'"):
        load_opponent("leaner:depth=1")
    with pytest.raises(ValueError, match="known: .*leaner"):
        load_opponent("grandmaster")


# ------------------------------------------------------------------ ratings

def test_wilson_hand_computed():
    lo, hi = wilson(8, 10)                        # 0.8 with n = 10: [0.4902, 0.9433]
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    assert wilson(0, 0) == (0.0, 1.0)


def test_bradley_terry_hand_computed():
    # A beat B 3 times in 4: strength ratio 3, Elo difference 400 log10 3 = 190.85
    r = bradley_terry(np.array([[0, 3], [1, 0]]), prior=0)
    assert abs((r[0] - r[1]) - 190.85) < 0.1 and abs(r.mean()) < 1e-9
    # three players, consistent odds 2:1 each step -> equal spacing 400 log10 2 = 120.4
    w = np.array([[0, 2, 4], [1, 0, 2], [1, 2, 0]], dtype=float)
    w[2, 1], w[1, 2] = 1, 2
    r = bradley_terry(w, anchor=2, prior=0)
    assert abs(r[2]) < 1e-9 and abs(r[1] - 120.4) < 0.5 and abs(r[0] - 240.8) < 0.5
    # a clean sweep stays finite with the default prior
    assert np.isfinite(bradley_terry(np.array([[0, 5], [0, 0]]))).all()


def test_bootstrap_intervals():
    res = {(0, 1): [1] * 30 + [0] * 10}
    w = points_matrix(res, 2)
    assert w.tolist() == [[0, 30], [10, 0]]
    r = bradley_terry(w)
    lo, hi = bootstrap_ratings(res, 2, samples=300, seed=0)
    assert lo[0] < r[0] < hi[0] and lo[1] < r[1] < hi[1] and hi[1] < 0 < lo[0]
    lo2, hi2 = bootstrap_ratings(res, 2, samples=300, seed=0)
    assert (lo == lo2).all() and (hi == hi2).all()


# ------------------------------------------------------------------ the commands

def run(*cmd, cwd):
    return subprocess.run([sys.executable, *map(str, cmd)], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def test_evaluate_decks_and_agents_write_their_files(tmp_path, capsys):
    p = run(ROOT / "evaluate.py", "decks", "--decks", "ember-rush", "stone-bastion",
            "tide-scholars", "--games", "3", "--agent", "heuristic", "--workers", "2",
            "--bootstrap", "50", "--no-progress", "--out", tmp_path / "d", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rep = json.loads((tmp_path / "d" / "decks.json").read_text())
    assert rep["games"] == 3 * 3 * 2 and len(rep["ratings"]) == 3
    assert 0 <= rep["first_player_win_rate"]["rate"] <= 1 and rep["mean_turns"] > 0
    assert (tmp_path / "d" / "decks_heatmap.png").stat().st_size > 1000
    rows = (tmp_path / "d" / "decks_matrix.csv").read_text().splitlines()
    assert rows[0].startswith("row,column,games,score,low,high") and len(rows) == 1 + 6
    # same seed, one worker (in this process: the script's start-up was paid above): the
    # same results
    import evaluate
    evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "tide-scholars",
                   "--games", "3", "--workers", "1", "--bootstrap", "50", "--pilot",
                   "heuristic", "--no-progress", "--out", str(tmp_path / "d2")])
    assert json.loads((tmp_path / "d2" / "decks.json").read_text())["matrix"] == rep["matrix"]
    evaluate.main(["agents", "random", "heuristic", "--games", "4", "--decks", "ember-rush",
                   "--bootstrap", "50", "--no-progress", "--workers", "1",
                   "--out", str(tmp_path / "a")])
    rep = json.loads((tmp_path / "a" / "agents.json").read_text())
    assert [r["name"] for r in rep["ratings"]][-1] == "random" or rep["ratings"][0]["name"] == \
        "heuristic"
    assert "heuristic" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        evaluate.main(["agents", "random", "nobody"])
    assert e.value.code != 0 and "nobody" in str(e.value.code) + capsys.readouterr().err


torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")


def test_policy_files_for_another_layout_are_refused(tmp_path):
    from agents.policy import PolicyFileError, read_policy_file
    bad = tmp_path / "old.pt"
    torch.save({"format": "nivel-policy", "version": 2, "meta": {"layout_version": "0ld"},
                "network": {}, "state_dict": {}}, bad)
    with pytest.raises(PolicyFileError, match="observation layout '0ld'"):
        read_policy_file(bad)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a policy")
    with pytest.raises(PolicyFileError, match="junk.pt"):
        read_policy_file(junk)
    with pytest.raises(PolicyFileError, match="no such policy file"):
        read_policy_file(tmp_path / "missing.pt")


def test_shipped_policy_loads_and_obeys_the_mask():
    assert "nv1-ppo" in bundled_opponents()
    agent = load_opponent("nv1-ppo")
    assert agent.meta["layout_version"] and agent.meta["num_timesteps"] >= 1_000_000
    pos = positions(2, 13)
    enc = Encoder(pos[0].db)
    for g in pos:
        obs = enc.encode(g, g.current_player, g.legal_actions()).copy()
        assert agent.act(obs, masked(g)) in g.legal_actions()


def test_evaluate_agents_is_duplicate_play(tmp_path, capsys):
    """Each seed's deal (decks in their seats, shuffles, first player) is played twice with
    the agents exchanged: an agent against itself scores exactly 0.5, even a seeded random
    one, and the replays show the same deal with the players exchanged."""
    import evaluate
    evaluate.main(["agents", "heuristic", "heuristic", "random", "--games", "6", "--decks",
                   "ember-rush", "stone-bastion", "--bootstrap", "20", "--no-progress",
                   "--workers", "2", "--save-replays", str(tmp_path / "r"), "--out",
                   str(tmp_path / "a")])
    p = capsys.readouterr()
    rep = json.loads((tmp_path / "a" / "agents.json").read_text())
    assert rep["labels"] == ["heuristic", "heuristic#2", "random"]
    cell = {(r["row"], r["column"]): r for r in rep["matrix"]}
    assert cell[("heuristic", "heuristic#2")]["score"] == 0.5
    assert cell[("heuristic", "random")]["score"] > 0.5
    assert "duplicate" in p.out and "standard error" in p.out
    from nivel_env.replay import load_replay
    files = sorted((tmp_path / "r").glob("*.jsonl"))
    by_seed: dict = {}
    for f in files:
        r = load_replay(f)
        if sorted(r.header["players"]) == ["heuristic", "random"]:
            key = (r.header["seed"], json.dumps(r.header["decks"]))
            by_seed.setdefault(key, []).append(r)
    assert len(by_seed) >= 6
    for a, b in by_seed.values():
        assert a.header["decks"] == b.header["decks"]          # the same deal
        assert a.header["players"] == b.header["players"][::-1]  # agents exchanged
        assert a.games[0].first == b.games[0].first
        assert [a.games[0].card(i).id for i in a.games[0].deck[0]] == \
            [b.games[0].card(i).id for i in b.games[0].deck[0]]


def test_unique_labels():
    from nivel_env.tournaments.tables import unique_labels
    assert unique_labels(["runs/a/policy.pt", "runs/b/policy.pt", "heuristic"]) == \
        ["a/policy", "b/policy", "heuristic"]
    assert unique_labels(["x/p.pt", "y/x/p.pt"]) == ["x/p", "y/x/p"]
    assert unique_labels(["random", "random"]) == ["random", "random#2"]
    assert unique_labels(["nv1-ppo", "runs/nv1-ppo.pt"]) == ["nv1-ppo", "runs/nv1-ppo"]


def test_paired_score_intervals():
    from nivel_env.tournaments.ratings import paired_score
    self_play = paired_score([1] * 400)                    # every deal split 1-1
    assert self_play["score"] == 0.5 and self_play["low"] < 0.5 < self_play["high"]
    assert self_play["high"] - self_play["low"] < 0.01
    sweep = paired_score([2] * 10)
    assert sweep["score"] == 1.0 and sweep["low"] < 0.9 and sweep["high"] == 1.0
    rng = np.random.default_rng(0)
    mixed = paired_score(rng.choice([0, 1, 2], p=[0.2, 0.5, 0.3], size=2000))
    assert mixed["low"] < 0.55 < mixed["high"]


@pytest.mark.parametrize("extractor", ["CardSetExtractor", "PointerExtractor"])
def test_networks_read_the_added_card_columns_and_older_layouts_without_them(extractor):
    import torch as th
    from gymnasium import spaces

    from agents import network as N
    from nivel_env.env import card_features as cf
    from nivel_env.env.encoder import OBS_SIZE, OFFSETS, READABLE_LAYOUTS
    for size in sorted(READABLE_LAYOUTS.values()):
        net = getattr(N, extractor)(spaces.Box(-10, 10, (size,)))
        width = cf.WIDTH + (cf.ADDED_WIDTH if size == OBS_SIZE else 0)
        first = net.card if extractor == "PointerExtractor" else net.card[0]
        assert first.in_features == width
        obs = th.zeros(2, size)
        out = net(obs)
        assert out.shape[0] == 2 and th.isfinite(out).all()
        if size == OBS_SIZE:                 # an added column changes what the network sees
            obs[:, OFFSETS["cards_added"]] = 1.0
            obs[:, OFFSETS["cards"]] = 1.0   # the row is present
            assert not th.allclose(net(obs), out)


def test_one_rule_tells_a_bare_name_from_a_path():
    """Decks, policies and the Ray backend all ask ``nivel_env.paths.names_a_path``: a
    separator or the kind's suffix makes a path, anything else is a bundled name."""
    from agents.opponents import is_policy_path
    from nivel_env import paths
    from nivel_env.cards.deck import is_deck_path
    cases = ["ember-rush", "nv2-ppo", "./x", "a\\b", "x.deck", "x.pt", "x.pt:temperature=0.5",
             "nv2-ppo:temperature=0.5", "runs/a:b/policy.pt", "x.deck.bak", Path("x")]
    assert [is_deck_path(s) for s in cases] == [paths.names_a_path(s, ".deck") for s in cases]
    from agents.opponents import split_spec
    assert [is_policy_path(s) for s in cases] == \
        [paths.names_a_path(s if isinstance(s, Path) else split_spec(s)[0], ".pt")
         for s in cases]
    assert [is_policy_path(s) for s in cases] == \
        [False, False, True, True, False, True, True, False, True, False, True]
    # one rule, not copies of it: a change to the rule reaches every reader
    import pytest as _pytest
    with _pytest.MonkeyPatch.context() as mp:
        mp.setattr(paths, "SEPARATORS", ("/", "\\", "@"))
        assert is_deck_path("a@b") and is_policy_path("a@b:temperature=0.5")
    assert not is_deck_path("a@b") and not is_policy_path("a@b")


def _install_strings(path: Path) -> list:
    """The string literals of a module that are not docstrings, with their lines."""
    import ast
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_install_hints_come_from_one_place():
    """What to install is worded once (nivel_env.install_hints): playing a trained policy
    needs torch (the CPU pin), training the train extra with the pin first.  No other
    module of the project spells out an install command or sends players to the train
    extra (docstrings aside)."""
    from nivel_env import install_hints as H
    assert "pip install torch==2.13.0" in H.PLAY_POLICIES and "[train]" not in H.PLAY_POLICIES
    assert H.TRAIN.index("pip install torch==2.13.0 && ") < H.TRAIN.index('".[train]"')
    root = ROOT
    found = []
    for f in [*sorted((root / "nivel_env").rglob("*.py")), *sorted((root / "agents").rglob(
            "*.py")), root / "evaluate.py", root / "train.py"]:
        if f == root / "nivel_env" / "install_hints.py":
            continue
        for line, text in _install_strings(f):
            if any(w in text.lower() for w in ("pip install", "train extra",
                                                "training extra")):
                found.append(f"{f.relative_to(root)}:{line}: {text!r}")
    assert not found, "install hints outside nivel_env/install_hints.py:\n" + "\n".join(found)


def test_without_torch_every_way_to_a_policy_says_torch_plays_it():
    """With only the core install, the messages that ask for torch -- loading a policy,
    the terminal and browser games' opponent, the agents check, a deck command's pilot --
    all give the one play hint (torch with its CPU pin), none the train extra."""
    from nivel_env.install_hints import PLAY_POLICIES
    from blocked_imports import not_in_core, run_without
    script = (
        "from nivel_env.session import SetupError, load_opponent_named\n"
        "try:\n    load_opponent_named('nv2-ppo')\nexcept SetupError as e:\n"
        "    print('session:', e)\n"
        "from agents import load_opponent\n"
        "try:\n    load_opponent('nv2-search')\nexcept ImportError as e:\n"
        "    print('load:', e)\n"
        "from nivel_env.checks.runner import _game_readers\n"
        "print('check:', _game_readers(['nv2-search'], 0)[1])\n"
        "from nivel_env.tournaments.deck_commands import default_pilot\n"
        "print('pilot:', default_pilot()[1])\n")
    run = run_without(not_in_core(), ["-c", script], 120)
    assert run.returncode == 0, run.stderr[-2000:]
    said = dict(line.split(": ", 1) for line in run.stdout.splitlines())
    assert set(said) == {"session", "load", "check", "pilot"}, run.stdout
    for where, text in said.items():
        assert PLAY_POLICIES in text and "[train]" not in text, (where, text)


def _help(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    return " ".join(capsys.readouterr().out.split())         # argparse's wrapping undone


def test_the_help_texts_list_the_players_the_loaders_name(capsys):
    """``evaluate.py agents --help`` and ``play --help`` list ``players.names()`` (the
    bundled players, and one a loader adds), not names written into the help by hand."""
    import evaluate
    from nivel_env import players
    from nivel_env.__main__ import main as nivel_main

    class Extra:
        def __call__(self, spec, **kw):
            return None

        @staticmethod
        def names():
            return {"sparring-partner": "a loader's own player"}
    extra = players.register(Extra())
    try:
        for text in (_help(evaluate.main, ["agents", "--help"], capsys),
                     _help(nivel_main, ["play", "--help"], capsys)):
            for name in [*bundled_opponents(), "sparring-partner"]:
                assert name + "," in text or name + ")" in text, (name, text)
    finally:
        players.unregister(extra)


def test_the_help_texts_need_neither_torch_nor_sb3():
    """With only the core install the two helps still print every bundled name."""
    from blocked_imports import not_in_core, run_without
    script = ("import sys, evaluate\nfrom nivel_env.__main__ import main\n"
              "for f, a in ((evaluate.main, ['agents', '--help']), (main, ['play', '--help'])):"
              "\n    try:\n        f(a)\n    except SystemExit as e:\n"
              "        assert e.code == 0, e\n"
              "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules\n")
    run = run_without(not_in_core(), ["-c", script], 120)
    assert run.returncode == 0, run.stderr[-2000:]
    text = " ".join(run.stdout.split())
    for name in bundled_opponents():
        assert name + "," in text or name + ")" in text, (name, text)
