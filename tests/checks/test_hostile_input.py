"""Hostile and malformed input: files that are not files, numbers past every limit, keys
written twice, wrong types, impossible positions.  Each must give the project's own error
naming the file, line or field, within a second, and load nothing.

(The deadline raises TimeoutError, an OSError that a loader could wrap into its own
"cannot read" error, so each case also checks the time taken and the message.)"""
import json
import os
import time

import pytest

from conftest import ROOT
from nivel_env.cards import CardDataError, DeckError, load_card_db, load_deck
from nivel_env.cards.db import bundled_card_files
from nivel_env.engine import RuleConfig, ScenarioError
from nivel_env.engine.scenario import build, load_scenario
from nivel_env.replay import ReplayError, load_replay, record_game
from test_bad_input import deadline

CARD = ("cards:\n  - {{id: {id}, type: unit, name: a, name_ko: b, cost: {cost}, power: 1, "
        "hit: 1, attribute: fire}}\n")
TRIED = []                      # every hostile input, for the count in docs/checks.md


def refused(load, arg, errors, *expect, limit=1.0):
    TRIED.append(arg)
    t = time.perf_counter()
    with deadline(5):
        with pytest.raises(errors) as info:
            load(arg)
    took = time.perf_counter() - t
    msg = str(info.value)
    assert took < limit, f"{arg}: {took:.2f} s"
    assert "took more than" not in msg, msg
    for e in expect:
        assert e in msg, f"{e!r} not in {msg!r}"
    return msg


def _replay_file(tmp_path):
    d0, d1 = load_deck("ember-rush"), load_deck("stone-bastion")
    rec = record_game(d0, d1, 3, [0, 0])
    return rec.write(tmp_path / "good.jsonl")


@pytest.fixture
def specials(tmp_path):
    """A FIFO, links to /dev/zero and /dev/urandom, and a directory."""
    out = {}
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out["fifo"] = fifo
    for dev in ("zero", "urandom"):
        link = tmp_path / f"dev-{dev}"
        link.symlink_to(f"/dev/{dev}")
        out[dev] = link
    out["dir"] = tmp_path / "adir"
    out["dir"].mkdir()
    return out


