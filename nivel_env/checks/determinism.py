"""Determinism: one seed and one action list give one game, everywhere.

A game's trace is a digest per decision of its full state (``to_dict``, which
includes the events) and of both players' observations.  The same seed and
actions must give the same trace in two instances, after ``reset`` of one
environment, in a subprocess with another ``PYTHONHASHSEED``, when the game is
pickled or sent through ``to_dict``/JSON/``from_dict`` halfway and continued, and when
the whole environment is deep-copied or pickled halfway and played on.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys

from dataclasses import fields

from ..engine import RuleConfig, new_game
from ..engine.rng import next_u64, seed_state


def rules_in_digest(cfg: RuleConfig) -> dict:
    """The rule options a state digest hashes: those ``cfg`` sets to something other than
    their default.  So a new ``RuleConfig`` option, added at its default, changes no digest
    of a game played before it existed (the golden files stay), while a game under another
    value of any option digests differently from the same game under the default rules.
    (Serialisation -- ``to_dict``, replays, pickles -- keeps the whole config.)"""
    return {f.name: getattr(cfg, f.name) for f in fields(cfg)
            if getattr(cfg, f.name) != f.default}


def state_digest(g, n: int = 16) -> str:
    """A hash of the full state (events included), naming each card instance by its card
    id (``to_dict``'s ``card_ids``) rather than by its position in the card pool or the
    pool's version, so adding an unrelated card to the pool leaves it unchanged.  (Ability
    and keyword keys are positions too; a card added after the others keeps them.)  Of the
    rules it hashes only the options set away from their defaults (``rules_in_digest``),
    so adding a rule option at its default leaves it unchanged too."""
    d = g.to_dict()
    del d["defs"], d["card_pool_version"]
    d["cfg"] = rules_in_digest(g.cfg)
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:n]


def obs_digest(enc, g, p: int, n: int = 16) -> str:
    """A hash of player ``p``'s observation (with their playable slots when acting)."""
    legal = g.legal_actions() if g.current_player == p else None
    return hashlib.sha256(enc.encode(g, p, legal).tobytes()).hexdigest()[:n]


def trace(g, actions: list[int] | None = None, policy_seed: int = 0, observe: bool = True,
          start: int = 0):
    """Play ``g`` on (``actions[start:]``, or random moves from ``policy_seed``) and
    return (actions taken, one digest line per decision)."""
    enc = None
    if observe:
        from ..env.encoder import Encoder
        enc = Encoder(g.db)
    taken, lines = [], []
    state = seed_state(policy_seed)
    i = start
    while True:
        line = state_digest(g)
        if enc is not None:
            line += " " + obs_digest(enc, g, 0) + " " + obs_digest(enc, g, 1)
        lines.append(line)
        if g.is_terminal() or (actions is not None and i >= len(actions)):
            return taken, lines
        if actions is not None:
            a = actions[i]
        else:
            legal = g.legal_actions()
            state, r = next_u64(state)
            a = legal[r % len(legal)]
        g.apply_action(a)
        taken.append(a)
        i += 1


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"decision {i}: {x} != {y}"
    return f"lengths {len(a)} != {len(b)}"


def determinism_errors(deck_0, deck_1, seed: int, config=None, card_files=(),
                       subprocess_check: bool = True) -> tuple[list[str], int]:
    """(every way the game of ``seed``, random moves, fails to reproduce; its length)."""
    out = []
    g = new_game(deck_0, deck_1, seed=seed, config=config)
    db = g.db
    actions, ref = trace(g, policy_seed=seed)
    # two instances
    _, again = trace(new_game(deck_0, deck_1, seed=seed, config=config), actions)
    if again != ref:
        out.append(f"a second instance diverged at {_first_difference(ref, again)}")
    # round trips halfway
    k = len(actions) // 2
    for how in ("pickle", "to_dict/JSON/from_dict"):
        h = new_game(deck_0, deck_1, seed=seed, config=config)
        for a in actions[:k]:
            h.apply_action(a)
        if how == "pickle":
            h2 = pickle.loads(pickle.dumps(h))
        else:
            h2 = type(h).from_dict(json.loads(json.dumps(h.to_dict())), db)   # either engine
        if h2 != h:
            out.append(f"{how} round trip at decision {k} does not give an equal game")
            continue
        _, rest = trace(h2, actions, start=k)
        if rest != ref[k:]:
            out.append(f"after a {how} round trip at decision {k} the game diverged at "
                       f"{_first_difference(ref[k:], rest)} (counted from {k})")
    # a different seed gives a different game
    _, other = trace(new_game(deck_0, deck_1, seed=seed + 1, config=config),
                     policy_seed=seed, observe=False)
    if other[0] == ref[0].split()[0] or other == [r.split()[0] for r in ref]:
        out.append(f"seeds {seed} and {seed + 1} give the same game")
    # reset of one environment
    out += _env_reset_errors(deck_0, deck_1, seed, config)
    # another process, another hash seed
    if subprocess_check:
        out += _subprocess_errors(deck_0, deck_1, seed, actions, ref, config, card_files)
    return out, len(actions)


