"""The ``play`` command: a game against an AI opponent in the terminal.

The human sees what their seat may see -- the same information the observation gives an
agent -- is told what happened in plain words (``narrate``), and picks moves by number or
by key from the legal actions; ``PlaySession`` (``session.py``) runs the game.  The
opponent is any player ``nivel_env.players.load`` knows (``--opponent``: the names
``players.names()`` lists, or a trained policy file) or a level of the difficulty ladder
(``--level``: ``players.levels()``).
Leaving (``quit``, Ctrl-C, end of input) is a surrender, recorded like any other move, so
every game can be saved as a replay.
"""
from __future__ import annotations

import sys

from . import players
from .cards import CardDataError, DeckError
from .cli_cards import _db, add_cards_option
from .difficulty import DEFAULT_DIFFICULTY, DIFFICULTIES
from .engine import actions as A
from .engine.view import leader_of

HELP = """\
The screen, top to bottom:
  * the opponent: leader, level, size (how much cost may be on their field) and cost in
    use, damage (10 loses), deck / hand / trash counts, skills and the damage zone;
  * the three lanes, the opponent's units above yours: P = power, H = hit (damage dealt
    to the leader when unblocked), keywords in cyan with their values, items after "+";
  * you, the same way, then your hand: h0, h1, ... with type (T: a trigger card), cost,
    power/hit and the start of the text;
  * what you are asked, and your legal moves.

Each move has a number and, most of them, a key in cyan.  Numbers change with every
decision; keys do not: e end the phase, a1 attack with lane 1, d1 / g1 defend / Guardian
with lane 1, h20 play hand card 2 into lane 0 (h2s: as a skill), xl0 / x10 use your
leader's / lane 1's first ability, y / n yes / no (n: done, no block), k / m keep /
mulligan.  A move that is your only one is played for you (--no-auto asks instead).

Commands:
  help            this text           rules          how the game works, every keyword
  inspect h2      hand card 2's text  inspect 1      both units in lane 1, with items
  inspect leader  both leaders        inspect trash  both trashes (also: damage, skills)
  card NAME       any card's text     board          show the board again
  hint            the coach's move and why (play --tutorial: shown at every move)
  log             what happened since your last move, told again
  quit            surrender and leave, after asking (Ctrl-C leaves at once)
"""


def _ask(console, prompt: str) -> str | None:
    """One line of input; None at end of input or Ctrl-C."""
    try:
        return console.input(prompt)
    except (EOFError, KeyboardInterrupt):
        return None


def inspect(g, viewer: int, what: str, nums=None) -> list:
    """What ``inspect WHAT`` shows: the full text of visible cards (renderables), or a
    one-line message saying what it takes.  ``nums`` are the hand's keys (``HandKeys``)."""
    from rich.text import Text
    from .screen import card_panel
    w = what.strip().lower()
    opp = 1 - viewer
    if w.startswith("h") and w[1:].isdigit():
        i = int(w[1:])
        keys = list(nums) if nums is not None else list(range(len(g.hand[viewer])))
        if i in keys:
            from .engine import play_blockers
            h = keys.index(i)
            d = g.decision
            why = play_blockers(g, viewer).get(h) if d is not None and d.kind == "main" \
                and g.current_player == viewer else None
            return [card_panel(g, g.hand[viewer][h])] + \
                ([Text(f"Can't be played now: {why}.", style="italic")] if why else [])
        have = ", ".join(f"h{k}" for k in sorted(keys)) or "empty"
        return [Text(f"no card h{i} in your hand ({have})", style="red")]
    if w in ("0", "1", "2"):
        from .primer import glossary
        from .screen import unit_keywords
        words = glossary()
        out = []
        for p, who in ((opp, "Opponent"), (viewer, "You")):
            s = p * 3 + int(w)
            cards = ([g.unit[s]] if g.unit[s] >= 0 else []) + list(g.items[s])
            out.append(Text(f"{who}, lane {w}:" + ("" if cards else " empty"), style="bold"))
            out += [card_panel(g, i) for i in cards]
            for k in unit_keywords(g, s) if cards else []:     # what its keywords do now
                out += [Text(f"  {words[n]}", style="cyan") for n in words if n in k]
        return out
    if w in ("leader", "leaders"):
        return [card_panel(g, leader_of(p)) for p in (opp, viewer)]
    zones = {"trash": g.trash, "damage": g.damage, "skills": g.skill, "skill": g.skill}
    if w in zones:
        out = []
        for p, who in ((opp, "Opponent"), (viewer, "You")):
            cards = zones[w][p]
            out.append(Text(f"{who}, {w}:" + ("" if cards else " empty"), style="bold"))
            out += [card_panel(g, i) for i in cards]
        return out
    return [Text("inspect what? h0.. (your hand), 0-2 (a lane), leader, trash, damage or "
                 "skills", style="red")]


