"""Agent tournaments and deck-strength benchmarks.

Every seed is played twice.  Between agents this is duplicate play: the same deal (decks,
shuffles, first player) with the agents exchanged, so the luck of the deal cancels and an
agent against itself scores exactly 0.5.  Between decks it is the duplicate deal for
decks: the decks exchange seats under the same agent and each deck draws the same cards
in both games, the deck that went first going second.  Intervals treat each seed's two games as one unit (they are correlated).
Games run on all cores; results depend only on --seed (each game's agents are seeded from
the game's seed and their seat, not from the worker).

    # round robin between agents (bundled names or policy files), Elo-scale ratings
    python evaluate.py agents random heuristic runs/nv1/policy.pt --games 100

    # a gauntlet: each agent only against the --against ones (settings after a colon)
    python evaluate.py agents nv2-search:simulations=16 nv2-search:simulations=64 \
        --against nv2-ppo heuristic --games 100

    # every bundled deck pair under one pilot: win-rate matrix, ratings, metagame, card
    # analytics, first-player win rate, game length, report.html
    python evaluate.py decks --pilot nv2-ppo --games 200

    # my deck against a field (default: the bundled decks), rated on the field's scale
    python evaluate.py gauntlet my.deck --games 200

    # is A stronger than B against the field?  Batches until a sequential test decides
    python evaluate.py compare a.deck b.deck --elo0 0 --elo1 10 --alpha 0.05 --beta 0.05

All write CSV, JSON and PNGs to --out (docs/decks.md explains the deck statistics).
"""
from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path

import numpy as np

from agents.arena import play_game
from agents.ratings import (bootstrap_ratings, bradley_terry, paired_score, points_matrix,
                            wilson)

_CACHE: dict = {}
# the strongest pilot that keeps a full bundled deck benchmark within about 10 minutes on
# 2 cores (docs/decks.md has the measurement); without the training extras, the heuristic
PILOT = "nv2-ppo"
PILOT_FALLBACK = "heuristic"


def default_pilot() -> tuple[str, str]:
    """(pilot, why) for deck commands run without --pilot."""
    import importlib.util
    if all(importlib.util.find_spec(m) for m in ("torch", "sb3_contrib")):
        return PILOT, "the default"
    return PILOT_FALLBACK, (f"the default without torch and sb3-contrib; install the "
                            f"training extras for {PILOT}")


def _deck(spec: str):
    from nivel_env.cards import load_deck
    if spec not in _CACHE:
        _CACHE[spec] = load_deck(spec)
    return _CACHE[spec]


def _agent(spec: str, seed: int, seat: int = 0):
    """The agent ``spec`` for one seat (each seat has its own instance, so an agent
    playing itself never shares a generator), reseeded for this game and seat."""
    from agents import load_opponent
    key = ("agent", spec, seat)
    if key not in _CACHE:
        _CACHE[key] = load_opponent(spec, seed=seed)
    a = _CACHE[key]
    if hasattr(a, "rng"):                         # results independent of which worker plays
        a.rng = np.random.default_rng(seed * 2 + seat)      # which game
    return a


def _play_pair(task):
    """One seed, played twice: ``(d0, d1, a0, a1, seed, replay_dir, mode)`` -> two result
    dicts from the point of view of the task's first side (a0 in ``agents`` mode, d0 in
    ``decks`` mode), and two replay files when ``replay_dir`` is set.

    ``agents`` mode is duplicate play: the same deal both times (d0 in seat 0, d1 in seat
    1, the same shuffles and first player, all from the seed) with the agents exchanged,
    so the luck of the deal cancels.  ``decks`` mode is the duplicate deal for decks: the
    decks exchange seats and the second game is the seed's mirror (``new_game``), so each
    deck draws the same cards in both games and the deck that went first goes second."""
    d0, d1, a0, a1, seed, replay_dir, mode = task
    out = []
    for swap in (False, True):
        if mode == "agents":
            decks = (_deck(d0), _deck(d1))
            specs = (a1, a0) if swap else (a0, a1)
        else:
            decks = (_deck(d1), _deck(d0)) if swap else (_deck(d0), _deck(d1))
            specs = (a1, a0) if swap else (a0, a1)
        agents = (_agent(specs[0], seed, 0), _agent(specs[1], seed, 1))
        actions: list = []
        times: tuple = ([], [])
        mirror = swap and mode == "decks"
        cards: list | None = [] if mode == "decks" else None
        r = play_game(decks[0], decks[1], seed, agents, record=actions, think_times=times,
                      mirror=mirror, cards=cards)
        if replay_dir:
            _save_replay(replay_dir, decks, specs, seed, actions, mirror)
        side = 1 if swap else 0
        out.append({"seed": seed, "swap": swap, "points": (r.returns[side] + 1) / 2,
                    "first_player_won": r.returns[r.first] > 0, "draw": r.returns == (0, 0),
                    "turns": r.turns, "decisions": r.decisions,
                    "think_seconds": {specs[0]: times[0], specs[1]: times[1]}
                    if specs[0] != specs[1] else {specs[0]: times[0] + times[1]}})
        if cards is not None:                  # each seat: its deck, points and cards
            seat_decks = (d1, d0) if swap else (d0, d1)
            out[-1]["sides"] = [{"deck": seat_decks[p], "points": (r.returns[p] + 1) / 2,
                                 **cards[p]} for p in (0, 1)]
    return out


