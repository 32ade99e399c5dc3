"""The card language's vocabulary: one record per term.

A *term* is a word card files, card text and the engine share: a timing (``entry``), a
gate (``armed``), a sub-keyword (``pierce``), a Guardian payment (``barrier``), a card
property with a keyword name (Trigger, Awakening), a condition (``hand_at_least``) or a
verb (``draw``).  Its record holds everything that is not engine behaviour: the key card
files use, the English and Korean names, the rule it comes from, what its argument is,
how it is written in card text, whether it carries a value, whether it may be a cost or
sit in a passive ability, whether it moves cards from zone to zone (``moves``: the engine
then skips a leader, which never leaves the level zone, 3.3.4, and the schema refuses a
leader's ability aiming it at the leader itself).  Schema parsing, card text, docs/cards.md, and the observation's
keyword and verb columns are all read from ``TERMS``; the engine keys its handlers by the
same keys (``nivel_env.engine.keywords``, ``match.CONDITIONS``, ``verbs.HANDLERS``) and a
test checks that every term has one.

Order matters for the text and docs: ``TERMS`` lists the section-10 keywords in rule
order, so a new keyword goes where its rule number puts it.  The observation's columns do
not follow it: the keywords the layout shipped with keep theirs
(``card_features.SHIPPED``), and a keyword added since names, in ``obs_version``, the
observation layout version that added its columns (the next one: ``LAYOUT.version + 1``,
the last row of docs/observation.md's version table plus one); its columns go in that
version's blocks at the end of the vector, so every earlier version's prefix stays as it
was.  Conditions and verbs go at the end; a new verb takes one of the observation's
reserved verb slots (``card_features.ADDED_VERB_SLOTS``), so the layout stays as it is.

Adding a sub-keyword: a ``Term`` here (with ``obs_version``), a hook in
``engine/keywords.py``, its stacking in ``engine/explain.py`` (``STACKING``: how several
instances on one unit combine), a test; the parser, the text, the docs and the observation
follow (regenerate docs/cards.md and docs/observation.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from . import model as m
from .phrases import noun_phrase, render_filter, render_selector, render_value, subject

# term kinds
TIMING, GATE, SUBKEYWORD, GUARDIAN, CARD, CONDITION, VERB, MODIFIER = (
    "timing", "gate", "sub-keyword", "guardian payment", "card", "condition", "verb",
    "action modifier")


@dataclass(frozen=True)
class Term:
    """One word of the card language (see the module docstring).

    ``arg`` says what the card file writes after the key: ``""`` nothing (or ``true``),
    ``"int"`` a whole number in ``lo..hi``, ``"filter"`` a card filter, ``"filter?"`` a
    filter or nothing, ``"affiliation?"`` an affiliation or nothing, ``"guardian"`` one
    Guardian payment, ``"count"`` a selector with ``at_least``/``at_most``; for a verb,
    ``args`` are the argument names it takes.  ``value`` is ``"n"`` when the term carries
    a number that matters in play (Pierce 2), ``"cost"`` when the number is a payment.
    """
    kind: str
    key: str                          # as card files write it ("" for a card property)
    en: str                           # English name (keywords as printed, bold in the game)
    ko: str = ""                      # Korean name
    rule: str = ""                    # the rule that defines it
    what: str = ""                    # one line for docs/cards.md
    arg: str = ""
    lo: int = 0
    hi: int = 99
    value: str = ""
    keyword: str = ""                 # timings: the section-10 keyword it is, if any
    label: tuple = ()                 # timings: (English, Korean) text label when not en/ko
    activates: str = ""               # sub-keyword: the keyword that is its condition (10.2.2)
    render: Optional[Callable] = None  # card text (see each kind's renderer below)
    # timings
    automatic: bool = False           # an automatic effect (queued when it triggers)
    until: str = m.UNTIL_TURN         # default duration of the modifiers it applies
    leader: bool = False              # a leader may have it
    # verbs
    args: tuple = ()
    target: Optional[m.Selector] = None   # default target
    scalar: str = ""                  # what a bare value means (`draw: 2`, `trash: self`)
    cost: bool = False                # may be an activation cost
    passive: bool = False             # may be an action of a passive (continuous) ability
    needs: tuple = ()                 # verbs: at least one of these arguments is required
    args_text: str = ""               # verbs: the arguments as docs/cards.md shows them
    player: str = "you"               # verbs: the default of their ``player`` argument
    moves: bool = False               # verbs: moves cards from zone to zone, so never a
                                      # leader, which cannot leave the level zone (3.3.4)
    # keywords (gates, sub-keywords, card properties, keyword timings)
    obs_version: int = 0              # the observation layout version that added its
                                      # columns (0: the shipped layout's; see above)


# ------------------------------------------------------------------ renderers

def name_in(en: str, lang: str) -> str:
    """A keyword's name in ``lang`` ("en" or "ko")."""
    if lang != "ko":
        return en
    t = BY_NAME.get(en)
    return t.ko if t is not None and t.ko else en


