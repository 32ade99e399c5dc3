"""What each card of a deck is worth, as a cause: ``evaluate.py cards`` (the report:
``card_value_report``).

Card analytics (``card_stats``: the improvement when drawn, IWD) are observational: a card
drawn in long games looks good for reasons that are not the card.  Duplicate deals allow a
causal measurement instead.  For each distinct card X of the deck, the *variant* deck has
ONE copy of X replaced by a baseline card B at the same position in the card list, so the
same seed's shuffle puts B exactly where that copy of X was: a game in which that position
is never drawn (nor searched, nor seen) is the same game, move for move, for the deck and
its variant.  Both play the field on the same deals (same seeds, seats and deal mode), and

    value(X) = mean over seeds and field decks of (score(deck) - score(variant))

where a score is a duplicate pair's mean points (0..1): positive, X is better than B in
this deck.  The deck's own games on a seed are played once and shared by every variant.

The i.i.d. unit of the intervals is the seed: on one seed the deck draws the same cards
against every field deck, so a seed's differences (one per field deck) are averaged first.

Stopping, per card, after each batch of seeds (cards still running share the batches):

* ``precision``: the interval's half-width is at most ``precision``.  The interval is a
  t interval at level 1 - ``ALPHA_FIXED`` (96%).  Stopping on the half-width (a function
  of the spread, not of the mean) is the Chow-Robbins fixed-width rule, whose interval
  keeps its level asymptotically; so does stopping at ``max_seeds`` (a fixed size).
* ``decided``: at a few planned looks (after 2, 4, 8, 16, ... batches) the interval at
  level 1 - ``ALPHA_DECIDE`` / (number of planned looks) -- a Bonferroni alpha-spending
  bound over the looks, conservative -- lies entirely above ``+margin`` or below
  ``-margin``; the card stops and reports that wider interval.
* ``max``: ``max_seeds`` reached; the 96% interval.

By a union bound, the chance that a card's reported interval misses its value is at most
``ALPHA_FIXED + ALPHA_DECIDE`` = 5% whatever the rule stopped it: an honest 95% interval
under this optional stopping (asymptotically: t intervals).  Nothing stops before
``min_batches`` batches and ``MIN_NONZERO`` seeds on which the variant's games differed
from the deck's (but at ``max_seeds``): a rarely drawn card's differences are mostly
exact zeros, and a t interval over a handful of non-zero ones would be far too narrow.

The baseline: a named pool card, or by default the plainest, weakest unit the leader's
oath allows that the deck does not hold (no trigger, so the trigger count stays).  A
variant may break deck-building rules (oath, copies, triggers); the engine does not need
them, so such a variant is written as ``*.unchecked.deck`` (``games.UNCHECKED_SUFFIX``)
and the report says which rule it breaks.  ``baseline="weakest"`` measures against the
default baseline and re-expresses each value relative to the deck's own weakest card W:
value(X) - value(W), paired on the seeds both played, exact and paired -- this assumes the
values are additive (the swap X->B and W->B each measured alone), which it does not check.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from nivel_env.cards import model as m

from .games import UNCHECKED_SUFFIX, cached_deck

ALPHA_FIXED = 0.04        # the precision / max-seeds interval's error
ALPHA_DECIDE = 0.01       # spent (Bonferroni) over the early test's planned looks
LEVEL = 1 - ALPHA_FIXED - ALPHA_DECIDE          # what a reported interval promises: 95%
BATCH = 32                # seeds per batch: one lockstep block per deck pair
MAX_SEEDS = 2000
MIN_BATCHES = 2
MIN_NONZERO = 10          # seeds whose games differed, before any stop but --games


# ----------------------------------------------------------------- the estimator

def seed_differences(orig: dict, variant: dict, seeds, field) -> np.ndarray:
    """Per seed the mean over ``field`` of (deck's score - variant's score), a score being
    a duplicate pair's points / 2; ``orig`` and ``variant``: (field deck, seed) -> the
    pair's points (0..2)."""
    return np.array([np.mean([(orig[(f, s)] - variant[(f, s)]) / 2 for f in field])
                     for s in seeds], dtype=float)