def card_lookup(db, name: str) -> list:
    """``card NAME``: the card whose name is NAME, or those whose names contain it."""
    from rich.text import Text
    from .screen import card_text
    n = name.strip().lower()
    if not n:
        return [Text("card what? give a name, e.g. card scorch lancer", style="red")]
    exact = [c for c in db.cards if c.name.lower() == n]
    hits = exact or [c for c in db.cards if n in c.name.lower()]
    if not hits:
        return [Text(f"no card is named like '{name.strip()}'", style="red")]
    if len({c.name for c in hits}) > 6:
        return [Text(f"{len(hits)} cards match '{name.strip()}': "
                     + ", ".join(sorted({c.name for c in hits})[:12]) + " ...", style="red")]
    seen, out = set(), []
    for c in hits:
        if c.name not in seen:
            seen.add(c.name)
            out.append(card_text(c))
    return out


def _pick(g, legal: list[int], text: str, nums=None) -> int | None:
    """The move ``text`` names: its number in the list or its key."""
    from .screen import move_key, ordered_moves
    if text.isdigit():
        k = int(text)
        return ordered_moves(g, legal, nums)[k - 1] if 1 <= k <= len(legal) else None
    for a in legal:
        if move_key(g, a, nums) == text:
            return a
    return None


def _attackers_left(g, legal: list[int]) -> list[int]:
    """The lanes of the units that could still attack, when the player ends the attack
    phase with moves like that on the list."""
    return [m.lane for m in map(A.decode, legal) if m.kind == "ATTACK"]


def _page(console, text: str) -> None:
    """Long help through a pager when it would not fit the screen, else printed."""
    if console.is_terminal and text.count("\n") + 2 > console.height:
        with console.pager():
            console.print(text, markup=False)
    else:
        console.print(text, markup=False)


def _coach_line(g, hint, legal: list[int], nums) -> str:
    """"Coach: <why> (type 5 or h32)": the hint and how to make its move."""
    from .screen import move_key, ordered_moves
    number = ordered_moves(g, legal, nums).index(hint.action) + 1
    key = move_key(g, hint.action, nums)
    return f"Coach: {hint.why} (type {number}{f' or {key}' if key else ''})"


def _screen(console, g, human: int, legal: list[int], nums, hint=None) -> None:
    """The board, the question, the coach's hint if there is one (a lesson the first time
    its part of the game comes up), and the moves: in two columns only when one would
    push the board off a screen of ``console.height``."""
    from rich.text import Text
    from .screen import board, decision_line, forecast_lines, moves_table
    shown = board(g, human, nums=nums, why_not=True)
    notes = [Text(line, style="cyan") for line in forecast_lines(g, human)
             if g.decision.kind in ("defense", "guardian")]
    if hint is not None:
        if hint.lesson:
            notes.append(Text(f"Lesson: {hint.lesson}", style="yellow"))
        notes.append(Text(_coach_line(g, hint, legal, nums), style="green"))
    used = sum(len(console.render_lines(r, console.options, pad=False))
               for r in (shown, *notes)) + 3
    console.rule()
    console.print(shown)
    console.print(decision_line(g), style="bold", markup=False)
    for note in notes:
        console.print(note)
    console.print(moves_table(g, legal, nums, height=max(4, console.height - used),
                              mark=hint.action if hint is not None else None))


