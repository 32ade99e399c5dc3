"""Batched training data is never silently wrong (issue 28 section 4).

Each test here failed before its fix: a float action was truncated into another move, a
scalar was broadcast to every game, a bad action in game k left games 0..k-1 moved, an
opponent that raised or cheated left the learner's moves applied and the next step was
taken in games waiting on the opponent, and a dead worker gave a bare BrokenPipeError."""
import math
import re

import numpy as np
import pytest

from nivel_env.engine import IllegalActionError
from nivel_env.engine.render import action_meaning
from nivel_env.env.single import OpponentError
from nivel_env.env.vector import GameBatch


def _states(games):
    return [g.to_dict() for g in games]


def _first_legal(masks):
    return np.array([np.flatnonzero(m)[0] for m in masks], dtype=np.int64)


def _bad_batches(acts):
    """Action batches of 3 games that must be refused, each with what the error says (a
    regex): an id in the engine's words (``engine.errors.action_id``), or the count."""
    one = r"an action is an integer id 0\.\.336 \(a Python or numpy integer\), got"
    return [
        (acts + 0.7, f"{one} a float64 array"),           # used to play acts
        (acts.astype(np.float64), "float64 array"),       # integer-valued floats: as the AEC
        (acts.astype(np.float32), "float32 array"),
        ([int(a) for a in acts[:2]] + [float(acts[2])], f"game 2: {one} float"),
        ([int(a) for a in acts[:2]] + [True], f"game 2: {one} bool"),
        (np.array([True, False, True]), "bool array"),
        (acts.astype(str), "<U"),
        ([str(a) for a in acts], f"game 0: {one} str"),
        (int(acts[0]), "one action per game \\(3\\), got one int .* for the whole batch"),
        (np.int64(acts[0]), "for the whole batch"),      # used to be broadcast
        (acts[:2], "shape"),
        (list(acts) + [0], "one action per game \\(3\\), got 4"),
        (acts.reshape(3, 1), "shape"),
        (np.array([acts[0], None, acts[2]], dtype=object), f"game 1: {one} NoneType"),
        ([int(acts[0]), math.nan, 0], f"game 1: {one} float nan"),
        ([int(acts[0]), 400, 0], "game 1: action 400 is out of range; an action is an"),
        (np.array([acts[0], -1, acts[2]]), "game 1: action -1 is out of range"),
        ([np.array([acts[0]]), acts[1], acts[2]], f"game 0: {one} ndarray"),
        (None, "for the whole batch"),
    ]


#: what every refusal of a batch says
REFUSED = "integer id|one action per game"


def test_gamebatch_refuses_anything_but_one_integer_id_per_game():
    b = GameBatch(3, seat=0)
    b.reset(seed=1)
    acts = _first_legal(b.mask)
    before, obs = _states(b.games), b.obs.copy()
    for bad, says in _bad_batches(acts):
        with pytest.raises(IllegalActionError, match=REFUSED) as e:
            b.step(bad)
        assert re.search(says, str(e.value)), (says, str(e.value))
        assert _states(b.games) == before and (b.obs == obs).all(), says
    b.step([np.int32(a) for a in acts])                   # numpy integers are ids
    assert _states(b.games) != before


def test_gamebatch_checks_the_whole_batch_before_any_game_moves():
    b = GameBatch(4, seat=0)
    b.reset(seed=2)
    acts = _first_legal(b.mask)
    acts[2] = np.flatnonzero(~b.mask[2])[0]               # game 2's move is illegal
    before, obs, mask = _states(b.games), b.obs.copy(), b.mask.copy()
    with pytest.raises(IllegalActionError, match="game 2: .*no game moved"):
        b.step(acts)
    assert _states(b.games) == before                     # games 0 and 1 used to move
    assert (b.obs == obs).all() and (b.mask == mask).all()
    with pytest.raises(ValueError, match="which must be a bool array"):
        b.step(_first_legal(b.mask), which=[0, 1, 2, 3])
    b.step(_first_legal(b.mask))
    assert GameBatch(1).broken is not None                # not dealt: step says so
    with pytest.raises(RuntimeError, match="not dealt yet; call reset"):
        GameBatch(1).step([0])


