"""A game restored from a pickle or a dict, at any decision, plays on as the original: its
derived stats come back stale, and the decision's handler must not read them so (the
differential soak found a Guardian declared on a restored game raising StopIteration:
``start_guard`` read the unit's keywords before any refresh)."""
import pickle
import random

from nivel_env.cards import load_card_db, load_deck
from nivel_env.cards.deck import list_decks
from nivel_env.engine import Game, new_game


def test_guardian_and_defense_decisions_play_on_after_a_round_trip():
    db = load_card_db()
    decks = [load_deck(n, db) for n in list_decks()]
    seen = {"guardian": 0, "defense": 0}
    for seed in range(16):
        rnd = random.Random(seed)
        g = new_game(rnd.choice(decks), rnd.choice(decks), seed=seed)
        while not g.is_terminal():
            kind = g.decision_name
            if kind in seen:
                a = max(g.legal_actions())             # use Guardian / defend
                for h in (pickle.loads(pickle.dumps(g)), Game.from_dict(g.to_dict(), db)):
                    h.apply_action(a)
                    g2 = g.clone()
                    g2.apply_action(a)
                    assert h.to_dict() == g2.to_dict(), (seed, kind)
                seen[kind] += 1
            g.apply_action(rnd.choice(g.legal_actions()))
    assert seen["guardian"] > 0 and seen["defense"] > 0, seen
