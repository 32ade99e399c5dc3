"""Asking a player for a move: the one home of the player protocol.

Everything that seats a player -- the Gym env's embedded opponent, the batched self-play
envs, the terminal and browser games, the coach, the tournament arena and lockstep
games, the consistency checks -- asks it for its move through ``ask`` (one position) or
``ask_batch`` (many positions at once), reseeds it through ``reseed``, and builds it from
a spec string through ``load``.  So what a player may declare is read in one place:

``act(observation, action_mask) -> int``
    The move for one position: ``observation`` is the seat's encoded observation
    (``nivel_env.env.encoder``) and ``action_mask`` its legal actions (an array of
    ``N_ACTIONS`` zeros and ones).  Every player has it, except a search (below).
``needs_observation`` (default True)
    False: the player never reads the observation, so it is passed ``None`` and none is
    encoded (the random player).
``needs_state`` (default False)
    True: the player reads the game itself (a search that determinizes the hidden
    cards): it is asked ``act_state(game) -> int`` instead of ``act``, for the player to
    act in ``game``; it must read only what that player may know (``checks/hidden.py``).
``act_batch(observations, action_masks) -> array`` (optional)
    The moves for a batch of positions in one call (a policy: one network forward); the
    same moves ``act`` would choose row by row for the same generator state.
``reset()`` (optional)
    Called before each game.
``rng`` / ``reseed(seed)`` (optional)
    The player's random generator (``numpy.random.Generator``).  ``reseed(agent, seed)``
    calls the player's ``reseed`` when it defines one, else replaces its ``rng`` with
    ``numpy.random.default_rng(seed)`` -- a seed, a seed sequence, or a ``Generator``
    (used as it is, so that several positions can share one stream).
``label`` (optional)
    A short name for logs and infos (else the class name).
``inform_action(game, player, action)`` (optional)
    Told every move of the game it sits in, by either player, before it is played:
    ``game`` as it stands, ``player`` about to play ``action`` (OpenSpiel's
    ``Bot.inform_action``).  A player is otherwise asked only at its own decisions and
    never learns the opponent's moves; a search that weighs its worlds by how likely
    the opponent's moves were (``agents.belief``) needs them.  The drivers that seat a
    search (the arena, lockstep games, the terminal and browser games, the Gym env's
    opponent) call ``inform`` before each ``apply_action``; ``game`` is theirs to go on
    with: a player that keeps it keeps a clone.

``Player`` below spells the protocol as a ``typing.Protocol``; ``RandomAgent`` is the one
player this package ships (the environments' default opponent).  The other players live
in the ``agents`` package, which no module of ``nivel_env`` names in its own code
(tests/players/test_players.py): ``load`` finds them through loaders declared under the
``nivel_env.players`` entry point group (pyproject.toml).
"""
from __future__ import annotations

import functools
import importlib
import weakref
from importlib import metadata
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from .engine import N_ACTIONS
from .engine.errors import action_id

#: the think-time cap of a person's opponent, seconds of wall time a move: room for the
#: last forward and the call around it inside 1 s (the expert's p99 on one core, the other
#: core busy or the same core shared: 115-799 ms, docs/opponents.md "Thinking within a
#: time limit").  ``agents.opponents.for_play`` applies it.
PLAY_THINK_SECONDS = 0.8
#: a player's file (a trained policy) over 1 GiB is not one of ours: it is refused
#: before reading (``agents.policy``, ``serve --policy``)
MAX_FILE_BYTES = 1 << 30

#: the entry point group where packages declare their player loaders
ENTRY_POINT_GROUP = "nivel_env.players"
#: the loader used when no entry point of ENTRY_POINT_GROUP is installed (see ``loaders``)
DEFAULT_LOADER = "agents.opponents:PLAYERS"


@runtime_checkable
class Player(Protocol):
    """What ``ask`` needs of a player (the optional attributes are in the module
    docstring: ``needs_observation``, ``needs_state`` with ``act_state``, ``act_batch``,
    ``reset``, ``rng``/``reseed``, ``label``, ``inform_action``)."""

    def act(self, observation, action_mask) -> int: ...


class UnknownPlayer(LookupError, ValueError):
    """No loader knows a player spec.  A loader raises it (or returns None) to decline a
    spec so that the next loader is tried; ``load`` raises it when none accepts."""


class RandomAgent:
    """Uniform over the legal actions; seeded, so a run can be repeated.  The environments'
    default opponent and the ``random`` opponent of ``agents`` (level ``novice``)."""

    #: it never reads the observation, so environments may pass None (and skip encoding)
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])


# ------------------------------------------------------------------ asking
def reads_game(agent) -> bool:
    """Whether ``agent`` is asked ``act_state(game)`` (``needs_state``)."""
    return bool(getattr(agent, "needs_state", False))


def reads_observation(agent) -> bool:
    """Whether ``agent`` is passed an observation (not a search, ``needs_observation``)."""
    return not reads_game(agent) and bool(getattr(agent, "needs_observation", True))


