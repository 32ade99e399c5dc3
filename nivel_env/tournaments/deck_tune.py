"""``evaluate.py tune``: improve a deck one card swap at a time, each swap proved by a test.

Hill climbing over legal decks: each step proposes up to ``--candidates`` swaps (one copy
of a card in the deck out, one card of the pool in) that keep the deck legal under the
deck-building rules (5.1.2: 40 cards, at most 3 copies, at most 8 trigger cards, the
leader's oath), and tests them in turn against the current deck with the sequential test
of ``compare`` (``deck_commands.sprt_test``) over the field.  The first swap the
test accepts (H1: the new deck is ``elo1`` stronger against the field) becomes the current
deck.  A test still undecided at ``--max-games`` keeps its state (``sprt.SprtRun``): when
a step's candidates are all rejected or undecided, the undecided test with the highest
log-likelihood ratio is continued on fresh seeds for another ``--max-games`` games, up to
``--resume`` times a step, rather than given up.  A step in which nothing is accepted ends
the search.  Every test plays fresh seeds.

Proposals (``--propose``):

* ``value`` (the default): ordered by causal card value (``card_value``, duplicate deals:
  the deck with and without each card on the same deals).  The cards that cost the most
  go first; the pool cards come in in order of their measured gain when they replace the
  deck's weakest card on the same deals (``pool_screen``).  Under additivity, the swap
  ``-X +P`` gains ``gain(P) + value(W) - value(X)`` (``W`` the weakest card), and the
  swaps are tried best estimate first.  The ranking is measured once, on seeds no test
  uses, and kept up to date across accepted swaps under the same additivity.
* ``random``: drawn at random (reproducibly from ``--seed``), the card leaving weighted
  towards cards the deck holds more copies of.

At the end, ``--holdout`` seeds never used by the search play the tuned deck against the
original head to head (duplicate deals), the unbiased measure of what the search gained:
a search that accepts swaps by chance would not keep its edge there.  The decks tried are
written to ``--out/decks/`` and the accepted path, every test and the games spent to
``tune.json``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import numpy as np


def swap_deck(deck, gone: str, come: str):
    """``deck`` with its first copy of ``gone`` replaced by ``come``, in the same place of
    the card list (the same shuffle deals ``come`` where ``gone`` was).  Not checked
    against the deck-building rules."""
    from nivel_env.cards import Deck
    ids = deck.card_ids()
    if gone not in ids:
        raise ValueError(f"tune: {gone} is not in the deck {deck.name!r}")
    ids[ids.index(gone)] = come
    return Deck(deck.name, deck.leader, tuple(deck.db.get(i) for i in ids), deck.plan, "",
                {}, deck.db)


def legal_swap(deck, gone: str, come: str):
    """The swapped deck when it keeps the deck-building rules (5.1.2), else None."""
    from nivel_env.cards import deck_problems
    if come == gone:
        return None
    cand = swap_deck(deck, gone, come)
    return None if deck_problems(cand) else cand


def propose(deck, pool_ids, rng, count: int) -> list:
    """Up to ``count`` distinct legal one-card swaps ``(out_id, in_id, new_deck)``, drawn
    at random."""
    ids = deck.card_ids()
    seen, out = set(), []
    for _ in range(count * 50):
        if len(out) >= count:
            break
        gone = ids[int(rng.integers(len(ids)))]          # by copies: 3 copies, 3 chances
        come = pool_ids[int(rng.integers(len(pool_ids)))]
        if come == gone or (gone, come) in seen:
            continue
        seen.add((gone, come))
        cand = legal_swap(deck, gone, come)
        if cand is not None:
            out.append((gone, come, cand))
    return out


@dataclass
class Ranking:
    """The causal ranking ``--propose value`` orders swaps by.

    ``values``: deck card id -> its causal value (the deck's score with the card minus
    with a baseline card in its place, on the same deals); ``gains``: pool card id -> the
    change in the deck's score when it replaces ``weakest`` (the deck card of lowest
    value) on the same deals; ``games``/``seeds``: what measuring it cost (games played,
    seeds consumed from the first seed it was given); ``detail``: the measurements' rows,
    for the report."""
    values: dict
    gains: dict
    weakest: str
    games: int = 0
    seeds: int = 0
    detail: dict = dc_field(default_factory=dict)

    def estimate(self, gone: str, come: str) -> float:
        """The score gain of ``-gone +come`` against the field, assuming card values add
        up: ``gain(come) + value(weakest) - value(gone)``."""
        return self.gains[come] + self.values[self.weakest] - self.values[gone]

    def after_swap(self, gone: str, come: str) -> None:
        """Keep the ranking for the deck after ``-gone +come`` (additivity again): a card
        new to the deck is worth ``value(weakest) + gain(card)``."""
        if come not in self.values:
            self.values[come] = self.values[self.weakest] + self.gains[come]


def propose_ranked(deck, ranking: Ranking, count: int, skip=()) -> list:
    """Up to ``count`` legal swaps ``(out_id, in_id, new_deck, estimate)``, best estimated
    gain first (``Ranking.estimate``); ties go to the card of lower value leaving, then to
    the pool card of higher gain.  ``skip``: ``(out_id, in_id)`` pairs not to propose
    (those a test already rejected)."""
    held = sorted(set(deck.card_ids()))
    skip = set(skip)
    missing = [c for c in held if c not in ranking.values]
    if missing:
        raise ValueError(f"tune: the ranking has no value for {', '.join(missing)}")
    pairs = sorted(((ranking.estimate(g, c), g, c) for g in held for c in ranking.gains
                    if c != g and (g, c) not in skip),
                   key=lambda t: (-t[0], ranking.values[t[1]], -ranking.gains[t[2]],
                                  t[1], t[2]))
    out = []
    for est, gone, come in pairs:
        if len(out) >= count:
            break
        cand = legal_swap(deck, gone, come)
        if cand is not None:
            out.append((gone, come, cand, est))
    return out


def incoming_cards(deck, pool_ids) -> list:
    """The pool cards some one-card swap can legally bring into ``deck`` (a card outside
    an "all" oath of the leader never can, 5.1.2.1: checked first, as it is cheap)."""
    from nivel_env.cards.filters import card_matches_static
    held = sorted(set(deck.card_ids()))
    every = [r.filter for r in deck.leader.oath if r.kind == "all"]
    return [c for c in pool_ids
            if all(card_matches_static(deck.db.get(c), f) for f in every)
            and any(legal_swap(deck, g, c) is not None for g in held)]


def pool_screen(args, runner, pool, deck_path: str, weakest: str, incoming, field,
                seeds_from: int, seeds: int, out: Path) -> tuple[dict, dict, int]:
    """Each ``incoming`` card's gain in place of ``weakest``: the deck and each variant
    (one copy of ``weakest`` replaced in the same place, as ``card_value`` makes its
    variants: ``card_value.write_variant``) against every ``field`` deck on the same
    ``seeds`` seeds from ``seeds_from``; gain = the variant's score minus the deck's, mean
    over seeds and field decks.  Returns (gains, rows with 95% intervals, games)."""
    from .card_value import write_variant
    from .deck_commands import deck_tasks, run_deck_tasks
    from .games import cached_deck
    deck = cached_deck(deck_path)
    paths = [deck_path] + [write_variant(deck, weakest, deck.db.get(c), out)[0]
                           for c in incoming]
    decks = paths + list(field)
    k = len(paths)
    meet = [(i, j) for i in range(k) for j in range(k, len(decks))]
    tasks, keys = deck_tasks(decks, meet, seeds, seeds_from, args.pilot, None, args.seed,
                             args.deal)
    res = run_deck_tasks(tasks, args, runner, "pool screen", pool, progress=False)
    pts = {(i, j, t[4]): sum(x["points"] for x in pair)
           for (i, j), t, pair in zip(keys, tasks, res)}
    gains, rows = {}, {}
    for i, c in enumerate(incoming, start=1):
        d = np.array([(v - pts[(0, j, sd)]) / 2 for (a, j, sd), v in pts.items() if a == i])
        gains[c] = float(d.mean())
        half = 1.96 * float(d.std(ddof=1)) / np.sqrt(len(d)) if len(d) > 1 else None
        rows[c] = {"card": c, "gain": round(gains[c], 4), "units": len(d),
                   "low": None if half is None else round(gains[c] - half, 4),
                   "high": None if half is None else round(gains[c] + half, 4)}
    return gains, rows, 2 * len(tasks)


def deck_card_values(args, runner, pool, deck_path: str, field, seeds_from: int,
                     out: Path) -> tuple[dict, dict, int, int]:
    """The causal value of every distinct card of the deck at ``deck_path`` against
    ``field`` (``card_value.card_values``, the one call ``tune`` makes to it; its default
    baseline card), at ``--rank-precision`` with at most ``--rank-games`` seeds from
    ``seeds_from``.  Returns (card id -> value, card id -> row, games played, seeds
    consumed)."""
    from .card_value import BATCH, card_values
    rep = card_values(deck_path, list(field), args.pilot, runner=runner, pool=pool,
                      precision=args.rank_precision, max_seeds=args.rank_games,
                      batch=min(BATCH, args.rank_games), seeds_from=seeds_from,
                      seed=args.seed, deal=args.deal, out=out, bootstrap=args.bootstrap,
                      say=lambda x: None)
    rows = {r["card"]: r for r in rep["rows"]}
    first, last = rep["seeds"]
    return ({c: float(r["value"]) for c, r in rows.items()}, rows, int(rep["games"]),
            int(last - first))


def causal_ranking(args, runner, pool, deck_path: str, pool_ids, field, seeds_from: int,
                   out: Path) -> Ranking:
    """``--propose value``'s ranking of the deck at ``deck_path``: its cards' causal
    values, then the incoming pool cards' gains in place of the weakest card on
    ``--rank-games`` seeds from the same first seed (the screen replays the deck's own
    games: 1 in ``len(incoming) + 1`` of its games)."""
    from .games import cached_deck
    values, rows, games, seeds = deck_card_values(args, runner, pool, deck_path, field,
                                                  seeds_from, out / "ranking")
    weakest = min(values, key=lambda c: (values[c], c))
    incoming = incoming_cards(cached_deck(deck_path), pool_ids)
    gains, grows, g2 = pool_screen(args, runner, pool, deck_path, weakest, incoming, field,
                                   seeds_from, args.rank_games, out / "screen")
    return Ranking(values, gains, weakest, games + g2, max(seeds, args.rank_games),
                   {"cards": list(rows.values()), "pool": list(grows.values()),
                    "card_games": games, "pool_games": g2})


@dataclass
class _Test:
    """One proposed swap under test: its deck file, its SPRT state, its record."""
    gone: str
    come: str
    path: Path
    run: object
    record: dict


def tune(args, runner, ranker=None) -> dict:
    """Card swaps to ``args.deck``, each accepted by an SPRT against the field, played on
    ``runner`` (a ``runner.Runner``); then the tuned deck against the original on
    held-out seeds.  ``ranker(deck_path, pool_ids, field, seeds_from, out) -> Ranking``
    replaces the causal ranking of ``--propose value`` (tests script one)."""
    from nivel_env.cards import format_deck, list_decks, load_card_db
    from nivel_env.cards.model import LEADER

    from .deck_commands import (check_decks, deck_tasks, run_deck_tasks, say_pilot,
                                sprt_test)
    from .games import cached_deck
    from .ratings import few_games, paired_score
    from .sprt import SPRT, SprtRun, elo_to_score
    mode = getattr(args, "propose", "random")
    resume = getattr(args, "resume", 0)
    field = [d for d in (args.field or list_decks()) if d != args.deck]
    check_decks("tune", [args.deck] + field, args.pilot)
    try:
        SPRT(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as e:
        raise SystemExit(f"evaluate.py tune: {e}") from None
    if resume < 0:
        raise SystemExit(f"evaluate.py tune: --resume must be 0 or more, got {resume}")
    original = cached_deck(args.deck)
    field = [d for d in field if cached_deck(d).name != original.name]
    if not field:
        raise SystemExit("evaluate.py tune: the field is empty")
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
    path, tests, seeds = [], [], 0
    spent = {"ranking": 0, "tests": 0}
    ranking, rejected = None, set()
    name = lambda c: db.get(c).name                                        # noqa: E731
    pool = runner.pool()
    try:
        if mode == "value":
            rank = ranker or (lambda p, ids, f, s, o: causal_ranking(args, runner, pool, p,
                                                                     ids, f, s, o))
            print("ranking the deck's cards and the pool by causal value ...", flush=True)
            ranking = rank(str(current_path), pool_ids, field, seeds, out)
            seeds += ranking.seeds
            spent["ranking"] = ranking.games
            print(f"  {ranking.games:,} games; weakest card {ranking.weakest} "
                  f"({name(ranking.weakest)}, value {ranking.values[ranking.weakest]:+.3f})",
                  flush=True)

        def play(t: _Test, budget: int) -> dict:
            nonlocal seeds
            before = t.run.games
            r = sprt_test(args, runner, str(t.path), str(current_path), field, pool,
                          seeds_from=seeds, max_games=budget, say=lambda x: None,
                          state=t.run)
            seeds = r["seeds"][1]
            spent["tests"] += t.run.games - before
            h = r["history"][-1]
            t.record["looks"].append([r["games"], h["llr"]])
            t.record.update(status=r["status"], games=r["games"], llr=h["llr"],
                            elo_diff=h["elo_diff"], low=h["low"], high=h["high"],
                            games_so_far=spent["ranking"] + spent["tests"])
            note = "" if r["status"] else few_games(             # an undecided test
                elo_to_score(h["elo_diff"]), r["games"], elo_to_score(h["low"]),
                elo_to_score(h["high"]))
            print(f"  {r['status'] or 'undecided'} after {r['games']:,} games: LLR "
                  f"{h['llr']:+.2f}, Elo {h['elo_diff']:+.1f} [{h['low']:+.1f}, "
                  f"{h['high']:+.1f}]" + (f" ({note})" if note else ""), flush=True)
            return r

        for step in range(1, args.steps + 1):
            if mode == "value":
                props = propose_ranked(current, ranking, args.candidates, rejected)
            else:
                props = [(g, c, d, None) for g, c, d in propose(current, pool_ids, rng,
                                                                args.candidates)]
            accepted, undecided = None, []
            for k, (gone, come, cand, est) in enumerate(props):
                cand_path = out / "decks" / f"step{step}-try{k + 1}.deck"
                cand_path.write_text(format_deck(cand, f"tune step {step}: -{gone} +{come}"))
                print(f"step {step}, try {k + 1}: -{gone} ({name(gone)}) +{come} "
                      f"({name(come)})" + ("" if est is None else
                                           f", estimated score gain {est:+.3f}"),
                      flush=True)
                t = _Test(gone, come, cand_path, SprtRun.start(args, seeds),
                          {"step": step, "try": k + 1, "out": gone, "in": come,
                           "estimate": None if est is None else round(est, 4),
                           "resumed": 0, "looks": []})
                tests.append(t.record)
                play(t, args.max_games)
                if t.run.status == "H1":
                    accepted = t
                    break
                if t.run.status == "H0":
                    rejected.add((gone, come))
                else:
                    undecided.append(t)
            for _ in range(resume if accepted is None else 0):
                if not undecided:
                    break
                t = max(undecided, key=lambda u: u.run.llr)
                t.record["resumed"] += 1
                print(f"step {step}: resuming try {t.record['try']} (-{t.gone} +{t.come}, "
                      f"LLR {t.run.llr:+.2f}) for {args.max_games:,} more games", flush=True)
                play(t, t.run.games + args.max_games)
                if t.run.status == "H1":
                    accepted = t
                elif t.run.status == "H0":
                    rejected.add((t.gone, t.come))
                    undecided.remove(t)
                if accepted:
                    break
            if accepted is None:
                print(f"step {step}: no proposed swap was accepted; stopping")
                break
            a = accepted.record
            path.append({"step": step, "out": a["out"], "in": a["in"],
                         "out_name": name(a["out"]), "in_name": name(a["in"]),
                         "games": a["games"], "elo_diff": a["elo_diff"], "low": a["low"],
                         "high": a["high"], "estimate": a["estimate"],
                         "resumed": a["resumed"], "deck": str(accepted.path),
                         "games_so_far": spent["ranking"] + spent["tests"]})
            if ranking is not None:
                ranking.after_swap(a["out"], a["in"])
            current, current_path = cached_deck(str(accepted.path)), accepted.path
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
    games = {**spent, "search": spent["ranking"] + spent["tests"],
             "first_accepted": path[0]["games_so_far"] if path else None}
    report = {"command": "python evaluate.py " + " ".join(args.argv),
              "ran_on": runner.info(), "kind": "tune", "propose": mode, "resume": resume,
              "deck": args.deck, "pilot": args.pilot, "field": field, "elo0": args.elo0,
              "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
              "tried": len(tests), "path": path, "tests": tests, "games": games,
              "ranking": None if ranking is None else {
                  "weakest": ranking.weakest, "games": ranking.games,
                  "seeds": ranking.seeds, **ranking.detail},
              "tuned": str(out / "tuned.deck"), "holdout": holdout}
    (out / "tune.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\naccepted swaps ({len(path)} of {len(tests)} tried):")
    for p in path:
        print(f"  step {p['step']}: -{p['out']} {p['out_name']}  +{p['in']} {p['in_name']}  "
              f"(Elo {p['elo_diff']:+.1f} [{p['low']:+.1f}, {p['high']:+.1f}], "
              f"{p['games']:,} games)")
    print(f"games spent by the search: {games['search']:,} ({games['ranking']:,} ranking, "
          f"{games['tests']:,} in tests)" + ("" if not path else
                                             f"; {games['first_accepted']:,} until the "
                                             f"first accepted swap"))
    if holdout:
        note = few_games(holdout["score"], holdout["games"], holdout["low"], holdout["high"])
        print(f"held out: tuned against the original {holdout['score']:.3f} "
              f"[{holdout['low']:.3f}, {holdout['high']:.3f}] over {holdout['games']:,} games"
              + (f" ({note})" if note else ""))
    print(f"wrote {out / 'tuned.deck'}, {out / 'tune.json'}")
    return report


HOLDOUT_SEEDS = 1_000_000_000     # the held-out games' seeds start here; tests use 0 upward


__all__ = ["tune", "propose", "propose_ranked", "Ranking", "causal_ranking", "pool_screen",
           "incoming_cards", "swap_deck", "legal_swap"]