def t_interval(d, alpha: float) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of the mean of ``d`` at level 1 - ``alpha``,
    clipped to [-1, 1] (a score difference); fewer than 2 values: the whole range."""
    from scipy.stats import t
    d = np.asarray(d, dtype=float)
    if len(d) == 0:
        return 0.0, -1.0, 1.0
    mean = float(d.mean())
    if len(d) < 2:
        return mean, -1.0, 1.0
    half = float(t.ppf(1 - alpha / 2, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))
    return mean, max(-1.0, mean - half), min(1.0, mean + half)


def decision_looks(total_batches: int) -> list[int]:
    """The batches after which the early test looks: 2, 4, 8, ... up to ``total_batches``
    (planned before any game, so Bonferroni over them is valid)."""
    out, k = [], 2
    while k <= total_batches:
        out.append(k)
        k *= 2
    return out


def stop_status(d, batches: int, total_batches: int, precision: float,
                margin: float | None = None, early: bool = True,
                min_batches: int = MIN_BATCHES) -> tuple[str | None, tuple]:
    """After ``batches`` batches with per-seed differences ``d``: (status, (mean, low,
    high)); status None (go on), "precision", "decided" or "max" (``total_batches``
    reached, which stops whatever the guards say).  The interval is the one to report
    with that status (see the module docstring); ``margin`` (default ``precision``) is
    how far from 0 a decided card's corrected interval must lie."""
    margin = precision if margin is None else margin
    fixed = t_interval(d, ALPHA_FIXED)
    if batches >= total_batches:
        return "max", fixed
    if batches < min_batches or np.count_nonzero(d) < MIN_NONZERO:
        return None, fixed
    looks = decision_looks(total_batches)
    if early and batches in looks:
        wide = t_interval(d, ALPHA_DECIDE / len(looks))
        if wide[1] > margin or wide[2] < -margin:
            return "decided", wide
    if (fixed[2] - fixed[1]) / 2 <= precision:
        return "precision", fixed
    return None, fixed


def paired_se_ratio(orig_pts, variant_pts) -> float | None:
    """The paired difference's standard error over that of two independent samples of the
    same size (per-seed scores): how much the shared deal saves."""
    a, b = np.asarray(orig_pts, float), np.asarray(variant_pts, float)
    if len(a) < 2:
        return None
    unpaired = a.var(ddof=1) + b.var(ddof=1)
    if unpaired == 0:
        return None
    return float(math.sqrt((a - b).var(ddof=1) / unpaired))


# ----------------------------------------------------------------- variant decks

def default_baseline(deck) -> m.Card:
    """The plainest, weakest unit of the deck's pool that its leader's oath allows, that
    has no trigger and that the deck does not hold: fewest keywords and abilities, then
    least power and hit, then cost, then id."""
    from nivel_env.cards.filters import card_matches_static
    held = set(deck.card_ids())
    rules = [r.filter for r in deck.leader.oath if r.kind == "all"]
    cands = [c for c in deck.db.cards
             if c.type == m.UNIT and c.id not in held and not c.has_trigger
             and all(card_matches_static(c, f) for f in rules)]
    if not cands:
        raise ValueError(f"no unit in the pool that the oath of {deck.leader.id} allows "
                         f"and {deck.name} does not hold; give --baseline CARD-ID")
    return min(cands, key=lambda c: (len(c.keywords) + len(c.abilities), c.power + c.hit,
                                     c.cost, c.id))


def variant_deck(deck, card_id: str, baseline: m.Card):
    """The deck with its LAST copy of ``card_id`` replaced by ``baseline``, at the same
    position in the card list (the same shuffle puts it where that copy was)."""
    ids = deck.card_ids()
    if card_id not in ids:
        raise ValueError(f"{card_id} is not in the deck {deck.name}")
    k = len(ids) - 1 - ids[::-1].index(card_id)
    cards = deck.cards[:k] + (baseline,) + deck.cards[k + 1:]
    return replace(deck, name=f"{deck.name} -{card_id} +{baseline.id}", cards=cards,
                   source=f"<{deck.name} with one {card_id} as {baseline.id}>")


def ordered_deck_text(deck, comment: str = "") -> str:
    """The deck as a deck file that keeps its card list's ORDER (``format_deck`` groups
    the copies of a card, which would move the baseline away from the position it
    replaces): one ``COUNT CARD-ID`` line per run of equal cards; ``parse_deck`` reads a
    card id on several lines as more copies, in file order."""
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append(f"name: {deck.name}")
    if deck.plan:
        lines.append(f"plan: {deck.plan}")
    lines.append(f"leader: {deck.leader.id}")
    ids = deck.card_ids()
    i = 0
    while i < len(ids):
        j = i
        while j < len(ids) and ids[j] == ids[i]:
            j += 1
        lines.append(f"{j - i} {ids[i]}")
        i = j
    return "\n".join(lines) + "\n"


