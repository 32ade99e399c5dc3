"""The bundled NV1 pool and decks meet the design brief (issue 3), and the
``cards`` / ``deck`` commands work on them."""
import itertools
import random
import re

import pytest

from nivel_env.__main__ import main
from nivel_env.cards import deck_problems, list_decks, load_card_db, load_deck
from nivel_env.engine import new_game
from test_cards import SECTION_10


@pytest.fixture(scope="module")
def pool():
    return load_card_db()


def test_pool_size_and_spread(pool):
    leaders = [c for c in pool if c.type == "leader"]
    others = [c for c in pool if c.type != "leader"]
    assert len(leaders) >= 8 and len(others) >= 160
    assert len({c.attribute for c in others}) >= 4
    assert len({a for c in others for a in c.affiliations}) >= 12
    assert {c.type for c in others} == {"unit", "item", "skill"}
    for c in pool:
        assert c.name_ko and c.name_ko != c.name and re.search("[가-힣]", c.name_ko), c.id


def test_leaders_have_oath_and_a_different_back_face(pool):
    for c in (c for c in pool if c.type == "leader"):
        assert c.oath and c.back is not None and c.awakening, c.id
        assert c.abilities and c.back.abilities, c.id
        assert c.abilities != c.back.abilities, f"{c.id}: back face must differ (10.2.6.1)"


def test_every_section_10_keyword_on_three_cards(pool):
    for kw in SECTION_10:
        n = sum(1 for c in pool if kw in c.keywords)
        need = 2 if kw in ("Barrier", "Sacrifice", "Offset") else 3
        assert n >= need, f"{kw} on {n} cards"


def test_trigger_effects_are_varied(pool):
    verbs = {a.verb for c in pool if c.trigger for a in c.trigger}
    assert {"draw", "modify", "trash", "heal", "salvage", "return_to_hand"} <= verbs
    assert sum(1 for c in pool if c.trigger) >= 30


def test_cost_curve_fits_the_size_rule(pool):
    # size is leader level (1-10) + damage (0-9): nothing should be unplayable at level 10
    assert max(c.cost for c in pool if c.type != "leader") <= 10
    units = [c for c in pool if c.type == "unit"]
    for cost in range(1, 6):
        assert sum(1 for c in units if c.cost == cost) >= 5, f"few units of cost {cost}"


def test_bundled_decks_are_legal_and_distinct():
    names = list_decks()
    assert len(names) >= 8
    leaders, plans = set(), set()
    for name in names:
        d = load_deck(name)
        assert len(d.cards) == 40 and deck_problems(d) == [], name
        assert len(d.plan) > 200, f"{name}: the plan is one real paragraph"
        leaders.add(d.leader.id)
        plans.add(d.plan)
    assert len(leaders) == len(names) == len(plans)


def test_random_games_between_every_pair_of_decks():
    decks = [load_deck(n) for n in list_decks()]
    for (i, a), (j, b) in itertools.combinations(enumerate(decks), 2):
        for seed in (i * 31 + j, i * 31 + j + 1000):
            g = new_game(a, b, seed=seed)
            rng = random.Random(seed)
            steps = 0
            while not g.is_terminal():
                g.apply_action(rng.choice(g.legal_actions()))
                steps += 1
                assert steps < 20_000, f"{a.name} vs {b.name} seed {seed} does not end"
            assert sum(g.returns()) == 0


def test_cards_command(capsys):
    assert main(["cards", "Soul", "Reaper", "--brief"]) == 0
    out = capsys.readouterr().out
    assert "DA-03" in out and "Soul Reaper" in out
    assert main(["cards", "--keyword", "Offset"]) == 0
    out = capsys.readouterr().out
    assert "EA-06" in out and "EA-14" in out and "[Guardian] Offset[" in out
    assert main(["cards", "관통", "--lang", "ko"]) == 0
    assert "관통[" in capsys.readouterr().out
    assert main(["cards", "no-such-card-anywhere"]) == 1


def test_deck_validate_command(capsys, tmp_path):
    assert main(["deck", "validate", "ember-rush"]) == 0
    assert "legal deck" in capsys.readouterr().out
    bad = tmp_path / "bad.deck"
    bad.write_text("# mine\nleader: LD-01\n4 FI-01\n3 WA-01\n33 FI-05\n", encoding="utf-8")
    assert main(["deck", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "line 3: 4 copies of FI-01" in err and "5.1.2.2" in err
    assert "line 4: WA-01" in err and "oath" in err
    assert main(["deck", "validate", str(tmp_path / "missing.deck")]) == 1
    assert main(["deck", "list"]) == 0
    assert "veil-piercers" in capsys.readouterr().out
