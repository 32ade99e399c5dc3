"""Effect verbs: small stateless handlers in a registry, ``HANDLERS``, keyed by the verb's
vocabulary key (``cards/vocab.py``).

Each verb has up to five functions (``Verb``):

* ``choice(g, p, self_iid, action)`` -> ``(chooser, candidates, minimum, maximum, purpose)``
  when carrying the action out needs a player's choice (8.3.3), else ``None``;
* ``possible(g, p, self_iid, action)`` -> whether any of it can be carried out
  (8.1.3.1.2: an activated effect none of whose actions can be carried out
  cannot be activated);
* ``run(g, p, self_iid, action, picked)`` -> whether it did anything (for "if you
  did", 8.3.2);
* ``payable`` for the verbs that may be a cost: whether it can be paid in full;
* ``passive`` for the verbs a passive ability may hold: its change to the derived values;
* ``count(g, p, self_iid, action)`` -> ``(chooser, most)`` when the player chooses a number
  first (1.3.6, "draw up to N"), asked one "one more?" at a time; the run gets one entry in
  ``picked`` per unit chosen.

A verb with a choice whose action is done to each player ("each player discards a card")
gets it one player at a time, restated for that player alone (``effects.each_in_turn``,
1.3.5.1); the other verbs get "each" whole and do both players' parts in one run.

Effects "must" do as much as they can (1.3.2, 8.1.2.1); a count of 0 or less
does nothing (1.3.3).
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from ..cards.vocab import VERBS
from . import const as K
from .events import (Discard, EVENTS, GameEffect, Grant, Heal, Mill, Modify, Move, Prohibit,
                     Reveal, Scale, Search, Shuffle, ToDamage, Trash)
from .hidden import who_sees
from .damage_window import damage_occurs
from .hooks import PASSIVE
from .leader import change_level
from .match import condition, gates_ok, matches, select, unit_slot, value
from .order import order_into_deck
from .rng import shuffle
from .stats import scaled
from .zones import draw, leave_field, move, trash_from_field


def _players(g, p: int, who: str) -> tuple:
    if who == "you":
        return (p,)
    if who == "opponent":
        return (1 - p,)
    return (g.tp, 1 - g.tp)                        # 1.3.5.1: turn player first


def _sample(g, cands: list, n: int) -> list:
    cands = cands[:]
    g.rng = shuffle(g.rng, cands)
    return cands[:n]


#: verbs whose vocabulary record says they move cards between zones (``Term.moves``)
MOVING = frozenset(t.key for t in VERBS if t.moves)


def _takes(g, verb: str, iid: int) -> bool:
    """Whether ``verb`` can do anything to card ``iid`` where it lies: a verb that moves
    cards never moves a leader, which cannot leave the level zone by effect or rule (3.3.4),
    and a card already in the trash cannot be trashed (4.8.2).  Such a card is skipped, as
    if the selector had not named it."""
    z = g.where[iid] >> 2
    if z == K.Z_LEVEL:
        return verb not in MOVING
    return z != K.Z_TRASH or verb != "trash"


def _named(g, p, self_iid, a) -> list:
    """The cards ``a``'s target selector names now that its verb can act on."""
    cands = select(g, p, self_iid, a.target)
    if a.verb in MOVING:
        cands = [i for i in cands if _takes(g, a.verb, i)]
    return cands


def _target_choice(g, p, self_iid, a):
    sel = a.target
    if sel.ref is not None or sel.mode in ("all", "random"):
        return None
    cands = _named(g, p, self_iid, a)
    if not cands:
        return None
    lo = 0 if sel.mode == "up_to" else min(sel.n, len(cands))
    return _chooser(g, p, sel), cands, lo, sel.n, K.P_TARGET


def _chooser(g, p: int, sel) -> int:
    """Who picks the targets of ``sel`` for an effect of ``p``: ``p``, the player carrying
    the effect out (8.3.3, 8.3.4), also among the opponent's hand cards, which ``p`` looks
    at while choosing (11.2.1; docs/rulings.md R12) -- unless ``hand_owner_chooses``."""
    if sel.zone == "hand" and sel.who == "opponent" and g.cfg.hand_owner_chooses:
        return 1 - p                               # R12's option: the hand's owner picks
    return p