def _bracketed(k: m.Keyword, lang: str) -> str:              # Pierce[2]
    return f"{name_in(k.name, lang)}[{k.n}]"


def _colon(k: m.Keyword, lang: str) -> str:                  # Credit: 1
    return f"{name_in(k.name, lang)}: {k.n}"


def _plain(k: m.Keyword, lang: str) -> str:
    return name_in(k.name, lang)


def _breakthrough(k: m.Keyword, lang: str) -> str:
    f = render_filter(k.filter)
    return f"{name_in(k.name, lang)}[{f}]" if f else name_in(k.name, lang)


def _guardian(k: m.Keyword, lang: str) -> str:
    pay = PAYMENT_BY_KEY[k.guardian]
    arg = render_filter(k.filter) if pay.arg == "filter" else str(k.n)
    return f"[{name_in(k.name, lang)}] {name_in(pay.en, lang)}[{arg}]"


def _gate(c: m.Condition, lang: str) -> str:
    t = GATE_BY_KEY[c.kind]
    name = name_in(t.en, lang)
    if t.arg == "int":
        return f"[{name}: {c.n}]"
    if t.arg == "affiliation?" and c.text:
        return f"[{name}: {c.text}]"
    return f"[{name}]"


def _at_least(what: str, whose: str = "your"):
    return lambda c: f"{whose} {what} is at least {c.n}"


def _at_most(what: str):
    return lambda c: f"your {what} is at most {c.n}"


def _count(c: m.Condition) -> str:
    what = render_selector(c.selector, obj=True).removeprefix("all ")
    return f"there are {c.kind[6:].replace('_', ' ')} {c.n} of {what}"


def _who(a: m.Action) -> str:
    return {"you": "", "opponent": "your opponent ", "each": "each player "}[a.player]


def _cards(amt: str) -> str:
    return f"card{'s' if amt != '1' else ''}"


def _draw(a, until):
    who, amt = _who(a), render_value(a.amount)
    return f"{who}draw{'s' if who else ''} {'up to ' if a.up_to else ''}{amt} {_cards(amt)}"


def _discard(a, until):
    who, amt = _who(a), render_value(a.amount)
    return f"{who}discard{'s' if who else ''} {'up to ' if a.up_to else ''}{amt} " \
           f"{_cards(amt)}" + (" at random" if a.random else "")


def _mill(a, until):
    who = _who(a)
    return f"{who}put{'s' if who else ''} the top {render_value(a.amount)} card(s) of the " \
           f"deck into the trash"


def _damage(a, until):
    to = {"opponent": "your opponent", "you": "you"}.get(a.player, "each player")
    return f"deal {render_value(a.amount)} damage to {to}"


def _heal(a, until):
    return f"put {'up to ' if a.up_to else ''}{render_value(a.amount)} card(s) from your " \
           f"damage zone into the trash"


def _level(a, until):
    return f"raise {'your' if a.player == 'you' else 'the opponent’s'} leader level by " \
           f"{render_value(a.amount)}"


def _size(a, until):
    return f"{'your' if a.player == 'you' else 'the opponent’s'} size gets {a.size:+d}{until}"


def _object(template: str):
    return lambda a, until: template.format(render_selector(a.target, obj=True))


def _into_hidden(template: str):
    """A verb that puts cards into a hand or deck: with a card condition the engine shows
    them to the other player (3.1.7, engine/verbs.py ``_to_zone``), and the text says so
    where they come from a hand or deck -- out of an open zone everyone saw them already."""
    def render(a, until):
        s = template.format(render_selector(a.target, obj=True))
        t = a.target
        if t.ref is None and t.zone in ("hand", "deck") and not t.filter.is_empty():
            s += f", revealing {'them' if t.mode == 'all' or t.n > 1 else 'it'}"
        return s
    return render


