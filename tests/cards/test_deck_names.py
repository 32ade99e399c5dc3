"""Deck files name cards by id or by name (any case, English or Korean), and ``deck show``
prints a deck back as the canonical file (ids, names in comments) that reads back to the
same deck."""
from __future__ import annotations

import pytest

from nivel_env.cards import DeckError, format_deck, list_decks, load_card_db, load_deck
from nivel_env.cards import parse_deck
from nivel_env.cards.db import bundled_card_files

EMBER_BY_NAME = """\
name: Ember by name
leader: hwaryeon,  EMBER warlord
3 Cinder Pup
3 ash raider
3 FI-03
2 Ember Hound
3 flame reaver
2 Sparkrunner
2 scorch lancer
2 Flame Duelist
2 blaze charger
3 Ashfang Marauder
2 pyre berserker
2 Warband Chief
2 Rage Drake
3 전쟁 북         # War Drums by its Korean name
2 battle frenzy
2 flame burst
2 ember brand
"""


def _same(a, b) -> bool:
    return (a.name, a.leader.id, a.card_ids(), a.plan) == (b.name, b.leader.id, b.card_ids(),
                                                           b.plan)


def test_names_read_as_the_ids_they_name():
    db = load_card_db()
    ember = load_deck("ember-rush")
    assert db.get("FI-21").name_ko == "전쟁 북"
    by_name = parse_deck(EMBER_BY_NAME, db, "by-name.deck")
    assert by_name.leader.id == "LD-01" and by_name.card_ids() == ember.card_ids()
    assert by_name.lines["FI-21"] == 16                     # lines still name the card


@pytest.mark.parametrize("line, message", [
    ("3 Molten Brut", "line 2: unknown card id 'Molten Brut' (no card has that id or name; "
                      "closest: Molten Brute (FI-16))"),
    ("3 flame", "closest: Flame Reaver (FI-05), Flame Duelist (FI-12), Flame Burst (FI-22)"),
    ("3 zzzz", "line 2: unknown card id 'zzzz' (no card has that id or name)"),
    ("3 Hwaryeon, Ember Warlord", "line 2: LD-01 is a leader; write it as 'leader: LD-01'"),
    ("three Cinder Pup", "line 2: expected 'COUNT CARD-ID' or 'COUNT CARD NAME'"),
])
def test_an_unknown_name_is_named_with_the_closest(line, message):
    with pytest.raises(DeckError) as e:
        parse_deck(f"leader: LD-01\n{line}\n", load_card_db())
    assert message in str(e.value)


def test_a_name_two_cards_share_is_ambiguous(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("cards:\n  - {id: MY-09, type: unit, name: molten brute, name_ko: 용암, "
                    "cost: 1, power: 1, hit: 1, attribute: fire}\n", encoding="utf-8")
    db = load_card_db(bundled_card_files() + [mine])
    with pytest.raises(DeckError) as e:
        parse_deck("leader: LD-01\n3 Molten Brute\n", db, "x.deck")
    assert str(e.value) == ("x.deck: line 2: 'Molten Brute' names 2 cards: Molten Brute "
                            "(FI-16), molten brute (MY-09); write the id")
    assert parse_deck("leader: LD-01\n3 MY-09\n2 용암\n", db).card_ids() == ["MY-09"] * 5
    with pytest.raises(DeckError, match="line 1: unknown card id 'Nobody'"):
        parse_deck("leader: Nobody\n3 FI-01\n", db)


@pytest.mark.parametrize("deck", list_decks())
def test_format_deck_reads_back_to_the_same_deck(deck):
    d = load_deck(deck)
    for lang in ("en", "ko"):
        text = format_deck(d, "a comment\nof two lines", lang)
        assert _same(parse_deck(text, d.db), d)
    assert "3 FI-01  # Cinder Pup\n" in format_deck(load_deck("ember-rush"))


def test_deck_show_prints_a_deck_file_that_reads_back(tmp_path, capsys):
    from nivel_env.__main__ import main
    src = tmp_path / "by-name.deck"
    src.write_text(EMBER_BY_NAME, encoding="utf-8")
    assert main(["deck", "show", str(src)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {src}: legal deck\n# Ember by name: leader LD-01")
    assert "\n3 FI-21  # War Drums (전쟁 북) — skill, cost" in out
    canon = tmp_path / "canon.deck"
    canon.write_text(out, encoding="utf-8")
    assert _same(load_deck(canon), load_deck(src))
    assert main(["deck", "show", str(canon)]) == 0                # a fixed point
    assert capsys.readouterr().out == out.replace(str(src), str(canon), 1)