BLOCK = 32          # seeds per lockstep block: 64 games share each forward


def _play_block(block):
    """A block of ``_play_pair`` tasks (one deck pair, consecutive seeds) in ``decks``
    mode with a policy pilot: all their games in lockstep (``agents.lockstep``), one
    forward per step.  Returns what ``_play_pair`` returns for each task, in order."""
    from agents.lockstep import play_lockstep
    d0, d1, pilot = block[0][0], block[0][1], block[0][2]
    agent = _agent(pilot, 0)
    games, rngs, meta = [], [], []
    for t in block:
        seed = t[4]
        for swap in (False, True):
            decks = (_deck(d1), _deck(d0)) if swap else (_deck(d0), _deck(d1))
            games.append((decks[0], decks[1], seed, swap))
            rngs.append([np.random.default_rng(seed * 2 + seat) for seat in (0, 1)])
            meta.append((t, swap, decks))
    played = play_lockstep(agent, games, rngs, record=bool(block[0][5]), cards=True)
    out, pair = [], []
    for (t, swap, decks), (r, actions, cards) in zip(meta, played):
        seed, replay_dir = t[4], t[5]
        if replay_dir:
            _save_replay(replay_dir, decks, (pilot, pilot), seed, actions, swap)
        side = 1 if swap else 0
        seat_decks = (d1, d0) if swap else (d0, d1)
        pair.append({"seed": seed, "swap": swap, "points": (r.returns[side] + 1) / 2,
                     "first_player_won": r.returns[r.first] > 0,
                     "draw": r.returns == (0, 0), "turns": r.turns, "decisions": r.decisions,
                     "think_seconds": {},
                     "sides": [{"deck": seat_decks[p], "points": (r.returns[p] + 1) / 2,
                                **cards[p]} for p in (0, 1)]})
        if swap:
            out.append(pair)
            pair = []
    return out


def _run_decks(tasks, args, desc: str, pool=None, progress: bool | None = None):
    """``decks``-mode tasks, in lockstep blocks when the pilot is a policy (the same
    games, far fewer forwards), else one seed at a time; results in task order."""
    from agents.lockstep import lockstep_ready
    progress = not args.no_progress if progress is None else progress
    if not lockstep_ready(_agent(args.pilot, 0)):
        return _run(tasks, args.workers, desc, progress, pool)
    blocks, cur = [], []
    for t in tasks:                     # consecutive seeds of one deck pair
        if cur and (len(cur) == BLOCK or t[:2] != cur[0][:2]):
            blocks.append(cur)
            cur = []
        cur.append(t)
    if cur:
        blocks.append(cur)
    results = _run(blocks, args.workers, desc, progress, pool, fn=_play_block,
                   size=len)
    return [r for block in results for r in block]


def think_time_report(results) -> dict:
    """Per agent: its seconds per real decision (more than one legal move), mean and 99th
    percentile, over every game it played (one core per game)."""
    per: dict = {}
    for pair in results:
        for game in pair:
            for spec, t in game["think_seconds"].items():
                per.setdefault(spec, []).extend(t)
    return {spec: {"moves": len(t), "mean_ms": round(1000 * float(np.mean(t)), 2),
                   "p99_ms": round(1000 * float(np.percentile(t, 99)), 2),
                   "max_ms": round(1000 * float(np.max(t)), 2)}
            for spec, t in per.items() if t}


def _save_replay(replay_dir, decks, agents, seed, actions, mirror=False):
    import re

    from nivel_env.replay import record_game
    stem = lambda x: re.sub(r"[^\w.-]", "_", Path(str(x)).stem)           # noqa: E731
    name = (f"{stem(decks[0].source) or decks[0].name}-{stem(agents[0])}-vs-"
            f"{stem(decks[1].source) or decks[1].name}-{stem(agents[1])}-seed{seed}"
            f"{'-mirror' if mirror else ''}.jsonl")
    record_game(decks[0], decks[1], seed, actions, players=[str(a) for a in agents],
                meta={"by": "evaluate.py"}, mirror=mirror).write(Path(replay_dir) / name)