def _search(a, until):
    amt = render_value(a.amount)
    it = "it" if amt == "1" else "them"
    # 3.1.7: only a search with a card condition shows the other player what it takes
    shown = "" if a.filter.is_empty() else f"reveal {it}, "
    return f"search your deck for up to {amt} {noun_phrase(a.filter, 'card', amt != '1')}, " \
           f"{shown}put {it} into your hand and shuffle your deck"


def _modify(a, until):
    parts = [f"{val:+d} {stat}" for stat, val in (("power", a.power), ("hit", a.hit)) if val]
    if a.attacks:
        parts.append(f"{a.attacks:+d} attack{'s' if abs(a.attacks) != 1 else ''}")
    if a.cost:
        parts.append(f"{a.cost:+d} cost")
    return f"{subject(a.target, 'gets', 'get')} {', '.join(parts)}{until}"


_FACTOR_WORDS = {50: "halve", 200: "double"}


def _scale(a, until):
    obj = render_selector(a.target, obj=True)
    word = _FACTOR_WORDS.get(a.percent)
    if word:
        return f"{word} the {a.stat} of {obj}{until} (rounded half up)"
    return f"multiply the {a.stat} of {obj} by {a.percent / 100:g}{until} (rounded half up)"


def _game_result(word: str):
    def render(a, until):
        who = {"you": "you", "opponent": "your opponent", "each": "each player"}[a.player]
        verb = word if a.player == "you" else word + "s"
        return f"{who} {verb} the game"
    return render


def _attack(a, until):
    return f"{subject(a.target, 'declares', 'declare')} an attack (it still counts as not " \
           f"having attacked this turn)"


def _grant(a, until):
    return f"{subject(a.target, 'gains', 'gain')} {render_keyword(a.keyword)}{until}"


def _prohibit(a, until):
    return f"{subject(a.target, 'cannot', 'cannot')} {a.prohibit}{until}"


def _to_damage(a, until):
    amt = render_value(a.amount)
    top = "the top card" if amt == "1" else f"the top {amt} cards"
    if a.player == "you":
        return f"put {top} of your deck into your damage zone"
    return f"{_who(a)}puts {top} of their deck into their damage zone"


#: what a ``whenever`` ability watches (``Ability.watch``), as its label says it: English for
#: its controller and for the opponent, Korean for the same
_WHENEVER = {
    "draw": ("you draw a card", "your opponent draws a card", "카드를 드로우할",
             "상대가 카드를 드로우할"),
    "discard": ("you discard a card", "your opponent discards a card", "패를 트래시할",
                "상대가 패를 트래시할"),
    "trash": ("a card is put into your trash", "a card is put into your opponent's trash",
              "자신의 트래시에 카드가 놓일", "상대의 트래시에 카드가 놓일"),
    "damage": ("a card is put into your damage zone",
               "a card is put into your opponent's damage zone",
               "자신의 대미지 존에 카드가 놓일", "상대의 대미지 존에 카드가 놓일"),
}


def _whenever(ab: m.Ability, lang: str) -> str:                # [Whenever you draw a card]
    en_you, en_opp, ko_you, ko_opp = _WHENEVER[ab.watch]
    if lang == "ko":
        return f"{ko_you if ab.whose == 'you' else ko_opp} 때마다"
    return f"Whenever {en_you if ab.whose == 'you' else en_opp}"


def render_keyword(k: m.Keyword, lang: str = "en") -> str:
    t = SUBKEYWORD_BY_KEY[k.term]
    s = t.render(k, lang)
    if t.activates:                                  # 10.2.2: [Attacker] Pierce[1]
        s = f"[{name_in(t.activates, lang)}] {s}"
    return gates_text(k.gates, lang) + s


def gates_text(gates: tuple, lang: str) -> str:
    out = [GATE_BY_KEY[g.kind].render(g, lang) for g in gates]
    return " ".join(out) + (" " if out else "")


# -------------------------------------------------------------------- the terms

_OPP_UNIT = m.Selector(who="opponent", zone="unit", mode="choose", n=1)
_SELF = m.Selector(ref="self", mode="all")

