"""Random-play soak: many seeded games, every invariant at every decision.

A failure names the game's seed, decks and policies and carries its action list,
so ``replay_game`` rebuilds the exact position for a debugger or a bug report.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ..engine import IllegalActionError, new_game
from ..engine.rng import next_u64, seed_state
from .invariants import card_count, invariant_errors, play_cost_errors
from .mask import mask_errors
from .policies import POLICIES

#: A bound far above any real game (a capped game has a few thousand decisions):
#: a game that passes it is looping.
MAX_DECISIONS = 50_000


@dataclass
class GameCheck:
    """One checked game: how to replay it and what went wrong, if anything."""
    seed: int
    decks: tuple[str, str]
    policies: tuple[str, str]
    actions: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    turns: int = 0
    decisions: int = 0
    masks_checked: int = 0
    observations_checked: int = 0
    #: what the game exercised, from its event log: (player's policy, what) -> count
    coverage: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def describe(self) -> str:
        head = (f"seed {self.seed}, decks {self.decks[0]} vs {self.decks[1]}, policies "
                f"{self.policies[0]}/{self.policies[1]}, after {len(self.actions)} actions "
                f"(turn {self.turns})")
        return head + "".join(f"\n  - {e}" for e in self.errors[:10]) + \
            f"\n  actions: {self.actions}"


#: event -> the coverage name the soak reports
COVERED = {"attack": "attacks", "play": "plays", "guardian": "Guardian payments",
           "defend": "defenses", "skill": "skills", "activate": "activations",
           "awaken": "awakenings"}
OBSERVE_EVERY = 3       # decisions between observation-bounds checks (both players)


def _coverage(g, policies) -> dict:
    out: dict = {}
    for e in g.events:
        t = e.kind
        name = COVERED.get(t)
        if t == "damage" and e.trigger:                   # 4.5.4.3: its trigger resolves
            name = "triggers"
        if name is not None and getattr(e, "player", None) in (0, 1):
            key = (policies[e.player], name)
            out[key] = out.get(key, 0) + 1
    return out


def observation_errors(enc, g) -> list[str]:
    """Both players' observations lie inside the declared space (finite, in bounds)."""
    import numpy as np

    from ..env.encoder import OBS_HIGH, OBS_LOW, OFFSETS
    out = []
    for p in (0, 1):
        legal = g.legal_actions() if g.current_player == p else None
        v = enc.encode(g, p, legal)
        bad = np.flatnonzero(~((v >= OBS_LOW) & (v <= OBS_HIGH)))      # NaN fails too
        if bad.size:
            i = int(bad[0])
            block = max((o, n) for n, o in OFFSETS.items() if o <= i)[1]
            out.append(f"player {p}'s observation value {i} (block {block}) is {v[i]}, "
                       f"outside [{OBS_LOW}, {OBS_HIGH}] ({bad.size} values out)")
    return out


def play_checked(deck_0, deck_1, seed: int, policies=("random", "random"), config=None,
                 check_mask: bool = False, check_observations: bool = False) -> GameCheck:
    """Play one game with the given policies (names in POLICIES), checking every
    invariant at every decision, every action id when ``check_mask``, and both players'
    observations against the observation space's bounds every ``OBSERVE_EVERY``
    decisions when ``check_observations``."""
    rec = GameCheck(seed, (deck_0.name, deck_1.name), tuple(policies))
    chooser = [POLICIES[p] for p in policies]
    try:
        g = new_game(deck_0, deck_1, seed=seed, config=config)
    except Exception as e:                                   # noqa: BLE001 -- reported
        rec.errors.append(f"new_game raised {type(e).__name__}: {e}")
        return rec
    counts = (card_count(g, 0), card_count(g, 1))
    state = seed_state(seed ^ 0x50A4)
    enc = None
    if check_observations:
        from ..env.encoder import Encoder
        enc = Encoder(g.db)
    while True:
        rec.turns = g.turn
        errs = invariant_errors(g, counts, MAX_DECISIONS, rec.decisions)
        if check_mask and not errs:
            errs = mask_errors(g)
            rec.masks_checked += 1
        if enc is not None and not errs and (rec.decisions % OBSERVE_EVERY == 0
                                             or g.is_terminal()):
            errs = observation_errors(enc, g)
            rec.observations_checked += 1
        if errs:
            rec.errors.extend(errs)
            return rec
        if g.is_terminal() or rec.decisions > MAX_DECISIONS:
            rec.coverage = _coverage(g, policies)
            return rec
        legal = g.legal_actions()
        p = g.current_player
        state, r = next_u64(state)
        a = chooser[p](g, legal, r)
        rec.actions.append(a)
        errs = play_cost_errors(g, a)
        if errs:
            rec.errors.extend(errs)
            return rec
        try:
            g.apply_action(a)
        except Exception as e:                               # noqa: BLE001 -- reported
            rec.errors.append(f"legal action {a} raised {type(e).__name__}: {e}")
            return rec
        rec.decisions += 1


def replay_game(deck_0, deck_1, seed: int, actions: list[int], config=None):
    """The game of a GameCheck rebuilt up to its last action (for debugging)."""
    g = new_game(deck_0, deck_1, seed=seed, config=config)
    for i, a in enumerate(actions):
        try:
            g.apply_action(a)
        except IllegalActionError as e:
            raise IllegalActionError(f"replay step {i}: {e}") from None
    return g


def schedule(decks: list, games: int, seed: int, policies=tuple(POLICIES)):
    """Game i's (seed, deck pair, policy pair).  Every deck plays in every run of
    len(decks) games (a deck meets each other deck, then itself, as rounds go on),
    so a short soak still covers every deck; every pair of policies comes round."""
    n = len(decks)
    combos = list(itertools.product(policies, repeat=2))
    for i in range(games):
        a = i % n
        b = (a + 1 + i // n) % n
        yield seed + i, (a, b), combos[(i + i // (n * n)) % len(combos)]


__all__ = ["GameCheck", "MAX_DECISIONS", "observation_errors", "play_checked", "replay_game",
           "schedule"]