def _threads(n: int | None) -> int | None:
    """Set torch's thread count (when torch is loaded); returns the previous one."""
    torch = sys.modules.get("torch")
    if torch is None or n is None:
        return None
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    return old


def _worker_init():
    """One thread per worker process: the workers already use every core."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass


def _pool(workers: int):
    """Worker processes for ``_run`` (reuse one across batches: starting them costs seconds)."""
    # not fork: a parent that loaded torch (a policy file) can deadlock forked children
    ctx = multiprocessing.get_context("forkserver")
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init)


def _run(tasks, workers: int, desc: str, progress: bool, pool=None, fn=None, size=None):
    """``fn`` (default ``_play_pair``) over ``tasks`` on ``workers`` processes (or
    ``pool``), in order; the bar counts seeds (``size(task)`` of them a task)."""
    from tqdm import tqdm
    fn = fn or _play_pair
    size = size or (lambda t: 1)
    results = []
    bar = tqdm(total=sum(size(t) for t in tasks), desc=desc, unit="seed", disable=not progress)
    chunk = 1 if fn is not _play_pair else max(1, len(tasks) // (workers * 8))
    if pool is not None:
        for t, r in zip(tasks, pool.map(fn, tasks, chunksize=chunk)):
            results.append(r)
            bar.update(size(t))
    elif workers <= 1:
        threads = _threads(1)         # one-position forwards: more threads only wait
        try:
            for t in tasks:
                results.append(fn(t))
                bar.update(size(t))
        finally:
            _threads(threads)
    else:
        with _pool(workers) as ex:
            for t, r in zip(tasks, ex.map(fn, tasks, chunksize=chunk)):
                results.append(r)
                bar.update(size(t))
    bar.close()
    return results


def _heatmap(matrix, labels, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    k = len(labels)
    longest = max(len(x) for x in labels)                  # room for long agent settings
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * k + 0.08 * longest,
                                    1.0 + 0.8 * k + 0.06 * longest))
    m = np.array(matrix, dtype=float)
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    for i in range(k):
        for j in range(k):
            if not np.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title(title)
    ax.set_xlabel("opponent")
    fig.colorbar(im, ax=ax, label="row's score")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def unique_labels(specs) -> list[str]:
    """Short names for a table: a policy file by its stem, lengthened by its parent
    folders until no two agree (runs/a/policy.pt, runs/b/policy.pt -> a/policy,
    b/policy); the same name given twice gets #2, #3."""
    parts = [Path(str(s)).with_suffix("").parts if str(s).endswith(".pt") else (str(s),)
             for s in specs]
    depth = [1] * len(specs)
    while True:
        names = ["/".join(p[-d:]) for p, d in zip(parts, depth)]
        clash = [i for i, n in enumerate(names) if names.count(n) > 1
                 and depth[i] < len(parts[i])]
        if not clash:
            break
        for i in clash:
            depth[i] += 1
    out, seen = [], {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def _matrix(labels, per_pair):
    """Score matrix (row vs column) with intervals from per-pair lists of per-seed points
    (each seed's two games, 0..2)."""
    k = len(labels)
    m = np.full((k, k), np.nan)
    rows = []
    for (i, j), pts in per_pair.items():
        pts = np.asarray(pts, dtype=float)
        for a, b, v in ((i, j, pts), (j, i, 2 - pts)):
            st = paired_score(v)
            m[a, b] = st["score"]
            rows.append({"row": labels[a], "column": labels[b], "games": 2 * len(v),
                         "score": round(st["score"], 4), "low": round(st["low"], 4),
                         "high": round(st["high"], 4),
                         "se_paired": round(st["se_paired"], 5),
                         "se_independent": round(st["se_independent"], 5)})
    return m, rows


def _se_ratio(rows):
    """Mean over the matrix of the paired standard error over that of as many independent
    games: below 1, the duplicate pairing removed that much noise."""
    ratios = [r["se_paired"] / r["se_independent"] for r in rows
              if r["se_independent"] > 0 and r["se_paired"] == r["se_paired"]]
    return round(float(np.mean(ratios)), 3) if ratios else None


def _ratings(labels, per_pair, seed, samples, anchor=None):
    k = len(labels)
    r = bradley_terry(points_matrix(per_pair, k, games_per_unit=2), anchor)
    lo, hi = bootstrap_ratings(per_pair, k, samples, seed, anchor, games_per_unit=2)
    return [{"name": labels[i], "rating": round(float(r[i]), 1), "low": round(float(lo[i]), 1),
             "high": round(float(hi[i]), 1)} for i in np.argsort(-r)]


def _write(out: Path, stem: str, matrix_rows, report, m, labels, title):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{stem}_matrix.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(matrix_rows[0]))
        w.writeheader()
        w.writerows(matrix_rows)
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2))
    _heatmap(m, labels, title, out / f"{stem}_heatmap.png")
    return [out / f"{stem}_matrix.csv", out / f"{stem}.json", out / f"{stem}_heatmap.png"]


