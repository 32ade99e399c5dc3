"""Golden playthroughs: a seeded game written out as text, one block per decision.

A block holds the turn, phase and decision, a digest of the full state and of each
player's observation, every legal action with its name, the action chosen, and
the engine events it caused.  Committed files are diffed line by line by the
tests, so any change in rules, action naming, observation or event output shows
up as the first line that differs.  When a change is intended, regenerate them
(``python tests/engine/test_golden.py --regenerate``) and review the diff.
"""
from __future__ import annotations

import json

from ..engine import new_game
from ..engine import const as K
from ..engine.rng import next_u64, seed_state
from .determinism import obs_digest, state_digest


def playthrough(deck_0, deck_1, seed: int, config=None) -> str:
    """The text of the game of ``seed`` with moves drawn uniformly from ``seed``."""
    from ..env.encoder import LAYOUT_VERSION, Encoder
    g = new_game(deck_0, deck_1, seed=seed, config=config)
    enc = Encoder(g.db)
    lines = [f"# seed {seed}: {deck_0.name} (player 0) vs {deck_1.name} (player 1)",
             f"# observation layout {LAYOUT_VERSION}, moves uniform from seed {seed}"]
    state = seed_state(seed)
    seen = 0
    step = 0
    while True:
        for e in g.events[seen:]:
            lines.append("  event " + json.dumps(e.to_dict(), sort_keys=True, ensure_ascii=False))
        seen = len(g.events)
        st = state_digest(g, 12)
        if g.is_terminal():
            lines.append(f"[{step}] over: returns {list(g.returns())} after turn {g.turn} "
                         f"| state {st}")
            return "\n".join(lines) + "\n"
        legal = g.legal_actions()
        obs = [obs_digest(enc, g, p, 12) for p in (0, 1)]
        lines.append(f"[{step}] turn {g.turn} {K.PHASE_NAMES[g.phase]}: "
                     f"{g.decision_name} for player {g.current_player} "
                     f"| state {st} | obs {obs[0]} {obs[1]}")
        lines.append("  legal " + " | ".join(f"{a} {g.action_name(a)}" for a in legal))
        state, r = next_u64(state)
        a = legal[r % len(legal)]
        lines.append(f"  chose {a} {g.action_name(a)}")
        g.apply_action(a)
        step += 1


__all__ = ["playthrough"]
