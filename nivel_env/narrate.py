"""The game's events told in plain words, from one player's side.

The engine's event log is for programs (card ids, instance ids, pool keys); a person at
the table wants "Your opponent's Flame Reaver (4) beats your Iron Guard (3)".  ``narrate``
turns events into such lines for a viewer, saying only what that viewer may know: the
opponent's draws by count, a card they searched for only when it was revealed (3.1.7), a
card an effect moved out of a hand or deck by count unless the viewer could tell it (3.8.3;
events are read through ``engine.hidden.seat_event``).
Stat changes name the effect that caused them; a leader is named by the face it showed
at the time (its back face from its awakening on, 10.2.6.1); a player ending the main or
attack phase is told (the turn's own phases are not); each happening is told once (a unit
a battle line said was trashed gets no second line); the last line of a game says who
won and why.  ``Narrator`` keeps the little state a story needs (the battle in progress,
the effect resolving, which leaders are awake) across calls, so a screen can narrate the
new events after each move, and a replay can be told from its final game.
"""
from __future__ import annotations

from .cards.text import render_ability
from .engine.const import PER
from .engine.hidden import seat_event
from .primer import keyword_label


class Narrator:
    """Narrates one game's events for ``viewer`` (0 or 1), a batch at a time."""

    def __init__(self, g, viewer: int):
        self.g = g
        self.viewer = viewer
        self.attacker = self.defender = None
        self.cause: list = []                     # the effects resolving, innermost last
        self.keyword_cause: str | None = None     # a sub-keyword resolving (its own events)
        self.seen = 0
        self.told_trashed: set[int] = set()       # instances whose trashing a line just told
        self._awake: list[bool] | None = None     # which leaders are awake at event _awake_at
        self._awake_at: int | None = None

    # ------------------------------------------------------------------ words
    def name(self, card_id: str, owner: int | None = None) -> str:
        """A card's name; for a leader, the face it showed at the event being told: the
        back face once it awakened (10.2.6.1).  ``owner``: whose leader, where both players
        lead with the same card."""
        c = self.g.db.get(card_id)
        if c.back is not None:
            p = self._leader_owner(card_id, owner)
            if p is not None and self._awake_now()[p]:
                return c.back.name
        return c.name

    def _leader_owner(self, card_id: str, owner: int | None) -> int | None:
        owners = [q for q in (0, 1) if self.g.card(q * PER).id == card_id]
        if len(owners) == 1:
            return owners[0]
        return owner if owner in owners else None

    def _awake_now(self) -> list[bool]:
        """Which leaders are awake at the event being told."""
        if self._awake is None:
            self._sync_awake(self.seen)
        return self._awake

    def _sync_awake(self, index: int) -> None:
        """Work out which leaders were awake just before event ``index``.  The engine never
        turns an awakened leader back (10.2.6.1), so a leader awake now was awake then
        unless its awaken event comes at ``index`` or later: that holds for a finished
        game's whole log (a replay told from its final game), for a narrator that starts
        part-way, and for a position a scenario built awakened (no awaken event at all).
        From there ``_awaken`` follows the events one by one."""
        if self._awake is not None and self._awake_at == index:
            return
        awake = [bool(x) for x in self.g.awake]
        for e in self.g.events[index:]:
            if e["type"] == "awaken":
                awake[e["player"]] = False
        self._awake, self._awake_at = awake, index

    def who(self, p: int) -> str:
        return "You" if p == self.viewer else "Your opponent"

    def whose(self, p: int) -> str:
        return "your" if p == self.viewer else "their"

    def owned(self, iid: int, card_id: str) -> str:
        """"your Flame Reaver" / "their Flame Reaver" for a card instance."""
        return f"{self.whose(iid // PER)} {self.name(card_id)}"

    def Owned(self, iid: int, card_id: str) -> str:
        """The same at the start of a sentence."""
        return _cap(self.owned(iid, card_id))

    def _because(self) -> str:
        why = self.keyword_cause or (self.cause[-1] if self.cause else None)
        return f" ({why})" if why else ""

    # ------------------------------------------------------------------ events
    def new_lines(self, until: int | None = None) -> list[str]:
        """Lines for the events since the last call (up to event index ``until``)."""
        return [line for _, line in self.told_lines(until)]

    def told_lines(self, until: int | None = None) -> list[tuple[tuple[int, ...], str]]:
        """``new_lines`` with, for each line, the indices of the events it tells (more than
        one where consecutive events make one line: cards moved unseen, a player ending
        two phases in a row)."""
        start = self.seen
        end = len(self.g.events) if until is None else until
        self._sync_awake(start)
        self.seen = end
        out: list = []
        last = None
        for i in range(start, end):
            e = self.g.events[i]
            line = self.line(e)
            if not line:
                continue
            if e["type"] == "mulligan" and e.get("redraw") and out and \
                    out[-1][0][-1] == i - 1 and self.g.events[i - 1]["type"] == "draw" and \
                    self.g.events[i - 1].get("player") == e["player"]:
                # 5.1.6.1: the new hand's draw is the mulligan's own ("... draws a new one")
                out[-1] = (out[-1][0] + (i,), line)
                last = None
                continue
            key = self._joins(e)
            if key is not None and key == last:
                out[-1] = (out[-1][0] + (i,), self._joined(e, len(out[-1][0]) + 1))
                continue
            last = key
            out.append(((i,), line))
        self._awake_at = end
        return out

    def _joins(self, e: dict):
        """What makes consecutive events one line (else None): cards moved out of a hidden
        zone that the viewer may not name ("2 cards go from their hand ..."), and a player
        ending the main phase and then the attack phase with nothing between."""
        if e["type"] == "phase":
            return "phase", e["player"]
        return self._unnamed_move(e)

    def _joined(self, e: dict, n: int) -> str:
        """The line for ``n`` joined events ending with ``e``."""
        if e["type"] == "phase":
            p = e["player"]
            return f"{self.who(p)} end{'' if p == self.viewer else 's'} the main phase and " \
                   f"the attack phase without attacking."
        return self._moved(seat_event(e, self.viewer), n)

    def _unnamed_move(self, e: dict):
        """For a card moved out of a hidden zone that the viewer may not name: what makes
        consecutive such moves one line (else None)."""
        if "from" in e and "card" not in seat_event(e, self.viewer):
            return e["type"], e["player"], e["from"], tuple(self.cause)
        return None

    def line(self, e: dict) -> str | None:
        e = seat_event(e, self.viewer)             # only what this seat may know of it
        t = e["type"]
        p = e.get("player")
        me = p == self.viewer
        if t not in ("trash", "return_to_hand"):   # a sub-keyword's own events are over
            self.keyword_cause = None
        if "from" in e:                            # out of a hand or deck (3.1.7, 3.8.3)
            return self._moved(e, 1)               # or salvaged from elsewhere than the trash
        if t in _CARD_CHANGES:                     # "Their X returns to ... (cause)."
            line = f"{self.Owned(_instance(e), e['card'])} " \
                   f"{_CARD_CHANGES[t].format(**e)}{self._because()}."
            self.keyword_cause = None
            return line
        if t in _PLAYER_DOES:                      # "You reveal X." / "Your opponent ..."
            words = {**e, "s": "" if me else "s", "es": "" if me else "es",
                     "whose": self.whose(p),
                     "card": self.name(e["card"]) if "card" in e else "a card",
                     "unit": self.name(e["unit"]) if "unit" in e else ""}
            return f"{self.who(p)} {_PLAYER_DOES[t].format(**words)}."
        handler = getattr(self, "_" + t, None)
        if handler is not None:
            return handler(e, p, me)
        return None

    def _moved(self, e: dict, n: int) -> str:
        """A card (or ``n``) moved by an effect out of the zone the event's ``from`` names
        (a hand or deck; for salvage, any zone but the trash): named only if this seat
        could tell which (the owner sees their own hand, 3.8.2), else counted."""
        whose = self.whose(e["player"])
        where = _MOVES.get(e["type"], "elsewhere").format(whose=whose)
        if "card" in e:
            what = f"{self.Owned(_instance(e), e['card'])} goes"
        else:
            what = "A card goes" if n == 1 else f"{n} cards go"
        zone = _ZONE_WORDS.get(e["from"], e["from"])
        return f"{what} from {whose} {zone} {where}{self._because()}."

    def _turn(self, e, p, me):
        return f"-- Turn {e['turn']}: {'your' if me else 'your opponent’s'} turn --"

    def _draw(self, e, p, me):
        n = e.get("count", 1)
        return f"{self.who(p)} draw{'' if me else 's'} {n} card{'s' if n != 1 else ''}."

    def _mulligan(self, e, p, me):
        if not e.get("redraw"):
            return f"{self.who(p)} keep{'' if me else 's'} the opening hand."
        s = "" if me else "s"
        return f"{self.who(p)} shuffle{s} the hand back and draw{s} a new one."

    def _awaken(self, e, p, me):
        front = self.name(e["card"], p)           # the face it showed until now
        self._awake_now()[p] = True               # from here on it shows its back face
        return f"{'Your' if me else 'Your opponent’s'} leader awakens: {front} turns to " \
               f"{e['face']}."

    def _phase(self, e, p, me):
        ended = {"attack": "main", "end": "attack"}.get(e["phase"])   # the phase that ends
        if ended is None:
            return None
        return f"{self.who(p)} end{'' if me else 's'} the {ended} phase."

    def _play(self, e, p, me):
        up = f", upgrading {self.name(e['upgrade'])}" if e.get("upgrade") else ""
        return f"{self.who(p)} play{'' if me else 's'} {self.name(e['card'])} in " \
               f"{self.whose(p)} lane {e['lane']}{up}."

    def _skill(self, e, p, me):
        c = self.g.db.get(e["card"])
        self.cause.append(c.name)                 # its effect resolves now (until effect_end)
        effect = c.text.split("\n")[0] if c.effect is not None else ""
        return f"{self.who(p)} use{'' if me else 's'} {c.name}" + (f": {effect}" if effect
                                                                  else ".")

    def _activate(self, e, p, me):
        self.cause.append(self.name(e["card"], p))
        return f"{self.who(p)} activate{'' if me else 's'} {self.name(e['card'], p)}."

    def _effect(self, e, p, me):
        self.cause.append(self.name(e["card"], p))
        if "ability" in e:                         # an automatic ability: Entry, Exit, ...
            return f"{_cap(self.whose(p))} {self.name(e['card'], p)}: " \
                   f"{render_ability(self.g.db.abilities[e['ability']])}"
        return None

    def _fizzle(self, e, p, me):
        what = e.get("keyword") or "effect"
        return f"{_cap(self.whose(p))} {self.name(e['card'], p)}'s {what} does nothing: " \
               f"the card left its zone first."

    def _decline(self, e, p, me):
        if self.cause:
            self.cause.pop()
        return f"{self.who(p)} decline{'' if me else 's'} {self.name(e['card'], p)}'s " \
               f"effect."

    def _effect_end(self, e, p, me):
        if self.cause:
            self.cause.pop()
        return None

    def _keyword(self, e, p, me):
        label = e["keyword"]
        self.keyword_cause = _KEYWORD_CAUSE.get(label)   # the cause of the card it moves
        if label in _KEYWORD_SILENT:
            return None
        v = f" {e['value']}" if e.get("value") is not None else ""
        what = _KEYWORD_DOES.get(label, "").format(whose=self.whose(p))
        if label == "Finale" and self.defender and self.defender[1] == e["card"]:
            self.told_trashed.add(self.defender[0])   # the blocker it trashes (10.2.4.2.2)
            what += " and it is trashed"
        return f"{_cap(self.whose(p))} {self.name(e['card'], p)}'s {label}{v} " \
               f"takes effect{what}."

    def _attack(self, e, p, me):
        self.attacker, self.defender = (e["iid"], e["card"]), None
        how = " (by an effect)" if e.get("by_effect") else ""
        return f"{self.Owned(e['iid'], e['card'])} (lane {e['lane']}) " \
               f"attacks{how}."

    def _defend(self, e, p, me):
        self.defender = (e["iid"], e["card"])
        return f"{self.Owned(e['iid'], e['card'])} blocks."

    def _guardian(self, e, p, me):
        self.defender = (e["iid"], e["card"])
        printed = [k for k in self.g.db.get(e["card"]).subkeywords if k.term == "guardian"]
        paid = f", paying {keyword_label(printed[0])[10:-1]}" if len(printed) == 1 else ""
        return f"{self.Owned(e['iid'], e['card'])} steps in as Guardian " \
               f"from lane {e['lane']}{paid}."

    def _no_defense(self, e, p, me):
        return f"{self.who(p)} do{'' if me else 'es'}n’t block."

    def _battle(self, e, p, me):
        r = e["result"]
        if r == "unblocked":
            mine = e["player"] == self.viewer
            return f"Unblocked: {'you take' if mine else 'your opponent takes'} " \
                   f"{e['damage']} damage."
        if r in ("defender_trashed", "attacker_trashed") and self.attacker and self.defender:
            a = f"{self.owned(*self.attacker)} ({e['attacker_power']})"
            d = f"{self.owned(*self.defender)} ({e['defender_power']})"
            if r == "defender_trashed":
                self.told_trashed.add(self.defender[0])
                return f"{a[0].upper() + a[1:]} beats {d}: the blocker is trashed."
            self.told_trashed.add(self.attacker[0])
            return f"{d[0].upper() + d[1:]} holds against {a}: the attacker is trashed."
        if r == "attacker_gone":
            return "The attacker left the field: no battle."
        return "The blocker left the field: no damage."

    def _battle_end(self, e, p, me):
        self.attacker = self.defender = None
        return None

    def _damage(self, e, p, me):
        line = f"{self.who(p)} take{'' if me else 's'} a point of damage: " \
               f"{self.name(e['card'])} goes to the damage zone ({e['total']}/10)"
        if not e.get("trigger"):
            return line
        c = self.g.db.get(e["card"])               # its trigger effect resolves now (4.5.4.3)
        self.cause.append(c.name)                  # (until effect_end)
        said = [x[len("[Trigger] "):] for x in c.text.splitlines()
                if x.startswith("[Trigger] ")]
        return f"{line} — a Trigger! {c.name}: {said[0] if said else 'its trigger effect.'}" \
               f" Any damage still to come from this hit is cancelled."

    def _damage_window(self, e, p, me):
        """4.5.2: damage occurred and effects waiting for it resolve before any card is
        revealed (their own lines follow)."""
        return f"{self.who(p)} {'are' if me else 'is'} about to take {e['amount']} damage: " \
               f"{self.whose(p)} effects for it resolve first."

    def _to_damage(self, e, p, me):
        """1.2.2.2: a card an effect puts into a damage zone, which is not damage."""
        return f"{self.name(e['card'])} goes from {self.whose(p)} deck to {self.whose(p)} " \
               f"damage zone{self._because()} ({e['total']}/10)."

    def _trash(self, e, p, me):
        reason = e.get("reason")
        if reason == "upgrade":
            return None                            # the play line says it was upgraded
        if e["iid"] in self.told_trashed:          # the battle, 0 power, lost equip or
            self.told_trashed.discard(e["iid"])    # Finale line just said so
            self.keyword_cause = None
            return None
        kind = self.g.db.get(e["card"]).type
        if reason == "effect" and not self.cause and not self.keyword_cause and \
                self.attacker and self.defender is None:
            # no effect resolving, an attack declared, no blocker yet: the only thing that
            # trashes now is a Guardian paying Sacrifice or Offset (10.2.6.3.4)
            return f"{self.Owned(e['iid'], e['card'])} is trashed (to pay for Guardian)."
        if reason == "battle":
            why = " in battle"
        elif reason == "effect":
            why = self._because() or " by an effect"
            self.keyword_cause = None              # it trashed its one card
        else:                                      # a rule: the unit's items, the skill zone
            why = " (its unit left the field)" if kind == "item" else \
                " (end of turn: the skill zone empties)" if kind == "skill" else ""
        return f"{self.Owned(e['iid'], e['card'])} is trashed{why}."

    def _power_zero(self, e, p, me):
        self.told_trashed.add(e["iid"])
        return f"{self.Owned(e['iid'], e['card'])} has 0 power and is trashed."

    def _discard(self, e, p, me):
        why = _DISCARD_WHY.get(e.get("reason"), "").format(limit=self.g.cfg.hand_limit)
        return f"{self.who(p)} discard{'' if me else 's'} {self.name(e['card'])}{why}."

    def _card_order(self, e, p, me):
        """3.1.6: cards that went into a deck together are put in an order their owner
        chooses; the other seat is told how many, never the order (3.2.2)."""
        n, at = e["count"], e.get("at", "bottom")
        return f"{self.who(p)} put{'' if me else 's'} the {n} cards on the {at} of " \
               f"{self.whose(p)} {e.get('zone', 'deck')} in an order " \
               f"{'you' if me else 'they'} choose."

    def _mill(self, e, p, me):
        return f"{self.name(e['card'])} goes from {self.whose(p)} deck to the trash."

    def _search(self, e, p, me):
        if me:
            return f"You search your deck and take {self.name(e['card'])}."
        return "Your opponent searches their deck and takes a card."   # shown by a reveal

    def _modify(self, e, p, me):
        parts = [f"{v:+d} {k}" for k, v in (("power", e["power"]), ("hit", e["hit"]),
                                             ("attack", e["attacks"]),
                                             ("cost", e.get("cost", 0))) if v]
        return f"{self.Owned(e['iid'], e['card'])} gets {', '.join(parts)}" \
               f"{self._because()}."

    def _scale(self, e, p, me):
        f = {0.5: "halved"}.get(e["factor"], f"multiplied by {e['factor']:g}")
        return f"{self.Owned(e['iid'], e['card'])}'s {e['stat']} is {f}" \
               f"{self._because()}."

    def _equip_lost(self, e, p, me):
        self.told_trashed.add(e["iid"])
        return f"{self.Owned(e['iid'], e['card'])} falls off (its unit no " \
               f"longer qualifies) and is trashed."

    def _game_effect(self, e, p, me):
        verb = "win" if e["outcome"] == "win" else "lose"
        return f"{self.name(e['card'], p)}: {self.who(p).lower() if not me else 'you'} " \
               f"{verb}{'' if me else 's'} the game."

    def _game_over(self, e, p, me):
        r = e["result"]
        if r[0] == r[1]:
            head = "Game over: a draw"
        else:
            head = "Game over: you win" if r[self.viewer] > 0 else "Game over: you lose"
        return f"{head} — {self._why(e)}."

    def _why(self, e) -> str:
        if e.get("reason") == "max_turns":
            return "the turn limit was reached"
        if e.get("reason") == "both lost":
            return "both players lost at once"
        loser = 0 if e["result"][0] < 0 else 1
        for prev in reversed(self.g.events):
            t = prev["type"]
            if t == "surrender":
                return f"{self.who(prev['player']).lower()} surrendered"
            if t == "game_effect":
                return f"{self.name(prev['card'], prev['player'])} decided it"
            if t == "deck_out" and prev.get("player") == loser:
                return f"{'you' if loser == self.viewer else 'your opponent'} had no card " \
                       f"left to draw"
        if len(self.g.damage[loser]) >= 10:
            return f"{'you' if loser == self.viewer else 'your opponent'} reached 10 damage"
        return "a loss condition was met"


