"""Cards a policy never saw: does it play them as well as the cards it trained on?

The observation describes every card by its features (type, cost, power, attribute,
keywords, verbs: docs/observation.md), never by its id, so a policy can read a card
outside its training pool.  This measures how well it then plays.  Two policies trained
alike, from the same seed and for the same steps:

* ``--held-out``: trained without the ``--unseen`` decks (``train.py --decks`` naming the
  others), so neither seat ever held one of their cards;
* ``--control``: trained on every bundled deck.

Each plays the heuristic in duplicate deals (each seed twice, the agents exchanged:
``tournaments.games.play_pair``) in two classes of deals, the same deals for both:

* **unseen**: one side's deck is an ``--unseen`` deck, the other any bundled deck (the
  pairs cycle through them all, both seat orders), so every game has the held-out cards
  on the table, in the policy's hands in half of them;
* **known**: both decks are decks the held-out policy trained on.

Reported per policy and class: the score against the heuristic with its 95% interval, and
the margin (score - 0.5).  The figure the experiment is for: the share of the control's
margin the held-out policy keeps on the unseen deals,
``margin(held-out, unseen) / margin(control, unseen)``, with a paired bootstrap interval
over the deals (``scipy.stats.bootstrap``: both policies played the same seeds); and beside
it the same policy on the cards it knows, ``margin(held-out, unseen) / margin(held-out,
known)``, and that share over the control's own share (``margin(control, unseen) /
margin(control, known)``): the unseen decks may be harder to win with for any policy,
and the control, which trained on them, shows how much.  The cards that are new to the
held-out policy are listed by id and name; the points of every seed are kept in the
report.

    python train.py --total-steps 1000000 --seed 7 --decks anvil-guild dawn-ascent \\
        ember-rush gale-runners stone-bastion tide-scholars --out runs/unseen/no-dark
    python train.py --total-steps 1000000 --seed 7 --out runs/unseen/all
    python benchmarks/unseen_cards.py --held-out runs/unseen/no-dark/policy.pt \\
        --control runs/unseen/all/policy.pt --unseen twilight-pact veil-piercers \\
        --games 500 --workers 2 --out docs/results/unseen-cards

Results: docs/opponents.md, "Cards it never saw".
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OPPONENT = "heuristic"


def deck_pairs(unseen: list[str], known: list[str]) -> dict[str, list[tuple]]:
    """The deck pairs of each class: ``unseen`` -- an unseen deck against every deck, in
    both seat orders (a pair of two unseen decks once per order); ``known`` -- every
    ordered pair of known decks, mirrors included."""
    every = unseen + known
    pairs = {(u, d) for u in unseen for d in every} | {(d, u) for u in unseen for d in every}
    return {"unseen": sorted(pairs),
            "known": [(a, b) for a in known for b in known]}


def tasks(pairs: list[tuple], policy: str, games: int, seed: int) -> list[tuple]:
    """``play_pair`` tasks: ``games`` seeds, the deck pairs cycling; the seeds depend on
    the class's seed and the index only, so every policy meets the same deals."""
    return [(*pairs[i % len(pairs)], policy, OPPONENT, seed * 1_000_003 + i, None, "agents")
            for i in range(games)]


def play(all_tasks: list[tuple], workers: int) -> list[float]:
    """The policy's points per seed (mean of the seed's two games), in task order, played
    by the tournaments' runner (forkserver workers, one torch thread each)."""
    from nivel_env.tournaments.runner import Runner, run_tasks
    results = run_tasks(all_tasks, Runner(workers), "unseen cards", progress=False)
    return [float(np.mean([g["points"] for g in pair])) for pair in results]


def interval(samples: tuple, statistic, paired: bool) -> list[float]:
    """95% percentile bootstrap interval of ``statistic`` over the seeds; ``paired``: the
    arrays are resampled together (they hold the same seeds)."""
    from scipy.stats import bootstrap
    res = bootstrap(samples, statistic, paired=paired, vectorized=False, n_resamples=2000,
                    method="percentile", random_state=0)
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def new_cards(unseen: list[str], known: list[str]) -> list[dict]:
    """The cards (leaders included) of the unseen decks that no known deck holds."""
    from nivel_env.cards import load_deck

    def ids(deck) -> set:
        return {c.id for c in deck.cards} | {deck.leader.id}
    seen = set().union(*(ids(load_deck(d)) for d in known))
    out = {}
    for name in unseen:
        deck = load_deck(name)
        for c in [deck.leader, *deck.cards]:
            if c.id not in seen:
                out[c.id] = {"id": c.id, "name": c.name}
    return sorted(out.values(), key=lambda c: c["id"])


