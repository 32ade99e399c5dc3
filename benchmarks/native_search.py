"""The search agent against a reference version of itself: the same moves, and the time a
move, on the native engine.

Positions: ``--games`` seeded games on the native backend (``new_game(...,
backend="native")``; ``--backend python``: the Python engine), the shipped policy
``--pilot`` playing both seats (20% of its choices random, so the games differ), every
``--every``-th real decision (more than one legal move) kept until there are
``--positions``.  The deck pairs cycle through the bundled decks
(``tournaments.arena.deals``).

Reference: ``agents/search.py`` (and the ``agents/worlds.py`` and ``agents/value.py`` it
imports) as they were at git revision ``--reference`` (default: the commit before the tree
and forward were rewritten), loaded from ``git show`` as a separate module over the same
policy and value head.

Each position is searched by both, one after the other (which goes first alternates by
position and round), each agent's generator reseeded with the position's number first, so
both see the same worlds.  The first round compares the moves and the root's visit counts
and prints every position where they differ (the target is none).  Time: CPU time of each
``act_state`` call (``time.process_time``), torch at one thread; per round the mean over
the positions, then the median and range over ``--rounds`` rounds, and the median of every
move's time.

    python benchmarks/native_search.py                       # 60 positions, 3 rounds
    python benchmarks/native_search.py --positions 20 --rounds 1
    python benchmarks/native_search.py --agent nv2-search-deep:simulations=1024
    python benchmarks/native_search.py --backend python --positions 20
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the last commit with the node-object tree and the module-by-module forward
REFERENCE = "b2e56cb1e14ec76ff4b18152b99fd74418cb7707"


def load_reference(rev: str):
    """``SearchAgent`` of ``agents/search.py`` at ``rev``, with that revision's
    ``agents/worlds.py`` and ``agents/value.py`` (imported as ``agents._ref_*``)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("value", "worlds", "search"):
            try:
                src = subprocess.run(["git", "show", f"{rev}:agents/{name}.py"], cwd=ROOT,
                                     check=True, capture_output=True, text=True).stdout
            except subprocess.CalledProcessError as e:
                raise SystemExit(f"native_search: git show {rev}:agents/{name}.py failed: "
                                 f"{e.stderr.strip()}") from None
            for dep in ("value", "worlds"):
                src = src.replace(f"from .{dep} import", f"from ._ref_{dep} import")
            path = Path(tmp) / f"_ref_{name}.py"
            path.write_text(src)
            spec = importlib.util.spec_from_file_location(f"agents._ref_{name}", path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)
            out[name] = mod
    return out["search"].SearchAgent


def positions(count: int, games: int, every: int, seed: int, pilot: str,
              backend: str = "native") -> list:
    """``count`` game states with a real choice, from seeded games of ``pilot`` on
    ``backend``."""
    import numpy as np

    from agents import load_opponent
    from nivel_env.cards import load_deck
    from nivel_env.cards.deck import list_decks
    from nivel_env.engine import new_game
    from nivel_env.players import ask
    from nivel_env.tournaments.arena import deals

    decks = [load_deck(d) for d in list_decks()]
    agent = load_opponent(f"{pilot}:random_share=0.2", seed=seed)
    rng = np.random.default_rng(seed)
    out: list = []
    for d0, d1, s in deals(decks, games, seed):
        g = new_game(d0, d1, seed=s, backend=backend)
        real = 0
        while g.result is None and len(out) < count:
            legal = g.legal_actions()
            if len(legal) > 1:
                if real % every == int(rng.integers(every)) % every:
                    out.append(g.clone())
                real += 1
            g.apply_action(ask(agent, g, legal=legal))
        if len(out) >= count:
            break
    if len(out) < count:
        raise SystemExit(f"native_search: {games} games gave {len(out)} positions, not "
                         f"{count}: give more --games or a smaller --every")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--agent", default="nv2-search-deep", help="the search (a name "
                    "load_opponent takes, with settings)")
    ap.add_argument("--reference", default=REFERENCE, help="git revision of the reference "
                    "search (default %(default)s)")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--games", type=int, default=40, help="games to draw positions from")
    ap.add_argument("--every", type=int, default=6, help="keep one real decision in this many")
    ap.add_argument("--pilot", default="nv2-ppo", help="the policy that plays the games")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-reference", action="store_true", help="time the agent alone")
    ap.add_argument("--backend", default="native", choices=("native", "python"),
                    help="the engine the positions (and so the searches) run on")
    args = ap.parse_args(argv)
    os.environ["NIVEL_BACKEND"] = args.backend
    import numpy as np
    import torch

    torch.set_num_threads(1)
    from agents import load_opponent
    from agents.opponents import SEARCHES, split_spec

    new = load_opponent(args.agent, seed=0)
    agents = {"new": new}
    if not args.no_reference:
        Ref = load_reference(args.reference)
        name, settings = split_spec(args.agent)
        preset = dict(SEARCHES[name][1]) if name in SEARCHES else {}
        preset.update({k: type(preset.get(k, 0))(v) if k in preset else v
                       for k, v in settings.items()})
        agents = {"reference": Ref(new.net, value=new.value, **preset), "new": new}
    pos = positions(args.positions, args.games, args.every, args.seed, args.pilot,
                    args.backend)
    print(f"{len(pos)} positions from {args.pilot}'s games on the {args.backend} engine; "
          f"{args.agent}, torch threads {torch.get_num_threads()}")
    for a in agents.values():                        # warm both (first forward, caches)
        a.rng = np.random.default_rng(12345)
        a.act_state(pos[0])
    times = {k: [[] for _ in range(args.rounds)] for k in agents}
    moves = {k: [] for k in agents}
    visits = {k: [] for k in agents}
    sims = {k: [] for k in agents}
    order = list(agents)
    for r in range(args.rounds):
        for i, g in enumerate(pos):
            for k in (order if (i + r) % 2 == 0 else order[::-1]):
                a = agents[k]
                a.rng = np.random.default_rng(args.seed * 1_000_003 + i)
                t0 = time.process_time()
                m = a.act_state(g)
                times[k][r].append(time.process_time() - t0)
                if r == 0:
                    moves[k].append(m)
                    visits[k].append(a.last_stats["visits"])
                    sims[k].append(a.last_stats["simulations"])
    if "reference" in agents:
        diff = [i for i in range(len(pos)) if moves["new"][i] != moves["reference"][i]]
        vdiff = [i for i in range(len(pos)) if visits["new"][i] != visits["reference"][i]]
        for i in diff:
            print(f"  position {i}: reference plays {moves['reference'][i]}, new "
                  f"{moves['new'][i]}")
        print(f"moves that differ: {len(diff)} of {len(pos)}; root visit counts that "
              f"differ: {len(vdiff)} of {len(pos)}")
    print(f"simulations a move: {np.mean(sims['new']):.0f} (new)")
    print("CPU ms/move (one thread): per round the mean over the positions; the median "
          "and range of the rounds; the median move")
    for k in agents:
        means = [1000 * float(np.mean(t)) for t in times[k]]
        every = 1000 * np.array([x for t in times[k] for x in t])
        print(f"  {k:>9}: mean {np.median(means):6.1f} (rounds {min(means):.1f}-"
              f"{max(means):.1f}), median move {np.median(every):6.1f}, p90 "
              f"{np.percentile(every, 90):6.1f}")
    if "reference" in agents:
        ratio = [np.mean(a) / np.mean(b) for a, b in zip(times["reference"], times["new"])]
        print(f"  reference / new: {np.median(ratio):.2f}x (rounds {min(ratio):.2f}-"
              f"{max(ratio):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