#: events that change a card, told as "<whose card> <this>" plus the effect that did it
_CARD_CHANGES = {
    "return_to_hand": "returns to its owner’s hand",
    "to_deck_bottom": "goes to the bottom of its owner’s deck",
    "grant": "gains {keyword}",
    "prohibit": "cannot {what}",
    "move": "moves to lane {lane}",
}
#: sub-keywords whose line says more than "takes effect" (engine/const.py KIND_NAMES)
_KEYWORD_DOES = {"Return": ": it goes back to {whose} hand at the end of the turn",
                 "Finale": ": the battle ends"}
#: sub-keyword steps that get no line of their own: the lines of what they do name them
#: (Return's card going back to the hand, 10.2.5.3.3)
_KEYWORD_SILENT = {"Return to hand"}
#: sub-keyword steps that move one card at once (engine/keywords.py), and the cause that
#: card's line names
_KEYWORD_CAUSE = {"Return to hand": "Return", "Mutual Destruction": "Mutual Destruction",
                  "Finale": "Finale"}
#: where a card moved out of a hand or deck (the event has ``from``; engine/verbs.py
#: ``_to_zone``) goes, told as "<what> goes from <whose> <zone> <this>"; salvage's event
#: has ``from`` too when its card was not in the trash
_MOVES = {"to_deck_bottom": "to the bottom of {whose} deck", "return_to_hand": "to {whose} hand",
          "salvage": "to {whose} hand"}
