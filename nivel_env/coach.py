"""A coach for the person at the table: which move to make now, and why, in a sentence.

The terminal game's ``hint`` command, its ``--tutorial`` first game and the browser's
guided first game show it.  The move is the heuristic player's (``agents.heuristic``: it
decides from the observation, what the person's seat may see), so a hint never leans on
a hidden card; the sentence says what the board shows about that move (what it costs,
what it faces, who wins the battle).  The first time a part of the game comes up, the
coach also gives a short lesson on it (``LESSONS``, rule numbers in brackets).

``TUTORIAL`` is the guided first game: a fixed deal (decks, seat and seed) against a
fixed, gentle opponent, so a player who follows the hints plays the same game every
time, one that shows the opening hand, playing units, attacking, blocking, damage and
a trigger.
"""
from __future__ import annotations

from typing import NamedTuple

from . import players
from .cards import model as m
from .cards.text import render_ability, render_action, render_card_text
from .engine import actions as A
from .engine import const as K
from .engine.legal import activated_list, field_cost
from .engine.forecast import battle_forecast
from .engine.view import decision_info, derived

#: the guided first game: the person's deck, the opponent's, the opponent (the
#: heuristic with 70% of its moves random: it plays the game but makes mistakes), the
#: person's seat and the seed (tests/play/test_coach.py plays it through, following every hint)
TUTORIAL = {"deck": "ember-rush", "opponent_deck": "stone-bastion",
            "opponent": "heuristic:random_share=0.7", "seat": 0, "seed": 1,
            "label": "tutorial"}

#: a part of the game -> its lesson, given the first time it comes up
LESSONS = {
    "mulligan": "Your opening hand is the cards you drew first. Once, before the game "
                "starts, you may shuffle them all back and draw as many new ones (5.1.6). "
                "A hand with a few cheap units is worth keeping.",
    "main": "In your main phase you play cards. Your size is your leader's level plus the "
            "cards in your damage zone (4.7): a card's cost, plus the cost of everything "
            "already on your field, must fit in it. Your leader gains a level every turn "
            "(6.2), so you can afford more each turn.",
    "lanes": "Units go into your three lanes, one card a lane a turn (6.4.1.1.3). The unit "
             "across the same lane is the one that may block it, and the one it may block "
             "(7.3).",
    "attack": "In your attack phase each unit may attack once. Unblocked, it deals its hit "
              "(H) as damage to the other leader. Blocked, the powers (P) are compared: "
              "the attacker wins ties (7.4). The loser is trashed.",
    "defense": "An attack on your lane: your unit there may block it. Higher power wins, "
               "and a tie goes to the attacker (7.4). If you don't block, you take its hit "
               "as damage.",
    "damage": "Each point of damage moves the top card of your deck to your damage zone. "
              "Ten there and you lose (1.2), but every one also makes your size bigger "
              "(4.7). A card marked T does its Trigger when it lands there (4.5.4.3).",
    "skill": "A skill does its effect at once, then sits in your skill zone until the end "
             "of the turn, its cost still counted (6.4.1.1).",
    "item": "An item goes onto one of your units and makes it stronger; it leaves with that "
            "unit (3.5.6).",
    "upgrade": "A unit can go onto one of yours in the same lane if it costs more: an "
               "upgrade (3.5.5). The old unit's cost is freed for it (6.4.1.1.2.1).",
    "choose": "An effect asks you to choose. The cards you may choose are listed with "
              "where they are.",
}


class Hint(NamedTuple):
    """The move to make (an action id of the person's legal moves), why, and a lesson the
    first time its part of the game comes up ('' otherwise)."""
    action: int
    why: str
    lesson: str = ""