def agents_tournament(args) -> dict:
    against = list(args.against or [])
    specs = args.agents + [a for a in against if a not in args.agents]
    if len(specs) < 2:
        raise SystemExit("evaluate.py agents: give at least two agents")
    for s in specs:                               # fail early, with the loader's message
        try:
            _agent(s, 0)
        except Exception as e:
            raise SystemExit(f"evaluate.py agents: {e}") from None
    from nivel_env.cards import list_decks
    decks = args.decks or list_decks()
    pairs = [(d0, d1) for d0 in decks for d1 in decks] if len(decks) > 1 else [(decks[0],) * 2]
    tasks, keys = [], []
    meet = list(combinations(range(len(specs)), 2))
    if against:                      # a gauntlet: each agent against the --against ones only
        mine, theirs = set(range(len(args.agents))), {specs.index(a) for a in against}
        meet = [(i, j) for i, j in meet
                if (i in mine and j in theirs) or (j in mine and i in theirs)]
    for i, j in meet:
        for g in range(args.games):
            d0, d1 = pairs[(g + i * 7 + j * 13) % len(pairs)]
            tasks.append((d0, d1, specs[i], specs[j], args.seed * 1_000_003 + g,
                          args.save_replays, "agents"))
            keys.append((i, j))
    res = _run(tasks, args.workers, "agents", not args.no_progress)
    per_pair: dict = {}
    for key, pair in zip(keys, res):
        per_pair.setdefault(key, []).append(sum(x["points"] for x in pair))
    labels = unique_labels(specs)
    m, rows = _matrix(labels, per_pair)
    anchor = labels.index("random") if "random" in labels else None
    report = {"command": "python evaluate.py " + " ".join(args.argv), "kind": "agents",
              "agents": specs, "against": against or None, "labels": labels, "decks": decks,
              "games_per_pair": 2 * args.games,
              "play": "duplicate: each seed's deal played twice, agents exchanged",
              "se_ratio_vs_independent": _se_ratio(rows),
              "ratings": _ratings(labels, per_pair, args.seed, args.bootstrap, anchor),
              "rating_scale": "Elo (400 log10 odds), " + ("random = 0" if anchor is not None
                                                          else "mean = 0"),
              "think_time": think_time_report(res),
              "matrix": rows}
    files = _write(Path(args.out), "agents", rows, report, m, labels,
                   "Agent tournament: row's score vs column")
    _print_report(report, labels, m, files)
    return report


def _check_decks(cmd: str, decks, pilot: str) -> None:
    """Fail early, naming the deck or pilot at fault, before any game is played."""
    for d in decks:
        try:
            _deck(d)
        except Exception as e:
            raise SystemExit(f"evaluate.py {cmd}: {e}") from None
    try:
        _agent(pilot, 0)
    except Exception as e:
        raise SystemExit(f"evaluate.py {cmd}: --pilot {pilot}: {e}") from None


