"""Card files, decks and their errors."""
import re
import textwrap

import pytest

from nivel_env.cards import (CardDataError, DeckError, deck_problems, load_card_db,
                             load_deck, parse_deck)
from nivel_env.cards import model as m
from conftest import MY_CARDS

SECTION_10 = {"Entry", "Passive", "Active", "Attacker", "Defender", "Exit", "Armed",
              "Frontline", "Level Link", "Trigger", "Mix", "Escape", "Chain", "Buff", "Pierce",
              "Plunder", "Breakthrough", "Duelist", "Infiltrate", "Finale",
              "Mutual Destruction", "Return", "Awakening", "Berserker", "Guardian", "Barrier",
              "Sacrifice", "Offset", "Credit"}


def write(tmp_path, body, name="cards.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def test_test_pool_covers_every_section_10_keyword(db):
    seen = set().union(*(c.keywords for c in db if c.id.startswith("T-")))
    assert SECTION_10 <= seen, SECTION_10 - seen


def test_card_objects_are_immutable_and_complete(db):
    c = db.get("T-002")
    assert (c.id, c.name, c.type, c.cost, c.power, c.hit, c.attribute) == \
        ("T-002", "Flame Lancer", "unit", 2, 3, 1, "fire")
    assert c.affiliations == ("knight",) and "Pierce" in c.keywords
    assert "Pierce[1]" in c.text and "관통[1]" in c.text_ko
    with pytest.raises(Exception):
        c.cost = 5
    assert len(db.version) == 16


def test_every_card_renders_text(db):
    for c in db:
        if c.type != m.LEADER:
            assert c.text or not (c.abilities or c.subkeywords or c.trigger or c.effect), c.id


@pytest.mark.parametrize("body, field", [
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, attribute: fire}]", "hit"),
    ("cards: [{id: X-1, type: unit, name: A, cost: one, power: 2, hit: 1, attribute: fire}]",
     "cost"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: plasma}]",
     "attribute"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "colour: red}]", "colour"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: entry, do: [{trash: {zone: graveyard}}]}]}]",
     "abilities[0].do[0].trash.target.zone"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: entry, do: [{explode: 1}]}]}]", "abilities[0].do[0].explode"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "keywords: [{pierce: -1}]}]", "keywords[0].pierce"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: passive, do: [{draw: 1}]}]}]", "abilities[0].do[0].draw"),
    ("cards: [{type: unit, name: A}]", "cards[0].id"),
])
def test_bad_card_files_name_file_card_and_field(tmp_path, body, field):
    p = write(tmp_path, body)
    with pytest.raises(CardDataError) as e:
        load_card_db([p])
    assert str(p) in str(e.value)
    assert e.value.field == field
    if field != "cards[0].id":
        assert e.value.card == "X-1"


def test_bad_yaml_and_duplicates(tmp_path):
    with pytest.raises(CardDataError, match="not valid YAML"):
        load_card_db([write(tmp_path, "cards: [unclosed")])
    with pytest.raises(CardDataError, match="'cards' list"):
        load_card_db([write(tmp_path, "- 1\n- 2\n")])
    one = "cards: [{id: X-1, type: skill, name: A, cost: 1, attribute: fire, effect: [{draw: 1}]}]"
    with pytest.raises(CardDataError, match="duplicate card id"):
        load_card_db([write(tmp_path, one, "a.yaml"), write(tmp_path, one, "b.yaml")])
    with pytest.raises(CardDataError, match="cannot read"):
        load_card_db([tmp_path / "missing.yaml"])


def test_deck_errors_name_line_and_card(db, tmp_path):
    with pytest.raises(DeckError, match="line 2: unknown card id 'NOPE'"):
        parse_deck("leader: T-L01\n3 NOPE\n", db)
    with pytest.raises(DeckError, match="no 'leader"):
        parse_deck("3 T-001\n", db)
    with pytest.raises(DeckError, match="line 1: expected 'COUNT CARD-ID'"):
        parse_deck("three T-001\nleader: T-L01\n", db)
    d = parse_deck("leader: T-L01\n4 T-001\n36 T-002\n", db)
    problems = deck_problems(d)
    assert any("line 2: 4 copies of T-001" in x and "5.1.2.2" in x for x in problems)
    d = parse_deck("leader: T-L01\n3 T-001\n3 T-004\n3 T-016\n1 T-019\n30 T-002\n", db)
    assert any("10 trigger cards" in x for x in deck_problems(d))
    d = parse_deck("leader: T-L01\n3 T-021\n37 T-002\n", db)
    assert any("T-021" in x and "oath" in x for x in deck_problems(d))
    assert any("40" in x for x in deck_problems(parse_deck("leader: T-L01\n3 T-001\n", db)))
    p = tmp_path / "bad.deck"
    p.write_text("leader: T-L01\n3 T-001\n")
    with pytest.raises(DeckError) as e:
        load_deck(p, db)
    assert str(p) in str(e.value)
    assert len(load_deck(p, db, validate=False).cards) == 3
    with pytest.raises(DeckError, match="bundled"):
        load_deck("no-such-deck", db)