def cmd_play(args) -> int:
    from rich.console import Console
    from rich.markup import escape
    from .primer import primer_text
    from .screen import HandKeys, board, moves_table
    from .session import PlaySession, SetupError, tutorial
    console = Console(highlight=False)
    if args.level:
        args.opponent = args.level
    seat = {"0": 0, "1": 1}.get(args.seat)
    try:
        if args.tutorial:
            given = [f for f, v in (("--deck", args.deck), ("--opponent-deck",
                                                           args.opponent_deck),
                                    ("--level", args.level), ("--seed", args.seed)) if v]
            if given:
                raise SetupError(f"--tutorial plays a fixed first game: leave out "
                                 f"{', '.join(given)}")
            s = tutorial(db=_db(args.cards), auto=args.auto)
        else:
            s = PlaySession(args.deck, args.opponent_deck, args.opponent, args.difficulty,
                            seat=seat, seed=args.seed, db=_db(args.cards), auto=args.auto)
    except (SetupError, CardDataError, DeckError) as e:
        print(f"play: {e}", file=sys.stderr)
        return 2
    g, human = s.g, s.human
    console.print(f"[bold]Nivel Arena[/bold] — you play [bold]{escape(s.my_deck.name)}[/bold] "
                  f"against {escape(s.players[1 - human])} with "
                  f"[bold]{escape(s.their_deck.name)}[/bold]"
                  # a drawn seed waits for the end: with the moves it deals every hidden
                  # card again; one the user typed they know already
                  f"{f' (seed {s.seed})' if s.seed_given else ''}. You go "
                  f"{'first' if g.first == human else 'second'}. Type "
                  f"[bold]help[/bold] for the screen and commands, [bold]rules[/bold] for "
                  f"how the game works, [bold]hint[/bold] for the coach's move.")
    if s.coaching:
        console.print("A guided first game: at each decision the coach points at a move "
                      "(▶) and says why, and explains each part of the game the first "
                      "time it comes up. Follow it or play your own moves.", style="green")
    told = 0                                  # log lines already printed
    shown: list[str] = []
    hand_keys = HandKeys()                    # h<n> stays with its card while in hand
    while not s.over:
        if told < len(s.log):
            shown, told = s.log[told:], len(s.log)
            console.print("\n".join(shown), style="magenta", markup=False)
        legal = s.legal()
        nums = hand_keys.update(g.hand[human])
        _screen(console, g, human, legal, nums, s.hint() if s.coaching else None)
        while True:
            text = _ask(console, "Move (number or key), help, quit: ")
            if text is None:                       # end of input or Ctrl-C: leave
                s.surrender()
                break
            text = text.strip()
            word, _, rest = text.partition(" ")
            word = word.lower()
            if not text:
                console.print(f"Type a move: its number (1 to {len(legal)}) or its key; "
                              f"help for the screen and commands.", markup=False)
            elif word in ("quit", "q", "exit", "surrender"):
                sure = _ask(console, "Surrender and leave the game? (y/N) ")
                if sure is None or sure.strip().lower() in ("y", "yes"):
                    s.surrender()
                    break
                console.print("Play on.")
            elif word in ("help", "?"):
                _page(console, primer_text(config=g.cfg) if rest.strip() == "rules"
                      else HELP)
            elif word == "rules":
                _page(console, primer_text(config=g.cfg))          # this game's rules
            elif word in ("board", "b"):
                console.print(board(g, human, nums=nums, why_not=True))
                console.print(moves_table(g, legal, nums))
            elif word == "hint":
                console.print(_coach_line(g, s.hint(), legal, nums), style="green",
                              markup=False)
            elif word == "log":
                console.print("\n".join(shown) or "(nothing yet)", style="magenta",
                              markup=False)
            elif word in ("inspect", "i"):
                for r in inspect(g, human, rest, nums):
                    console.print(r)
            elif word == "card":
                for r in card_lookup(g.db, rest):
                    console.print(r)
            elif (a := _pick(g, legal, text.lower(), nums)) is not None:
                if a == A.END_ATTACK and (lanes := _attackers_left(g, legal)):
                    which = " and ".join(f"lane {ln}" for ln in lanes)
                    sure = _ask(console, f"Your unit{'s' if len(lanes) > 1 else ''} in "
                                         f"{which} can still attack. End the turn anyway? "
                                         f"(y/N) ")
                    if sure is None or sure.strip().lower() not in ("y", "yes"):
                        console.print("Still your attack phase.")
                        continue
                with _thinking(console):
                    s.play(a)
                break
            else:
                console.print(f"[red]'{escape(text)}' is not a move: type a number from 1 to "
                              f"{len(legal)} or a move's key, or help[/red]")
    if told < len(s.log):
        console.print("\n".join(s.log[told:]), style="magenta", markup=False)
    console.rule()
    console.print(board(g, human, end_line=False))          # the line below tells the end
    r = s.outcome()
    console.print(f"[bold]{'You win!' if r == 'win' else 'You lose.' if r == 'loss' else 'Draw.'}"
                  f"[/bold] ({g.turn} turns, seed {s.seed})")
    if args.save_replay:
        path = s.recorder.write(args.save_replay)
        console.print(f"Replay saved to {path}; watch it with: python -m nivel_env replay {path}",
                      markup=False)
    return 0


