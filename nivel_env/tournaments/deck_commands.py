"""evaluate.py's deck commands: ``decks`` (every pair), ``gauntlet`` (one deck against a
field) and ``compare`` (deck A against deck B over a field, a sequential test), each under
one pilot in both seats, on duplicate deals; the report (matrix, ratings, metagame, card
analytics, report.html).  docs/decks.md explains the statistics.

``decks`` and ``gauntlet`` write every seed's games to ``OUT/results.jsonl`` as they
finish and make the report from that file (``deck_results``), so a failed analysis
or a stopped run loses nothing: ``--from OUT/results.jsonl`` analyses it again."""
from __future__ import annotations

import json
import sys
from itertools import combinations
from pathlib import Path

import numpy as np

from nivel_env.install_hints import PLAY_POLICIES

from .deck_history import run_record
from .deck_results import (NAME as RESULTS, ResultsFileError, ResultsWriter, read_results,
                           results_kind)
from .games import BLOCK, cached_agent, cached_deck, play_block
from .ratings import few_games, paired_score, wilson
from .runner import Runner, run_tasks
from .tables import (SHADING, player_units, print_report, rating_table, score_matrix, se_ratio,
                     unique_labels, write_tables)

# the strongest pilot that keeps a full bundled deck benchmark within about 10 minutes on
# 2 cores (docs/decks.md has the measurement); without torch, the heuristic
PILOT = "nv2-ppo"
PILOT_FALLBACK = "heuristic"


def default_pilot() -> tuple[str, str]:
    """(pilot, why) for deck commands run without --pilot."""
    import importlib.util
    if importlib.util.find_spec("torch"):               # a policy file plays on torch alone
        return PILOT, "the default"
    return PILOT_FALLBACK, f"the default without torch (then {PILOT}); {PLAY_POLICIES}"


def run_deck_tasks(tasks, args, runner: Runner, desc: str, pool=None,
                   progress: bool | None = None, writer: ResultsWriter | None = None):
    """``decks``-mode tasks on ``runner`` (or ``pool``), in lockstep blocks when the pilot
    is a policy (the same games, far fewer forwards), else one seed at a time; results in
    task order, each handed to ``writer`` as it arrives."""
    from .lockstep import lockstep_ready
    progress = not args.no_progress if progress is None else progress
    if not lockstep_ready(cached_agent(args.pilot, 0)):
        return run_tasks(tasks, runner, desc, progress, pool,
                         on_result=writer.add if writer else None)
    blocks, cur = [], []
    for t in tasks:                     # consecutive seeds of one deck pair
        if cur and (len(cur) == BLOCK or t[:2] != cur[0][:2]):
            blocks.append(cur)
            cur = []
        cur.append(t)
    if cur:
        blocks.append(cur)
    results = run_tasks(blocks, runner, desc, progress, pool, fn=play_block, size=len,
                        on_result=writer.add_block if writer else None)
    return [r for block in results for r in block]


def check_decks(cmd: str, decks, pilot: str) -> None:
    """Fail early, naming the deck or pilot at fault, before any game is played."""
    for d in decks:
        try:
            cached_deck(d)
        except Exception as e:
            raise SystemExit(f"evaluate.py {cmd}: {e}") from None
    try:
        cached_agent(pilot, 0)
    except Exception as e:
        raise SystemExit(f"evaluate.py {cmd}: --pilot {pilot}: {e}") from None


DEALS = {"mirror": "decks", "swap": "decks-swap"}     # --deal -> play_pair's mode
DEAL_TEXT = {"mirror": "duplicate deal: decks exchange seats, each deck's shuffle kept, "
                       "the first player exchanged",
             "swap": "seat swap: decks exchange seats on the same seed, reshuffled, the "
                     "first player exchanged"}


def deck_tasks(decks, meet, games: int, seeds_from: int, pilot, replays, seed: int,
                deal: str = "mirror"):
    """Each pair ``(i, j)`` in ``meet`` at seeds ``seeds_from .. seeds_from + games - 1``
    (offset by ``--seed``), each seed twice as ``deal`` says (``DEALS``)."""
    tasks, keys = [], []
    for i, j in meet:
        for g in range(seeds_from, seeds_from + games):
            tasks.append((decks[i], decks[j], pilot, pilot, seed * 1_000_003 + g, replays,
                          DEALS[deal]))
            keys.append((i, j))
    return tasks, keys


