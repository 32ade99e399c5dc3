"""``evaluate.py tune``: improve a deck one card swap at a time, each swap proved by a test.

Hill climbing over legal decks: each step proposes up to ``--candidates`` swaps (one copy
of a card in the deck out, one card of the pool in) that keep the deck legal under the
deck-building rules (5.1.2: 40 cards, at most 3 copies, at most 8 trigger cards, the
leader's oath), and tests them in turn against the current deck with the sequential test
of ``compare`` (``deck_commands.sprt_test``) over the field.  The first swap the
test accepts (H1: the new deck is ``elo1`` stronger against the field) becomes the current
deck; a step in which none is accepted ends the search.  Every test plays fresh seeds.

At the end, ``--holdout`` seeds never used by the search play the tuned deck against the
original head to head (duplicate deals), the unbiased measure of what the search gained:
a search that accepts swaps by chance would not keep its edge there.

Proposals are drawn at random (reproducibly from ``--seed``), the card leaving weighted
towards cards the deck holds more copies of; the decks tried are written to
``--out/decks/`` and the accepted path to ``tune.json``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def propose(deck, pool_ids, rng, count: int) -> list:
    """Up to ``count`` distinct legal one-card swaps ``(out_id, in_id, new_deck)``."""
    from nivel_env.cards import Deck, deck_problems
    ids = deck.card_ids()
    db = deck.db
    seen, out = set(), []
    for _ in range(count * 50):
        if len(out) >= count:
            break
        gone = ids[int(rng.integers(len(ids)))]          # by copies: 3 copies, 3 chances
        come = pool_ids[int(rng.integers(len(pool_ids)))]
        if come == gone or (gone, come) in seen:
            continue
        seen.add((gone, come))
        new_ids = list(ids)
        new_ids[new_ids.index(gone)] = come
        cand = Deck(deck.name, deck.leader, tuple(db.get(i) for i in new_ids), deck.plan,
                    "", {}, db)
        if not deck_problems(cand):
            out.append((gone, come, cand))
    return out


def tune(args, runner) -> dict:
    """Card swaps to ``args.deck``, each accepted by an SPRT against the field, played on
    ``runner`` (a ``runner.Runner``); then the tuned deck against the original on
    held-out seeds."""
    from nivel_env.cards import format_deck, list_decks, load_card_db
    from nivel_env.cards.model import LEADER

    from .deck_commands import (check_decks, deck_tasks, run_deck_tasks, say_pilot,
                                sprt_test)
    from .games import cached_deck
    from .ratings import paired_score
    from .sprt import SPRT
    field = [d for d in (args.field or list_decks()) if d != args.deck]
    check_decks("tune", [args.deck] + field, args.pilot)
    try:
        SPRT(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as e:
        raise SystemExit(f"evaluate.py tune: {e}") from None
    original = cached_deck(args.deck)
    field = [d for d in field if cached_deck(d).name != original.name]
    db = original.db or load_card_db()
    if args.pool:
        unknown = [c for c in args.pool if c not in db]
        if unknown:
            raise SystemExit(f"evaluate.py tune: --pool: unknown card id(s) "
                             f"{', '.join(unknown)}")
        pool_ids = list(dict.fromkeys(args.pool))
    else:
        pool_ids = [c.id for c in db.cards if c.type != LEADER]
    out = Path(args.out)
    (out / "decks").mkdir(parents=True, exist_ok=True)
    say_pilot(args)
    rng = np.random.default_rng(args.seed)
    current = original
    current_path = out / "decks" / "step0.deck"
    current_path.write_text(format_deck(original, f"tune: the original ({args.deck})"))
    path, tried, seeds = [], 0, 0
    pool = runner.pool()
    try:
        for step in range(1, args.steps + 1):
            accepted = None
            for k, (gone, come, cand) in enumerate(propose(current, pool_ids, rng,
                                                           args.candidates)):
                cand_path = out / "decks" / f"step{step}-try{k + 1}.deck"
                cand_path.write_text(format_deck(cand, f"tune step {step}: -{gone} +{come}"))
                tried += 1
                print(f"step {step}, try {k + 1}: -{gone} ({db.get(gone).name}) "
                      f"+{come} ({db.get(come).name})", flush=True)
                r = sprt_test(args, runner, str(cand_path), str(current_path), field, pool,
                              seeds_from=seeds, max_games=args.max_games,
                              say=lambda x: None)
                seeds = r["seeds"][1]
                h = r["history"][-1]
                print(f"  {r['status'] or 'undecided'} after {r['games']:,} games: Elo "
                      f"{h['elo_diff']:+.1f} [{h['low']:+.1f}, {h['high']:+.1f}]", flush=True)
                if r["status"] == "H1":
                    accepted = {"step": step, "out": gone, "in": come,
                                "out_name": db.get(gone).name, "in_name": db.get(come).name,
                                "games": r["games"], "elo_diff": h["elo_diff"],
                                "low": h["low"], "high": h["high"], "deck": str(cand_path)}
                    break
            if accepted is None:
                print(f"step {step}: no proposed swap was accepted; stopping")
                break
            path.append(accepted)
            current, current_path = cached_deck(str(cand_path)), cand_path
        holdout = None
        if path and args.holdout > 0:
            tasks, keys = deck_tasks([str(current_path), args.deck], [(0, 1)], args.holdout,
                                      HOLDOUT_SEEDS, args.pilot, None, args.seed,
                                      args.deal)
            res = run_deck_tasks(tasks, args, runner, "holdout", pool)
            st = paired_score([sum(x["points"] for x in pair) for pair in res])
            holdout = {"games": 2 * args.holdout, "score": round(st["score"], 4),
                       "low": round(st["low"], 4), "high": round(st["high"], 4),
                       "seeds_from": HOLDOUT_SEEDS}
    finally:
        if pool is not None:
            pool.shutdown()
    (out / "tuned.deck").write_text(format_deck(
        current, f"tuned from {args.deck} by evaluate.py tune ({len(path)} swaps)"))
    report = {"command": "python evaluate.py " + " ".join(args.argv),
              "ran_on": runner.info(), "kind": "tune",
              "deck": args.deck, "pilot": args.pilot, "field": field, "elo0": args.elo0,
              "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta, "tried": tried,
              "path": path, "tuned": str(out / "tuned.deck"), "holdout": holdout}
    (out / "tune.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\naccepted swaps ({len(path)} of {tried} tried):")
    for p in path:
        print(f"  step {p['step']}: -{p['out']} {p['out_name']}  +{p['in']} {p['in_name']}  "
              f"(Elo {p['elo_diff']:+.1f} [{p['low']:+.1f}, {p['high']:+.1f}], "
              f"{p['games']:,} games)")
    if holdout:
        print(f"held out: tuned against the original {holdout['score']:.3f} "
              f"[{holdout['low']:.3f}, {holdout['high']:.3f}] over {holdout['games']:,} games")
    print(f"wrote {out / 'tuned.deck'}, {out / 'tune.json'}")
    return report


HOLDOUT_SEEDS = 1_000_000_000     # the held-out games' seeds start here; tests use 0 upward


__all__ = ["tune", "propose"]