def write_variant(deck, card_id: str, baseline: m.Card, folder: Path) -> tuple[str, list]:
    """The variant's deck file in ``folder`` -> (its path, the deck-building rules it
    breaks); a variant that breaks some is named ``*.unchecked.deck`` (loaded without the
    rules).  The file is read back to check it holds the same cards in the same order."""
    from nivel_env.cards.deck import deck_problems, parse_deck
    v = variant_deck(deck, card_id, baseline)
    problems = deck_problems(v)
    folder.mkdir(parents=True, exist_ok=True)
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in Path(
        deck.source).stem or deck.name)
    path = folder / (f"{stem}--{card_id}-as-{baseline.id}"
                     + (UNCHECKED_SUFFIX if problems else ".deck"))
    text = ordered_deck_text(v, f"{deck.name} with one {card_id} replaced by {baseline.id} "
                                f"(evaluate.py cards)" + (
                                    "\nbreaks: " + "; ".join(problems) if problems else ""))
    back = parse_deck(text, deck.db, str(path))
    if back.card_ids() != v.card_ids() or back.leader.id != v.leader.id:
        raise AssertionError(f"{path}: the written variant does not read back the same")
    path.write_text(text, encoding="utf-8")
    return str(path), problems


# ----------------------------------------------------------------- the measurement

