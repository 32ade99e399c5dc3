"""A game between a person and an AI opponent, for any screen that shows one.

The terminal game (``play``) and the browser game (``serve``) both sit a person at one
seat and an agent at the other.  What they share lives here, once: choosing decks and
the opponent, asking the opponent for its moves, playing a forced move by itself,
checking the person's move against the engine's legal list (an illegal move raises and
changes nothing), recording the replay and narrating what happened from the person's
side.  A screen only shows ``PlaySession``'s game and log and passes moves in.
"""
from __future__ import annotations

import secrets

from . import players
from .cards import CardDataError, Deck, DeckError, list_decks, load_deck
from .engine import new_game
from .engine.errors import as_int
from .env.encoder import Encoder
from .env.single import check_seat
from .narrate import Narrator
from .replay import ReplayRecorder


#: where a seed the game draws comes from: 2^63 values, so that the opening hand (which
#: the person sees) cannot pick the seed out of a short list -- the seed with the moves
#: deals the opponent's hand and both decks again.  The browser game draws from it too.
SEED_SPACE = 2 ** 63


#: ``PlaySession``'s default think time: the one interactive play uses
#: (``players.PLAY_THINK_SECONDS``), read when a session starts
PLAY_THINK = object()


class SetupError(ValueError):
    """A game cannot be set up: an unknown deck or opponent; the message says which."""


class IllegalMove(ValueError):
    """A move that is not legal now; the game is unchanged."""


