"""Public API: determinism, clone, serialisation, illegal actions, random play."""
import json
import pickle
import random

import pytest

from conftest import ROOT
from nivel_env.engine import Game, IllegalActionError, N_ACTIONS, RuleConfig, new_game
from nivel_env.engine import actions as A


def play_random(g, seed, limit=100000):
    r = random.Random(seed)
    trace = []
    while not g.is_terminal() and len(trace) < limit:
        a = r.choice(g.legal_actions())
        trace.append(a)
        g.apply_action(a)
    return trace


def test_random_games_finish(decks):
    results = {}
    for seed in range(150):
        g = new_game(*decks, seed=seed)
        play_random(g, seed)
        assert g.is_terminal()
        r = g.returns()
        assert r in ((1, -1), (-1, 1), (0, 0))
        assert g.current_player is None and g.legal_actions() == []
        results[r] = results.get(r, 0) + 1
    assert len(results) >= 2          # both seats win sometimes


def test_same_seed_same_game(decks):
    a, b = new_game(*decks, seed=11), new_game(*decks, seed=11)
    ta, tb = play_random(a, 3), play_random(b, 3)
    assert ta == tb and a.events == b.events and a.to_dict() == b.to_dict()


def test_different_seeds_differ(decks):
    hands = {tuple(new_game(*decks, seed=s).hand[0]) for s in range(10)}
    assert len(hands) > 5


def test_legal_actions_sorted_and_in_range(decks):
    g = new_game(*decks, seed=5)
    r = random.Random(5)
    while not g.is_terminal():
        la = g.legal_actions()
        assert la == sorted(set(la)) and la and all(0 <= a < N_ACTIONS for a in la)
        g.apply_action(r.choice(la))


def test_illegal_action_leaves_state_unchanged(decks):
    g = new_game(*decks, seed=2)
    r = random.Random(2)
    for _ in range(60):
        before = g.to_dict()
        legal = set(g.legal_actions())
        bad = next(a for a in range(N_ACTIONS) if a not in legal)
        with pytest.raises(IllegalActionError) as e:
            g.apply_action(bad)
        assert str(bad) in str(e.value)
        assert g.to_dict() == before
        g.apply_action(r.choice(sorted(legal)))
        if g.is_terminal():
            break
    with pytest.raises(IllegalActionError):
        g.apply_action(N_ACTIONS + 5)


def test_clone_is_independent(decks):
    g = new_game(*decks, seed=4)
    play_random(g, 4, limit=40)
    c = g.clone()
    snap = g.to_dict()
    play_random(c, 9)
    assert g.to_dict() == snap
    assert c.to_dict() != snap


def test_clone_continues_identically(decks):
    g = new_game(*decks, seed=8)
    play_random(g, 8, limit=50)
    c = g.clone()
    assert play_random(g, 1) == play_random(c, 1)
    assert g.events == c.events


def test_to_dict_round_trip_mid_game(decks):
    g = new_game(*decks, seed=6)
    play_random(g, 6, limit=70)
    d = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(d, g.db)
    assert h.to_dict() == g.to_dict()
    assert h.legal_actions() == g.legal_actions()
    assert play_random(h, 2) == play_random(g, 2)
    assert h.events == g.events


def test_pickle_round_trip(decks):
    g = new_game(*decks, seed=12)
    play_random(g, 12, limit=30)
    h = pickle.loads(pickle.dumps(g))
    assert h.to_dict() == g.to_dict()
    assert play_random(h, 5) == play_random(g, 5)


def test_events_are_json(decks):
    g = new_game(*decks, seed=1)
    play_random(g, 1)
    json.dumps([e.to_dict() for e in g.events])
    kinds = {e.kind for e in g.events}
    assert {"turn", "draw", "place", "attack", "game_over"} <= kinds


def test_max_turns_truncates_as_draw(decks):
    g = new_game(*decks, seed=3, config=RuleConfig(max_turns=2))
    play_random(g, 3)
    assert g.is_terminal()
    if g.truncated:
        assert g.returns() == (0, 0)