def _thinking(console):
    """While the opponent answers a move: a "thinking" line with a spinner on a terminal
    (it goes away when the answer comes); nothing where output is not a terminal."""
    import contextlib
    if not console.is_terminal:
        return contextlib.nullcontext()
    return console.status("The opponent is thinking…", spinner="dots")


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play a game against an AI opponent in the terminal")
    p.add_argument("--deck", help="your deck: a bundled name or a deck file (default: drawn "
                                  "from the seed)")
    p.add_argument("--opponent-deck", help="the opponent's deck (default: drawn from the seed)")
    LEVELS = players.levels()                       # empty without the agents package
    who = p.add_mutually_exclusive_group()
    named = players.names()                         # empty without the agents package
    who.add_argument("--opponent", default="heuristic",
                     help=(f"a bundled player ({', '.join(named)}) ".replace("%", "%%")
                           if named else
                           "a player name ") +
                          "or a policy file (trained policies and searches need torch); "
                          "settings after a colon, NAME:key=value (docs/opponents.md; "
                          "default: heuristic)")
    who.add_argument("--level", choices=list(LEVELS) or None,
                     help="a level of the difficulty ladder, weakest first: "
                          + "; ".join(f"{k}: {v[1]}" for k, v in LEVELS.items())
                          .replace("%", "%%"))          # argparse formats help with %
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default=DEFAULT_DIFFICULTY,
                   help="for policy opponents: how greedily they pick (default: "
                        f"{DEFAULT_DIFFICULTY})")
    p.add_argument("--seat", choices=("0", "1", "random"), default="random",
                   help="your seat; who goes first is decided by the game (5.1.5)")
    p.add_argument("--seed", type=int, help="the game's seed (default: a fresh one, shown "
                                            "when the game is over)")
    p.add_argument("--tutorial", action="store_true",
                   help="a guided first game: a fixed deal against a gentle opponent, the "
                        "coach pointing at a move and saying why at each decision")
    p.add_argument("--no-auto", dest="auto", action="store_false",
                   help="ask even when only one move is legal (default: play it and say so)")
    add_cards_option(p)
    p.add_argument("--save-replay", metavar="FILE", help="write the game as a replay "
                                                         "(JSON Lines, docs/replays.md)")
    p.set_defaults(func=cmd_play)
