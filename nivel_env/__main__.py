"""Command line: ``python -m nivel_env COMMAND``.

``demo``   plays a seeded game between two bundled decks and prints it as text.
``cards``  lists and searches the card pool with rendered text.
``deck``   validates, shows or lists decks.
``observation``  prints the observation layout (docs/observation.md).
``play``   a game against an AI opponent in the terminal.
``serve``  the same in the browser: a local web app.
``replay`` steps through a replay file.
``check``  plays many seeded games checking the rules, the mask, determinism and
           hidden information, on the bundled or your own cards and decks.
"""
from __future__ import annotations

import argparse
import sys


def _demo(args) -> int:
    from .cards import DeckError, load_deck
    from .engine import RuleConfig, new_game
    from .engine.rng import next_u64, seed_state

    decks = args.decks or ["ember-rush", "stone-bastion"]
    if len(decks) != 2:
        print("demo: give exactly two decks (--decks A B)", file=sys.stderr)
        return 2
    try:
        d0, d1 = load_deck(decks[0]), load_deck(decks[1])
    except DeckError as e:
        print(f"demo: {e}", file=sys.stderr)
        return 2
    g = new_game(d0, d1, seed=args.seed, config=RuleConfig(max_turns=args.max_turns))
    print(f"Nivel Arena demo: {d0.name} (player 0) vs {d1.name} (player 1), seed {args.seed}")
    print(f"player {g.first} goes first; moves are chosen at random from the legal actions\n")
    # the demo's own chooser: seeded like the game, independent of the game's generator
    state = seed_state(args.seed ^ 0x5EED)
    seen = len(g.events)
    last_turn = 0
    while not g.is_terminal():
        if g.turn != last_turn and g.decision.kind == "main":
            last_turn = g.turn
            print(f"\n{'=' * 72}\n{g.render()}\n")
        legal = g.legal_actions()
        state, r = next_u64(state)
        a = legal[r % len(legal)]
        print(f"  P{g.current_player} {g.decision.kind:>8}: {g.action_name(a)}")
        g.apply_action(a)
        if args.verbose:
            for e in g.events[seen:]:
                print(f"      . {e.to_dict()}")
        seen = len(g.events)
    print(f"\n{'=' * 72}\n{g.render()}")
    r = g.returns()
    winner = "draw" if r == (0, 0) else f"player {0 if r[0] > 0 else 1} wins"
    print(f"\nResult: {winner} after {g.turn} turns, {len(g.events)} events")
    return 0


def _observation(args) -> int:
    from .env.encoder import feature_table_markdown
    sys.stdout.write(feature_table_markdown())
    return 0


def main(argv: list[str] | None = None) -> int:
    from .cards.deck import DECK_HELP
    parser = argparse.ArgumentParser(prog="python -m nivel_env",
                                     description="Nivel Arena rules engine and environment")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play a seeded game between two bundled decks as text")
    demo.add_argument("--seed", type=int, default=7)
    demo.add_argument("--decks", nargs=2, metavar=("DECK0", "DECK1"),
                      help="two decks, each " + DECK_HELP + " (default: ember-rush "
                           "stone-bastion)")
    demo.add_argument("--max-turns", type=int, default=200)
    demo.add_argument("-v", "--verbose", action="store_true", help="print every engine event")
    demo.set_defaults(func=_demo)
    obs = sub.add_parser("observation", help="print the observation layout as markdown "
                                             "(docs/observation.md)")
    obs.set_defaults(func=_observation)
    from .cli_cards import add_parsers
    add_parsers(sub)
    from . import cli_check, cli_play, cli_replay, cli_serve
    for module in (cli_play, cli_serve, cli_replay, cli_check):
        module.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:                      # `python -m nivel_env cards | head`
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
