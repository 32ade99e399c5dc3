"""The conformance suite (nivel_env.checks) on the bundled pool and the test pool,
and proof that each check fails when what it guards is broken."""
import pytest

from nivel_env.cards import list_decks, load_deck
from nivel_env.checks import (determinism_errors, hidden_info_errors, invariant_errors,
                              mask_errors, play_checked, replay_game, run_checks, summary)
from nivel_env.engine import RuleConfig, new_game
from conftest import TEST_DATA, TEST_POOL


@pytest.fixture(scope="module")
def all_decks(db):
    """The eight bundled decks and the two test decks (whose pool has every keyword)."""
    return [load_deck(n, db) for n in list_decks()] + \
        [load_deck(TEST_DATA / f, db) for f in ("test-blaze.deck", "test-tide.deck")]


def _ok(results):
    assert all(r.failures == 0 for r in results), summary(results)
    return {r.name: r for r in results}


# Each check runs briefly in the fast tier (every layer on every run) and at length in
# the slow tier (python -m pytest --all).

@pytest.mark.parametrize("games", [pytest.param(2000, marks=pytest.mark.slow), 200])
def test_soak_every_invariant_every_decision(all_decks, games):
    r = _ok(run_checks(all_decks, seed=0, card_files=[TEST_POOL], checks=["soak"],
                       counts={"soak": games}, progress=False))
    assert r["soak"].games == games and r["soak"].positions > games * 100


@pytest.mark.parametrize("games", [pytest.param(300, marks=pytest.mark.slow), 30])
def test_soak_with_automatic_effect_order(all_decks, games):
    cfg = RuleConfig(choose_effect_order=False)
    _ok(run_checks(all_decks, seed=50_000, config=cfg, card_files=[TEST_POOL],
                   checks=["soak"], counts={"soak": games}, progress=False))


@pytest.mark.parametrize("games", [pytest.param(200, marks=pytest.mark.slow), 12])
def test_mask_sound_and_complete(all_decks, games):
    r = _ok(run_checks(all_decks, seed=1, card_files=[TEST_POOL], checks=["mask"],
                       counts={"mask": games}, progress=False))
    assert r["mask"].positions > games * 100


@pytest.mark.parametrize("games", [pytest.param((10, 120), marks=pytest.mark.slow), (2, 16)])
def test_determinism_and_hidden_information(all_decks, games):
    r = _ok(run_checks(all_decks, seed=2, card_files=[TEST_POOL],
                       checks=["determinism", "hidden"],
                       counts={"determinism": games[0], "hidden": games[1]}, progress=False))
    assert r["hidden"].positions > games[1] * 25 and r["determinism"].positions > games[0] * 50


@pytest.mark.slow
def test_narration_and_agents_hold_hidden_information_at_length(all_decks, tmp_path):
    """The narration check over the bundled and test decks and over decks carrying cards
    that move hand and deck cards without a card condition; the agents check on the
    shipped search (the fast versions are in tests/checks/test_hidden_info.py)."""
    from test_hidden_info import MOVES
    from nivel_env.cli_check import decks_with_cards
    f = tmp_path / "moves.yaml"
    f.write_text(MOVES, encoding="utf-8")
    from nivel_env.cards import load_card_db
    from nivel_env.cards.db import bundled_card_files
    mdb = load_card_db(bundled_card_files() + [TEST_POOL, f])
    base = [load_deck(n, mdb) for n in list_decks()]
    moving = decks_with_cards(base, [mdb.get(c) for c in ("HN-01", "HN-02", "HN-03")])
    r = _ok(run_checks(all_decks, seed=3, card_files=[TEST_POOL],
                       checks=["narration", "agents"], counts={"narration": 60, "agents": 4},
                       progress=False))
    assert r["narration"].positions > 60 * 20
    assert r["agents"].skipped or r["agents"].positions > 4 * 5
    r = _ok(run_checks(moving, seed=4, card_files=[TEST_POOL, f], checks=["narration"],
                       counts={"narration": 60}, progress=False))
    assert r["narration"].comparisons > 60 * 200


# ------------------------------------------------------- the checks can fail