def card_values(deck: str, field, pilot: str, *, runner, pool=None,
                baseline: str | None = None, precision: float = 0.03,
                max_seeds: int = MAX_SEEDS, batch: int = BATCH, seeds_from: int = 0,
                seed: int = 0, deal: str = "mirror", cards=None, out="results/cards",
                early: bool = True, margin: float | None = None,
                min_batches: int = MIN_BATCHES, bootstrap: int = 1000, progress=False,
                save_replays: str | None = None, say=print) -> dict:
    """Each distinct card of ``deck`` (a name or file; ``cards``: only these ids) valued
    against ``field`` (deck names or files) under ``pilot`` in both seats, on ``runner``
    (or ``pool``, a ``Runner.pool()``), seeds ``seeds_from`` .. at most
    ``seeds_from + max_seeds - 1`` (offset by ``seed`` as every deck command does), in
    batches of ``batch`` seeds, each card until ``stop_status`` stops it.
    ``baseline``: a pool card id, None (``default_baseline``) or "weakest".  Variant decks
    are written to ``out``/decks; ``save_replays``: a folder for every game's replay.
    Returns a dict: ``rows`` (per card: card, name,
    copies, value, low, high, seeds, units, games, status, identical, se_ratio, iwd,
    iwd_low, iwd_high, breaks), ``baseline``, ``weakest``, ``games``, ``seconds``, ...;
    ``rows`` sorted by value, best first."""
    from .card_stats import card_table
    from .deck_commands import deck_tasks, run_deck_tasks
    t0 = time.perf_counter()
    mine = cached_deck(deck)
    db = mine.db
    names = {c.id: c.name for c in db.cards if hasattr(c, "name")}
    weakest = baseline == "weakest"
    if baseline is None or weakest:
        base = default_baseline(mine)
        base_why = "the default: the plainest, weakest unit the oath allows outside the deck"
    else:
        if baseline not in db:
            raise ValueError(f"--baseline {baseline}: no such card in the pool")
        base, base_why = db.get(baseline), "given"
        if base.type == m.LEADER:
            raise ValueError(f"--baseline {baseline} is a leader, not a deck card")
    counts: dict = {}
    for cid in mine.card_ids():
        counts[cid] = counts.get(cid, 0) + 1
    wanted = list(counts) if cards is None else list(dict.fromkeys(cards))
    for cid in wanted:
        if cid not in counts:
            raise ValueError(f"--cards: {cid} is not in the deck {mine.name}")
    field = list(field)
    if not field:
        raise ValueError("the field is empty")
    total_batches = max(1, -(-max_seeds // batch))
    folder = Path(out) / "decks"
    specs, breaks, state = {}, {}, {}
    for cid in wanted:
        if cid == base.id:                       # the baseline itself: 0 by definition
            state[cid] = {"status": "baseline", "d": np.zeros(0), "interval": (0.0, 0.0, 0.0)}
            continue
        specs[cid], breaks[cid] = write_variant(mine, cid, base, folder)
        state[cid] = {"status": None, "d": np.zeros(0), "interval": (0.0, -1.0, 1.0)}
    relative = "; reported relative to the deck's weakest card" if weakest else ""
    say(f"{mine.name}: {len(wanted)} cards against a field of {len(field)} under {pilot}; "
        f"baseline {base.id} {base.name} ({base_why}){relative}; "
        f"precision +-{precision}, batches of {batch} seeds, at most {max_seeds}")
    broken = {c: p for c, p in breaks.items() if p}
    if broken:
        say(f"note: {len(broken)} variant(s) break deck-building rules (measured anyway; "
            f"the engine does not need them): " + "; ".join(
                f"{c}: {p[0]}" for c, p in list(broken.items())[:3]))
    args = SimpleNamespace(pilot=pilot, no_progress=not progress)
    decks = [deck] + list(field) + [specs[c] for c in specs]
    f_idx = list(range(1, 1 + len(field)))
    v_idx = {c: 1 + len(field) + k for k, c in enumerate(specs)}
    points: dict = {}               # (deck index, field index, seed) -> pair's points
    same: dict = {}                 # (deck index, field index, seed) -> the pair's trace
    units_orig: list = []           # the deck's own games, for card_stats' IWD
    seeds: list = []
    n_games = 0

    def points_of(i):
        return {(j, s): p for (k, j, s), p in points.items() if k == i}
    owned = pool is None
    pool = runner.pool() if pool is None else pool
    try:
        b = 0
        while any(s["status"] is None for s in state.values()):
            running = [c for c, s in state.items() if s["status"] is None]
            first = seeds_from + b * batch
            meet = [(0, j) for j in f_idx] + [(v_idx[c], j) for c in running for j in f_idx]
            tasks, keys = deck_tasks(decks, meet, batch, first, pilot, save_replays, seed,
                                     deal)
            res = run_deck_tasks(tasks, args, runner, "cards", pool, progress=progress)
            n_games += 2 * len(tasks)
            for (i, j), t, pair in zip(keys, tasks, res):
                points[(i, j, t[4])] = sum(x["points"] for x in pair)
                same[(i, j, t[4])] = [(x["points"], x["turns"], x["decisions"]) for x in pair]
                if i == 0:
                    units_orig.append([side for g in pair for side in g["sides"]])
            new = sorted({t[4] for t in tasks})
            seeds += new
            b += 1
            for c in running:
                st = state[c]
                # a running card has played every seed so far
                st["d"] = seed_differences(points_of(0), points_of(v_idx[c]), seeds, f_idx)
                st["status"], st["interval"] = stop_status(st["d"], b, total_batches,
                                                           precision, margin, early,
                                                           min_batches)
                st["seeds"] = list(seeds)
            done = [c for c in running if state[c]["status"]]
            left = [state[c]["interval"] for c in running if not state[c]["status"]]
            say(f"  batch {b}: {len(seeds)} seeds, {n_games:,} games; "
                f"{len(running) - len(done)} card(s) still running"
                + (f" (widest +-{max((h - lo) / 2 for _, lo, h in left):.3f})"
                   if left else "")
                + (f"; stopped: " + ", ".join(f"{c} ({state[c]['status']})" for c in done)
                   if done else ""))
    finally:
        if owned and pool is not None:
            pool.shutdown()
    # the deck's IWD from its own games (each seed's pairs against the field: one unit
    # per pair, as card_stats' bootstrap resamples duplicate deals)
    for u in units_orig:
        for side in u:
            if side["deck"] != deck:
                side["deck"] = "field"
    iwd = {r["card"]: r for r in card_table(units_orig, samples=bootstrap, seed=seed,
                                            decks={deck}, names=names,
                                            deck_lists={deck: sorted(counts)})}
    rows = []
    for c in wanted:
        st = state[c]
        mean, lo, hi = st["interval"]
        row = {"card": c, "name": names.get(c, c), "copies": counts[c],
               "value": round(mean, 4), "low": round(lo, 4), "high": round(hi, 4),
               "seeds": len(st["d"]), "units": len(st["d"]) * len(field),
               "games": 2 * len(st["d"]) * len(field), "status": st["status"]}
        if c in v_idx:
            used = st.get("seeds", [])
            keys_c = [(j, s) for s in used for j in f_idx]
            row["identical"] = round(float(np.mean(
                [same[(0, j, s)] == same[(v_idx[c], j, s)] for j, s in keys_c])), 4) \
                if keys_c else None
            row["se_ratio"] = _round(paired_se_ratio(
                [np.mean([points[(0, j, s)] for j in f_idx]) / 2 for s in used],
                [np.mean([points[(v_idx[c], j, s)] for j in f_idx]) / 2 for s in used]))
        else:
            row["identical"], row["se_ratio"] = 1.0, None
        r = iwd.get(c, {})
        row["iwd"], row["iwd_low"], row["iwd_high"] = (r.get("iwd"), r.get("iwd_low"),
                                                      r.get("iwd_high"))
        row["in_hand_games"] = r.get("in_hand_games")
        row["breaks"] = "; ".join(breaks.get(c, []))
        rows.append(row)
    weak = None
    if weakest:
        weak = relative_to_weakest(rows, state, wanted)
    rows.sort(key=lambda r: (-r["value"], r["card"]))
    return {"deck": mine.name, "deck_spec": deck, "pilot": pilot, "field": list(field),
            "baseline": {"card": base.id, "name": base.name, "why": base_why},
            "weakest": weak, "precision": precision, "level": LEVEL,
            "alpha_fixed": ALPHA_FIXED, "alpha_decide": ALPHA_DECIDE,
            "batch": batch, "max_seeds": max_seeds, "seeds": [seeds_from,
                                                              seeds_from + len(seeds)],
            "seed": seed, "deal": deal, "games": n_games,
            "original_games": 2 * len(seeds) * len(field),
            "seconds": round(time.perf_counter() - t0, 1), "rows": rows}


def relative_to_weakest(rows, state, wanted) -> dict | None:
    """Re-express each row's value relative to the card of lowest value W: per seed
    d_X - d_W over the seeds both played (the first ones: each card's seeds are a prefix
    of the run's), a t interval at ``LEVEL``, paired; ``state``: card -> {"d": per-seed
    differences against the fixed baseline}.  Rows change in place (the fixed-baseline
    value kept as ``value_vs_baseline``); returns W's card and name."""
    measured = [r for r in rows if r["status"] != "baseline"]
    if not measured:
        return None
    w = min(measured, key=lambda r: (r["value"], r["card"]))
    dw = state[w["card"]]["d"]
    for r in rows:
        d = state[r["card"]]["d"]
        if r["status"] == "baseline":
            d = np.zeros(len(dw))                    # the baseline's value is 0 by definition
        n = min(len(d), len(dw))
        mean, lo, hi = t_interval(d[:n] - dw[:n], 1 - LEVEL)
        if r["card"] == w["card"]:
            mean, lo, hi = 0.0, 0.0, 0.0
        r["value_vs_baseline"] = r["value"]
        r["value"], r["low"], r["high"] = round(mean, 4), round(lo, 4), round(hi, 4)
        r["paired_seeds"] = n
    return {"card": w["card"], "name": w["name"]}


def _round(x, k: int = 4):
    return None if x is None else round(float(x), k)


def cards_command(args, runner) -> dict:
    """``evaluate.py cards DECK``: rank the deck's cards by causal value, IWD beside."""
    from nivel_env.cards import list_decks

    from .card_value_report import print_values, write_card_values
    from .deck_commands import check_decks, say_pilot
    from .deck_history import run_record
    field = [d for d in (args.field or list_decks()) if d != args.deck]
    if not field:
        raise SystemExit("evaluate.py cards: the field is empty")
    check_decks("cards", [args.deck] + field, args.pilot)
    if args.precision <= 0:
        raise SystemExit("evaluate.py cards: --precision must be above 0")
    say_pilot(args)
    command = "python evaluate.py " + " ".join(args.argv)
    try:
        report = card_values(args.deck, field, args.pilot, runner=runner,
                             baseline=args.baseline, precision=args.precision,
                             max_seeds=args.games, batch=args.batch, seed=args.seed,
                             deal=args.deal, out=args.out, bootstrap=args.bootstrap,
                             early=not args.no_early, progress=not args.no_progress,
                             save_replays=args.save_replays,
                             say=lambda x: print(x, flush=True))
    except ValueError as e:
        raise SystemExit(f"evaluate.py cards: {e}") from None
    report["command"] = command
    report["ran_on"] = runner.info()
    report.update(run_record([args.deck] + field))    # time, card files, deck contents
    print_values(report)
    files = write_card_values(report, Path(args.out), command)
    print(f"\n{report['games']:,} games in {report['seconds']} s; wrote "
          + ", ".join(str(p) for p in files))
    return report


__all__ = ["card_values", "cards_command", "default_baseline", "variant_deck",
           "ordered_deck_text", "write_variant", "stop_status", "t_interval",
           "decision_looks", "seed_differences", "paired_se_ratio", "relative_to_weakest",
           "ALPHA_FIXED", "ALPHA_DECIDE", "LEVEL"]