def test_surrender(decks):
    g = new_game(*decks, seed=3)
    g.surrender(1)
    assert g.returns() == (1, -1) and g.is_terminal()
    g = new_game(*decks, seed=3, config=RuleConfig(surrender_action=True))
    assert A.SURRENDER in g.legal_actions()
    p = g.current_player
    g.apply_action(A.SURRENDER)
    assert g.returns()[p] == -1


def test_render_and_names(decks):
    g = new_game(*decks, seed=0)
    text = g.render()
    assert "Blaze Captain" in text and "Tide Warden" in text
    hidden = g.render(perspective=0)
    g.card(g.hand[1][0]).name
    assert "hand:" in hidden
    for a in range(N_ACTIONS):
        assert isinstance(g.action_name(a), str)
    assert g.decision.kind == "mulligan"


def test_engine_never_imports_rl_libraries():
    import subprocess
    import sys
    code = ("import sys, nivel_env.engine, nivel_env.cards;"
            "bad=[m for m in sys.modules if m.split('.')[0] in "
            "('gymnasium','pettingzoo','numpy')];"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_new_game_rejects_bad_input(decks):
    with pytest.raises(TypeError, match="deck_0"):
        new_game("test-blaze", decks[1])


def test_determinism_across_processes():
    import subprocess
    import sys
    code = ("import json,random,hashlib;from nivel_env.cards import load_deck;"
            "from nivel_env.engine import new_game;"
            "g=new_game(load_deck('ember-rush'),load_deck('stone-bastion'),seed=21);r=random.Random(4)\n"
            "while not g.is_terminal(): g.apply_action(r.choice(g.legal_actions()))\n"
            "print(hashlib.sha256(json.dumps(g.to_dict(),sort_keys=True).encode()).hexdigest())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": h}).stdout
            for h in ("0", "1", "12345")}
    assert len(outs) == 1


def test_scenario_errors_name_the_field(db):
    from nivel_env.engine import ScenarioError
    from nivel_env.engine.scenario import build
    ok = {"leader": "T-L01"}
    cases = [
        ({"players": [ok]}, "players"),
        ({"players": [ok, {"leader": "T-001"}]}, "players[1].leader"),
        ({"players": [{**ok, "hand": ["NOPE"]}, ok]}, "players[0].hand[0]"),
        ({"players": [{**ok, "units": [{"card": "T-017"}]}, ok]}, "players[0].units[0]"),
        ({"players": [{**ok, "level": 11}, ok]}, "players[0].level"),
        ({"players": [ok, ok], "phase": "draw"}, "phase"),
        ({"players": [ok, ok], "config": {"nope": 1}}, "config"),
        ({"players": [{**ok, "deck": ["T-001"] * 41}, ok]}, "players[0].deck[40]"),
        ({"players": [ok, ok], "extra": 1}, "extra"),
    ]
    for d, field in cases:
        with pytest.raises(ScenarioError, match=field.replace("[", r"\[").replace("]", r"\]")):
            build(d, db)


def test_scenario_from_yaml_file(db, tmp_path):
    from nivel_env.engine.scenario import load_scenario
    p = tmp_path / "s.yaml"
    p.write_text("players:\n  - {leader: T-L01, hand: [T-001], deck: [T-002, T-003]}\n"
                 "  - {leader: T-L02, level: 5, units: [T-021]}\n")
    g = load_scenario(p, db)
    assert g.decision.kind == "main" and g.card(g.deck[0][-1]).id == "T-002"


def test_random_agent_obeys_mask_and_wilson():
    import numpy as np
    from agents import RandomAgent
    from nivel_env.tournaments.ratings import wilson
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[[3, 9, 200]] = 1
    agent = RandomAgent(0)
    assert {agent.act(None, mask) for _ in range(100)} == {3, 9, 200}
    lo, hi = wilson(50, 100)                       # hand computed: 0.5 +- 0.0962
    assert abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3
    assert wilson(0, 0) == (0.0, 1.0)


