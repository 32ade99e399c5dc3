"""Opponents by name with settings, the difficulty ladder, and search value heads."""
import subprocess
import sys

import pytest

from agents import HeuristicAgent, RandomAgent, load_opponent
from agents.opponents import LEVELS, SEARCHES, bundled_opponents, split_spec


def test_settings_split_only_where_they_read_as_settings():
    assert split_spec("nv2-search:simulations=64,worlds=4") == \
        ("nv2-search", {"simulations": "64", "worlds": "4"})
    assert split_spec("heuristic") == ("heuristic", {})
    assert split_spec("C:/runs/x/policy.pt") == ("C:/runs/x/policy.pt", {})
    assert split_spec("runs/a:b/policy.pt:temperature=0.5") == \
        ("runs/a:b/policy.pt", {"temperature": "0.5"})


def test_heuristic_settings_and_bad_settings_name_the_fault():
    a = load_opponent("heuristic:random_share=0.5", seed=1)
    assert isinstance(a, HeuristicAgent) and a.random_share == 0.5
    with pytest.raises(ValueError, match="heuristic opponents take random_share, not 'depth'"):
        load_opponent("heuristic:depth=3")
    with pytest.raises(ValueError, match="random_share must be float"):
        load_opponent("heuristic:random_share=lots")
    with pytest.raises(ValueError, match=r"random_share must be in \[0, 1\]"):
        load_opponent("heuristic:random_share=2")
    with pytest.raises(ValueError, match="known: .*novice"):
        load_opponent("grandmaster")


def test_a_random_share_heuristic_plays_legal_moves_and_is_weaker():
    from nivel_env.tournaments.arena import head_to_head
    from nivel_env.cards import load_deck
    decks = [load_deck("ember-rush"), load_deck("stone-bastion")]
    r = head_to_head(load_opponent("heuristic", seed=1),
                     load_opponent("heuristic:random_share=0.5", seed=2), decks, games=6)
    assert r["games"] == 12 and r["score"] > 0.5


def test_every_level_and_search_name_is_bundled():
    names = bundled_opponents()
    for level in LEVELS:
        assert level in names
    for name in SEARCHES:
        assert name in names


def test_the_ladder_levels_load():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents.policy import PolicyAgent
    from agents.search import SearchAgent
    agents = {level: load_opponent(level, seed=0) for level in LEVELS}
    assert isinstance(agents["novice"], RandomAgent)
    assert isinstance(agents["casual"], HeuristicAgent) and agents["casual"].random_share > 0
    assert isinstance(agents["strong"], PolicyAgent) and agents["strong"].temperature == 0
    assert isinstance(agents["expert"], SearchAgent) and agents["expert"].root == "gumbel"
    assert agents["expert"].value is not None           # the value head fit for nv2-ppo


def test_policy_and_search_settings():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents.search import SearchAgent
    p = load_opponent("nv2-ppo:temperature=0.5")
    assert p.temperature == 0.5 and p.random_share == 0
    s = load_opponent("nv2-search:simulations=8,worlds=2", seed=3)
    assert isinstance(s, SearchAgent) and (s.simulations, s.worlds) == (8, 2)
    f = load_opponent("agents/policies/nv1-ppo.pt:simulations=4")      # any policy file
    assert isinstance(f, SearchAgent) and f.value is None               # its own critic
    with pytest.raises(ValueError, match="search opponents take .*not 'depth'"):
        load_opponent("nv2-search:depth=2")
    deep = load_opponent("nv2-search-deep", seed=0)
    assert (deep.simulations, deep.batch, deep.worlds) == (512, 64, 4) and deep.value is not None
    gumbel = load_opponent("nv2-gumbel", seed=0)
    assert gumbel.root == "gumbel" and deep.root == "puct"
    assert (gumbel.simulations, gumbel.batch, gumbel.worlds) == (512, 64, 4)


def test_a_value_head_refuses_another_policy_and_a_bad_file(tmp_path):
    pytest.importorskip("torch")
    from agents.opponents import POLICY_DIR, VALUE_DIR
    from agents.value import ValueFileError, load_value_head
    head = load_value_head(VALUE_DIR / "nv2-ppo.pt", POLICY_DIR / "nv2-ppo.pt")
    assert head.width > 0
    with pytest.raises(ValueFileError, match="fit to another policy"):
        load_value_head(VALUE_DIR / "nv2-ppo.pt", POLICY_DIR / "nv1-ppo.pt")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a value head")
    with pytest.raises(ValueFileError, match="bad.pt: not a readable value-head file"):
        load_value_head(bad)


def test_value_fit_runs_end_to_end_on_a_few_games(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents.value import load_value_head
    from agents.value_fit import main
    out = tmp_path / "v.pt"
    assert main(["--policy", "nv1-ppo", "--games", "20", "--epochs", "2", "--out", str(out),
                 "--no-progress"]) == 0
    head = load_value_head(out, "agents/policies/nv1-ppo.pt")
    assert head.meta["games"] == 20 and head.meta["positions"] > 100
    s = load_opponent("nv1-ppo:simulations=8,worlds=2", seed=0)
    s_with = type(s)(load_opponent("nv1-ppo"), simulations=8, worlds=2, value=out,
                     policy_path="agents/policies/nv1-ppo.pt", seed=0)
    assert s_with.value is not None


def test_play_takes_a_level():
    r = subprocess.run([sys.executable, "-m", "nivel_env", "play", "--level", "novice",
                        "--seed", "3", "--seat", "0"], input="quit\n", capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "AI (novice)" in r.stdout and "Game over: you lose — you surrendered" in r.stdout
    r = subprocess.run([sys.executable, "-m", "nivel_env", "play", "--level", "wizard"],
                       input="", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "wizard" in r.stderr


def test_evaluate_takes_settings_and_search_agents(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    import evaluate
    rep = evaluate.main(["agents", "casual", "nv2-search:simulations=4,worlds=2",
                         "--games", "1", "--workers", "1", "--no-progress", "--decks",
                         "ember-rush", "--out", str(tmp_path)])
    assert rep == 0
    assert (tmp_path / "agents.json").is_file()
