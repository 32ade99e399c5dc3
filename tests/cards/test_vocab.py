"""The card language's vocabulary is complete: every term has a handler in the engine, a
text renderer and an observation column, and docs/cards.md is the vocabulary's."""

import pytest

from nivel_env.cards import model as m, vocab as v
from nivel_env.cards.docs import cards_markdown
from nivel_env.cards.text import render_action, render_condition, render_keyword
from nivel_env.engine import hooks  # importing the engine registers the handlers
from nivel_env.engine.match import CONDITIONS
from nivel_env.engine.verbs import HANDLERS
from nivel_env.env import card_features as cf, layout as L
from conftest import ROOT


def test_keys_are_unique_per_kind():
    for kind in (v.TIMING, v.GATE, v.SUBKEYWORD, v.GUARDIAN, v.CONDITION, v.VERB):
        keys = [t.key for t in v.TERMS if t.kind == kind]
        assert len(keys) == len(set(keys)), kind
    # the keywords the observation shipped with (section 10's 29) are all still there, in
    # their order; a keyword added since may sit anywhere among them (rule order)
    shipped = cf.SHIPPED.keywords
    assert len(shipped) == 29 and [k for k in v.KEYWORD_NAMES if k in shipped] == list(shipped)


def has_columns(field: str, name: str) -> bool:
    """Whether the observation has columns for term ``name`` in ``field`` (a
    ``card_features.Terms`` field): the shipped layout's, or a later version's blocks."""
    if name in getattr(cf.SHIPPED, field):
        return True
    blocks = {"keywords": "cards_added_terms", "keyword_values": "cards_added_terms",
              "gate_values": "cards_added_terms", "subkeywords": "field_added_flags",
              "value_keywords": "field_added_values"}[field]
    return any(name in getattr(a, field) and L.term_block(blocks, ver) in L.LAYOUT
               for ver, a in L.LAYOUT.term_versions())


@pytest.mark.parametrize("term", v.SUBKEYWORDS, ids=lambda t: t.key)
def test_every_sub_keyword_has_a_hook_a_renderer_and_columns(term):
    # a handler at some trigger point (Guardian: its payments are handled, below)
    if term.arg == "guardian":
        assert all(p.key in hooks.GUARDIAN for p in v.GUARDIAN_PAYMENTS)
    else:
        assert term.key in hooks.terms_with_hooks(), f"{term.key} has no engine hook"
    k = m.Keyword(term.en, term=term.key, n=1, guardian="barrier" if term.arg == "guardian"
                  else "")
    assert term.en in render_keyword(k) and term.ko in render_keyword(k, "ko")
    assert has_columns("keywords", term.en)             # card row: keyword column
    assert has_columns("subkeywords", term.en)          # field block: has_<keyword> flag
    if term.value == "n":
        assert has_columns("value_keywords", term.en) and has_columns("keyword_values", term.en)


def test_every_gate_and_condition_has_a_test_and_text():
    for t in v.CONDITIONS:
        assert t.key in CONDITIONS, f"condition {t.key} has no test in engine/match.py"
        c = m.Condition(t.key, n=2, selector=m.Selector(who="you", mode="all", n=0))
        assert render_condition(c)
    for t in v.GATES:
        assert has_columns("keywords", t.en)
        if t.arg == "int":
            assert has_columns("gate_values", t.key)
    assert set(CONDITIONS) == {t.key for t in v.CONDITIONS}     # nothing unlisted


def test_every_verb_has_handlers_text_and_columns():
    assert set(HANDLERS) == {t.key for t in v.VERBS}
    assert cf.VERB_NAMES == tuple(t.key for t in v.VERBS)
    columns = set()
    for i, t in enumerate(v.VERBS):          # a column of its own in each verb column group
        for group in ("verbs_self", "verbs_opponent", "trigger_verbs"):
            columns.add(cf.verb_column(group, i))
    assert len(columns) == 3 * len(v.VERBS)
    for t in v.VERBS:
        h = HANDLERS[t.key]
        assert h.run is not None and h.possible is not None
        assert (h.payable is not None) == t.cost, f"{t.key}: cost and payable disagree"
        assert (h.passive is not None) == t.passive, f"{t.key}: passive disagrees"
        a = m.Action(t.key, target=t.target or m.Selector(ref="self", mode="all"), power=1,
                     keyword=m.Keyword("Pierce", term="pierce", n=1), prohibit="attack")
        assert render_action(a)