def default_decks(seed: int) -> tuple[str, str]:
    """The bundled decks a seed deals when none are named (the person's, the opponent's)."""
    names = list_decks()
    return names[seed % len(names)], names[(seed // len(names) + 1 + seed) % len(names)]


def load_opponent_named(spec: str, difficulty: str = "hard", seed: int = 0,
                        think_seconds: float | None = None):
    """The player ``spec`` names (``players.load``: the ``agents`` package's loader) with
    its failures turned into a ``SetupError``.  With ``think_seconds`` the agent is made
    ready for a waiting person (``agents.opponents.for_play``): a search stops within that
    wall time a move (unless the spec names its own ``max_ms``), and torch runs one
    thread."""
    try:
        return players.load(spec, difficulty=difficulty, seed=seed,
                            think_seconds=think_seconds)
    except ImportError as e:                      # agents.policy says what to install
        raise SetupError(f"opponent {spec!r}: {e}") from None
    except Exception as e:                                  # noqa: BLE001 -- a clear message
        raise SetupError(f"cannot load opponent {spec!r}: {e}") from None


class PlaySession:
    """One game: the person at seat ``human``, ``opponent`` (an agent spec for
    ``agents.load_opponent``) at the other, called ``label`` on screen and in the replay
    (default: the spec).  Decks are names, files or ``Deck``s; ``config`` is the
    ``RuleConfig`` (None: the defaults).

    ``log`` holds every narrated line so far; ``advance`` (called by the constructor and
    after each move) lets the opponent move, and plays the person's forced moves when
    ``auto`` is set, until the person has a real decision or the game is over.

    ``seed`` None draws one from ``SEED_SPACE``; ``seed_given`` says whether the caller
    chose it.  A screen shows a drawn seed only once the game is over (``over``), since
    the seed and the moves so far rebuild every hidden card.

    ``think_seconds`` caps the opponent's wall time a move, as a waiting person needs
    (default ``PLAY_THINK``: ``players.PLAY_THINK_SECONDS``; a search stops with
    its best move so far; None: no cap).

    ``hint()`` is the coach's move for the person and why (``nivel_env.coach``); with
    ``coach`` set the screens show it at every decision (the guided first game,
    ``tutorial()``), otherwise when asked.
    """

    def __init__(self, deck: str | None = None, opponent_deck: str | None = None,
                 opponent: str = "heuristic", difficulty: str = "hard",
                 seat: int | None = None, seed: int | None = None, db=None,
                 auto: bool = True, label: str | None = None, meta: dict | None = None,
                 config=None, coach: bool = False, think_seconds=PLAY_THINK):
        if seat is not None and not (isinstance(seat, str) and seat == "random"):
            try:
                seat = check_seat(seat, "PlaySession")        # 0 or 1, or refused by name
            except ValueError as e:
                raise SetupError(str(e)) from None
        self.seed_given = seed is not None
        self.seed = seed if seed is not None else secrets.randbelow(SEED_SPACE)
        dealt = default_decks(self.seed)

        def deck_of(d):
            return d if isinstance(d, Deck) else load_deck(d, db)
        try:
            mine = deck_of(deck or dealt[0])
            theirs = deck_of(opponent_deck or dealt[1])
        except (CardDataError, DeckError) as e:
            raise SetupError(str(e)) from None
        if think_seconds is PLAY_THINK:
            think_seconds = players.PLAY_THINK_SECONDS
        self.agent = load_opponent_named(opponent, difficulty, self.seed, think_seconds)
        if hasattr(self.agent, "reset"):
            self.agent.reset()
        self._told = players.informed([self.agent])      # told both seats' moves
        self.opponent = label or opponent
        self.difficulty, self.auto = difficulty, auto
        self.human = seat if seat in (0, 1) else self.seed & 1      # None, "random"
        self.decks = (mine, theirs) if self.human == 0 else (theirs, mine)
        self.g = new_game(*self.decks, seed=self.seed, config=config, db=mine.db)
        self.players = ["you" if p == self.human else f"AI ({self.opponent})"
                        for p in (0, 1)]
        self.recorder = ReplayRecorder(self.g, self.seed, self.decks, config,
                                       players=self.players,
                                       meta={"opponent": opponent, "difficulty": difficulty,
                                             **(meta or {})})
        self.coaching = coach
        self._coach = None
        self._hint: tuple | None = None              # (game, moves, Hint): the last hint
        self.story = Narrator(self.g, self.human)
        self.log: list[str] = self.story.new_lines()
        self._encoder = None
        self.advance()

    # ------------------------------------------------------------------ reading
    @property
    def my_deck(self):
        return self.decks[self.human]

    @property
    def their_deck(self):
        return self.decks[1 - self.human]

    @property
    def over(self) -> bool:
        return self.g.result is not None

    @property
    def moves(self) -> int:
        """Moves made so far, by both players: a stale client's move is caught by it."""
        return len(self.recorder.rows) - 1          # rows after the header

    def legal(self) -> list[int]:
        """The person's legal moves now ([] while the game is over)."""
        if self.over or self.g.current_player != self.human:
            return []
        return self.g.legal_actions()

    def hint(self):
        """The coach's move for the person now, why, and a lesson the first time its part
        of the game comes up (``coach.Hint``); None while it is not their move.  The same
        answer however often it is asked at one position."""
        if not self.legal():
            return None
        if self._hint is None or self._hint[0] is not self.g or self._hint[1] != self.moves:
            if self._coach is None:
                from .coach import Coach
                self._coach = Coach(self.human, seed=self.seed)
            self._hint = (self.g, self.moves, self._coach.hint(self.g))
        return self._hint[2]

    def outcome(self) -> str | None:
        """'win', 'loss' or 'draw' once the game is over."""
        if not self.over:
            return None
        r = self.g.returns()[self.human]
        return "win" if r > 0 else "loss" if r < 0 else "draw"

    # ------------------------------------------------------------------ moving
    def _apply(self, p: int, a: int) -> None:
        name, turn = self.g.action_name(a), self.g.turn
        if self._told:
            players.inform(self._told, self.g, p, a)
        self.g.apply_action(a)
        self.recorder.step(p, a, name, turn)
        self.log.extend(self.story.new_lines())

    def _opponent_action(self, legal: list[int]) -> int:
        agent, g = self.agent, self.g
        if self._encoder is None and players.reads_observation(agent):
            self._encoder = Encoder(g.db)
        return players.ask(agent, g, legal=legal, encoder=self._encoder)

    def advance(self) -> None:
        """Play the opponent's moves and the person's forced ones until the person must
        choose (or the game ends)."""
        while not self.over:
            legal = self.g.legal_actions()
            p = self.g.current_player
            if p != self.human:
                self._apply(p, self._opponent_action(legal))
            elif self.auto and len(legal) == 1:              # nothing to decide
                self.log.append(f"(your only move, played for you: "
                                f"{self.g.action_name(legal[0])})")
                self._apply(p, legal[0])
            else:
                return

    def play(self, action: int) -> None:
        """The person's move ``action`` (an id of the action space), then the opponent's
        replies.  Raises ``IllegalMove`` -- changing nothing -- when it is not legal now."""
        legal = self.legal()
        if not legal:
            raise IllegalMove("the game is over" if self.over else "it is not your move")
        a = as_int(action)                       # Python or numpy int; not bool or float
        if a is None or a not in legal:
            raise IllegalMove(f"move {action!r} is not legal now; legal: {legal}")
        action = a
        if self._hint is not None and self._hint[0] is self.g and \
                self._hint[1] == self.moves:             # the hint shown here: its lesson
            self._coach.given(self.g, self._hint[2])     # is not given again
        self._apply(self.human, action)
        self.advance()

    def surrender(self) -> None:
        """The person leaves: a surrender (1.2.4), recorded like any other move."""
        if self.over:
            return
        self.g.surrender(self.human)
        self.recorder.surrender(self.human)
        self.log.extend(self.story.new_lines())

    def replay_lines(self) -> list[str]:
        """The game so far as replay lines (JSON Lines, docs/replays.md)."""
        return self.recorder.lines()


def tutorial(**options) -> PlaySession:
    """The guided first game (``coach.TUTORIAL``): a fixed deal against a gentle opponent,
    the coach's hint shown at every decision."""
    from .coach import TUTORIAL
    setup = {**TUTORIAL, **options}
    return PlaySession(setup.pop("deck"), setup.pop("opponent_deck"), setup.pop("opponent"),
                       coach=True, meta={"tutorial": True, **setup.pop("meta", {})},
                       **setup)


__all__ = ["IllegalMove", "PlaySession", "SEED_SPACE", "SetupError", "default_decks",
           "load_opponent_named", "tutorial"]