class Coach:
    """Hints for the person at ``seat``; ``seed`` breaks the heuristic's ties.

    A hint is a function of the position as the person sees it and of the lessons given
    so far: asking again (or in a world that differs only in hidden cards) gives the same
    answer.  ``given(g, hint)`` records that a hint was shown when the person moves on,
    so its lesson is not given again."""

    def __init__(self, seat: int, seed: int = 0):
        self.seat, self.seed = seat, seed
        self.agent = players.load("heuristic", seed=seed)      # the agents package's
        self._encoder = None
        self.taught: set[str] = set()
        self._due: list[str] = []                 # lessons whose part has come up, in order

    def hint(self, g) -> Hint | None:
        """The hint for the person's decision now (None when it is not theirs)."""
        if g.result is not None or g.current_player != self.seat:
            return None
        legal = g.legal_actions()
        a = legal[0] if len(legal) == 1 else self._choose(g, legal)
        due = self._lessons_due(g, a)
        return Hint(a, why(g, a), LESSONS[due[0]] if due else "")

    def given(self, g, hint: Hint) -> None:
        """The person saw ``hint`` at ``g`` and moves on: its lesson has been given."""
        due = self._lessons_due(g, hint.action)
        if due:
            self.taught.add(due[0])
        self._due = due[1:]

    def _choose(self, g, legal: list[int]) -> int:
        from .env.encoder import Encoder
        if self._encoder is None:
            self._encoder = Encoder(g.db)
        # ties broken the same way whenever this position is asked about
        players.reseed(self.agent, [self.seed, g.turn, *legal])
        return players.ask(self.agent, g, self.seat, legal=legal, encoder=self._encoder)

    def _lessons_due(self, g, a: int) -> list[str]:
        """The lessons not given yet whose part of the game has come up, first the one for
        this decision (the main phase, then the part move ``a`` belongs to), then those
        left from earlier decisions in the order they came up, then damage once the person
        has taken some: a hint gives the first, one lesson at a time."""
        now = (["main"] if decision_info(g).kind == K.D_MAIN else []) + [_topic(g, a)]
        due = []
        for topic in now + self._due + (["damage"] if g.damage[self.seat] else []):
            if topic is not None and topic not in self.taught and topic not in due:
                due.append(topic)
        return due


def _topic(g, a: int) -> str | None:
    """The part of the game a hint for move ``a`` teaches."""
    kind = K.DECISION_NAMES[decision_info(g).kind]
    if kind in ("mulligan", "attack", "defense"):
        return kind
    if kind == "pick":
        return "choose"
    if kind != "main":
        return None
    move = A.decode(a)
    if move.kind == "PLAY":
        h, t = move.hand_slot, move.target
        c = g.card(g.hand[g.current_player][h])
        if c.type == m.SKILL:
            return "skill"
        if c.type == m.ITEM:
            return "item"
        return "upgrade" if g.unit[g.current_player * 3 + t] >= 0 else "lanes"
    return "main"


# ------------------------------------------------------------------ why, in words

def _unit(g, p: int, lane: int) -> tuple[str, int, int] | None:
    """(name, power, hit) of the unit in ``p``'s lane, as it is now."""
    s = p * 3 + lane
    if g.unit[s] < 0:
        return None
    dv = derived(g)
    return g.card(g.unit[s]).name, dv.power[s], dv.hit[s]


def _free(g, p: int) -> int:
    return derived(g).size[p] - field_cost(g, p)


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "."


def why(g, a: int) -> str:
    """Why move ``a`` is the one to make now, from what the person may see."""
    p = g.current_player
    kind = K.DECISION_NAMES[decision_info(g).kind]
    if a == A.KEEP:
        cheap = sum(1 for i in g.hand[p] if g.card(i).type == m.UNIT and g.card(i).cost <= 3)
        return f"Keep this hand: {cheap} of its units cost 3 or less, enough to start with."
    if a == A.MULLIGAN:
        return (f"Mulligan: too few cheap units to start with; {len(g.hand[p])} new cards "
                f"are likely better.")
    move = A.decode(a)
    if move.kind == "PLAY":
        return _why_play(g, p, move.hand_slot, move.target)
    if move.kind == "ACTIVATE":
        source, slot = move.source, move.slot
        ab, src, _ = activated_list(g, p, source)[slot]
        name = g.leader_face(p).name if source == 0 else g.card(src).name
        return f"Use {name}'s ability: {render_ability(ab)}"
    if a == A.END_MAIN:
        free = _free(g, p)
        return f"Nothing more worth playing now ({free} size free): end the main phase " \
               f"and go to the attack."
    if move.kind == "ATTACK":
        return _why_attack(g, p, move.lane)
    if a == A.END_ATTACK:
        return "No attack left that wins its battle: end the attack phase (and the turn)."
    if move.kind == "DEFEND" or (a == A.PASS and kind == "defense"):
        return _why_block(g, p, a != A.PASS)
    if move.kind == "GUARDIAN" or (a == A.PASS and kind == "guardian"):
        return "Pay for your Guardian to block: this hit would hurt too much." \
            if a != A.PASS else "Keep your Guardian out of it: this hit is one you can take."
    if kind == "may":
        d = decision_info(g)
        text = render_ability(g.db.abilities[d.ability]) if d.ability >= 0 else "the effect"
        if d.most >= 0:
            return "One more: each one helps." if a == A.YES else "That is enough."
        return f"Yes: {text}" if a == A.YES else "No: this effect would not help you now."
    if kind == "pick":
        return _why_pick(g, p, a)
    return "The move the coach would make."