def _game(all_decks, seed=3, steps=60):
    """A live game after ``steps`` decisions of a player who plays when it can, on the
    Python engine: the planted faults below patch its internals and edit its lists."""
    from nivel_env.checks.policies import always_play
    g = new_game(all_decks[0], all_decks[1], seed=seed, backend="python")
    for i in range(steps):
        g.apply_action(always_play(g, g.legal_actions(), i * 7))
    assert not g.is_terminal()
    return g


def test_invariants_catch_lost_and_duplicated_cards(all_decks):
    g = _game(all_decks)
    assert invariant_errors(g) == []
    lost = g.clone()
    lost.hand[0].pop()
    assert any("lost or duplicated" in e for e in invariant_errors(lost))
    dup = g.clone()
    dup.trash[1].append(dup.deck[1][0])
    assert any("in both" in e or "location says" in e for e in invariant_errors(dup))


def test_invariants_catch_a_zero_power_unit_and_a_missed_loss(all_decks, monkeypatch):
    g = _game(all_decks, steps=120)
    assert any(u >= 0 for u in g.unit)
    from nivel_env.checks import invariants
    from nivel_env.engine.view import Derived
    monkeypatch.setattr(invariants, "derived", lambda g: Derived(*[[0] * 6] * 5, [0, 0]))
    assert any("power 0" in e for e in invariant_errors(g))
    monkeypatch.undo()
    h = g.clone()
    h.damage[0].extend(h.deck[0][:10 - len(h.damage[0])])
    assert any("damage and the game goes on" in e for e in invariant_errors(h))


def test_mask_check_catches_unsound_and_incomplete_masks(all_decks, monkeypatch):
    from nivel_env.engine import state
    g = _game(all_decks)
    assert mask_errors(g) == []
    real = state.apply_action
    first = g.legal_actions()[0]

    def broken(game, a):                          # a listed action that cannot be applied
        if a == first:
            raise KeyError("boom")
        return real(game, a)
    monkeypatch.setattr(state, "apply_action", broken)        # what Game.apply_action runs
    assert any("raised KeyError" in e for e in mask_errors(g))
    monkeypatch.undo()
    g = _game(all_decks)
    illegal = next(a for a in range(300) if a not in g.legal_actions())
    checked = state.Game.apply_action

    def lax(self, a):                             # one unlisted action gets through
        return None if a == illegal else checked(self, a)
    monkeypatch.setattr(state.Game, "apply_action", lax)
    assert f"illegal action {illegal} was accepted" in mask_errors(g)


def test_hidden_check_catches_a_leaked_hand_card(all_decks, monkeypatch):
    from nivel_env.env import encoder
    assert hidden_info_errors(all_decks[0], all_decks[1], seed=4)[0] == []
    real = encoder.Encoder.encode

    def leaky(self, g, p, legal=None):
        out = real(self, g, p, legal)
        if g.hand[1 - p]:
            out[0] = g.defs[g.hand[1 - p][0]] / 1000.0        # the opponent's first card
        return out
    monkeypatch.setattr(encoder.Encoder, "encode", leaky)
    errs, _ = hidden_info_errors(all_decks[0], all_decks[1], seed=4)
    assert any("cannot see changes their observation" in e for e in errs)


def test_determinism_check_catches_a_lossy_round_trip(all_decks, monkeypatch):
    from nivel_env.engine import state
    real = state.Game.from_dict.__func__

    def lossy(cls, d, db=None):
        g = real(cls, d, db)
        g.rng = 12345                                        # forgets the generator
        return g
    monkeypatch.setattr(state.Game, "from_dict", classmethod(lossy))
    errs, _ = determinism_errors(all_decks[2], all_decks[3], seed=5, subprocess_check=False)
    assert any("round trip" in e for e in errs)


def test_determinism_check_catches_env_copies_that_observe_wrongly(all_decks, monkeypatch):
    from nivel_env.env import encoder
    # the encoder before its copy support: a copy split its views from its buffers
    monkeypatch.delattr(encoder.Encoder, "__getstate__")
    monkeypatch.delattr(encoder.Encoder, "__setstate__")
    errs, _ = determinism_errors(all_decks[0], all_decks[4], seed=4, subprocess_check=False)
    assert any("copy.deepcopy" in e for e in errs) and any("pickle round trip" in e
                                                           for e in errs)