def test_gamebatch_all_or_nothing_puts_every_game_back():
    b = GameBatch(5, seat="random")
    b.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):                                   # some games end and are dealt anew
        b.step([rng.choice(np.flatnonzero(m)) for m in b.mask])
    snap = (_states(b.games), b.obs.copy(), b.mask.copy(), b.actor.copy(),
            b.learner_seat.copy(), b.episodes.copy(), list(b.last_returns),
            b.final_obs.copy())
    with pytest.raises(KeyError, match="boom"):
        with b.all_or_nothing():
            for _ in range(120):                          # ends games: new deals, final_obs
                b.step([rng.choice(np.flatnonzero(m)) for m in b.mask])
            assert b.episodes.sum() > snap[5].sum()
            raise KeyError("boom")
    now = (_states(b.games), b.obs, b.mask, b.actor, b.learner_seat, b.episodes,
           b.last_returns, b.final_obs)
    for was, got in zip(snap, now):
        assert (was == got) if isinstance(was, list) else (was == got).all()
    assert b.broken is None and not b.done.any()
    # the deal streams were put back too: the same moves now replay the same games
    c = GameBatch(5, seat="random")
    c.reset(seed=3)
    rng2 = np.random.default_rng(0)
    for _ in range(40):
        c.step([rng2.choice(np.flatnonzero(m)) for m in c.mask])
    for _ in range(60):
        acts = [rng.choice(np.flatnonzero(m)) for m in b.mask]
        b.step(acts)
        c.step(acts)
        assert (b.obs == c.obs).all() and (b.done == c.done).all()
    if b.backend == "native":
        # the native batch hands out copies: changing one changes nothing behind its back
        b.games[1].surrender(0)
        assert not b.games[1].is_terminal()
        return
    # a game changed behind the batch's back cannot be put back: said, not hidden
    b.games[1].surrender(0)
    with pytest.raises(IllegalActionError):
        with b.all_or_nothing():
            b.step(_first_legal(b.mask))
    with pytest.raises(RuntimeError, match=r"games \[1\] could not be put back.*outside"):
        b.step(_first_legal(b.mask))


def test_selfplay_refuses_bad_learner_actions_and_moves_nothing():
    pytest.importorskip("stable_baselines3")
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    venv = SelfPlayVecEnv(3, seed=4)
    venv.reset()
    acts = _first_legal(venv.action_masks())
    before, obs = _states(venv.batch.games), venv.batch.obs.copy()
    for bad, says in _bad_batches(acts):
        with pytest.raises(IllegalActionError, match=REFUSED) as e:
            venv.step(bad)
        assert re.search(says, str(e.value)), (says, str(e.value))
        assert _states(venv.batch.games) == before and (venv.batch.obs == obs).all(), says
    illegal = acts.copy()
    illegal[1] = np.flatnonzero(~venv.action_masks()[1])[0]
    with pytest.raises(IllegalActionError, match="game 1: .*no game moved"):
        venv.step(illegal)
    assert _states(venv.batch.games) == before and venv.batch.learner_to_act.all()
    venv.step(acts)
    assert _states(venv.batch.games) != before


class _Flaky:
    """Answers like a random agent, but fails on chosen calls: raises, or plays an
    illegal move, or a float."""
    needs_observation = False
    label = "flaky"

    def __init__(self, fail_on, how):
        self.calls, self.fail_on, self.how = 0, set(fail_on), how

    def act(self, obs, mask):
        self.calls += 1
        legal = np.flatnonzero(mask)
        if self.calls in self.fail_on:
            if self.how == "raise":
                raise ZeroDivisionError("opponent bug")
            if self.how == "illegal":
                return int(np.flatnonzero(np.asarray(mask) == 0)[0])
            return float(legal[0])
        return int(legal[self.calls % len(legal)])


@pytest.mark.parametrize("how,says", [("raise", "raised ZeroDivisionError: opponent bug"),
                                      ("illegal", "game .*: action .* not legal now for"),
                                      ("float", "integer id")])
