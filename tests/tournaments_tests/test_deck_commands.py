"""evaluate.py's deck commands end to end on small runs: decks (report, metagame, card
analytics, HTML), gauntlet, compare (SPRT), --pilot, and bad input named."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from nivel_env.tournaments import games
from conftest import ROOT

sys.path.insert(0, str(ROOT))
import evaluate  # noqa: E402

SMALL = ["--workers", "1", "--bootstrap", "50", "--no-progress"]


def test_decks_writes_the_full_report(tmp_path, capsys):
    rep = evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "tide-scholars",
                         "--games", "2", "--pilot", "casual", "--out", str(tmp_path), *SMALL])
    assert rep == 0
    out = capsys.readouterr().out
    assert "pilot: casual" in out and "metagame (Nash equilibrium)" in out
    r = json.loads((tmp_path / "decks.json").read_text())
    assert r["pilot"] == "casual" and r["games"] == 3 * 2 * 2
    mg = r["metagame"]
    assert abs(sum(x["weight"] for x in mg["equilibrium"]) - 1) < 1e-6
    assert mg["bootstrap_samples"] == 50 and all(
        x["weight_low"] <= x["weight"] <= x["weight_high"] and 0 <= x["support_freq"] <= 1
        for x in mg["equilibrium"])
    assert "only 4 games: about" in out                   # every cell is a small sample
    assert mg["exploitability_uniform"] >= -1e-9
    cards = json.loads((tmp_path / "cards.json").read_text())
    assert {c["deck"] for c in cards} == {"Ember Rush", "Stone Bastion", "Tide Scholars"}
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 4 and "Metagame" in page
    for f in ("decks_heatmap.png", "decks_ratings.png", "decks_lengths.png", "cards.png",
              "cards.csv", "decks_matrix.csv"):
        assert (tmp_path / f).stat().st_size > 0


def test_gauntlet_scores_my_deck_on_the_fields_scale(tmp_path, capsys):
    evaluate.main(["gauntlet", "ember-rush", "--field", "stone-bastion", "anvil-guild",
                   "--games", "2", "--out", str(tmp_path), *SMALL])
    r = json.loads((tmp_path / "gauntlet.json").read_text())
    assert r["deck"] == "Ember Rush" and len(r["against_field"]) == 2
    field = [x["rating"] for x in r["ratings"] if x["name"] != "Ember Rush"]
    assert abs(sum(field)) < 0.2                     # the field's mean is 0
    assert {c["deck"] for c in json.loads((tmp_path / "cards.json").read_text())} == \
        {"Ember Rush"}
    assert "Ember Rush against the field" in capsys.readouterr().out


def test_compare_runs_the_sprt_in_batches(tmp_path, capsys):
    evaluate.main(["compare", "ember-rush", "stone-bastion", "--field", "tide-scholars",
                   "--batch", "2", "--max-games", "16", "--elo1", "30",
                   "--out", str(tmp_path), *SMALL])
    r = json.loads((tmp_path / "compare.json").read_text())
    assert r["games"] == 16 and len(r["history"]) == 2 and r["bounds"][0] < 0 < r["bounds"][1]
    assert r["status"] in (None, "H0", "H1") and r["history"][-1]["games"] == 16
    out = capsys.readouterr().out
    assert "LLR" in out and "Elo Ember Rush - Stone Bastion" in out
    page = (tmp_path / "compare.html").read_text()
    assert "Comparisons in this folder (1, newest first)" in page and "Ember Rush" in page
    assert len((tmp_path / "history.jsonl").read_text().splitlines()) == 1


@pytest.mark.parametrize("argv, fault", [
    (["decks", "--decks", "ember-rush", "no-such-deck"], "no-such-deck"),
    (["gauntlet", "ember-rush", "--pilot", "nobody"], "nobody"),
    (["compare", "ember-rush", "stone-bastion", "--elo0", "5", "--elo1", "0"], "elo1"),
])
def test_bad_input_is_named(argv, fault, tmp_path):
    with pytest.raises(SystemExit) as e:
        evaluate.main(argv + ["--out", str(tmp_path), *SMALL])
    assert fault in str(e.value)


def test_lockstep_blocks_play_the_same_games_as_one_at_a_time():
    pytest.importorskip("torch")
    # a pilot that draws from its generator (random_share), so the seeding must match too
    pilot = "nv2-ppo:random_share=0.3"
    tasks = [("ember-rush", "gale-runners", pilot, pilot, 1000 + s, None, "decks")
             for s in range(3)]
    one = [games.play_pair(t) for t in tasks]
    block = games.play_block(tasks)
    strip = lambda pair: [{k: v for k, v in g.items() if k != "think_seconds"}  # noqa: E731
                          for g in pair]
    assert [strip(p) for p in block] == [strip(p) for p in one]


def test_default_pilot_falls_back_without_the_training_extras(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    assert evaluate.default_pilot()[0] in (evaluate.PILOT, evaluate.PILOT_FALLBACK)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    pilot, why = evaluate.default_pilot()
    assert pilot == evaluate.PILOT_FALLBACK and "torch" in why


def test_the_default_pilot_needs_torch_not_stable_baselines(monkeypatch):
    """A policy file plays with torch alone, so an install with torch but without
    sb3-contrib (the rllib or tianshou extra) gets the trained pilot."""
    import importlib.util
    real = importlib.util.find_spec
    if real("torch") is None:
        pytest.skip("needs torch")
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.startswith(("sb3_contrib",
                                                                  "stable_baselines3"))
                        else real(name, *a))
    assert evaluate.default_pilot() == (evaluate.PILOT, "the default")


def test_tune_proposes_legal_swaps_and_records_its_path(tmp_path, capsys):
    import numpy as np

    from nivel_env.tournaments.deck_tune import propose
    from nivel_env.cards import deck_problems, load_deck, parse_deck
    deck = load_deck("ember-rush")
    pool = [c.id for c in deck.db.cards if c.type != "leader"]
    swaps = propose(deck, pool, np.random.default_rng(0), 6)
    assert swaps
    for gone, come, cand in swaps:
        assert not deck_problems(cand) and gone != come
        a, b = sorted(deck.card_ids()), sorted(cand.card_ids())
        assert len(a) == len(b) and sum(x != y for x, y in zip(sorted(a), sorted(b))) >= 1
        assert b.count(come) == a.count(come) + 1 and b.count(gone) == a.count(gone) - 1
    # hypotheses far below zero so that a swap is accepted within a few batches, then the
    # held-out games play the tuned deck against the original
    evaluate.main(["tune", "ember-rush", "--field", "stone-bastion", "--pilot", "heuristic",
                   "--propose", "random", "--steps", "1", "--candidates", "1", "--batch", "2", "--max-games", "200",
                   "--elo0", "-400", "--elo1", "-300", "--alpha", "0.3", "--beta", "0.3",
                   "--holdout", "2", "--out", str(tmp_path), *SMALL])
    r = json.loads((tmp_path / "tune.json").read_text())
    assert r["tried"] == 1 and len(r["path"]) == 1 and r["holdout"]["games"] == 4
    tuned = parse_deck((tmp_path / "tuned.deck").read_text(), deck.db)
    assert not deck_problems(tuned) and tuned.card_ids() != deck.card_ids()
    assert "accepted swaps (1 of 1 tried)" in capsys.readouterr().out


def test_deal_swap_reshuffles_and_is_reported(tmp_path):
    pair = games.play_pair(("ember-rush", "stone-bastion", "heuristic", "heuristic", 5, None,
                            "decks-swap"))
    mirror = games.play_pair(("ember-rush", "stone-bastion", "heuristic", "heuristic", 5,
                              None, "decks"))
    same = lambda g: {k: v for k, v in g.items() if k != "think_seconds"}  # noqa: E731
    assert same(pair[0]) == same(mirror[0])          # the first game is the same deal
    held = lambda g: [s["opening"] for s in g["sides"]]       # noqa: E731
    assert held(pair[1]) != held(mirror[1])          # the second is reshuffled
    evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "--games", "2",
                   "--pilot", "heuristic", "--deal", "swap", "--out", str(tmp_path), *SMALL])
    r = json.loads((tmp_path / "decks.json").read_text())
    assert r["deal"] == "swap" and r["play"].startswith("seat swap")


def test_the_default_deal_is_the_swap_and_old_mirror_results_still_read(tmp_path):
    # swap measures with less noise (benchmarks/deck_deals.py; docs/decks.md), so it is
    # the default; a results file an earlier mirror run wrote is analysed as mirror
    evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "--games", "2",
                   "--pilot", "heuristic", "--out", str(tmp_path / "new"), *SMALL])
    new = json.loads((tmp_path / "new" / "decks.json").read_text())
    assert new["deal"] == "swap" and new["play"].startswith("seat swap")
    evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "--games", "2",
                   "--pilot", "heuristic", "--deal", "mirror", "--out", str(tmp_path / "old"),
                   *SMALL])
    raw = tmp_path / "old" / "results.jsonl"
    assert json.loads(raw.read_text().splitlines()[0])["deal"] == "mirror"
    evaluate.main(["decks", "--from", str(raw), "--out", str(tmp_path / "again")])
    again = json.loads((tmp_path / "again" / "decks.json").read_text())
    assert again["deal"] == "mirror" and again["play"].startswith("duplicate deal")
    assert again["matrix"] == json.loads((tmp_path / "old" / "decks.json").read_text())[
        "matrix"]


def test_policy_pilot_results_do_not_depend_on_workers(tmp_path):
    pytest.importorskip("torch")
    reps = []
    for workers in ("1", "2"):
        out = tmp_path / workers
        evaluate.main(["decks", "--decks", "ember-rush", "stone-bastion", "gale-runners",
                       "--games", "3", "--pilot", "nv2-ppo:random_share=0.2", "--out",
                       str(out), "--no-progress", "--bootstrap", "20", "--workers", workers])
        reps.append(json.loads((out / "decks.json").read_text())["matrix"])
        # lockstep blocks write their seeds too: the header and 3 pairs x 3 seeds
        assert len((out / "results.jsonl").read_text().splitlines()) == 1 + 9
    assert reps[0] == reps[1]


DECK_RUN = ["decks", "--decks", "ember-rush", "stone-bastion", "tide-scholars", "--games",
            "2", "--pilot", "casual", *SMALL]


def _report(folder):
    return json.loads((Path(folder) / "decks.json").read_text())


def test_from_results_writes_the_same_report_without_replaying(tmp_path, monkeypatch):
    evaluate.main([*DECK_RUN, "--out", str(tmp_path / "a")])
    raw = tmp_path / "a" / "results.jsonl"
    lines = raw.read_text().splitlines()
    assert len(lines) == 1 + 3 * 2                 # the header, then one line a seed
    monkeypatch.setattr(games, "play_pair", lambda t: pytest.fail("a game was replayed"))
    evaluate.main(["decks", "--from", str(raw), "--out", str(tmp_path / "b")])
    for f in ("decks.json", "cards.json", "decks_matrix.csv", "cards.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    # without --out, the report goes beside the results file
    (tmp_path / "a" / "decks.json").unlink()
    evaluate.main(["decks", "--from", str(raw)])
    assert _report(tmp_path / "a") == _report(tmp_path / "b")


def test_a_failed_analysis_keeps_every_game(tmp_path, monkeypatch, capsys):
    import nivel_env.tournaments.metagame as metagame_module

    def broken(*a, **kw):
        raise RuntimeError("analysis bug")
    monkeypatch.setattr(metagame_module, "metagame", broken)
    with pytest.raises(RuntimeError, match="analysis bug"):
        evaluate.main([*DECK_RUN, "--out", str(tmp_path / "a")])
    raw = tmp_path / "a" / "results.jsonl"
    assert "--from " + str(raw) in capsys.readouterr().err
    assert len(raw.read_text().splitlines()) == 1 + 6 and not (tmp_path / "a" / "decks.json").exists()
    monkeypatch.undo()
    monkeypatch.setattr(games, "play_pair", lambda t: pytest.fail("a game was replayed"))
    evaluate.main(["decks", "--from", str(raw)])
    monkeypatch.undo()
    evaluate.main([*DECK_RUN, "--out", str(tmp_path / "c")])
    again, fresh = _report(tmp_path / "a"), _report(tmp_path / "c")
    assert again.pop("command").endswith(str(tmp_path / "a"))
    assert fresh.pop("command").endswith(str(tmp_path / "c"))
    assert again == fresh


def test_an_interrupted_run_keeps_what_it_played(tmp_path, monkeypatch, capsys):
    real, calls = games.play_pair, []

    def stop_at_the_fourth(task):
        calls.append(task)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(task)
    monkeypatch.setattr(games, "play_pair", stop_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        evaluate.main([*DECK_RUN, "--out", str(tmp_path)])
    assert "stopped after 3 of 6 seeds" in capsys.readouterr().err
    monkeypatch.undo()
    evaluate.main(["decks", "--from", str(tmp_path / "results.jsonl")])
    r = _report(tmp_path)
    assert r["partial"] == "3 of 6 seeds played (the run stopped early)"
    assert r["games"] == 3 * 2 and r["ratings"] is None      # a pair was never played
    # a line cut off mid-write (a killed process) is left out, the rest analysed
    with (tmp_path / "results.jsonl").open("a") as f:
        f.write('{"task": 3, "pair": [0,')
    evaluate.main(["decks", "--from", str(tmp_path / "results.jsonl")])
    assert _report(tmp_path)["games"] == 6


@pytest.mark.parametrize("content, fault", [
    (None, "no such results file"),
    ("not json\n{}\n", "line 1 is not JSON"),
    ('{"a": 1}\n', "not a deck run's results file"),
    ("GAUNTLET", "analyse it with evaluate.py gauntlet --from"),
    ("BADLINE", "line 2 is not a seed's record"),
])
def test_a_bad_results_file_is_named(tmp_path, content, fault):
    evaluate.main([*DECK_RUN[:3], "stone-bastion", "--games", "1", "--pilot", "heuristic",
                   *SMALL, "--out", str(tmp_path / "run")])
    good = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    path = tmp_path / "r.jsonl"
    if content == "GAUNTLET":
        content = "\n".join([good[0].replace('"kind":"decks"', '"kind":"gauntlet"'),
                             *good[1:]]) + "\n"
    elif content == "BADLINE":
        content = "\n".join([good[0], '{"pair": [0, 9], "games": []}', *good[1:]]) + "\n"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as e:
        evaluate.main(["decks", "--from", str(path)])
    assert "r.jsonl" in str(e.value) and fault in str(e.value)


def test_gauntlet_from_results_writes_the_same_report(tmp_path):
    run = ["gauntlet", "ember-rush", "--field", "stone-bastion", "anvil-guild", "--games",
           "1", "--pilot", "heuristic", *SMALL]
    evaluate.main([*run, "--out", str(tmp_path / "a")])
    evaluate.main(["gauntlet", "--from", str(tmp_path / "a" / "results.jsonl"),
                   "--out", str(tmp_path / "b")])
    for f in ("gauntlet.json", "cards.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_a_new_run_into_the_same_folder_keeps_the_earlier_results(tmp_path, capsys):
    """The raw results are what a user re-analyses: a second run into the same --out
    moves the earlier results.jsonl aside (results.1.jsonl, then .2, ...), says so in one
    line, and the moved file still analyses; the reports, made from it, are replaced."""
    run = [*DECK_RUN[:3], "stone-bastion", "--games", "1", "--pilot", "heuristic", *SMALL,
           "--out", str(tmp_path)]
    raw = tmp_path / "results.jsonl"
    evaluate.main(run + ["--seed", "1"])
    first = raw.read_bytes()
    assert "results.1.jsonl" not in capsys.readouterr().out
    evaluate.main(run + ["--seed", "2"])
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if "results.1.jsonl" in line]
    assert len(said) == 1 and str(raw) in said[0] and "--from" in said[0], out
    assert (tmp_path / "results.1.jsonl").read_bytes() == first
    assert raw.read_bytes() != first and json.loads(raw.read_text().splitlines()[0])["seed"] == 2
    evaluate.main(run + ["--seed", "3"])
    assert (tmp_path / "results.1.jsonl").read_bytes() == first
    assert json.loads((tmp_path / "results.2.jsonl").read_text().splitlines()[0])["seed"] == 2
    assert sorted(p.name for p in tmp_path.glob("results*.jsonl")) == \
        ["results.1.jsonl", "results.2.jsonl", "results.jsonl"]
    evaluate.main(["decks", "--from", str(tmp_path / "results.1.jsonl"), "--out",
                   str(tmp_path / "again")])
    assert _report(tmp_path / "again")["command"].endswith("--seed 1")


def test_from_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """``--from`` a FIFO (or a device) is refused by its type, as every other file the
    project reads; reading it would wait for a writer forever."""
    import threading

    from nivel_env.tournaments.deck_results import ResultsFileError, read_results, results_kind
    fifo = tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    got = {}

    def read():
        try:
            got["kind"] = results_kind(fifo)
            read_results(fifo)
        except ResultsFileError as e:
            got["error"] = str(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():                       # unblock the reader so the test run can end
        with open(fifo, "w"):
            pass
        t.join(5)
        raise AssertionError("reading a FIFO as a results file waited for a writer")
    assert got["kind"] is None
    assert "results.jsonl: not a regular file but a FIFO" in got["error"], got