# ------------------------------------------------------------------ loading speed
# (benchmarks/card_loading.py measures it; these tests hold the reasons it is fast)

def _copied_pool(tmp_path, copies: int):
    """The bundled cards copied ``copies`` times under new ids (``FI-01`` -> ``FI-01x3``),
    in one file: the bundled files' card entries with their ids rewritten."""
    import re

    from nivel_env.cards.db import bundled_card_files
    entries = "".join(f.read_text(encoding="utf-8").split("\ncards:\n", 1)[1]
                      for f in bundled_card_files())
    n = len(re.findall(r"(?:- |\{)id: ", entries))
    body = "".join(re.sub(r"((?:- |\{)id: )([^,\s}]+)", rf"\1\2x{k}", entries)
                   for k in range(copies))
    p = tmp_path / "large.yaml"
    p.write_text("cards:\n" + body, encoding="utf-8")
    return p, n


def test_a_large_pool_is_read_by_libyaml_not_the_pure_python_scanner(tmp_path, monkeypatch):
    """PyYAML's pure-Python scanner cost about a millisecond a card (60,000 cards took
    minutes); with libyaml present it must not run at all, and the pool read through
    libyaml's events is the same cards."""
    import yaml
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML without libyaml: the pure-Python loader is the only one")
    path, n = _copied_pool(tmp_path, 12)                      # ~2,100 cards
    scanned = []
    real = yaml.scanner.Scanner.fetch_more_tokens
    monkeypatch.setattr(yaml.scanner.Scanner, "fetch_more_tokens",
                        lambda self: scanned.append(1) or real(self))
    big = load_card_db([path])
    assert not scanned, "the pure-Python YAML scanner read the card file"
    assert len(big) == 12 * n
    db = load_card_db()
    for c in (big.get("FI-01x0"), big.get("DA-07x11"), big.get("LD-01x5")):
        orig = db.get(c.id.split("x")[0])
        assert (c.text, c.text_ko, c.keywords, c.cost, c.power, c.type) == \
            (orig.text, orig.text_ko, orig.keywords, orig.cost, orig.power, orig.type)


