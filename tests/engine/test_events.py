"""The engine's typed events (engine/events.py): every kind a record with its fields, the
dicts replays and digests store, the reasons recorded from event format 2 on, old replays
still loading, and narration as a visitor with one method per kind."""
import json
import random

import pytest
from conftest import ROOT, TESTS, P, do, make
from test_rules_combat import OPP, attack

from nivel_env.cards import load_deck
from nivel_env.engine import actions as A, new_game
from nivel_env.engine.events import (EVENT_VERSION, EVENTS, Damage, Discard, Draw, EffectEnd,
                                     Event, Guardian, Trash, Trigger, event_from_dict,
                                     to_dicts)
from nivel_env.engine.hidden import seat_event
from nivel_env.narrate import Narrator
from nivel_env.replay import ReplayError, load_replay, parse_replay, record_game

OLD_REPLAY = TESTS / "data" / "replay-events-v1.jsonl"


def _random_game(a, b, seed):
    g = new_game(load_deck(a), load_deck(b), seed=seed)
    r = random.Random(seed)
    acts = []
    while not g.is_terminal():
        acts.append(r.choice(g.legal_actions()))
        g.apply_action(acts[-1])
    return g, acts


def test_every_kind_is_a_documented_record_with_a_narrator_method():
    for kind, cls in EVENTS.items():
        assert cls.kind == kind and issubclass(cls, Event) and cls.__doc__
        assert all("__slots__" in c.__dict__ for c in cls.__mro__[:-1]), \
            f"{cls.__name__} instances would carry a __dict__"
        assert callable(getattr(Narrator, kind, None)), f"Narrator has no method {kind}"


def test_records_round_trip_through_their_dicts():
    seen = set()
    for a, b, seed in (("dawn-ascent", "gale-runners", 0), ("ember-rush", "anvil-guild", 3)):
        g, _ = _random_game(a, b, seed)
        for e in g.events:
            d = e.to_dict()
            assert d["type"] == e.kind and json.loads(json.dumps(d)) == d
            assert event_from_dict(d) == e
            seen.add(e.kind)
    assert len(seen) > 35


def test_a_game_state_round_trips_with_its_events(db):
    g, _ = _random_game("tide-scholars", "veil-piercers", 2)
    h = type(g).from_dict(json.loads(json.dumps(g.to_dict())))
    assert h.events == g.events and all(isinstance(e, Event) for e in h.events)


def test_bad_event_dicts_are_named():
    with pytest.raises(ValueError, match="not an event"):
        event_from_dict({"type": "no_such_kind"})
    with pytest.raises(ValueError, match="has no field 'colour'"):
        event_from_dict({"type": "shuffle", "player": 0, "colour": "red"})
    with pytest.raises(ValueError, match="'draw'"):
        event_from_dict({"type": "draw", "player": 0})


def test_records_are_read_by_attribute_not_as_dicts():
    """A record is not a dict: code reads its fields (``e.kind``, ``e.card``), and JSON
    goes through ``to_dict`` -- so a field renamed in the contract breaks loudly."""
    e = Trash("T-002", 3, 0, "effect")
    assert e.kind == "trash" and e.card == "T-002" and e.pays is None
    assert e.to_dict() == {"type": "trash", "card": "T-002", "iid": 3, "player": 0,
                           "reason": "effect"}
    with pytest.raises(TypeError):
        e["type"]


def test_a_guardian_records_its_barrier_payment(db):
    g = make(db, P(units=[None, "T-003"]), P(OPP, units=["T-021"], hand=["T-001", "T-003"]))
    attack(g, "Raider of Ash")
    do(g, "guardian Tide Guard")
    g.apply_action(A.PICK)
    guard = [e for e in g.events if isinstance(e, Guardian)]
    paid = [e for e in g.events if isinstance(e, Discard)]
    assert [e.payment for e in guard] == ["barrier"] and [e.reason for e in paid] == ["barrier"]
    assert guard[0].to_dict()["payment"] == "barrier"
    assert "payment" not in guard[0].to_dict(version=1)


@pytest.mark.parametrize("units,name,payment", [
    (["T-022", None, "T-035"], "Stone Sentinel", "sacrifice"),
    ([{"card": "T-023", "items": ["T-031"]}], "Coral Knight", "offset"),
])
def test_a_guardian_records_its_sacrifice_or_offset(db, units, name, payment):
    g = make(db, P(units=[None, "T-002"]), P(OPP, units=units, hand=[]))
    n = Narrator(g, 1)
    n.seen = len(g.events)
    attack(g, "Flame Lancer")
    do(g, f"guardian {name}")
    guard = [e for e in g.events if isinstance(e, Guardian)]
    paying = [e for e in g.events if isinstance(e, Trash) and e.pays == "guardian"]
    assert [e.payment for e in guard] == [payment] and len(paying) == 1
    assert paying[0].reason == "effect" and "pays" not in paying[0].to_dict(version=1)
    lines = n.new_lines()
    assert sum(x.endswith("is trashed (to pay for Guardian).") for x in lines) == 1


def test_an_effect_discard_says_so_and_reads_as_format_1():
    found = 0
    for seed in range(3):
        g, _ = _random_game("ember-rush", "stone-bastion", seed)
        for e in g.events:
            if isinstance(e, Discard) and e.reason == "effect":
                found += 1
                assert "reason" not in e.to_dict(version=1)
    assert found