def _collect(keys, res):
    """Per pair the list of duplicate-pair points of the first deck; the card analytics'
    units (each deal's four sides); every game."""
    per_pair: dict = {}
    units = []
    for key, pair in zip(keys, res):
        per_pair.setdefault(key, []).append(sum(x["points"] for x in pair))
        units.append([side for game in pair for side in game["sides"]])
    return per_pair, units, [x for pair in res for x in pair]


def _deck_report(args, kind: str, decks, per_pair, units, all_games, field=None,
                 mine=None, ran_on=None, partial=None) -> dict:
    """Matrix, ratings, overall scores, first-player advantage, lengths, metagame, card
    analytics; JSON, CSVs, PNGs and one HTML page in ``--out``.  ``field``: the indices
    whose mean rating is 0 (a gauntlet's field); ``mine``: the gauntlet's deck;
    ``ran_on``: where the games were played; ``partial``: what is missing, if the run
    stopped early."""
    from .card_stats import card_table, write_card_report
    from .metagame import metagame
    labels = unique_labels([cached_deck(d).name for d in decks])
    label_of = dict(zip(decks, labels))
    m, rows = score_matrix(labels, per_pair)
    n = len(all_games)
    decided = [x for x in all_games if not x["draw"]]
    fp = sum(x["first_player_won"] for x in decided)
    lo, hi = wilson(fp, len(decided))
    overall = []
    for i, name in enumerate(labels):
        pts = player_units(per_pair, i)
        if not pts:
            continue
        st = paired_score(pts)
        overall.append({"deck": name, "games": 2 * len(pts), "score": round(st["score"], 4),
                        "low": round(st["low"], 4), "high": round(st["high"], 4),
                        "note": few_games(st["score"], 2 * len(pts), st["low"], st["high"])})
    complete = all((i, j) in per_pair or (j, i) in per_pair
                   for i, j in combinations(range(len(decks)), 2))
    ratings = (rating_table(labels, per_pair, args.seed, args.bootstrap, field)
               if complete else None)
    for u in units:
        for side in u:
            side["deck"] = label_of.get(side["deck"], side["deck"])
    db = cached_deck(decks[0]).db
    names = {c.id: c.name for c in db.cards if hasattr(c, "name")}
    deck_lists = {label_of[d]: sorted(set(cached_deck(d).card_ids())) for d in decks}
    cards = card_table(units, samples=args.bootstrap, seed=args.seed, names=names,
                       deck_lists=deck_lists, decks={labels[mine]} if mine is not None else None)
    report = {"command": "python evaluate.py " + " ".join(args.argv),
              "ran_on": ran_on or Runner(args.workers).info(), "kind": kind,
              **({"partial": partial} if partial else {}),
              "pilot": args.pilot, "pilot_chosen": args.pilot_why, "agent": args.pilot,
              "decks": decks, "games": n,
              "games_per_pair": 2 * args.games,
              "play": DEAL_TEXT[args.deal], "deal": args.deal,
              "se_ratio_vs_independent": se_ratio(rows),
              "ratings": ratings,
              "rating_scale": "Elo (400 log10 odds), " + ("the field's mean = 0" if field
                                                          else "mean = 0"),
              "overall": sorted(overall, key=lambda r: -r["score"]),
              "first_player_win_rate": {"rate": round(fp / len(decided), 4) if decided else None,
                                        "low": round(lo, 4), "high": round(hi, 4),
                                        "decided_games": len(decided)},
              "draws": n - len(decided),
              "mean_turns": round(float(np.mean([x["turns"] for x in all_games])), 2),
              "mean_decisions": round(float(np.mean([x["decisions"] for x in all_games])), 1),
              "metagame": (metagame(m, labels, per_pair, args.bootstrap, args.seed)
                           if complete else None),
              "matrix": rows}
    if mine is not None:
        report["deck"] = labels[mine]
        report["against_field"] = [r for r in rows if r["row"] == labels[mine]]
    out = Path(args.out)
    # the heatmap by rating, each cell with its interval
    order = ([labels.index(r["name"]) for r in ratings] if ratings
             else list(range(len(labels))))
    k = len(labels)
    cell = {(r["row"], r["column"]): r for r in rows}
    score, low, high = (np.full((k, k), np.nan) for _ in range(3))
    for a, i in enumerate(order):
        for b, j in enumerate(order):
            c = cell.get((labels[i], labels[j]))
            if c:
                score[a, b], low[a, b], high[a, b] = c["score"], c["low"], c["high"]
    files = write_tables(out, kind, rows, report, score, [labels[i] for i in order],
                         f"{kind.capitalize()} ({args.pilot} both seats): row's score, "
                         f"by rating", low, high)
    files += write_card_report(cards, out, "cards")
    files.append(_deck_html(out, kind, report, cards, all_games))
    print_report(report, labels, m, files)
    return report


