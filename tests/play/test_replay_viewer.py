"""The terminal replay viewer (``python -m nivel_env replay``) at a 100x30 terminal: the
move counter and the lines of the move stay on screen, and the end is told once
(issue 29)."""
import io
import random
import re

import pytest
from rich.console import Console

from nivel_env.cards import load_deck
from nivel_env.cli_replay import view
from nivel_env.engine import new_game
from nivel_env.narrate import replay_story
from nivel_env.replay import load_replay, record_game

PROMPT = re.compile(r"move (\d+)/(\d+)  \(n\)ext")


def _replay(tmp_path, moves: int | None = None):
    """A recorded game between random movers (the first ``moves`` moves of it)."""
    d0, d1 = load_deck("veil-piercers"), load_deck("ember-rush")
    g = new_game(d0, d1, seed=7)
    rng = random.Random(7)
    actions = []
    while not g.is_terminal() and (moves is None or len(actions) < moves):
        actions.append(rng.choice(g.legal_actions()))
        g.apply_action(actions[-1])
    path = record_game(d0, d1, 7, actions, players=["a", "b"]).write(tmp_path / "r.jsonl")
    return load_replay(path)


def _run(rep, commands: str, summary: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, height=30, color_system=None)
    assert view(rep, console, "r.jsonl", summary=summary, stream=io.StringIO(commands)) == 0
    return out.getvalue()


def _frames(text: str):
    """(position shown, moves in all, what was printed since the last prompt) before each
    prompt; a command read from a stream is not echoed, so what follows a prompt starts
    on its line: a terminal would have put the typed command and its Enter there."""
    marks = list(PROMPT.finditer(text))
    starts = [0] + [text.index("(q)uit: ", m.end()) + len("(q)uit: ") for m in marks]
    return [(int(m.group(1)), int(m.group(2)), text[s:m.start()])
            for s, m in zip(starts, marks)]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_counter_and_the_moves_lines_stay_on_a_100_by_30_screen(tmp_path):
    rep = _replay(tmp_path)
    n = len(rep.games) - 1
    setup, steps = replay_story(rep, 0)
    text = _run(rep, "\nn\ng 40\np\nt 5\ne\np\ns\nhelp\nzz\n")
    frames = _frames(text)
    shown = [i for i, _, _ in frames]
    assert shown == [0, 1, 2, 40, 39, rep.first_step_of_turn(5), n, n - 1, 0, 0, 0]
    for i, total, before in frames:
        assert total == n
        if f"move {i} of {n}" not in before:     # after help or a wrong command: no frame
            continue
        lines = before.rstrip("\n").splitlines()
        assert max(len(x) for x in lines) <= 100
        # the prompt is the 30th line: what the move told must be in the 29 above it
        screen = _flat("\n".join(lines[-29:]))
        for line in setup if i == 0 else steps[i - 1]:
            if not line.startswith("Game over: "):        # told with its length at the end
                assert _flat(line) in screen, (i, line)
        if i < n:
            assert "next: " in lines[-1] or "next: " in lines[-2]


def test_the_end_is_told_once(tmp_path):
    rep = _replay(tmp_path)
    n = len(rep.games) - 1
    g = rep.games[-1]
    last = _frames(_run(rep, "e\n"))[-1]
    assert last[0] == n
    end = [x for x in last[2].splitlines() if "Game over after" in x]
    assert len(end) == 1 and end[0].startswith(f"Game over after {g.turn} turns: you ")
    assert " — " in end[0] and "Result" not in last[2]
    assert "Game over: you " not in last[2]          # the narration's line, now the one above
    summary = _run(rep, "", summary=True)
    assert summary.count("Game over after ") == 1 and "Game over: you " not in summary
    assert "Result" not in summary


@pytest.mark.parametrize("summary", [False, True])
def test_a_replay_that_stops_early_says_so_once(tmp_path, summary):
    rep = _replay(tmp_path, moves=30)
    text = _run(rep, "e\n", summary=summary)
    assert text.count("The replay ends before the game does.") == 1
    assert "Game over" not in text