FAST_SLOW_CASES = [
    "", "a: 1", "- 1\n- 2", "just text", "a: {b: [1, 2, {c: d}]}\n",
    "a: 1\na: 2\n", "a: 1\nb:\n  c: 1\n  c: 2\n", "1: a\n1: b\n", "'a': 1\na: 2\n",
    "a: *x\n", "a: &x 1\nb: *x\n", "a: &x 1\n",
    "[" * 45 + "]" * 45, "[" * 40 + "]" * 40, "[" * 39 + "]" * 39,
    "a: " + "9" * 50, "a: 0x" + "f" * 45, "a: .inf\nb: -.inf\n",
    "a: yes\nb: No\nc: ~\nd: null\ne: 2024-01-01\nf: 2001-12-14t21:59:43.10-05:00\n",
    "a: '1'\nb: \"2\"\nc: !!str 3\nd: !!int '4'\ne: ! 12\nf: !!float '1'\n",
    "? [a]\n: 1\n", "---\na: 1\n---\nb: 2\n", "--- 5\n...\n", "a: !foo 1\n",
    "a: !!python/object:os.system x\n", "\x00\x01 junk", "a: [1, 2\n", "a: - \n",
    "a: 1_000\nb: 0b101\nc: 0o17\nd: 190:20:30\ne: 1.5e3\nf: 012\ng: +1\n",
    "a: !!binary aGVsbG8=\n", "a: {x: 1, x: 2}\n", "a: 'é한'\n",
    "a: !!map {b: 1}\nc: !!seq [1]\n", "cards: [{id: X, k: [1, {a: [b, {c: d}]}]}]",
    "a: !!int abc\n", "a: !!timestamp x\n",
    # tagged values: the standard scalar tags build values, every other tag is refused
    "a: !!set {x, y}\n", "a: !!set\n  ? x\n  ? y\n", "a: !!omap [{x: 1}]\n",
    "a: !!pairs [{x: 1}]\n", "a: !!null ''\nb: !!bool yes\nc: !!float 1\n",
    "a: !!binary é\n", "a: !!str [1]\n", "a: !!map x\n", "a: !!value =\n",
    "a: !!merge x\n", "!foo {a: 1}\n", "a: !<tag:yaml.org,2002:str> x\n",
    "a: !<tag:example.com,2000:x> 1\n", "%TAG !e! tag:example.com,2000:\n--- !e!x 1\n",
    "a: !!python/name:os.system\n", "a: !!python/tuple [1, 2]\n", "a: [!x, y]\n",
    # '=' (YAML 1.1's value key) is the string '='
    "x: =\n", "- =\n- '='\n", "=: 1\n", "a: {b: =}\n",
    # merge keys, written or resolved, with or without an anchor
    "<<: {a: 1}\n", "a: &x {b: 1}\nc:\n  <<: *x\n", "a: {<<: {b: 1}}\n",
    "'<<': 1\n", "- <<\n", "a: [<<]\n",
    # hostile: expansion, depth, numbers, characters, documents, directives, tabs
    "a: &a [1, 1]\nb: &b [*a, *a]\nc: [*b, *b]\n", "{" * 1000 + "}" * 1000,
    "- " * 60 + "x\n", "a: " + "1" * 5000, "a: -0b" + "1" * 41, "a: 1e99999\n",
    "a: \x07\n", "a: 'x\ud800'\n", "a: b\x85c: d\n", "a: b\u2028c\n", "a: 1\n\ufeffb: 2\n",
    "\ufeffa: 1\n", "a: 1\n...\n---\nb: 2\n", "%YAML 1.1\n--- a\n", "%YAML 2.0\n--- a\n",
    "%YAML 1.1\n%YAML 1.1\n--- a\n", "%FOO bar\n--- a\n", "\ta: 1\n", "a:\t1\n",
    "a: 1\t\n", "a: 'x\ty'\n", "a: 1 # x\ty\n", "a: |\n  x\ty\n", "a: [1,\t2]\n",
    "a: 1\t# c\n", "a: \"x\n\ty\n", "a:\n  - 1\n\t- 2\n",
    # [ ] and { }: where the two parsers read plain text differently
    "{a:[1]}\n", "{a: 1, b:}\n", "[a :]\n", "[a?b]\n", "{a: b?c}\n", "[a: b?c]\n",
    "{?a: 1}\n", "[?a]\n", "{a:x}\n", "[a, b:c]\n", "{'a':[1]}\n", "a?b: 1\n",
    # syntax errors the two parsers word differently
    "a: b: c\n", "[a, b]]\n", "{a: 1\n", "a: @x\n", "a: `x\n", "!e!x y\n",
    "a: |\n  x\n y\n", "key: 'unterminated\n", "a: >x\n", "a: |0\n  x\n", "a: \"\\q\"\n",
    "a: 1\n  b: 2\n", "- a\nb: 1\n", "a:\n- b\n  c: 1\n",
]


@pytest.mark.parametrize("text", FAST_SLOW_CASES, ids=range(len(FAST_SLOW_CASES)))
def test_the_libyaml_reader_agrees_with_the_pure_python_one(text):
    """Both readers give the same data (same types too), or refuse the text with the same
    message: tags, '=', merge keys, hostile inputs and syntax errors included."""
    import yaml

    from nivel_env.cards import yamlio
    if yamlio._CParser is None:
        pytest.skip("PyYAML without libyaml")

    def run(parse):
        try:
            return "ok", parse(text)
        except yaml.YAMLError as e:
            assert isinstance(e, yamlio.YAMLFault), e
            return "error", str(e)
    fast, slow = run(yamlio._fast_parse), run(yamlio._slow_parse)
    assert fast == slow, (fast, slow)
    if fast[0] == "ok":
        assert _types(fast[1]) == _types(slow[1])


