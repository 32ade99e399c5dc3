"""Every bundled card does what its text says: one or more scenario cases per card
(tests/cards/*.yaml, format in tests/card_cases.py), and a meta-test that fails
when a card of the pool has none."""
import pytest

from card_cases import case_cards, load_cases, mentioned, run_case, scenario
from nivel_env.cards import load_card_db

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{'+'.join(case_cards(c))}:{c['_where']}"
                                             for c in CASES])
def test_card_case(case):
    db = load_card_db()
    assert case.get("about"), f"{case['_where']}: say what the case checks ('about')"
    setup = scenario(case)
    absent = [cid for cid in case_cards(case) if cid not in mentioned(setup)]
    assert not absent, f"{case['_where']}: {absent} not in the position"
    run_case(case, db)


def test_every_card_has_a_scenario_case():
    covered = {cid for c in CASES for cid in case_cards(c)}
    missing = [c.id for c in load_card_db() if c.id not in covered]
    assert not missing, f"cards without a scenario case in tests/cards/: {missing}"
