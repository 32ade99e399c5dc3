"""Environment speed: random masked play through the PettingZoo AEC API.

Every step builds the observation and the mask (``env.last()``), picks a uniform
legal action and calls ``env.step``.  Prints steps/s for ``raw_env`` and for
``env()`` (PettingZoo's checking wrappers), and, where ``pettingzoo[classic]`` is
installed, the same loop over ``texas_holdem_v4`` in this process, with the ratio.
Run it pinned to one core for comparable figures (``taskset -c 0 python ...``); each
figure is the best of ``--repeat`` interleaved runs, as timeit does on a noisy machine.
Targets: >= 10,000 steps/s on one core, >= 3x texas_holdem_v4.
"""
from __future__ import annotations

import argparse
import random
import time
from nivel_env.engine.backend import resolve_backend


def run(make, steps: int, seed: int = 0) -> tuple[float, int]:
    """Steps/s of random masked play over ``steps`` live steps (whole games)."""
    e = make()
    r = random.Random(seed)
    e.reset(seed=seed)
    n = games = 0
    t0 = time.perf_counter()
    while n < steps:
        for agent in e.agent_iter():
            obs, _rew, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[r.randrange(len(legal))]))
            n += 1
        games += 1
        e.reset()
    return n / (time.perf_counter() - t0), games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40_000, help="live steps per run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per environment (best kept)")
    ap.add_argument("--decks", nargs=2, default=["ember-rush", "stone-bastion"])
    args = ap.parse_args()
    from nivel_env import env, raw_env
    kw = {"decks": tuple(args.decks)}
    makers = {"nivel_arena_v0 raw_env": lambda: raw_env(**kw),
              "nivel_arena_v0 env()": lambda: env(**kw)}
    try:
        from pettingzoo.classic import texas_holdem_v4
    except Exception as exc:                      # rlcard missing: pettingzoo[classic]
        print(f"texas_holdem_v4 not available ({exc}); pip install -e '.[bench]'")
    else:
        makers["texas_holdem_v4 raw_env"] = texas_holdem_v4.raw_env
        makers["texas_holdem_v4 env()"] = texas_holdem_v4.env
    best = {name: (0.0, 0) for name in makers}
    for _ in range(args.repeat):
        for name, make in makers.items():
            sps, games = run(make, args.steps)
            if sps > best[name][0]:
                best[name] = (sps, games)
    print(f"engine: {resolve_backend()} (NIVEL_BACKEND=python or native picks one)")
    print(f"{'environment':28s} {'steps/s':>10s} {'µs/step':>8s} {'games':>7s}")
    for name, (sps, games) in best.items():
        print(f"{name:28s} {sps:10,.0f} {1e6 / sps:8.1f} {games:7d}")
    if "texas_holdem_v4 env()" in best:
        print(f"ratio env() / texas env():         "
              f"{best['nivel_arena_v0 env()'][0] / best['texas_holdem_v4 env()'][0]:.1f}x")
        print(f"ratio raw_env / texas raw_env:     "
              f"{best['nivel_arena_v0 raw_env'][0] / best['texas_holdem_v4 raw_env'][0]:.1f}x")


if __name__ == "__main__":
    main()
