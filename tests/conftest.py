import os
import sys
import tempfile
from pathlib import Path

import pytest

# Stable-Baselines3 makes a new SB3-<time> folder in the temp dir for every learn() that
# has no log folder; keep the suite's in one place (subprocesses inherit it).
os.environ.setdefault("SB3_LOGDIR", os.path.join(tempfile.gettempdir(), "nivel-env-tests-sb3"))


def pytest_addoption(parser):
    parser.addoption("--all", action="store_true",
                     help="also run the slow tier (long soaks, sweeps, fuzzing, training)")


def pytest_collection_modifyitems(config, items):
    """The fast tier by default: tests marked ``slow`` run with ``--all`` (or when a ``-m``
    expression selects them, e.g. ``-m slow``)."""
    if config.getoption("--all") or config.option.markexpr:
        return
    slow = [i for i in items if i.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [i for i in items if not i.get_closest_marker("slow")]

from nivel_env.cards import load_card_db, load_deck
from nivel_env.cards.db import bundled_card_files

#: This folder (the test files sit one folder down, by the package they test) and the
#: repository's root, for the tests that read the sources, docs and scripts.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: a designer's own card file (two plain wind units), for the --cards tests
MY_CARDS = """\
cards:
  - {id: MY-01, type: unit, name: Tinker Owl, name_ko: 땜장이 올빼미, cost: 1, power: 1, hit: 1,
     attribute: wind}
  - {id: MY-02, type: unit, name: Brass Owl, name_ko: 놋쇠 올빼미, cost: 2, power: 2, hit: 1,
     attribute: wind}
"""
# A test file may import another's helpers by name (test_narrate.py: ``from
# test_rules_combat import attack``), as when they all sat in tests/; pytest puts only the
# folders of the files it has collected so far on sys.path, so add them all: a file then
# runs alone as well as in the suite (test file names stay unique across the folders).
sys.path.extend(str(d) for d in sorted(TESTS.iterdir())
                if d.is_dir() and any(d.glob("test_*.py")) and str(d) not in sys.path)
TEST_DATA = Path(__file__).parent / "data"
#: The engine tests' own cards (T- ids) beside the bundled pool.
TEST_POOL = TEST_DATA / "test-pool.yaml"


def test_db():
    return load_card_db(bundled_card_files() + [TEST_POOL])
from nivel_env.engine import actions as A
from nivel_env.engine.scenario import build


@pytest.fixture(scope="session")
def db():
    return test_db()


@pytest.fixture(scope="session")
def decks(db):
    return (load_deck(TEST_DATA / "test-blaze.deck", db),
            load_deck(TEST_DATA / "test-tide.deck", db))


def P(leader="T-L01", **kw):
    return {"leader": leader, "deck": kw.pop("deck", ["T-002"] * 10), **kw}


def make(db, p0=None, p1=None, **top):
    """A scenario; rule tests put what they test on the field without paying for it."""
    return build({"players": [p0 or P(), p1 or P("T-L02")], "check_field_cost": False, **top},
                 db)


def pool_with(tmp_dir, text: str):
    """The test pool plus the cards of a YAML ``text`` (written into ``tmp_dir``)."""
    f = Path(tmp_dir) / "extra.yaml"
    f.write_text(text, encoding="utf-8")
    return load_card_db([TEST_POOL, f])


def names(g):
    return {g.action_name(a): a for a in g.legal_actions()}


def do(g, text):
    """Apply the one legal action whose name contains ``text``."""
    hits = [a for a in g.legal_actions() if text in g.action_name(a)]
    assert len(hits) == 1, f"{text!r} matches {[g.action_name(a) for a in hits]} of " \
                           f"{[g.action_name(a) for a in g.legal_actions()]}"
    g.apply_action(hits[0])
    return g


def unit(g, p, lane):
    iid = g.unit[p * 3 + lane]
    return g.card(iid).id if iid >= 0 else None


def power(g, p, lane):
    from nivel_env.engine.view import derived
    return derived(g).power[p * 3 + lane]


def to_attack(g):
    return do(g, "end main phase")


__all__ = ["A", "P", "make", "pool_with", "names", "do", "unit", "power", "to_attack"]
