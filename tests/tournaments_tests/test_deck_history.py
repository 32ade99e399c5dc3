"""evaluate.py history: a deck's runs read back from hand-made output folders, in time
order, with its versions, the cards changed between them and the scores."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from nivel_env.tournaments.deck_history import changes, history, version
from conftest import ROOT

sys.path.insert(0, str(ROOT))
import evaluate  # noqa: E402

V1 = {"name": "Owl Runners", "leader": "LD-05", "cards": {"WI-01": 3, "WI-02": 3}}
V2 = {"name": "Owl Runners", "leader": "LD-05", "cards": {"MY-01": 3, "WI-02": 2, "MY-02": 1}}
FIELD = {"name": "Stone Bastion", "leader": "LD-04", "cards": {"EA-15": 3}}


def results_file(folder: Path, deck: str, time: str | None, content: dict | None,
                 points: list[float]) -> None:
    """A gauntlet's results.jsonl: ``deck`` against stone-bastion, one seed a pair of
    points (the deck's side), the second game of each seed a draw."""
    folder.mkdir(parents=True)
    header = {"format": "nivel-deck-results", "version": 1, "kind": "gauntlet",
              "argv": ["gauntlet", deck], "decks": [deck, "stone-bastion"],
              "pilot": "heuristic", "games": len(points), "seed": 0, "deal": "mirror",
              "bootstrap": 50, "tasks": len(points), "field": None, "mine": 0}
    if time:
        header |= {"time": time, "deck_contents": {deck: content, "stone-bastion": FIELD}}
    lines = [header] + [{"task": k, "pair": [0, 1], "seed": k,
                         "games": [{"points": p}, {"points": 0.5}]}
                        for k, p in enumerate(points)]
    (folder / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_versions_diffs_and_scores_in_time_order(tmp_path):
    deck = tmp_path / "owl.deck"
    deck.write_text("name: Owl Runners\nleader: LD-05\n3 MY-01\n2 WI-02\n1 MY-02\n")
    runs = tmp_path / "results"
    # named against their time order: the table sorts by the recorded time
    results_file(runs / "b-first", str(deck), "2026-01-01T10:00:00+00:00", V1, [1, 1, 0, 0])
    results_file(runs / "a-second", str(deck), "2026-01-02T10:00:00+00:00", V2, [1, 1, 1, 0])
    (runs / "cmp").mkdir()
    (runs / "cmp" / "compare.json").write_text(json.dumps({
        "kind": "compare", "time": "2026-01-03T10:00:00+00:00", "pilot": "heuristic",
        "deck_a": "Gale Runners", "deck_b": "Owl Runners",
        "deck_specs": ["gale-runners", str(deck)],
        "deck_contents": {str(deck): V2}, "games": 40, "status": "H0",
        "history": [{"games": 40, "elo_diff": 25.0, "low": -10.0, "high": 60.0}]}))
    lines: list[str] = []
    assert history(str(deck), runs, say=lines.append) == 0
    assert lines[0] == f"Owl Runners: 3 run(s) under {runs}"
    rows = [line.split("  ") for line in lines[2:5]]
    first, second, third = ([c.strip() for c in r if c.strip()] for r in rows)
    assert first[:5] == ["2026-01-01 10:00:00", "gauntlet", "heuristic", version(V1),
                         "first version"]
    # 4 seeds, each seed's pair (p + 0.5) of 2: scores 0.5 + mean(p) / 2
    assert first[5].startswith("0.500 [") and first[6:] == ["8", "b-first/results.jsonl"]
    assert second[3:5] == [version(V2), "+3 MY-01 +1 MY-02 -3 WI-01 -1 WI-02"]
    assert second[5].startswith("0.625 [")
    assert third[1] == "compare" and third[4] == "same"
    assert third[5] == "Elo vs Gale Runners -25.0 [-60.0, +10.0]"     # B's side: negated
    assert lines[-1] == f"now: version {version(V2)} (same vs the last run's)"


def test_a_run_without_contents_is_listed_by_name(tmp_path):
    deck = tmp_path / "owl.deck"
    deck.write_text("name: Owl Runners\nleader: LD-05\n3 WI-01\n3 WI-02\n")
    results_file(tmp_path / "old", str(deck), None, None, [1, 0])
    results_file(tmp_path / "new", str(deck), "2099-01-01T00:00:00+00:00", V1, [1, 1])
    lines: list[str] = []
    history(str(deck), tmp_path, say=lines.append)
    assert "owl.deck: contents not recorded" in lines[2] and " - " in lines[2]
    assert "first version" in lines[3]                 # the first recorded version
    assert lines[-1] == f"now: version {version(V1)} (same vs the last run's)"


def test_a_deck_is_matched_by_its_name_and_nothing_found_says_so(tmp_path, capsys):
    results_file(tmp_path / "r", "elsewhere/owl.deck", "2026-01-01T10:00:00+00:00", V1,
                 [1, 0])
    lines: list[str] = []
    assert history("owl runners", tmp_path, say=lines.append) == 0    # a name, any case
    assert len(lines) == 3 and version(V1) in lines[2]
    assert evaluate.main(["history", "Ember Rush", "--in", str(tmp_path)]) == 1
    assert capsys.readouterr().out == f"no run of Ember Rush under {tmp_path}\n"
    with pytest.raises(SystemExit, match="--in .*nowhere: no such folder"):
        evaluate.main(["history", "owl.deck", "--in", str(tmp_path / "nowhere")])


def test_changes_name_the_leader_and_the_counts():
    assert changes(None, V1) == "first version"
    assert changes(V1, V1) == "same"
    assert changes(V1, dict(V1, leader="LD-01")) == "leader LD-05 -> LD-01"
    assert version(dict(V1, name="Other")) == version(V1)          # the name is not content


def test_a_deck_run_records_its_contents_for_history(tmp_path):
    """The real thing: a gauntlet run, then history of its deck from the output folder."""
    deck = tmp_path / "rush.deck"
    deck.write_text((ROOT / "nivel_env/cards/decks/ember-rush.deck").read_text())
    evaluate.main(["gauntlet", str(deck), "--field", "stone-bastion", "--games", "2",
                   "--field-games", "0", "--pilot", "heuristic", "--workers", "1",
                   "--bootstrap", "20", "--no-progress", "--out", str(tmp_path / "g")])
    lines: list[str] = []
    assert history(str(deck), tmp_path, say=lines.append) == 0
    assert "gauntlet" in lines[2] and "first version" in lines[2] and " 4 " in lines[2]
    assert lines[-1].startswith("now: version ") and lines[-1].endswith("(same vs the last "
                                                                         "run's)")


def test_a_deck_of_my_cards_by_name_reads_with_its_card_files(tmp_path, capsys):
    from conftest import MY_CARDS
    (tmp_path / "my.yaml").write_text(MY_CARDS, encoding="utf-8")
    deck = tmp_path / "owl.deck"
    deck.write_text("name: Owl Runners\nleader: LD-05\n3 tinker owl\n2 WI-02\n1 Brass Owl\n")
    results_file(tmp_path / "r", "other/path.deck", "2026-01-01T10:00:00+00:00", V1, [1, 0])
    assert evaluate.main(["history", str(deck), "--in", str(tmp_path)]) == 0
    assert "now:" not in capsys.readouterr().out        # its names need its card file
    assert evaluate.main(["history", str(deck), "--in", str(tmp_path),
                          "--cards", str(tmp_path / "my.yaml")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"now: version {version(V2)} (+3 MY-01 +1 MY-02 -3 WI-01 -1 WI-02 vs the last "
        f"run's)")


def test_every_comparison_in_a_compare_folder_is_listed(tmp_path):
    """compare.json holds only a folder's last comparison; its history.jsonl (one line a
    run, written by compare_report) lists each, and history reads that instead."""
    from nivel_env.tournaments.compare_report import append_history
    deck = tmp_path / "owl.deck"
    deck.write_text("name: Owl Runners\nleader: LD-05\n3 MY-01\n2 WI-02\n1 MY-02\n")
    out = tmp_path / "results" / "cmp"
    out.mkdir(parents=True)
    for when, content, elo in (("2026-01-01T10:00:00+00:00", V1, 10.0),
                               ("2026-01-02T10:00:00+00:00", V2, 30.0)):
        report = {"deck_a": "Owl Runners", "deck_b": "Gale Runners", "field": [],
                  "pilot": "heuristic", "elo0": 0, "elo1": 10, "alpha": 0.05,
                  "beta": 0.05, "status": "H1", "verdict": "", "games": 80,
                  "history": [{"games": 80, "llr": 3.0, "elo_diff": elo, "low": elo - 5,
                               "high": elo + 5}],
                  "time": when, "deck_specs": [str(deck), "gale-runners"],
                  "deck_contents": {str(deck): content}}
        append_history(out, report)
        (out / "compare.json").write_text(json.dumps({"kind": "compare", **report}))
    lines: list[str] = []
    assert history(str(deck), tmp_path / "results", say=lines.append) == 0
    assert lines[0] == f"Owl Runners: 2 run(s) under {tmp_path / 'results'}"
    rows = [[c.strip() for c in line.split("  ") if c.strip()] for line in lines[2:4]]
    assert rows[0][3:6] == [version(V1), "first version",
                            "Elo vs Gale Runners +10.0 [+5.0, +15.0]"]
    assert rows[1][3:6] == [version(V2), "+3 MY-01 +1 MY-02 -3 WI-01 -1 WI-02",
                            "Elo vs Gale Runners +30.0 [+25.0, +35.0]"]
