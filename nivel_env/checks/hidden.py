"""Hidden information: everything a player's agent can read is a function of what that
player may see (3.1.4, 3.1.5, 3.2.2, 3.8.2, 11.2.1) and nothing else.

Positions come from games stepped through the AEC environment, so the mask checked is
the one agents receive.  At each checked position and for each player, four channels --
the observation, the action mask, the env's ``infos`` entry and the names of the actions
offered (``action_name``) -- must be byte-identical in worlds that differ only in what
that player cannot see:

* ``determinize``: the opponent's hand and deck, and the player's own deck, shuffled;
* ``substitute``: those cards replaced by other cards of the pool;
* ``relabel``: those card instances renamed.

The game's generator is redrawn in each.  Swapping a card of the player's own hand must
change the observation (the check would pass trivially on a blind encoder otherwise).

Two more readers of the game are held to the same:

* the narration (``narration_errors``): from a position, the moves really played next
  are played again in a world whose cards hidden from the viewer throughout those moves
  are substituted (or renamed), the generator kept; while the viewer's view stays the
  same in both, the lines told to that viewer (``narrate.Narrator``) and the events as
  that seat may read them (``engine.hidden.seat_event``) must be the same too, and every
  line must be whole (``line_errors``: no blank where a name was left out, no
  placeholder) -- a line with its card left blank is the same in every world;
* agents that read the game (``needs_state``: the search) (``agent_hidden_errors``): at
  a position, a fresh copy of the agent must choose the same move in the real game and
  in redrawn, substituted (the opponent's cards; a player knows their own list) and
  relabelled worlds of what its player cannot see -- and, for a search that reports
  them (``last_stats["visits"]``), with the same visit counts.  An agent declaring
  ``deck_lists = "open"`` knows the opponent's list: only worlds that keep it (redrawn,
  relabelled) apply.
"""
from __future__ import annotations

import copy
import re
from dataclasses import replace

import numpy as np

from ..engine.hidden import (determinize, hidden_groups, relabel, seat_event, seen_candidates,
                             substitute)
from ..engine.rng import next_u64, seed_state

CHANNELS = ("observation", "mask", "infos", "action names")


def view(enc, g, p: int) -> tuple:
    """What player ``p``'s agent can read at ``g``: (observation bytes, legal actions,
    infos entry, names of the legal actions), as the AEC environment hands them out."""
    acting = g.current_player == p
    legal = g.legal_actions() if acting else []
    obs = enc.encode(g, p, legal if acting else None).tobytes()
    info = (None if g.result is not None else
            (g.decision_name if acting else None), g.turn)
    names = tuple(g.action_name(a) for a in legal)
    return obs, tuple(legal), info, names


def hidden_info_errors(deck_0, deck_1, seed: int, config=None, worlds: int = 3,
                       every: int = 4, stats: dict | None = None,
                       obs: str = "full") -> tuple[list[str], int]:
    """(errors, positions checked) for one random game of ``seed``, checking every
    ``every``-th decision in ``worlds`` redrawn worlds plus one substituted and one
    relabelled world, in the observation layout ``obs`` (``"full"`` or ``"compact"``).
    ``stats["comparisons"]`` counts the channel comparisons made."""
    from ..env.aec import raw_env
    from ..env.encoder import make_encoder
    e = raw_env(decks=(deck_0, deck_1), config=config, card_db=deck_0.db, obs=obs)
    e.reset(seed=seed)
    enc = make_encoder(deck_0.db, obs)
    state, step, checked, out = seed_state(seed ^ 0x41DE), 0, 0, []
    stats = stats if stats is not None else {}
    while not e.game.is_terminal():
        g = e.game
        legal = g.legal_actions()
        for p, agent in enumerate(e.agents):
            o = e.observe(agent)
            mask = o["action_mask"]
            want = np.zeros_like(mask)
            if g.current_player == p:
                want[legal] = 1
            if not np.array_equal(mask, want):
                out.append(f"decision {step}: {agent}'s mask is not legal_actions() "
                           f"({np.flatnonzero(mask).tolist()} vs {legal})")
            info = e.infos[agent]
            if info.get("decision") != (g.decision_name if g.current_player == p
                                        else None) or info.get("turn") != g.turn:
                out.append(f"decision {step}: {agent}'s infos {info} say more or less than "
                           f"the decision they face")
            if step % every:
                continue
            checked += 1
            base = view(enc, g, p)
            if base[0] != o["observation"].tobytes():
                out.append(f"decision {step}: {agent}'s env observation differs from the "
                           f"encoder's")
            errs = world_errors(enc, g, p, seed * 7919 + step * 31 + p * 7, worlds, stats,
                                base)
            out += [f"decision {step} ({g.decision_name}): {x}" for x in errs]
            h = _swap_own_hand_card(g, p)
            if h is not None:
                hl = h.legal_actions() if h.current_player == p else None
                if np.array_equal(enc.encode(h, p, hl), o["observation"]):
                    out.append(f"decision {step}: {agent}'s observation does not show "
                               f"their own hand (a swapped card changes nothing)")
        if out:
            return out, checked
        state, r = next_u64(state)
        e.step(legal[r % len(legal)])
        step += 1
    return out, checked


