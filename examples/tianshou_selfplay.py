"""Masked DQN with Tianshou on the AEC environment, against a frozen opponent.

    pip install -e ".[tianshou]"
    python examples/tianshou_selfplay.py --epochs 20               # against random
    python examples/tianshou_selfplay.py --epochs 1 --quick        # a smoke run

How it fits together:

* Tianshou's ``PettingZooEnv`` reads this environment's observations as they are: it
  looks for ``observation`` and ``action_mask`` (the PettingZoo classic convention this
  environment follows) and hands its policies ``obs`` and ``mask``.  ``make_env`` is a
  plain function, so the vector environments can build copies of it.
* The learner is DQN over the observation vector; its policy adds the mask to the Q-values
  so an illegal move is never chosen, in exploration (epsilon-greedy among legal moves)
  as in play.  The other seat is Tianshou's masked random agent, frozen
  (``--seat`` picks where the learner sits).  Tianshou's multi-agent algorithm trains
  every learning algorithm it holds from its own seat's transitions; a frozen copy of the
  learner as the opponent (self-play) is the RLlib example's job.
* At the end the learner plays ``--eval-games`` games against the random agent (seats
  alternating, greedy) and the script prints its score with a 95% interval.

Scaling: ``--train-envs N`` steps N environments (``SubprocVectorEnv`` with ``--subproc``,
one process each); ``--device cuda`` trains on a GPU.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_env():
    """A Tianshou multi-agent environment around the AEC environment.  It passes on no
    ``info``: this environment's info names the pending decision, None once the game is
    over, and Tianshou's replay buffer rejects a None as a missing value."""
    from tianshou.env.pettingzoo_env import PettingZooEnv

    from nivel_env.env.aec import raw_env

    class NoInfo(PettingZooEnv):
        def reset(self, *args, **kwargs):
            return super().reset(*args, **kwargs)[0], {}

        def step(self, action):
            return super().step(action)[:4] + ({},)

    return NoInfo(raw_env())


def build(args):
    import torch
    from tianshou.algorithm import (DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm,
                                    MultiAgentOffPolicyAlgorithm)
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net
    env = make_env()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n),
              hidden_sizes=list(args.hidden)).to(args.device)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=args.eps, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=0.995,
                  n_step_return_horizon=3, target_update_freq=args.target_update)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = [learner, opponent] if args.seat == 0 else [opponent, learner]
    torch.manual_seed(args.seed)
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env), learner, env.agents


def greedy(learner, device: str):
    """act(observation, mask): the learner's best legal move."""
    import torch
    net = learner.policy.model

    def act(observation, mask):
        with torch.no_grad():
            q, _ = net(torch.as_tensor(observation[None], device=device))
        q = q[0].cpu().numpy()
        q[np.asarray(mask) == 0] = -np.inf
        return int(q.argmax())
    return act


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--epoch-steps", type=int, default=5000, help="env steps per epoch")
    ap.add_argument("--collect-steps", type=int, default=200,
                    help="env steps between updates")
    ap.add_argument("--updates-per-step", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--buffer", type=int, default=50_000)
    ap.add_argument("--train-envs", type=int, default=4)
    ap.add_argument("--subproc", action="store_true", help="one process per environment")
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--eps", type=float, default=0.1, help="exploration (legal moves only)")
    ap.add_argument("--target-update", type=int, default=500)
    ap.add_argument("--seat", type=int, choices=(0, 1), default=0)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda" if _cuda() else "cpu")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--quick", action="store_true", help="a smoke run: tiny everything")
    args = ap.parse_args(argv)
    if args.quick:
        args.epoch_steps, args.collect_steps, args.batch = 200, 100, 16
        args.train_envs, args.hidden, args.buffer = 2, [32], 2000
        args.eval_games = min(args.eval_games, 2)
    try:
        from tianshou.data import Collector, CollectStats, VectorReplayBuffer
        from tianshou.env import DummyVectorEnv, SubprocVectorEnv
        from tianshou.trainer import OffPolicyTrainerParams
    except ImportError:
        raise SystemExit("this example needs Tianshou: pip install -e '.[tianshou]'") from None
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import win_rate_vs_random
    algo, learner, agents = build(args)
    venv = SubprocVectorEnv if args.subproc else DummyVectorEnv
    train_envs = venv([make_env for _ in range(args.train_envs)])
    train_envs.seed(args.seed)
    collector = Collector[CollectStats](algo, train_envs,
                                        VectorReplayBuffer(args.buffer, len(train_envs)),
                                        exploration_noise=True)
    collector.reset()
    collector.collect(n_step=args.batch * args.train_envs)
    seat = args.seat
    t0 = time.perf_counter()
    stats = algo.run_training(OffPolicyTrainerParams(
        training_collector=collector, max_epochs=args.epochs,
        epoch_num_steps=args.epoch_steps, collection_step_num_env_steps=args.collect_steps,
        batch_size=args.batch, update_step_num_gradient_steps_per_sample=args.updates_per_step,
        multi_agent_return_reduction=lambda rews: rews[:, seat],
        show_progress=False, verbose=False))
    seconds = time.perf_counter() - t0
    steps = int(stats.train_step)                  # env steps collected while training
    learner.policy.model.eval()
    ev = win_rate_vs_random(greedy(learner, args.device), args.eval_games,
                            10_000 + args.seed)
    report = {"epochs": args.epochs, "env_steps": steps, "seconds": round(seconds, 1),
              "env_steps_per_s": round(steps / seconds, 1), "opponent": "random",
              "learner_seat_in_training": agents[seat], "vs_random": ev}
    print(json.dumps(report, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2))
    train_envs.close()
    return 0


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
