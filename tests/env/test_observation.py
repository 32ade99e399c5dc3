"""The observation encoder: the documented layout, card features from data, and the
values it writes for built positions."""

import numpy as np

from nivel_env.cards import load_card_db
from nivel_env.engine import const as K
from nivel_env.engine.scenario import build
from nivel_env.engine.view import derived
from nivel_env.env import card_features as cf
from nivel_env.env.layout import LAYOUT
from nivel_env.env.encoder import (BLOCKS, CANDIDATE_FEATURES, CARD_ROWS, Encoder, FIELD_FLAGS,
                                   FIELD_VALUES, KNOWN_ROWS, LAYOUT_VERSION, OBS_SIZE, OFFSETS,
                                   PLAYER_VALUES, READABLE_LAYOUTS, ROW_CANDS, ROW_HAND,
                                   ROW_LEADERS, ROW_UNITS, feature_table_markdown)

from conftest import ROOT, do

DOCS = ROOT / "docs" / "observation.md"


def cards_block(obs):
    return obs[OFFSETS["cards"]:OFFSETS["zones"]].reshape(CARD_ROWS, cf.WIDTH)


def position(**players):
    p0 = {"leader": "LD-06", "level": 6, "deck": ["EA-29"] * 10, **players.get("p0", {})}
    p1 = {"leader": "LD-08", "level": 6, "deck": ["EA-29"] * 10, **players.get("p1", {})}
    return build({"players": [p0, p1], "config": {"choose_effect_order": False},
                  "check_field_cost": False}, load_card_db())


def test_docs_match_the_layout():
    assert DOCS.read_text(encoding="utf-8") == feature_table_markdown(), \
        "regenerate with: python -m nivel_env observation > docs/observation.md"


def test_blocks_tile_the_vector():
    names = [b[0] for b in BLOCKS]
    assert len(names) == len(set(names))
    ends = sorted(OFFSETS.values())
    assert ends[0] == 0 and OFFSETS["zones"] + 6 * cf.WIDTH == OFFSETS["opponent_known_hand"]
    assert OFFSETS["opponent_known_hand"] + KNOWN_ROWS * cf.WIDTH == OFFSETS["count"]
    # each block starts where the one before it stops, the last stops at the end, and
    # each version's prefix ends at the last block of that version
    starts = [OFFSETS[n] for n, _, _ in BLOCKS]                         # vector order
    sizes = [int(np.prod(shape)) for _, shape, _ in BLOCKS]
    assert starts == [sum(sizes[:i]) for i in range(len(sizes))]
    assert starts[-1] + sizes[-1] == OBS_SIZE
    assert LAYOUT.versions[3][1] == OFFSETS["known_added"] + KNOWN_ROWS * cf.ADDED_WIDTH
    for v, (_h, n) in LAYOUT.versions.items():
        assert n == max(b.stop for b in LAYOUT.blocks if b.since <= v)
    assert sum(w for _, w, _ in cf.COLUMNS) == cf.WIDTH
    assert sum(w for _, w, _ in cf.ADDED_COLUMNS) == cf.ADDED_WIDTH


def test_earlier_layouts_are_prefixes_that_policies_still_read():
    """The layouts the shipped policies were made for keep their version and size: the
    blocks added since sit after them."""
    shipped = {"8ec8ba45303d": 8439, "ad1491a31dc9": 9519, "b33956590be7": 11097}
    assert {h: READABLE_LAYOUTS.get(h) for h in shipped} == shipped
    assert READABLE_LAYOUTS[LAYOUT_VERSION] == OBS_SIZE
    assert len(READABLE_LAYOUTS) == LAYOUT.version          # one per version, all readable
    assert OFFSETS["opponent_known_hand"] == 8439 and OFFSETS["count"] == 9519


