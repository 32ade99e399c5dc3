"""evaluate.py's ``agents`` command: a round robin between agents (or a gauntlet, each
agent only against the ``--against`` ones) on duplicate deals, rated on the Elo scale.

Every seed is played twice with the agents exchanged (``games.play_pair`` in ``agents``
mode), so the luck of the deal cancels and an agent against itself scores exactly 0.5;
the agents come in as spec strings (``nivel_env.players.load``), so a worker process or
a Ray node builds its own."""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

from .games import cached_agent, think_time_report
from .runner import Runner, run_tasks
from .tables import (interval_arrays, print_report, rating_table, score_matrix, se_ratio,
                     unique_labels, write_tables)


def agents_tournament(args, runner: Runner) -> dict:
    """The tournament ``args`` describe (evaluate.py's ``agents`` options), played on
    ``runner``: writes the tables to ``args.out``, prints the report and returns it."""
    against = list(args.against or [])
    specs = args.agents + [a for a in against if a not in args.agents]
    if len(specs) < 2:
        raise SystemExit("evaluate.py agents: give at least two agents")
    for s in specs:                               # fail early, with the loader's message
        try:
            cached_agent(s, 0)
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
    res = run_tasks(tasks, runner, "agents", not args.no_progress)
    per_pair: dict = {}
    for key, pair in zip(keys, res):
        per_pair.setdefault(key, []).append(sum(x["points"] for x in pair))
    labels = unique_labels(specs)
    m, rows = score_matrix(labels, per_pair)
    anchor = labels.index("random") if "random" in labels else None
    report = {"command": "python evaluate.py " + " ".join(args.argv),
              "ran_on": runner.info(), "kind": "agents",
              "agents": specs, "against": against or None, "labels": labels, "decks": decks,
              "games_per_pair": 2 * args.games,
              "play": "duplicate: each seed's deal played twice, agents exchanged",
              "se_ratio_vs_independent": se_ratio(rows),
              "ratings": rating_table(labels, per_pair, args.seed, args.bootstrap, anchor),
              "rating_scale": "Elo (400 log10 odds), " + ("random = 0" if anchor is not None
                                                          else "mean = 0"),
              "think_time": think_time_report(res),
              "matrix": rows}
    low, high = interval_arrays(labels, rows)
    files = write_tables(Path(args.out), "agents", rows, report, m, labels,
                         "Agent tournament: row's score vs column", low, high)
    print_report(report, labels, m, files)
    return report


__all__ = ["agents_tournament"]
