"""The differential check (nivel_env/checks/differential.py): the Python backend against
itself passes; a wrong game planted beside it -- one event field changed, two legal actions
swapped, a different card drawn, a changed observation, a clone that loses an event -- is
caught, and the message names the seed, the decision, the replayable actions and the
difference."""
from __future__ import annotations

import ast
import re

import pytest

import conftest
from conftest import TEST_DATA
from nivel_env.cards import list_decks, load_card_db, load_deck
from nivel_env.checks import differential as D
from nivel_env.engine import new_game

CASES = TEST_DATA.parent / "cards"


class Planted:
    """A Python ``Game`` behind a wrapper that plants one ``fault`` once ``after`` actions
    were applied: ``event`` (the last event's first field, as ``to_dict`` shows it),
    ``swap`` (the first two legal actions change places), ``draw`` (two different cards
    of the deck to move change places, so another card is drawn), ``obs`` (the levels an
    encoder reads are one higher; the state is untouched) or ``clone`` (a clone loses its
    last event).  Everything else goes through to the game, writes included (the encoder
    brings derived stats up to date on the game it is handed)."""
    _OWN = ("inner", "fault", "after", "moves")

    def __init__(self, inner, fault: str, after: int, moves: int = 0):
        for k, v in zip(self._OWN, (inner, fault, after, moves)):
            object.__setattr__(self, k, v)

    def __getattr__(self, name):
        if name in Planted._OWN:
            raise AttributeError(name)
        if name == "level" and self.fault == "obs" and self.moves >= self.after:
            return [x + 1 for x in self.inner.level]
        return getattr(self.inner, name)

    def __setattr__(self, name, value):
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self.inner, name, value)

    @property
    def current_player(self):
        return self.inner.current_player

    @property
    def decision_name(self):
        return self.inner.decision_name

    def is_terminal(self):
        return self.inner.is_terminal()

    def returns(self):
        return self.inner.returns()

    def legal_actions(self):
        legal = list(self.inner.legal_actions())
        if self.fault == "swap" and self.moves >= self.after and len(legal) > 1:
            legal[0], legal[1] = legal[1], legal[0]
        return legal

    def apply_action(self, a):
        self.inner.apply_action(a)
        self.moves += 1
        if self.fault == "draw" and self.moves == self.after:
            g = self.inner
            deck = g.deck[g.current_player]
            j = next((j for j in range(1, len(deck)) if g.defs[deck[j]] != g.defs[deck[0]]),
                     None)
            if j is not None:
                deck[0], deck[j] = deck[j], deck[0]
                g._legal = None

    def to_dict(self):
        d = self.inner.to_dict()
        if self.fault == "event" and self.moves >= self.after:
            last = dict(d["log"][-1])
            k = next(k for k in last if k != "kind")
            last[k] = "planted"
            d["log"][-1] = last
        return d

    def clone(self):
        c = Planted(self.inner.clone(), self.fault, self.after, self.moves)
        if self.fault == "clone" and self.moves >= self.after:
            c.inner.log = c.inner.log[:-1]
        return c


def planted(fault: str, after: int):
    """A factory: the "python" backend plays the real game, "wrong" the planted one."""
    def factory(backend, deck_0, deck_1, seed, config, db):
        g = new_game(deck_0, deck_1, seed=seed, config=config, db=db, backend="python")
        return Planted(g, fault, after) if backend == "wrong" else g
    return factory


@pytest.fixture(scope="module")
def pools():
    return D.default_pools()


@pytest.fixture(scope="module")
def small():
    db = conftest.test_db()
    return [("test", [load_deck(TEST_DATA / "test-blaze.deck", db),
                      load_deck(TEST_DATA / "test-tide.deck", db)])]


def test_python_against_itself_agrees_over_every_pool(pools):
    """Two games of each pool, both player kinds, observations at every decision, clones
    and a pickle round trip in each game: no difference, and the summary says what ran."""
    assert [name for name, _ in pools] == ["bundled", "test", "cards(tests/cards)"]
    r = D.differential_errors(6, seed=11, backends=("python", "python"), pools=pools,
                              clone_every=20, stop_at=99)
    assert r.errors == [] and r.games == 6 and r.decisions > 300
    assert r.pickles == 6 and r.clones >= 6
    assert r.observations == 2 * len(D.LAYOUTS) * (r.decisions + r.games)
    s = r.summary()
    assert "6 games" in s and "at every decision" in s and "0 differences" in s
    assert re.search(r"\d+ of \d+ distinct deck cards seen played", s)
    assert len(r.played) >= 20
    r8 = D.differential_errors(3, seed=11, backends=("python", "python"), pools=pools,
                               obs_every=8)
    assert r8.errors == [] and "every 8th decision" in r8.summary()
    assert r8.observations < r.observations


