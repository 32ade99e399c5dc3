"""Card files, decks and their errors."""
import textwrap

import pytest

from nivel_env.cards import (CardDataError, DeckError, deck_problems, load_card_db,
                             load_deck, parse_deck)
from nivel_env.cards import model as m

SECTION_10 = {"Entry", "Passive", "Active", "Attacker", "Defender", "Exit", "Armed",
              "Frontline", "Level Link", "Trigger", "Mix", "Escape", "Chain", "Buff", "Pierce",
              "Plunder", "Breakthrough", "Duelist", "Infiltrate", "Finale",
              "Mutual Destruction", "Return", "Awakening", "Berserker", "Guardian", "Barrier",
              "Sacrifice", "Offset", "Credit"}


def write(tmp_path, body, name="cards.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def test_test_pool_covers_every_section_10_keyword(db):
    seen = set().union(*(c.keywords for c in db if c.id.startswith("T-")))
    assert SECTION_10 <= seen, SECTION_10 - seen


def test_card_objects_are_immutable_and_complete(db):
    c = db.get("T-002")
    assert (c.id, c.name, c.type, c.cost, c.power, c.hit, c.attribute) == \
        ("T-002", "Flame Lancer", "unit", 2, 3, 1, "fire")
    assert c.affiliations == ("knight",) and "Pierce" in c.keywords
    assert "Pierce[1]" in c.text and "관통[1]" in c.text_ko
    with pytest.raises(Exception):
        c.cost = 5
    assert len(db.version) == 16


def test_every_card_renders_text(db):
    for c in db:
        if c.type != m.LEADER:
            assert c.text or not (c.abilities or c.subkeywords or c.trigger or c.effect), c.id


@pytest.mark.parametrize("body, field", [
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, attribute: fire}]", "hit"),
    ("cards: [{id: X-1, type: unit, name: A, cost: one, power: 2, hit: 1, attribute: fire}]",
     "cost"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: plasma}]",
     "attribute"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "colour: red}]", "colour"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: entry, do: [{trash: {zone: graveyard}}]}]}]",
     "abilities[0].do[0].trash.target.zone"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: entry, do: [{explode: 1}]}]}]", "abilities[0].do[0].explode"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "keywords: [{pierce: -1}]}]", "keywords[0].pierce"),
    ("cards: [{id: X-1, type: unit, name: A, cost: 1, power: 2, hit: 1, attribute: fire, "
     "abilities: [{when: passive, do: [{draw: 1}]}]}]", "abilities[0].do[0].draw"),
    ("cards: [{type: unit, name: A}]", "cards[0].id"),
])
def test_bad_card_files_name_file_card_and_field(tmp_path, body, field):
    p = write(tmp_path, body)
    with pytest.raises(CardDataError) as e:
        load_card_db([p])
    assert str(p) in str(e.value)
    assert e.value.field == field
    if field != "cards[0].id":
        assert e.value.card == "X-1"


def test_bad_yaml_and_duplicates(tmp_path):
    with pytest.raises(CardDataError, match="not valid YAML"):
        load_card_db([write(tmp_path, "cards: [unclosed")])
    with pytest.raises(CardDataError, match="'cards' list"):
        load_card_db([write(tmp_path, "- 1\n- 2\n")])
    one = "cards: [{id: X-1, type: skill, name: A, cost: 1, attribute: fire, effect: [{draw: 1}]}]"
    with pytest.raises(CardDataError, match="duplicate card id"):
        load_card_db([write(tmp_path, one, "a.yaml"), write(tmp_path, one, "b.yaml")])
    with pytest.raises(CardDataError, match="cannot read"):
        load_card_db([tmp_path / "missing.yaml"])


def test_deck_errors_name_line_and_card(db, tmp_path):
    with pytest.raises(DeckError, match="line 2: unknown card id 'NOPE'"):
        parse_deck("leader: T-L01\n3 NOPE\n", db)
    with pytest.raises(DeckError, match="no 'leader"):
        parse_deck("3 T-001\n", db)
    with pytest.raises(DeckError, match="line 1: expected 'COUNT CARD-ID'"):
        parse_deck("three T-001\nleader: T-L01\n", db)
    d = parse_deck("leader: T-L01\n4 T-001\n36 T-002\n", db)
    problems = deck_problems(d)
    assert any("line 2: 4 copies of T-001" in x and "5.1.2.2" in x for x in problems)
    d = parse_deck("leader: T-L01\n3 T-001\n3 T-004\n3 T-016\n1 T-019\n30 T-002\n", db)
    assert any("10 trigger cards" in x for x in deck_problems(d))
    d = parse_deck("leader: T-L01\n3 T-021\n37 T-002\n", db)
    assert any("T-021" in x and "oath" in x for x in deck_problems(d))
    assert any("40" in x for x in deck_problems(parse_deck("leader: T-L01\n3 T-001\n", db)))
    p = tmp_path / "bad.deck"
    p.write_text("leader: T-L01\n3 T-001\n")
    with pytest.raises(DeckError) as e:
        load_deck(p, db)
    assert str(p) in str(e.value)
    assert len(load_deck(p, db, validate=False).cards) == 3
    with pytest.raises(DeckError, match="bundled"):
        load_deck("no-such-deck", db)