def test_an_opponent_failure_moves_no_game(how, says):
    """Before: the learner's moves stood, the env went on, and the next step's actions
    were applied in games waiting on the opponent's seat."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    flaky = _Flaky(fail_on=range(30, 10_000), how=how)
    venv = SelfPlayVecEnv(4, opponents=[flaky, RandomAgent(0)], seed=5, seat=0)
    venv.reset()
    rng = np.random.default_rng(1)
    with pytest.raises(OpponentError, match=says) as e:
        for _ in range(200):
            before = (_states(venv.batch.games), venv.batch.obs.copy(),
                      venv.action_masks(), venv.member.copy(), venv.batch.episodes.copy())
            draws = venv._rng.bit_generator.state
            venv.step([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
    assert "flaky" in str(e.value) and "no game moved" in str(e.value)
    assert _states(venv.batch.games) == before[0]
    assert (venv.batch.obs == before[1]).all() and (venv.action_masks() == before[2]).all()
    assert (venv.member == before[3]).all() and (venv.batch.episodes == before[4]).all()
    assert venv._rng.bit_generator.state == draws
    assert venv.batch.learner_to_act.all()                # every game waits on the learner
    flaky.fail_on = set()                                 # it recovers: the step is retaken
    for _ in range(30):
        venv.step([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        assert venv.batch.learner_to_act.all()


def test_a_failed_reset_leaves_the_env_broken_until_a_reset_succeeds():
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    flaky = _Flaky(fail_on=[1], how="raise")
    venv = SelfPlayVecEnv(4, opponents=[flaky], seed=6, seat=1)   # opponent moves first
    with pytest.raises(OpponentError, match="opponent bug"):
        venv.reset()
    for call in (lambda: venv.step(np.zeros(4, np.int64)), venv.action_masks):
        with pytest.raises(RuntimeError, match="reset\\(\\) failed: .*opponent bug.*call reset"):
            call()
    venv.set_opponents([RandomAgent(0)])
    venv.reset()
    venv.step(_first_legal(venv.action_masks()))
    venv.close()
    for call in (venv.reset, venv.action_masks, lambda: venv.step(np.zeros(4, np.int64))):
        with pytest.raises(RuntimeError, match="closed"):
            call()


class _DiesOnCall:
    """An opponent that raises on one call: in a worker process it is the worker's bug."""
    needs_observation = False
    label = "dies"

    def __init__(self, when):
        self.calls, self.when = 0, when

    def act(self, obs, mask):
        self.calls += 1
        if self.calls == self.when:
            raise ZeroDivisionError("opponent bug in a worker")
        return int(np.flatnonzero(mask)[0])