def _env_lines(e, actions, start: int, stop: int | None = None) -> list[str]:
    """One digest of both players' observations and masks per decision, stepping
    ``actions[start:stop]``."""
    lines, i = [], start
    stop = len(actions) if stop is None else stop
    while not e.game.is_terminal():
        obs = [e.observe(agent) for agent in e.agents]
        lines.append(hashlib.sha256(b"".join(o["observation"].tobytes() +
                                             o["action_mask"].tobytes()
                                             for o in obs)).hexdigest()[:16])
        if i >= stop:
            break
        e.step(actions[i])
        i += 1
    return lines


def _env_reset_errors(deck_0, deck_1, seed, config) -> list[str]:
    """Two episodes of one environment after reset(seed): random moves in the first, the
    same moves in the second; then copies of the environment (``copy.deepcopy`` and a
    pickle round trip) made halfway through and played on.  Observations and masks must
    match the first episode's at every decision."""
    import copy

    from ..env.aec import raw_env
    e = raw_env(decks=(deck_0, deck_1), config=config, card_db=deck_0.db)
    e.reset(seed=seed)
    state, actions = seed_state(seed), []
    while not e.game.is_terminal():
        legal = e.game.legal_actions()
        state, r = next_u64(state)
        actions.append(legal[r % len(legal)])
        e.step(actions[-1])
    e.reset(seed=seed)
    ref = _env_lines(e, actions, 0)
    out = []
    e.reset(seed=seed)
    k = len(actions) // 2
    first = _env_lines(e, actions, 0, k)
    if first != ref[:len(first)]:
        return [f"reset(seed={seed}) of the same environment diverged at "
                f"{_first_difference(ref, first)}"]
    for how, make in (("copy.deepcopy", copy.deepcopy),
                      ("pickle round trip", lambda x: pickle.loads(pickle.dumps(x)))):
        try:
            copied = make(e)
        except Exception as exc:                 # a copy that fails is a finding, not a crash
            out.append(f"an environment {how} at decision {k} failed: "
                       f"{type(exc).__name__}: {exc}")
            continue
        rest = _env_lines(copied, actions, k)
        if rest != ref[k:]:
            out.append(f"an environment {how} at decision {k} observes differently at "
                       f"{_first_difference(ref[k:], rest)} (counted from {k})")
    rest = _env_lines(e, actions, k)             # the original after being copied
    if rest != ref[k:]:
        out.append(f"reset(seed={seed}) of the same environment diverged at "
                   f"{_first_difference(ref[k:], rest)} (counted from {k})")
    return out


def deck_text(deck) -> str:
    """The deck as deck-file text, card order kept (instance ids follow it)."""
    return f"name: {deck.name}\nleader: {deck.leader.id}\n" + \
        "".join(f"1 {c.id}\n" for c in deck.cards)


def _subprocess_errors(deck_0, deck_1, seed, actions, ref, config, card_files) -> list[str]:
    job = {"decks": [deck_text(deck_0), deck_text(deck_1)], "seed": seed, "actions": actions,
           "config": config.to_dict() if config else None,
           "cards": [str(f) for f in card_files]}
    out = []
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        r = subprocess.run([sys.executable, "-m", "nivel_env.checks.determinism"],
                           input=json.dumps(job), capture_output=True, text=True, env=env,
                           timeout=600)
        if r.returncode != 0:
            out.append(f"the subprocess (PYTHONHASHSEED={hash_seed}) failed: "
                       f"{r.stderr.strip()[-500:]}")
            continue
        lines = r.stdout.split("\n")[:-1]
        if lines != ref:
            out.append(f"a subprocess with PYTHONHASHSEED={hash_seed} diverged at "
                       f"{_first_difference(ref, lines)}")
    return out


def _child() -> int:
    """Replay a job from stdin and print its trace (the subprocess side)."""
    from ..cards import load_card_db
    from ..cards.deck import parse_deck
    from ..cards.db import bundled_card_files
    from ..engine import RuleConfig
    job = json.loads(sys.stdin.read())
    db = load_card_db(bundled_card_files() + job["cards"]) if job["cards"] else load_card_db()
    decks = [parse_deck(text, db, f"<deck {i}>") for i, text in enumerate(job["decks"])]
    cfg = RuleConfig.from_dict(job["config"]) if job["config"] else None
    _, lines = trace(new_game(*decks, seed=job["seed"], config=cfg), job["actions"])
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(_child())
