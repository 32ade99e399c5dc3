"""Compiled card objects.

Card files are parsed and validated once (``schema.py``) into these frozen
objects; the engine only ever reads them.  All runtime state (where a card is,
what modifies it) lives in the game state, so one compiled pool is shared by
every game and every clone.

The vocabulary (timings, gates, sub-keywords, conditions, verbs) is one record per term
in ``vocab.py``, printed as ``docs/cards.md``; the keys used here are the keys the YAML
files use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

# Card types (docs/rulings.md A).
LEADER, UNIT, ITEM, SKILL = "leader", "unit", "item", "skill"
CARD_TYPES = (LEADER, UNIT, ITEM, SKILL)

# Attributes form a small fixed set (docs/rulings.md A); Mix (10.1.12) compares them.
ATTRIBUTES = ("fire", "water", "wind", "earth", "light", "dark")

# Ability timings: the section-10 keyword that says when an ability works.
ENTRY = "entry"              # 10.1.2  automatic, unit placed
PASSIVE = "passive"          # 10.1.3  continuous, level zone or unit zone
ACTIVE_MAIN = "active_main"  # 10.1.4  activated in the main phase
ACTIVE_ATTACK = "active_attack"  # 10.1.4 activated in the attack phase
ATTACKER = "attacker"        # 10.1.5  automatic, attack declared
DEFENDER = "defender"        # 10.1.6  automatic, defense declared
EXIT = "exit"                # 10.1.7  automatic, trashed by battle or effect
ESCAPE = "escape"            # 10.1.13 automatic, start of its controller's main phase
END_OF_TURN = "end_of_turn"  # 6.6.1.1 automatic, "at the end of this turn" of its controller
BEFORE_DAMAGE = "before_damage"  # 4.5.2 automatic, its controller is about to take damage
WHENEVER = "whenever"        # 8.4.1.1 continuous, each time an action (``watch``) happens
#: the actions a ``whenever`` ability may watch (``Ability.watch``), one card each time
WHENEVER_EVENTS = ("draw", "discard", "trash", "damage")
ACTIVATED = (ACTIVE_MAIN, ACTIVE_ATTACK)

# Durations of modifiers applied by one-shot effects (8.1.3.3.3).
UNTIL_TURN = "turn"      # until end of turn (6.6.1.2)
UNTIL_BATTLE = "battle"  # until the battle-end step (7.5.1)
UNTIL_LEAVES = "leaves"  # while the card stays where it is
DURATIONS = (UNTIL_TURN, UNTIL_BATTLE, UNTIL_LEAVES)

# The terms themselves (names, rules, arguments, text) are records in ``vocab.py``.


@dataclass(frozen=True, slots=True)
class Filter:
    """A property test on one card (used by selectors, equip conditions, oaths)."""
    types: tuple = ()
    attributes: tuple = ()
    affiliations: tuple = ()
    cost_min: Optional[int] = None
    cost_max: Optional[int] = None
    power_min: Optional[int] = None
    power_max: Optional[int] = None
    hit_min: Optional[int] = None
    hit_max: Optional[int] = None
    keyword: Optional[str] = None
    has_item: Optional[bool] = None
    has_trigger: Optional[bool] = None
    ids: tuple = ()

    def is_empty(self) -> bool:
        return self == EMPTY_FILTER


EMPTY_FILTER = Filter()


@dataclass(frozen=True, slots=True)
class Condition:
    """A yes/no question about the game: ``kind`` plus its arguments.

    Gates (``armed``, ``frontline``, ``level_link``, ``mix``, ``chain``, ``buff``)
    are the section-10 continuous keywords; the others are general conditions.
    """
    kind: str
    n: int = 0
    text: str = ""            # affiliation for armed
    selector: Optional["Selector"] = None


@dataclass(frozen=True, slots=True)
class Selector:
    """Which cards an action works on.

    ``ref`` names a single card relative to the effect (``self``, ``encounter``,
    ``attacker``, ``defender``, ``battle_opponent``, ``equipped``); otherwise the
    selector describes a set: whose (``who``), which zone, which lanes, a filter,
    and how many are taken (``mode`` all / choose / up_to, ``n``).
    """
    ref: Optional[str] = None
    who: str = "opponent"
    zone: str = "unit"
    lanes: str = "any"        # any | same | adjacent | other
    other: bool = False       # exclude the effect's own unit
    filter: Filter = EMPTY_FILTER
    mode: str = "choose"      # all | choose | up_to | random
    n: int = 1


@dataclass(frozen=True, slots=True)
class Value:
    """A number: a literal, or a count of cards matched by a selector."""
    n: int = 0
    count: Optional[Selector] = None
    times: int = 1
    stat: Optional[str] = None    # level | damage | hand (of ``who``)
    who: str = "you"


@dataclass(frozen=True, slots=True)
class Keyword:
    """A sub-keyword (10.2) on a card, with optional ``while`` gates."""
    name: str                     # display name, e.g. "Pierce"
    term: str = ""                # its key in vocab.py, e.g. "pierce": what the engine reads
    n: int = 0                    # Pierce/Plunder/Infiltrate/Credit value, Guardian Barrier/Sacrifice count
    filter: Filter = EMPTY_FILTER  # Breakthrough condition, Guardian Offset condition
    guardian: str = ""            # barrier | sacrifice | offset
    gates: tuple = ()
    key: int = -1                 # index into CardDB.keywords


@dataclass(frozen=True, slots=True)
class Action:
    """One instruction of an effect (8.3.1: executed top to bottom)."""
    verb: str
    target: Optional[Selector] = None
    amount: Value = Value(1)
    player: str = "you"           # you | opponent | each
    power: int = 0
    hit: int = 0
    attacks: int = 0
    cost: int = 0                 # modify: change to a unit's cost while it is on the field
    size: int = 0
    until: str = UNTIL_TURN
    keyword: Optional[Keyword] = None
    prohibit: str = ""            # attack | defend
    optional: bool = False        # "may" (8.1.2.2)
    if_done: bool = False         # "if you did" (8.3.2)
    condition: Optional[Condition] = None
    up_to: bool = False
    random: bool = False
    filter: Filter = EMPTY_FILTER
    text: str = ""                # override for rendered text
    additionally: bool = False    # "additionally": one simultaneous action with the one
                                  # before it (8.4.4.1)
    stat: str = "power"           # scale: the number it changes (power | hit)
    percent: int = 100            # scale: the factor in percent (50: halve, 1.3.7.2)


@dataclass(frozen=True, slots=True)
class Ability:
    """A printed effect: timing keyword, gates, optional cost and actions."""
    when: str
    actions: tuple
    gates: tuple = ()
    condition: Optional[Condition] = None
    optional: bool = False
    cost: tuple = ()
    key: int = -1                 # index into CardDB.abilities
    limit: int = 1                # activations per turn (6.4.1.2.2)
    watch: str = ""               # whenever: the action watched (WHENEVER_EVENTS)
    whose: str = "you"            # whenever: whose action it is (you | opponent)

    @property
    def sequence(self) -> tuple:
        """Cost actions, then effect actions: the order a frame executes them."""
        return self.cost + self.actions


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a leader; the back face is used once awakened (10.2.6.1)."""
    name: str
    name_ko: str
    abilities: tuple = ()
    subkeywords: tuple = ()


