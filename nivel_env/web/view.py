"""What one seat may see, as plain data a browser can draw.

``seat_view`` is the browser's board: both leaders, levels, sizes, lanes with the units'
current power, hit and keywords (as they act, values included), items, skill and damage
zones, trashes, the seat's own hand (a card it cannot play now says why), the opponent's
hand and deck as counts (plus the hand cards made known, 3.1.7), the battle in progress by
lanes and sides (7) and, when the seat decides how to meet an attack, what each answer
does (``screen.forecast_lines``).  ``legal_moves`` lists
the seat's legal actions with their kind and what each concerns (a hand card, a lane, the
leader), so the page can put each move's button on that card.

Nothing here names a card instance: instances are the engine's bookkeeping, and a
renamed instance in a hidden zone must not change what a seat is sent (the same test
the observation passes, checks/hidden.py).  With ``reveal`` (replays, which hold
everything anyway) the opponent's hand is shown too.
"""
from __future__ import annotations

from ..cards import model as m
from ..cards.text import render_card_text
from ..engine import actions as A
from ..engine import const as K
from ..engine.legal import field_cost, play_blockers
from ..engine.view import battle_info, decision_info, derived, leader_of
from ..screen import (decision_line, describe, forecast_lines, move_key, move_name,
                      unit_keywords)


def card_data(c) -> dict:
    """A card definition as the page shows it: name, kind line, text."""
    d = {"id": c.id, "name": c.name, "type": c.type, "attribute": c.attribute or "",
         "line": describe(c), "text": render_card_text(c)}
    if c.type != m.LEADER:
        d["cost"] = c.cost
    if c.type == m.UNIT:
        d["power"], d["hit"] = c.power, c.hit
    if getattr(c, "trigger", None):
        d["trigger"] = True
    return d


def _cards(g, iids) -> list:
    return [card_data(g.card(i)) for i in iids]


def _unit(g, p: int, lane: int) -> dict | None:
    s = p * 3 + lane
    u = g.unit[s]
    if u < 0:
        return None
    dv = derived(g)
    return {"card": card_data(g.card(u)), "power": dv.power[s], "hit": dv.hit[s],
            "keywords": unit_keywords(g, s),          # as they act (one Pierce: the highest)
            "items": _cards(g, g.items[s])}


def _hand(g, p: int) -> list:
    """``p``'s hand; in ``p``'s main phase a card with no legal play carries why not
    (``cannot``, ``engine.play_blockers``), so the page greys it instead of dropping it."""
    cards = _cards(g, g.hand[p])
    d = decision_info(g)
    if d is not None and d.kind == K.D_MAIN and d.player == p:
        for h, why in play_blockers(g, p).items():
            cards[h]["cannot"] = why
    return cards


def _side(g, p: int, mine: bool, reveal: bool) -> dict:
    leader = card_data(g.card(leader_of(p)))          # its text shows both faces (10.2.6.1)
    leader["name"] = g.leader_face(p).name
    side = {"leader": leader, "level": g.level[p],
            "awakened": bool(g.awake[p]), "size": derived(g).size[p],
            "cost_in_use": field_cost(g, p), "deck": len(g.deck[p]),
            "damage": _cards(g, g.damage[p]), "trash": _cards(g, g.trash[p]),
            "skills": _cards(g, g.skill[p]),
            "lanes": [_unit(g, p, ln) for ln in range(3)],
            "hand_count": len(g.hand[p])}
    if mine and not reveal:
        side["hand"] = _hand(g, p)
    elif reveal:
        side["hand"] = _cards(g, g.hand[p])
    else:
        side["known"] = _cards(g, g.known[p])           # revealed or returned openly
    return side


def _battle(g, seat: int) -> dict | None:
    """The battle in progress (7) as the page marks it: the attacking unit's side and lane
    and, once declared (7.3), the defending unit's, by side and lane only (no instances).
    A unit that has left the field keeps its lane for the attacker (the lane is still
    the battle's) and drops the defender.  A game that ended mid-battle has none."""
    b = battle_info(g)
    if b is None or g.result is not None:
        return None

    def side(iid: int) -> str:
        return "you" if g.owner(iid) == seat else "opponent"
    defender = None
    if b.defender >= 0 and g.zone(b.defender) == K.Z_UNIT:
        defender = {"side": side(b.defender), "lane": g.lane(b.defender)}
    return {"attacker": {"side": side(b.attacker), "lane": b.lane}, "defender": defender}


def seat_view(g, seat: int, reveal: bool = False) -> dict:
    """The position as ``seat`` may see it (both hands with ``reveal``)."""
    d = g.decision
    return {
        "turn": g.turn, "phase": K.PHASE_NAMES[g.phase], "your_turn": g.tp == seat,
        "first": g.first == seat,
        "you": _side(g, seat, True, reveal), "opponent": _side(g, 1 - seat, False, reveal),
        "deciding": None if d is None else ("you" if d.player == seat else "opponent"),
        "question": decision_line(g, keys=False) if d is not None and d.player == seat
        else None,
        "battle": _battle(g, seat),
        # before the seat decides how to meet an attack: what each answer does (7.4)
        "forecast": forecast_lines(g, seat) if d is not None and d.player == seat and
        d.kind in ("defense", "guardian") else [],
    }


def _concerns(g, p: int, a: int) -> dict:
    """What a move is about, for placing its button: a hand card and where it goes
    ({"hand": 2, "to": 0} or "to": "skill"), a unit ({"unit": "you", "lane": 1}: attack,
    defend, Guardian, its ability, or a unit or item picked as a target), the leader
    ({"leader": "you"}), or nothing ({}: a general move)."""
    mv = A.decode(a)
    if mv.kind == "PLAY":
        return {"hand": mv.hand_slot, "to": "skill" if mv.target == A.SKILL_TARGET else mv.target}
    if mv.kind == "ACTIVATE":
        return {"leader": "you"} if mv.source == 0 else {"unit": "you", "lane": mv.source_lane}
    if mv.lane is not None:                        # attack, defend, Guardian
        return {"unit": "you", "lane": mv.lane}
    d = decision_info(g)
    i = mv.pick
    if i is None or d.kind != K.D_PICK or i >= len(d.candidates) or d.purpose == K.P_ORDER:
        return {}
    v = d.candidates[i]
    if v < 0:
        return {}
    zone, owner = g.zone(v), g.owner(v)
    side = "you" if owner == p else "opponent"
    if zone in (K.Z_UNIT, K.Z_ITEM):
        return {"unit": side, "lane": g.lane(v)}
    if zone == K.Z_HAND and owner == p:
        return {"hand": g.hand[p].index(v)}
    return {}


def legal_moves(g, seat: int) -> list[dict]:
    """The seat's legal moves: action id, kind (its range of the action space in lower
    case: "end_attack", "attack", "play", "pick", ...), key, words and what it concerns."""
    if g.result is not None or g.current_player != seat:
        return []
    return [{"action": a, "kind": A.decode(a).kind.lower(), "key": move_key(g, a),
             "name": move_name(g, a), **_concerns(g, seat, a)} for a in g.legal_actions()]


def hint_data(s) -> dict | None:
    """The coach's hint for the person in session ``s`` (``PlaySession.hint``) as the page
    shows it: the move's action id, why, and a lesson ('' when none); None when it is not
    their move.  The coach reads only what the person's seat may see."""
    h = s.hint()
    return None if h is None else {"action": h.action, "why": h.why, "lesson": h.lesson}


__all__ = ["card_data", "hint_data", "legal_moves", "seat_view"]