def _deck_tasks(decks, meet, games: int, seeds_from: int, pilot, replays, seed: int):
    """Duplicate deals for decks: each pair ``(i, j)`` in ``meet`` at seeds
    ``seeds_from .. seeds_from + games - 1`` (seeds offset by ``--seed``)."""
    tasks, keys = [], []
    for i, j in meet:
        for g in range(seeds_from, seeds_from + games):
            tasks.append((decks[i], decks[j], pilot, pilot, seed * 1_000_003 + g, replays,
                          "decks"))
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
                 mine=None) -> dict:
    """Matrix, ratings, overall scores, first-player advantage, lengths, metagame, card
    analytics; JSON, CSVs, PNGs and one HTML page in ``--out``.  ``field``: the indices
    whose mean rating is 0 (a gauntlet's field); ``mine``: the gauntlet's deck."""
    from agents.card_stats import card_table, write_card_report
    from agents.metagame import metagame
    labels = unique_labels([_deck(d).name for d in decks])
    label_of = dict(zip(decks, labels))
    m, rows = _matrix(labels, per_pair)
    n = len(all_games)
    decided = [x for x in all_games if not x["draw"]]
    fp = sum(x["first_player_won"] for x in decided)
    lo, hi = wilson(fp, len(decided))
    overall = []
    for i, name in enumerate(labels):
        pts = [p for (a, b), v in per_pair.items() for p in
               (v if a == i else [2 - q for q in v] if b == i else [])]
        if not pts:
            continue
        st = paired_score(pts)
        overall.append({"deck": name, "games": 2 * len(pts), "score": round(st["score"], 4),
                        "low": round(st["low"], 4), "high": round(st["high"], 4)})
    complete = all((i, j) in per_pair or (j, i) in per_pair
                   for i, j in combinations(range(len(decks)), 2))
    ratings = (_ratings(labels, per_pair, args.seed, args.bootstrap, field)
               if complete else None)
    for u in units:
        for side in u:
            side["deck"] = label_of.get(side["deck"], side["deck"])
    db = _deck(decks[0]).db
    names = {c.id: c.name for c in db.cards if hasattr(c, "name")}
    deck_lists = {label_of[d]: sorted(set(_deck(d).card_ids())) for d in decks}
    cards = card_table(units, samples=args.bootstrap, seed=args.seed, names=names,
                       deck_lists=deck_lists, decks={labels[mine]} if mine is not None else None)
    report = {"command": "python evaluate.py " + " ".join(args.argv), "kind": kind,
              "pilot": args.pilot, "pilot_chosen": args.pilot_why, "agent": args.pilot,
              "decks": decks, "games": n,
              "games_per_pair": 2 * args.games,
              "play": "duplicate deal: decks exchange seats, each deck's shuffle kept, "
                      "the first player exchanged",
              "se_ratio_vs_independent": _se_ratio(rows),
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
              "metagame": metagame(m, labels) if complete else None,
              "matrix": rows}
    if mine is not None:
        report["deck"] = labels[mine]
        report["against_field"] = [r for r in rows if r["row"] == labels[mine]]
    out = Path(args.out)
    files = _write(out, kind, rows, report, m, labels,
                   f"{kind.capitalize()} ({args.pilot} both seats): row's score")
    files += write_card_report(cards, out, "cards")
    files.append(_deck_html(out, kind, report, labels, rows, cards, all_games))
    _print_report(report, labels, m, files)
    return report


def _deck_html(out: Path, kind: str, report, labels, rows, cards, all_games) -> Path:
    """report.html: everything above on one page, the plots embedded."""
    from agents import deck_report as R
    order = ([labels.index(r["name"]) for r in report["ratings"]] if report["ratings"]
             else list(range(len(labels))))
    k = len(labels)
    cell = {(r["row"], r["column"]): r for r in rows}
    score, low, high = (np.full((k, k), np.nan) for _ in range(3))
    for a, i in enumerate(order):
        for b, j in enumerate(order):
            c = cell.get((labels[i], labels[j]))
            if c:
                score[a, b], low[a, b], high[a, b] = c["score"], c["low"], c["high"]
    names = [labels[i] for i in order]
    sections = [("How this was measured", (
        f"<p>Pilot <code>{report['pilot']}</code> in both seats; {report['games']:,} games, "
        f"{report['games_per_pair']} per pair as duplicate deals (each deck draws the same "
        f"cards in a deal's two games, the first player exchanged); the standard error is "
        f"{report['se_ratio_vs_independent']}x that of as many independent games. "
        f"Command: <code>{report['command']}</code></p>"))]
    heat = R.sorted_heatmap(names, score, low, high, out / f"{kind}_sorted.png",
                            "row's score against column (by rating)")
    sections.append(("Score matrix", R.image_html(heat, "score matrix")))
    if report["ratings"]:
        rp = R.ratings_plot(report["ratings"], out / f"{kind}_ratings.png",
                            report["rating_scale"])
        sections.append(("Ratings", R.image_html(rp, "ratings") + R.table_html(
            report["ratings"], [("name", "deck"), ("rating", "rating"), ("low", "low"),
                                ("high", "high")])))
    sections.append(("Overall score", R.table_html(
        report["overall"], [("deck", "deck"), ("games", "games"), ("score", "score"),
                            ("low", "low"), ("high", "high")])))
    if report["metagame"]:
        mg = report["metagame"]
        sections.append(("Metagame (Nash equilibrium of the matrix)", (
            f"<p class='note'>The mix of decks a field of strong players drifts to: no deck "
            f"scores above 0.5 against it. Support: {', '.join(mg['support'])}. The uniform "
            f"field is exploitable by {mg['exploitability_uniform']:.3f} (best response: "
            f"{mg['best_response_to_uniform']}).</p>" + R.table_html(
                mg["equilibrium"], [("deck", "deck"), ("weight", "weight"),
                                    ("payoff", "score vs equilibrium"),
                                    ("payoff_vs_uniform", "score vs uniform field")]))))
    f = report["first_player_win_rate"]
    lengths = R.lengths_plot([g["turns"] for g in all_games], out / f"{kind}_lengths.png")
    sections.append(("First player and game length", (
        f"<p>The first player won {f['rate']} of decided games "
        f"[{f['low']}, {f['high']}] ({f['decided_games']:,} games, {report['draws']} draws); "
        f"{report['mean_turns']} turns and {report['mean_decisions']} decisions a game.</p>"
        + R.image_html(lengths, "game lengths"))))
    if cards:
        sections.append(("Cards", (
            "<p class='note'>Per deck and card: win rate in games it was in hand (GIH), in "
            "the opening hand, played, never in hand, and the improvement when drawn "
            "(IWD = GIH - never in hand) with a 95% bootstrap interval; correlation, not "
            "cause. All rows in cards.csv.</p>"
            + R.image_html(out / "cards.png", "card impact") + R.table_html(
                cards, [("deck", "deck"), ("name", "card"), ("in_hand_games", "GIH games"),
                        ("in_hand_win", "GIH win"), ("opening_win", "opening win"),
                        ("played_win", "played win"), ("not_in_hand_win", "not drawn win"),
                        ("iwd", "IWD"), ("iwd_low", "low"), ("iwd_high", "high")],
                limit=40))))
    return R.write_html(out / "report.html", f"Nivel Arena {kind}: {report['pilot']}",
                        sections)