def _deck_html(out: Path, kind: str, report, cards, all_games) -> Path:
    """report.html: everything above on one page, the plots embedded."""
    from . import deck_report as R
    sections = [("How this was measured", (
        f"<p>Pilot <code>{report['pilot']}</code> in both seats; {report['games']:,} games, "
        f"{report['games_per_pair']} per pair, each seed twice ({report['play']}); the "
        f"standard error is {report['se_ratio_vs_independent']}x that of as many "
        f"independent games. "
        f"Command: <code>{report['command']}</code></p>"))]
    sections.append(("Score matrix", R.image_html(out / f"{kind}_heatmap.png",
                                                   "score matrix")
                     + f"<p class='note'>Row's score against column, by rating; {SHADING}. "
                       f"A pair's note in {kind}_matrix.csv says how many more games would "
                       f"settle it.</p>"))
    if report["ratings"]:
        rp = R.ratings_plot(report["ratings"], out / f"{kind}_ratings.png",
                            report["rating_scale"])
        sections.append(("Ratings", R.image_html(rp, "ratings") + R.table_html(
            report["ratings"], [("name", "deck"), ("rating", "rating"), ("low", "low"),
                                ("high", "high"), ("games", "games"),
                                ("note", "small sample")])))
    sections.append(("Overall score", R.table_html(
        report["overall"], [("deck", "deck"), ("games", "games"), ("score", "score"),
                            ("low", "low"), ("high", "high"), ("note", "small sample")])))
    if report["metagame"]:
        mg = report["metagame"]
        boot = mg.get("bootstrap_samples")
        sections.append(("Metagame (Nash equilibrium of the matrix)", (
            f"<p class='note'>The mix of decks a field of strong players drifts to: no deck "
            f"scores above 0.5 against it. Support: {', '.join(mg['support'])}. The uniform "
            f"field is exploitable by {mg['exploitability_uniform']:.3f} (best response: "
            f"{mg['best_response_to_uniform']}).</p>"
            + (f"<p class='note'>The matrix is measured, so the equilibrium is uncertain: "
               f"each pair's deals were resampled {boot:,} times (the ratings' resamples) "
               f"and the equilibrium solved on each. Low and high: each weight's 95% "
               f"interval; in support: the share of resamples that gave the deck a "
               f"weight.</p>" if boot else "")
            + R.table_html(
                mg["equilibrium"], [("deck", "deck"), ("weight", "weight")]
                + ([("weight_low", "low"), ("weight_high", "high"),
                    ("support_freq", "in support")] if boot else [])
                + [("payoff", "score vs equilibrium"),
                   ("payoff_vs_uniform", "score vs uniform field")]))))
    f = report["first_player_win_rate"]
    lengths = R.lengths_plot([g["turns"] for g in all_games], out / f"{kind}_lengths.png")
    sections.append(("First player and game length", (
        f"<p>The first player won {f['rate']} of decided games "
        f"[{f['low']}, {f['high']}] ({f['decided_games']:,} games, {report['draws']} draws); "
        f"{report['mean_turns']} turns and {report['mean_decisions']} decisions a game.</p>"
        + R.image_html(lengths, "game lengths"))))
    if cards:
        from .card_stats import ALPHA, MIN_GAMES, cards_html
        sections.append(("Cards", (
            "<p class='note'>Per deck and card: win rate in games it was in hand (GIH), in "
            "the opening hand, reached the hand only later (drawn later), sent back by the "
            "mulligan, played, never in hand, and the improvement when drawn (IWD = GIH - "
            "never in hand) with a 95% bootstrap interval; correlation, not cause. Games "
            f"in brackets; grey: fewer than {MIN_GAMES} games, too few to read. q: the "
            "IWD's p-value adjusted by Benjamini-Hochberg over every IWD not greyed; "
            f"significant: q < {ALPHA}. All rows in cards.csv, cards_by_opponent.csv and "
            "cards_by_turn.csv.</p>"
            + R.image_html(out / "cards.png", "card impact") + cards_html(cards))))
    return R.write_html(out / "report.html", f"Nivel Arena {kind}: {report['pilot']}",
                        sections)


