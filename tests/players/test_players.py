"""The player protocol (nivel_env.players): asking one player for a move or a batch of
moves, reseeding, loading by spec -- and that nivel_env never imports the agents package,
which it reaches only through players.load."""
from __future__ import annotations

import ast
import copy
from pathlib import Path

import numpy as np
import pytest

from nivel_env import players
from nivel_env.cards import list_decks, load_deck
from nivel_env.engine import N_ACTIONS, new_game
from nivel_env.engine.errors import IllegalActionError
from nivel_env.env.encoder import Encoder
from nivel_env.env.vector import GameBatch
from conftest import ROOT


def _game(seed: int = 3):
    d = list_decks()
    return new_game(load_deck(d[0]), load_deck(d[1]), seed=seed)


class _Reader:
    """Records what it is passed; plays the first legal move (or ``answer``)."""

    def __init__(self, answer=None):
        self.seen, self.answer = [], answer

    def act(self, obs, mask):
        self.seen.append((obs, np.asarray(mask).copy()))
        return int(np.flatnonzero(mask)[0]) if self.answer is None else self.answer


class _Blind(_Reader):
    needs_observation = False


class _Search:
    needs_state = True
    needs_observation = False

    def __init__(self):
        self.games = []

    def act_state(self, game):
        self.games.append(game)
        return int(game.legal_actions()[-1])

    def act(self, obs, mask):                       # never asked: it reads the game
        raise AssertionError("a search is asked act_state")


class _Batched(_Reader):
    def __init__(self):
        super().__init__()
        self.batches = 0

    def act_batch(self, obs, masks):
        self.batches += 1
        return np.array([np.flatnonzero(m)[0] for m in masks])


def test_ask_encodes_only_for_a_player_that_reads_the_observation():
    g = _game()
    legal = g.legal_actions()
    reader, blind = _Reader(), _Blind()
    assert players.ask(reader, g, legal=legal) == legal[0]
    obs, mask = reader.seen[0]
    assert np.array_equal(obs, Encoder(g.db).encode(g, g.current_player, legal))
    assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == sorted(legal)
    players.ask(blind, g)
    assert blind.seen[0][0] is None
    given = np.zeros(3, dtype=np.float32)
    players.ask(reader, g, observation=given)
    assert reader.seen[1][0] is given


def test_ask_gives_a_search_the_game_and_refuses_a_float_answer():
    g = _game()
    s = _Search()
    assert players.ask(s, g) == g.legal_actions()[-1] and s.games == [g]
    with pytest.raises(IllegalActionError, match="_Reader's move.*integer id.*0.7"):
        players.ask(_Reader(answer=0.7), g)
    with pytest.raises(IllegalActionError, match="got bool True"):
        players.ask(_Reader(answer=True), g)


def test_ask_batch_one_call_for_a_policy_rows_otherwise():
    b = GameBatch(3, seat=0)
    b.reset(seed=4)
    batched, reader, blind = _Batched(), _Reader(), _Blind()
    first = [int(np.flatnonzero(m)[0]) for m in b.mask]
    assert players.ask_batch(batched, b.obs, b.mask).tolist() == first
    assert batched.batches == 1 and not batched.seen
    got = players.ask_batch(reader, b.obs, b.mask)
    assert got.dtype == np.int64 and got.tolist() == first
    assert all(np.array_equal(o, b.obs[k]) for k, (o, _m) in enumerate(reader.seen))
    players.ask_batch(blind, b.obs, b.mask)
    assert all(o is None for o, _m in blind.seen)
    s = _Search()
    assert players.ask_batch(s, b.obs, b.mask, b.games).tolist() == \
        [g.legal_actions()[-1] for g in b.games]
    with pytest.raises(TypeError, match="give the games"):
        players.ask_batch(s, b.obs, b.mask)
    with pytest.raises(IllegalActionError, match="row 0"):
        players.ask_batch(_Reader(answer=1.0), b.obs, b.mask)


def test_reseed_keeps_the_stream_a_caller_set_by_hand():
    a = players.RandomAgent(0)
    players.reseed(a, 11)
    assert a.rng.random() == np.random.default_rng(11).random()
    gen = np.random.default_rng(5)
    players.reseed(a, gen)
    assert a.rng is gen                           # a generator goes on where it stands

    class Own:
        def reseed(self, seed):
            self.got = seed
    o = Own()
    players.reseed(o, [1, 2])
    assert o.got == [1, 2]
    players.reseed(object(), 3)                   # no randomness: nothing to set


