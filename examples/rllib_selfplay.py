"""Multi-agent PPO with RLlib on the AEC environment: self-play, or against a frozen
shipped opponent, with the action mask applied inside the network.

    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --iterations 50                   # self-play
    python examples/rllib_selfplay.py --opponent nv2-ppo --iterations 50
    python examples/rllib_selfplay.py --iterations 2 --quick            # a smoke run

How it fits together:

* ``make_env`` (a plain function, so Ray can pickle it to every env runner) builds the
  PettingZoo AEC environment and renames its observation keys to the ones RLlib's masking
  convention uses -- ``{"observations": vector, "action_mask": 0/1 floats}`` -- then wraps
  it in RLlib's ``PettingZooEnv`` (turn-based: only the player to act gets an observation).
* ``MaskedPPOModule`` is PPO's default torch module over ``observations`` with the mask
  added to its logits as log(mask) (0 for legal moves, a huge negative number for the
  rest), in sampling, in training and for the value function's input alike.
* ``FrozenAgentModule`` lets any shipped agent that reads observations (random, nv2-ppo, a
  policy file) play a seat; it is never trained.  Self-play maps both seats to the
  learning module; against a frozen opponent the learner takes seat 0 in each env
  runner's even episodes and seat 1 in its odd ones (``AlternateSeats``: counted, so the
  seats do not depend on PYTHONHASHSEED or the episodes' random ids).
* RLlib's environment checker is off: it steps random actions that ignore the mask, which
  this environment rejects as illegal.  The environment's own checks
  (``python -m nivel_env check``: API, mask, determinism, hidden information) cover it.

Scaling: ``--env-runners N`` samples on N processes (on a cluster, ``--address`` and
``ray start`` as in README.md's "Beyond one machine"); ``--gpus-per-learner 1`` puts the
learner on a GPU.  At the end the learner plays ``--eval-games`` games against the random
agent (seats alternating) and the script prints its win rate with a 95% interval.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

ENV_NAME = "nivel_arena_rllib"


# ------------------------------------------------------------------ the environment

def _keyed(env):
    """The AEC environment with RLlib's observation keys (the mask as floats)."""
    from pettingzoo.utils.wrappers import BaseWrapper

    class RLlibKeys(BaseWrapper):
        def observation_space(self, agent):
            base = self.env.observation_space(agent)
            n = base["action_mask"].shape[0]
            return gym.spaces.Dict({"observations": base["observation"],
                                    "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32)})

        def observe(self, agent):
            o = self.env.observe(agent)
            return {"observations": o["observation"],
                    "action_mask": o["action_mask"].astype(np.float32)}

    return RLlibKeys(env)


def make_env(config: dict | None = None):
    """RLlib's env creator: ``config`` may name ``decks`` (a list of two deck names)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from nivel_env.env.aec import raw_env
    config = dict(config or {})
    kw = {"decks": tuple(config["decks"])} if config.get("decks") else {}
    return PettingZooEnv(_keyed(raw_env(**kw)))


# ------------------------------------------------------------------ the modules

def _module_classes():
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule as PPOTorchRLModule)
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    floor = torch.finfo(torch.float32).min / 2

    def split(batch):
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = dict(batch)
            batch[Columns.OBS] = obs["observations"]
            batch["action_mask"] = obs["action_mask"]
        return batch

    def masked(out, mask):
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + \
            torch.clamp(torch.log(mask), min=floor)
        return out

    class MaskedPPOModule(PPOTorchRLModule):
        """PPO's default module over ``observations``, logits masked by ``action_mask``."""

        def __init__(self, *, observation_space=None, **kw):
            self.full_space = observation_space
            super().__init__(observation_space=observation_space["observations"], **kw)

        def setup(self):
            super().setup()
            self.observation_space = self.full_space

        def _forward_inference(self, batch, **kw):
            batch = split(batch)
            return masked(super()._forward_inference(batch, **kw), batch["action_mask"])

        def _forward_exploration(self, batch, **kw):
            batch = split(batch)
            return masked(super()._forward_exploration(batch, **kw), batch["action_mask"])

        def _forward_train(self, batch, **kw):
            batch = split(batch)
            return masked(super()._forward_train(batch, **kw), batch["action_mask"])

        def compute_values(self, batch, embeddings=None):
            return super().compute_values(split(batch), embeddings)

    class FrozenAgentModule(RLModule):
        """A shipped agent playing a seat (never trained): ``model_config["agent"]``."""

        def setup(self):
            from nivel_env import players
            self.agent = players.load(self.model_config.get("agent", "random"), seed=0)
            if players.reads_game(self.agent):
                raise ValueError(f"{self.model_config['agent']}: a search agent needs the "
                                 f"game, not an observation; pick a policy or random")

        def _forward(self, batch, **kw):
            obs = batch[Columns.OBS]
            x = obs["observations"].cpu().numpy()
            m = obs["action_mask"].cpu().numpy().astype(np.int8)
            from nivel_env.players import ask_batch
            acts = ask_batch(self.agent, x, m)            # the player protocol's one batch
            return {Columns.ACTIONS: torch.as_tensor(np.asarray(acts, dtype=np.int64))}

        def _forward_train(self, *a, **kw):
            raise NotImplementedError("the frozen opponent is not trained")

    return MaskedPPOModule, FrozenAgentModule


# ------------------------------------------------------------------ the algorithm

class AlternateSeats:
    """RLlib's ``policy_mapping_fn`` against a frozen opponent: the learner sits at seat 0
    in the first episode this env runner sees, seat 1 in the second, and so on.

    Episodes are told apart by their id, but the seat comes from a counter: the id is a
    random UUID, and ``hash()`` of it also changes with PYTHONHASHSEED, so
    ``hash(episode.id_) % 2`` gave neither alternation nor reproducible runs."""

    KEEP = 256                      # episodes remembered, least recently asked dropped

    def __init__(self):
        self.seats: dict = {}
        self.count = 0

    def learner_seat(self, episode) -> int:
        key = getattr(episode, "id_", None)
        if key is None:             # asked outside an episode (RLlib inferring spaces)
            return 0
        if key in self.seats:       # asked again: now the most recently asked
            seat = self.seats[key] = self.seats.pop(key)
            return seat
        seat = self.seats[key] = self.count % 2
        self.count += 1
        while len(self.seats) > self.KEEP:  # an episode under way is asked again long
            self.seats.pop(next(iter(self.seats)))  # before KEEP others start
        return seat

    def __call__(self, agent_id, episode=None, **kw) -> str:
        return "learner" if agent_id == f"player_{self.learner_seat(episode)}" else "frozen"


def build(args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env
    register_env(ENV_NAME, make_env)
    masked, frozen = _module_classes()
    specs = {"learner": RLModuleSpec(module_class=masked,
                                     model_config={"fcnet_hiddens": list(args.hidden),
                                                   "vf_share_layers": False})}
    if args.opponent:
        specs["frozen"] = RLModuleSpec(module_class=frozen,
                                       model_config={"agent": args.opponent})
        mapping = AlternateSeats()                # the learner takes both seats in turn
    else:
        def mapping(agent_id, episode, **kw):     # self-play: both seats learn
            return "learner"
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config={"decks": args.decks} if args.decks else {},
                     # the checker steps random actions that ignore the mask
                     disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1,
                     rollout_fragment_length="auto")
        .learners(num_learners=0, num_gpus_per_learner=args.gpus_per_learner)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping,
                     policies_to_train=["learner"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                  num_epochs=args.epochs, lr=args.lr, gamma=0.995, entropy_coeff=0.01)
        .debugging(seed=args.seed)
    )
    return config.build_algo()


# ------------------------------------------------------------------ evaluation

def masked_greedy(module):
    """An act(observation, mask) function from the learner module (its best legal move)."""
    import torch
    from ray.rllib.core.columns import Columns

    def act(observation, mask):
        with torch.no_grad():
            out = module.forward_inference({Columns.OBS: {
                "observations": torch.as_tensor(observation[None]),
                "action_mask": torch.as_tensor(mask[None].astype(np.float32))}})
        return int(out[Columns.ACTION_DIST_INPUTS][0].argmax())
    return act


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--opponent", help="a shipped agent that reads observations (random, "
                                       "nv2-ppo, a policy file) for seat 1; default: "
                                       "self-play")
    ap.add_argument("--decks", nargs=2, help="two deck names (default: random bundled ones)")
    ap.add_argument("--env-runners", type=int, default=1)
    ap.add_argument("--gpus-per-learner", type=float, default=0)
    ap.add_argument("--batch", type=int, default=4000, help="env steps per training batch")
    ap.add_argument("--minibatch", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--address", help="a running Ray cluster (default: a local instance)")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--quick", action="store_true",
                    help="tiny batches and no env runner processes: a smoke run")
    args = ap.parse_args(argv)
    if args.quick:
        args.batch, args.minibatch, args.epochs = 256, 128, 1
        args.env_runners, args.hidden = 0, [64]
        args.eval_games = min(args.eval_games, 4)
    try:
        import ray
    except ImportError:
        raise SystemExit("this example needs RLlib: pip install -e '.[rllib]'") from None
    ray.init(address=args.address or "local", include_dashboard=False,
             log_to_driver=False, **({} if args.address else {"num_cpus": max(
                 2, args.env_runners + 1)}))
    try:
        algo = build(args)
        t0 = time.perf_counter()
        steps = 0
        for i in range(args.iterations):
            res = algo.train()
            steps = res["env_runners"]["num_env_steps_sampled_lifetime"]
            ret = res["env_runners"].get("agent_episode_returns_mean", {})
            rate = steps / (time.perf_counter() - t0)
            print(f"iteration {i + 1}: {int(steps):,} env steps, {rate:.0f} steps/s, mean "
                  f"return " + ", ".join(f"{k} {float(v):+.2f}" for k, v in sorted(ret.items())),
                  flush=True)
        seconds = time.perf_counter() - t0
        module = algo.get_module("learner")
        from common import win_rate_vs_random
        ev = win_rate_vs_random(masked_greedy(module), args.eval_games, 10_000 + args.seed)
        report = {"iterations": args.iterations, "env_steps": int(steps),
                  "seconds": round(seconds, 1), "env_steps_per_s": round(steps / seconds, 1),
                  "opponent": args.opponent or "self-play", "vs_random": ev}
        print(json.dumps(report, indent=2))
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(json.dumps(report, indent=2))
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
