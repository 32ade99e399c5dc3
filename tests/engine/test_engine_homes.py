"""One home each: the pending-effect kind names come from the vocabulary, the hand limit
in words comes from the game's RuleConfig, the difficulty names from one module, and
the engine imports at module level only."""
from __future__ import annotations

import ast

import pytest

from conftest import ROOT, P, do, make
from nivel_env import narrate
from nivel_env.cards import vocab as V
from nivel_env.difficulty import DEFAULT_DIFFICULTY, DIFFICULTIES
from nivel_env.engine import actions as A, const as K, hooks
from nivel_env.primer import basics, primer_text
from nivel_env.screen import decision_line

ENGINE = ROOT / "nivel_env" / "engine"


def test_kind_names_come_from_the_vocabulary_and_keep_their_spelling():
    # the observation's "effect_*" columns are named from these: shipped policies read them
    assert K.KIND_NAMES == ("ability", "Pierce", "Plunder", "Infiltrate", "Finale",
                            "Mutual Destruction", "Return", "Credit draw", "Credit discard",
                            "Return to hand")
    assert len(K.PENDING_TERMS) == len(K.KIND_NAMES)
    for kind, (term, _part) in enumerate(K.PENDING_TERMS):
        if term is None:
            assert kind == K.K_ABILITY and kind not in hooks.PENDING
        else:
            assert K.KIND_NAMES[kind].startswith(V.SUBKEYWORD_BY_KEY[term].en)
            assert hooks.PENDING[kind].term == term, K.KIND_NAMES[kind]


def _native_door(path, n) -> bool:
    """new_game's one lazy import: the native wrapper imports the engine (a cycle at module
    level)."""
    return (path.name == "__init__.py" and isinstance(n, ast.ImportFrom) and n.level == 2
            and n.module == "native.game")


def test_engine_has_no_function_local_imports():
    local = []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        local += [f"{path.name}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in top
                  and not _native_door(path, n)]
    assert local == []


def _at_hand_limit(db, limit):
    g = make(db, P(hand=["T-001"] * 9), config={"hand_limit": limit})
    do(g, "end main")
    do(g, "end attack")
    assert g.decision.context["purpose"] == "hand limit discard"
    return g


def test_hand_limit_in_words_follows_the_rule_config(db):
    g = _at_hand_limit(db, 5)
    assert "discard down to 5 cards" in decision_line(g, keys=False)
    g.apply_action(A.PICK)
    assert any("(hand limit: 5)" in line for line in narrate.narrate(g, 0))
    g = _at_hand_limit(db, 7)
    assert "discard down to 7 cards" in decision_line(g, keys=False)
    assert "a hand of 8 or more is cut to 7" in primer_text(width=1000)
    assert "a hand of 4 or more is cut to 3" in \
        dict(basics(g.cfg.__class__(hand_limit=3)))["A turn"]


def test_difficulty_names_have_one_home():
    pytest.importorskip("starlette")
    from nivel_env.web import app
    assert DEFAULT_DIFFICULTY == "hard" and list(DIFFICULTIES) == ["hard", "normal", "easy"]
    assert app.DIFFICULTIES is DIFFICULTIES