def deck_benchmark(args) -> dict:
    from nivel_env.cards import list_decks
    decks = args.decks or list_decks()
    if len(decks) < 2:
        raise SystemExit("evaluate.py decks: give at least two decks")
    _check_decks("decks", decks, args.pilot)
    _say_pilot(args)
    meet = list(combinations(range(len(decks)), 2))
    tasks, keys = _deck_tasks(decks, meet, args.games, 0, args.pilot, args.save_replays,
                              args.seed)
    res = _run_decks(tasks, args, "decks")
    return _deck_report(args, "decks", decks, *_collect(keys, res))


def gauntlet(args) -> dict:
    """My deck against each deck of a field; the field's own pairs too (for the rating
    on the field's scale) unless ``--field-games 0``."""
    from nivel_env.cards import list_decks
    field = [d for d in (args.field or list_decks()) if d != args.deck]
    if not field:
        raise SystemExit("evaluate.py gauntlet: the field is empty")
    decks = [args.deck] + field
    _check_decks("gauntlet", decks, args.pilot)
    _say_pilot(args)
    mine = [(0, j) for j in range(1, len(decks))]
    tasks, keys = _deck_tasks(decks, mine, args.games, 0, args.pilot, args.save_replays,
                              args.seed)
    fg = args.games if args.field_games is None else args.field_games
    if fg > 0:
        t2, k2 = _deck_tasks(decks, list(combinations(range(1, len(decks)), 2)), fg, 0,
                             args.pilot, args.save_replays, args.seed)
        tasks, keys = tasks + t2, keys + k2
    res = _run_decks(tasks, args, "gauntlet")
    per_pair, units, games = _collect(keys, res)
    mine_units = [u for k, u in zip(keys, units) if k[0] == 0]
    return _deck_report(args, "gauntlet", decks, per_pair, mine_units, games,
                        field=list(range(1, len(decks))) if fg > 0 else None, mine=0)


