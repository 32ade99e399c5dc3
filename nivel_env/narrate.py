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

``Narrator`` is a visitor over the engine's event records (``engine/events.py``, as
Forge's ``GameLogFormatter`` is over its ``GameEvent`` records): one method per kind, named
by it (``attack(self, e: Attack)``), returning the line or None.  It tells what the
records say -- a Guardian's payment and a card trashed to pay it are recorded
(``Guardian.payment``, ``Trash.pays``), not worked out from the battle.
"""
from __future__ import annotations

from .cards.text import render_ability
from .engine import events as ev
from .engine.const import PER
from .engine.events import Event
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
            if e.kind == "awaken":
                awake[e.player] = False
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
        events = self.g.events
        end = len(events) if until is None else until
        self._sync_awake(start)
        self.seen = end
        out: list = []
        last = None
        for i in range(start, end):
            e = events[i]
            line = self.line(e)
            if not line:
                continue
            if e.kind == "mulligan" and e.redraw and out and \
                    out[-1][0][-1] == i - 1 and events[i - 1].kind == "draw" and \
                    events[i - 1].player == e.player:
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

    def _joins(self, e: Event):
        """What makes consecutive events one line (else None): cards moved out of a hidden
        zone that the viewer may not name ("2 cards go from their hand ..."), and a player
        ending the main phase and then the attack phase with nothing between."""
        if e.kind == "phase":
            return "phase", e.player
        return self._unnamed_move(e)

    def _joined(self, e: Event, n: int) -> str:
        """The line for ``n`` joined events ending with ``e``."""
        if e.kind == "phase":
            p = e.player
            return f"{self.who(p)} end{'' if p == self.viewer else 's'} the main phase and " \
                   f"the attack phase without attacking."
        return self._moved(seat_event(e, self.viewer), n)

    def _unnamed_move(self, e: Event):
        """For a card moved out of a hidden zone that the viewer may not name: what makes
        consecutive such moves one line (else None)."""
        if getattr(e, "from_zone", None) is not None and \
                seat_event(e, self.viewer).card is None:
            return e.kind, e.player, e.from_zone, tuple(self.cause)
        return None

    def line(self, e: Event) -> str | None:
        """The line telling ``e`` (None for an event told by another's line, or not told):
        the visitor method named by its kind, given the event as this seat may read it."""
        e = seat_event(e, self.viewer)             # only what this seat may know of it
        if e.kind not in ("trash", "return_to_hand"):   # a sub-keyword's own events are over
            self.keyword_cause = None
        if getattr(e, "from_zone", None) is not None:   # out of a hand or deck (3.1.7,
            return self._moved(e, 1)               # 3.8.3) or salvaged from elsewhere
        return getattr(self, e.kind)(e)

    def _me(self, e: Event) -> bool:
        return e.player == self.viewer

    def _s(self, e: Event, s: str = "s") -> str:
        """A verb's ending for the event's player: "" for "You", ``s`` for the opponent."""
        return "" if e.player == self.viewer else s

    def _card_change(self, e: Event, what: str) -> str:
        """ "Their X <what> (cause)." """
        line = f"{self.Owned(_instance(e), e.card)} {what}{self._because()}."
        self.keyword_cause = None
        return line

    def _player_does(self, e: Event, what: str) -> str:
        """ "You <what>." / "Your opponent <what>." """
        return f"{self.who(e.player)} {what}."

    def _moved(self, e: Event, n: int) -> str:
        """A card (or ``n``) moved by an effect out of the zone the event's ``from_zone``
        names (a hand or deck; for salvage, any zone but the trash): named only if this seat
        could tell which (the owner sees their own hand, 3.8.2), else counted."""
        whose = self.whose(e.player)
        where = _MOVES.get(e.kind, "elsewhere").format(whose=whose)
        if e.card is not None:
            what = f"{self.Owned(_instance(e), e.card)} goes"
        else:
            what = "A card goes" if n == 1 else f"{n} cards go"
        zone = _ZONE_WORDS.get(e.from_zone, e.from_zone)
        return f"{what} from {whose} {zone} {where}{self._because()}."

    # ----------------------------------------------- the visitor: one method per kind
    # (engine/events.py EVENTS; tests check that every kind has one).  None: no line.
    def start(self, e: ev.Start) -> None:
        return None

    def setup(self, e: ev.Setup) -> None:
        return None

    def scenario(self, e: ev.Scenario) -> None:
        return None

    def turn(self, e: ev.Turn) -> str:
        return f"-- Turn {e.turn}: {'your' if self._me(e) else 'your opponent’s'} turn --"

    def end_turn(self, e: ev.EndTurn) -> None:
        return None

    def expire(self, e: ev.Expire) -> None:
        return None

    def draw(self, e: ev.Draw) -> str:
        n = e.count
        return f"{self.who(e.player)} draw{self._s(e)} {n} card{'s' if n != 1 else ''}."

    def mulligan(self, e: ev.Mulligan) -> str:
        if not e.redraw:
            return f"{self.who(e.player)} keep{self._s(e)} the opening hand."
        s = self._s(e)
        return f"{self.who(e.player)} shuffle{s} the hand back and draw{s} a new one."

    def level(self, e: ev.Level) -> str:
        return self._player_does(e, f"reach{self._s(e, 'es')} level {e.level}")

    def awaken(self, e: ev.Awaken) -> str:
        p = e.player
        front = self.name(e.card, p)              # the face it showed until now
        self._awake_now()[p] = True               # from here on it shows its back face
        return f"{'Your' if self._me(e) else 'Your opponent’s'} leader awakens: {front} " \
               f"turns to {e.face}."

    def phase(self, e: ev.Phase) -> str | None:
        ended = {"attack": "main", "end": "attack"}.get(e.phase)     # the phase that ends
        if ended is None:
            return None
        return f"{self.who(e.player)} end{self._s(e)} the {ended} phase."

    def deck_out(self, e: ev.DeckOut) -> str:
        return self._player_does(e, "must draw from an empty deck")

    def surrender(self, e: ev.Surrender) -> str:
        return self._player_does(e, f"surrender{self._s(e)}")

    def play(self, e: ev.Play) -> str:
        up = f", upgrading {self.name(e.upgrade)}" if e.upgrade else ""
        return f"{self.who(e.player)} play{self._s(e)} {self.name(e.card)} in " \
               f"{self.whose(e.player)} lane {e.lane}{up}."

    def place(self, e: ev.Place) -> None:
        return None                                # the play line told it

    def equip(self, e: ev.Equip) -> str:
        return self._player_does(e, f"equip{self._s(e)} {self.name(e.card)} to "
                                    f"{self.whose(e.player)} {self.name(e.unit)} "
                                    f"(lane {e.lane})")

    def skill(self, e: ev.Skill) -> str:
        c = self.g.db.get(e.card)
        self.cause.append(c.name)                 # its effect resolves now (until effect_end)
        effect = c.text.split("\n")[0] if c.effect is not None else ""
        return f"{self.who(e.player)} use{self._s(e)} {c.name}" + (f": {effect}" if effect
                                                                   else ".")

    def activate(self, e: ev.Activate) -> str:
        p = e.player
        self.cause.append(self.name(e.card, p))
        return f"{self.who(p)} activate{self._s(e)} {self.name(e.card, p)}."

    def effect(self, e: ev.Effect) -> str:
        p = e.player
        self.cause.append(self.name(e.card, p))
        return f"{_cap(self.whose(p))} {self.name(e.card, p)}: " \
               f"{render_ability(self.g.db.abilities[e.ability])}"

    def fizzle(self, e: ev.Fizzle) -> str:
        what = e.keyword or "effect"
        return f"{_cap(self.whose(e.player))} {self.name(e.card, e.player)}'s {what} does " \
               f"nothing: the card left its zone first."

    def decline(self, e: ev.Decline) -> str:
        if self.cause:
            self.cause.pop()
        return f"{self.who(e.player)} decline{self._s(e)} {self.name(e.card, e.player)}'s " \
               f"effect."

    def effect_end(self, e: ev.EffectEnd) -> None:
        if self.cause:
            self.cause.pop()
        return None

    def order(self, e: ev.Order) -> None:
        return None

    def keyword(self, e: ev.Keyword) -> str | None:
        label, p = e.keyword, e.player
        self.keyword_cause = _KEYWORD_CAUSE.get(label)   # the cause of the card it moves
        if label in _KEYWORD_SILENT:
            return None
        v = f" {e.value}" if e.value is not None else ""
        what = _KEYWORD_DOES.get(label, "").format(whose=self.whose(p))
        if label == "Finale" and self.defender and self.defender[1] == e.card:
            self.told_trashed.add(self.defender[0])   # the blocker it trashes (10.2.4.2.2)
            what += " and it is trashed"
        return f"{_cap(self.whose(p))} {self.name(e.card, p)}'s {label}{v} " \
               f"takes effect{what}."

    def attack(self, e: ev.Attack) -> str:
        self.attacker, self.defender = (e.iid, e.card), None
        how = " (by an effect)" if e.by_effect else ""
        return f"{self.Owned(e.iid, e.card)} (lane {e.lane}) attacks{how}."

    def defend(self, e: ev.Defend) -> str:
        self.defender = (e.iid, e.card)
        return f"{self.Owned(e.iid, e.card)} blocks."

    def guardian(self, e: ev.Guardian) -> str:
        self.defender = (e.iid, e.card)
        # the printed Guardian it paid with (10.2.6.3.4): named where the card prints one
        # of that payment (the event records which payment, not which printing)
        printed = [k for k in self.g.db.get(e.card).subkeywords if k.term == "guardian" and
                   (e.payment is None or k.guardian == e.payment)]
        paid = f", paying {keyword_label(printed[0])[10:-1]}" if len(printed) == 1 else ""
        return f"{self.Owned(e.iid, e.card)} steps in as Guardian from lane {e.lane}{paid}."

    def guardian_declined(self, e: ev.GuardianDeclined) -> None:
        return None

    def no_defense(self, e: ev.NoDefense) -> str:
        return f"{self.who(e.player)} do{self._s(e, 'es')}n’t block."

    def battle(self, e: ev.Battle) -> str:
        r = e.result
        if r == "unblocked":
            mine = e.player == self.viewer
            return f"Unblocked: {'you take' if mine else 'your opponent takes'} " \
                   f"{e.damage} damage."
        if r in ("defender_trashed", "attacker_trashed") and self.attacker and self.defender:
            a = f"{self.owned(*self.attacker)} ({e.attacker_power})"
            d = f"{self.owned(*self.defender)} ({e.defender_power})"
            if r == "defender_trashed":
                self.told_trashed.add(self.defender[0])
                return f"{a[0].upper() + a[1:]} beats {d}: the blocker is trashed."
            self.told_trashed.add(self.attacker[0])
            return f"{d[0].upper() + d[1:]} holds against {a}: the attacker is trashed."
        if r == "attacker_gone":
            return "The attacker left the field: no battle."
        return "The blocker left the field: no damage."

    def battle_end(self, e: ev.BattleEnd) -> None:
        self.attacker = self.defender = None
        return None

    def damage(self, e: ev.Damage) -> str:
        line = f"{self.who(e.player)} take{self._s(e)} a point of damage: " \
               f"{self.name(e.card)} goes to the damage zone ({e.total}/10)"
        if not e.trigger:
            return line
        c = self.g.db.get(e.card)                 # its trigger effect resolves next (4.5.4.3)
        said = [x[len("[Trigger] "):] for x in c.text.splitlines()
                if x.startswith("[Trigger] ")]
        return f"{line} — a Trigger! {c.name}: {said[0] if said else 'its trigger effect.'}" \
               f" Any damage still to come from this hit is cancelled."

    def trigger(self, e: ev.Trigger) -> None:
        """4.5.4.3: the trigger effect the damage line announced resolves now: it is the
        cause of the events until its effect_end (the line is the damage line's)."""
        self.cause.append(self.g.db.get(e.card).name)
        return None

    def damage_window(self, e: ev.DamageWindow) -> str:
        """4.5.2: damage occurred and effects waiting for it resolve before any card is
        revealed (their own lines follow)."""
        p = e.player
        return f"{self.who(p)} {'are' if self._me(e) else 'is'} about to take {e.amount} " \
               f"damage: {self.whose(p)} effects for it resolve first."

    def to_damage(self, e: ev.ToDamage) -> str:
        """1.2.2.2: a card an effect puts into a damage zone, which is not damage."""
        w = self.whose(e.player)
        return f"{self.name(e.card)} goes from {w} deck to {w} damage zone{self._because()} " \
               f"({e.total}/10)."

    def heal(self, e: ev.Heal) -> str:
        return self._player_does(e, f"remove{self._s(e)} {self._card_or(e)} from "
                                    f"{self.whose(e.player)} damage zone")

    def trash(self, e: ev.Trash) -> str | None:
        reason = e.reason
        if reason == "upgrade":
            return None                            # the play line says it was upgraded
        if e.iid in self.told_trashed:             # the battle, 0 power, lost equip or
            self.told_trashed.discard(e.iid)       # Finale line just said so
            self.keyword_cause = None
            return None
        if e.pays == "guardian":                   # Sacrifice or Offset (10.2.6.3.4)
            return f"{self.Owned(e.iid, e.card)} is trashed (to pay for Guardian)."
        kind = self.g.db.get(e.card).type
        if reason == "battle":
            why = " in battle"
        elif reason == "effect":
            why = self._because() or " by an effect"
            self.keyword_cause = None              # it trashed its one card
        else:                                      # a rule: the unit's items, the skill zone
            why = " (its unit left the field)" if kind == "item" else \
                " (end of turn: the skill zone empties)" if kind == "skill" else ""
        return f"{self.Owned(e.iid, e.card)} is trashed{why}."

    def power_zero(self, e: ev.PowerZero) -> str:
        self.told_trashed.add(e.iid)
        return f"{self.Owned(e.iid, e.card)} has 0 power and is trashed."

    def equip_lost(self, e: ev.EquipLost) -> str:
        self.told_trashed.add(e.iid)
        return f"{self.Owned(e.iid, e.card)} falls off (its unit no " \
               f"longer qualifies) and is trashed."

    def discard(self, e: ev.Discard) -> str:
        why = _DISCARD_WHY.get(e.reason, "").format(limit=self.g.cfg.hand_limit)
        return f"{self.who(e.player)} discard{self._s(e)} {self.name(e.card)}{why}."

    def card_order(self, e: ev.CardOrder) -> str:
        """3.1.6: cards that went into a deck together are put in an order their owner
        chooses; the other seat is told how many, never the order (3.2.2)."""
        me = self._me(e)
        return f"{self.who(e.player)} put{self._s(e)} the {e.count} cards on the {e.at} of " \
               f"{self.whose(e.player)} {e.zone} in an order " \
               f"{'you' if me else 'they'} choose."

    def mill(self, e: ev.Mill) -> str:
        return f"{self.name(e.card)} goes from {self.whose(e.player)} deck to the trash."

    def search(self, e: ev.Search) -> str:
        if self._me(e):
            return f"You search your deck and take {self.name(e.card)}."
        return "Your opponent searches their deck and takes a card."   # shown by a reveal

    def shuffle(self, e: ev.Shuffle) -> None:
        return None

    def reveal(self, e: ev.Reveal) -> str:
        return self._player_does(e, f"reveal{self._s(e)} {self._card_or(e)}")

    def salvage(self, e: ev.Salvage) -> str:
        return self._player_does(e, f"take{self._s(e)} {self._card_or(e)} back from the trash")

    def return_to_hand(self, e: ev.ReturnToHand) -> str:
        return self._card_change(e, "returns to its owner’s hand")

    def to_deck_bottom(self, e: ev.ToDeckBottom) -> str:
        return self._card_change(e, "goes to the bottom of its owner’s deck")

    def grant(self, e: ev.Grant) -> str:
        return self._card_change(e, f"gains {e.keyword}")

    def prohibit(self, e: ev.Prohibit) -> str:
        return self._card_change(e, f"cannot {e.what}")

    def move(self, e: ev.Move) -> str:
        return self._card_change(e, f"moves to lane {e.lane}")

    def modify(self, e: ev.Modify) -> str:
        parts = [f"{v:+d} {k}" for k, v in (("power", e.power), ("hit", e.hit),
                                             ("attack", e.attacks),
                                             ("cost", e.cost or 0)) if v]
        return f"{self.Owned(e.iid, e.card)} gets {', '.join(parts)}{self._because()}."

    def scale(self, e: ev.Scale) -> str:
        f = {0.5: "halved"}.get(e.factor, f"multiplied by {e.factor:g}")
        return f"{self.Owned(e.iid, e.card)}'s {e.stat} is {f}{self._because()}."

    def game_effect(self, e: ev.GameEffect) -> str:
        me, p = self._me(e), e.player
        verb = "win" if e.outcome == "win" else "lose"
        return f"{self.name(e.card, p)}: {self.who(p).lower() if not me else 'you'} " \
               f"{verb}{'' if me else 's'} the game."

    def game_over(self, e: ev.GameOver) -> str:
        r = e.result
        if r[0] == r[1]:
            head = "Game over: a draw"
        else:
            head = "Game over: you win" if r[self.viewer] > 0 else "Game over: you lose"
        return f"{head} — {self._why(e)}."

    def _card_or(self, e: Event) -> str:
        return self.name(e.card) if e.card is not None else "a card"

    def _why(self, e: ev.GameOver) -> str:
        if e.reason == "max_turns":
            return "the turn limit was reached"
        if e.reason == "both lost":
            return "both players lost at once"
        loser = 0 if e.result[0] < 0 else 1
        for prev in reversed(self.g.events):
            t = prev.kind
            if t == "surrender":
                return f"{self.who(prev.player).lower()} surrendered"
            if t == "game_effect":
                return f"{self.name(prev.card, prev.player)} decided it"
            if t == "deck_out" and prev.player == loser:
                return f"{'you' if loser == self.viewer else 'your opponent'} had no card " \
                       f"left to draw"
        if len(self.g.damage[loser]) >= 10:
            return f"{'you' if loser == self.viewer else 'your opponent'} reached 10 damage"
        return "a loss condition was met"


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
#: where a card moved out of a hand or deck (the event has ``from_zone``; engine/verbs.py
#: ``_to_zone``) goes, told as "<what> goes from <whose> <zone> <this>"; salvage's event
#: has it too when its card was not in the trash
_MOVES = {"to_deck_bottom": "to the bottom of {whose} deck", "return_to_hand": "to {whose} hand",
          "salvage": "to {whose} hand"}
#: a zone's name in ``from_zone`` as a person says it
_ZONE_WORDS = {"unit": "field", "item": "field", "skill": "skill zone",
               "damage": "damage zone"}
#: why a card was discarded, by the event's reason ({limit}: the game's hand limit)
_DISCARD_WHY = {"hand limit discard": " (hand limit: {limit})", "barrier": " (to pay for Guardian)",
                "barrier discard": " (to pay for Guardian)", "credit discard": " (Credit)"}
def _instance(e: Event) -> int:
    """The card instance an event names, or for one whose instance a seat may not follow
    (a card going into a deck, ``seat_event``) an instance of its owner, ``player``: the
    words need only whose card it is."""
    return e.iid if e.iid is not None else e.player * PER


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
