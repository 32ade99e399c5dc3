"""Nivel Arena as a Gymnasium single-agent environment, for sb3-contrib MaskablePPO.

The learner plays one seat; an embedded opponent plays the other, in the same
process, between the learner's steps.  The opponent is any callable
``(observation, action_mask) -> action`` or any object with ``act(observation,
action_mask)`` (the agents/ protocol); ``set_opponent`` swaps it from the next
episode, which is how a self-play opponent pool is sampled (``env_method`` under
a VecEnv).  Observations are the same vector as the AEC environment's, from the
learner's seat; ``action_masks()`` is the engine's legal actions.  An opponent whose
``needs_observation`` attribute is false (the random ones) is passed ``None`` instead of
an observation, which saves encoding one for every opponent decision.

    from sb3_contrib import MaskablePPO
    from nivel_env import NivelArenaGymEnv
    model = MaskablePPO("MlpPolicy", NivelArenaGymEnv(), n_steps=256)
    model.learn(10_000)

An illegal action of the learner raises ``IllegalActionError`` and changes nothing
(``illegal_action="raise"``, the default: training code must never play an illegal move
unnoticed).  ``illegal_action="lose"`` ends the episode instead, as PettingZoo's classic
games do: reward ``-1``, ``terminated``, ``info["illegal_action"]`` says why, and the
game is left as it was; that is what Gymnasium's and SB3's ``check_env`` need, since
they step unmasked random actions.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import players
from ..engine import N_ACTIONS, RuleConfig
from ..engine.errors import IllegalActionError, as_int
from ..engine.render import action_meaning
from ..players import RandomAgent
from .actions import ILLEGAL_REWARD, action_id, check_illegal_mode
from .setup import GameSource, check_seed


class OpponentError(IllegalActionError):
    """The embedded opponent raised or chose an illegal move; the episode is over."""


#: the default opponent's class (``nivel_env.players.RandomAgent``, also ``agents.RandomAgent``)
RandomOpponent = RandomAgent


def _as_policy(opponent):
    if opponent is None:
        return None
    if hasattr(opponent, "act") and callable(opponent.act):
        return opponent.act
    if callable(opponent):
        return opponent
    raise TypeError(f"NivelArenaGymEnv: the opponent must be callable (observation, "
                    f"action_mask) -> action or have an act() method, got "
                    f"{type(opponent).__name__}")


def check_seat(seat, where: str):
    """``0``, ``1`` (an integer by ``engine.errors.as_int``: Python, numpy or 0-d) or
    ``"random"``; anything else -- ``1.0``, ``True``, ``"1"`` -- is refused by name rather
    than failing at the first reset.  The one seat check of every env, batched ones too."""
    if isinstance(seat, str) and seat == "random":
        return seat
    s = as_int(seat)
    if s in (0, 1):
        return s
    raise ValueError(f"{where}: seat must be 0, 1 or 'random', got "
                     f"{type(seat).__name__} {seat!r}"[:200])


class NivelArenaGymEnv(gymnasium.Env):
    """Args:
        opponent: the other seat's policy (default: uniform random over legal actions).
        seat: ``0``, ``1`` or ``"random"`` (drawn each episode from the seeded stream).
        decks, deck_pool, config, card_db: as for the AEC environment.
        render_mode: ``"ansi"`` (the board as text), ``"human"`` (prints it) or
            ``"rgb_array"`` (the board drawn as an image of one fixed size, 720x1280;
            SB3's make_vec_env asks for it).
        illegal_action: ``"raise"`` (default) or ``"lose"`` (see the module docstring).
        obs: the observation layout, ``"full"`` (default) or ``"compact"`` (card table
            indices; the table is ``card_table()`` and ``metadata["card_table"]``).
        backend: the engine the games run on, ``"python"``, ``"native"`` or ``"auto"``
            (``engine.backend.resolve_backend``; None: ``NIVEL_BACKEND``, else the default).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, opponent=None, seat="random", decks=None, deck_pool=None,
                 config: RuleConfig | None = None, render_mode: str | None = None,
                 card_db=None, illegal_action: str = "raise", obs="full",
                 backend=None):
        seat = check_seat(seat, "NivelArenaGymEnv")
        self.illegal_action = check_illegal_mode(illegal_action, "NivelArenaGymEnv")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"NivelArenaGymEnv: render_mode must be one of "
                             f"{self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self._source = GameSource(decks, deck_pool, config, card_db, "NivelArenaGymEnv", obs,
                                  backend)
        self.config = self._source.config
        self.metadata = {**type(self).metadata, "observation_layout": self._source.layout.name}
        if self._source.layout.name == "compact":
            self.metadata["card_table"] = self._source.card_table()
        self.seat_option = seat
        self._default_opponent = RandomAgent()
        self.opponent = opponent
        self._opponent = _as_policy(opponent)
        self._next_opponent = None
        self.observation_space = self._source.layout.box()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.game = None
        self._failed = None              # why the episode ended early (an opponent's error)
        self._illegal = None             # why the learner lost by an illegal action ("lose")
        self._told = ()                  # the opponent's inform_action (players.informed)
        self.seat = 0
        self._mask = np.zeros(N_ACTIONS, dtype=bool)

    def set_opponent(self, opponent) -> None:
        """Play ``opponent`` from the next ``reset()`` on."""
        _as_policy(opponent)
        self._next_opponent = (opponent,)

    # ------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = check_seed(seed, "NivelArenaGymEnv.reset")
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"NivelArenaGymEnv.reset: options must be a dict (keys decks, "
                            f"seat, opponent), got {type(options).__name__}")
        super().reset(seed=seed)
        if seed is not None:
            self._source.reseed(seed)
            self._default_opponent = RandomAgent(self._source.stream.next())
        options = dict(options or {})
        if self._next_opponent is not None:
            self.opponent = self._next_opponent[0]
            self._opponent = _as_policy(self.opponent)
            self._next_opponent = None
        if "opponent" in options:
            self.opponent = options.pop("opponent")
            self._opponent = _as_policy(self.opponent)
        decks = options.pop("decks", None)
        seat = options.pop("seat", self.seat_option)
        if options:
            raise ValueError(f"NivelArenaGymEnv.reset: unknown option(s) "
                             f"{', '.join(sorted(map(str, options)))}; known: decks, seat, opponent")
        seat = check_seat(seat, "NivelArenaGymEnv.reset")
        self.game, self.decks = self._source.new_game(decks)
        self.seat = self._source.stream.below(2) if seat == "random" else seat
        self._failed = self._illegal = None
        opp = self.opponent
        if opp is not None and hasattr(opp, "reset") and callable(opp.reset):
            opp.reset()
        self._told = players.informed([opp]) if opp is not None else ()
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action):
        g = self.game
        if g is None:
            raise RuntimeError("NivelArenaGymEnv.step: call reset() first")
        if self._failed is not None:
            raise RuntimeError(f"NivelArenaGymEnv.step: the episode was ended by an error of "
                               f"the opponent ({self._failed}); call reset()")
        if g.result is not None or self._illegal is not None:
            raise RuntimeError("NivelArenaGymEnv.step: the episode is over; call reset()")
        a = action_id(action, "NivelArenaGymEnv.step")
        if self._told:                     # the opponent hears the learner's move too
            players.inform(self._told, g, self.seat, a)
        try:
            g.apply_action(a)              # raises IllegalActionError, state unchanged
        except IllegalActionError as e:
            if self.illegal_action == "raise" or not 0 <= a < N_ACTIONS:
                raise                      # (an id outside the action space always raises)
            return self._lose(a, e)
        self._advance()
        if self.render_mode == "human":
            self.render()
        reward, terminated, truncated = 0.0, False, False
        if g.result is not None:
            reward = float(g.result[self.seat])
            truncated = g.truncated
            terminated = not truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def _advance(self) -> None:
        """Let the opponent decide until the learner must act or the game ends."""
        g = self.game
        opp = 1 - self.seat
        policy, who = self._opponent, self.opponent
        if policy is None:
            who = self._default_opponent
        # an object with act() is asked through the player protocol; a bare callable is
        # called with (observation, action_mask) itself
        asked = who if policy is None or callable(getattr(who, "act", None)) else None
        enc = self._source.encoder
        while g.current_player == opp:
            legal = g.legal_actions()
            name = type(who).__name__
            try:
                if asked is not None:
                    a = players.ask(asked, g, opp, legal=legal, encoder=enc)
                else:
                    mask = np.zeros(N_ACTIONS, dtype=np.int8)
                    mask[legal] = 1
                    a = policy(enc.encode(g, opp, legal).copy(), mask)
            except Exception as e:
                self._fail(f"{name} raised {type(e).__name__}: {e}")
                raise OpponentError(f"NivelArenaGymEnv: the opponent ({name}) raised "
                                    f"{type(e).__name__}: {e}; the episode is over, call "
                                    f"reset()") from e
            try:
                a = action_id(a, "opponent")
                if self._told:
                    players.inform(self._told, g, opp, a)
                g.apply_action(a)
            except IllegalActionError as e:
                self._fail(f"{name} chose {a!r}")
                raise OpponentError(f"NivelArenaGymEnv: the opponent ({name}) chose {a!r}: "
                                    f"{e}; the episode is over, call reset()") from None

    def _lose(self, a: int, error: IllegalActionError):
        """``illegal_action="lose"``: the episode ends with -1 for the learner, the game
        as it was (PettingZoo classic's rule for an illegal move)."""
        self._illegal = f"the learner chose {a} ({action_meaning(a)}): {error}"
        obs = self._observe()
        self._mask[:] = False
        info = self._info()
        info["illegal_action"] = self._illegal
        returns = [0.0, 0.0]
        returns[self.seat] = ILLEGAL_REWARD
        info["returns"] = tuple(returns)
        if self.render_mode == "human":
            self.render()
        return obs, ILLEGAL_REWARD, True, False, info

    def _fail(self, why: str) -> None:
        """End the episode after an opponent's error: the learner's move was applied and
        the opponent's turn cannot go on, so no later step may be taken as its move."""
        self._failed = why
        self._mask[:] = False

    # ------------------------------------------------------------ views
    def _observe(self) -> np.ndarray:
        g = self.game
        mask = self._mask
        mask[:] = False
        legal = None
        if g.result is None:
            legal = g.legal_actions()
            mask[legal] = True
        return self._source.encoder.encode(g, self.seat, legal).copy()

    def _info(self) -> dict:
        g = self.game
        info = {"seat": self.seat, "turn": g.turn,
                "decision": g.decision_name}
        if g.result is not None:
            info["returns"] = g.result
        return info

    def card_table(self) -> np.ndarray:
        """The card table of the pool being played, which the compact observation's
        indices point into (``encoder.card_table``): float32 ``(rows, columns)``."""
        return self._source.card_table()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's pending decision (sb3-contrib's hook)."""
        return self._mask.copy()

    def action_name(self, action: int) -> str:
        """Name an action id: in the context of the learner's pending decision (its
        cards and lanes), or -- before ``reset()``, after the episode is over -- what the
        id means in the fixed action table (``play hand slot 2 -> lane 1``)."""
        a = action_id(action, "NivelArenaGymEnv.action_name")
        g = self.game
        if g is None or g.result is not None or self._illegal or self._failed:
            return action_meaning(a)
        return g.action_name(a)

    def render(self):
        if self.render_mode is None or self.game is None:
            return None
        text = self.game.render(perspective=None)
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "rgb_array":
            from .image import board_image
            return board_image(text)
        print(text + "\n")
        return None