def test_card_rows_come_from_the_card_data(db):
    tdb, db = db, load_card_db()     # the test pool (bundled + T- cards) and the bundled one
    t = cf.card_table(db)
    row = t.matrix[1 + db.get("FI-06").index]          # Scorch Lancer: unit 3/4/1, Pierce 1
    o = cf.OFFSET
    assert row[o["present"]] == 1 and row[o["type"] + 1] == 1
    assert np.isclose(row[o["cost"]], 0.3) and np.isclose(row[o["power"]], 0.4)
    assert np.isclose(row[o["hit"]], 0.2)
    assert row[o["attribute"] + 0] == 1                # fire
    assert row[o["keywords"] + cf.KEYWORDS.index("Pierce")] == 1
    assert row[o["keywords"] + cf.KEYWORDS.index("Attacker")] == 1
    assert np.isclose(row[o["keyword_values"] + 0], 0.2)
    skill = t.matrix[1 + db.get("DA-15").index]        # Soul Drain: trash an opponent's unit
    assert skill[o["type"] + 3] == 1
    assert skill[o["verbs_opponent"] + cf.VERB_NAMES.index("trash")] == 1
    assert skill[o["verbs_self"] + cf.VERB_NAMES.index("trash")] == 0
    # every leader's back face has its own row, marked as such
    for c in db:
        if c.back is not None:
            back = t.matrix[t.back_row[c.index]]
            assert back[o["back_face"]] == 1 and back[o["type"]] == 1
    # a pool with cards the bundled one lacks gets rows of the same width
    assert cf.card_table(tdb).matrix.shape == (1 + len(tdb.cards) +
                                               sum(c.back is not None for c in tdb), cf.WIDTH)
    assert cf.card_table(db) is t                      # built once per pool


def test_values_of_a_built_position():
    g = position(p0={"units": ["FI-06", None, "FI-05"], "hand": ["FI-04", "DA-15"],
                     "damage": ["EA-29", "EA-29"]},
                 p1={"units": [None, "FI-07"], "hand": ["FI-02"] * 3})
    enc = Encoder(g.db)
    obs = enc.encode(g, 0, g.legal_actions()).copy()
    t = cf.card_table(g.db)
    row = lambda cid: t.matrix[1 + g.db.get(cid).index]
    cards = cards_block(obs)
    assert np.array_equal(cards[ROW_HAND], row("FI-04"))
    assert np.array_equal(cards[ROW_HAND + 1], row("DA-15"))
    assert not cards[ROW_HAND + 2].any()
    assert np.array_equal(cards[ROW_UNITS + 0], row("FI-06"))
    assert not cards[ROW_UNITS + 1].any()
    assert np.array_equal(cards[ROW_UNITS + 4], row("FI-07"))     # opponent's lane 1
    assert np.array_equal(cards[ROW_LEADERS], row("LD-06"))
    me = obs[OFFSETS["me_values"]:OFFSETS["me_values"] + len(PLAYER_VALUES)]
    opp = obs[OFFSETS["opponent_values"]:OFFSETS["opponent_values"] + len(PLAYER_VALUES)]
    names = [n for n, _ in PLAYER_VALUES]
    assert np.isclose(me[names.index("level")], 0.6)
    assert np.isclose(me[names.index("hand")], 0.2) and np.isclose(opp[names.index("hand")], 0.3)
    assert np.isclose(me[names.index("damage")], 0.2)
    assert np.isclose(me[names.index("size")], derived(g).size[0] / 10)
    fv = obs[OFFSETS["field_values"]:OFFSETS["seat"]].reshape(6, len(FIELD_VALUES))
    ff = obs[OFFSETS["field_flags"]:OFFSETS["hand_slots"]].reshape(6, len(FIELD_FLAGS))
    fnames = [n for n, _ in FIELD_FLAGS]
    vnames = [n for n, _ in FIELD_VALUES]
    assert np.isclose(fv[0, vnames.index("power")], 0.4)
    assert np.isclose(fv[0, vnames.index("pierce_value")], 0.2)
    assert ff[0, fnames.index("occupied")] == 1 and ff[0, fnames.index("has_pierce")] == 1
    assert ff[1].sum() == 0 and fv[1].sum() == 0
    assert ff[4, fnames.index("has_berserker")] == 1
    assert obs[OFFSETS["acting"]] == 1 and obs[OFFSETS["seat"]] == 0
    assert obs[OFFSETS["decision"] + K.D_MAIN] == 1
    # hand slots mark the playable ones: Soul Drain can trash Pyre Berserker (power 5 > 4: no)
    hs = obs[OFFSETS["hand_slots"]:OFFSETS["candidate_slots"]].reshape(-1, 4)
    legal = g.legal_actions()
    for h in range(2):
        for t_ in range(4):
            assert hs[h, t_] == (8 + 4 * h + t_ in legal)
    # damage zone summary: two filler cards
    zones = obs[OFFSETS["zones"]:OFFSETS["opponent_known_hand"]].reshape(6, cf.WIDTH)
    assert np.isclose(zones[2, cf.OFFSET["present"]], 0.2) and zones[3].sum() == 0
    # the other seat sees the mirror, and not player 0's hand
    other = enc.encode(g, 1, None)
    oc = cards_block(other)
    assert np.array_equal(oc[ROW_UNITS + 1], row("FI-07"))
    assert np.array_equal(oc[ROW_HAND], row("FI-02"))
    assert other[OFFSETS["acting"]] == 0 and other[OFFSETS["seat"]] == 1
    assert np.isclose(other[OFFSETS["opponent_values"] + names.index("hand")], 0.2)


