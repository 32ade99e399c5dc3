"""Balance sanity check of the bundled decks under uniform random play.

Plays every pair of bundled decks in "duplicate" fashion (each seed twice, seats
swapped, so shuffle luck cancels) and prints, as Markdown ready for
docs/balance.md: each deck's score against each other deck, its overall score
with a Wilson 95% interval, the first player's win rate and the mean game
length.  Random play measures what a deck does on its own -- stats, curve and
automatic effects -- not how well it can be piloted; the point is to catch a
deck or a seat that wins nearly always.

    python benchmarks/deck_balance.py --games 40 --seed 0      # ~1,100 games per minute

(``evaluate.py decks --agent random`` measures the same with ratings, all cores and
CSV/JSON/PNG output; this script prints the Markdown table of docs/balance.md.)
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import RandomAgent  # noqa: E402
from nivel_env.tournaments.arena import play_game  # noqa: E402
from nivel_env.tournaments.ratings import wilson  # noqa: E402
from nivel_env.cards import list_decks, load_card_db, load_deck  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="seeds per pair; each is played twice")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--decks", nargs="*", default=None, help="deck names or files (default: all bundled)")
    args = ap.parse_args(argv)
    db = load_card_db()
    names = args.decks or list_decks()
    decks = [load_deck(n, db) for n in names]
    k = len(decks)
    score = [[0.0] * k for _ in range(k)]
    count = [[0] * k for _ in range(k)]
    first_wins = first_games = turns = games = draws = 0
    agents = [RandomAgent(args.seed), RandomAgent(args.seed + 1)]
    t0 = time.perf_counter()
    for i, j in itertools.combinations(range(k), 2):
        for s in range(args.games):
            seed = args.seed * 1_000_003 + s
            for a, b in ((i, j), (j, i)):
                g = play_game(decks[a], decks[b], seed, agents)
                r, first, t = g.returns, g.first, g.turns
                score[a][b] += (r[0] + 1) / 2
                score[b][a] += (r[1] + 1) / 2
                count[a][b] += 1
                count[b][a] += 1
                games += 1
                turns += t
                draws += r[0] == 0
                if r[0] != 0:
                    first_games += 1
                    first_wins += r[first] > 0
    dt = time.perf_counter() - t0
    short = [d.name for d in decks]
    print(f"Random play, {games} games ({args.games} seeds per pair, seats swapped), "
          f"seed {args.seed}, card pool {db.version}, {dt:.0f} s\n")
    print("| deck | " + " | ".join(short) + " | overall [95% CI] |")
    print("|---" * (k + 2) + "|")
    for a in range(k):
        cells = ["—" if a == b else f"{score[a][b] / count[a][b]:.2f}" for b in range(k)]
        tot, n = sum(score[a]), sum(count[a])
        lo, hi = wilson(tot, n)
        print(f"| {short[a]} | " + " | ".join(cells) + f" | {tot / n:.3f} [{lo:.3f}, {hi:.3f}] |")
    lo, hi = wilson(first_wins, first_games)
    print(f"\nFirst player wins {first_wins / max(first_games, 1):.3f} [{lo:.3f}, {hi:.3f}] of "
          f"{first_games} decided games; {draws} draws; mean length {turns / games:.1f} turns.")


if __name__ == "__main__":
    main()
