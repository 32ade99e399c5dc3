"""Invariants that hold at every decision of every game, whatever the cards.

They restate the rules as properties, so a random or biased player that breaks one
has found either a rules bug or a card whose data the engine mishandles.  Each
check returns messages instead of raising, so a soak can report all of them with
the seed and action list that led there.
"""
from __future__ import annotations

from ..cards import model as m
from ..engine import N_ACTIONS
from ..engine import actions as A
from ..engine import const as K
from ..engine.legal import field_cost, replaced_cost
from ..engine.view import decision_info, derived, lane_of, leader_of, owner_of, zone_of

_ZONE_LISTS = ((K.Z_DECK, "deck"), (K.Z_HAND, "hand"), (K.Z_TRASH, "trash"),
               (K.Z_DAMAGE, "damage"), (K.Z_SKILL, "skill"))


def card_count(g, p: int) -> int:
    """The instances player ``p`` owns: the leader and every deck card (3.1)."""
    return sum(1 for i in range(p * K.PER, (p + 1) * K.PER) if g.where[i] != -4)


def pick_order_errors(g) -> list[str]:
    """3.2.2, 11.2.1: a pick's candidates in a zone hidden from the chooser come after the
    others, ordered by card (then instance id) -- never by deck position, which the
    order of the offered actions would give away."""
    d = decision_info(g)
    if d is None or d.kind != K.D_PICK or d.purpose == K.P_ORDER:
        return []
    chooser, cands = d.player, d.candidates
    hidden = [v >= 0 and (zone_of(g, v) == K.Z_DECK or
                          (zone_of(g, v) == K.Z_HAND and owner_of(v) != chooser))
              for v in cands]
    if True in hidden and False in hidden[hidden.index(True):]:
        return [f"pick for player {chooser}: candidates {list(cands)} list a hidden card "
                f"before an open one"]
    keys = [(g.defs[v], v) for v, h in zip(cands, hidden) if h]
    if keys != sorted(keys):
        return [f"pick for player {chooser}: candidates in hidden zones {list(cands)} are not "
                f"listed by card (their order would reveal positions)"]
    return []


def _location(g, iid: int) -> str:
    z = zone_of(g, iid)
    return f"{K.ZONE_NAMES[z] if 0 <= z < len(K.ZONE_NAMES) else 'nowhere'} lane {lane_of(g, iid)}"