def deck_benchmark(args, runner: Runner) -> dict:
    """Every pair of ``args.decks`` under one pilot, played on ``runner`` (or, with
    ``args.from_results``, the report again from an earlier run's results)."""
    from nivel_env.cards import list_decks
    if getattr(args, "from_results", None):
        return reanalyse(args, "decks")
    decks = args.decks or list_decks()
    if len(decks) < 2:
        raise SystemExit("evaluate.py decks: give at least two decks")
    check_decks("decks", decks, args.pilot)
    say_pilot(args)
    meet = list(combinations(range(len(decks)), 2))
    tasks, keys = deck_tasks(decks, meet, args.games, 0, args.pilot, args.save_replays,
                              args.seed, args.deal)
    return _play_and_report(args, runner, "decks", decks, tasks, keys)


def _play_and_report(args, runner: Runner, kind: str, decks, tasks, keys, field=None,
                     mine=None) -> dict:
    """Play ``tasks``, each seed's games appended to ``OUT/results.jsonl`` as they finish,
    then the report from that file's records."""
    path = Path(args.out) / RESULTS
    header = {"kind": kind, "command": "python evaluate.py " + " ".join(args.argv),
              "argv": list(args.argv), "ran_on": runner.info(),
              "decks": list(decks), "pilot": args.pilot, "pilot_chosen": args.pilot_why,
              "games": args.games, "seed": args.seed, "deal": args.deal,
              "bootstrap": args.bootstrap, "field": field, "mine": mine,
              **run_record(decks)}
    writer = ResultsWriter(path, header, tasks, keys)
    if writer.moved:
        print(f"kept the earlier run's results: {path} -> {writer.moved} (python evaluate.py "
              f"{results_kind(writer.moved) or kind} --from {writer.moved} --out DIR "
              f"analyses them)")
    try:
        run_deck_tasks(tasks, args, runner, kind, writer=writer)
    except BaseException:
        writer.close()
        print(f"evaluate.py {kind}: stopped after {len(writer.records)} of {len(tasks)} "
              f"seeds; those games are kept in {path} (python evaluate.py {kind} --from "
              f"{path} analyses them)", file=sys.stderr)
        raise
    writer.close()
    return _analyse(args, writer.header, writer.records, path)


def _analyse(args, header: dict, records: list, path: Path) -> dict:
    """The report of a results file's records; if it fails, the user is told the games
    are kept and how to analyse them again."""
    kind = header["kind"]
    try:
        if not records:
            raise ResultsFileError(f"{path}: no seed was played; nothing to analyse")
        keys = [tuple(r["pair"]) for r in records]
        per_pair, units, games = _collect(keys, [r["games"] for r in records])
        partial = (f"{len(records)} of {header['tasks']} seeds played (the run stopped "
                   f"early)" if len(records) < header["tasks"] else None)
        if partial:
            print(f"note: {partial}")
        if kind == "gauntlet":            # the card analytics read my deck's games only
            units = [u for k, u in zip(keys, units) if k[0] == header["mine"]]
        return _deck_report(args, kind, header["decks"], per_pair, units, games,
                            field=header.get("field"), mine=header.get("mine"),
                            ran_on=header.get("ran_on"), partial=partial)
    except ResultsFileError:
        raise
    except Exception:
        print(f"evaluate.py {kind}: the analysis failed; the {len(records)} seeds played "
              f"are kept in {path}: python evaluate.py {kind} --from {path} analyses them "
              f"again without replaying", file=sys.stderr)
        raise


def reanalyse(args, kind: str) -> dict:
    """``evaluate.py decks --from RESULTS`` (or ``gauntlet``): the report of a results
    file, no game replayed; the run's own settings (decks, pilot, seeds, deal, bootstrap
    samples unless --bootstrap is given) come from the file, the report goes to --out
    (default: the file's folder)."""
    path = Path(args.from_results)
    try:
        header, records = read_results(path, kind)
    except ResultsFileError as e:
        raise SystemExit(f"evaluate.py {kind} --from: {e}") from None
    for d in header["decks"]:
        try:
            cached_deck(d)
        except Exception as e:
            raise SystemExit(f"evaluate.py {kind} --from {path}: {e}") from None
    args.argv, args.pilot = header["argv"], header["pilot"]
    args.pilot_why = header.get("pilot_chosen")
    args.games, args.seed, args.deal = header["games"], header["seed"], header["deal"]
    if args.bootstrap is None:
        args.bootstrap = header["bootstrap"]
    if args.out is None:
        args.out = str(path.parent)
    print(f"{kind} from {path}: {len(records)} seeds, pilot {args.pilot}; no game replayed")
    try:
        return _analyse(args, header, records, path)
    except ResultsFileError as e:
        raise SystemExit(f"evaluate.py {kind} --from: {e}") from None


