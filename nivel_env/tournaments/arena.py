"""Play games between agents over the engine, from each seat's observation.

The one game loop for evaluation, training callbacks and tests: each agent is asked for
its move through the player protocol (``nivel_env.players.ask``), exactly as in the
environments, without the AEC bookkeeping: its own seat's observation (unless it declares
``needs_observation = False``) and the mask, or -- a search, ``needs_state = True`` --
``act_state(game)``, reading the game only through worlds redrawn from its player's view.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from nivel_env.engine import RuleConfig, new_game
from nivel_env.env.encoder import Encoder
from nivel_env.players import ask, inform, informed


@dataclass(frozen=True)
class GameResult:
    returns: tuple          # (r0, r1): +1 / -1, or 0 / 0 for a draw or the turn cap
    turns: int
    decisions: int
    first: int              # the seat that went first


class CardLog:
    """Which cards each seat had in hand and played in one game, by card id, for card
    analytics (``tournaments.card_stats``): ``opening[p]`` the hand once p's mulligan is
    done (5.1.6; the first player does not draw on turn 1, 6.3.1.1, so nothing else is in
    it yet), ``mulliganed[p]`` the five cards p's mulligan sent back into the deck (5.1.6.1;
    empty when p kept; the reshuffle may deal some of them again), ``in_hand[p]`` every
    card instance in p's hand at some point from then on (drawn, searched or returned;
    cards sent back by a mulligan are not; ``sides()`` gives card ids), ``played[p]`` the
    cards p played (units, items, skills) in order, and ``played_turns[p]`` beside it the
    seat's own turn number when it played each (its first turn is 1: the turns of 6.1
    that p was turn player of, counted from the log's ``turn`` events; a card is played
    only in its owner's main phase, 6.4.1.1).  ``update`` after each action reads the
    hands and the events since the last call."""

    PLAY_EVENTS = ("play", "equip", "skill")

    def __init__(self, g):
        self.opening: list = [None, None]
        self.mulliganed: list = [[], []]
        self.in_hand: list = [set(), set()]
        self.played: list = [[], []]
        self.played_turns: list = [[], []]
        self._dealt: list = [[], []]     # each seat's hand before its mulligan (5.1.6)
        self._turns = [0, 0]             # turns each seat has begun (6.1)
        self._seen = 0
        if not g.cfg.mulligan:
            self.opening = [self._ids(g, g.hand[0]), self._ids(g, g.hand[1])]
        self.update(g)

    @staticmethod
    def _ids(g, iids) -> list:
        return [g.card(i).id for i in iids]

    def update(self, g) -> None:
        log = g.log
        for e in log[self._seen:]:
            kind = e.kind
            if kind == "mulligan":
                if e.redraw:             # 5.1.6.1: the hand dealt before this action went back
                    self.mulliganed[e.player] = sorted(self._ids(g, self._dealt[e.player]))
                self.opening[e.player] = self._ids(g, g.hand[e.player])
            elif kind == "turn":
                self._turns[e.player] += 1
            elif kind in self.PLAY_EVENTS:
                self.played[e.player].append(e.card)
                self.played_turns[e.player].append(self._turns[e.player])
        self._seen = len(log)
        for p in (0, 1):                 # instance ids here; card ids once, in sides()
            if self.opening[p] is not None:
                self.in_hand[p].update(g.hand[p])
            else:
                self._dealt[p] = list(g.hand[p])
        self._g = g

    def sides(self) -> list[dict]:
        return [{"opening": sorted(self.opening[p] or []),
                 "mulliganed": list(self.mulliganed[p]),
                 "in_hand": sorted(set(self._ids(self._g, self.in_hand[p]))),
                 "played": list(self.played[p]),
                 "played_turns": list(self.played_turns[p])} for p in (0, 1)]


def play_game(deck_0, deck_1, seed: int, agents, config: RuleConfig | None = None,
              encoder: Encoder | None = None, record: list | None = None,
              think_times: tuple | None = None, mirror: bool = False,
              cards: list | None = None) -> GameResult:
    """One seeded game; ``agents[i]`` plays seat i.  ``record`` (a list) receives the
    actions taken, for replays; ``think_times`` (two lists) receives each seat's seconds
    per real decision (more than one legal move: what a player waits for).  ``mirror``:
    the other half of a duplicate deal for decks (``new_game``).  ``cards`` (a list)
    receives each seat's ``CardLog.sides()`` entry: the cards it held and played."""
    g = new_game(deck_0, deck_1, seed=seed, config=config, mirror=mirror)
    card_log = CardLog(g) if cards is not None else None
    enc = encoder if encoder is not None and encoder.db is g.db else Encoder(g.db)
    for a in agents:
        if hasattr(a, "reset"):
            a.reset()
    told = informed(agents)           # players told every move (a belief search)
    n = 0
    while g.result is None:
        p = g.current_player
        legal = g.legal_actions()
        t0 = time.perf_counter()
        a = ask(agents[p], g, p, legal=legal, encoder=enc)
        if think_times is not None and len(legal) > 1:
            think_times[p].append(time.perf_counter() - t0)
        if told:
            inform(told, g, p, a)
        g.apply_action(a)
        if record is not None:
            record.append(a)
        if card_log is not None:
            card_log.update(g)
        n += 1
    if card_log is not None:
        cards.extend(card_log.sides())
    return GameResult(g.result, g.turn, n, g.first)


def deals(decks, games: int, seed: int) -> list[tuple]:
    """``(deck_0, deck_1, seed)`` of each of ``games`` deals: deck pairs cycle through
    ``decks`` so every pairing comes round.  One home for the deal order, so the final
    evaluation of train.py (``policy_eval``) and ``head_to_head`` play the same deals."""
    n = len(decks)
    return [(decks[i % n], decks[(i * 3 + 1 + i // n) % n], seed * 1_000_003 + i)
            for i in range(games)]


def head_to_head(agent_a, agent_b, decks, games: int, seed: int = 0,
                 config: RuleConfig | None = None) -> dict:
    """``games`` seeds, each played twice with the seats swapped (same decks, same seed);
    deck pairs cycle through ``decks`` (a list of Deck).  Returns A's score and counts."""
    enc = Encoder(decks[0].db)
    wins = losses = draws = 0
    for d0, d1, s in deals(decks, games, seed):
        for swap in (False, True):
            agents = (agent_b, agent_a) if swap else (agent_a, agent_b)
            r = play_game(d0, d1, s, agents, config, enc).returns
            ra = r[1] if swap else r[0]
            wins += ra > 0
            losses += ra < 0
            draws += ra == 0
    n = wins + losses + draws
    return {"games": n, "wins": wins, "losses": losses, "draws": draws,
            "score": (wins + 0.5 * draws) / n if n else 0.0}
