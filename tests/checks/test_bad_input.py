"""Bad input: card, deck and scenario files broken every way we can think of --
truncated, wrong types, unknown ids, missing fields, hostile sizes -- must raise the
project's own error naming the file (and the field where there is one), never a
bare KeyError/TypeError/RecursionError, and never hang."""
import copy
import signal
from contextlib import contextmanager

import pytest
import yaml

from nivel_env.cards import CardDataError, DeckError, load_card_db, load_deck
from nivel_env.cards.db import bundled_card_files
from nivel_env.engine import ScenarioError
from nivel_env.engine.scenario import load_scenario

HOSTILE = [None, -1, 10**30, 1.5, True, "", "x" * 10_000, [], {"z": 1}, "?"]


@contextmanager
def deadline(seconds=5):
    def boom(*_):
        raise TimeoutError(f"took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def expect_own_error(load, path, errors):
    """``load(path)`` either works or raises one of ``errors`` naming ``path``."""
    with deadline():
        try:
            load(path)
        except errors as e:
            assert str(path) in str(e), e
            return e
    return None


def paths(x, prefix=()):
    """Every key/index path inside a nested structure."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield prefix + (i,)
            yield from paths(v, prefix + (i,))


def mutate(data, path, value, delete=False):
    d = copy.deepcopy(data)
    node = d
    for k in path[:-1]:
        node = node[k]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


def sample_cards():
    """One card of every shape: each type, each top-level field set, the deepest
    effects (a couple of dozen cards from the bundled pool)."""
    cards, seen = [], set()
    for f in bundled_card_files():
        for c in yaml.safe_load(f.read_text(encoding="utf-8"))["cards"]:
            shape = (c["type"], tuple(sorted(c)), len(list(paths(c))) // 30)
            if shape not in seen:
                seen.add(shape)
                cards.append(c)
    return cards


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow), 9])
def test_every_field_of_a_card_mutated(tmp_path, every):
    """Every card shape, every field (slow tier); every 9th shape in the fast tier."""
    f = tmp_path / "mutant.yaml"
    load = lambda p: load_card_db([p])                                   # noqa: E731
    tried = named = 0
    for card in sample_cards()[::every]:
        for path in paths(card):
            for value in HOSTILE + ["DELETE", "UNKNOWN-KEY"]:
                if value == "UNKNOWN-KEY":
                    if not isinstance(card_at(card, path[:-1]), dict):
                        continue
                    mutant = mutate(card, path[:-1] + ("no_such_field",), 1)
                else:
                    mutant = mutate(card, path, value, delete=value == "DELETE")
                f.write_text(yaml.safe_dump({"cards": [mutant]}, allow_unicode=True))
                e = expect_own_error(load, f, CardDataError)
                tried += 1
                if e is not None and (e.field or e.card):
                    named += 1
    assert tried > 2000 // every
    assert named > tried * 0.6          # most errors also say which card and field


def card_at(card, path):
    node = card
    for k in path:
        node = node[k]
    return node


def test_references_to_unknown_cards(tmp_path):
    f = tmp_path / "refs.yaml"
    f.write_text("cards:\n  - {id: X-L1, type: leader, name: A, name_ko: 가, attribute: fire,\n"
                 "     awakening: 5, back: NOPE-9}\n")
    expect_own_error(lambda p: load_card_db([p]), f, CardDataError)


@pytest.mark.parametrize("cut", [1, 7, 30, 64, 101, 333, 1000, 2500, 5000, -20, -3])
def test_truncated_card_files(tmp_path, cut):
    text = bundled_card_files()[0].read_text(encoding="utf-8")
    f = tmp_path / "cut.yaml"
    f.write_text(text[:cut], encoding="utf-8")
    expect_own_error(lambda p: load_card_db([p]), f, CardDataError)


@pytest.mark.parametrize("text,what", [
    ("cards: " + "[" * 20_000 + "]" * 20_000, "nested"),
    ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "cards: [*b, *b]\n", "aliases"),
    ("\x00\x01 junk", "YAML"),
    ("cards: {}\n", "list"),
    ("", "cards"),
    ("cards: [" + "{id: X-1}, " * 5_000 + "]", "X-1"),
    ("x: " + "y" * 1_000 + " #" + "\t" * 1_000_000 + "\ncards: {}\n", "unknown top-level"),
], ids=["deep", "aliases", "binary", "mapping", "empty", "many", "tabs"])
def test_hostile_card_files(tmp_path, text, what):
    f = tmp_path / "hostile.yaml"
    f.write_text(text, encoding="utf-8")
    e = expect_own_error(lambda p: load_card_db([p]), f, CardDataError)
    assert e is not None and what in str(e)


def test_oversized_and_binary_files(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"cards: []\n" + b"#" * (9 * 2**20))
    e = expect_own_error(lambda p: load_card_db([p]), big, CardDataError)
    assert "bytes" in str(e)
    raw = tmp_path / "raw.yaml"
    raw.write_bytes(bytes(range(256)) * 10)
    assert expect_own_error(lambda p: load_card_db([p]), raw, CardDataError) is not None


@pytest.mark.parametrize("text", [
    "", "leader: LD-01", "leader: LD-01\n40", "leader: LD-01\n40 NOPE-1\n",
    "leader: LD-01\n-3 FI-01\n", "leader: LD-01\n99999999999999999999 FI-01\n",
    "leader: FI-01\n40 FI-02\n", "leader: LD-01\nleader: LD-02\n", "name: x\n" * 1000,
    "leader: LD-01\n" + "3 FI-01\n" * 5000, "\x00\xff\xfe", "leader: " + "A" * 100_000,
    "leader: LD-01\n3 FI-01 FI-02\n", "leader: LD-01\n0 FI-01\n40 FI-02\n",
], ids=lambda t: repr(t[:24]))
def test_bad_deck_files(tmp_path, db, text):
    f = tmp_path / "bad.deck"
    f.write_bytes(text.encode("utf-8", "surrogateescape"))
    e = expect_own_error(lambda p: load_deck(p, db), f, DeckError)
    assert e is not None


def test_huge_and_undecodable_deck_files(tmp_path, db):
    f = tmp_path / "huge.deck"
    f.write_text("leader: LD-01\n" + "1 FI-01\n" * 300_000)
    assert "bytes" in str(expect_own_error(lambda p: load_deck(p, db), f, DeckError))
    f.write_bytes(b"leader: LD-01\n\xff\xfe 3 FI-01\n")
    assert expect_own_error(lambda p: load_deck(p, db), f, DeckError) is not None


GOOD_SCENARIO = {
    "turn": 3, "turn_player": 0, "phase": "main", "seed": 1,
    "players": [
        {"leader": "T-L01", "level": 3, "hand": ["T-001", "T-002"], "deck": ["T-002"] * 5,
         "units": ["T-002", None, "T-003"], "damage": ["T-001"], "trash": ["T-003"]},
        {"leader": "T-L02", "level": 2, "hand": ["T-001"], "deck": ["T-002"] * 5},
    ],
}


def test_every_field_of_a_scenario_mutated(tmp_path, db):
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(GOOD_SCENARIO))
    assert load_scenario(f, db).turn == 3
    tried = 0
    for path in paths(GOOD_SCENARIO):
        for value in HOSTILE + ["NOPE-1", "DELETE", 10**6]:
            mutant = mutate(GOOD_SCENARIO, path, value, delete=value == "DELETE")
            f.write_text(yaml.safe_dump(mutant))
            expect_own_error(lambda p: load_scenario(p, db), f, ScenarioError)
            tried += 1
    assert tried > 300


@pytest.mark.parametrize("text", [
    "players: [" + "[" * 5000 + "]" * 5000 + "]",
    "a: &a [1, 1, 1, 1, 1, 1, 1, 1]\nplayers: [*a, *a]\n",
    "players:\n  - {leader: T-L01, deck: [" + "T-002, " * 100_000 + "]}\n  - {leader: T-L02}\n",
    "players: [{leader: T-L01}, {leader: T-L02}]\nturn: " + "9" * 5000 + "\n",
    "players: [{leader: T-L01, level: 1e400}, {leader: T-L02}]\n",
    "players:", "\x00",
], ids=["deep", "aliases", "long-deck", "huge-turn", "float-level", "no-players", "binary"])
def test_hostile_scenario_files(tmp_path, db, text):
    f = tmp_path / "s.yaml"
    f.write_text(text)
    assert expect_own_error(lambda p: load_scenario(p, db), f, ScenarioError) is not None


def test_the_projects_errors_cross_process_boundaries_whole():
    """Errors raised in a worker process (evaluate.py's pool, Ray, the worker envs) reach
    the caller pickled: each must come back as itself with its message and fields (a
    two-argument constructor made DeckError arrive as 'Failed to deserialize')."""
    import pickle

    from nivel_env.cards.deck import DeckError
    from nivel_env.cards.schema import CardDataError
    from nivel_env.files import FileRefused
    from nivel_env.replay import ReplayError
    errors = [DeckError("my.deck", ["line 3: no card X-99", "40 cards needed"]),
              CardDataError("my.yaml", "MY-01", "power", "expected an integer"),
              CardDataError("my.yaml", None, None, "not a mapping"),
              ReplayError("game.jsonl", 7, "unknown action"),
              ReplayError("game.jsonl", None, "empty"),
              FileRefused("/tmp/pipe", "not a regular file but a FIFO (named pipe)")]
    for e in errors:
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and str(back) == str(e)
        assert {k: v for k, v in vars(back).items()} == vars(e)