def main(argv=None) -> dict:
    from nivel_env.cards.deck import list_decks
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--held-out", required=True, help="policy trained without --unseen")
    p.add_argument("--control", required=True, help="policy trained on every deck")
    p.add_argument("--unseen", nargs="+", required=True, help="the decks held out")
    p.add_argument("--games", type=int, default=500, help="seeds per class (x2 games)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    every = list_decks()
    wrong = [d for d in args.unseen if d not in every]
    if wrong:
        p.error(f"--unseen: no bundled deck {', '.join(wrong)}; known: {', '.join(every)}")
    known = [d for d in every if d not in args.unseen]
    classes = deck_pairs(list(args.unseen), known)
    policies = {"held_out": args.held_out, "control": args.control}
    for name, path in policies.items():
        if not Path(path).is_file():
            p.error(f"--{name.replace('_', '-')}: no policy file {path}")
    t0 = time.time()
    points = {}
    for cls_seed, (cls, pairs) in enumerate(classes.items()):
        for name, path in policies.items():
            points[(name, cls)] = np.array(
                play(tasks(pairs, path, args.games, args.seed * 10 + cls_seed), args.workers))
            s = points[(name, cls)]
            print(f"{name:9s} {cls:7s} {s.mean():.3f} over {2 * len(s)} games "
                  f"({time.time() - t0:.0f} s)", flush=True)
    report = {"command": "python benchmarks/unseen_cards.py " + " ".join(
                  sys.argv[1:] if argv is None else argv),
              "opponent": OPPONENT, "unseen_decks": args.unseen, "known_decks": known,
              "new_cards": new_cards(list(args.unseen), known),
              "games_per_cell": 2 * args.games, "cells": [], "seconds": time.time() - t0}
    for (name, cls), s in points.items():
        lo, hi = interval((s,), np.mean, paired=False)
        report["cells"].append({"policy": name, "deals": cls, "score": float(s.mean()),
                                "low": lo, "high": hi, "margin": float(s.mean() - 0.5)})

    def kept(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):   # a zero margin: inf or nan
            return (np.mean(a) - 0.5) / (np.mean(b) - 0.5)
    ho_u, co_u = points[("held_out", "unseen")], points[("control", "unseen")]
    ho_k = points[("held_out", "known")]
    report["kept_vs_control"] = {"value": float(kept(ho_u, co_u)),
                                 "interval": interval((ho_u, co_u), kept, paired=True)}
    # the unseen and the known deals are different seeds: each resampled on its own
    report["kept_vs_known"] = {"value": float(kept(ho_u, ho_k)),
                               "interval": interval((ho_u, ho_k), kept, paired=False)}
    # the unseen deals may be harder or easier to win for any policy: the control's own
    # share on them is the yardstick (1 = the held-out policy loses no more than the
    # control does on decks it trained on).  Paired within a class (the same seeds);
    # the two classes are independent seeds, resampled with the same indices, which
    # is still a valid resample of each (equal counts, no dependence between them)
    co_k = points[("control", "known")]

    def adjusted(hu, cu, hk, ck):
        return kept(hu, hk) / kept(cu, ck)
    report["control_kept_vs_known"] = {"value": float(kept(co_u, co_k)),
                                       "interval": interval((co_u, co_k), kept, paired=False)}
    report["kept_vs_known_adjusted"] = {
        "value": float(adjusted(ho_u, co_u, ho_k, co_k)),
        "interval": interval((ho_u, co_u, ho_k, co_k), adjusted, paired=True)}
    report["points"] = {f"{name}/{cls}": s.tolist() for (name, cls), s in points.items()}
    print(f"new cards for the held-out policy: {len(report['new_cards'])}")
    for c in report["cells"]:
        print(f"  {c['policy']:9s} on {c['deals']:7s} deals: {c['score']:.3f} "
              f"[{c['low']:.3f}, {c['high']:.3f}], margin {c['margin']:+.3f}")
    for key, who, what in (
            ("kept_vs_control", "held-out policy", "of the control's margin on the unseen deals"),
            ("kept_vs_known", "held-out policy", "of its own margin on the known deals"),
            ("control_kept_vs_known", "control", "of its own margin on the known deals"),
            ("kept_vs_known_adjusted", "held-out policy",
             "of its own margin on the known deals, as a share of the control's share")):
        k = report[key]
        print(f"{who} keeps {k['value']:.1%} [{k['interval'][0]:.1%}, "
              f"{k['interval'][1]:.1%}] {what}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "unseen_cards.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