def test_every_action_modifier_is_parsed_and_rendered():
    from nivel_env.cards.schema import _ACTION_MODS
    for t in v.MODIFIERS:
        assert t.key in _ACTION_MODS and t.rule
        a = m.Action("draw", **{{"may": "optional"}.get(t.key, t.key): True})
        assert t.render("x") in render_action(a).replace("draw 1 card", "x")


def test_every_timing_has_a_label_and_keyword_column():
    for t in v.TIMINGS:
        assert v.timing_label(t.key) and v.timing_label(t.key, "ko")
        if t.keyword:
            assert has_columns("keywords", t.keyword)


def test_pending_sub_keyword_effects_are_resolvable():
    from nivel_env.engine import const as K
    assert set(hooks.PENDING) == set(range(1, len(K.KIND_NAMES)))    # all but K_ABILITY
    for kind, p in hooks.PENDING.items():
        assert p.term in v.SUBKEYWORD_BY_KEY, K.KIND_NAMES[kind]


def test_hooks_are_registered_once():
    with pytest.raises(ValueError, match="already has a handler"):
        hooks.hook(hooks.BATTLE_WON, "pierce")(lambda *a: None)


def test_docs_cards_md_is_generated_from_the_vocabulary():
    want = cards_markdown()
    got = (ROOT / "docs" / "cards.md").read_text(encoding="utf-8")
    assert got == want, "docs/cards.md is stale: python -m nivel_env.cards.docs > docs/cards.md"


def test_schema_messages_list_the_vocabulary():
    from nivel_env.cards.schema import CardDataError, compile_card
    base = {"id": "X-1", "type": "unit", "name": "X", "cost": 1, "power": 1, "hit": 1,
            "attribute": "fire"}
    with pytest.raises(CardDataError, match="unknown sub-keyword 'pirce'.*pierce"):
        compile_card({**base, "keywords": ["pirce"]}, "x.yaml", 0)
    with pytest.raises(CardDataError, match="unknown gate 'armd'.*armed"):
        compile_card({**base, "abilities": [{"when": "entry", "while": ["armd"],
                                             "do": [{"draw": 1}]}]}, "x.yaml", 0)
    with pytest.raises(CardDataError, match="unknown condition 'lvl'.*level_at_least"):
        compile_card({**base, "abilities": [{"when": "entry", "if": {"lvl": 1},
                                             "do": [{"draw": 1}]}]}, "x.yaml", 0)
    with pytest.raises(CardDataError, match="draw cannot be a cost"):
        compile_card({**base, "abilities": [{"when": "active_main", "cost": [{"draw": 1}],
                                             "do": [{"draw": 1}]}]}, "x.yaml", 0)
    with pytest.raises(CardDataError, match="passive.*modify"):
        compile_card({**base, "abilities": [{"when": "passive", "do": [{"draw": 1}]}]},
                     "x.yaml", 0)
    with pytest.raises(CardDataError, match=r"pierce: must be at most 10"):
        compile_card({**base, "keywords": [{"pierce": 11}]}, "x.yaml", 0)


def test_every_watched_action_has_its_words_a_loop_guard_and_an_engine_report(monkeypatch):
    """A ``whenever`` ability's ``watch`` (8.4.1.1): each action has its label in both
    languages, the verbs that could meet it (refused in its own ability), and a place in
    the engine that reports it (``hooks.ACTION_DONE``) -- seen here over random games."""
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.cards.schema import _FEEDS
    from nivel_env.engine import new_game
    assert set(v._WHENEVER) == set(m.WHENEVER_EVENTS) == set(_FEEDS)
    assert all(k in {t.key for t in v.VERBS} for verbs in _FEEDS.values() for k in verbs)
    seen = set()
    monkeypatch.setitem(hooks.ACTION_DONE, "test", lambda g, event, p, n: seen.add(event))
    decks = [load_deck(n) for n in list_decks()]
    for s in range(12):
        g = new_game(decks[s % 8], decks[(s + 3) % 8], seed=s, backend="python")  # hooks
        while not g.is_terminal() and g.turn < 40:
            legal = g.legal_actions()
            g.apply_action(legal[(s + len(g.events)) % len(legal)])
    assert seen == set(m.WHENEVER_EVENTS)