def observation_layout(agent) -> str:
    """The observation layout ``agent`` reads: its ``observation_layout`` (``"full"`` or
    ``"compact"``), else ``"full"``."""
    return getattr(agent, "observation_layout", None) or "full"


def reads_layout(agent, layout: str) -> bool:
    """Whether ``agent`` reads observations of ``layout``: its ``observation_layout``, or
    one of its ``observation_layouts`` (a player that reads several, the heuristic)."""
    return layout == observation_layout(agent) or \
        layout in (getattr(agent, "observation_layouts", None) or ())


def use_card_pool(agent, db) -> None:
    """Tell ``agent`` the card pool of the games it is about to be asked about, when it
    wants to know (``use_card_pool(db)``: a compact policy reads the pool's card table,
    which the observation's indices point into).  Cheap to call before every move."""
    own = getattr(agent, "use_card_pool", None)
    if callable(own):
        own(db)


def label_of(agent) -> str:
    """A short name for a player in infos and logs: its ``label``, else its class."""
    return str(getattr(agent, "label", None) or type(agent).__name__)


def ask(agent, game, seat: int | None = None, *, legal=None, observation=None,
        encoder=None) -> int:
    """``agent``'s move in ``game`` for ``seat`` (default: the player to act).

    A search (``needs_state``) is asked ``act_state(game)``.  Any other player is asked
    ``act(observation, mask)``: ``legal`` (default ``game.legal_actions()``) as an int8
    mask, and the seat's observation -- ``observation`` if given (in the layout the player
    reads), else encoded with ``encoder`` when that writes the player's layout
    (``observation_layout``), else with one made for the game's cards -- only when the
    player reads one (``needs_observation``), ``None`` otherwise.  The answer must be an integer id
    (``engine.errors.action_id``: a float or bool raises ``IllegalActionError`` naming the
    player); whether it is legal is the game's question."""
    if reads_game(agent):
        return _id(agent.act_state(game), agent)
    use_card_pool(agent, game.db)
    if legal is None:
        legal = game.legal_actions()
    if seat is None:
        seat = game.current_player
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    obs = None
    if getattr(agent, "needs_observation", True):
        if observation is not None:
            obs = observation
        else:
            if encoder is None or not reads_layout(agent, encoder.layout.name) \
                    or encoder.db is not game.db:
                encoder = _encoder_for(game, observation_layout(agent))
            obs = encoder.encode(game, seat, legal)
    return _id(agent.act(obs, mask), agent)


def informed(agents) -> tuple:
    """The ``inform_action`` methods of ``agents`` that define one, each agent once (one
    object seated twice is told once): a driver computes it once a game and skips
    ``inform`` when it is empty, so games without such a player pay nothing a move."""
    out, seen = [], set()
    for agent in agents:
        tell = getattr(agent, "inform_action", None)
        if callable(tell) and id(agent) not in seen:
            seen.add(id(agent))
            out.append(tell)
    return tuple(out)


def inform(told, game, player: int, action: int) -> None:
    """Tell the players ``told`` (``informed(agents)``) that ``player`` is about to play
    ``action`` in ``game`` (called before ``game.apply_action(action)``)."""
    for tell in told:
        tell(game, player, action)


def _id(answer, agent) -> int:
    return answer if type(answer) is int else action_id(answer, f"{label_of(agent)}'s move")


def ask_batch(agent, observations, masks, games=None) -> np.ndarray:
    """``agent``'s moves for a batch of positions, one per row of ``masks``.

    A policy with ``act_batch`` answers the whole batch in one call; a search
    (``needs_state``) is asked ``act_state`` for each of ``games`` (the rows' games, which
    it then needs); any other player ``act`` row by row (passed ``None`` for the
    observation when it does not read one).  Row by row answers must be integer ids
    (``action_id``); a batch answer comes back as the array the agent gave, for the
    caller to check (``env.vector.batch_actions``): a float is refused, never truncated."""
    where = f"{label_of(agent)}'s moves"
    if reads_game(agent):
        if games is None:
            raise TypeError(f"{type(agent).__name__} searches the game: give the games")
        return _ids([agent.act_state(g) for g in games], where)
    if hasattr(agent, "act_batch"):
        return np.asarray(agent.act_batch(observations, masks))
    see = getattr(agent, "needs_observation", True)
    return _ids([agent.act(observations[k] if see else None, masks[k])
                 for k in range(len(masks))], where)


def _ids(answers: list, where: str) -> np.ndarray:
    return np.array([a if type(a) is int else action_id(a, f"{where}: row {k}")
                     for k, a in enumerate(answers)], dtype=np.int64)