@dataclass(frozen=True, slots=True)
class OathRule:
    """One deck-building condition of a leader's oath (5.1.2.1)."""
    kind: str                     # all | at_least | at_most
    filter: Filter
    n: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    name_ko: str
    type: str
    cost: int = 0
    power: int = 0
    hit: int = 0
    attribute: str = ""
    affiliations: tuple = ()
    abilities: tuple = ()
    subkeywords: tuple = ()
    trigger: tuple = ()           # actions of the trigger effect (10.1.11)
    trigger_ability: Optional[Ability] = None  # the same, keyed, as the engine resolves it
    effect: Optional[Ability] = None   # a skill's activated effect (8.1.3.1.1)
    equip: Optional[Filter] = None     # an item's equip condition
    oath: tuple = ()
    awakening: int = 0
    back: Optional[Face] = None
    keywords: frozenset = frozenset()
    text: str = ""
    text_ko: str = ""
    index: int = -1
    activated: tuple = ()         # abilities that are Active: Main / Attack (precomputed)
    passives: tuple = ()          # abilities that are Passive (precomputed)
    source: str = ""              # file the card was read from
    raw: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def has_trigger(self) -> bool:
        return bool(self.trigger)

    def __repr__(self) -> str:
        return f"Card({self.id} {self.name!r})"