def compare(args) -> dict:
    """Is deck A stronger than deck B against the field?  Batches of duplicate deals (A
    and B each against every field deck on the same seeds), a GSPRT on the Elo bounds
    after each batch, until it decides or ``--max-games``."""
    from agents.sprt import SPRT, score_to_elo
    from nivel_env.cards import list_decks
    a, b = args.deck_a, args.deck_b
    field = [d for d in (args.field or list_decks()) if d not in (a, b)]
    if not field:
        raise SystemExit("evaluate.py compare: the field is empty")
    decks = [a, b] + field
    _check_decks("compare", decks, args.pilot)
    names = unique_labels([_deck(d).name for d in decks])
    try:
        sprt = SPRT(args.elo0, args.elo1, args.alpha, args.beta, kind="difference")
    except ValueError as e:
        raise SystemExit(f"evaluate.py compare: {e}") from None
    _say_pilot(args)
    print(f"{names[0]} against {names[1]} over a field of {len(field)}: SPRT elo0 "
          f"{args.elo0}, elo1 {args.elo1}, alpha {args.alpha}, beta {args.beta}; bounds "
          f"[{sprt.lower:.2f}, {sprt.upper:.2f}]; {4 * len(field) * args.batch} games a batch")
    rng = np.random.default_rng(args.seed)
    pts_a, pts_b, history = [], [], []
    pool = _pool(args.workers) if args.workers > 1 else None
    seeds = 0
    try:
        while sprt.status is None and 4 * len(pts_a) < args.max_games:
            meet = [(0, j) for j in range(2, len(decks))] + [(1, j) for j in range(2, len(decks))]
            tasks, keys = _deck_tasks(decks, meet, args.batch, seeds, args.pilot,
                                      args.save_replays, args.seed)
            res = _run_decks(tasks, args, "compare", pool, progress=False)
            got: dict = {}
            for (i, j), t, pair in zip(keys, tasks, res):
                got[(i, j, t[4])] = sum(x["points"] for x in pair)
            units = []
            for (i, j, sd), v in sorted(got.items()):
                if i == 0:
                    pa, pb = v, got[(1, j, sd)]
                    pts_a.append(pa)
                    pts_b.append(pb)
                    units.append((pa - pb) / 2)
            sprt.add(units)
            seeds += args.batch
            sa, sb = np.mean(pts_a) / 2, np.mean(pts_b) / 2
            diff = score_to_elo(sa) - score_to_elo(sb)
            boot = []
            pa_arr, pb_arr = np.asarray(pts_a) / 2, np.asarray(pts_b) / 2
            for _ in range(args.bootstrap):
                k = rng.integers(len(pa_arr), size=len(pa_arr))
                boot.append(score_to_elo(pa_arr[k].mean()) - score_to_elo(pb_arr[k].mean()))
            lo, hi = np.percentile(boot, [2.5, 97.5])
            row = {"games": 4 * len(pts_a), "llr": round(sprt.llr, 3),
                   "elo_diff": round(diff, 1), "low": round(float(lo), 1),
                   "high": round(float(hi), 1), "score_a": round(float(sa), 4),
                   "score_b": round(float(sb), 4)}
            history.append(row)
            print(f"  {row['games']:6d} games  LLR {row['llr']:6.2f} "
                  f"[{sprt.lower:.2f}, {sprt.upper:.2f}]  Elo {names[0]} - {names[1]}: "
                  f"{diff:+6.1f} [{lo:+.1f}, {hi:+.1f}]  (vs field {sa:.3f} / {sb:.3f})",
                  flush=True)
    finally:
        if pool is not None:
            pool.shutdown()
    verdict = {"H1": f"{names[0]} is stronger (accepted elo1 = {args.elo1})",
               "H0": f"{names[0]} is not stronger by elo1 (accepted elo0 = {args.elo0})",
               None: f"undecided after --max-games {args.max_games}"}[sprt.status]
    fixed = sprt.fixed_units()
    report = {"command": "python evaluate.py " + " ".join(args.argv), "kind": "compare",
              "pilot": args.pilot, "deck_a": names[0], "deck_b": names[1],
              "field": names[2:], "elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha,
              "beta": args.beta, "bounds": [round(sprt.lower, 3), round(sprt.upper, 3)],
              "status": sprt.status, "verdict": verdict, "games": 4 * len(pts_a),
              "fixed_test_games": 4 * fixed if fixed else None,
              "unit": "one seed and field deck: A's duplicate pair and B's, 4 games",
              "history": history}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(report, indent=2))
    saved = (f"; a fixed-size test with the same error rates needs about "
             f"{report['fixed_test_games']:,} games" if fixed else "")
    print(f"\n{verdict}: {report['games']:,} games{saved}\nwrote {out / 'compare.json'}")
    return report


def _say_pilot(args) -> None:
    print(f"pilot: {args.pilot}" + ("" if args.pilot_why == "given" else
                                    f" ({args.pilot_why}; --pilot NAME for another)"))


