"""benchmarks/unseen_cards.py: the deals of each class, the cards new to a held-out
policy, and a whole run on a few seeds (the held-out and control policies meet the same
deals, and the report holds every figure the docs quote)."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("unseen_cards", ROOT / "benchmarks/unseen_cards.py")
unseen_cards = importlib.util.module_from_spec(spec)
spec.loader.exec_module(unseen_cards)

UNSEEN = ["twilight-pact", "veil-piercers"]
KNOWN = ["anvil-guild", "dawn-ascent", "ember-rush", "gale-runners", "stone-bastion",
         "tide-scholars"]


def test_every_unseen_deal_has_an_unseen_deck_and_no_known_deal_has_one():
    classes = unseen_cards.deck_pairs(UNSEEN, KNOWN)
    unseen, known = classes["unseen"], classes["known"]
    assert all(a in UNSEEN or b in UNSEEN for a, b in unseen)
    assert len(unseen) == len(set(unseen)) == 2 * 2 * 8 - 4    # both orders, no repeat
    assert {(b, a) for a, b in unseen} == set(unseen)           # both seat orders
    assert len(known) == 36 and not any(a in UNSEEN or b in UNSEEN for a, b in known)


def test_the_same_seeds_for_every_policy():
    pairs = unseen_cards.deck_pairs(UNSEEN, KNOWN)["unseen"]
    a = unseen_cards.tasks(pairs, "x.pt", 70, 3)
    b = unseen_cards.tasks(pairs, "y.pt", 70, 3)
    assert [t[:2] + t[3:] for t in a] == [t[:2] + t[3:] for t in b]
    assert len({t[4] for t in a}) == 70 and {t[3] for t in a} == {"heuristic"}


def test_the_new_cards_are_the_dark_decks_cards_no_known_deck_holds():
    from nivel_env.cards import load_deck
    new = {c["id"] for c in unseen_cards.new_cards(UNSEEN, KNOWN)}
    held = {c.id for d in KNOWN for c in load_deck(d).cards}
    assert not new & held
    assert {"LD-07", "LD-08"} <= new
    assert sum(i.startswith("DA-") for i in new) >= 20        # every dark card is new


@pytest.mark.slow
def test_a_run_reports_each_cell_and_the_kept_margins(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    policy = str(ROOT / "agents/policies/nv2-ppo.pt")
    report = unseen_cards.main(["--held-out", policy, "--control", policy, "--unseen",
                                *UNSEEN, "--games", "2", "--workers", "1",
                                "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "unseen_cards.json").read_text())
    assert saved["cells"] == report["cells"] and len(report["cells"]) == 4
    cells = {(c["policy"], c["deals"]): c for c in report["cells"]}
    # one policy file in both roles, the same seeds: the same points
    assert cells[("held_out", "unseen")]["score"] == cells[("control", "unseen")]["score"]
    assert report["games_per_cell"] == 4
    if cells[("control", "unseen")]["margin"] != 0:
        assert report["kept_vs_control"]["value"] == pytest.approx(1.0)
    if cells[("control", "known")]["margin"] != 0 and cells[("control", "unseen")]["margin"]:
        assert report["kept_vs_known_adjusted"]["value"] == pytest.approx(1.0)
    assert len(saved["points"]["held_out/unseen"]) == 2


def test_a_deck_that_is_not_bundled_is_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        unseen_cards.main(["--held-out", "a.pt", "--control", "b.pt", "--unseen", "nope"])
    assert "no bundled deck nope" in capsys.readouterr().err
