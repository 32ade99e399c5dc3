"""train.py: what it shows while it runs, what it logs and exports, its evaluations.

The fast tier trains only in this process and for one rollout of two games (a few
seconds); the long runs (--quick, worker processes, evaluation in worker processes) are in
the slow tier."""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import HeuristicAgent, load_opponent  # noqa: E402
from nivel_env.tournaments.arena import play_game  # noqa: E402
from nivel_env.cards import list_decks, load_deck  # noqa: E402
from nivel_env.engine import N_ACTIONS, new_game  # noqa: E402
from nivel_env.env.encoder import Encoder  # noqa: E402
from conftest import ROOT  # noqa: E402

TRAIN = ROOT / "train.py"


def train_module():
    """train.py as a module (it is a script, not part of a package)."""
    spec = importlib.util.spec_from_file_location("train_script", TRAIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def train_here(*argv) -> tuple[int, str, str]:
    """train.py's main in this process (no interpreter and torch start-up): (code,
    stdout, stderr)."""
    torch.set_num_threads(1)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = train_module().main([str(a) for a in argv] + ["--threads", "1"])
        except SystemExit as e:                       # refused by the argument parser
            code = e.code
    return code, out.getvalue(), err.getvalue()


def run(*args, cwd=None):
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=900)


def scalars(tb: Path) -> dict:
    """TensorBoard scalars of a run: tag -> [(step, value)]."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    found: dict = {}
    for d in sorted(p for p in tb.iterdir() if p.is_dir()):
        ea = EventAccumulator(str(d))
        ea.Reload()
        for tag in ea.Tags()["scalars"]:
            found.setdefault(tag, []).extend((e.step, e.value) for e in ea.Scalars(tag))
    return found


def legal_position():
    g = new_game(load_deck(list_decks()[0]), load_deck(list_decks()[1]), seed=5)
    for _ in range(12):
        g.apply_action(g.legal_actions()[0])
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[g.legal_actions()] = 1
    return g, Encoder(g.db).encode(g, g.current_player, g.legal_actions()).copy(), mask


# ------------------------------------------------------------------ the progress bar
def test_train_bar_counts_to_the_time_limit_when_it_stops_the_run():
    from agents.train_progress import RunBar, RunClock
    # a 10-minute run with the 6,000,000-step default, at 300 steps/s: time stops it
    clk = RunClock(6_000_000, 0, time_limit=600)
    p = clk.at(18_000, 60.0)
    assert p.by == "time" and p.fraction == pytest.approx(0.1) and p.eta == pytest.approx(540)
    f = io.StringIO()
    bar = RunBar(clk, file=f, start=0.0)
    bar.update(18_000, 60.0, force=True)
    bar.close()
    line = f.getvalue().split("\r")[-1]
    assert " 10%|" in line and "0:01:00 < 0:09:00" in line, line
    assert "--time-limit 0:10:00" in line and "18,000 steps" in line
    # past the limit the rollout under way is finished: said so, not a negative time
    assert clk.at(180_000, 610.0).fraction == 1.0
    # steps stop it first: the bar counts steps and the ETA is the steps' (a resumed run
    # counts from where it started)
    p = RunClock(20_000, 10_000, time_limit=3600).at(15_000, 50.0)
    assert p.by == "steps" and p.fraction == pytest.approx(0.5) and p.eta == pytest.approx(50)
    p = RunClock(1000, 0).at(0, 0.0)
    assert p.by == "steps" and p.eta == float("inf")


def test_train_eval_every_takes_steps_or_a_time():
    mod = train_module()
    assert mod.parse_args(["--eval-every", "5m"])[1].eval_every == ("seconds", 300)
    assert mod.parse_args(["--eval-every", "90s"])[1].eval_every == ("seconds", 90)
    assert mod.parse_args(["--eval-every", "1.5h"])[1].eval_every == ("seconds", 5400)
    assert mod.parse_args(["--eval-every", "250000"])[1].eval_every == ("steps", 250_000)
    assert mod.parse_args([])[1].eval_every == ("steps", 500_000)
    assert mod.parse_args(["--quick"])[1].eval_every == ("steps", 4096)
    assert mod.parse_args(["--quick", "--eval-every", "2m"])[1].eval_every == ("seconds", 120)
    for bad in ("5x", "0", "-3m", "m", "1e6", "infm"):
        with pytest.raises(SystemExit):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                mod.parse_args([f"--eval-every={bad}"])
        assert "--eval-every" in err.getvalue() and "90s" in err.getvalue()


def test_an_interval_by_time_comes_round_by_the_clock_not_the_steps():
    from agents.train_progress import Every
    e = Every(("seconds", 300), steps=0, now=1000.0)
    assert not e.due(10**9, 1299.0) and e.due(64, 1300.0)
    e.done(64, 1310.0)                       # the evaluation took 10 s: 5 min from its end
    assert not e.due(128, 1609.0) and e.due(128, 1610.0)
    s = Every(("steps", 500), steps=1000, now=0.0)       # a resumed run: from its steps
    assert not s.due(1499, 10**9) and s.due(1500, 0.0)
    s.done(2100, 0.0)                        # past several: the next one, in phase
    assert not s.due(2499, 0.0) and s.due(2500, 0.0)


# ------------------------------------------------------------------ one tiny run
ENVS, N_STEPS = 2, 64                   # --quick's rollout: 64 steps a game slot


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One rollout of two games (--time-limit runs out at once), the bar on, evaluations
    every hour (none before the end), a final evaluation of one deal."""
    out = tmp_path_factory.mktemp("tiny") / "run"
    code, stdout, stderr = train_here("--quick", "--envs", ENVS, "--time-limit", "0.00001",
                                      "--eval-every", "1h", "--eval-games", "1",
                                      "--final-games", "1", "--out", out)
    assert code == 0, stderr[-3000:]
    return {"out": out, "stdout": stdout, "stderr": stderr,
            "report": json.loads((out / "train.json").read_text())}


