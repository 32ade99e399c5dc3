"""Expert iteration (agents.distill): the search's games as samples, the fit, the round."""
import json

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import distill  # noqa: E402
from agents.opponents import policy_file  # noqa: E402


@pytest.fixture(scope="module")
def samples():
    from nivel_env.cards import load_deck
    agent = distill._search_agent(str(policy_file("nv2-ppo")), None,
                                  {"simulations": 8, "worlds": 2, "batch": 8}, seed=1)
    parts = []
    for seed in (11, 12):
        part = distill.play_search_game(agent, load_deck("ember-rush"), load_deck("tide-scholars"),
                                        seed, explore=4)
        part["game"] = np.full(len(part["player"]), seed)
        parts.append(part)
    return parts


def test_a_search_game_gives_one_sample_a_real_decision(samples):
    part = samples[0]
    n = len(part["player"])
    assert n > 10 and all(len(part[k]) == n for k in ("obs", "legal", "target", "outcome"))
    assert np.allclose(part["target"].sum(1), 1.0)
    assert not (part["target"] > 0)[~part["legal"]].any()      # visits only on legal moves
    assert (part["legal"].sum(1) > 1).all()                      # forced moves are no samples
    assert set(np.unique(part["outcome"])) <= {-1.0, 0.0, 1.0}
    # the outcome is the game's, from each sample's player's side
    p0 = part["outcome"][part["player"] == 0]
    p1 = part["outcome"][part["player"] == 1]
    assert len(set(p0)) == 1 and len(set(p1)) == 1 and p0[0] == -p1[0]


def test_the_held_out_games_are_whole_and_the_same_in_every_round():
    games = np.repeat(np.arange(1000, 3000), 3)
    held = distill.held_out(games)
    assert 0.05 < held.mean() < 0.15
    assert (held.reshape(-1, 3).all(1) == held.reshape(-1, 3).any(1)).all()
    assert (distill.held_out(games[::-1]) == held[::-1]).all()


def test_the_fit_lowers_the_held_out_loss_and_keeps_the_best_weights(samples):
    from agents.policy import read_policy_file
    data = {k: np.concatenate([p[k] for p in samples]) for k in samples[0]}
    policy, _ = read_policy_file(policy_file("nv2-ppo"))
    data["target"] = distill.search_targets(data, "best")
    assert (data["target"].sum(1) == 1).all() and (data["target"].max(1) == 1).all()
    fit = distill.fit_policy(policy, data, epochs=2, lr=3e-4, log=lambda *_: None)
    b, p, a = fit["before"], fit["policy_stage"], fit["after"]
    assert p["cross_entropy"] + 0.25 * p["value_mse"] <= b["cross_entropy"] + 0.25 * b["value_mse"]
    assert a["value_mse"] <= p["value_mse"]                       # the critic's own stage
    assert a["cross_entropy"] == pytest.approx(p["cross_entropy"], rel=1e-6)   # actor untouched
    assert not any(q.requires_grad for q in policy.parameters())
    again = distill.evaluate_fit(policy, data, np.flatnonzero(data["game"] == 12))
    assert again["cross_entropy"] == pytest.approx(a["cross_entropy"], rel=1e-5)


def test_the_critic_starts_from_the_shipped_value_head():
    import torch as th

    from agents.opponents import VALUE_DIR
    from agents.policy import read_policy_file
    from agents.value import load_value_head
    policy, _ = read_policy_file(policy_file("nv2-ppo"))
    head = load_value_head(VALUE_DIR / "nv2-ppo.pt")
    assert distill.critic_from_head(policy, head)
    x = th.randn(3, head.width)
    assert th.allclose(policy.value_net(x).squeeze(1), head(x))


def test_a_round_writes_a_policy_every_command_loads(tmp_path):
    from agents.policy import PolicyAgent
    out = tmp_path / "run"
    assert distill.main(["--games", "2", "--simulations", "4", "--worlds", "1", "--batch", "4",
                         "--block", "1", "--eval-games", "0", "--epochs", "1", "--out",
                         str(out), "--no-progress"]) == 0
    rounds = json.loads((out / "rounds.json").read_text())
    assert rounds[0]["samples"] > 0 and rounds[0]["fit"]["train_samples"] > 0
    agent = PolicyAgent(rounds[0]["policy"])
    assert agent.meta["trained_by"] == "agents.distill" and agent.n_obs == 9519


def test_bad_settings_are_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        distill.main(["--games", "0"])
    assert "--games" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--policy"):
        distill.main(["--policy", "no-such-policy", "--games", "1"])


def test_the_gumbel_root_gives_its_improved_policy_as_a_target():
    from nivel_env.cards import load_deck
    agent = distill._search_agent(str(policy_file("nv2-ppo")), None,
                                  {"simulations": 16, "worlds": 2, "batch": 8,
                                   "root": "gumbel"}, seed=2)
    part = distill.play_search_game(agent, load_deck("gale-runners"), load_deck("anvil-guild"),
                                    21, explore=4)
    better = distill.search_targets(part, "improved")
    assert np.allclose(better.sum(1), 1.0, atol=1e-5)
    assert not (better > 0)[~part["legal"]].any() and (better > 0)[part["legal"]].all()


def test_the_improved_target_needs_the_gumbel_root(samples, capsys):
    with pytest.raises(ValueError, match="Gumbel root"):
        distill.search_targets(samples[0], "improved")
    with pytest.raises(SystemExit):
        distill.parse_args(["--target", "improved"])
    assert "--root gumbel" in capsys.readouterr().err
    assert distill.parse_args(["--root", "gumbel"]).target == "improved"
    assert distill.parse_args([]).target == "best"
