"""Nivel Arena as a PettingZoo AEC environment (``nivel_arena_v0``).

This module only adapts the engine: ``agent_selection`` is the player of the
engine's pending decision (so the defending player acts mid-turn for Guardian
and defense), the action space is the engine's fixed id space, the mask is
``legal_actions()`` scattered into zeros, and rewards are the engine's returns.

    from nivel_env import env
    e = env(decks=("ember-rush", "stone-bastion"))
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        e.step(action)

After the game ends each agent steps out with ``step(None)``, as in every PettingZoo
environment; ``agent_iter()`` then stops.  ``last()`` and ``step()`` after that raise
``RuntimeError`` (call ``reset()``): the final rewards were in ``last()`` and
``infos[agent]["returns"]`` while each agent stepped out.  ``action_name(a)`` names an id
in the context of the pending decision, and -- before ``reset()`` and once the game is
over -- by what it means in the fixed action table.

An illegal action raises ``IllegalActionError`` and changes nothing (the default,
``illegal_action="raise"``).  With ``illegal_action="lose"`` it ends the game as
PettingZoo's classic games do (their ``TerminateIllegalWrapper``): reward -1 for the
agent that chose it, 0 for the other, every agent terminated, ``infos[agent]
["illegal_action"]`` saying why, and the game left as it was.  Ids outside the action
space (``2.5``, ``"3"``, ``400``) raise in both modes.
"""
from __future__ import annotations

import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import N_ACTIONS, RuleConfig
from ..engine.errors import IllegalActionError
from ..engine.render import action_meaning
from .actions import ILLEGAL_REWARD, action_id, check_illegal_mode
from .layout import layout_named
from .setup import GameSource

AGENTS = ("player_0", "player_1")
RESET_OPTIONS = ("decks",)


def observation_space(obs="full") -> spaces.Dict:
    """An agent's observation space for the layout ``obs`` (``"full"`` or ``"compact"``)."""
    return spaces.Dict({
        "observation": layout_named(obs).box(),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
    })