def test_a_dead_worker_gives_a_clear_error_and_reset_starts_it_again():
    """Before: a killed worker gave a bare BrokenPipeError on every later step, and a step
    after close() a KeyError."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_workers import WorkerError, WorkerSelfPlayVecEnv
    venv = WorkerSelfPlayVecEnv(2, 2, opponents=[RandomAgent(0)], seed=7)
    try:
        first = venv.reset()
        acts = _first_legal(venv.action_masks())
        for bad, says in _bad_batches(acts[:3])[:3] + [(acts[:3], "shape")]:
            with pytest.raises(IllegalActionError, match=REFUSED):
                venv.step(bad)                      # checked here, before any worker moves
        illegal = acts.copy()
        illegal[3] = np.flatnonzero(~venv.action_masks()[3])[0]
        with pytest.raises(IllegalActionError, match="game 3: .*no game moved") as e:
            venv.step(illegal)
        _says_game_player_action(str(e.value), venv._arrays["actor"],  # the player and the
                                 lambda i, a: action_meaning(a))      # action's name too
        assert (venv.reset() == first).all()        # nothing had moved
        venv.step_async(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="step_wait has not been called"):
            venv.step_async(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="a step is under way"):
            venv.set_opponents([RandomAgent(3)])
        assert (venv.reset() == first).all()        # the step's answers read, not mistaken
        venv.step(_first_legal(venv.action_masks()))
        venv._procs[1].kill()
        venv._procs[1].join()
        with pytest.raises(WorkerError, match=r"worker 1 \(games 2..3\) died, killed by SIGKILL"):
            venv.step(_first_legal(venv.action_masks()))
        for call in (lambda: venv.step(acts), venv.action_masks):
            with pytest.raises(RuntimeError, match="worker 1 .*died.*call reset"):
                call()
        assert (venv.reset() == first).all()        # the worker started again, same deals
        venv.step(_first_legal(venv.action_masks()))
        # an opponent failing inside a worker: named, the env broken until reset
        venv.set_opponents([_DiesOnCall(3)])
        with pytest.raises(WorkerError, match="worker 0 .*the opponent dies .*ZeroDivision"):
            venv.reset()                            # the new member plays every deal
            for _ in range(20):
                venv.step(_first_legal(venv.action_masks()))
        with pytest.raises(RuntimeError, match="worker .*opponent dies.*call reset"):
            venv.step(acts)
        venv.set_opponents([RandomAgent(1)])        # kept for the reset that mends it
        venv.reset()
        venv.step(_first_legal(venv.action_masks()))
    finally:
        venv.close()
    for call in (venv.reset, venv.action_masks, lambda: venv.step(acts),
                 lambda: venv.set_opponents([RandomAgent(0)])):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    venv.close()


# ------------------------------------------------ one rule, one message, one seat check

def _layers():
    """(name, first decision's legal ids, apply one action) for each layer that takes an
    action id: the engine, the Gym and AEC envs and the batch (the value as game 0's)."""
    from nivel_env import NivelArenaGymEnv, env
    from nivel_env.engine import new_game
    from nivel_env.cards import load_deck
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=3)
    gym = NivelArenaGymEnv(seat=0)
    gym.reset(seed=3)
    aec = env()
    aec.reset(seed=3)
    b = GameBatch(2, seat=0)
    b.reset(seed=3)
    return [("engine", g.legal_actions(), g.apply_action),
            ("gym", np.flatnonzero(gym.action_masks()).tolist(), gym.step),
            ("aec", np.flatnonzero(aec.last()[0]["action_mask"]).tolist(), aec.step),
            ("batch", np.flatnonzero(b.mask[0]).tolist(),
             lambda x: b.step([x, int(np.flatnonzero(b.mask[1])[0])]))]


TAKEN = [int, np.int16, np.uint8, np.int64, lambda a: np.array(a), lambda a: np.array(a, np.int8)]
REFUSED_IDS = [float, np.float64, np.float32, str, lambda a: [a], lambda a: np.array([a]),
               lambda a: np.array(float(a)), bool, np.bool_, lambda a: np.array(bool(a))]
_IDS = ["int", "int16", "uint8", "int64", "0-d int64 array", "0-d int8 array", "float",
        "float64", "float32", "str", "list", "1-element array", "0-d float array", "bool",
        "numpy bool", "0-d bool array"]


@pytest.mark.parametrize("make", TAKEN + REFUSED_IDS, ids=_IDS)
def test_every_layer_takes_the_same_action_values_in_the_same_words(make):
    """The engine refused a 0-d array that the envs took, and the batch said "actions are
    integer ids" where the envs said "an action is an integer id": one rule
    (``engine.errors.action_id``) and one message now."""
    said = {}
    for name, legal, apply in _layers():
        a = legal[-1] if make not in (bool, np.bool_) and make is not REFUSED_IDS[-1] \
            else max(x for x in legal if x < 2)        # a bool at the mulligan: 0 or 1
        try:
            apply(make(a))
            said[name] = None
        except IllegalActionError as e:
            said[name] = str(e)
    if make in TAKEN:
        assert set(said.values()) == {None}, said
    else:
        got = re.escape(type(make(1)).__name__)
        for name, msg in said.items():
            assert msg is not None, name
            assert re.search(r"an action is an integer id 0\.\.336 \(a Python or numpy "
                             rf"integer\), got {got} ", msg), (name, msg)


_NOT_LEGAL = re.compile(r"game (\d+)(?: \(and games? [\d, .]+\))?: action (\d+) \((.+)\) is not "
                        r"legal now for player ([01]) \(legal: \[[\d, ]+\]\); no game moved")


def _says_game_player_action(message, actor, name_of):
    m = _NOT_LEGAL.search(message)
    assert m, message
    i, a = int(m.group(1)), int(m.group(2))
    assert int(m.group(4)) == actor[i], message
    assert name_of is None or m.group(3) == name_of(i, a), message


def test_one_legality_message_names_the_game_the_player_and_the_action():
    """Four checks in three wordings (the batch, the learner's and the opponents' moves in
    SelfPlayVecEnv, the worker env): now ``vector.check_legal`` and one message."""
    pytest.importorskip("stable_baselines3")
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    b = GameBatch(4, seat="random")
    b.reset(seed=8)
    acts = _first_legal(b.mask)
    acts[[1, 3]] = [np.flatnonzero(~b.mask[i])[0] for i in (1, 3)]
    with pytest.raises(IllegalActionError) as e:
        b.step(acts)
    assert "game 1 (and game 3)" in str(e.value)
    _says_game_player_action(str(e.value), b.actor, lambda i, a: b.games[i].action_name(a))
    venv = SelfPlayVecEnv(3, seed=4, seat=1)
    venv.reset()
    acts = _first_legal(venv.action_masks())
    acts[2] = np.flatnonzero(~venv.action_masks()[2])[-1]
    with pytest.raises(IllegalActionError, match="^SelfPlayVecEnv.step: game 2: ") as e:
        venv.step(acts)
    _says_game_player_action(str(e.value), venv.batch.actor,
                             lambda i, a: venv.batch.games[i].action_name(a))
    flaky = _Flaky(fail_on=[1], how="illegal")
    venv.set_opponents([flaky])
    with pytest.raises(OpponentError,
                       match="^SelfPlayVecEnv.step: the opponent flaky: game") as e:
        for _ in range(100):
            venv.step(_first_legal(venv.action_masks()))
    # the game waited on the opponent's seat (it is back before the step now, so its
    # context -- and an action's name in it -- is the learner's: the name is not compared)
    _says_game_player_action(str(e.value), 1 - venv.batch.learner_seat, None)


def test_a_selfplay_step_is_checked_once(monkeypatch):
    """``SelfPlayVecEnv`` checked the learner's actions in ``step_async`` and again in
    ``GameBatch.step`` (and every opponent round twice): once is enough."""
    pytest.importorskip("stable_baselines3")
    import nivel_env.env.vector as vector
    import nivel_env.env.vector_selfplay as selfplay
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    calls = []
    for module in (vector, selfplay):
        for fn in ("batch_actions", "check_legal"):
            real = getattr(module, fn, None)
            if real is None:
                continue

            def spy(*args, _real=real, _fn=fn, **kw):
                where = args[2] if _fn == "batch_actions" else args[0]
                rows = kw.get("rows", args[3] if _fn == "batch_actions" and len(args) > 3
                              else args[4] if _fn == "check_legal" and len(args) > 4 else None)
                calls.append((_fn, where, rows is None))
                return _real(*args, **kw)
            monkeypatch.setattr(module, fn, spy)
    venv = SelfPlayVecEnv(4, seed=2, seat="random")
    venv.reset()
    for _ in range(5):
        calls.clear()
        venv.step(_first_legal(venv.action_masks()))
        learner = [c for c in calls if "opponent" not in c[1] and "'s moves" not in c[1]]
        assert learner == [("batch_actions", "SelfPlayVecEnv.step", True),
                           ("check_legal", "SelfPlayVecEnv.step", True)], calls
        assert not [c for c in calls if c[1].startswith("GameBatch")], calls


BAD_SEATS = [1.0, 0.0, True, False, np.True_, "1", 2, -1, None, np.float64(1), np.array([1])]


def test_the_batched_envs_check_the_seat_as_the_gym_env_does():
    """``GameBatch(seat=1.0)`` or ``seat=True`` was taken (``1.0 in (0, 1, "random")``);
    SelfPlayVecEnv and the worker env passed it on."""
    pytest.importorskip("stable_baselines3")
    from nivel_env.env.vector_selfplay import SelfPlayGames
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
    makers = {"GameBatch": lambda s: GameBatch(2, seat=s),
              "SelfPlayGames": lambda s: SelfPlayGames(2, seat=s),
              "SelfPlayVecEnv": lambda s: SelfPlayVecEnv(2, seat=s),
              "WorkerSelfPlayVecEnv": lambda s: WorkerSelfPlayVecEnv(1, 2, seat=s)}
    for name, make in makers.items():
        for bad in BAD_SEATS:
            with pytest.raises(ValueError, match=f"^{name}: seat must be 0, 1 or 'random', "
                                                 f"got {type(bad).__name__}"):
                make(bad)
    for seat in (np.int64(1), np.array(1), 1):
        b = GameBatch(2, seat=seat)
        b.reset(seed=0)
        assert (b.learner_seat == 1).all()
    venv = SelfPlayVecEnv(2, seat=np.int8(0), seed=0)
    venv.reset()
    assert (venv.batch.learner_seat == 0).all()


def test_weights_errors_name_the_callers_class():
    """``check_weights`` said "SelfPlayVecEnv:" for every caller, the worker env too."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_selfplay import SelfPlayGames
    from nivel_env.env.vector_sb3 import SelfPlayVecEnv
    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
    r = RandomAgent(0)
    for name, make in (("SelfPlayGames", SelfPlayGames), ("SelfPlayVecEnv", SelfPlayVecEnv),
                       ("WorkerSelfPlayVecEnv", lambda n, **kw: WorkerSelfPlayVecEnv(1, n, **kw))):
        with pytest.raises(ValueError, match=f"^{name}: weights must be 1 non-negative"):
            make(2, opponents=[r], weights=[1, 1])
    venv = SelfPlayVecEnv(2, opponents=[r])
    for bad in ([1, 2], [-1], "x", [math.nan]):
        with pytest.raises(ValueError, match="^SelfPlayVecEnv.set_opponents: weights must be"):
            venv.set_opponents([r], bad)


# ------------------------------------------------------- worker env: pool, stuck workers

class _Unpicklable:
    """An opponent that cannot be sent to a worker (it holds a lock)."""
    needs_observation = False
    label = "unpicklable"

    def __init__(self):
        import threading
        self.lock = threading.Lock()

    def act(self, obs, mask):
        return int(np.flatnonzero(mask)[0])


def test_a_pool_that_cannot_be_pickled_changes_nothing():
    """``set_opponents`` recorded the new pool before sending it: a member that could not
    be pickled left the bookkeeping ahead of the workers, and the reset that mends a dead
    worker then sent that pool again and failed."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_workers import WorkerError, WorkerSelfPlayVecEnv
    venv = WorkerSelfPlayVecEnv(2, 1, opponents=[RandomAgent(0)], seed=9)
    try:
        first = venv.reset()
        with pytest.raises(TypeError, match="^WorkerSelfPlayVecEnv.set_opponents: the opponent "
                                            "unpicklable cannot be pickled.*pool is unchanged"):
            venv.set_opponents([RandomAgent(1), _Unpicklable()])
        venv.step(_first_legal(venv.action_masks()))    # no answer left unread in a pipe
        venv._procs[0].kill()
        venv._procs[0].join()
        with pytest.raises(WorkerError, match="worker 0 .*died"):
            venv.step(_first_legal(venv.action_masks()))
        assert (venv.reset() == first).all()            # mended with the pool as it was
        venv.step(_first_legal(venv.action_masks()))
    finally:
        venv.close()


def test_a_stuck_worker_is_stopped_by_the_timeout_and_close_never_hangs():
    """``close()`` waited with ``conn.recv()`` and no timeout for the answer of a pending
    step: a worker that never answers (here stopped by SIGSTOP) hung it for ever.  A
    ``timeout`` bounds ``step_wait`` too (default None: wait)."""
    pytest.importorskip("stable_baselines3")
    import os
    import signal
    import threading
    import time
    from agents import RandomAgent
    from nivel_env.env.vector_workers import WorkerError, WorkerSelfPlayVecEnv
    if not hasattr(signal, "SIGSTOP"):
        pytest.skip("needs SIGSTOP")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        WorkerSelfPlayVecEnv(1, 1, timeout=0)
    venv = WorkerSelfPlayVecEnv(2, 1, opponents=[RandomAgent(0)], seed=10, timeout=1)
    procs = list(venv._procs)
    try:
        venv.reset()
        os.kill(venv._procs[1].pid, signal.SIGSTOP)
        t = time.monotonic()
        with pytest.raises(WorkerError, match=r"worker 1 \(games 1..1\) did not answer within "
                                              r"1 s \(timeout\) and was stopped"):
            venv.step(_first_legal(venv.action_masks()))
        assert time.monotonic() - t < 6 and not procs[1].is_alive()
        with pytest.raises(RuntimeError, match="did not answer.*call reset"):
            venv.step(_first_legal(venv.action_masks()))
        venv.reset()                                    # starts worker 1 again
        procs += venv._procs
        venv.step(_first_legal(venv.action_masks()))
        os.kill(venv._procs[0].pid, signal.SIGSTOP)     # stuck with a step under way
        venv.step_async(_first_legal(venv.action_masks()))
        closer = threading.Thread(target=venv.close, kwargs={"timeout": 0.5}, daemon=True)
        t = time.monotonic()
        closer.start()
        closer.join(20)
        assert not closer.is_alive(), "close() hung on a worker that does not answer"
        assert time.monotonic() - t < 6
        assert not any(p.is_alive() for p in venv._procs) and venv.closed
    finally:
        for p in procs:
            if p.is_alive():
                os.kill(p.pid, signal.SIGCONT)
                p.kill()
                p.join()


def test_a_timeout_shorter_than_a_workers_start_up_still_builds_the_env():
    """A spawned worker imports numpy and the engine before its first answer (seconds):
    ``timeout`` bounds answers from running workers, and a new worker gets ``STARTUP``
    more for its first, so an env with a short timeout can be built and reset."""
    pytest.importorskip("stable_baselines3")
    from agents import RandomAgent
    from nivel_env.env.vector_workers import WorkerSelfPlayVecEnv
    venv = WorkerSelfPlayVecEnv(2, 1, opponents=[RandomAgent(0)], seed=3, timeout=0.5)
    try:
        venv.reset()
        venv.step(_first_legal(venv.action_masks()))
        assert not venv._starting
    finally:
        venv.close()