def invariant_errors(g, counts: tuple[int, int] | None = None,
                     max_decisions: int | None = None, decisions: int = 0) -> list[str]:
    """Every invariant the position breaks.

    ``counts``: each player's instance count at the start (conservation);
    ``decisions``/``max_decisions``: a bound that catches games that never end.
    """
    out = pick_order_errors(g)
    for p in (0, 1):
        known = g.known[p]
        if len(set(known)) != len(known) or not set(known) <= set(g.hand[p]):
            out.append(f"player {p}'s known hand cards {known} are not all in their hand "
                       f"{g.hand[p]} (or repeat)")
    for p in (0, 1):
        seen: dict[int, str] = {}
        for z, name in _ZONE_LISTS:
            for iid in getattr(g, name)[p]:
                if iid in seen:
                    out.append(f"card {iid} of player {p} is in both {seen[iid]} and {name}")
                seen[iid] = name
                if zone_of(g, iid) != z:
                    out.append(f"card {iid} of player {p} is listed in {name} but its "
                               f"location says {K.ZONE_NAMES[zone_of(g, iid)]}")
                if owner_of(iid) != p:
                    out.append(f"card {iid} of player {owner_of(iid)} is in player {p}'s {name}")
        for lane in range(3):
            u = g.unit[p * 3 + lane]
            if u >= 0:
                if u in seen:
                    out.append(f"card {u} of player {p} is a unit and in {seen[u]}")
                seen[u] = "unit"
                if (zone_of(g, u), lane_of(g, u)) != (K.Z_UNIT, lane):
                    out.append(f"unit {u} in lane {lane} of player {p} has location "
                               f"{_location(g, u)}")
            elif g.items[p * 3 + lane]:
                out.append(f"items {g.items[p * 3 + lane]} in lane {lane} of player {p} "
                           f"with no unit (3.5.6.1)")
            for it in g.items[p * 3 + lane]:
                if it in seen:
                    out.append(f"item {it} of player {p} is also in {seen[it]}")
                seen[it] = "item"
                if (zone_of(g, it), lane_of(g, it)) != (K.Z_ITEM, lane):
                    out.append(f"item {it} in lane {lane} of player {p} has location "
                               f"{_location(g, it)}")
        if zone_of(g, leader_of(p)) != K.Z_LEVEL:
            out.append(f"player {p}'s leader left the leader area")
        total = len(seen) + 1
        placed = card_count(g, p)
        if total != placed:
            out.append(f"player {p}: {placed} cards exist but {total} are in a zone "
                       f"(lost or duplicated cards)")
        if counts is not None and placed != counts[p]:
            out.append(f"player {p} had {counts[p]} cards at the start and has {placed} now")
    legal = g.legal_actions()
    over = g.is_terminal()
    if over:
        if legal:
            out.append(f"the game is over but {len(legal)} actions are legal")
        r = g.returns()
        if r[0] + r[1] != 0:
            out.append(f"returns {r} are not zero-sum")
        if g.current_player is not None:
            out.append("the game is over but a player is still to act")
    else:
        if not legal:
            out.append(f"no legal action at a {g.decision_name} decision of a "
                       f"game that is not over")
        if legal != sorted(set(legal)) or (legal and not 0 <= legal[0] <= legal[-1] < N_ACTIONS):
            out.append(f"legal actions not sorted, unique ids in 0..{N_ACTIONS - 1}: {legal}")
        if g.returns() != (0, 0):
            out.append(f"returns {g.returns()} before the game is over")
        power = derived(g).power
        for s in range(6):
            if g.unit[s] >= 0 and power[s] <= 0:                           # 1.3.7.3
                out.append(f"unit {g.card(g.unit[s]).id} of player {s // 3} in lane {s % 3} "
                           f"has power {power[s]} and is still on the field (1.3.7.3)")
        # 4.5.4.3-4: the 10th card's trigger resolves before the check, and may ask a
        # choice; 1.2.2.2: cards an effect puts into a damage zone are judged when the
        # effect's processing ends, so 10 may stand while an effect is resolving
        checking = any(t[0] in (K.T_DAMAGE_CHECK, K.T_FRAME, K.T_BATCH) for t in g.stack)
        for p in (0, 1):
            if len(g.damage[p]) >= 10 and not checking:
                out.append(f"player {p} has {len(g.damage[p])} damage and the game goes on "
                           f"(4.5.4)")
        if g.turn > g.cfg.max_turns + 1:
            out.append(f"turn {g.turn} is past the turn cap {g.cfg.max_turns}")
    if max_decisions is not None and decisions > max_decisions and not over:
        out.append(f"{decisions} decisions and the game is not over (a loop?)")
    return out


def play_cost_errors(g, action: int) -> list[str]:
    """Before a PLAY action is applied: the field's cost with the card added stays
    within the player's size (6.4.1.1.2; an upgraded unit and its items no longer
    count, 6.4.1.1.2.1).  Checked at the play, not after its effects: an effect may
    lower the size afterwards (healing a damage card), which the rules allow."""
    move = A.decode(action)
    if move.kind != "PLAY":
        return []
    p = g.current_player
    slot, target = move.hand_slot, move.target
    card = g.card(g.hand[p][slot])
    size = derived(g).size
    cost = field_cost(g, p) + card.cost
    if target < 3 and card.type == m.UNIT and g.unit[p * 3 + target] >= 0:
        cost -= replaced_cost(g, p * 3 + target)     # at its cost there (R28), items too
    if cost > size[p]:
        return [f"{g.action_name(action)} is legal but puts player {p}'s field at cost {cost}, "
                f"over their size {size[p]} (6.4.1.1.2)"]
    return []


__all__ = ["card_count", "invariant_errors", "play_cost_errors"]