TERMS: tuple[Term, ...] = (
    # section 10.1: the timing keywords, gates and card properties, in rule order
    Term(TIMING, m.ENTRY, "Entry", "엔트리", "10.1.2", "automatic: placed in a unit zone",
         keyword="Entry", automatic=True),
    Term(TIMING, m.PASSIVE, "Passive", "패시브", "10.1.3",
         "continuous: in the level zone or a unit zone", keyword="Passive", leader=True),
    Term(TIMING, m.ACTIVE_MAIN, "Active", "액티브", "10.1.4",
         "activated in the main phase, by the turn player", keyword="Active", leader=True,
         label=("Active: Main", "액티브: 메인")),
    Term(TIMING, m.ACTIVE_ATTACK, "Active", "액티브", "10.1.4",
         "activated in the attack phase, by the turn player", keyword="Active", leader=True,
         label=("Active: Attack", "액티브: 어택")),
    Term(TIMING, m.ATTACKER, "Attacker", "어태커", "10.1.5",
         "automatic: attack declared; modifiers last until battle end", keyword="Attacker",
         automatic=True, until=m.UNTIL_BATTLE),
    Term(TIMING, m.DEFENDER, "Defender", "디펜더", "10.1.6",
         "automatic: defense declared; modifiers last until battle end", keyword="Defender",
         automatic=True, until=m.UNTIL_BATTLE),
    Term(TIMING, m.EXIT, "Exit", "엑시트", "10.1.7", "automatic: trashed by battle or effect "
         "(not by upgrade); resolves from the trash", keyword="Exit", automatic=True),
    Term(GATE, "armed", "Armed", "암드", "10.1.8", "the unit has an item (of an affiliation)",
         arg="affiliation?", render=_gate),
    Term(GATE, "frontline", "Frontline", "전선구축", "10.1.9",
         "its controller has a unit in every lane", render=_gate),
    Term(GATE, "level_link", "Level Link", "레벨링크", "10.1.10",
         "its controller's leader level is at least N", arg="int", lo=1, hi=10, render=_gate),
    Term(CARD, "", "Trigger", "트리거", "10.1.11",
         "a card's `trigger` effect, used when it is revealed as damage"),
    Term(GATE, "mix", "Mix", "믹스", "10.1.12",
         "its controller's field shows two or more attributes", render=_gate),
    Term(TIMING, m.ESCAPE, "Escape", "이스케이프", "10.1.13", "automatic: start of its "
         "controller's main phase; the unit then goes to the bottom of its owner's deck "
         "(added automatically)", keyword="Escape", automatic=True),
    Term(GATE, "chain", "Chain", "체인", "10.1.14",
         "on its controller's turn, after N attacks this turn", arg="int", lo=1, hi=10,
         render=_gate),
    Term(GATE, "buff", "Buff", "버프", "10.1.15",
         "its controller has N or more cards in the skill zone", arg="int", lo=1, hi=10,
         render=_gate),
    # section 10.2: sub-keywords and the Guardian payments, in rule order
    Term(SUBKEYWORD, "pierce", "Pierce", "관통", "10.2.3.2",
         "after winning a battle as the attacker, N damage to the opponent", arg="int",
         lo=1, hi=10, value="n", activates="Attacker", render=_bracketed),
    Term(SUBKEYWORD, "plunder", "Plunder", "약탈", "10.2.3.3",
         "after winning a battle as the attacker, draw N", arg="int", lo=1, hi=10,
         value="n", activates="Attacker", render=_bracketed),
    Term(SUBKEYWORD, "breakthrough", "Breakthrough", "돌파", "10.2.3.4",
         "units matching the filter (all units without one) cannot defend against it",
         arg="filter?", activates="Attacker", render=_breakthrough),
    Term(SUBKEYWORD, "duelist", "Duelist", "듀얼리스트", "10.2.3.5",
         "no Guardian against it; its encounter unit must defend", activates="Attacker",
         render=_plain),
    Term(SUBKEYWORD, "infiltrate", "Infiltrate", "침투", "10.2.3.6",
         "at the battle step, draw N if no unit defends", arg="int", lo=1, hi=10, value="n",
         activates="Attacker", render=_bracketed),
    Term(SUBKEYWORD, "finale", "Finale", "종결", "10.2.4.2",
         "when it defends, the battle ends and it is trashed", activates="Defender",
         render=_plain),
    Term(SUBKEYWORD, "mutual_destruction", "Mutual Destruction", "공멸", "10.2.5.2",
         "trashed by battle: the unit it battled is trashed if its cost is not higher",
         activates="Exit", render=_plain),
    Term(SUBKEYWORD, "return", "Return", "귀환", "10.2.5.3",
         "trashed by battle or effect: back to hand at the end of the turn",
         activates="Exit", render=_plain),
    Term(CARD, "", "Awakening", "각성", "10.2.6.1",
         "a leader's `awakening` level and `back` face"),
    Term(SUBKEYWORD, "berserker", "Berserker", "광전사", "10.2.6.2",
         "the attack phase cannot end while it can attack", render=_plain),
    Term(SUBKEYWORD, "guardian", "Guardian", "가디언", "10.2.6.3",
         "may defend for an adjacent lane by paying its condition", arg="guardian",
         value="cost", render=_guardian),
    Term(GUARDIAN, "barrier", "Barrier", "방벽", "10.2.6.3.4.1",
         "Guardian payment: discard N cards", arg="int", lo=1, hi=5),
    Term(GUARDIAN, "sacrifice", "Sacrifice", "희생", "10.2.6.3.4.2",
         "Guardian payment: trash N of your other units", arg="int", lo=1, hi=5),
    Term(GUARDIAN, "offset", "Offset", "상쇄", "10.2.6.3.4.3",
         "Guardian payment: trash one of its items matching the filter", arg="filter"),
    Term(SUBKEYWORD, "credit", "Credit", "크레딧", "10.2.6.4",
         "placed: draw N; trashed from the field: discard N", arg="int", lo=1, hi=10,
         value="n", render=_colon),
    # a timing that is not a keyword
    Term(TIMING, m.END_OF_TURN, "End of turn", "턴 종료", "6.6.1.1",
         "automatic: end phase of its controller's turn", automatic=True, leader=True),
    # conditions (`if:`)
    Term(CONDITION, "level_at_least", "level at least", rule="6.2", arg="int",
         what="your leader level is at least N", render=_at_least("level")),
    Term(CONDITION, "damage_at_least", "damage at least", rule="4.5", arg="int",
         what="your damage zone holds at least N cards", render=_at_least("damage")),
    Term(CONDITION, "opponent_damage_at_least", "opponent damage at least", rule="4.5",
         arg="int", what="the opponent's damage zone holds at least N cards",
         render=_at_least("damage", "your opponent's")),
    Term(CONDITION, "hand_at_least", "hand at least", rule="3.8", arg="int",
         what="you hold at least N cards", render=_at_least("hand")),
    Term(CONDITION, "hand_at_most", "hand at most", rule="3.8", arg="int",
         what="you hold at most N cards", render=_at_most("hand")),
    Term(CONDITION, "opponent_level_at_least", "opponent level at least", rule="6.2",
         arg="int", what="the opponent's leader level is at least N",
         render=_at_least("level", "your opponent's")),
    Term(CONDITION, "count_at_least", "count at least", rule="8.3.2", arg="count",
         what="at least N cards match the selector", render=_count),
    Term(CONDITION, "count_at_most", "count at most", rule="8.3.2", arg="count",
         what="at most N cards match the selector", render=_count),
    # action modifiers: written beside an action's verb
    Term(MODIFIER, "may", "may", "할 수 있다", "8.1.2.2", "the controller decides whether to "
         "carry it out", render=lambda s: "you may " + s),
    Term(MODIFIER, "if_done", "if you do", "했다면", "8.3.2", "carried out only if the "
         "action before it did something", render=lambda s: "if you do, " + s),
    Term(MODIFIER, "additionally", "additionally", "추가로", "8.4.4.1", "carried out together "
         "with the action before it as one simultaneous action: losses, a unit's power "
         "reaching 0 and other results are checked once both are done",
         render=lambda s: "additionally, " + s),
    # verbs, in the order of the observation's verb columns
    Term(VERB, "draw", "draw", rule="4.4", what="draw (`up_to`: the drawer first chooses "
         "how many, 0..N and at most the deck, 4.4.4)", args=("amount", "player", "up_to"),
         scalar="amount", render=_draw),
    Term(VERB, "discard", "discard", rule="4.8", what="that player discards cards of their "
         "choice", args=("amount", "player", "random", "up_to"), scalar="amount", cost=True,
         render=_discard),
    Term(VERB, "mill", "mill", rule="4.8", what="top cards of the deck to the trash",
         args=("amount", "player"), scalar="amount", render=_mill),
    Term(VERB, "damage", "damage", rule="4.5", what="damage processing",
         args=("amount", "player"), scalar="amount", cost=True, render=_damage),
    Term(VERB, "heal", "heal", rule="4.8", what="cards of your choice from your damage zone "
         "to the trash", args=("amount", "up_to"), scalar="amount", render=_heal),
    Term(VERB, "level", "level", rule="4.6", what="raise the leader level (Awakening checks)",
         args=("amount", "player"), scalar="amount", render=_level),
    Term(VERB, "size", "size", rule="4.7.3", what="change size; negative lowers it",
         args=("amount", "player", "until"), scalar="amount", passive=True, render=_size,
         args_text="`amount` (±, -20..20), `player`, `until`"),
    Term(VERB, "trash", "trash", rule="4.8", what="trash by effect (never a card already in "
         "the trash, 4.8.2, nor a leader, 3.3.4)", args=("target",),
         target=_OPP_UNIT, scalar="target", cost=True, render=_object("trash {}"), moves=True),
    Term(VERB, "return_to_hand", "return to hand", rule="3.5.6.1",
         what="to the owner's hand (items on a unit are trashed; never a leader, 3.3.4)",
         args=("target",), target=_OPP_UNIT, scalar="target", cost=True,
         render=_into_hidden("return {} to its owner's hand"), moves=True),
    Term(VERB, "to_deck_bottom", "to deck bottom", rule="3.2",
         what="to the bottom of the owner's deck (never a leader, 3.3.4)", args=("target",),
         target=_OPP_UNIT, scalar="target", cost=True,
         render=_into_hidden("put {} on the bottom of its owner's deck"), moves=True),
    Term(VERB, "salvage", "salvage", rule="3.6", what="from the trash to hand",
         args=("target",), target=m.Selector(who="you", zone="trash", mode="choose", n=1),
         scalar="target", render=_into_hidden("put {} into your hand"), moves=True),
    Term(VERB, "search", "search", rule="3.2.4", what="up to `amount` matching cards from "
         "your deck to hand, then shuffle", args=("filter", "amount", "up_to"),
         scalar="amount", render=_search),
    Term(VERB, "modify", "modify", rule="8.1.3.3.3", what="change numbers (`attacks`: extra "
         "attack declarations, 7.2.1.2; `cost`: the unit's cost while it is on the field, "
         "never below 0, 1.3.7.1 -- the cost the field's sum, upgrades, filters and Mutual "
         "Destruction read there, 6.4.1.1.2, 3.5.5, 10.2.5.2.3)",
         args=("target", "power", "hit", "attacks", "cost", "until"),
         target=_SELF, scalar="target", passive=True, needs=("power", "hit", "attacks", "cost"),
         render=_modify),
    Term(VERB, "grant", "grant", rule="10.2.1", what="give a sub-keyword",
         args=("target", "keyword", "until"), target=_SELF, scalar="target", passive=True,
         needs=("keyword",), render=_grant),
    Term(VERB, "prohibit", "prohibit", rule="1.3.4", what="forbid (prohibitions win)",
         args=("target", "what", "until"), target=_OPP_UNIT, scalar="target", passive=True,
         render=_prohibit),
    Term(VERB, "move", "move", rule="3.5.3", what="move a unit to an empty unit zone of "
         "its controller", args=("target",), target=_SELF, scalar="target",
         render=_object("move {} to an empty lane of yours"), moves=True),
    # verbs added after the observation layout shipped (their columns: card_features)
    Term(VERB, "win", "win", rule="1.2.5", what="that player wins the game at once, in the "
         "middle of the effect", args=("player",), scalar="player",
         render=_game_result("win"), args_text="`player` (you, opponent)"),
    Term(VERB, "lose", "lose", rule="1.2.5", what="that player loses the game at once (each "
         "player: a draw, 1.2.3)", args=("player",), scalar="player", player="opponent",
         render=_game_result("lose"), args_text="`player` (default opponent)"),
    Term(VERB, "attack", "attack", rule="7.2.1.1", what="your unit declares an attack and "
         "the battle is fought at once; it still counts as not having attacked",
         args=("target",), target=_SELF, scalar="target", render=_attack),
    Term(VERB, "scale", "scale", rule="1.3.7.2", what="multiply power or hit (`factor` 0.5 "
         "halves), rounding half up", args=("target", "stat", "factor", "until"),
         target=_SELF, scalar="target", passive=True, needs=("factor",), render=_scale,
         args_text="`target`, `stat` (power, hit), `factor` (0.5 = halve; 0.01..10), `until`"),
    # the damage window, action-conditioned continuous effects and cards put into the
    # damage zone by an effect: two timings that are not keywords (no keyword column) and
    # a verb in a reserved slot
    Term(TIMING, m.BEFORE_DAMAGE, "When you would take damage", "대미지 발생 시", "4.5.2",
         "automatic: its controller is about to take damage (a battle, an effect, Pierce); "
         "it resolves before the damage processing reveals any card, and the damage stays "
         "what it was", automatic=True, leader=True),
    Term(TIMING, m.WHENEVER, "Whenever", "때마다", "8.4.1.1",
         "continuous: each time a card is drawn (`watch: draw`), discarded (`discard`: hand to "
         "trash), put into the trash (`trash`) or into the damage zone (`damage`) -- its "
         "controller's, or with `whose: opponent` the opponent's; once per card.  Met during "
         "an effect's processing, it is carried out when that processing ends (during damage "
         "processing, when that ends, 8.4.3).  Its actions may not feed its own condition "
         "(a `whenever: draw` that draws)", leader=True, render=_whenever),
    Term(VERB, "to_damage", "to damage zone", rule="1.2.2.2", what="the top cards of that "
         "player's deck go face up into their damage zone, as many as the deck holds: not "
         "damage (no damage window, no Trigger, 4.5.4.3); a player with 10 or more there "
         "loses when the effect's processing ends (9.2.1.2)", args=("amount", "player"),
         scalar="amount", cost=True, render=_to_damage),
)