def test_candidates_of_a_pick():
    g = position(p0={"hand": ["DA-15"]}, p1={"units": ["FI-05", "FI-07", "FI-04"]})
    do(g, "use Soul Drain")
    assert g.decision.kind == "pick"
    enc = Encoder(g.db)
    obs = enc.encode(g, 0, g.legal_actions())
    cands = g.dec[3]
    assert len(cands) == 2                       # power 4 or less: Flame Reaver, Ember Hound
    cs = obs[OFFSETS["candidate_slots"]:OFFSETS["cards"]].reshape(-1, len(CANDIDATE_FEATURES))
    names = [n for n, _ in CANDIDATE_FEATURES]
    t = cf.card_table(g.db)
    for i, iid in enumerate(cands):
        assert cs[i, names.index("present")] == 1 and cs[i, names.index("is_card")] == 1
        assert cs[i, names.index("in_unit")] == 1 and cs[i, names.index("mine")] == 0
        assert cs[i, names.index("lane_0") + g.lane(iid)] == 1
        assert np.array_equal(cards_block(obs)[ROW_CANDS + i], t.matrix[1 + g.defs[iid]])
    assert cs[2].sum() == 0
    assert np.isclose(obs[OFFSETS["global_values"] + 3], 2 / 16)
    assert obs[OFFSETS["effect_step_verb"] + cf.VERB_NAMES.index("trash")] == 1
    assert obs[OFFSETS["effect_mine"]] == 1


def test_encoder_output_is_bounded_and_copy_safe():
    g = position(p0={"units": ["FI-06"]})
    enc = Encoder(g.db)
    a = enc.encode(g, 0, g.legal_actions()).copy()
    b = enc.encode(g, 0, g.legal_actions())
    assert np.array_equal(a, b) and a.dtype == np.float32 and a.shape == (OBS_SIZE,)
    assert np.abs(a).max() <= 10


def test_verbs_added_since_the_row_shipped_have_columns_in_the_appended_blocks():
    db = load_card_db()
    lose = cf.VERB_NAMES.index("lose") - cf.ROW_VERBS
    t = cf.card_table(db)
    row = t.added[1 + db.get("DA-28").index]          # Last Rites: your opponent loses
    assert row[cf.OFFSET["added_verbs_opponent"] - cf.WIDTH + lose] == 1
    assert row.sum() == 1 and t.matrix[1 + db.get("DA-28").index].any()
    g = build({"players": [{"leader": "LD-01", "level": 5, "hand": ["DA-28", "WA-28"],
                            "deck": ["FI-01"] * 5},
                           {"leader": "LD-02", "deck": ["FI-01"] * 5}]}, db)
    obs = Encoder(db).encode(g, 0, g.legal_actions())
    added = obs[OFFSETS["cards_added"]:OFFSETS["zones_added"]].reshape(CARD_ROWS,
                                                                       cf.ADDED_WIDTH)
    assert added[ROW_HAND].tolist() == row.tolist() and not added[ROW_HAND + 1].any()


def test_a_number_being_chosen_shows_how_many_so_far_and_the_most():
    db = load_card_db()
    g = build({"players": [{"leader": "LD-01", "level": 5, "hand": ["WA-28"],
                            "deck": ["FI-01"] * 5},
                           {"leader": "LD-02", "deck": ["FI-01"] * 5}]}, db)
    do(g, "Tidal Insight")
    do(g, "one more")
    enc = Encoder(db)
    for p in (0, 1):                                  # announced: both players see it
        obs = enc.encode(g, p, g.legal_actions() if p == 0 else None)
        assert np.allclose(obs[OFFSETS["count"]:OFFSETS["count"] + 2], [0.1, 0.3])
        step = obs[OFFSETS["effect_step_verb"]:OFFSETS["effect_step_verb"] + cf.ROW_VERBS]
        assert step[cf.VERB_NAMES.index("draw")] == 1


