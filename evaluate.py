"""Agent tournaments and deck-strength benchmarks.

Every seed is played twice.  Between agents this is duplicate play: the same deal (decks,
shuffles, first player) with the agents exchanged, so the luck of the deal cancels and an
agent against itself scores exactly 0.5.  Between decks the decks exchange seats under
the same agent on the same seed, the deck that went first going second (``--deal mirror``
also gives each deck the same cards in both games; docs/decks.md says why it is not the
default).  Intervals treat each seed's two games as one unit (they are correlated).
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

    # the same report again from the raw results that run wrote (no game replayed)
    python evaluate.py decks --from results/decks/results.jsonl

    # my deck against a field (default: the bundled decks), rated on the field's scale
    python evaluate.py gauntlet my.deck --games 200

    # is A stronger than B against the field?  Batches until a sequential test decides
    python evaluate.py compare a.deck b.deck --elo0 0 --elo1 10 --alpha 0.05 --beta 0.05

    # decks using my own cards (any command; repeat --cards for more files)
    python evaluate.py gauntlet my.deck --cards my-cards.yaml --games 200

    # a deck's past runs in results/: its versions, the cards changed, the scores
    python evaluate.py history my.deck --in results

    # what each card of my deck is worth, as a cause, to +-0.03 (IWD beside)
    python evaluate.py cards my.deck --pilot heuristic --precision 0.03

    # any command on a Ray cluster (or a local Ray instance without ADDRESS): same results
    python evaluate.py decks --games 200 --ray 10.0.0.5:6379

All write CSV, JSON and PNGs to --out (docs/decks.md explains the deck statistics);
decks and gauntlet also write every seed's games to OUT/results.jsonl as they finish
(an earlier run's results.jsonl there is moved aside to results.N.jsonl, never
overwritten; the reports are replaced).
"""
from __future__ import annotations

import argparse
import os
import sys

from nivel_env.cli_cards import add_cards_option
from nivel_env.threads import passive_waiting
from nivel_env.tournaments.deck_commands import PILOT, PILOT_FALLBACK, default_pilot

BOOTSTRAP = 1000           # bootstrap samples for intervals and ratings, unless --bootstrap


def _player_names() -> str:
    """The names a player spec may start with, as the installed player loaders list them
    (``nivel_env.players.names``: the agents package's, no torch needed), for the help."""
    from nivel_env import players
    named = players.names()
    return ("a bundled name (" + ", ".join(named).replace("%", "%%") + ")" if named
            else "a player name")                 # no player loader is installed


def commands() -> dict:
    """Each command's function in ``nivel_env.tournaments``: ``fn(args, runner)``."""
    from nivel_env.tournaments.agent_commands import agents_tournament
    from nivel_env.tournaments.card_value import cards_command
    from nivel_env.tournaments.deck_commands import compare, deck_benchmark, gauntlet
    from nivel_env.tournaments.deck_tune import tune
    return {"agents": agents_tournament, "decks": deck_benchmark, "gauntlet": gauntlet,
            "compare": compare, "tune": tune, "cards": cards_command}