def test_load_finds_agents_through_the_loader_and_names_an_unknown_spec():
    pytest.importorskip("agents")
    assert type(players.load("random", seed=1)) is players.RandomAgent
    assert "novice" in players.levels() and "heuristic" in players.names()
    with pytest.raises(players.UnknownPlayer, match="'grandmaster'"):
        players.load("grandmaster")
    with pytest.raises(ValueError, match="random_share"):      # bad settings go on as they are
        players.load("heuristic:random_share=lots")


def test_registered_loaders_come_first_and_declining_passes_on():
    mine = _Blind()

    def known(spec, **kw):
        return mine if spec == "mine" else None
    players.register(known)
    try:
        assert players.load("mine") is mine
        with pytest.raises(players.UnknownPlayer, match="no loader knows 'nobody'.*known does "
                                                        "not know it"):
            players.load("nobody")
    finally:
        players.unregister(known)
    with pytest.raises(TypeError, match="callable"):
        players.register("agents.opponents:PLAYERS")


def test_load_without_any_loader_says_what_to_install(monkeypatch):
    monkeypatch.setattr(players, "_installed", lambda: ())
    with pytest.raises(players.UnknownPlayer, match="no player loader is installed to load "
                                                    "'heuristic'"):
        players.load("heuristic")
    assert players.levels() == {} and players.names() == {}


def _agents_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        found += [f"{path.name}:{node.lineno} imports {n}" for n in names
                  if n == "agents" or n.startswith("agents.")]
    return found


def test_nivel_env_never_imports_agents(tmp_path):
    bad = tmp_path / "bad.py"                    # the walker can fail: a function-local one
    bad.write_text("import agents.policy\ndef f():\n    from agents import opponents\n"
                   "from .agents import x\n")
    assert _agents_imports(bad) == ["bad.py:1 imports agents.policy",
                                    "bad.py:3 imports agents"]
    found = [hit for p in sorted((ROOT / "nivel_env").rglob("*.py"))
             for hit in _agents_imports(p)]
    assert found == []


# --------------------------------------------------------- GameBatch's front door
@pytest.mark.parametrize("bad,says", [(0.7, "integer id.*got float 0.7"),
                                      (-1, "action -1 is out of range"),
                                      (N_ACTIONS, f"action {N_ACTIONS} is out of range"),
                                      (True, "integer id.*got bool True"),
                                      (np.float64(2.0), "integer id.*got float64"),
                                      ("illegal", r"action \d+ \(.*\) is not legal now")])
def test_a_batch_refuses_what_the_aec_env_refuses_and_moves_nothing(bad, says):
    """0.7 is not action 0: GameBatch checks each row's id with the engine's rule
    (``engine.errors.action_id``, what the AEC and Gym envs call, in the same words), then
    legality, before any game moves."""
    b = GameBatch(2, seat=0)
    b.reset(seed=9)
    before = ([g.to_dict() for g in b.games], b.obs.copy(), b.mask.copy())
    acts = [int(np.flatnonzero(m)[0]) for m in b.mask]
    if bad == "illegal":
        bad = int(np.flatnonzero(~b.mask[1])[0])
    acts[1] = bad
    with pytest.raises(IllegalActionError, match=says) as e:
        b.step(copy.copy(acts))
    assert "game 1" in str(e.value)
    assert [g.to_dict() for g in b.games] == before[0]
    assert np.array_equal(b.obs, before[1]) and np.array_equal(b.mask, before[2])
    if isinstance(bad, (float, bool, np.floating)):        # the AEC env's own words
        from nivel_env import nivel_arena_v0
        aec = nivel_arena_v0.env()
        aec.reset(seed=9)
        with pytest.raises(IllegalActionError) as a:
            aec.step(bad)
        tail = str(a.value).split(": ", 1)[1]
        assert tail in str(e.value)


def test_the_screens_learn_which_players_need_torch_from_the_loader():
    """A player built in code that reads no network is offered without torch; the browser
    asks ``players.torch_free`` instead of naming random and heuristic itself."""
    from agents.opponents import BY_NAME, Kind
    from nivel_env.web.app import needs_torch
    assert {"random", "heuristic"} <= players.torch_free()
    assert not needs_torch("heuristic:random_share=0.2") and needs_torch("nv2-ppo")
    assert needs_torch("expert")                      # a level is read through its spec
    BY_NAME["rusher"] = Kind(BY_NAME["random"].build, {}, "rushes")
    try:
        assert not needs_torch("rusher")
        BY_NAME["rusher"] = Kind(BY_NAME["random"].build, {}, "a net", needs_torch=True)
        assert needs_torch("rusher")
    finally:
        del BY_NAME["rusher"]