def test_read_api_names_what_consumers_read(decks):
    """Decision, battle and derived stats by name (engine/view.py), matching the state."""
    from nivel_env.engine import const as K
    from nivel_env.engine.view import battle_info, decision_info, derived
    seen = set()
    for seed in range(12):
        g = new_game(decks[seed % len(decks)], decks[(seed + 3) % len(decks)], seed=seed)
        rnd = random.Random(seed)
        while not g.is_terminal():
            d = decision_info(g)
            assert d.player == g.current_player and K.DECISION_NAMES[d.kind] == g.decision_name
            ctx = g.decision.context
            if d.kind == K.D_PICK:
                assert list(d.candidates) == ctx["candidate_values"]
                assert d.can_pass == ctx["can_pass"]
                assert K.PICK_PURPOSES[d.purpose] == ctx["purpose"]
            elif d.kind == K.D_DEFENSE:
                assert (d.lane, d.must) == (ctx["defender_lane"], ctx["must_defend"])
            elif d.kind == K.D_GUARDIAN:
                assert list(d.lanes) == ctx["guardian_lanes"]
            b = battle_info(g)
            if b is not None:
                assert g.card(b.attacker).id == ctx["attacker"] and b.lane == ctx["attacker_lane"]
                assert (b.defender >= 0) == ("defender" in ctx)
            seen.add(d.kind)
            h = g.clone()
            h.dirty = True                           # derived values are recomputed on read
            assert derived(h) == derived(g)
            legal = g.legal_actions()
            g.apply_action(legal[rnd.randrange(len(legal))])
        assert decision_info(g) is None and g.decision_name is None
    assert {K.D_MAIN, K.D_ATTACK, K.D_PICK, K.D_DEFENSE} <= seen


def test_consumers_read_the_engine_through_its_api():
    """Outside nivel_env/engine nothing indexes the decision tuple or refreshes derived
    stats itself: they read engine/view.py and Game's properties."""
    import re
    root = ROOT
    bad = re.compile(r"\.dec\[|\bensure\(|\.stack\[|\bB_(ATK|DEF|LANE|STEP|BREAK|DUEL)\b")
    offenders = []
    for path in [*root.glob("nivel_env/**/*.py"), *root.glob("agents/*.py"), root / "train.py",
                 root / "evaluate.py"]:
        if "engine" in path.relative_to(root).parts[:2]:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if bad.search(line):
                offenders.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# ------------------------------------------------------------- API strictness (issue 28)

def _main_phase_with_a_play(decks, seed=5):
    """A game at a decision where some PLAY id (>= 8) is legal."""
    g = new_game(*decks, seed=seed)
    r = random.Random(seed)
    while not any(a >= A.PLAY for a in g.legal_actions() if a < A.ACTIVATE):
        g.apply_action(r.choice(g.legal_actions()))
    return g


def test_apply_action_refuses_non_integers_before_anything_moves(decks):
    """A float, Fraction or Decimal equal to a legal id passed the legality check and
    failed half-way through the move (the decision already cleared); bools were moves."""
    import numpy as np
    from decimal import Decimal
    from fractions import Fraction
    g = _main_phase_with_a_play(decks)
    a = next(a for a in g.legal_actions() if A.PLAY <= a < A.ACTIVATE)
    before = g.to_dict()
    for bad in (float(a), np.float64(a), np.float32(a), Fraction(a), Decimal(a), str(a),
                np.array([a]), np.array(float(a)), [a], None):
        with pytest.raises(IllegalActionError, match="integer id"):
            g.apply_action(bad)
        assert g.to_dict() == before, bad
    m = new_game(*decks, seed=1)                       # mulligan: KEEP 0 and MULLIGAN 1
    start = m.to_dict()
    for bad in (True, False, np.bool_(True), np.array(True)):
        with pytest.raises(IllegalActionError, match="integer id"):
            m.apply_action(bad)
        assert m.to_dict() == start
    g.apply_action(np.int16(a))                        # numpy integers are ids
    assert g.to_dict() != before