def reseed(agent, seed) -> None:
    """Put ``agent``'s randomness on ``seed``: its own ``reseed(seed)`` when it defines
    one, else its ``rng`` replaced by ``numpy.random.default_rng(seed)`` (a ``Generator``
    is used as it is: the stream goes on where it stands).  A player without either has
    no randomness to set.  The streams are those callers drew before this function
    existed (``a.rng = default_rng(seed)``), so seeded games and tournaments replay."""
    own = getattr(agent, "reseed", None)
    if callable(own):
        own(seed)
    elif hasattr(agent, "rng"):
        agent.rng = np.random.default_rng(seed)


_ENCODERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _encoder_for(game, layout: str = "full"):
    """An encoder of ``game``'s pool for ``layout``, kept while the pool lives (an encoder
    only caches what it wrote, checked against each game, so games may share one)."""
    from .env.encoder import make_encoder   # here: the env package imports this module
    per_pool = _ENCODERS.setdefault(game.db, {})
    enc = per_pool.get(layout)
    if enc is None:
        enc = per_pool[layout] = make_encoder(game.db, layout)
    return enc


# ------------------------------------------------------------------ loading by spec
_registered: list = []


def register(loader: Callable) -> Callable:
    """Add ``loader`` (``loader(spec, **kw) -> player``, raising ``UnknownPlayer`` or
    returning None for a spec it does not know), tried before the installed ones;
    the latest registered first.  Returns ``loader`` (usable as a decorator)."""
    if not callable(loader):
        raise TypeError(f"players.register: a loader is callable (spec, **kw) -> player, "
                        f"got {type(loader).__name__}")
    _registered.insert(0, loader)
    return loader


def unregister(loader: Callable) -> None:
    """Remove a loader added with ``register`` (a test's cleanup)."""
    _registered.remove(loader)


def loaders() -> list:
    """The loaders ``load`` tries, in order: registered ones (latest first), then those
    declared under the ``nivel_env.players`` entry point group.  When no entry point is
    installed -- a checkout put on ``PYTHONPATH``, or an editable install made before the
    group was declared (entry points are read from the install's metadata, written only
    by ``pip install``) -- ``DEFAULT_LOADER``, the ``agents`` package's loader, is found
    by its name instead; it is skipped when that package is absent.  The installed ones are
    read once per process."""
    return _registered + list(_installed())


@functools.lru_cache(maxsize=None)
def _installed() -> tuple:
    found = [ep.load() for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)]
    if not found:
        module, _, attr = DEFAULT_LOADER.partition(":")
        try:
            found = [getattr(importlib.import_module(module), attr)]
        except ModuleNotFoundError as e:
            if e.name is None or module.split(".")[0] != e.name.split(".")[0]:
                raise                                # the package is there but broken
    return tuple(found)


def load(spec, **kw):
    """The player a spec names (``"heuristic"``, ``"nv2-search:simulations=64"``, a
    policy file ...), from the first loader that knows it (``loaders``); ``kw`` go to the
    loader (``agents``': ``difficulty``, ``seed``, ``think_seconds``).  Raises
    ``UnknownPlayer`` naming the spec and each loader's answer when none knows it; a
    loader's other errors (bad settings, an unreadable file) go on as they are."""
    found, why = loaders(), []
    for loader in found:
        try:
            agent = loader(spec, **kw)
        except UnknownPlayer as e:
            if len(found) == 1:
                raise                           # the one loader's own words
            why.append(str(e))
            continue
        if agent is not None:
            return agent
        why.append(f"{getattr(loader, '__name__', type(loader).__name__)} does not know it")
    if not found:
        raise UnknownPlayer(f"players.load: no player loader is installed to load {spec!r} "
                            f"(install the agents package, or players.register one)")
    raise UnknownPlayer(f"players.load: no loader knows {spec!r}: " + "; ".join(why))


def levels() -> dict:
    """The difficulty ladder, weakest first: ``{level: (spec, what it is)}``, from the
    loaders that declare one (a ``levels()`` method); empty when none does."""
    out: dict = {}
    for loader in loaders():
        if callable(getattr(loader, "levels", None)):
            for k, v in loader.levels().items():
                out.setdefault(k, v)
    return out


def names() -> dict:
    """Every player a loader takes by bare name: ``{name: what it is}``, levels first,
    from the loaders that list theirs (a ``names()`` method); empty when none does."""
    out: dict = {}
    for loader in loaders():
        if callable(getattr(loader, "names", None)):
            for k, v in loader.names().items():
                out.setdefault(k, v)
    return out


def torch_free() -> set:
    """The bare names of players that run without torch, from the loaders that say so (a
    ``torch_free()`` method): a screen offers the others only where torch is installed."""
    out: set = set()
    for loader in loaders():
        if callable(getattr(loader, "torch_free", None)):
            out.update(loader.torch_free())
    return out


__all__ = ["DEFAULT_LOADER", "ENTRY_POINT_GROUP", "MAX_FILE_BYTES", "PLAY_THINK_SECONDS",
           "Player", "RandomAgent", "UnknownPlayer", "ask", "ask_batch", "inform",
           "informed", "label_of", "levels", "load", "loaders", "names", "reads_game",
           "reads_observation", "register", "reseed", "torch_free", "unregister"]