class NivelArenaEnv(AECEnv):
    """Two-player AEC environment over the rules engine.

    Args:
        decks: ``(deck_0, deck_1)`` as bundled names, file paths or ``Deck`` objects;
            ``None`` draws a bundled pair (or a pair from ``deck_pool``) each episode.
        deck_pool: decks to draw from when ``decks`` is ``None``.
        config: a ``RuleConfig`` (turn cap, effect ordering, ...).
        render_mode: ``"ansi"`` (``render()`` returns the board), ``"human"`` (prints it)
            or ``"rgb_array"`` (the board drawn as an RGB image of one fixed size,
            720x1280).
        card_db: the card pool named decks are read from (default: the bundled pool).
        illegal_action: ``"raise"`` (default) or ``"lose"`` (see the module docstring).
        obs: the observation layout: ``"full"`` (default: card rows of features) or
            ``"compact"`` (card table indices; the table is ``card_table()``, and
            ``metadata["card_table"]``).  docs/observation.md describes both.
        backend: the engine the games run on, ``"python"``, ``"native"`` or ``"auto"``
            (``engine.backend.resolve_backend``; None: ``NIVEL_BACKEND``, else the default).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "nivel_arena_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, decks=None, deck_pool=None, config: RuleConfig | None = None,
                 render_mode: str | None = None, card_db=None, illegal_action: str = "raise",
                 obs="full", backend=None):
        super().__init__()
        self.illegal_action = check_illegal_mode(illegal_action, "nivel_arena_v0")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"nivel_arena_v0: render_mode must be one of "
                             f"{self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self._source = GameSource(decks, deck_pool, config, card_db, "nivel_arena_v0", obs,
                                  backend)
        self.config = self._source.config
        self.metadata = {**type(self).metadata, "observation_layout": self._source.layout.name}
        if self._source.layout.name == "compact":
            self.metadata["card_table"] = self._source.card_table()
        self.possible_agents = list(AGENTS)
        self.agents = []
        self.agent_selection = None                   # last()/step() before reset() raise
        self.rewards, self._cumulative_rewards, self.infos = {}, {}, {}
        self.terminations, self.truncations = {}, {}
        space = observation_space(self._source.layout)
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self.game = None
        self._illegal = None            # why an illegal action ended the game ("lose")

    # ------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def card_table(self) -> np.ndarray:
        """The card table of the pool being played, which the compact observation's
        indices point into (``encoder.card_table``): float32 ``(rows, columns)``."""
        return self._source.card_table()

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game.  ``seed`` fixes the decks drawn and the shuffles; without it the
        environment continues its own stream.  ``options={"decks": (d0, d1)}`` plays
        that pair for this episode only."""
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"nivel_arena_v0.reset: options must be a dict such as "
                            f"{{'decks': (deck_0, deck_1)}}, got {type(options).__name__}")
        if seed is not None:
            self._source.reseed(seed)
        decks = None
        if options:
            unknown = set(options) - set(RESET_OPTIONS)
            if unknown:
                warnings.warn(f"nivel_arena_v0.reset: ignoring unknown option(s) "
                              f"{', '.join(map(str, sorted(unknown)))}; known: "
                              f"{', '.join(RESET_OPTIONS)}", stacklevel=2)
            decks = options.get("decks")
        self.game, self.decks = self._source.new_game(decks)
        self._illegal = None
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self._sync()
        if self.render_mode == "human":
            self.render()

    def _require_reset(self, what: str) -> None:
        if self.game is None:
            raise RuntimeError(f"nivel_arena_v0.{what}: call reset() first")

    def step(self, action) -> None:
        if self.game is None:
            self._require_reset("step")
        if not self.agents:
            raise RuntimeError("nivel_arena_v0.step: the episode is over and every agent has "
                               "stepped out; call reset() to play another")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(f"nivel_arena_v0.step: {agent} is done (the game is "
                                         f"over); step(None) for each agent, got {action!r}")
            return self._was_dead_step(action)
        a = action_id(action, f"nivel_arena_v0.step ({agent})")
        try:
            self.game.apply_action(a)      # raises IllegalActionError, state unchanged
        except IllegalActionError as e:
            if self.illegal_action == "raise" or not 0 <= a < N_ACTIONS:
                raise                      # (an id outside the action space always raises)
            return self._lose(agent, a, e)
        self._cumulative_rewards[agent] = 0
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _lose(self, agent: str, a: int, error: IllegalActionError) -> None:
        """``illegal_action="lose"``: the game ends, -1 for ``agent`` and 0 for the other
        (PettingZoo's TerminateIllegalWrapper), every agent terminated; the engine's game
        is left as it was.  Each agent then steps out with ``step(None)``."""
        g = self.game
        self._illegal = f"{agent} chose {a} ({action_meaning(a)}): {error}"
        returns = tuple(ILLEGAL_REWARD if x == agent else 0.0 for x in AGENTS)
        self._cumulative_rewards[agent] = 0
        for i, x in enumerate(AGENTS):
            self.rewards[x] = returns[i]
            self.terminations[x] = True
            self.infos[x] = {"decision": None, "turn": g.turn, "returns": returns,
                             "illegal_action": self._illegal}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _sync(self) -> None:
        """Agent selection, rewards, terminations and infos from the engine's state."""
        g = self.game
        if g.result is not None:
            r = g.result
            for i, a in enumerate(AGENTS):
                self.rewards[a] = r[i]
                if g.truncated:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True
                self.infos[a] = {"decision": None, "turn": g.turn, "returns": r}
            return
        kind, p = g.decision_name, g.current_player
        self.agent_selection = AGENTS[p]
        self.infos = {a: {"decision": kind if i == p else None, "turn": g.turn}
                      for i, a in enumerate(AGENTS)}

    # ------------------------------------------------------------ views
    def last(self, observe: bool = True):
        if self.game is None:
            self._require_reset("last")
        if not self.agents:
            raise RuntimeError("nivel_arena_v0.last: the episode is over and every agent has "
                               "stepped out (their final rewards came with last() before "
                               "each step(None), and in infos[agent]['returns']); call "
                               "reset() to play another")
        return super().last(observe)

    def observe(self, agent: str) -> dict:
        if self.game is None:
            self._require_reset("observe")
        p = agent_index(agent, "nivel_arena_v0.observe")
        g = self.game
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        legal = None
        if g.current_player == p and self._illegal is None:
            legal = g.legal_actions()
            mask[legal] = 1
        return {"observation": self._source.encoder.encode(g, p, legal).copy(), "action_mask": mask}

    def action_name(self, action: int) -> str:
        """Name an action id in the context of the pending decision (its cards and
        lanes); before ``reset()`` and once the game is over, by what the id means in the
        fixed action table (``play hand slot 2 -> lane 1``)."""
        a = action_id(action, "nivel_arena_v0.action_name")
        g = self.game
        if g is None or g.result is not None or self._illegal is not None:
            return action_meaning(a)
        return g.action_name(a)

    def legal_action_names(self) -> dict[int, str]:
        """The pending decision's legal actions by name (none once the game is over)."""
        self._require_reset("legal_action_names")
        if self._illegal is not None:
            return {}
        return {a: self.game.action_name(a) for a in self.game.legal_actions()}

    def render(self):
        if self.render_mode is None:
            warnings.warn("nivel_arena_v0.render: no render_mode was given", stacklevel=2)
            return None
        self._require_reset("render")
        text = self.game.render()
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "rgb_array":
            from .image import board_image
            return board_image(text)
        print(text + "\n")
        return None

    def close(self) -> None:
        pass


def agent_index(agent, where: str) -> int:
    """``player_0`` -> 0, ``player_1`` -> 1; anything else is a clear error."""
    try:
        return AGENTS.index(agent)
    except ValueError:
        raise ValueError(f"{where}: unknown agent {agent!r}; the agents are "
                         f"{', '.join(AGENTS)}") from None


def raw_env(**kwargs) -> NivelArenaEnv:
    """The environment class itself (PettingZoo's naming)."""
    return NivelArenaEnv(**kwargs)


def env(**kwargs) -> NivelArenaEnv:
    """The environment, checked as PettingZoo classic environments are -- calls before
    ``reset()`` and actions outside the space or not legal raise a clear error, and an
    illegal action leaves the game unchanged -- but by the class itself rather than by
    PettingZoo's wrapper layers (OrderEnforcingWrapper, AssertOutOfBoundsWrapper),
    which cost more per step than the whole encoder.  An illegal action raises
    ``IllegalActionError`` rather than ending the game, unless ``illegal_action="lose"``
    (TerminateIllegalWrapper's rule, built in: see the module docstring)."""
    return NivelArenaEnv(**kwargs)
