"""Golden playthroughs: ten seeded games diffed line by line against tests/golden/.

After an intended change of rules, names, observation or events, regenerate and
review the diff:

    python tests/engine/test_golden.py --regenerate
"""
import difflib
import sys
from pathlib import Path

import pytest

# tests/, where conftest.py is, when this file runs as a script (--regenerate)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import conftest  # noqa: E402
from conftest import TEST_DATA, TESTS  # noqa: E402

GOLDEN = TESTS / "golden"
# (file stem, deck 0, deck 1, seed, automatic effect order): every bundled deck twice,
# and the test pool's decks, whose cards carry every section-10 keyword
GAMES = [
    ("01-ember-rush-vs-stone-bastion", "ember-rush", "stone-bastion", 1, False),
    ("02-tide-scholars-vs-gale-runners", "tide-scholars", "gale-runners", 2, False),
    ("03-twilight-pact-vs-dawn-ascent", "twilight-pact", "dawn-ascent", 3, False),
    ("04-veil-piercers-vs-anvil-guild", "veil-piercers", "anvil-guild", 4, False),
    ("05-stone-bastion-vs-tide-scholars", "stone-bastion", "tide-scholars", 5, False),
    ("06-gale-runners-vs-twilight-pact", "gale-runners", "twilight-pact", 6, False),
    ("07-dawn-ascent-vs-veil-piercers", "dawn-ascent", "veil-piercers", 7, False),
    ("08-anvil-guild-vs-ember-rush", "anvil-guild", "ember-rush", 8, True),
    ("09-test-blaze-vs-test-tide", TEST_DATA / "test-blaze.deck", TEST_DATA / "test-tide.deck",
     9, False),
    ("10-test-tide-vs-test-blaze", TEST_DATA / "test-tide.deck", TEST_DATA / "test-blaze.deck",
     10, True),
]


def render(stem):
    from nivel_env.cards import load_deck
    from nivel_env.checks.golden import playthrough
    from nivel_env.engine import RuleConfig
    _, a, b, seed, auto = next(g for g in GAMES if g[0] == stem)
    db = conftest.test_db()
    cfg = RuleConfig(choose_effect_order=not auto)
    return playthrough(load_deck(a, db), load_deck(b, db), seed, cfg)


@pytest.mark.parametrize("stem", [g[0] for g in GAMES])
def test_golden_playthrough(stem):
    path = GOLDEN / f"{stem}.txt"
    assert path.exists(), f"{path} is missing: python tests/engine/test_golden.py --regenerate"
    want = path.read_text(encoding="utf-8").splitlines()
    got = render(stem).splitlines()
    if got != want:
        diff = list(difflib.unified_diff(want, got, str(path), "now", n=2, lineterm=""))
        pytest.fail(f"{stem} differs from its golden file (first differences below); if the "
                    f"change is intended: python tests/engine/test_golden.py --regenerate\n" +
                    "\n".join(diff[:40]))


def test_an_unrelated_new_card_leaves_the_golden_files_alone(tmp_path):
    """State digests name cards by id, not by pool position or pool version: a card added
    to the pool changes no line of a golden playthrough."""
    from nivel_env.cards import load_card_db, load_deck
    from nivel_env.cards.db import bundled_card_files
    from nivel_env.checks.golden import playthrough
    from nivel_env.engine import RuleConfig
    extra = tmp_path / "zz-new.yaml"
    extra.write_text("cards:\n  - {id: ZZ-1, type: unit, name: Newcomer, name_ko: 새내기, "
                     "cost: 1, power: 1, hit: 1, attribute: fire}\n", encoding="utf-8")
    db = load_card_db(bundled_card_files() + [conftest.TEST_POOL, extra])
    assert db.version != conftest.test_db().version
    stem, a, b, seed, auto = GAMES[8]
    got = playthrough(load_deck(a, db), load_deck(b, db), seed,
                      RuleConfig(choose_effect_order=not auto))
    assert got == (GOLDEN / f"{stem}.txt").read_text(encoding="utf-8")


def test_a_rule_option_at_its_default_leaves_the_state_digest_alone():
    """The state digest hashes only the rule options set away from their defaults: a new
    RuleConfig option (here a subclass adding one) at its default digests as before, the
    same option at another value -- or an existing option changed -- digests differently,
    and ``to_dict`` still carries every option."""
    from dataclasses import dataclass
    from nivel_env.cards import load_deck
    from nivel_env.checks.determinism import rules_in_digest, state_digest
    from nivel_env.engine import RuleConfig, new_game

    @dataclass(frozen=True)
    class WithANewOption(RuleConfig):
        opening_hand: int = 5

    db = conftest.test_db()
    decks = load_deck("ember-rush", db), load_deck("stone-bastion", db)

    def digest(cfg):
        return state_digest(new_game(*decks, seed=3, config=cfg))
    assert digest(WithANewOption()) == digest(RuleConfig())
    assert digest(WithANewOption(opening_hand=6)) != digest(RuleConfig())
    assert digest(RuleConfig(hand_limit=6)) != digest(RuleConfig())
    assert rules_in_digest(RuleConfig(hand_limit=6, mulligan=True)) == {"hand_limit": 6}
    g = new_game(*decks, seed=3, config=WithANewOption())
    assert g.to_dict()["cfg"] == {**RuleConfig().to_dict(), "opening_hand": 5}


def test_golden_files_are_all_listed():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(g[0] for g in GAMES)


def regenerate(folder: Path = GOLDEN) -> list[str]:
    """Render every game of ``GAMES`` into a temporary folder beside ``folder``, and only
    when all rendered replace the files there: a crash halfway (an engine error in game 7)
    leaves the old golden files as they were.  Returns one line per game written."""
    import shutil
    import tempfile
    folder.mkdir(exist_ok=True)
    lines = []
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".golden-") as tmp:
        for stem, *_ in GAMES:
            text = render(stem)
            (Path(tmp) / f"{stem}.txt").write_text(text, encoding="utf-8")
            lines.append(f"{stem}: {text.count(chr(10))} lines")
        for old in folder.glob("*.txt"):
            old.unlink()
        for new in Path(tmp).glob("*.txt"):
            shutil.move(str(new), folder / new.name)
    return lines


def test_regenerate_replaces_the_files_only_when_every_game_rendered(tmp_path, monkeypatch):
    folder = tmp_path / "golden"
    folder.mkdir()
    (folder / "01-old.txt").write_text("old", encoding="utf-8")
    calls = []

    def crash_at_the_third(stem):
        calls.append(stem)
        if len(calls) == 3:
            raise RuntimeError("engine error in game 3")
        return f"{stem}\n"

    monkeypatch.setattr(sys.modules[__name__], "render", crash_at_the_third)
    with pytest.raises(RuntimeError, match="game 3"):
        regenerate(folder)
    assert [p.name for p in folder.iterdir()] == ["01-old.txt"]           # untouched
    assert not list(tmp_path.glob(".golden-*"))                           # nothing left over
    calls.clear()
    monkeypatch.setattr(sys.modules[__name__], "render", lambda stem: f"{stem}\n")
    assert len(regenerate(folder)) == len(GAMES)
    assert sorted(p.stem for p in folder.glob("*.txt")) == sorted(g[0] for g in GAMES)


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    print("\n".join(regenerate()))