#: a zone's name in ``from`` as a person says it
_ZONE_WORDS = {"unit": "field", "item": "field", "skill": "skill zone",
               "damage": "damage zone"}
#: why a card was discarded, by the event's reason ({limit}: the game's hand limit)
_DISCARD_WHY = {"hand limit discard": " (hand limit: {limit})", "barrier": " (to pay for Guardian)",
                "barrier discard": " (to pay for Guardian)", "credit discard": " (Credit)"}
#: events a player does, told as "You <this>" / "Your opponent <this>" ({s}, {es}: the
#: verb's ending; {whose}: your / their)
_PLAYER_DOES = {
    "level": "reach{es} level {level}",
    "heal": "remove{s} {card} from {whose} damage zone",
    "equip": "equip{s} {card} to {whose} {unit} (lane {lane})",
    "reveal": "reveal{s} {card}",
    "salvage": "take{s} {card} back from the trash",
    "deck_out": "must draw from an empty deck",
    "surrender": "surrender{s}",
}


def _instance(e: dict) -> int:
    """The card instance an event names, or for one whose instance a seat may not follow
    (a card going into a deck, ``seat_event``) an instance of its owner, ``player``: the
    words need only whose card it is."""
    return e["iid"] if "iid" in e else e["player"] * PER


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def narrate(g, viewer: int, since: int = 0) -> list[str]:
    """Every event of ``g`` from index ``since``, told to ``viewer``."""
    n = Narrator(g, viewer)
    n.seen = since
    return n.new_lines()


def replay_seat(header: dict) -> int:
    """The seat a replay is told from: the person's in a game played against the AI
    ("you"), else player 0."""
    players = header.get("players") or []
    return players.index("you") if "you" in players else 0


def replay_story(rep, viewer: int) -> tuple[list[str], list[list[str]]]:
    """A loaded replay told to ``viewer``: (the setup's lines, the lines of each recorded
    move, in order)."""
    g = rep.games[-1]
    n = Narrator(g, viewer)
    setup = n.new_lines(len(rep.header.get("events") or []))
    steps = []
    for row in rep.rows:
        steps.append(n.new_lines(n.seen + len(row.get("events") or [])))
    return setup, steps


__all__ = ["Narrator", "narrate", "replay_seat", "replay_story"]