@pytest.mark.parametrize("fault, after, what", [
    ("event", 9, r"state \(to_dict\) log\[\d+\]\.\w+: .* != 'planted'"),
    ("swap", 5, r"legal_actions\(\): \[(\d+), (\d+)(, \d+)*\] != \[\2, \1"),
    ("draw", 12, r"state \(to_dict\) deck\[[01]\]\[0\]: \d+ != \d+"),
    ("obs", 20, r"seat 0's full observation: index \d+ \(block \w+\[\d+\]\)"),
    ("clone", 0, r"a wrong clone differs from its original: state \(to_dict\) log: length"),
])
def test_a_planted_fault_is_caught_and_named(small, fault, after, what):
    r = D.differential_errors(4, seed=5, backends=("python", "wrong"),
                              factory=planted(fault, after), pools=small, clone_every=10)
    assert r.games == 1 and len(r.errors) == 1, r.summary()
    msg = r.errors[0]
    m = re.match(r"pool test, decks (Test \w+) vs (Test \w+), seed 5, uniform players, "
                 r"python vs wrong: decision (\d+)(?: \([^)]*\))?: (.*); actions so far "
                 r"(\[[\d, ]*\])$", msg)
    assert m, msg
    decision, diff, actions = int(m[3]), m[4], ast.literal_eval(m[5])
    assert re.search(what, diff), msg
    assert len(actions) == decision
    expected = {"event": after, "swap": after, "draw": after, "obs": after, "clone": 10}
    assert decision == expected[fault], msg
    # the actions replay it: the same two games at the same decision differ again
    # (the clone fault shows only on a clone)
    spec = next(D.schedule(small, 1, seed=5))
    g = D.replay(spec, actions, "python", planted(fault, after))
    h = D.replay(spec, actions, "wrong", planted(fault, after))
    if fault in ("event", "swap", "draw"):
        assert D.game_difference(g, h) is not None
    elif fault == "obs":
        envs = [D.seat_envs(spec) for _ in range(2)]
        assert D.observation_difference(envs, g, h)
    else:
        assert D.game_difference(h, h.clone()) is not None


def test_workers_share_the_games_and_sum_to_the_same_run(small):
    """Two worker processes play the same games as one process: the same totals."""
    one = D.differential_errors(4, seed=2, backends=("python", "python"), obs_every=8)
    two = D.differential_errors(4, seed=2, backends=("python", "python"), obs_every=8,
                                workers=2)
    assert two.errors == [] and two.games == 4
    assert [(r.decisions, r.observations, r.clones, r.pickles, r.played) for r in (one, two)]\
        == [(one.decisions, one.observations, one.clones, one.pickles, one.played)] * 2
    with pytest.raises(ValueError, match="default pools"):
        D.differential_errors(2, backends=("python", "python"), pools=small, workers=2)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_state_difference_between_engine_games_is_named_even_of_type_only(backend):
    """The engines' own games are compared on their raw fields first (a cheap exact
    test); a difference, even 1 for True, still comes out named."""
    if backend == "native":
        pytest.importorskip("nivel_env.native._core")
    names = list_decks()
    g = new_game(load_deck(names[0]), load_deck(names[1]), seed=3, backend="python")
    for i in range(30):
        g.apply_action(g.legal_actions()[i % len(g.legal_actions())])
    h = g.clone()
    assert D.game_difference(g, h, events_from=len(g.events)) is None
    h.hand = [g.hand[0][::-1], g.hand[1]]
    if backend == "native":
        from nivel_env.native import from_python
        h = from_python(h)
        assert D.game_difference(g, from_python(g), events_from=0) is None
    assert "hand" in D.game_difference(g, h, events_from=len(g.events))
    t = g.clone()
    t.awake = [int(x) for x in g.awake]            # the same numbers, not booleans
    assert t.awake == g.awake and D.game_difference(g, t, events_from=len(g.events))


