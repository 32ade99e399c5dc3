"""The ``play`` command: a game against an AI opponent in the terminal.

The human sees what their seat may see -- the same information the observation
gives an agent -- and picks moves by number from the legal actions, named as
``action_name`` names them.  The opponent is any agent ``load_opponent`` knows
(``random``, ``heuristic``, a shipped or trained policy file, the search agent
``nv2-search``) or a level of the difficulty ladder (``--level novice`` ... ``expert``).
Leaving (``quit``, Ctrl-C, end of input) is a surrender, recorded like any other move, so
every game can be saved as a replay.
"""
from __future__ import annotations

import secrets
import sys

import numpy as np

from .cards import CardDataError, DeckError, list_decks, load_deck
from .cli_cards import _db
from .engine import N_ACTIONS, new_game

HELP = """\
The screen, top to bottom:
  * the opponent: leader, level, size (how much cost may be on their field), cost in use,
    damage (10 loses), deck / hand / trash counts, active skills and the damage zone;
  * the three lanes: the opponent's units above yours.  P = power, H = hit (damage dealt
    to the leader), keywords in cyan, equipped items after a "+";
  * you, the same way, then your hand with each card's cost, power/hit and text
    (T marks a trigger card);
  * the decision you are asked and your legal moves, numbered.

Type a move's number and press Enter.  Other commands:
  help      this text            board   show the board again
  log       what happened since your last move, told again
  quit      surrender and leave, after asking (Ctrl-C leaves at once)
"""


def _ask(console, prompt: str) -> str | None:
    """One line of input; None at end of input or Ctrl-C."""
    try:
        return console.input(prompt)
    except (EOFError, KeyboardInterrupt):
        return None