def _of(kind: str) -> tuple:
    return tuple(t for t in TERMS if t.kind == kind)


TIMINGS = _of(TIMING)
GATES = _of(GATE)
SUBKEYWORDS = _of(SUBKEYWORD)
GUARDIAN_PAYMENTS = _of(GUARDIAN)
CONDITIONS = _of(CONDITION) + GATES                 # a gate may also be an `if:`
VERBS = _of(VERB)
MODIFIERS = _of(MODIFIER)

#: the section-10 keywords by English name, in rule order (the observation's columns)
KEYWORD_NAMES: tuple[str, ...] = tuple(dict.fromkeys(
    t.keyword or t.en for t in TERMS
    if t.kind in (GATE, SUBKEYWORD, GUARDIAN, CARD) or (t.kind == TIMING and t.keyword)))
#: English keyword name -> its term (timings: the first timing that is the keyword)
BY_NAME = {}
for _t in TERMS:
    if _t.kind in (GATE, SUBKEYWORD, GUARDIAN, CARD, TIMING):
        BY_NAME.setdefault(_t.keyword or _t.en, _t)
del _t
TIMING_BY_KEY = {t.key: t for t in TIMINGS}
GATE_BY_KEY = {t.key: t for t in GATES}
SUBKEYWORD_BY_KEY = {t.key: t for t in SUBKEYWORDS}
PAYMENT_BY_KEY = {t.key: t for t in GUARDIAN_PAYMENTS}
CONDITION_BY_KEY = {t.key: t for t in CONDITIONS}
VERB_BY_KEY = {t.key: t for t in VERBS}
MODIFIER_BY_KEY = {t.key: t for t in MODIFIERS}


def timing_label(key: str, lang: str = "en") -> str:
    """How card text writes a timing: "Entry", "Active: Main", "턴 종료"."""
    t = TIMING_BY_KEY[key]
    if t.label:
        return t.label[lang == "ko"]
    return t.ko if lang == "ko" else t.en


def korean(name: str) -> str:
    """The Korean name of a section-10 keyword given in English (else the name itself)."""
    return name_in(name, "ko")


__all__ = ["Term", "TERMS", "TIMINGS", "GATES", "SUBKEYWORDS", "GUARDIAN_PAYMENTS", "CONDITIONS",
           "VERBS", "MODIFIERS", "KEYWORD_NAMES", "BY_NAME", "TIMING_BY_KEY", "GATE_BY_KEY",
           "SUBKEYWORD_BY_KEY", "PAYMENT_BY_KEY", "CONDITION_BY_KEY", "VERB_BY_KEY",
           "MODIFIER_BY_KEY", "korean", "name_in", "timing_label", "render_keyword", "gates_text"]
