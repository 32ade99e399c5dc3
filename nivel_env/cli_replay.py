"""The ``replay`` command: step through a replay file, both hands shown.

Loading re-simulates the game and checks every recorded event, so what is shown is
what this engine does with the recorded seed, decks and actions.  Each step is told in
the words of the terminal game (``narrate``), from the seat of the person who played
it (player 0 for a game between agents), and that seat is drawn at the bottom.

A frame is drawn for a 100x30 terminal even though the board with both hands is taller:
the board comes first and what happened after it, so the lines of the move, the next
move and the prompt -- which carries the move counter, ``move 12/84`` -- are the last
things on the screen, never scrolled off the top.
"""
from __future__ import annotations

import sys
from typing import TextIO

from .cli_cards import _db, add_cards_option

HELP = """\
Commands (Enter alone = next):
  n, next        the next move          p, prev      the previous move
  t N            jump to turn N         g N          go to move N
  s, start       the first position     e, end       the final position
  card NAME      a card's full text     help         this text
  q, quit        leave
"""
#: the prompt after the move counter
KEYS = "(n)ext (p)rev (t N) (g N) (s)tart (e)nd (h)elp (q)uit: "


def cmd_replay(args) -> int:
    from rich.console import Console
    from .replay import ReplayError, load_replay
    console = Console(highlight=False)
    try:
        rep = load_replay(args.file, _db(args.cards))
    except (ReplayError, ValueError) as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    return view(rep, console, args.file, summary=args.summary)


def view(rep, console, source: str = "replay", summary: bool = False,
         stream: TextIO | None = None) -> int:
    """Show a loaded replay ``rep`` on a rich ``console``: every move at once with
    ``summary``, else step through it by the commands typed (read from ``stream`` instead
    of the terminal when given; its end leaves, as the end of input does)."""
    from rich.markup import escape
    from .narrate import replay_seat, replay_story
    from .screen import board
    h = rep.header
    n = len(rep.games) - 1                  # positions 0..n; rows[i] leads from i to i+1
    seat = replay_seat(h)                   # drawn at the bottom, as in `play`
    names = [("You" if p == "you" else f"P{i} {p}") for i, p in enumerate(h["players"])]
    setup, steps = replay_story(rep, seat)
    if steps:
        steps[-1] = _told_end(steps[-1], rep)
    side = "your" if names[seat] == "You" else f"{names[seat]}'s"
    console.print(f"Replay {source}: {h['decks'][0]['name']} ({h['players'][0]}) "
                  f"vs {h['decks'][1]['name']} ({h['players'][1]}), seed {h['seed']}, "
                  f"{n} moves; verified against the engine. Both hands are shown; what "
                  f"happened is told from {side} side. Type help for commands.",
                  markup=False)
    if summary:
        for i, row in enumerate(rep.rows):
            console.print(f"{i:>4}  turn {rep.games[i].turn:>2}  "
                          f"{h['players'][row['player']]}: {_what(row)}", markup=False)
            for line in steps[i]:
                console.print(f"        {line}", style="magenta", markup=False)
        if rep.games[-1].result is None:
            console.print(_UNFINISHED)
        return 0
    i, draw = 0, True
    while True:
        if draw:
            console.rule(f"move {i} of {n}")
            console.print(board(rep.games[i], seat, reveal=True, card_text=False,
                                end_line=False, names=(names[seat], names[1 - seat])))
            told = setup if i == 0 else steps[i - 1]
            if told:
                console.print("\n".join(told), style="magenta", markup=False)
            if i < n:
                row = rep.rows[i]
                console.print(f"[bold]next:[/bold] {escape(h['players'][row['player']])} "
                              f"{escape(_what(row))}")
            elif rep.games[i].result is None:
                console.print(_UNFINISHED)
        try:
            cmd = console.input(f"[bold]move {i}/{n}[/bold]  {KEYS}", stream=stream)
        except (EOFError, KeyboardInterrupt):
            return 0
        if stream is not None and not cmd:      # the stream's end
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
        elif word == "card":                # hands show one line a card: the rest here
            from .cli_play import card_lookup
            for shown in card_lookup(rep.games[i].db, rest):
                console.print(shown)
            draw = False
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


_UNFINISHED = "The replay ends before the game does."


def _what(row) -> str:
    """A recorded move in words: the name the game gave it, or a surrender."""
    return row["name"] if row["kind"] == "action" else "surrenders"


def _told_end(lines: list[str], rep) -> list[str]:
    """The last move's lines with the end told once: the narration's "Game over: who won —
    why." with the number of turns the game took added (what the viewer's own result
    line used to repeat)."""
    g = rep.games[-1]
    if g.result is None:
        return lines
    turns = min(g.turn, g.cfg.max_turns)        # a game cut at the limit stops before
    out = [f"Game over after {turns} turn{'s' if turns != 1 else ''}: "
           f"{x[len('Game over: '):]}" if x.startswith("Game over: ") else x for x in lines]
    return out


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a replay file (both hands shown)")
    p.add_argument("file", help="a replay file (JSON Lines, docs/replays.md)")
    p.add_argument("--summary", action="store_true", help="print every move and the result, "
                                                         "no stepping")
    add_cards_option(p, "an extra card file the game was played with")
    p.set_defaults(func=cmd_replay)