def _types(x):
    if isinstance(x, dict):
        return {k: _types(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_types(v) for v in x]
    return type(x).__name__


def test_what_both_readers_make_of_tags_equals_and_merge_keys():
    """The choices the agreement test holds both readers to, said once."""
    import yaml

    from nivel_env.cards.yamlio import parse
    assert parse("x: =\n") == {"x": "="}
    for text, words in (("a: !!set {x, y}\n", "the tag tag:yaml.org,2002:set is not allowed"),
                        ("<<: {a: 1}\n", "line 1, column 1: merge keys (<<) are not allowed"),
                        ("a: &x {b: 1}\nc:\n  <<: *x\n", "line 3, column 3: merge keys"),
                        ("a: 1\tb\n", "line 1, column 5: a tab character"),
                        ("{a:[1]}\n", "line 1, column 3: a ':' here needs a space after it"),
                        ("[a?b]\n", "line 1, column 3: expected ',' or ']'"),
                        ("a: b\x85c\n", "line 1, column 5: a character these files do not "
                                        "allow (U+0085)")):
        with pytest.raises(yaml.YAMLError, match=re.escape(words)):
            parse(text)


def test_broken_card_files_read_alike_through_both_readers():
    """Random damage to the bundled card files (characters added, dropped, copied): both
    readers give the same data or both refuse, always; the same message almost always --
    the parsers place a few faults in [ ] and { } differently (docs/cards.md)."""
    import random

    import yaml

    from nivel_env.cards import yamlio
    from nivel_env.cards.db import bundled_card_files
    if yamlio._CParser is None:
        pytest.skip("PyYAML without libyaml")
    chunks = []
    for f in bundled_card_files():
        lines = f.read_text(encoding="utf-8").splitlines(True)
        chunks += ["".join(lines[i:i + 12]) for i in range(0, len(lines), 12)]
    marks = list(":-[]{},#&*!|>'\"%@`?\t\n =<.") + \
        ["  ", "\n  ", "---\n", "!!set ", "<<: ", "\ufeff", "é", "~", "%YAML 1.1\n", "!x!"]
    rng = random.Random(28)

    def run(parse, s):
        try:
            return "ok", parse(s)
        except yaml.YAMLError as e:
            return "error", str(e)
    n, same_message, refused = 600, 0, 0
    for _ in range(n):
        s = rng.choice(chunks)
        for _ in range(rng.randint(1, 3)):
            i, op = rng.randrange(len(s) + 1), rng.random()
            if op < 0.4:
                s = s[:i] + rng.choice(marks) + s[i:]
            elif op < 0.7:
                s = s[:i] + s[i + rng.randint(1, 3):]
            else:
                j = rng.randrange(len(s) + 1)
                s = s[:i] + s[j:j + 5] + s[i:]
        fast, slow = run(yamlio._fast_parse, s), run(yamlio._slow_parse, s)
        assert fast[0] == slow[0], (s, fast, slow)
        if fast[0] == "ok":
            assert fast[1] == slow[1], s
        refused += fast[0] == "error"
        same_message += fast == slow
    assert refused > n // 3
    assert same_message >= 0.98 * n, f"{n - same_message} of {n} messages differ"


def test_short_random_texts_read_alike_through_both_readers():
    """Thousands of short texts of YAML's own characters (tags, block headers, tabs,
    comments, flow brackets): the two readers give the same data or both refuse, every
    time (they disagreed on 'cost: !', 'a: |#', a tab after a quote before a comment, a
    tab opening a | text).  Messages may differ here (docs/cards.md)."""
    import random

    import yaml

    from nivel_env.cards import yamlio
    if yamlio._CParser is None:
        pytest.skip("PyYAML without libyaml")
    alphabet = list("ab1 :-#'\"[]{},|>!\t\n?&*%@`=") + ["\n  ", ": ", "- ", "!!str ",
                                                         "!!int "]
    rng = random.Random(5)

    def run(parse, s):
        try:
            return "ok", parse(s)
        except yaml.YAMLError:
            return "error", None
    for _ in range(4000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        fast, slow = run(yamlio._fast_parse, s), run(yamlio._slow_parse, s)
        assert fast == slow, (s, fast, slow)


def test_bundled_card_files_read_the_same_through_both_readers():
    from nivel_env.cards import yamlio
    from nivel_env.cards.db import bundled_card_files
    if yamlio._CParser is None:
        pytest.skip("PyYAML without libyaml")
    for f in bundled_card_files():
        text = f.read_text(encoding="utf-8")
        assert yamlio._fast_parse(text) == yamlio._slow_parse(text), f


# ------------------------------------------------------------------ deck names and paths

def test_a_file_or_folder_named_like_a_bundled_deck_never_shadows_it(tmp_path, monkeypatch):
    """Bare names are bundled decks; a path (a separator, or a name ending in .deck) is
    a file.  A stray file ``ember-rush`` or folder ``stone-bastion`` in the working
    directory must not replace the bundled decks or break them."""
    from nivel_env.cards.deck import DECK_DIR
    monkeypatch.chdir(tmp_path)
    mine = (DECK_DIR / "gale-runners.deck").read_text(encoding="utf-8")
    (tmp_path / "ember-rush").write_text(mine, encoding="utf-8")      # a legal deck, other cards
    (tmp_path / "stone-bastion").mkdir()
    (tmp_path / "mine").write_text(mine, encoding="utf-8")
    (tmp_path / "mine.deck").write_text(mine, encoding="utf-8")
    ember = load_deck("ember-rush")
    assert ember.source == str(DECK_DIR / "ember-rush.deck") and ember.name == "Ember Rush"
    assert load_deck("stone-bastion").source == str(DECK_DIR / "stone-bastion.deck")
    # the file is reached by a path
    assert load_deck("./ember-rush").leader == load_deck("gale-runners").leader
    assert load_deck("mine.deck").source == "mine.deck"
    from pathlib import Path
    assert load_deck(Path("mine")).source == "mine"
    with pytest.raises(DeckError, match=r"\./mine or a name ending in \.deck"):
        load_deck("mine")                  # a bare name is never a file
    with pytest.raises(DeckError, match="directory"):
        load_deck("./stone-bastion")
    with pytest.raises(DeckError, match="bundled deck is named ember-rush, without .deck"):
        load_deck("ember-rush.deck")
    from nivel_env.cards.deck import is_deck_path
    assert [is_deck_path(s) for s in ("ember-rush", "a/b", "a\\b", "x.deck", Path("x"))] == \
        [False, True, True, True, True]
    # the environments name decks the same way
    from nivel_env import env
    e = env(decks=("ember-rush", "stone-bastion"))
    assert [d.source for d in e.unwrapped._source.decks.fixed] == \
        [str(DECK_DIR / "ember-rush.deck"), str(DECK_DIR / "stone-bastion.deck")]


# ------------------------------------------------------------------ the command line



def test_cards_command_query_after_a_card_file(tmp_path, monkeypatch, capsys):
    """``nivel_env cards --cards my.yaml MY-01``: the query stays a query (``--cards``
    takes one file and repeats), on every command that takes card files."""
    from nivel_env.__main__ import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.yaml").write_text(MY_CARDS, encoding="utf-8")
    (tmp_path / "more.yaml").write_text(MY_CARDS.replace("MY-0", "MORE-0"), encoding="utf-8")
    assert main(["cards", "--cards", "my.yaml", "MY-01"]) == 0
    out = capsys.readouterr()
    assert "Tinker Owl" in out.out and "Brass Owl" not in out.out
    assert "1 card(s) matching 'MY-01'" in out.err
    assert main(["cards", "--cards", "my.yaml", "--cards", "more.yaml", "owl", "--brief"]) == 0
    out = capsys.readouterr().out
    assert all(i in out for i in ("MY-01", "MY-02", "MORE-01", "MORE-02"))
    # the old spelling (two files after one --cards) is pointed out, not silently empty
    assert main(["cards", "--cards", "my.yaml", "more.yaml"]) == 1
    assert "--cards before each one" in capsys.readouterr().err
    # the other commands parse --cards the same way
    import argparse

    from nivel_env import cli_cards, cli_check, cli_play, cli_replay, cli_serve
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    cli_cards.add_parsers(sub)
    for module in (cli_check, cli_play, cli_replay, cli_serve):
        module.add_parser(sub)
    args = parser.parse_args(["deck", "validate", "--cards", "my.yaml", "ember-rush"])
    assert args.cards == ["my.yaml"] and args.file == "ember-rush"
    args = parser.parse_args(["replay", "--cards", "my.yaml", "game.jsonl"])
    assert args.cards == ["my.yaml"] and args.file == "game.jsonl"
    for command in ("check", "play", "serve"):
        args = parser.parse_args([command, "--cards", "my.yaml", "--cards", "more.yaml"])
        assert args.cards == ["my.yaml", "more.yaml"], command


@pytest.mark.parametrize("command", ["cards", "deck validate", "deck show", "deck list", "demo",
                                     "observation", "play", "serve", "replay", "check"])
def test_every_command_prints_its_help(command, capsys):
    from nivel_env.__main__ import main
    with pytest.raises(SystemExit) as e:
        main(command.split() + ["--help"])
    assert e.value.code == 0 and "usage:" in capsys.readouterr().out


# ------------------------------------------------ card text says what the engine does
# Each skill moves one card into a hand or a deck; with a card condition the engine shows
# it to the other player (3.1.7), without one it does not.
REVEALS = """
cards:
  - {id: RV-01, type: skill, name: Blind Search, name_ko: 찾기, cost: 1, attribute: fire,
     effect: [{search: {amount: 1}}]}
  - {id: RV-02, type: skill, name: Unit Search, name_ko: 유닛 찾기, cost: 1, attribute: fire,
     effect: [{search: {filter: {type: unit}, amount: 1}}]}
  - {id: RV-03, type: skill, name: Tuck Any, name_ko: 넣기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 1}}}]}
  - {id: RV-04, type: skill, name: Tuck a Unit, name_ko: 유닛 넣기, cost: 1, attribute: fire,
     effect: [{to_deck_bottom: {target: {who: you, zone: hand, choose: 1,
                                         filter: {type: unit}}}}]}
  - {id: RV-05, type: skill, name: Dredge a Unit, name_ko: 유닛 끌기, cost: 1,
     attribute: fire,
     effect: [{return_to_hand: {target: {who: you, zone: deck, random: 1,
                                         filter: {type: unit}}}}]}
  - {id: RV-06, type: skill, name: Dig Up, name_ko: 파내기, cost: 1, attribute: fire,
     effect: [{salvage: {target: {who: you, zone: deck, random: 1}}}]}
"""


@pytest.mark.parametrize("card_id", ["RV-01", "RV-02", "RV-03", "RV-04", "RV-05", "RV-06"])
def test_card_text_promises_a_reveal_exactly_when_the_engine_reveals(tmp_path, card_id):
    """3.1.7: a card an effect moves out of a hand or deck is shown only when the effect has
    a card condition; the text said "reveal it" for every search, with or without one."""
    from conftest import P, TEST_POOL, do, make
    db = load_card_db([TEST_POOL, write(tmp_path, REVEALS)])
    c = db.get(card_id)
    g = make(db, P(level=5, hand=[card_id, "T-002", "T-003"], deck=["T-002", "T-022"] * 3))
    before = len(g.events)
    do(g, f"use {c.name}")
    while g.decision.kind == "pick" and g.current_player == 0:
        g.apply_action(next(a for a in g.legal_actions()
                            if g.action_name(a).startswith("pick")))
    moved = [e for e in g.events[before:] if e.kind in ("search", "to_deck_bottom",
                                                           "return_to_hand", "salvage")]
    shown = [e for e in g.events[before:] if e.kind == "reveal"]
    assert moved, f"{c.name} moved nothing"
    assert ("reveal" in c.text) == bool(shown), (c.text, shown)


def test_a_skills_condition_is_in_its_text(db):
    """A skill's `if` is a play condition the engine keeps (6.4.1.1, legal._plays): its text
    says it (Sanctuary and Dawn and Dusk showed only their effect)."""
    from nivel_env.cards.text import render_condition
    assert db.get("LI-18").text.startswith("If your level is at least 5: ")
    assert db.get("LI-27").text.startswith("If [Mix]: ")
    skills = [c for c in db if c.type == m.SKILL and c.effect.condition is not None]
    assert len(skills) >= 2
    for c in skills:
        assert f"If {render_condition(c.effect.condition)}: " in c.text, (c.id, c.text)


def test_a_may_for_another_player_says_that_player_may():
    """1.3.5.1: "each player may discard a card" -- each decides their own part; the text
    said "You may each player discards 1 card"."""
    from nivel_env.cards import model as m
    from nivel_env.cards.text import render_action
    act = m.Action(verb="discard", player="each", optional=True)
    assert render_action(act) == "each player may discard 1 card"
    assert render_action(m.Action(verb="draw", player="opponent", optional=True)) == \
        "your opponent may draw 1 card"
    assert render_action(m.Action(verb="draw", optional=True)).startswith("you may draw")
