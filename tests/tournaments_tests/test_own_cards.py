"""evaluate.py --cards FILE: a designer's own cards in the decks of every command, played
in worker processes (and shipped to Ray nodes), recorded for ``--from``, which refuses a
card file that is gone or changed."""
from __future__ import annotations

import json
import pickle
import shutil
import sys
from pathlib import Path

import pytest

from nivel_env.tournaments import games
from conftest import MY_CARDS, ROOT

sys.path.insert(0, str(ROOT))
import evaluate  # noqa: E402

SMALL = ["--bootstrap", "50", "--no-progress", "--pilot", "heuristic"]


def owl_deck(folder: Path) -> tuple[Path, Path]:
    """(my card file, a deck of Gale Runners with three of my Tinker Owls in it)."""
    cards = folder / "my.yaml"
    cards.write_text(MY_CARDS, encoding="utf-8")
    text = (ROOT / "nivel_env/cards/decks/gale-runners.deck").read_text(encoding="utf-8")
    deck = folder / "owl.deck"
    deck.write_text(text.replace("3 WI-01", "3 MY-01")
                    .replace("name: Gale Runners", "name: Owl Runners"), encoding="utf-8")
    return cards, deck


def _same(path: Path) -> dict:
    return {k: v for k, v in json.loads(path.read_text()).items()
            if k not in ("command", "ran_on")}


@pytest.mark.slow            # two worker processes start: ~20 s on the shared cores
def test_my_cards_play_on_two_workers(tmp_path):
    cards, deck = owl_deck(tmp_path)
    run = ["gauntlet", str(deck), "--field", "stone-bastion", "--games", "2",
           "--field-games", "0", "--workers", "2", *SMALL]
    with pytest.raises(SystemExit, match="unknown card id 'MY-01'"):
        evaluate.main(run + ["--out", str(tmp_path / "no")])
    evaluate.main(run + ["--cards", str(cards), "--out", str(tmp_path / "a")])
    header = json.loads((tmp_path / "a" / "results.jsonl").read_text().splitlines()[0])
    assert header["card_files"] == [{"file": str(cards.resolve()),
                                     "sha256": header["card_files"][0]["sha256"]}]
    assert header["deck_contents"][str(deck)]["cards"]["MY-01"] == 3
    assert games.CARD_FILES == ()                          # the run's files, not left set
    played = [r for r in json.loads((tmp_path / "a" / "cards.json").read_text())
              if r["card"] == "MY-01"]
    assert played and played[0]["deck"] == "Owl Runners"


def test_from_checks_the_recorded_card_files(tmp_path, monkeypatch):
    cards, deck = owl_deck(tmp_path)
    evaluate.main(["gauntlet", str(deck), "--field", "stone-bastion", "--games", "2",
                   "--field-games", "0", "--workers", "1", "--cards", str(cards),
                   "--out", str(tmp_path / "a"), *SMALL])
    raw = tmp_path / "a" / "results.jsonl"
    # --from reads the recorded card files; refuses them changed or gone; takes a copy
    monkeypatch.setattr(games, "play_pair", lambda t: pytest.fail("a game was replayed"))
    evaluate.main(["gauntlet", "--from", str(raw), "--out", str(tmp_path / "b")])
    assert _same(tmp_path / "a" / "gauntlet.json") == _same(tmp_path / "b" / "gauntlet.json")
    shutil.move(cards, tmp_path / "moved.yaml")
    with pytest.raises(SystemExit, match=r"my\.yaml, which the run played with, cannot be"):
        evaluate.main(["gauntlet", "--from", str(raw), "--out", str(tmp_path / "b")])
    evaluate.main(["gauntlet", "--from", str(raw), "--out", str(tmp_path / "c"),
                   "--cards", str(tmp_path / "moved.yaml")])
    assert _same(tmp_path / "c" / "gauntlet.json") == _same(tmp_path / "b" / "gauntlet.json")
    cards.write_text(MY_CARDS.replace("power: 1", "power: 3"), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"my\.yaml changed since the run"):
        evaluate.main(["gauntlet", "--from", str(raw), "--out", str(tmp_path / "b")])


def test_bundled_decks_play_the_same_games_with_extra_card_files(tmp_path):
    cards, _ = owl_deck(tmp_path)
    run = ["decks", "--decks", "ember-rush", "tide-scholars", "--games", "3",
           "--workers", "1", *SMALL]
    evaluate.main(run + ["--out", str(tmp_path / "plain")])
    evaluate.main(run + ["--cards", str(cards), "--out", str(tmp_path / "mine")])
    assert _same(tmp_path / "plain" / "decks.json") == _same(tmp_path / "mine" / "decks.json")


ONE = "cards:\n  - {id: %s, type: unit, name: X, name_ko: X, cost: %s, power: 1, hit: 1,\n" \
      "     attribute: wind}\n"


@pytest.mark.parametrize("content, fault", [
    (ONE % ("MY-01", "one"), "cost"),
    (ONE % ("FI-01", "1"), "duplicate card id"),
    ("not: [a card file\n", "not valid YAML"),
])
def test_a_bad_card_file_is_named_before_any_game(tmp_path, content, fault):
    bad = tmp_path / "bad.yaml"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "--cards", str(bad),
                       "--out", str(tmp_path), "--workers", "1", *SMALL])
    assert "evaluate.py decks: --cards:" in str(e.value) and "bad.yaml" in str(e.value)
    assert fault in str(e.value)