def test_first_difference_names_the_key_path():
    a = {"hand": [[1], [5, 6, 7, 17]], "log": [{"kind": "draw", "card": "FI-02"}]}
    b = {"hand": [[1], [5, 6, 7, 23]], "log": [{"kind": "draw", "card": "FI-02"}]}
    assert D.first_difference(a, b) == "hand[1][3]: 17 != 23"
    b = {"hand": a["hand"], "log": [{"kind": "draw", "card": "FI-03"}]}
    assert D.first_difference(a, b) == "log[0].card: 'FI-02' != 'FI-03'"
    assert D.first_difference({"x": [1, 2]}, {"x": [1]}) == "x: length 2 != 1"
    assert D.first_difference({"x": True}, {"x": 1}) == "x: True != 1"
    assert D.first_difference(a, a) is None


def test_the_card_pool_decks_hold_every_card_the_scenario_files_name():
    db = load_card_db()
    ids = D.case_card_ids(CASES)
    assert len(ids) >= 150 and "FI-02" in ids
    decks = D.decks_of_cards(db, ids)
    in_decks = {c.id for d in decks for c in d.cards} | {d.leader.id for d in decks}
    leaders = {i for i in ids if db.get(i).type == "leader"}
    assert set(ids) - leaders <= in_decks
    assert all(1 <= len(d.cards) <= 40 for d in decks)


def test_the_players_are_seeded_and_the_biased_one_prefers_to_act():
    from nivel_env.engine import actions as A
    from nivel_env.engine.rng import seed_state
    legal = [A.PASS] + [A.play_id(s, 0) for s in range(3)]
    picks = {k: [] for k in D.PLAYER_KINDS}
    for k in D.PLAYER_KINDS:
        st = seed_state(3)
        for _ in range(400):
            st, a = D.choose(k, legal, st)
            picks[k].append(a)
    assert picks["uniform"].count(A.PASS) > 60
    assert picks["biased"].count(A.PASS) < 50
    st = seed_state(3)
    assert [D.choose("biased", legal, st)[1] for _ in range(3)] == [picks["biased"][0]] * 3


def test_schedule_covers_every_pool_pair_and_player_kind():
    db = load_card_db()
    decks = [load_deck(n, db) for n in list_decks()[:2]]
    specs = list(D.schedule([("a", decks), ("b", decks[:1])], 16, seed=100))
    assert [s.seed for s in specs] == list(range(100, 116))
    a = {(s.deck_0.name, s.deck_1.name, s.player) for s in specs if s.pool == "a"}
    assert len(a) == 8                       # 4 ordered pairs x 2 kinds
    assert {s.player for s in specs if s.pool == "b"} == set(D.PLAYER_KINDS)


@pytest.mark.skipif(D.native_missing() is None, reason="the native core is built here")
def test_without_a_native_core_the_cli_refuses_to_run_the_native_side(capsys):
    from nivel_env.__main__ import main
    assert main(["check", "--backend", "both", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot run the native side" in err and D.native_missing() in err
    assert main(["check", "--backend", "native", "--games", "2", "--no-progress"]) == 2
    assert "--backend native cannot run" in capsys.readouterr().err
    with pytest.raises(D.NativeUnavailable):
        D.new_game_on("native", *load_deck_pair())


def load_deck_pair():
    db = load_card_db()
    d = load_deck(list_decks()[0], db)
    return d, d, 0


def test_the_cli_runs_the_other_checks_on_the_python_backend(capsys, monkeypatch):
    from nivel_env.__main__ import main
    monkeypatch.delenv("NIVEL_BACKEND", raising=False)
    assert main(["check", "--backend", "python", "--games", "2", "--no-progress",
                 "--workers", "1", "--checks", "soak"]) == 0
    import os
    assert os.environ["NIVEL_BACKEND"] == "python"
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.skipif(D.native_missing() is not None,
                    reason=f"no native core: {D.native_missing()}")
def test_native_against_python_short(pools):
    """The fast tier's short version: two games of each pool, everything compared at
    every decision."""
    r = D.differential_errors(6, seed=0, backends=("python", "native"), pools=pools)
    assert r.games == 6 and r.errors == [], r.errors


@pytest.mark.slow
@pytest.mark.skipif(D.native_missing() is not None,
                    reason=f"no native core: {D.native_missing()}")
def test_native_against_python_over_5000_games():
    r = D.differential_errors(5000, seed=0, backends=("python", "native"), obs_every=20,
                              workers=2)
    print(r.summary())
    assert r.games == 5000 and r.errors == [], r.errors