def test_train_tiny_run_exports_a_loadable_policy(tiny):
    assert "device: cpu" in tiny["stdout"] or "device: cuda" in tiny["stdout"]
    assert tiny["report"]["device"]
    agent = load_opponent(tiny["out"] / "policy.pt")
    assert agent.meta["num_timesteps"] == tiny["report"]["total_steps"]
    assert set(agent.meta["eval"]) == {"heuristic", "random"}
    g, obs, mask = legal_position()
    assert agent.act(obs, mask) in g.legal_actions()
    # a second run into the same folder is refused unless told what to do
    code, _, err = train_here("--quick", "--out", tiny["out"], "--no-progress")
    assert code == 2 and "already holds a run" in err
    assert "--force" in err and "--resume" in err


def test_train_time_limit_finishes_the_rollout_under_way_and_trains_it(tiny):
    rep = tiny["report"]
    # the limit ran out on the first step; the rollout was played to its end and trained
    assert rep["stopped_by_time_limit"] and rep["time_limit_ran_out_at"] == ENVS
    assert rep["total_steps"] == ENVS * N_STEPS and rep["untrained_steps"] == 0
    assert "finished and trained" in tiny["stdout"] and "0 untrained" in tiny["stdout"]
    tb = scalars(tiny["out"] / "tb")
    assert [s for s, _ in tb["train/loss"]] == [ENVS * N_STEPS]      # its update, logged
    assert tiny["report"]["time_shares"]["update"] > 0
    assert tiny["report"]["time_shares"]["learner_inference"] > 0      # the forward hooks


def test_the_learner_forward_timer_counts_forwards_and_leaves_no_hook_behind():
    from agents.training import ForwardTimer
    net = torch.nn.Linear(4, 2)
    timer = ForwardTimer(net)
    net(torch.zeros(3, 4))
    assert timer.seconds > 0
    timer.remove()
    spent = timer.seconds
    net(torch.zeros(3, 4))
    assert timer.seconds == spent and not net._forward_hooks and not net._forward_pre_hooks