def targets(g, p, self_iid, a, picked) -> list:
    sel = a.target
    if sel.ref is not None or sel.mode == "all":
        return _named(g, p, self_iid, a)
    if sel.mode == "random":
        return _sample(g, _named(g, p, self_iid, a), sel.n)
    return list(picked)


def _has_targets(g, p, self_iid, a) -> bool:
    """Whether the action can be carried out (8.1.3.1.2), judged by what ``p`` may know:
    for a zone hidden from ``p`` (any deck, the opponent's hand) only whether it holds
    cards (3.1.5), never which -- so a legal-action set never depends on hidden cards
    (docs/rulings.md R13).  If no card there fits, the action then does nothing."""
    sel = a.target
    if sel.ref is None and sel.zone in ("deck", "hand"):
        zones = g.deck if sel.zone == "deck" else g.hand
        for q in ((p,) if sel.who == "you" else (1 - p,) if sel.who == "opponent"
                  else (p, 1 - p)):
            if sel.zone == "deck" or q != p:
                if any(not (sel.other and i == self_iid) for i in zones[q]):
                    return True
            elif any(not (sel.other and i == self_iid) and matches(g, i, sel.filter)
                     for i in zones[q]):
                return True
        return False
    return bool(_named(g, p, self_iid, a))


# --------------------------------------------------------------------- verbs

def count_draw(g, p, self_iid, a):
    """4.4.4: "draw up to N": the drawer chooses 0..N, never more than their deck holds."""
    if not a.up_to:
        return None
    q = _players(g, p, a.player)[0]
    return q, min(value(g, p, self_iid, a.amount), len(g.deck[q]))


def run_draw(g, p, self_iid, a, picked):
    n = len(picked) if a.up_to else value(g, p, self_iid, a.amount)
    if n <= 0:                                     # 4.4.5
        return False
    done = False
    for q in _players(g, p, a.player):             # 8.4.4: each player's draw at once
        done |= bool(draw(g, q, n))
        if g.lost[q] and not g.cfg.simultaneous_each_player:
            break                                  # the turn player lost first
    return done


def choice_discard(g, p, self_iid, a):
    """The discarding player chooses from their hand.  "Each player discards" never comes
    here whole: the frame carries it out one player at a time, each choosing their own
    (``effects.each_in_turn``, 1.3.5.1)."""
    q = _players(g, p, a.player)[0]
    n = value(g, p, self_iid, a.amount)
    if a.random or n <= 0 or not g.hand[q]:
        return None
    return q, list(g.hand[q]), 0 if a.up_to else min(n, len(g.hand[q])), n, K.P_TARGET


def run_discard(g, p, self_iid, a, picked):
    q = _players(g, p, a.player)[0]
    n = value(g, p, self_iid, a.amount)
    cards = _sample(g, g.hand[q], n) if a.random else list(picked)
    for iid in cards:
        move(g, iid, K.Z_TRASH)
        g.log.append(Discard(q, g.card(iid).id, iid, "effect"))
    return bool(cards)


def run_mill(g, p, self_iid, a, picked):
    n = value(g, p, self_iid, a.amount)
    done = False
    for q in _players(g, p, a.player):
        for _ in range(min(n, len(g.deck[q]))):
            iid = g.deck[q][-1]
            move(g, iid, K.Z_TRASH)
            g.log.append(Mill(q, g.card(iid).id, iid))
            done = True
    return done


def run_damage(g, p, self_iid, a, picked):
    n = value(g, p, self_iid, a.amount)
    if n <= 0:
        return False
    players = _players(g, p, a.player)
    if len(players) > 1 and g.cfg.simultaneous_each_player:
        g.stack.append((K.T_LOSS_CHECK, ()))       # 8.4.4, 1.2.3: losses after both parts
    # the turn player's damage is processed first (1.3.5.1); the damage window of each
    # player taking it opens before either is processed (4.5.2)
    damage_occurs(g, [(q, n) for q in players])
    return True


def run_to_damage(g, p, self_iid, a, picked):
    """Cards put into a damage zone by an effect (1.2.2.2): the top ``amount`` cards of the
    deck, face up, as many as it holds (8.1.2.1).  This is not damage: no damage window
    (4.5.2), no Trigger (4.5.4.3 is a step of damage processing) and no loss for an empty
    deck (4.5.3 too); a player with 10 or more cards there loses when the effect's
    processing ends (9.2.1.2, ``effects.effect_over``), not at once."""
    n = value(g, p, self_iid, a.amount)
    done = False
    for q in _players(g, p, a.player):             # 1.3.5.1: the turn player's first
        for _ in range(min(n, len(g.deck[q]))):
            iid = g.deck[q][-1]
            move(g, iid, K.Z_DAMAGE)
            g.log.append(ToDamage(q, g.card(iid).id, iid, len(g.damage[q])))
            done = True
    return done