def test_compare_and_tune_take_my_cards(tmp_path):
    """compare records the decks' contents; tune swaps one of my cards in (--pool) and
    loads its candidate deck files against the run's pool."""
    cards, deck = owl_deck(tmp_path)
    evaluate.main(["compare", str(deck), "gale-runners", "--field", "stone-bastion",
                   "--batch", "1", "--max-games", "4", "--cards", str(cards), "--workers",
                   "1", "--out", str(tmp_path / "cmp"), *SMALL])
    r = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert r["deck_specs"] == [str(deck), "gale-runners"] and r["games"] == 4
    assert r["deck_contents"][str(deck)]["cards"]["MY-01"] == 3 and r["card_files"]
    evaluate.main(["tune", "gale-runners", "--field", "stone-bastion", "--pool", "MY-02",
                   "--steps", "1", "--candidates", "1", "--batch", "2", "--max-games", "40",
                   "--elo0", "-400", "--elo1", "-300", "--alpha", "0.3", "--beta", "0.3",
                   "--holdout", "0", "--cards", str(cards), "--workers", "1",
                   "--out", str(tmp_path / "tune"), *SMALL])
    t = json.loads((tmp_path / "tune" / "tune.json").read_text())
    assert t["tried"] == 1 and t["path"][0]["in"] == "MY-02"
    assert "MY-02" in (tmp_path / "tune" / "tuned.deck").read_text()


def test_a_policy_pilot_plays_a_deck_with_a_new_card(tmp_path):
    """nv2-ppo encodes a card from its features (the encoder takes the game's pool), so
    a card it never saw in training plays (in lockstep blocks)."""
    pytest.importorskip("torch")
    cards, deck = owl_deck(tmp_path)
    evaluate.main(["gauntlet", str(deck), "--field", "stone-bastion", "--games", "2",
                   "--field-games", "0", "--workers", "1", "--pilot", "nv2-ppo",
                   "--cards", str(cards), "--bootstrap", "20", "--no-progress",
                   "--out", str(tmp_path)])
    rows = [r for r in json.loads((tmp_path / "cards.json").read_text())
            if r["card"] == "MY-01"]
    assert rows and json.loads((tmp_path / "gauntlet.json").read_text())["games"] == 4


def test_card_files_reach_a_ray_node_as_copies(tmp_path, monkeypatch):
    """What a worker gets: the task function carrying the files (``WithCardFiles``,
    pickled as for a worker process); what RayPool ships: those files, which a node reads
    from its own copies (``games.LOCAL_FILES``)."""
    from nivel_env.tournaments import ray_backend
    cards, deck = owl_deck(tmp_path)
    with games.use_card_files([str(cards)]):
        fn = pickle.loads(pickle.dumps(games.carry_card_files(games.play_pair)))
    assert fn.card_files == (str(cards),) and games.CARD_FILES == ()
    shipped = ray_backend._files_named([(str(deck), "stone-bastion", "heuristic",
                                         "heuristic", 1, None, "decks")], fn.card_files)
    assert sorted(shipped) == sorted([str(deck), str(cards)])
    node = tmp_path / "node"
    node.mkdir()
    local = {}
    for name, data in shipped.items():
        (node / Path(name).name).write_bytes(data)
        local[name] = str(node / Path(name).name)
    cards.unlink()                                   # the node has only its copies
    deck.unlink()
    monkeypatch.setattr(games, "LOCAL_FILES", local)
    monkeypatch.setattr(games, "_CACHE", {})
    monkeypatch.setattr(games, "_POOLS", {})
    pair = fn((str(deck), "stone-bastion", "heuristic", "heuristic", 1, None, "decks"))
    assert len(pair) == 2 and pair[0]["sides"][0]["deck"] == str(deck)
    assert "MY-01" not in games.card_pool()          # outside the task: the bundled pool


@pytest.mark.slow            # starts a local Ray instance
def test_my_cards_on_ray_give_the_local_results(tmp_path):
    pytest.importorskip("ray")
    cards, deck = owl_deck(tmp_path)
    run = ["decks", "--decks", str(deck), "stone-bastion", "--cards", str(cards), "--games",
           "3", "--workers", "2", *SMALL]
    evaluate.main(run + ["--out", str(tmp_path / "local")])
    evaluate.main(run + ["--ray", "--out", str(tmp_path / "ray")])
    assert _same(tmp_path / "local" / "decks.json") == _same(tmp_path / "ray" / "decks.json")


def test_a_card_file_edited_between_runs_in_one_process_is_read_anew(tmp_path):
    from nivel_env.tournaments import card_files
    cards, deck = owl_deck(tmp_path)
    for power in (1, 3):
        cards.write_text(MY_CARDS.replace("power: 1", f"power: {power}"), encoding="utf-8")
        with games.use_card_files(card_files.resolve([str(cards)], "decks")):
            assert games.cached_deck(str(deck)).db.get("MY-01").power == power