def gauntlet(args, runner: Runner) -> dict:
    """My deck against each deck of a field; the field's own pairs too (for the rating
    on the field's scale) unless ``--field-games 0``."""
    from nivel_env.cards import list_decks
    if getattr(args, "from_results", None):
        return reanalyse(args, "gauntlet")
    field = [d for d in (args.field or list_decks()) if d != args.deck]
    if not field:
        raise SystemExit("evaluate.py gauntlet: the field is empty")
    decks = [args.deck] + field
    check_decks("gauntlet", decks, args.pilot)
    say_pilot(args)
    mine = [(0, j) for j in range(1, len(decks))]
    tasks, keys = deck_tasks(decks, mine, args.games, 0, args.pilot, args.save_replays,
                              args.seed, args.deal)
    fg = args.games if args.field_games is None else args.field_games
    if fg > 0:
        t2, k2 = deck_tasks(decks, list(combinations(range(1, len(decks)), 2)), fg, 0,
                             args.pilot, args.save_replays, args.seed, args.deal)
        tasks, keys = tasks + t2, keys + k2
    return _play_and_report(args, runner, "gauntlet", decks, tasks, keys,
                            field=list(range(1, len(decks))) if fg > 0 else None, mine=0)


def sprt_test(args, runner: Runner, a: str, b: str, field, pool=None, seeds_from: int = 0,
              max_games: int | None = None, say=print, state=None) -> dict:
    """The core of ``compare``: deck ``a`` against deck ``b`` over ``field`` under
    ``args.pilot``, played on ``runner`` (or ``pool``), batches of ``args.batch`` seeds
    from ``seeds_from`` until the GSPRT on (``args.elo0``, ``args.elo1``, ``args.alpha``,
    ``args.beta``) decides or the test holds ``max_games`` games.  Returns the result
    (``status`` "H1", "H0" or None, games, history).

    ``state``: a ``sprt.SprtRun`` to play into (``SprtRun.start``); the test continues
    from whatever it holds (its units, points, history, bootstrap state) on the seeds from
    ``seeds_from``, which must be fresh, so a test stopped undecided at a budget can be
    resumed with a larger ``max_games`` (``deck_tune``).  Without one, a fresh test."""
    from .sprt import SprtRun, score_to_elo
    decks = [a, b] + list(field)
    names = unique_labels([cached_deck(d).name for d in decks])
    max_games = args.max_games if max_games is None else max_games
    run = state if state is not None else SprtRun.start(args, seeds_from)
    if any(lo <= seeds_from < hi for lo, hi in run.seed_ranges):
        raise ValueError(f"sprt_test: seed {seeds_from} was already played in this test "
                         f"({run.seed_ranges}); a resumed test needs fresh seeds")
    sprt, rng, pts_a, pts_b, history = run.sprt, run.rng, run.pts_a, run.pts_b, run.history
    seeds = seeds_from
    meet = [(0, j) for j in range(2, len(decks))] + [(1, j) for j in range(2, len(decks))]
    while sprt.status is None and 4 * len(pts_a) < max_games:
        tasks, keys = deck_tasks(decks, meet, args.batch, seeds, args.pilot,
                                  args.save_replays, args.seed, args.deal)
        res = run_deck_tasks(tasks, args, runner, "compare", pool, progress=False)
        got = {(i, j, t[4]): sum(x["points"] for x in pair)
               for (i, j), t, pair in zip(keys, tasks, res)}
        units = []
        for (i, j, sd), v in sorted(got.items()):
            if i == 0:
                pa, pb = v, got[(1, j, sd)]
                pts_a.append(pa)
                pts_b.append(pb)
                units.append((pa - pb) / 2)
        sprt.add(units)
        run.played(seeds, seeds + args.batch)
        seeds += args.batch
        pa_arr, pb_arr = np.asarray(pts_a) / 2, np.asarray(pts_b) / 2
        sa, sb = float(pa_arr.mean()), float(pb_arr.mean())
        diff = score_to_elo(sa) - score_to_elo(sb)
        boot = []
        for _ in range(args.bootstrap):                  # A and B resampled together
            k = rng.integers(len(pa_arr), size=len(pa_arr))
            boot.append(score_to_elo(pa_arr[k].mean()) - score_to_elo(pb_arr[k].mean()))
        lo, hi = np.percentile(boot, [2.5, 97.5])
        row = {"games": 4 * len(pts_a), "llr": round(sprt.llr, 3), "elo_diff": round(diff, 1),
               "low": round(float(lo), 1), "high": round(float(hi), 1),
               "score_a": round(sa, 4), "score_b": round(sb, 4)}
        history.append(row)
        say(f"  {row['games']:6d} games  LLR {row['llr']:6.2f} "
            f"[{sprt.lower:.2f}, {sprt.upper:.2f}]  Elo {names[0]} - {names[1]}: "
            f"{diff:+6.1f} [{lo:+.1f}, {hi:+.1f}]  (vs field {sa:.3f} / {sb:.3f})")
    verdict = {"H1": f"{names[0]} is stronger (accepted elo1 = {args.elo1})",
               "H0": f"{names[0]} is not stronger by elo1 (accepted elo0 = {args.elo0})",
               None: f"undecided after {max_games:,} games"}[sprt.status]
    fixed = sprt.fixed_units()
    return {"pilot": args.pilot, "deck_a": names[0], "deck_b": names[1], "field": names[2:],
            "elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
            "bounds": [round(sprt.lower, 3), round(sprt.upper, 3)], "status": sprt.status,
            "verdict": verdict, "games": 4 * len(pts_a), "seeds": [seeds_from, seeds],
            "fixed_test_games": 4 * fixed if fixed else None,
            "unit": "one seed and field deck: A's duplicate pair and B's, 4 games",
            "history": history}


