"""A check that the narration tells each happening once (issue 29: "three lines for one
Wraith return", "'is trashed' twice for one unit").

It reads the engine's events beside the lines told of them (``Narrator.told_lines``: each
line with the indices of the events it tells) and finds three kinds of repeat:

- a card instance told as going to the same place twice with no event moving it
  elsewhere in between (a battle line and a trash line for one unit, a 0-power line and a
  trash line, ...);
- two consecutive identical lines that are not about different card instances (two
  copies of a card discarded one after the other are two happenings; one unit's is not);
- a sub-keyword's line followed at once by the line of its own card's result ("Wraith's
  Return to hand takes effect." then "Wraith returns to its owner's hand.").
"""
from __future__ import annotations

from nivel_env.engine.const import PER
from nivel_env.narrate import Narrator

#: where an event puts the card instance it names (units onto the field: ``_places``)
_GOES = {"trash": "trash", "power_zero": "trash", "equip_lost": "trash", "discard": "trash",
         "mill": "trash", "heal": "trash", "return_to_hand": "hand", "salvage": "hand",
         "search": "hand", "to_deck_bottom": "deck", "damage": "damage zone",
         "equip": "field", "skill": "skill zone"}


#: what a sub-keyword does to its own card (Return, Finale): moving it out of the field or
#: the trash (a card of the same name moved out of a hand or deck is another copy)
_OWN_RESULTS = ("trash", "return_to_hand", "to_deck_bottom", "salvage")


def _places(e, battle: list) -> list[tuple[int, str]]:
    """(instance, where it goes) for each card ``e`` moves; ``battle`` follows the
    attacker and blocker, whom a battle event does not name."""
    t = e.kind
    if t == "attack":
        battle[:] = [e.iid, None]
    elif t in ("defend", "guardian"):
        battle[1] = e.iid
    elif t == "battle" and battle:
        loser = {"defender_trashed": battle[1], "attacker_trashed": battle[0]}.get(e.result)
        return [(loser, "trash")] if loser is not None else []
    if t in ("play", "place", "move"):            # a unit onto the field, or to a new lane
        return [(e.iid, f"lane {e.lane}")]
    if t in _GOES and getattr(e, "iid", None) is not None:
        return [(e.iid, _GOES[t])]
    return []


def repeats(events: list, told: list[tuple[tuple[int, ...], str]]) -> list[str]:
    """What the lines ``told`` of ``events`` (all of them, from the first) say twice."""
    line_of = {i: k for k, (idx, _) in enumerate(told) for i in idx}
    out, where, battle = [], {}, []
    for i, e in enumerate(events):
        for iid, dest in _places(e, battle):
            prev = where.get(iid)
            if i in line_of and prev is not None and prev == (dest, True):
                out.append(f"{told[line_of[i]][1]!r} (event {i}) tells again that card "
                           f"{iid} went to the {dest}")
            where[iid] = (dest, i in line_of)
    for (ia, a), (ib, b) in zip(told, told[1:]):
        ea, eb = [events[i] for i in ia], [events[i] for i in ib]
        if a == b:
            sa = {e.iid for e in ea if getattr(e, "iid", None) is not None}
            sb = {e.iid for e in eb if getattr(e, "iid", None) is not None}
            if not sa or not sb or sa & sb:
                out.append(f"{a!r} twice in a row (events {ia}, {ib})")
        for k in (e for e in ea if e.kind == "keyword"):
            if any(e.kind in _OWN_RESULTS and e.card == k.card and
                   e.iid // PER == k.player for e in eb):
                out.append(f"{a!r} then {b!r}: the keyword's result told twice")
    return out


def narration_repeats(g, viewer: int) -> list[str]:
    """The repeats in the whole of ``g``'s narration told to ``viewer``."""
    return repeats(g.events, Narrator(g, viewer).told_lines())