def test_a_0d_integer_array_is_an_action_id_as_in_the_envs(decks):
    """SB3's ``predict`` of one observation gives a 0-d array: the Gym and AEC envs took
    it while ``Game.apply_action`` refused it.  One rule now (``engine.errors.action_id``),
    the id stored as a plain int; a 1-element array is still not one id."""
    import numpy as np
    g = new_game(*decks, seed=3)
    a = g.legal_actions()[-1]
    g.apply_action(np.array(a, dtype=np.int32))
    json.dumps(g.to_dict())                              # plain ints: a numpy value fails
    from nivel_env.engine.errors import action_id, as_int
    assert action_id(np.array(7)) == 7 and type(action_id(np.uint8(7))) is int
    for bad in (np.array([7]), np.array(7.0), np.array(True), np.True_, True, 7.0, "7"):
        assert as_int(bad) is None, bad
    with pytest.raises(IllegalActionError, match=r"^Game.apply_action: an action is an "
                       r"integer id 0\.\.336 \(a Python or numpy integer\), got ndarray"):
        g.apply_action(np.array([a]))
    g.surrender(np.array(1))                             # a seat by the same rule
    assert g.result is not None and g.lost == [False, True]
    with pytest.raises(ValueError, match="player must be 0 or 1, got bool True"):
        new_game(*decks, seed=3).surrender(True)


def test_numpy_actions_leave_plain_ints_in_state_and_events(decks):
    """After apply_action(np.int64(a)) the state and its events hold Python ints, so
    to_dict() is JSON."""
    import numpy as np
    g = new_game(*decks, seed=9)
    r = random.Random(9)
    while not g.is_terminal():
        g.apply_action(np.int64(r.choice(g.legal_actions())))
    json.dumps(g.to_dict())

    def numpy_leaves(x, path="g"):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from numpy_leaves(v, f"{path}.{k}")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                yield from numpy_leaves(v, f"{path}[{i}]")
        elif isinstance(x, np.generic):
            yield path
    assert not list(numpy_leaves(g.to_dict()))
    h = new_game(*decks, seed=np.uint32(4))           # the seed is kept in the events
    h.surrender(np.int64(1))
    json.dumps(h.to_dict())
    assert h.returns() == (1, -1)
    assert h.events[0].seed == 4 and type(h.events[0].seed) is int
    for bad in (2.5, 4.0, "4", True, None):           # 2.5 was truncated, "4" parsed
        with pytest.raises(TypeError, match="seed must be an integer"):
            new_game(*decks, seed=bad)


def test_surrender_refuses_a_player_that_is_not_a_seat(decks):
    g = new_game(*decks, seed=4)
    before = g.to_dict()
    for bad in (2, -1, 1.0, True, "0", None):
        with pytest.raises(ValueError, match="player"):
            g.surrender(bad)
        assert g.to_dict() == before


def test_legal_actions_cannot_be_corrupted_by_the_caller(decks):
    """legal_actions() handed out the engine's cache: appending to it made an illegal id
    legal for the game and for its clones, clearing it emptied their masks."""
    g = _main_phase_with_a_play(decks)
    c = g.clone()
    legal = list(g.legal_actions())
    bad = next(a for a in range(N_ACTIONS) if a not in legal)
    got = g.legal_actions()
    got.append(bad)
    got.sort()
    assert g.legal_actions() == legal and c.legal_actions() == legal
    with pytest.raises(IllegalActionError):
        g.apply_action(bad)
    with pytest.raises(IllegalActionError):
        c.apply_action(bad)
    g.legal_actions().clear()
    assert g.legal_actions() == legal and c.clone().legal_actions() == legal
    assert g.legal_actions() is not g.legal_actions()


def test_a_scenario_game_never_keeps_a_stale_legal_list(db):
    """Positions built by the scenario builder: after every move the legal list is the
    one computed afresh from the state (a rebuilt game's), move after move."""
    from nivel_env.engine.legal import legal_actions
    from nivel_env.engine.scenario import build
    d = {"players": [{"leader": "T-L01", "level": 5, "hand": ["T-001", "T-002", "T-021"],
                      "deck": ["T-002", "T-003"] * 5, "units": ["T-021"]},
                     {"leader": "T-L02", "level": 5, "units": [None, "T-021"],
                      "deck": ["T-001", "T-002"] * 5}], "phase": "main"}
    for seed in range(8):
        g = build(d, db)
        r = random.Random(seed)
        for _ in range(40):
            if g.is_terminal():
                break
            first = g.legal_actions()
            g.apply_action(r.choice(first))
            assert g.legal_actions() == legal_actions(g) \
                == Game.from_dict(g.to_dict(), g.db).legal_actions()