def compare(args, runner: Runner) -> dict:
    """Is deck A stronger than deck B against the field?  Batches of duplicate deals (A
    and B each against every field deck on the same seeds), a GSPRT on the Elo bounds
    after each batch, until it decides or ``--max-games``."""
    from nivel_env.cards import list_decks

    from .sprt import SPRT
    a, b = args.deck_a, args.deck_b
    field = [d for d in (args.field or list_decks()) if d not in (a, b)]
    if not field:
        raise SystemExit("evaluate.py compare: the field is empty")
    check_decks("compare", [a, b] + field, args.pilot)
    try:
        bounds = SPRT(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as e:
        raise SystemExit(f"evaluate.py compare: {e}") from None
    say_pilot(args)
    names = unique_labels([cached_deck(d).name for d in [a, b] + field])
    print(f"{names[0]} against {names[1]} over a field of {len(field)}: SPRT elo0 "
          f"{args.elo0}, elo1 {args.elo1}, alpha {args.alpha}, beta {args.beta}; bounds "
          f"[{bounds.lower:.2f}, {bounds.upper:.2f}]; {4 * len(field) * args.batch} games a "
          f"batch")
    pool = runner.pool()
    try:
        report = sprt_test(args, runner, a, b, field, pool,
                           say=lambda x: print(x, flush=True))
    finally:
        if pool is not None:
            pool.shutdown()
    from .compare_report import write_compare_report
    from .sprt import elo_to_score
    report = {"command": "python evaluate.py " + " ".join(args.argv),
              "ran_on": runner.info(), "kind": "compare",
              **report}
    report.update(deck_specs=[a, b], **run_record([a, b] + field))   # deck_history reads
    if report["history"]:          # the Elo difference as A's expected score against B
        last = report["history"][-1]
        report["note"] = few_games(elo_to_score(last["elo_diff"]), report["games"],
                                   elo_to_score(last["low"]), elo_to_score(last["high"]))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(report, indent=2))
    files = [out / "compare.json"] + write_compare_report(out, report)
    saved = (f"; a fixed-size test with the same error rates needs about "
             f"{report['fixed_test_games']:,} games" if report["fixed_test_games"] else "")
    note = (f"\nthe Elo difference itself: {report['note']} (its interval read as A's "
            f"score against B)" if report.get("note") else "")
    print(f"\n{report['verdict']}: {report['games']:,} games{saved}{note}\n"
          f"wrote " + ", ".join(str(f) for f in files))
    return report


def say_pilot(args) -> None:
    print(f"pilot: {args.pilot}" + ("" if args.pilot_why == "given" else
                                    f" ({args.pilot_why}; --pilot NAME for another)"))