def _named_reference(g, p):
    """Every numeric value of the leading block, computed here from the engine's read API
    by name -- independent of the encoder's filler, which writes them in spec order."""
    from nivel_env.engine.view import decision_info, derived
    dv, d = derived(g), decision_info(g)
    cards = g.db.cards

    def cost(iid):
        return cards[g.defs[iid]].cost
    glob = {"turn": g.turn / g.cfg.max_turns, "turn_early": min(g.turn, 30) / 30,
            "attacks_this_turn": len(g.attacked) / 5,
            "candidates": (len(d.candidates) / 16 if d is not None and d.kind == K.D_PICK
                           and d.player == p else None)}
    players = []
    for q in (p, 1 - p):
        units = [g.unit[s] for s in range(q * 3, q * 3 + 3) if g.unit[s] >= 0]
        used = sum(cost(u) + sum(cost(i) for i in g.items[q * 3 + g.lane(u)])
                   for u in units) + sum(cost(i) for i in g.skill[q])
        players.append({"level": g.level[q] / 10, "size": dv.size[q] / 10,
                        "cost_in_use": used / 10, "room": (dv.size[q] - used) / 10,
                        "damage": len(g.damage[q]) / 10, "deck": len(g.deck[q]) / 40,
                        "hand": len(g.hand[q]) / 10, "trash": len(g.trash[q]) / 40,
                        "skills": len(g.skill[q]) / 10, "units": len(units) / 3})
    lanes = []
    for s in ((0, 1, 2, 3, 4, 5) if p == 0 else (3, 4, 5, 0, 1, 2)):
        u = g.unit[s]
        if u < 0:
            lanes.append(None)
            continue
        c = cards[g.defs[u]]
        lane = {"power": dv.power[s] / 10, "hit": dv.hit[s] / 5,
                "power_change": (dv.power[s] - c.power) / 10,
                "hit_change": (dv.hit[s] - c.hit) / 5, "attacks_allowed": dv.attacks[s] / 2,
                "attacks_made": sum(1 for i, _ in g.attacked if i == u) / 2,
                "items": len(g.items[s]) / 3}
        for name, _ in FIELD_VALUES:
            if name.endswith("_value"):
                ns = [k.n for k in dv.keywords[s] if k.name.lower() + "_value" == name]
                lane[name] = max(ns, default=0) / 5
        lanes.append(lane)
    return glob, players, lanes


def test_every_leading_value_is_what_its_spec_name_says():
    """The filler writes the leading values in spec order; this binds each position to its
    name over many positions of random games, so spec and filler cannot drift apart."""
    import random

    from nivel_env.cards import load_deck
    from nivel_env.engine import new_game
    from nivel_env.env.encoder import GLOBAL_VALUES
    db = load_card_db()
    enc = Encoder(db)
    rng = random.Random(5)
    checked = 0
    for seed in range(12):
        g = new_game(load_deck("ember-rush"), load_deck("anvil-guild"), seed=seed)
        while not g.is_terminal():
            if rng.random() < 0.2:
                for p in (0, 1):
                    obs = enc.encode(g, p, g.legal_actions() if g.current_player == p
                                     else None)
                    glob, players, lanes = _named_reference(g, p)
                    for i, (name, _) in enumerate(GLOBAL_VALUES):
                        if glob[name] is not None:
                            assert np.isclose(obs[OFFSETS["global_values"] + i], glob[name]), name
                    for block, want in zip(("me_values", "opponent_values"), players):
                        for i, (name, _) in enumerate(PLAYER_VALUES):
                            assert np.isclose(obs[OFFSETS[block] + i], want[name]), name
                    fv = obs[OFFSETS["field_values"]:OFFSETS["seat"]].reshape(6, -1)
                    for k, want in enumerate(lanes):
                        for i, (name, _) in enumerate(FIELD_VALUES):
                            got = fv[k, i]
                            assert np.isclose(got, 0 if want is None else want[name]), name
                    checked += 1
            legal = g.legal_actions()
            g.apply_action(legal[rng.randrange(len(legal))])
    assert checked > 200