def _print_report(report, labels, m, files):
    how = ("duplicate: each deal twice, agents exchanged" if report["kind"] == "agents"
           else "duplicate deal: each deck the same cards twice, first player exchanged")
    print(f"\n{report['kind']}: {report['games_per_pair']} games per pair ({how})")
    if report.get("se_ratio_vs_independent") is not None:
        print(f"standard error {report['se_ratio_vs_independent']:.2f}x that of as many "
              f"independent games (mean over pairs)")
    if report.get("against_field"):
        print(f"\n{report['deck']} against the field (score, 95% interval):")
        for r in report["against_field"]:
            print(f"  {r['column']:24s} {r['score']:.3f}  [{r['low']:.3f}, {r['high']:.3f}]")
        me = next(r for r in report["overall"] if r["deck"] == report["deck"])
        print(f"  {'overall':24s} {me['score']:.3f}  [{me['low']:.3f}, {me['high']:.3f}]")
    if report["ratings"]:
        print("\nratings (" + report["rating_scale"] + ", bootstrap 95%):")
        for r in report["ratings"]:
            print(f"  {r['name']:24s} {r['rating']:7.1f}  [{r['low']:7.1f}, "
                  f"{r['high']:7.1f}]")
    if report.get("metagame"):
        mg = report["metagame"]
        print("\nmetagame (Nash equilibrium): " + ", ".join(
            f"{r['deck']} {r['weight']:.2f}" for r in mg["equilibrium"] if r["weight"] > 0)
            + f"; the uniform field is exploitable by {mg['exploitability_uniform']:.3f} "
              f"({mg['best_response_to_uniform']})")
    if report.get("think_time"):
        print("\ntime per real decision (one core per game): mean, 99th percentile")
        for spec, t in report["think_time"].items():
            print(f"  {spec:24s} {t['mean_ms']:9.2f} ms {t['p99_ms']:9.2f} ms  "
                  f"({t['moves']} moves)")
    if "first_player_win_rate" in report:
        f = report["first_player_win_rate"]
        print(f"\nfirst player wins {f['rate']} [{f['low']}, {f['high']}]; "
              f"{report['draws']} draws; {report['mean_turns']} turns, "
              f"{report['mean_decisions']} decisions a game")
    w = max(len(x) for x in labels)
    print("\nrow's score against column:")
    print(" " * (w + 2) + " ".join(f"{x[:7]:>7s}" for x in labels))
    for i, name in enumerate(labels):
        cells = " ".join("      -" if np.isnan(v) else f"{v:7.2f}" for v in m[i])
        print(f"{name:{w}s}  {cells}")
    print("\nwrote " + ", ".join(str(f) for f in files))


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    sub = ap.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--games", type=int, default=50,
                        help="seeds per pair; each is played twice, seats swapped")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    common.add_argument("--bootstrap", type=int, default=1000, help="bootstrap samples")
    common.add_argument("--no-progress", action="store_true")
    common.add_argument("--save-replays", metavar="DIR",
                        help="write every game as a replay file into DIR (python -m nivel_env "
                             "replay FILE to watch one)")
    a = sub.add_parser("agents", parents=[common], help="round robin between agents")
    a.add_argument("agents", nargs="+", help="random, heuristic, a bundled policy, search or "
                                             "level name, or a policy file; settings after a "
                                             "colon (nv2-search:simulations=64)")
    a.add_argument("--against", nargs="+", metavar="AGENT",
                   help="a gauntlet: play each agent only against these (default: round robin)")
    a.add_argument("--decks", nargs="+", help="deck names or files (default: all bundled)")
    a.add_argument("--out", default="results/agents")
    pilot = argparse.ArgumentParser(add_help=False)
    pilot.add_argument("--pilot", "--agent", dest="pilot", default=None, metavar="AGENT",
                       help=f"the agent in both seats: any agent name, level, search spec "
                            f"or policy file (default: {PILOT}, or {PILOT_FALLBACK} "
                            f"without the training extras)")
    d = sub.add_parser("decks", parents=[common, pilot], help="every deck pair under one "
                                                              "pilot")
    d.add_argument("--decks", nargs="+", help="deck names or files (default: all bundled)")
    d.add_argument("--out", default="results/decks")
    g = sub.add_parser("gauntlet", parents=[common, pilot],
                       help="one deck against each deck of a field")
    g.add_argument("deck", help="the deck (a name or a .deck file)")
    g.add_argument("--field", nargs="+", help="the field's decks (default: all bundled)")
    g.add_argument("--field-games", type=int, default=None,
                   help="seeds per pair inside the field, for the rating on the field's "
                        "scale (default: --games; 0: none)")
    g.add_argument("--out", default="results/gauntlet")
    c = sub.add_parser("compare", parents=[common, pilot],
                       help="is deck A stronger than deck B against the field? (SPRT)")
    c.add_argument("deck_a")
    c.add_argument("deck_b")
    c.add_argument("--field", nargs="+", help="the field's decks (default: all bundled)")
    c.add_argument("--elo0", type=float, default=0.0)
    c.add_argument("--elo1", type=float, default=10.0)
    c.add_argument("--alpha", type=float, default=0.05)
    c.add_argument("--beta", type=float, default=0.05)
    c.add_argument("--batch", type=int, default=10, help="seeds per batch (each: A and B "
                                                         "against every field deck, twice)")
    c.add_argument("--max-games", type=int, default=40_000)
    c.add_argument("--out", default="results/compare")
    args = ap.parse_args(argv)
    args.argv = argv
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.command != "agents":
        args.pilot_why = "given" if args.pilot is not None else None
        if args.pilot is None:
            args.pilot, args.pilot_why = default_pilot()
    {"agents": agents_tournament, "decks": deck_benchmark, "gauntlet": gauntlet,
     "compare": compare}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