def payable_to_damage(g, p, self_iid, a):
    n = value(g, p, self_iid, a.amount)
    return all(len(g.deck[q]) >= n for q in _players(g, p, a.player))


def choice_heal(g, p, self_iid, a):
    n = value(g, p, self_iid, a.amount)
    if n <= 0 or not g.damage[p]:
        return None
    return p, list(g.damage[p]), 0 if a.up_to else min(n, len(g.damage[p])), n, K.P_TARGET


def run_heal(g, p, self_iid, a, picked):
    for iid in picked:
        move(g, iid, K.Z_TRASH)
        g.log.append(Heal(p, g.card(iid).id, iid))
    return bool(picked)


def run_level(g, p, self_iid, a, picked):
    n = value(g, p, self_iid, a.amount)
    done = False
    for q in _players(g, p, a.player):
        done |= change_level(g, q, n)
    return done


def _until(a) -> int:
    return K.UNTIL_CODES[a.until]


def run_size(g, p, self_iid, a, picked):
    for q in _players(g, p, a.player):
        g.mods.append((K.M_SIZE, q, a.size, _until(a), p))
    g.dirty = True
    return a.size != 0


def run_trash(g, p, self_iid, a, picked):
    """Trash the targets; whether any card went to the trash (8.3.2): one already there
    cannot be trashed (4.8.2) and a leader never leaves the level zone (3.3.4), so
    neither counts as done."""
    done = False
    for iid in targets(g, p, self_iid, a, picked):    # 8.4.4: one simultaneous action
        z = g.where[iid] >> 2
        if z in (K.Z_UNIT, K.Z_ITEM, K.Z_SKILL):
            trash_from_field(g, iid, by_effect=True)
        elif z in (K.Z_TRASH, K.Z_LEVEL):             # 4.8.2, 3.3.4
            continue
        else:
            move(g, iid, K.Z_TRASH)
            g.log.append(Trash(g.card(iid).id, iid, iid // K.PER, "effect"))
        done = True
    return done


def _to_zone(zone: int, bottom: bool, label: str):
    record = EVENTS[label]                  # ReturnToHand, ToDeckBottom, Salvage
    def run(g, p, self_iid, a, picked):
        cards = targets(g, p, self_iid, a, picked)
        conditioned = a.target is not None and not a.target.filter.is_empty()
        sel = a.target
        # 11.2.1: a player who chose among the candidates looked at them; where there was
        # nothing to choose -- all, random, or as many as possible taking every candidate
        # (8.3.3.1) -- nobody looked, and the cards are told as their zones allow
        picker = (_chooser(g, p, sel),) if sel is not None and sel.ref is None and (
            sel.mode == "up_to" or sel.mode == "choose" and
            len(_named(g, p, self_iid, a)) > sel.n) else ()
        for iid in cards:
            src = g.where[iid] >> 2
            seen = who_sees(g, iid)
            leave_field(g, iid, zone, bottom=bottom)
            came = seen_by = None
            if src in (K.Z_HAND, K.Z_DECK):
                # 3.1.7, 3.8.3: out of a hidden zone, the card is told only to who could
                # tell it (before or after the move, or by picking it); seat_event hides it
                came = K.ZONE_NAMES[src]
                seen_by = sorted(set(seen) | set(who_sees(g, iid)) | set(picker))
            elif label == "salvage" and src != K.Z_TRASH:
                came = K.ZONE_NAMES[src]           # salvage is from the trash unless said
            g.log.append(record(g.card(iid).id, iid, iid // K.PER, came, seen_by))
            if conditioned and zone in (K.Z_HAND, K.Z_DECK):
                reveal(g, iid, label)
        if zone == K.Z_DECK and len(cards) > 1:
            order_into_deck(g, cards, self_iid)    # 3.1.6: their owner orders them
        return bool(cards)
    return run


def reveal(g, iid: int, by: str) -> None:
    """3.1.7: a card an effect with a card condition moves into a hidden zone is shown to
    the other player.  The event is public: every player's view may name the card."""
    q = iid // K.PER
    g.log.append(Reveal(q, g.card(iid).id, iid, by, K.ZONE_NAMES[g.where[iid] >> 2]))
    if g.where[iid] >> 2 == K.Z_HAND and iid not in g.known[q]:
        g.known[q].append(iid)                     # the other player now knows it is there


def choice_search(g, p, self_iid, a):
    n = value(g, p, self_iid, a.amount)
    cands = [i for i in g.deck[p] if matches(g, i, a.filter)]
    if n <= 0 or not cands:
        return None
    # listed by card, not by deck position, so the choice says nothing of the order
    cands.sort(key=lambda i: (g.defs[i], i))
    return p, cands, 0, n, K.P_TARGET


def run_search(g, p, self_iid, a, picked):
    for iid in picked:
        move(g, iid, K.Z_HAND)
        g.log.append(Search(p, g.card(iid).id, iid))
        if not a.filter.is_empty():
            reveal(g, iid, "search")                 # 3.1.7: "search a fire unit" shows it
    g.rng = shuffle(g.rng, g.deck[p])                # 3.2.4
    g.log.append(Shuffle(p))
    return bool(picked)


def possible_search(g, p, self_iid, a):
    return bool(g.deck[p]) and _some(g, p, self_iid, a)


def run_modify(g, p, self_iid, a, picked):
    cards = targets(g, p, self_iid, a, picked)
    u = _until(a)
    for iid in cards:
        if g.where[iid] >> 2 != K.Z_UNIT:
            continue
        if a.power:
            g.mods.append((K.M_POWER, iid, a.power, u, p))
        if a.hit:
            g.mods.append((K.M_HIT, iid, a.hit, u, p))
        if a.attacks:
            g.mods.append((K.M_ATTACKS, iid, a.attacks, u, p))
        if a.cost:                                 # the unit's cost on the field (stats)
            g.mods.append((K.M_COST, iid, a.cost, u, p))
        g.log.append(Modify(g.card(iid).id, iid, a.power, a.hit, a.attacks, a.until,
                            a.cost or None))
    g.dirty = True
    return bool(cards)


def run_grant(g, p, self_iid, a, picked):
    cards = [i for i in targets(g, p, self_iid, a, picked) if g.where[i] >> 2 == K.Z_UNIT]
    for iid in cards:
        g.mods.append((K.M_GRANT, iid, a.keyword.key, _until(a), p))
        g.log.append(Grant(g.card(iid).id, iid, a.keyword.name))
    g.dirty = True
    return bool(cards)


def run_prohibit(g, p, self_iid, a, picked):
    bit = K.PROHIBIT_ATTACK if a.prohibit == "attack" else K.PROHIBIT_DEFEND
    cards = [i for i in targets(g, p, self_iid, a, picked) if g.where[i] >> 2 == K.Z_UNIT]
    for iid in cards:
        g.mods.append((K.M_PROHIBIT, iid, bit, _until(a), p))
        g.log.append(Prohibit(g.card(iid).id, iid, a.prohibit))
    g.dirty = True
    return bool(cards)


def run_scale(g, p, self_iid, a, picked):
    """1.3.7.2: multiply power or hit; a non-whole result rounds half up (in ``stats``)."""
    kind = K.M_SCALE_POWER if a.stat == "power" else K.M_SCALE_HIT
    cards = [i for i in targets(g, p, self_iid, a, picked) if g.where[i] >> 2 == K.Z_UNIT]
    u = _until(a)
    for iid in cards:
        g.mods.append((kind, iid, a.percent, u, p))
        g.log.append(Scale(g.card(iid).id, iid, a.stat, a.percent / 100, a.until))
    g.dirty = True
    return bool(cards)


def _result(outcome: str):
    def run(g, p, self_iid, a, picked):
        """1.2.5: the game ends at once, in the middle of the effect."""
        players = _players(g, p, a.player)
        losers = [1 - q for q in players] if outcome == "win" else list(players)
        for q in players:
            g.log.append(GameEffect(q, outcome, g.card(self_iid).id))
        for q in losers:
            g.lost[q] = True
        return True
    return run


def _always(g, p, self_iid, a):
    return True


def _move_unit(g, p, self_iid, a):
    t = select(g, p, self_iid, a.target)
    if not t or g.where[t[0]] >> 2 != K.Z_UNIT:
        return -1, []
    q = t[0] // K.PER
    return t[0], [lane for lane in range(3) if g.unit[q * 3 + lane] < 0]


def choice_move(g, p, self_iid, a):
    iid, lanes = _move_unit(g, p, self_iid, a)
    if iid < 0 or not lanes:
        return None
    return p, [-1 - lane for lane in lanes], 1, 1, K.P_TARGET    # lanes are encoded as -1-lane


def run_move(g, p, self_iid, a, picked):
    iid, lanes = _move_unit(g, p, self_iid, a)
    if iid < 0 or not picked:
        return False
    lane = -1 - picked[0]
    q = iid // K.PER
    old = q * 3 + (g.where[iid] & 3)
    new = q * 3 + lane
    # moving between one's own unit zones keeps the unit the same object (docs/rulings.md R3)
    g.unit[old], g.unit[new] = -1, iid
    g.items[old], g.items[new] = [], g.items[old]
    g.where[iid] = K.Z_UNIT * 4 + lane
    for it in g.items[new]:
        g.where[it] = K.Z_ITEM * 4 + lane
    g.log.append(Move(g.card(iid).id, iid, lane))
    g.dirty = True
    return True


def possible_move(g, p, self_iid, a):
    iid, lanes = _move_unit(g, p, self_iid, a)
    return iid >= 0 and bool(lanes)


def _some(g, p, self_iid, a) -> bool:
    """Whether the action's amount is at least 1 (1.3.3, 4.4.5: an action done zero times
    is not done; 8.1.3.1.2: then it is not "an action that can be carried out").  A count
    over a zone hidden from ``p`` (any deck, the opponent's hand) is judged by whether the
    zone holds cards, never by which (docs/rulings.md R13)."""
    v = a.amount
    if v.count is None:
        return value(g, p, self_iid, v) > 0
    sel = v.count
    if sel.ref is None and (sel.zone == "deck" or (sel.zone == "hand" and sel.who != "you")):
        zones = g.deck if sel.zone == "deck" else g.hand
        qs = (p,) if sel.who == "you" else (1 - p,) if sel.who == "opponent" else (p, 1 - p)
        return any(zones[q] for q in qs if sel.zone == "deck" or q != p) or \
            value(g, p, self_iid, v) > 0
    return value(g, p, self_iid, v) > 0


def _hand_nonempty(g, p, self_iid, a):
    """Some player the action names has a card in hand (each player: either of them)."""
    return any(g.hand[q] for q in _players(g, p, a.player)) and _some(g, p, self_iid, a)


def _size_possible(g, p, self_iid, a):
    return a.size != 0


# -------------------------------------------------- in a passive ability (8.1.3.3)
# ``passive(g, p, self_iid, act, pw, ht, na, kws, cant, size)`` adds the action's change
# to the derived values ``stats.refresh`` is computing (per unit slot, and size per player).

def _units(g, p, self_iid, act):
    for t in select(g, p, self_iid, act.target):
        s = unit_slot(g, t)
        if s >= 0:
            yield s


def passive_modify(g, p, self_iid, act, pw, ht, na, kws, cant, size):
    for s in _units(g, p, self_iid, act):
        pw[s] += act.power
        ht[s] += act.hit
        na[s] += act.attacks
        if act.cost:
            g.uc[s] += act.cost                    # unit costs, published by stats.refresh


def passive_grant(g, p, self_iid, act, pw, ht, na, kws, cant, size):
    """A granted sub-keyword with ``while`` gates applies only while they hold for the unit
    that has it (10.1.8-10.1.15: gates are conditions a continuous effect is valid under),
    as for one an effect grants (``stats._apply_mods``)."""
    k = act.keyword
    for s in _units(g, p, self_iid, act):
        if not k.gates or gates_ok(g, s // 3, g.unit[s], k.gates):
            kws[s] = kws[s] + (k,)


def passive_prohibit(g, p, self_iid, act, pw, ht, na, kws, cant, size):
    bit = K.PROHIBIT_ATTACK if act.prohibit == "attack" else K.PROHIBIT_DEFEND
    for s in _units(g, p, self_iid, act):
        cant[s] |= bit


def passive_scale(g, p, self_iid, act, pw, ht, na, kws, cant, size):
    stats = pw if act.stat == "power" else ht
    for s in _units(g, p, self_iid, act):
        stats[s] = scaled(stats[s], act.percent)


def passive_size(g, p, self_iid, act, pw, ht, na, kws, cant, size):
    size[p if act.player == "you" else 1 - p] += act.size


# ------------------------------------------------------------- as a cost
# A cost must be paid in full, unlike an effect (which does what it can).

def payable_discard(g, p, self_iid, a):
    return len(g.hand[p]) >= value(g, p, self_iid, a.amount)


def payable_damage(g, p, self_iid, a):
    return len(g.deck[p]) >= value(g, p, self_iid, a.amount)


def payable_target(g, p, self_iid, a):
    sel = a.target
    n = 1 if sel.ref is not None else max(1, sel.n)
    return len(_named(g, p, self_iid, a)) >= n


class Verb(NamedTuple):
    """What the engine does for one verb of the vocabulary (``cards/vocab.py``)."""
    choice: Optional[Callable]        # the player's choice it needs, else None
    possible: Callable                # can any of it be carried out (8.1.3.1.2)
    run: Callable                     # carry it out; whether it did anything (8.3.2)
    payable: Optional[Callable] = None  # as a cost: can it be paid in full
    passive: Optional[Callable] = None  # in a passive ability: apply to derived values
    count: Optional[Callable] = None    # a number the player chooses first (1.3.6)


def _draw_possible(g, p, s, a):
    if a.up_to:                                    # 4.4.4: at most what the deck holds
        return bool(g.deck[_players(g, p, a.player)[0]]) and _some(g, p, s, a)
    return _some(g, p, s, a)


def _mill_possible(g, p, s, a):
    return any(g.deck[q] for q in _players(g, p, a.player)) and _some(g, p, s, a)


def _heal_possible(g, p, s, a):
    return bool(g.damage[p]) and _some(g, p, s, a)


def _level_possible(g, p, s, a):
    return any(g.level[q] < 10 for q in _players(g, p, a.player)) and _some(g, p, s, a)


#: verb key -> its handlers (a test checks every vocabulary verb has them)
HANDLERS = {
    "draw": Verb(None, _draw_possible, run_draw, count=count_draw),
    "discard": Verb(choice_discard, _hand_nonempty, run_discard, payable=payable_discard),
    "mill": Verb(None, _mill_possible, run_mill),
    "damage": Verb(None, _some, run_damage, payable=payable_damage),
    "heal": Verb(choice_heal, _heal_possible, run_heal),
    "level": Verb(None, _level_possible, run_level),
    "size": Verb(None, _size_possible, run_size, passive=passive_size),
    "trash": Verb(_target_choice, _has_targets, run_trash, payable=payable_target),
    "return_to_hand": Verb(_target_choice, _has_targets,
                           _to_zone(K.Z_HAND, False, "return_to_hand"), payable=payable_target),
    "to_deck_bottom": Verb(_target_choice, _has_targets,
                           _to_zone(K.Z_DECK, True, "to_deck_bottom"), payable=payable_target),
    "salvage": Verb(_target_choice, _has_targets, _to_zone(K.Z_HAND, False, "salvage")),
    "search": Verb(choice_search, possible_search, run_search),
    "modify": Verb(_target_choice, _has_targets, run_modify, passive=passive_modify),
    "grant": Verb(_target_choice, _has_targets, run_grant, passive=passive_grant),
    "prohibit": Verb(_target_choice, _has_targets, run_prohibit, passive=passive_prohibit),
    "move": Verb(choice_move, possible_move, run_move),
    "win": Verb(None, _always, _result("win")),
    "lose": Verb(None, _always, _result("lose")),
    "scale": Verb(_target_choice, _has_targets, run_scale, passive=passive_scale),
    "to_damage": Verb(None, _mill_possible, run_to_damage, payable=payable_to_damage),
}
PASSIVE.update({k: h.passive for k, h in HANDLERS.items() if h.passive is not None})


def possible(g, p, self_iid, a) -> bool:
    if a.condition is not None and not condition(g, p, self_iid, a.condition):
        return False
    return HANDLERS[a.verb].possible(g, p, self_iid, a)


def cost_payable(g, p, self_iid, a) -> bool:
    """A cost must be paid in full, unlike an effect (which does what it can)."""
    return HANDLERS[a.verb].payable(g, p, self_iid, a)