def _why_play(g, p: int, h: int, t: int) -> str:
    c = g.card(g.hand[p][h])
    cost = f"it costs {c.cost} of your {_free(g, p)} free size"
    if t == A.SKILL_TARGET:
        return _sentence(f"Use {c.name} ({cost}): {render_ability(c.effect)}")
    if c.type == m.ITEM:
        mine = _unit(g, p, t)
        return _sentence(f"Equip {c.name} on {mine[0]} ({cost}): "
                         f"{render_card_text(c).splitlines()[-1]}")
    mine = _unit(g, p, t)
    if mine is not None:
        return _sentence(f"Upgrade {mine[0]} to {c.name}: power {c.power} instead of "
                         f"{mine[1]}, and {mine[0]}'s cost is freed to pay for it")
    theirs = _unit(g, 1 - p, t)
    if theirs is None:
        across = "nothing faces lane {t} on their side, so its attacks there go unblocked " \
                 "unless a Guardian steps in".format(t=t)
    elif c.power >= theirs[1]:
        across = f"it faces their {theirs[0]} ({theirs[1]}) and its power {c.power} " \
                 f"wins that battle"
    else:
        across = f"it faces their {theirs[0]} ({theirs[1]}) and can block its attacks"
    return _sentence(f"Play {c.name} in lane {t} ({cost}): {across}")


def _why_attack(g, p: int, lane: int) -> str:
    name, power, hit = _unit(g, p, lane)
    theirs = _unit(g, 1 - p, lane)
    if theirs is None:
        return f"Attack with {name}: no unit faces it, so it deals {hit} damage unless a " \
               f"Guardian steps in."
    if power >= theirs[1]:
        return f"Attack with {name} ({power}): if their {theirs[0]} ({theirs[1]}) blocks, " \
               f"yours wins (ties go to the attacker, 7.4); if not, {hit} damage."
    return f"Attack with {name}: they may not block; if they do, their {theirs[0]} " \
           f"({theirs[1]}) wins."


def _why_block(g, p: int, block: bool) -> str:
    """Why to block with the encounter unit or not, from the battle's forecast."""
    f = battle_forecast(g)
    if f is None:
        return "Block." if block else "Don't block."
    atk = f"their {g.card(f.attacker).name} ({f.power})"
    own = next((o for o in f.blocks if o.guardian is None), None)
    if block and own is not None:
        mine = g.card(own.blocker).name
        if "blocker" not in own.trashed:
            return f"Block with {mine}: its power {own.blocker_power} beats {atk}, " \
                   f"which is trashed."
        through = f"only {own.damage} of its damage gets through" if own.damage else \
            "its damage does not get through"
        if own.blocker_power == f.power:
            return f"Block with {mine}: a tie, which the attacker wins (7.4), so {mine} is " \
                   f"trashed, but {through}."
        return f"Block with {mine}: it is lost, but you have {len(g.damage[p])} damage " \
               f"and {f.hit} more could end the game; {through}."
    hit = f.unblocked.damage if f.unblocked is not None else f.hit
    if own is not None and "blocker" in own.trashed:
        return f"Don't block: your {g.card(own.blocker).name} ({own.blocker_power}) would " \
               f"lose to {atk}. Take {hit} damage instead; it also grows your size."
    return f"Don't block: take {hit} damage; it also grows your size."


def _why_pick(g, p: int, a: int) -> str:
    d = decision_info(g)
    i = A.decode(a).pick
    if a == A.PASS:
        return "Choose no more: the rest would not help."
    if d.purpose == K.P_ORDER:
        return "Resolve this effect first."
    v = d.candidates[i]
    if v < 0:
        return f"Choose lane {-1 - v}."
    name = g.card(v).name
    mine = g.owner(v) == p
    purpose = K.PICK_PURPOSES[d.purpose]
    if purpose in ("hand limit discard", "credit discard", "barrier discard"):
        return f"Discard {name}: of your choices it is the one you will miss least."
    if purpose in ("sacrifice", "offset item"):
        return f"Give up {name}: of your choices it is the one you will miss least."
    what = ""
    if d.ability >= 0 and 0 <= d.step < len(g.db.abilities[d.ability].sequence):
        what = render_action(g.db.abilities[d.ability].sequence[d.step])
    whose = "your" if mine else "their"
    return _sentence(f"Choose {whose} {name}" + (f" for: {what}" if what else ""))


__all__ = ["Coach", "Hint", "LESSONS", "TUTORIAL", "why"]