def cmd_play(args) -> int:
    from rich.console import Console
    from .env.encoder import Encoder
    from .replay import ReplayRecorder
    from .screen import board, decision_line, moves_table
    console = Console(highlight=False)
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    try:
        db = _db(args.cards)
        names = list_decks()
        mine = load_deck(args.deck or names[seed % len(names)], db)
        theirs = load_deck(args.opponent_deck or names[(seed // len(names) + 1 + seed)
                                                       % len(names)], db)
    except (CardDataError, DeckError) as e:
        print(f"play: {e}", file=sys.stderr)
        return 2
    if args.level:
        args.opponent = args.level
    try:
        from agents import load_opponent
        opponent = load_opponent(args.opponent, difficulty=args.difficulty, seed=seed)
    except ImportError as e:
        print(f"play: opponent {args.opponent!r} needs the train extra "
              f"(pip install torch==2.13.0 && pip install -e \".[train]\"): {e}", file=sys.stderr)
        return 2
    except Exception as e:                                  # noqa: BLE001 -- a clear message
        print(f"play: cannot load opponent {args.opponent!r}: {e}", file=sys.stderr)
        return 2
    human = {"0": 0, "1": 1}.get(args.seat, seed & 1)
    decks = (mine, theirs) if human == 0 else (theirs, mine)
    g = new_game(*decks, seed=seed, db=db)
    players = ["you" if p == human else f"AI ({args.opponent})" for p in (0, 1)]
    rec = ReplayRecorder(g, seed, decks, players=players,
                         meta={"opponent": args.opponent, "difficulty": args.difficulty})
    enc = Encoder(db)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if hasattr(opponent, "reset"):
        opponent.reset()
    console.print(f"[bold]Nivel Arena[/bold] — you play [bold]{mine.name}[/bold] against "
                  f"{players[1 - human]} with [bold]{theirs.name}[/bold] (seed {seed}). "
                  f"You go {'first' if g.first == human else 'second'}. Type [bold]help[/bold] "
                  f"for the screen and commands.")
    from .narrate import Narrator
    story = Narrator(g, human)          # what happened, told from the human's side
    log: list[str] = story.new_lines()
    quit_ = False
    while g.result is None:
        p = g.current_player
        legal = g.legal_actions()
        if p != human:
            mask[:] = 0
            mask[legal] = 1
            if getattr(opponent, "needs_state", False):     # a search agent
                a = int(opponent.act_state(g))
            else:
                obs = enc.encode(g, p, legal) \
                    if getattr(opponent, "needs_observation", True) else None
                a = int(opponent.act(obs, mask))
            name, turn = g.action_name(a), g.turn
            g.apply_action(a)
            rec.step(p, a, name, turn)
            log.extend(story.new_lines())
            continue
        if len(legal) == 1 and args.auto:         # a forced move: nothing to decide
            a = legal[0]
            name, turn = g.action_name(a), g.turn
            log.append(f"(your only move: {name})")
            g.apply_action(a)
            rec.step(p, a, name, turn)
            log.extend(story.new_lines())
            continue
        if log:
            console.print("\n".join(log), style="magenta")
            shown, log = log, []
        else:
            shown = []
        console.rule()
        console.print(board(g, human))
        console.print(f"[bold]Your decision:[/bold] {decision_line(g)}")
        console.print(moves_table(g, legal))
        while True:
            text = _ask(console, f"Move [1-{len(legal)}], help, quit: ")
            if text is None:                       # end of input or Ctrl-C: leave
                quit_ = True
                break
            if text.strip().lower() in ("quit", "q", "exit", "surrender"):
                sure = _ask(console, "Surrender and leave the game? (y/N) ")
                if sure is None or sure.strip().lower() in ("y", "yes"):
                    quit_ = True
                    break
                console.print("Play on.")
                continue
            text = text.strip().lower()
            if text in ("help", "h", "?"):
                console.print(HELP)
            elif text in ("board", "b"):
                console.print(board(g, human))
                console.print(moves_table(g, legal))
            elif text == "log":
                console.print("\n".join(shown) or "(nothing yet)", style="magenta")
            elif text.isdigit() and 1 <= int(text) <= len(legal):
                a = legal[int(text) - 1]
                name, turn = g.action_name(a), g.turn
                g.apply_action(a)
                rec.step(p, a, name, turn)
                log.extend(story.new_lines())
                break
            else:
                console.print(f"[red]'{text}' is not a move: type a number from 1 to "
                              f"{len(legal)}, or help[/red]")
        if quit_:
            g.surrender(human)
            rec.surrender(human)
            log.extend(story.new_lines())
            break
    console.print("\n".join(log), style="magenta")
    console.rule()
    console.print(board(g, human))
    r = g.returns()[human]
    console.print(f"[bold]{'You win!' if r > 0 else 'You lose.' if r < 0 else 'Draw.'}[/bold] "
                  f"({g.turn} turns, seed {seed})")
    if args.save_replay:
        path = rec.write(args.save_replay)
        console.print(f"Replay saved to {path}; watch it with: python -m nivel_env replay {path}")
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play a game against an AI opponent in the terminal")
    p.add_argument("--deck", help="your deck: a bundled name or a deck file (default: drawn "
                                  "from the seed)")
    p.add_argument("--opponent-deck", help="the opponent's deck (default: drawn from the seed)")
    try:
        from agents.opponents import LEVELS
    except ImportError:                             # the agents package is not installed
        LEVELS = {}
    who = p.add_mutually_exclusive_group()
    who.add_argument("--opponent", default="heuristic",
                     help="random, heuristic, a shipped policy (e.g. nv2-ppo, needs the "
                          "train extra), the search agent nv2-search, or a policy file; "
                          "settings after a colon, e.g. nv2-search:simulations=64 "
                          "(default: heuristic)")
    who.add_argument("--level", choices=list(LEVELS) or None,
                     help="a level of the difficulty ladder, weakest first: "
                          + "; ".join(f"{k}: {v[1]}" for k, v in LEVELS.items()))
    p.add_argument("--difficulty", choices=("hard", "normal", "easy"), default="hard",
                   help="for policy opponents: how greedily they pick (default: hard)")
    p.add_argument("--seat", choices=("0", "1", "random"), default="random",
                   help="your seat; who goes first is decided by the game (5.1.5)")
    p.add_argument("--seed", type=int, help="the game's seed (default: a fresh one, printed)")
    p.add_argument("--no-auto", dest="auto", action="store_false",
                   help="ask even when only one move is legal (default: play it and say so)")
    p.add_argument("--cards", nargs="+", metavar="FILE", help="extra card files to load")
    p.add_argument("--save-replay", metavar="FILE", help="write the game as a replay "
                                                         "(JSON Lines, docs/replays.md)")
    p.set_defaults(func=cmd_play)