def world_errors(enc, g, p: int, seed: int, worlds: int = 3, stats: dict | None = None,
                 base: tuple | None = None) -> list[str]:
    """How player ``p``'s view (``view``) of ``g`` changes in worlds that differ only in
    what ``p`` cannot see: ``worlds`` redrawn ones, one substituted, one relabelled."""
    base = base if base is not None else view(enc, g, p)
    made = [("redrawn", determinize(g, p, seed=seed + w)) for w in range(worlds)]
    made += [("substituted", substitute(g, p, seed=seed + 101)),
             ("relabelled", relabel(g, p, seed=seed + 202))]
    for how, h in made:
        other = view(enc, h, p)
        if stats is not None:
            stats["comparisons"] = stats.get("comparisons", 0) + len(CHANNELS)
        diff = [c for c, x, y in zip(CHANNELS, base, other) if x != y]
        if diff:
            detail = ""
            if "action names" in diff or "mask" in diff:
                detail = f" ({list(zip(base[1], base[3]))[:6]} -> " \
                         f"{list(zip(other[1], other[3]))[:6]})"
            return [f"a {how} world of what player {p} cannot see changes their "
                    f"{', '.join(diff)}{detail}"]
    return []


def _swap_own_hand_card(g, p: int):
    """A copy with player p's first hand card swapped for a different card of their
    deck, or None when there is no such pair."""
    if not g.hand[p]:
        return None
    defs = list(g.defs)
    a = g.hand[p][0]
    b = next((d for d in g.deck[p] if defs[d] != defs[a]), None)
    if b is None:
        return None
    h = g.clone()
    defs[a], defs[b] = defs[b], defs[a]
    h.defs, h.dirty, h._legal = tuple(defs), True, None
    return h


# ------------------------------------------------------------------ the narration
def visible(g, p: int) -> set:
    """The card instances whose card player ``p`` can tell at ``g``: all but the hidden
    ones (``hidden_groups``) they are not looking at nor have just picked."""
    hidden = set().union(*hidden_groups(g, p)) - seen_candidates(g, p) - picked_so_far(g, p)
    return set(range(len(g.defs))) - hidden


def picked_so_far(g, p: int) -> set:
    """The cards ``p`` already picked in the choice they are still making: they looked at
    them when they picked (11.2.1), though the candidates offered now leave them out.  A
    position taken in the middle of such a choice ("choose 3 from any hand", one picked)
    must keep them in every world."""
    from ..engine.view import decision_info
    d = decision_info(g)
    if d is None or d.player != p:
        return set()
    return set(d.picked)


def _random_game(deck_0, deck_1, seed: int, config, every: int):
    """A random game of ``seed``: (its actions, [(decision index, a copy of the game
    then)] every ``every``-th decision)."""
    from ..engine import new_game
    g = new_game(deck_0, deck_1, seed=seed, config=config, db=deck_0.db)
    state, actions, snaps = seed_state(seed ^ 0x7A11), [], []
    while g.result is None:
        if len(actions) % every == 0:
            snaps.append((len(actions), g.clone()))
        legal = g.legal_actions()
        state, r = next_u64(state)
        actions.append(legal[r % len(legal)])
        g.apply_action(actions[-1])
    return actions, snaps


def narration_errors(deck_0, deck_1, seed: int, config=None, every: int = 4,
                     horizon: int = 6, stats: dict | None = None) -> tuple[list[str], int]:
    """(errors, positions checked) for the narration of one random game of ``seed``: at
    every ``every``-th decision, for both viewers, the next ``horizon`` moves told in the
    real game and in a substituted and a relabelled world (see the module docstring).
    ``stats["comparisons"]`` counts the comparisons of lines and of events."""
    from ..env.encoder import Encoder
    enc = Encoder(deck_0.db)
    actions, snaps = _random_game(deck_0, deck_1, seed, config, every)
    out, checked = [], 0
    for at, g in snaps:
        for p in (0, 1):
            checked += 1
            errs = told_errors(enc, g, p, actions[at:at + horizon], seed * 7919 + at * 31 + p,
                               stats)
            out += [f"decision {at} ({g.decision_name}): {x}" for x in errs]
        if out:
            break
    return out, checked


#: what a narrated line must not hold: a placeholder left unfilled, and the traces of a
#: field filled with nothing (two spaces, a space before punctuation, empty brackets)
_LINE_FAULTS = (("a placeholder", re.compile(r"\{[^{}]*\}")),
                ("a blank", re.compile(r"\S {2,}\S| [.,:;!?)]|\( |\(\)|^\s|\s$")))


def line_errors(line: str) -> list[str]:
    """What is wrong with the shape of one narrated line: a blank where a name or number
    was left out ("Your opponent takes  back from the trash.") or a placeholder left in
    ("{card}"); [] for a whole line."""
    if not line:
        return ["an empty line"]
    return [f"{what} in {line!r}" for what, pat in _LINE_FAULTS if pat.search(line)]