def main(argv=None, runner=None) -> int:
    """The command ``argv`` names, on local worker processes (``--workers``) or Ray
    (``--ray``), or on ``runner`` when given (a ``nivel_env.tournaments.runner.Runner``
    already started: benchmarks/ray_overhead.py times Ray's start apart)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    passive_waiting()        # before torch loads (workers inherit it): idle threads sleep
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    sub = ap.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--games", type=int, default=50,
                        help="seeds per pair; each is played twice, seats swapped")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    common.add_argument("--bootstrap", type=int, default=None,
                        help=f"bootstrap samples (default {BOOTSTRAP}; with --from: the run's)")
    common.add_argument("--no-progress", action="store_true")
    common.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                        help="play the games as Ray tasks: on the cluster at ADDRESS "
                             "(host:port of `ray start --head`, or auto), or without ADDRESS "
                             "on a local Ray instance of --workers CPUs; same results as "
                             "without (needs the [ray] extra)")
    common.add_argument("--save-replays", metavar="DIR",
                        help="write every game as a replay file into DIR (python -m nivel_env "
                             "replay FILE to watch one)")
    add_cards_option(common, "an extra card file: its cards may appear in any deck of the "
                             "run (bundled pool + the files; recorded for --from)")
    a = sub.add_parser("agents", parents=[common], help="round robin between agents")
    a.add_argument("agents", nargs="+", help=f"{_player_names()}, or a policy file; settings "
                                             f"after a colon (NAME:key=value, "
                                             f"docs/opponents.md)")
    a.add_argument("--against", nargs="+", metavar="AGENT",
                   help="a gauntlet: play each agent only against these (default: round robin)")
    a.add_argument("--decks", nargs="+", help="deck names or files (default: all bundled)")
    a.add_argument("--out", default="results/agents")
    pilot = argparse.ArgumentParser(add_help=False)
    pilot.add_argument("--pilot", "--agent", dest="pilot", default=None, metavar="AGENT",
                       help=f"the agent in both seats: any agent name, level, search spec "
                            f"or policy file (default: {PILOT}, or {PILOT_FALLBACK} "
                            f"without torch)")
    pilot.add_argument("--deal", choices=("mirror", "swap"), default="swap",
                       help="how a seed's two games pair up: swap (the default: decks "
                            "exchange seats, reshuffled, the first player exchanged) or "
                            "mirror (each deck the same cards twice); swap measures with "
                            "less noise (docs/decks.md, Duplicate deals)")
    d = sub.add_parser("decks", parents=[common, pilot], help="every deck pair under one "
                                                              "pilot")
    d.add_argument("--decks", nargs="+", help="deck names or files (default: all bundled)")
    d.add_argument("--out", default=None, help="the report's folder (default: results/decks; "
                                               "with --from, the results file's folder)")
    d.add_argument("--from", dest="from_results", metavar="RESULTS",
                   help="analyse the results.jsonl an earlier decks run wrote, replaying "
                        "nothing (its decks, pilot, seeds and deal; the other game options "
                        "do not apply)")
    g = sub.add_parser("gauntlet", parents=[common, pilot],
                       help="one deck against each deck of a field")
    g.add_argument("deck", nargs="?", help="the deck (a name or a .deck file)")
    g.add_argument("--field", nargs="+", help="the field's decks (default: all bundled)")
    g.add_argument("--field-games", type=int, default=None,
                   help="seeds per pair inside the field, for the rating on the field's "
                        "scale (default: --games; 0: none)")
    g.add_argument("--out", default=None, help="the report's folder (default: "
                                               "results/gauntlet; with --from, the results "
                                               "file's folder)")
    g.add_argument("--from", dest="from_results", metavar="RESULTS",
                   help="analyse the results.jsonl an earlier gauntlet run wrote, replaying "
                        "nothing")
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
    t = sub.add_parser("tune", parents=[common, pilot],
                       help="improve a deck by card swaps, each accepted by an SPRT")
    t.add_argument("deck", help="the deck to improve (a name or a .deck file)")
    t.add_argument("--field", nargs="+", help="the field's decks (default: all bundled)")
    t.add_argument("--pool", nargs="+", metavar="CARD-ID",
                   help="cards a swap may bring in (default: every card in the pool)")
    t.add_argument("--steps", type=int, default=10, help="most swaps to accept")
    t.add_argument("--candidates", type=int, default=8, help="swaps tried per step")
    t.add_argument("--elo0", type=float, default=0.0)
    t.add_argument("--elo1", type=float, default=20.0)
    t.add_argument("--alpha", type=float, default=0.05)
    t.add_argument("--beta", type=float, default=0.05)
    t.add_argument("--batch", type=int, default=10, help="seeds per batch of each test")
    t.add_argument("--max-games", type=int, default=4000, help="games per test at most")
    t.add_argument("--propose", choices=("value", "random"), default="value",
                   help="swap order: value (cut the cards of lowest causal value first, "
                        "bring in the pool cards that gain most in place of the weakest; "
                        "measured first on duplicate deals) or random (drawn from --seed)")
    t.add_argument("--resume", type=int, default=1,
                   help="times a step may continue its undecided test of highest LLR by "
                        "another --max-games games before giving up (0: never)")
    t.add_argument("--rank-games", type=int, default=10,
                   help="--propose value: seeds the ranking plays at most (against every "
                        "field deck)")
    t.add_argument("--rank-precision", type=float, default=0.05,
                   help="--propose value: a card's value stops at this 95%% half-width")
    t.add_argument("--holdout", type=int, default=1000,
                   help="held-out seeds (each twice) for tuned against the original")
    t.add_argument("--out", default="results/tune")
    h = sub.add_parser("history", help="a deck's past runs: versions, cards changed, scores")
    h.add_argument("deck", help="the deck (a file, or a deck's name: its name: line)")
    h.add_argument("--in", dest="folder", default="results", metavar="DIR",
                   help="the folder of the runs' outputs, searched below (default: results)")
    add_cards_option(h, "a card file the deck's own cards are in (for its version now)")
    v = sub.add_parser("cards", parents=[common, pilot],
                       help="what each card of a deck is worth, as a cause (one copy swapped "
                            "for a baseline card on the same deals), beside its IWD",
                       description="Rank a deck's cards by causal value (docs/decks.md); "
                                   "here --games is the most seeds a card may take "
                                   "(default 1000) and the default pilot is the "
                                   "heuristic, whose ranking held between seed ranges")
    v.add_argument("deck", help="the deck (a name or a .deck file)")
    v.add_argument("--field", nargs="+", help="the field's decks (default: all bundled)")
    v.add_argument("--baseline", default=None, metavar="CARD-ID|weakest",
                   help="the card a swapped copy becomes (default: the plainest, weakest "
                        "unit the leader allows outside the deck); weakest: values "
                        "relative to the deck's weakest card")
    v.add_argument("--precision", type=float, default=0.03,
                   help="stop a card once its 95%% interval is +- this or narrower")
    v.add_argument("--batch", type=int, default=32, help="seeds per batch")
    v.add_argument("--no-early", action="store_true",
                   help="no early stop on a clear sign: every card to --precision")
    v.add_argument("--out", default="results/cards")
    v.set_defaults(games=1000)                    # here: the most seeds a card may take
    args = ap.parse_args(argv)
    args.argv = argv
    if args.command == "history":
        from nivel_env.tournaments.deck_history import history
        return history(args.deck, args.folder, cards=args.cards)
    if args.games < 1:
        ap.error("--games must be at least 1")
    from nivel_env.tournaments import card_files
    from nivel_env.tournaments.games import use_card_files
    from nivel_env.tournaments.runner import Runner
    if getattr(args, "from_results", None):          # the run's own settings, from its file
        with use_card_files(card_files.for_results(args)):
            commands()[args.command](args, Runner(args.workers))
        return 0
    if args.command == "gauntlet" and not args.deck:
        ap.error("gauntlet: give the deck (or --from RESULTS)")
    if args.bootstrap is None:
        args.bootstrap = BOOTSTRAP
    if getattr(args, "out", "") is None:
        args.out = f"results/{args.command}"
    files = card_files.resolve(args.cards, args.command)       # checked before any game
    if args.command != "agents":
        args.pilot_why = "given" if args.pilot is not None else None
        if args.pilot is None and args.command == "cards":
            # the fastest pilot whose card ranking held between seed ranges; nv2-ppo's
            # did not at +-0.04 (docs/decks.md, the cards section)
            args.pilot, args.pilot_why = PILOT_FALLBACK, "the default for cards"
        elif args.pilot is None:
            args.pilot, args.pilot_why = default_pilot()
    if runner is not None or not args.ray:
        with use_card_files(files):
            commands()[args.command](args, runner or Runner(args.workers))
        return 0
    from nivel_env.tournaments.ray_backend import RayPool
    cluster = RayPool(None if args.ray == "local" else args.ray, args.workers)
    try:
        with use_card_files(files):
            commands()[args.command](args, Runner(args.workers, cluster))
    finally:
        info = cluster.report()
        print(f"ray ({info['address']}, {info['cpus']} CPUs): "
              f"{info['batches_retried']} batch(es) played again after a worker died")
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
