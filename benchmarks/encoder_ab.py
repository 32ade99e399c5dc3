"""Encoder speed of two source trees, A/B in one process: CPU time per ``Encoder.encode``.

    git worktree add /tmp/base 96691f0
    taskset -c 1 python benchmarks/encoder_ab.py /tmp/base .     # base first, then others

Each tree's own ``nivel_env`` (engine and encoder) is loaded side by side; the same random
games (random legal moves, fixed seeds, four bundled decks) are replayed by each tree, both
seats encoded at every decision.  Every game is replayed ``--k`` times per tree,
interleaved A B B A ..., and the least CPU time of those kept (on a shared machine other
work only ever adds time); a round's figure is the sum of those least times per encode
call.  Prints each round, the medians over rounds and each tree's per-round speed ratio
against the first tree (above 1: faster).
"""
from __future__ import annotations

import argparse
import importlib
import random
import statistics as st
import sys
import time

DECKS = ("ember-rush", "stone-bastion", "gale-runners", "anvil-guild")


def load(path: str) -> dict:
    """Import ``path``'s nivel_env (dropping any other tree's modules first), and use it
    once so the modules its functions import lazily come from the same tree."""
    for k in [k for k in sys.modules if k == "nivel_env" or k.startswith("nivel_env.")]:
        del sys.modules[k]
    sys.path.insert(0, path)
    mods = {n: importlib.import_module(n) for n in
            ("nivel_env.cards", "nivel_env.engine", "nivel_env.env.encoder")}
    cards, engine = mods["nivel_env.cards"], mods["nivel_env.engine"]
    mods["nivel_env.env.encoder"].Encoder(cards.load_card_db())
    g = engine.new_game(cards.load_deck(DECKS[0]), cards.load_deck(DECKS[2]), seed=0)
    while not g.is_terminal():
        g.apply_action(g.legal_actions()[0])
    sys.path.remove(path)
    return mods


def record(mods: dict, n_games: int, seed0: int) -> list:
    """(deck, deck, seed, actions) of random games played by this tree's engine."""
    cards, engine = mods["nivel_env.cards"], mods["nivel_env.engine"]
    decks = [cards.load_deck(d) for d in DECKS]
    out = []
    for s in range(seed0, seed0 + n_games):
        d0, d1 = decks[s % 4], decks[(s + 1) % 4]
        g = engine.new_game(d0, d1, seed=s)
        rng, acts = random.Random(s), []
        while not g.is_terminal():
            legal = g.legal_actions()
            acts.append(legal[rng.randrange(len(legal))])
            g.apply_action(acts[-1])
        out.append((d0, d1, s, acts))
    return out


def game_time(mods: dict, game, clock=time.process_time) -> tuple[float, int]:
    """CPU seconds spent in encode() replaying one game, and the number of calls."""
    engine, E = mods["nivel_env.engine"], mods["nivel_env.env.encoder"]
    d0, d1, s, acts = game
    g = engine.new_game(d0, d1, seed=s)
    enc = E.Encoder(g.db)
    total = 0.0
    for a in acts:
        legal = g.legal_actions()
        p = g.current_player
        t0 = clock()
        enc.encode(g, p, legal)
        enc.encode(g, 1 - p, None)
        total += clock() - t0
        g.apply_action(a)
    return total, 2 * len(acts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+", help="source trees; the first is the baseline")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--k", type=int, default=4, help="replays per game and tree (least kept)")
    args = ap.parse_args()
    trees = [load(p) for p in args.trees]
    games = [record(m, args.games, 100) for m in trees]
    res: dict = {p: [] for p in args.trees}
    for r in range(args.rounds):
        tot, calls = {p: 0.0 for p in args.trees}, 0
        for gi in range(args.games):
            best = {p: float("inf") for p in args.trees}
            for k in range(args.k):
                order = list(range(len(trees)))
                for i in (order if k % 2 == 0 else order[::-1]):
                    t, n = game_time(trees[i], games[i][gi])
                    best[args.trees[i]] = min(best[args.trees[i]], t)
            for p in args.trees:
                tot[p] += best[p]
            calls += n
        for p in args.trees:
            res[p].append(tot[p] / calls * 1e6)
        print(f"round {r}: " + ", ".join(f"{p} {res[p][-1]:.3f} us" for p in args.trees),
              flush=True)
    base = args.trees[0]
    for p, v in res.items():
        print(f"{p}: median {st.median(v):.3f} us/encode (rounds {min(v):.3f}-{max(v):.3f})")
    for p in args.trees[1:]:
        ratios = sorted(b / x for b, x in zip(res[base], res[p]))
        print(f"{p} vs {base}: speed {st.median(ratios):.4f}x median of per-round ratios "
              f"({ratios[0]:.4f}-{ratios[-1]:.4f})")


if __name__ == "__main__":
    main()