LOADERS = {
    "deck": (lambda p: load_deck(p), DeckError),
    "cards": (lambda p: load_card_db([p]), CardDataError),
    "scenario": (lambda p: load_scenario(p), ScenarioError),
    "replay": (lambda p: load_replay(p), ReplayError),
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("kind", ["fifo", "zero", "urandom", "dir"])
def test_paths_that_are_not_regular_files(specials, loader, kind):
    load, err = LOADERS[loader]
    msg = refused(load, specials[kind], err, str(specials[kind]))
    assert "not a regular file" in msg or "directory" in msg


def test_policy_paths_that_are_not_regular_files(specials):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from agents import load_opponent
    from agents.policy import PolicyFileError
    for kind in ("fifo", "zero", "urandom", "dir"):
        refused(load_opponent, specials[kind], PolicyFileError, "not a regular file")


def _user_file_loaders() -> dict:
    """Every loader of a file a user names: the four above, and policy files and value
    heads where torch is installed."""
    out = dict(LOADERS)
    try:
        import torch  # noqa: F401
    except ImportError:
        return out
    from agents.policy import PolicyFileError, read_policy_file
    from agents.value import ValueFileError, load_value_head
    out["policy"] = (read_policy_file, PolicyFileError)
    out["value head"] = (load_value_head, ValueFileError)
    return out


@pytest.mark.parametrize("kind,words", [("fifo", "a FIFO (named pipe)"),
                                        ("zero", "a character device"),
                                        ("dir", "a directory")])
def test_every_loader_says_what_a_path_is_in_the_same_words(specials, kind, words):
    """One check (nivel_env.files) for card, deck, scenario, replay, policy and value-head
    files: a path that is not a regular file is refused naming the path and what it is,
    in the same words whichever loader was asked."""
    for name, (load, err) in _user_file_loaders().items():
        refused(load, specials[kind], err, str(specials[kind]),
                f"not a regular file but {words}")


def test_policy_files_and_value_heads_over_their_caps(tmp_path):
    """The size cap is the same check's: the file's size and the cap, never read."""
    pytest.importorskip("torch")
    from agents.policy import PolicyFileError, read_policy_file
    from agents.value import ValueFileError, load_value_head
    for name, load, err, cap in (("big.pt", read_policy_file, PolicyFileError,
                                  "1,073,741,824 a policy file may have"),
                                 ("big-value.pt", load_value_head, ValueFileError,
                                  "67,108,864 a value-head file may have")):
        p = tmp_path / name
        with open(p, "wb") as f:                       # sparse: costs no disk
            f.truncate(5 << 30)
        refused(load, p, err, name, "5,368,709,120 bytes, more than the " + cap)


def test_one_check_for_the_files_a_user_names():
    """No loader keeps its own copy of the regular-file test: nivel_env/files.py is the
    one module of the project that looks at what kind of file a path is."""
    root = ROOT
    sources = [*root.glob("nivel_env/**/*.py"), *root.glob("agents/**/*.py"),
               *root.glob("*.py"), *root.glob("examples/**/*.py")]
    looks = [str(p.relative_to(root)) for p in sources
             if any(w in p.read_text(encoding="utf-8") for w in ("S_ISREG", "S_ISFIFO"))]
    assert looks == ["nivel_env/files.py"]


def test_files_over_the_caps_are_refused_without_reading_them(tmp_path):
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:                       # sparse: costs no disk
        f.truncate(200 * 2 ** 20)
    refused(load_replay, huge, ReplayError, "more than")
    for name, loader in (("huge.deck", "deck"), ("huge.yaml", "cards")):
        p = tmp_path / name
        with open(p, "wb") as f:
            f.truncate(20 * 2 ** 20)
        load, err = LOADERS[loader]
        refused(load, p, err, "more than")


def test_yaml_numbers_keys_and_bom(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text(CARD.format(id="X-1", cost="9" * 5000))
    refused(lambda p: load_card_db([p]), big, CardDataError, "5000 digits", "big.yaml")
    hexa = tmp_path / "hex.yaml"
    hexa.write_text(CARD.format(id="X-1", cost="0x" + "f" * 60))
    refused(lambda p: load_card_db([p]), hexa, CardDataError, "digits")
    inf = tmp_path / "inf.yaml"
    inf.write_text(CARD.format(id="X-1", cost=".inf"))
    refused(lambda p: load_card_db([p]), inf, CardDataError, "cost", "float inf")
    dup = tmp_path / "dup.yaml"
    dup.write_text("cards:\n  - id: X-1\n    type: unit\n    name: a\n    name_ko: b\n"
                   "    cost: 1\n    cost: 3\n    power: 1\n    hit: 1\n    attribute: fire\n")
    refused(lambda p: load_card_db([p]), dup, CardDataError, "'cost' appears twice", "line 7")
    scen = tmp_path / "dup-scenario.yaml"
    scen.write_text("players: []\nplayers: []\n")
    refused(load_scenario, scen, ScenarioError, "appears twice")
    # a byte-order mark (some editors write one) is accepted
    bom = tmp_path / "bom.yaml"
    bom.write_text("\ufeff" + bundled_card_files()[0].read_text(encoding="utf-8"),
                   encoding="utf-8")
    assert len(load_card_db([bom])) > 10
    deck = load_deck("ember-rush")
    bomdeck = tmp_path / "bom.deck"
    bomdeck.write_text("\ufeff" + open(deck.source, encoding="utf-8").read(), encoding="utf-8")
    assert load_deck(bomdeck).card_ids() == deck.card_ids()


def test_deck_counts_in_other_digits(tmp_path):
    text = open(load_deck("ember-rush").source, encoding="utf-8").read()
    first = next(line for line in text.splitlines() if line[:1].isdigit())
    for bad, expect in (("³", "digits 0-9"), ("٣", "digits 0-9"), ("9" * 5000, "not between")):
        p = tmp_path / "d.deck"
        p.write_text(text.replace(first, bad + first[1:], 1), encoding="utf-8")
        refused(load_deck, p, DeckError, "d.deck", "line", expect)


def test_card_ids_a_deck_could_not_name(tmp_path):
    for i, cid in enumerate(["'X 1'", "'X#1'", '"X\\n1"', '"X\\t1"', "'" + "X" * 65 + "'"]):
        p = tmp_path / f"id{i}.yaml"
        p.write_text(CARD.format(id=cid, cost=1))
        refused(lambda q: load_card_db([q]), p, CardDataError, f"id{i}.yaml", "card id")


def test_size_may_go_down_as_documented(tmp_path):
    assert "`amount` (±" in (ROOT / "docs" / "cards.md").read_text(encoding="utf-8")
    p = tmp_path / "size.yaml"
    p.write_text("cards:\n  - {id: X-1, type: skill, name: a, name_ko: b, cost: 1, "
                 "attribute: fire, effect: [{size: -2}]}\n")
    assert "size gets -2" in load_card_db([p]).cards[0].text
    p.write_text("cards:\n  - {id: X-1, type: skill, name: a, name_ko: b, cost: 1, "
                 "attribute: fire, effect: [{size: -21}]}\n")
    refused(lambda q: load_card_db([q]), p, CardDataError, "size.amount", "-20")


def test_rule_config_types():
    for kw, expect in ((dict(mulligan="no"), "mulligan must be bool"),
                       (dict(max_turns=2.5), "max_turns must be int"),
                       (dict(first_turn_attack=1), "first_turn_attack must be bool"),
                       (dict(hand_limit=None), "hand_limit must be int"),
                       (dict(max_turns=True), "max_turns must be int")):
        refused(lambda k: RuleConfig(**k), kw, TypeError, expect)
    refused(RuleConfig.from_dict, ["max_turns"], TypeError, "mapping")
    refused(RuleConfig.from_dict, {"max_turn": 5}, ValueError, "unknown option", "max_turns")
    import numpy as np
    assert RuleConfig(max_turns=np.int64(50)).max_turns == 50


OK = {"leader": "T-L01", "deck": ["T-002"] * 10}


def test_impossible_and_mistyped_scenarios(db):
    def bad(d, *expect):
        refused(lambda x: build(x, db), d, ScenarioError, *expect)
    bad({"players": [{**OK, "awakened": "no"}, OK]}, "players[0].awakened", "true or false")
    bad({"players": [{**OK, "awakened": True, "level": 2}, OK]}, "players[0].awakened",
        "awakens at level 6", "10.2.6.1")
    bad({"players": [{**OK, "level": 1, "units": ["T-021", "T-021"]}, OK]}, "players[0]",
        "cost", "size is 1", "6.4.1.1.2")
    bad({"players": [OK, OK], "turn_player": 1.0}, "turn_player")
    bad({"players": [OK, OK], "turn_player": True}, "turn_player")
    bad({"players": [OK, OK], "seed": 1e999}, "seed")
    bad({"players": [OK, OK], "seed": -1}, "seed")
    bad({"players": [OK, OK], "check_field_cost": "no"}, "check_field_cost")
    bad({"players": [OK, OK], "config": {"mulligan": "no"}}, "config", "mulligan")
    bad({"players": [OK, OK], "config": [1]}, "config", "mapping")
    # the escape hatch for rule tests, and an awakening that is possible
    build({"players": [{**OK, "level": 1, "units": ["T-021", "T-021"]}, OK],
           "check_field_cost": False}, db)
    g = build({"players": [{**OK, "level": 6, "awakened": True}, OK]}, db)
    assert g.awake[0]


def test_hostile_replay_lines(tmp_path):
    good = _replay_file(tmp_path)
    lines = good.read_text().splitlines()
    head, act = json.loads(lines[0]), json.loads(lines[1])

    def variant(name, first=None, second=None, raw_second=None):
        p = tmp_path / name
        out = [json.dumps(first or head), raw_second or json.dumps(second or act)] + lines[2:]
        p.write_text("\n".join(out) + "\n")
        return p

    cases = [
        (variant("bigint.jsonl", raw_second='{"kind": "action", "action": ' + "9" * 5000 + "}"),
         "5000 digits"),
        (variant("deep.jsonl", raw_second="[" * 100_000 + "]" * 100_000), "nested too deeply"),
        (variant("inf-action.jsonl", second={**act, "action": 1e999}), "Infinity"),
        (variant("e999-action.jsonl", raw_second='{"kind": "action", "action": 1e999}'),
         "whole number"),
        (variant("float-action.jsonl", second={**act, "action": 2.0}), "whole number"),
        (variant("nan.jsonl", raw_second='{"kind": "action", "action": NaN}'), "NaN"),
        (variant("inf-seed.jsonl", first={**head, "seed": 1e999}), "seed"),
        (variant("str-seed.jsonl", first={**head, "seed": "7"}), "seed"),
        (variant("decks.jsonl", first={**head, "decks": 5}), "bad header"),
        (variant("deck-ids.jsonl", first={**head, "decks": [{"leader": 1, "cards": [2]}] * 2}),
         "bad header"),
        (variant("config.jsonl", first={**head, "config": {**head["config"],
                                                           "mulligan": "no"}}), "mulligan"),
        (variant("surrender.jsonl", second={"kind": "surrender", "player": 1.0, "events": []}),
         "surrender player"),
    ]
    for path, expect in cases:
        refused(load_replay, path, ReplayError, str(path), expect)
    load_replay(good)                               # the untouched file still loads