def told_errors(enc, g, p: int, moves: list, seed: int, stats: dict | None = None) -> list:
    """How what player ``p`` is told of ``moves`` (legal in turn from ``g``) changes in
    worlds that differ from ``g`` only in cards ``p`` cannot see during those moves."""
    from ..narrate import Narrator
    keep, x = visible(g, p), g.clone()
    for a in moves:                                # what p sees along the way keeps its card
        n = len(x.events)
        x.apply_action(a)
        keep |= visible(x, p)
        keep |= {e.iid for e in x.events[n:] if e.kind == "reveal"}
        if x.result is not None:
            break
    worlds = (("substituted", substitute(g, p, seed, keep=keep, reseed=False)),
              ("relabelled", relabel(g, p, seed + 1, keep=keep)))
    for how, h in worlds:
        real = g.clone()
        told = [Narrator(real, p), Narrator(h, p)]
        names: list = [{}, {}]                     # instance -> order of first mention
        for t in told:
            t.seen = len(t.g.events)
        for a in moves:
            if real.result is not None or a not in h.legal_actions():
                break
            n = len(real.events)
            real.apply_action(a)
            h.apply_action(a)
            if view(enc, real, p) != view(enc, h, p):
                break                              # the worlds part in what p sees: stop
            lines = [t.new_lines() for t in told]
            events = [[_named(seat_event(e, p), names[k]) for e in w.events[n:]]
                      for k, w in enumerate((real, h))]
            if stats is not None:
                stats["comparisons"] = stats.get("comparisons", 0) + 2
            faults = [x for line in lines[0] + lines[1] for x in line_errors(line)]
            if faults:
                return [f"a line told to player {p} is not whole: {faults[0]}"]
            if lines[0] != lines[1]:
                diff = [(u, v) for u, v in zip(lines[0], lines[1]) if u != v][:2] or lines
                return [f"the narration told to player {p} changes in a {how} world of what "
                        f"they cannot see: {diff}"]
            if events[0] != events[1]:
                diff = [(u, v) for u, v in zip(*events) if u != v][:2] or events
                return [f"the events as player {p} may read them (seat_event) change in a "
                        f"{how} world of what they cannot see: {diff}"]
    return []


def _decide(agent, g) -> tuple:
    """(the move a fresh copy of ``agent`` chooses at ``g``, the visit counts behind it if
    the agent is a search that reports them, ``last_stats["visits"]``): the counts show a
    world's influence long before it turns the move."""
    a = copy.deepcopy(agent)
    move = a.act_state(g)
    return move, (getattr(a, "last_stats", None) or {}).get("visits")


def _named(e, names: dict):
    """Event record ``e`` with its card instance named by the order in which the told
    events first mention it: instance names are arbitrary (``relabel``), so two worlds may
    pick different copies of a card where the player sees no difference."""
    if getattr(e, "iid", None) is None:
        return e
    return replace(e, iid=names.setdefault(e.iid, len(names)))


# ------------------------------------------------------------------ agents
def agent_hidden_errors(agent, deck_0, deck_1, seed: int, config=None, every: int = 8,
                        label: str = "the agent",
                        stats: dict | None = None) -> tuple[list[str], int]:
    """(errors, positions checked) for an agent that reads the game (``act_state``) over
    one random game of ``seed``: at every ``every``-th decision with a choice, a fresh
    copy of ``agent`` (``copy.deepcopy``, so the same seed) must choose the same move in
    the real game and in worlds that differ only in what the acting player cannot see
    (see the module docstring).  ``stats["comparisons"]`` counts the moves compared."""
    from ..engine import new_game
    g = new_game(deck_0, deck_1, seed=seed, config=config, db=deck_0.db)
    state, step, checked = seed_state(seed ^ 0xA6E7), 0, 0
    open_lists = getattr(agent, "deck_lists", "closed") == "open"
    while g.result is None:
        legal = g.legal_actions()
        if step % every == 0 and len(legal) > 1:
            p, s = g.current_player, seed * 7919 + step * 31
            checked += 1
            move, stats0 = _decide(agent, g)
            worlds = [("redrawn", determinize(g, p, s))]
            if not open_lists:
                worlds.append(("substituted", substitute(g, p, s + 1, own_deck=False)))
            worlds.append(("relabelled", relabel(g, p, s + 2)))
            for how, h in worlds:
                other, stats1 = _decide(agent, h)
                if stats is not None:
                    stats["comparisons"] = stats.get("comparisons", 0) + 1
                where = f"decision {step} ({g.decision_name}): {label} playing player {p}"
                if other != move:
                    return [f"{where} chooses {h.action_name(other)!r} in a {how} world of "
                            f"what they cannot see, {g.action_name(move)!r} in the real "
                            f"game"], checked
                if stats0 != stats1:
                    return [f"{where} weighs the moves differently in a {how} world of what "
                            f"they cannot see (visits {stats1} against {stats0}), though it "
                            f"chose the same one"], checked
        state, r = next_u64(state)
        g.apply_action(legal[r % len(legal)])
        step += 1
    return [], checked


__all__ = ["CHANNELS", "agent_hidden_errors", "hidden_info_errors", "line_errors",
           "narration_errors", "picked_so_far", "told_errors", "view", "visible",
           "world_errors"]