def test_a_failure_names_seed_decks_and_actions_and_replays(all_decks, monkeypatch):
    from nivel_env.checks import soak
    monkeypatch.setattr(soak, "invariant_errors",
                        lambda g, *a: ["planted"] if g.turn >= 3 else [])
    rec = play_checked(all_decks[0], all_decks[4], seed=9, policies=("attack", "play"))
    assert not rec.ok and rec.errors == ["planted"]
    text = rec.describe()
    assert "seed 9" in text and all_decks[0].name in text and str(rec.actions) in text
    g = replay_game(all_decks[0], all_decks[4], 9, rec.actions)
    assert g.turn == 3


# ------------------------------------------------------------------ the command

def test_check_command_on_bundled_and_own_cards(capsys, tmp_path):
    from nivel_env.__main__ import main
    from nivel_env.checks import CHECKS
    assert main(["check", "--games", "30", "--no-progress", "--workers", "1", "--checks",
                 *[c for c in CHECKS if c != "agents"]]) == 0      # agents: the next test
    out = capsys.readouterr().out
    assert "all checks passed" in out and "soak" in out and "hidden" in out
    assert "narration: " in out and " comparisons of the lines told to a seat" in out
    assert main(["check", "--games", "20", "--no-progress", "--workers", "2",
                 "--cards", str(TEST_POOL), "--checks", "soak", "mask"]) == 0
    out = capsys.readouterr().out
    assert "+new" in out and "determinism" not in out.split("seed 0")[1]
    bad = tmp_path / "bad.deck"
    bad.write_text("leader: NOPE-1\n40 FI-01\n")
    assert main(["check", "--decks", str(bad), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "NOPE-1" in err
    assert main(["check", "--checks", "speed", "--no-progress"]) == 2


def test_check_command_holds_agents_that_read_the_game_to_hidden_information(capsys):
    """The agents check runs by default (the shipped search at a small budget) and on the
    agents named; one that reads only the observation, or no torch, skips it saying why;
    an unknown agent is refused."""
    from nivel_env.__main__ import main
    from nivel_env.checks import CHECKS, plan
    assert "agents" in CHECKS and "narration" in CHECKS and plan(1000)["agents"] == 2
    pytest.importorskip("torch")
    assert main(["check", "--games", "1", "--no-progress", "--checks", "agents",
                 "--agents", "nv1-ppo:simulations=4,worlds=2"]) == 0
    out = capsys.readouterr().out
    assert "agents: " in out and "comparisons of the move an agent" in out
    assert "all checks passed" in out
    assert main(["check", "--games", "1", "--no-progress", "--checks", "agents",
                 "--agents", "heuristic"]) == 0
    assert "agents       skipped: heuristic read(s) the observation" in capsys.readouterr().out
    assert main(["check", "--games", "1", "--no-progress", "--checks", "agents",
                 "--agents", "no-such-agent"]) == 2
    assert "--agents" in capsys.readouterr().err


def test_decks_with_cards_carry_every_new_card(db):
    from nivel_env.cli_check import decks_with_cards
    from nivel_env.cards.db import read_card_file
    base = [load_deck(n, db) for n in list_decks()]
    new = [db.get(c.id) for c in read_card_file(TEST_POOL)]
    mixed = decks_with_cards(base, new)
    used = {c.id for d in mixed for c in d.cards} | {d.leader.id for d in mixed}
    assert {c.id for c in new} <= used
    assert all(len(d.cards) == 40 for d in mixed)
    assert new_game(mixed[0], mixed[1], seed=0).legal_actions()


EXTREME_CARDS = """
cards:
  - {id: XT-01, type: unit, name: Colossus, name_ko: 거신, cost: 1, power: 50, hit: 10,
     attribute: fire, affiliation: [giant], keywords: [{pierce: 10}, {plunder: 10}]}
  - id: XT-02
    type: unit
    name: Warlord
    name_ko: 전쟁군주
    cost: 1
    power: 50
    hit: 10
    attribute: fire
    affiliation: [giant]
    abilities:
      - when: passive
        do: [{modify: {target: {who: you, zone: unit, all: true}, power: 20, hit: 20}}]
      - when: entry
        do: [{modify: {target: {who: you, zone: unit, all: true}, power: 20, hit: 20}}]
"""


def test_observations_stay_in_bounds_for_extreme_custom_cards(tmp_path):
    """Custom cards at the schema's limits (power 50, hit 10, +20 buffs that stack) once
    produced values of 20 and more in a Box(-10, 10); the soak now checks the bounds."""
    import numpy as np

    from nivel_env.cards import load_card_db
    from nivel_env.cards.db import bundled_card_files, read_card_file
    from nivel_env.checks import soak
    from nivel_env.cli_check import decks_with_cards
    from nivel_env.env.encoder import OBS_HIGH, OBS_LOW, Encoder
    f = tmp_path / "extreme.yaml"
    f.write_text(EXTREME_CARDS, encoding="utf-8")
    db = load_card_db(bundled_card_files() + [f])
    new = [db.get(c.id) for c in read_card_file(f)]
    decks = decks_with_cards([load_deck(n, db) for n in list_decks()[:2]], new)
    peak = 0.0
    for s in range(6):
        rec = soak.play_checked(decks[s % 2], decks[1 - s % 2], s, ("play", "attack"),
                                check_observations=True)
        assert rec.ok, rec.describe()
        assert rec.observations_checked > 3
        g = soak.replay_game(decks[s % 2], decks[1 - s % 2], s, rec.actions[:len(rec.actions) // 2])
        for p in (0, 1):
            v = Encoder(db).encode(g, p)
            assert OBS_LOW <= v.min() and v.max() <= OBS_HIGH
            peak = max(peak, float(np.abs(v).max()))
    assert peak >= 2.0            # the cards do push values past the bundled pool's range


def test_soak_catches_observations_out_of_bounds(all_decks, monkeypatch):
    from nivel_env.checks import soak
    from nivel_env.env import encoder
    real = encoder.Encoder.encode

    def loose(self, g, p, legal=None):
        v = real(self, g, p, legal)
        v[3] = 20.5                                   # what an unclipped value looked like
        return v
    monkeypatch.setattr(encoder.Encoder, "encode", loose)
    rec = soak.play_checked(all_decks[0], all_decks[1], 1, check_observations=True)
    assert not rec.ok and "outside [-10.0, 10.0]" in rec.errors[0]


def test_biased_soak_players_do_what_they_are_named_for(all_decks):
    r = run_checks(all_decks[:8], seed=0, checks=["soak"], counts={"soak": 64},
                   progress=False)[0]
    cov = r.coverage
    for pol in ("random", "play", "attack", "no-defense"):
        assert cov.get((pol, "plays"), 0) > 0 and cov.get((pol, "attacks"), 0) > 0, pol
    assert cov[("attack", "attacks")] > cov[("random", "attacks")]
    assert cov[("play", "plays")] > cov[("random", "plays")]
    assert cov.get(("no-defense", "Guardian payments"), 0) == 0
    assert sum(v for (p, w), v in cov.items() if w == "triggers") > 0
    assert "attacks" in summary([r]) and "triggers" in summary([r])


@pytest.mark.parametrize("field", ["turn", "hand", "log"])
def test_mask_check_sees_a_refused_action_that_changed_the_game(all_decks, monkeypatch, field):
    """The check compares the saved state cheaply (``state_snapshot``), not by
    ``to_dict()``: a refusal that moves a number, a card or writes an event is still named."""
    from nivel_env.engine import IllegalActionError, state
    from nivel_env.engine.events import Surrender
    g = _game(all_decks)
    illegal = next(a for a in range(300) if a not in g.legal_actions())
    checked = state.Game.apply_action

    def leaky(self, a):                           # refuses, but not before touching the game
        if a == illegal:
            if field == "turn":
                self.turn += 1
            elif field == "hand":
                self.hand[0] = self.hand[0][1:]
            else:
                self.log.append(Surrender(0))
            raise IllegalActionError("no")
        return checked(self, a)
    monkeypatch.setattr(state.Game, "apply_action", leaky)
    assert "trying illegal actions changed the game" in mask_errors(g)
