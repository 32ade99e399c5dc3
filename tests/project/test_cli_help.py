"""Every command line's --help prints (issue 29: `play --help` crashed on a '%' in a help
string, which argparse formats with %).  The parsers are walked, so a command added later
is covered without being listed here."""
import argparse

import pytest


class _Caught(Exception):
    pass


def _parser_of(main, argv):
    """The parser ``main(argv)`` builds, caught as it starts parsing."""
    caught = []
    real = argparse.ArgumentParser.parse_args

    def grab(self, *a, **k):
        caught.append(self)
        raise _Caught

    argparse.ArgumentParser.parse_args = grab
    try:
        with pytest.raises(_Caught):
            main(argv)
    finally:
        argparse.ArgumentParser.parse_args = real
    return caught[0]


def _walk(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, path + (name,))


def _mains():
    from nivel_env.__main__ import main as nivel
    out = [("python -m nivel_env", nivel, [])]
    import evaluate
    import train
    out += [("evaluate.py", evaluate.main, []), ("train.py", train.parse_args, [])]
    return out


@pytest.mark.parametrize("program", ["python -m nivel_env", "evaluate.py", "train.py"])
def test_every_command_prints_its_help(program, capsys):
    name, main, argv = next(m for m in _mains() if m[0] == program)
    commands = list(_walk(_parser_of(main, argv)))
    assert commands
    for path, parser in commands:
        text = parser.format_help()                    # what --help prints
        assert text.startswith("usage:"), (path, text[:80])
    if program == "python -m nivel_env":
        names = {p[0] for p, _ in commands if p}
        assert {"play", "serve", "replay", "check", "demo", "cards", "deck"} <= names
        with pytest.raises(SystemExit) as e:         # and through the real flag
            main(["play", "--help"])
        assert e.value.code == 0 and "--tutorial" in capsys.readouterr().out