def test_train_logs_episode_statistics_and_a_final_evaluation_point(tiny):
    tb = scalars(tiny["out"] / "tb")
    # SB3's episode statistics, from the learner's games (a game is +1, -1 or 0)
    assert tb["rollout/ep_rew_mean"] and tb["rollout/ep_len_mean"]
    assert all(-1 <= v <= 1 for _, v in tb["rollout/ep_rew_mean"])
    assert all(v >= 1 for _, v in tb["rollout/ep_len_mean"])
    # a run shorter than --eval-every still has its evaluation point: the final one
    end = tiny["report"]["total_steps"]
    for name in ("heuristic", "random"):
        assert [s for s, _ in tb[f"eval/win_rate_vs_{name}"]] == [end]
    curve = tiny["report"]["eval_curve"]
    assert {c["opponent"] for c in curve} == {"heuristic", "random"}
    assert all(c["final"] and c["steps"] == end and c["low"] <= c["score"] <= c["high"]
               for c in curve)


def test_train_final_evaluation_is_batched_paired_and_shown(tiny):
    fin = tiny["report"]["final_eval"]
    for name in ("heuristic", "random"):
        r = fin[name]
        assert r["games"] == 2 and r["deals"] == 1
        assert r["wins"] + r["losses"] + r["draws"] == 2
        assert r["low"] <= r["score"] <= r["high"]
    assert "paired 95% interval" in tiny["stdout"] and "seats swapped" in tiny["stdout"]
    assert tiny["report"]["final_eval_processes"] == 1          # one deal: this process
    # its own bar, and the training bar counted to the time limit, not the steps
    assert "final evaluation" in tiny["stderr"]
    assert "--time-limit 0:00:00" in tiny["stderr"] and "6,000,000" not in tiny["stderr"]


def test_train_with_the_card_set_network(tmp_path):
    code, out, err = train_here("--quick", "--envs", 2, "--net", "card_set", "--time-limit",
                                "0.00001", "--final-games", "1", "--out", tmp_path / "run",
                                "--no-progress")
    assert code == 0, err[-3000:]
    rep = json.loads((tmp_path / "run" / "train.json").read_text())
    assert rep["network"] == "card_set" and rep["total_steps"] == 2 * N_STEPS
    agent = load_opponent(tmp_path / "run" / "policy.pt")
    g, obs, mask = legal_position()
    assert agent.act(obs, mask) in g.legal_actions()
    code, _, err = train_here("--quick", "--envs", 5, "--workers", 2, "--out",
                              tmp_path / "other")
    assert code == 2 and "multiple of --workers" in err


# ------------------------------------------------------------------ the evaluation
def test_policy_against_itself_in_duplicate_deals_scores_exactly_half():
    """Each deal is played twice with the seats swapped: a greedy policy against itself
    wins one game of each deal, and the paired interval sees no spread."""
    from nivel_env.tournaments.policy_eval import evaluate_policy
    decks = [load_deck(n) for n in list_decks()]
    me = load_opponent("nv2-ppo")
    r = evaluate_policy(me, {"itself": "nv2-ppo"}, decks, 3, seed=1)["itself"]
    assert r["games"] == 6 and r["deals"] == 3 and r["score"] == 0.5
    assert r["wins"] == 3 and r["se_paired"] == 0 and r["low"] < 0.5 < r["high"]


def test_lockstep_against_an_opponent_plays_the_games_play_game_plays():
    """The batched evaluation plays, deal for deal and move for move, what
    arena.play_game plays with the same agents, each seat's generator seeded as
    policy_eval seeds it."""
    from nivel_env.tournaments.lockstep import play_lockstep
    from nivel_env.tournaments.policy_eval import deals
    decks = [load_deck(n) for n in list_decks()]
    me, opp = load_opponent("nv2-ppo"), HeuristicAgent(0)
    plan = deals(decks, 3, seed=4)
    games, seats, rngs = [], [], []
    for d0, d1, s in plan:
        for seat in (0, 1):
            games.append((d0, d1, s, False))
            seats.append(seat)
            rngs.append([np.random.default_rng(s * 2 + p) for p in (0, 1)])
    batched = play_lockstep(me, games, rngs, record=True, seats=seats, opponent=opp)
    for (d0, d1, s, _), seat, (r, actions, _) in zip(games, seats, batched):
        opp.rng = np.random.default_rng(s * 2 + 1 - seat)
        agents = (me, opp) if seat == 0 else (opp, me)
        record: list = []
        alone = play_game(d0, d1, s, agents, record=record)
        assert (alone.returns, record) == (r.returns, actions)
    with pytest.raises(ValueError, match="together"):
        play_lockstep(me, games, rngs, seats=seats)


