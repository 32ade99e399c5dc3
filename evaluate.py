"""Deck strength under random play (a first benchmark; agent tournaments come later).

Plays every game twice with the same seed and the seats swapped ("duplicate" play,
which cancels shuffle luck) and prints each deck's win rate with a Wilson 95% interval.

    python evaluate.py --decks ember-rush stone-bastion --games 200 --seed 0
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from agents import RandomAgent
from nivel_env.cards import load_deck
from nivel_env.engine import N_ACTIONS, new_game


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def play(d0, d1, seed: int, agents):
    """One game between two agents (seat 0 plays d0); returns the finished game."""
    g = new_game(d0, d1, seed=seed)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    while not g.is_terminal():
        mask[:] = 0
        mask[g.legal_actions()] = 1
        g.apply_action(agents[g.current_player].act(None, mask))
    return g


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", nargs=2, default=["ember-rush", "stone-bastion"])
    ap.add_argument("--games", type=int, default=200, help="seeds; each is played twice")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    a, b = load_deck(args.decks[0]), load_deck(args.decks[1])
    agents = [RandomAgent(args.seed), RandomAgent(args.seed + 1)]
    score_a = draws = 0.0
    n = 0
    for i in range(args.games):
        seed = args.seed * 1_000_003 + i
        for swap in (False, True):
            r = (play(b, a, seed, agents) if swap else play(a, b, seed, agents)).returns()
            ra = r[1] if swap else r[0]
            score_a += (ra + 1) / 2
            draws += r == (0, 0)
            n += 1
    lo, hi = wilson(score_a, n)
    print(f"{a.name} vs {b.name}: {n} games (duplicate, random play)")
    print(f"  {a.name} score {score_a / n:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  draws {int(draws)}")


if __name__ == "__main__":
    main()
