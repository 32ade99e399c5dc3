"""The ``replay`` command: step through a replay file, both hands shown.

Loading re-simulates the game and checks every recorded event, so what is shown is
what this engine does with the recorded seed, decks and actions.  Each step is told in
the words of the terminal game (``narrate``), from the seat of the person who played
it (player 0 for a game between agents), and that seat is drawn at the bottom.
"""
from __future__ import annotations

import sys

from .cli_cards import _db, add_cards_option

HELP = """\
Commands (Enter alone = next):
  n, next        the next move          p, prev      the previous move
  t N            jump to turn N         g N          go to move N
  s, start       the first position     e, end       the final position
  help           this text              q, quit      leave
"""


def cmd_replay(args) -> int:
    from rich.console import Console
    from rich.markup import escape
    from .narrate import replay_seat, replay_story
    from .replay import ReplayError, load_replay
    from .screen import board
    console = Console(highlight=False)
    try:
        rep = load_replay(args.file, _db(args.cards))
    except (ReplayError, ValueError) as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    h = rep.header
    n = len(rep.games) - 1                  # positions 0..n; rows[i] leads from i to i+1
    seat = replay_seat(h)                   # drawn at the bottom, as in `play`
    names = [("You" if p == "you" else f"P{i} {p}") for i, p in enumerate(h["players"])]
    setup, steps = replay_story(rep, seat)
    side = "your" if names[seat] == "You" else f"{names[seat]}'s"
    console.print(f"Replay {args.file}: {h['decks'][0]['name']} ({h['players'][0]}) "
                  f"vs {h['decks'][1]['name']} ({h['players'][1]}), seed {h['seed']}, "
                  f"{n} moves; verified against the engine. Both hands are shown; what "
                  f"happened is told from {side} side. Type help for commands.",
                  markup=False)
    if args.summary:
        for i, row in enumerate(rep.rows):
            console.print(f"{i:>4}  turn {rep.games[i].turn:>2}  "
                          f"{h['players'][row['player']]}: {_what(row)}", markup=False)
            for line in steps[i]:
                console.print(f"        {line}", style="magenta", markup=False)
        _result(console, rep)
        return 0
    i, draw = 0, True
    while True:
        if draw:
            g = rep.games[i]
            console.rule(f"move {i} of {n}")
            told = setup if i == 0 else steps[i - 1]
            if told:
                console.print("\n".join(told), style="magenta", markup=False)
            console.print(board(g, seat, reveal=True, names=(names[seat], names[1 - seat])))
            if i < n:
                row = rep.rows[i]
                console.print(f"[bold]next:[/bold] {escape(h['players'][row['player']])} "
                              f"{escape(_what(row))}")
            else:
                _result(console, rep)
        try:
            cmd = console.input("(n)ext (p)rev (t N) (g N) (s)tart (e)nd (h)elp (q)uit: ")
        except (EOFError, KeyboardInterrupt):
            return 0
        cmd = cmd.strip().lower()
        word, _, rest = cmd.partition(" ")
        draw, before = True, i
        if word in ("", "n", "next"):
            i = min(n, i + 1)
        elif word in ("p", "prev", "previous"):
            i = max(0, i - 1)
        elif word in ("s", "start"):
            i = 0
        elif word in ("e", "end"):
            i = n
        elif word in ("t", "turn", "g", "go") and rest.strip().isdigit():
            k = int(rest)
            i = rep.first_step_of_turn(k) if word in ("t", "turn") else min(n, k)
        elif word in ("q", "quit", "exit"):
            return 0
        elif word in ("h", "help", "?"):
            console.print(HELP, markup=False)
            draw = False                   # the help stays on screen until the next step
        else:
            console.print(f"[red]'{escape(cmd)}' is not a command[/red]")
            console.print(HELP, markup=False)
            draw = False
        if draw and i == before and word in ("", "n", "next", "p", "prev", "previous"):
            console.print("(already at the " + ("end" if i == n else "start") + ")")
            draw = False


def _what(row) -> str:
    """A recorded move in words: the name the game gave it, or a surrender."""
    return row["name"] if row["kind"] == "action" else "surrenders"


def _result(console, rep) -> None:
    from rich.markup import escape
    g = rep.games[-1]
    if g.result is None:
        console.print("The replay ends before the game does.")
        return
    r = g.result
    text = "a draw" if r == (0, 0) else f"won by {rep.header['players'][0 if r[0] > 0 else 1]}"
    console.print(f"[bold]Result:[/bold] {escape(text)} after {g.turn} turns"
                  f"{' (turn limit)' if g.truncated else ''}")


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a replay file (both hands shown)")
    p.add_argument("file", help="a replay file (JSON Lines, docs/replays.md)")
    p.add_argument("--summary", action="store_true", help="print every move and the result, "
                                                         "no stepping")
    add_cards_option(p, "an extra card file the game was played with")
    p.set_defaults(func=cmd_replay)