# ------------------------------------------------------------------ the slow tier
@pytest.mark.slow
def test_train_with_worker_processes_and_the_card_set_network(tmp_path):
    """Games in two worker processes (shared memory); the time shares are reported."""
    p = run(TRAIN, "--quick", "--total-steps", "512", "--envs", "4", "--workers",
            "2", "--net", "card_set", "--final-games", "1", "--out", tmp_path / "run",
            "--no-progress", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    rep = json.loads((tmp_path / "run" / "train.json").read_text())
    assert rep["workers"] == 2 and rep["network"] == "card_set" and rep["total_steps"] >= 512
    shares = rep["time_shares"]
    assert {"env", "opponent_inference", "learner_inference", "update",
            "waiting_on_workers"} <= set(shares) and shares["env"] > 0
    assert rep["final_eval"]["random"]["games"] == 2
    assert load_opponent(tmp_path / "run" / "policy.pt").meta["num_timesteps"] >= 512


@pytest.mark.slow
def test_final_evaluation_in_worker_processes_equals_this_process(tmp_path):
    """Results depend on the seeds only: worker processes reading the policy file play
    the same games as this process playing the policy it loaded from that file."""
    from agents.policy import PolicyAgent
    from nivel_env.tournaments.policy_eval import evaluate_policy
    names = list_decks()
    decks = [load_deck(n) for n in names]
    path = ROOT / "agents" / "policies" / "nv2-ppo.pt"
    me = PolicyAgent(path)
    opponents = {"heuristic": "heuristic", "random": "random"}
    here = evaluate_policy(me, opponents, decks, 40, seed=3)
    there = evaluate_policy(me, opponents, decks, 40, seed=3, workers=2, policy_file=path,
                            deck_specs=names)
    assert here == there


@pytest.mark.slow
def test_train_quick_runs_and_its_policy_loads_as_an_opponent(tmp_path):
    p = run(TRAIN, "--quick", "--out", tmp_path / "run", "--no-progress", "--eval-every", "3s",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    rep = json.loads((tmp_path / "run" / "train.json").read_text())
    # evaluations by the clock, each at its own step in TensorBoard, then the final one
    points = [c for c in rep["eval_curve"] if c["opponent"] == "heuristic"]
    assert len(points) >= 2 and points[-1]["final"]
    assert all(b["seconds"] - a["seconds"] >= 3 for a, b in zip(points, points[1:-1]))
    tb = [s for s, _ in scalars(tmp_path / "run" / "tb")["eval/win_rate_vs_heuristic"]]
    assert tb == [c["steps"] for c in points]
    assert rep["total_steps"] >= 8192 and rep["steps_per_second"] > 0
    assert rep["network"] == "pointer" and sum(rep["time_shares"].values()) <= 1.01
    assert list((tmp_path / "run" / "checkpoints").glob("model_*.zip"))
    assert list((tmp_path / "run" / "snapshots").glob("*.pt"))
    assert list((tmp_path / "run" / "tb").iterdir())
    assert rep["final_eval"]["heuristic"]["games"] == 16
    policy = tmp_path / "run" / "policy.pt"
    agent = load_opponent(policy)
    assert agent.meta["command"].startswith("python train.py --quick")
    g, obs, mask = legal_position()
    assert agent.act(obs, mask) in g.legal_actions()
    easy = load_opponent(policy, difficulty="easy", seed=0)
    assert easy.random_share == 0.3 and easy.temperature == 1.0
    # --resume continues from the last checkpoint
    p = run(TRAIN, "--quick", "--total-steps", "12000", "--resume", "--out",
            tmp_path / "run", "--no-progress", cwd=tmp_path)
    assert p.returncode == 0 and "resuming from" in p.stdout, p.stderr[-3000:]
    assert json.loads((tmp_path / "run" / "train.json").read_text())["total_steps"] >= 12000