def test_a_replay_saved_before_typed_events_still_loads():
    """tests/data/replay-events-v1.jsonl was written by the engine before the records
    (no event_version in its header): its events are checked as format 1 wrote them."""
    head = json.loads(OLD_REPLAY.read_text().splitlines()[0])
    assert "event_version" not in head
    rep = load_replay(OLD_REPLAY)
    assert rep.result is not None and len(rep.rows) == 170
    kinds = {e.kind for e in rep.games[-1].events}
    assert {"guardian", "discard", "damage"} <= kinds


def test_new_replays_record_the_event_version(tmp_path):
    g, acts = _random_game("dawn-ascent", "gale-runners", 0)
    rec = record_game(load_deck("dawn-ascent"), load_deck("gale-runners"), 0, acts)
    lines = rec.lines()
    head = json.loads(lines[0])
    assert head["event_version"] == EVENT_VERSION
    text = "\n".join(lines)
    assert parse_replay(text).result is not None
    # the same game written as format 1 is a different file, which fails as format 2
    old = OLD_REPLAY.read_text().splitlines()
    assert old[1:] != lines[1:]
    for bad, match in ((99, "event format 99"), ("2", "event format '2'")):
        head["event_version"] = bad
        with pytest.raises(ReplayError, match=match):
            parse_replay("\n".join([json.dumps(head)] + lines[1:]))
    head["event_version"] = EVENT_VERSION
    with pytest.raises(ReplayError, match="events differ"):
        parse_replay("\n".join([json.dumps(head)] + old[1:]))


def test_a_damage_trigger_records_its_cause_up_to_its_effect_end(db):
    """4.5.4.3: the damage record, then a trigger record naming the card and its trigger
    ability, then the ability's events (Wave Caller: draw 1), then its effect_end."""
    g = make(db, P(units=["T-006"]), P(OPP, deck=["T-026"] + ["T-022"] * 5))
    start = len(g.events)
    attack(g, "Berserk Brute")
    new = g.events[start:]
    i = next(k for k, e in enumerate(new) if isinstance(e, Damage) and e.trigger)
    dmg, trig = new[i], new[i + 1]
    assert isinstance(trig, Trigger) and (trig.player, trig.card, trig.iid) == \
        (dmg.player, dmg.card, dmg.iid) == (1, "T-026", dmg.iid)
    assert trig.ability == g.db.get("T-026").trigger_ability.key
    j = next(k for k, e in enumerate(new) if isinstance(e, EffectEnd) and k > i)
    assert (new[j].player, new[j].card, new[j].ability) == (1, "T-026", trig.ability)
    assert any(isinstance(e, Draw) and e.player == 1 for e in new[i + 2:j])
    # the card is face up in the damage zone: both seats read the record in full
    assert seat_event(trig, 0) == seat_event(trig, 1) == trig
    n = Narrator(g, 0)
    assert n.trigger(trig) is None and n.cause == [g.db.get("T-026").name]


def _trigger_game():
    for seed in range(20):
        g, acts = _random_game("dawn-ascent", "veil-piercers", seed)
        if any(isinstance(e, Trigger) for e in g.events):
            return acts, seed
    raise AssertionError("no damage trigger in 20 random games")


def test_a_kind_newer_than_the_version_is_left_out_when_writing_it():
    e = Trigger(1, "T-026", 47, 5)
    assert Trigger.added == 3 and to_dicts([e], 3) == [e.to_dict()]
    assert to_dicts([e, Draw(1, 1)], 2) == [{"type": "draw", "player": 1, "count": 1}]
    with pytest.raises(ValueError, match="added in event format 3"):
        e.to_dict(version=2)


def test_a_replay_recorded_at_event_version_2_still_verifies():
    """A replay written before the trigger record (format 2): the same game with its
    header saying 2 and no trigger records loads and checks; format 3 holds them."""
    acts, seed = _trigger_game()
    lines = record_game(load_deck("dawn-ascent"), load_deck("veil-piercers"), seed,
                        acts).lines()
    rows = [json.loads(x) for x in lines]
    assert EVENT_VERSION == 3 and rows[0]["event_version"] == 3
    assert any(e["type"] == "trigger" for r in rows for e in r.get("events", ()))
    assert parse_replay("\n".join(lines)).result is not None
    rows[0]["event_version"] = 2
    with pytest.raises(ReplayError, match="events differ"):   # 2 had no such records
        parse_replay("\n".join(json.dumps(r) for r in rows))
    for r in rows:
        if "events" in r:
            r["events"] = [e for e in r["events"] if e["type"] != "trigger"]
    rep = parse_replay("\n".join(json.dumps(r) for r in rows))
    assert rep.result is not None and rep.actions == acts
    assert any(isinstance(e, Trigger) for e in rep.games[-1].events)   # the engine's own


def test_docs_events_md_is_generated_from_the_records():
    from nivel_env.engine.events_doc import events_markdown
    path = ROOT / "docs" / "events.md"
    assert path.read_text(encoding="utf-8") == events_markdown(), \
        "python -m nivel_env.engine.events_doc > docs/events.md"
    assert all(f"| `{kind}` |" in events_markdown() for kind in EVENTS)


def test_records_pickle_as_themselves():
    import pickle
    g, _ = _random_game("ember-rush", "stone-bastion", 1)
    assert pickle.loads(pickle.dumps(g.events)) == g.events
