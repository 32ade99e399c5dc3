"""Card features: what a policy knows about a card, read from the card data.

A policy that only saw card ids could not play a card it was not trained on.
Every row here is computed from the printed data (type, cost, power, hit,
attribute, affiliations, keywords and their values, what the abilities do), so
a new card in a user's pool gets a meaningful row with no retraining of the
layout.  The layout depends on neither the pool nor the game: affiliations are
hashed into fixed buckets and ability verbs come from the card vocabulary (``cards/vocab.py``).

Rows are built once per card pool (cached on the CardDB object) into one
``float32`` matrix; the encoder gathers rows from it with a single ``np.take``.
Row 0 is "no card"; row ``1 + card.index`` is a card (a leader's front face);
rows after those are the back faces of leaders (10.2.6.1).
"""
from __future__ import annotations

import dataclasses
import weakref
import zlib

import numpy as np

from ..cards import model as m, vocab
from ..cards.text import keyword_set

KEYWORDS = vocab.KEYWORD_NAMES                        # the 29 keywords of section 10
VERB_NAMES = tuple(t.key for t in vocab.VERBS)        # the card language's verbs
#: Verbs have columns in the card row (``COLUMNS``) for the first ``ROW_VERBS`` of them,
#: the vocabulary as the row first shipped; verbs added since have columns in
#: ``ADDED_COLUMNS``, observation blocks appended at the end, so a policy made before them
#: still reads its layout as the observation's prefix.  ``ADDED_VERB_SLOTS`` leaves room
#: for later verbs without another layout change.
ROW_VERBS = 16
ROW_VERB_NAMES = VERB_NAMES[:ROW_VERBS]
ADDED_VERB_NAMES = VERB_NAMES[ROW_VERBS:]
ADDED_VERB_SLOTS = 8
if len(ADDED_VERB_NAMES) > ADDED_VERB_SLOTS:
    raise RuntimeError(f"card_features: {len(ADDED_VERB_NAMES)} verbs added to the vocabulary "
                       f"but {ADDED_VERB_SLOTS} observation slots for them: raise "
                       f"ADDED_VERB_SLOTS (this changes the observation layout)")
#: values in play (Pierce 2), then payments (Guardian: cards to pay)
KEYWORD_VALUES = tuple(t.en for t in vocab.SUBKEYWORDS if t.value == "n") + \
    tuple(t.en for t in vocab.SUBKEYWORDS if t.value == "cost")
GATE_VALUES = tuple(t.key for t in vocab.GATES if t.arg == "int")
AFFILIATION_BUCKETS = 32

#: (name, width, meaning) in row order.  docs/observation.md prints this table.
COLUMNS = (
    ("present", 1, "1 when a card is in this slot"),
    ("type", 4, "one-hot: leader, unit, item, skill"),
    ("cost", 1, "printed cost / 10"),
    ("power", 1, "printed power / 10"),
    ("hit", 1, "printed hit / 5"),
    ("attribute", len(m.ATTRIBUTES), "one-hot: " + ", ".join(m.ATTRIBUTES)),
    ("affiliations", AFFILIATION_BUCKETS, "multi-hot, each affiliation name hashed (crc32) "
                                          f"into {AFFILIATION_BUCKETS} buckets"),
    ("keywords", len(KEYWORDS), "multi-hot of the section-10 keywords on this face: "
                                + ", ".join(KEYWORDS)),
    ("keyword_values", len(KEYWORD_VALUES), "printed value / 5 of " + ", ".join(KEYWORD_VALUES)
                                            + " (Guardian: cards to pay)"),
    ("gate_values", len(GATE_VALUES), "threshold / 10 of Level Link, Chain, Buff gates"),
    ("verbs_self", ROW_VERBS, "multi-hot: effect verbs of the abilities (skill effect "
                              "included) acting on you or your cards: "
                              + ", ".join(ROW_VERB_NAMES)),
    ("verbs_opponent", ROW_VERBS, "multi-hot: effect verbs acting on the opponent or "
                                  "their cards (or on either player)"),
    ("trigger_verbs", ROW_VERBS, "multi-hot: effect verbs of the trigger effect"),
    ("power_bonus", 1, "sum of power changes its abilities give / 10 (negative for debuffs)"),
    ("awakening", 1, "leader: awakening level / 10"),
    ("back_face", 1, "1 for an awakened leader's back face"),
    ("equip_condition", 1, "item: 1 when it can be equipped only to some units"),
)
WIDTH = sum(w for _, w, _ in COLUMNS)
_added = ", ".join(ADDED_VERB_NAMES) + (f", then {ADDED_VERB_SLOTS - len(ADDED_VERB_NAMES)} "
                                         f"slots kept free" if len(ADDED_VERB_NAMES) <
                                         ADDED_VERB_SLOTS else "")
#: a card row's columns for the verbs added since the row shipped (the observation's
#: ``*_added`` blocks, one row per card row), same meanings as the row's verb columns
ADDED_COLUMNS = (
    ("added_verbs_self", ADDED_VERB_SLOTS, "as verbs_self, for the verbs " + _added),
    ("added_verbs_opponent", ADDED_VERB_SLOTS, "as verbs_opponent, for the same verbs"),
    ("added_trigger_verbs", ADDED_VERB_SLOTS, "as trigger_verbs, for the same verbs"),
)
ADDED_WIDTH = sum(w for _, w, _ in ADDED_COLUMNS)
#: column name -> index in the full row (the card row, then the added columns)
OFFSET = {}
_o = 0
for _name, _w, _ in COLUMNS + ADDED_COLUMNS:
    OFFSET[_name] = _o
    _o += _w
del _o, _name, _w, _added


def verb_column(column: str, verb: int) -> int:
    """Full-row index of verb number ``verb`` (in ``VERB_NAMES``) in a verb column group
    (``verbs_self``, ``verbs_opponent``, ``trigger_verbs``)."""
    if verb < ROW_VERBS:
        return OFFSET[column] + verb
    return OFFSET["added_" + column if column != "trigger_verbs" else "added_trigger_verbs"] \
        + verb - ROW_VERBS

_TYPES = (m.LEADER, m.UNIT, m.ITEM, m.SKILL)


def _affects_opponent(a: m.Action) -> bool:
    t = a.target
    if t is not None and t.ref is None:
        return t.who in ("opponent", "any")
    if t is not None:
        return t.ref in ("encounter", "battle_opponent")
    return a.player in ("opponent", "each")


def _face_row(card: m.Card, abilities: tuple, subkeywords: tuple, back: bool) -> np.ndarray:
    """The full row: the card row's ``WIDTH`` columns, then the ``ADDED_WIDTH`` ones."""
    r = np.zeros(WIDTH + ADDED_WIDTH, dtype=np.float32)
    r[OFFSET["present"]] = 1
    r[OFFSET["type"] + _TYPES.index(card.type)] = 1
    r[OFFSET["cost"]] = card.cost / 10
    r[OFFSET["power"]] = card.power / 10
    r[OFFSET["hit"]] = card.hit / 5
    if card.attribute in m.ATTRIBUTES:
        r[OFFSET["attribute"] + m.ATTRIBUTES.index(card.attribute)] = 1
    for aff in card.affiliations:
        r[OFFSET["affiliations"] + zlib.crc32(aff.encode()) % AFFILIATION_BUCKETS] = 1
    face = dataclasses.replace(card, abilities=abilities, subkeywords=subkeywords, back=None,
                               trigger=card.trigger if not back else ())
    for k in keyword_set(face):
        if k in KEYWORDS:
            r[OFFSET["keywords"] + KEYWORDS.index(k)] = 1
    subs = list(subkeywords)
    gates = []
    acts = []
    for ab in abilities + ((card.effect,) if card.effect is not None and not back else ()):
        gates.extend(ab.gates)
        acts.extend(ab.sequence)
    for a in acts:
        if a.keyword is not None:
            subs.append(a.keyword)
    for k in subs:
        gates.extend(k.gates)
        if k.name in KEYWORD_VALUES:
            i = OFFSET["keyword_values"] + KEYWORD_VALUES.index(k.name)
            r[i] = max(r[i], k.n / 5)
    for gt in gates:
        if gt.kind in GATE_VALUES:
            i = OFFSET["gate_values"] + GATE_VALUES.index(gt.kind)
            r[i] = max(r[i], gt.n / 10)
    bonus = 0
    for a in acts:
        col = "verbs_opponent" if _affects_opponent(a) else "verbs_self"
        r[verb_column(col, VERB_NAMES.index(a.verb))] = 1
        if a.verb == "modify":
            bonus += -a.power if _affects_opponent(a) else a.power
    r[OFFSET["power_bonus"]] = bonus / 10
    if not back:
        for a in card.trigger:
            r[verb_column("trigger_verbs", VERB_NAMES.index(a.verb))] = 1
    r[OFFSET["awakening"]] = card.awakening / 10
    r[OFFSET["back_face"]] = float(back)
    r[OFFSET["equip_condition"]] = float(card.equip is not None and not card.equip.is_empty())
    return r


class CardTable:
    """The feature matrix of one card pool and where each card's rows are."""

    def __init__(self, db):
        n = len(db.cards)
        rows = [np.zeros(WIDTH + ADDED_WIDTH, dtype=np.float32)]
        back_row = [0] * n
        for c in db.cards:
            rows.append(_face_row(c, c.abilities, c.subkeywords, False))
        for c in db.cards:
            if c.back is not None:
                back_row[c.index] = len(rows)
                rows.append(_face_row(c, c.back.abilities, c.back.subkeywords, True))
        # custom pools may print values past the scale (hit 99 is 19.8): clip into the
        # observation's bounds, as the encoder does for everything it computes
        from .layout import OBS_HIGH, OBS_LOW
        full = np.clip(np.stack(rows), OBS_LOW, OBS_HIGH)
        #: the card rows (``WIDTH`` columns) and their added columns (``ADDED_WIDTH``)
        self.matrix = np.ascontiguousarray(full[:, :WIDTH])
        self.added = np.ascontiguousarray(full[:, WIDTH:])
        self.tenth = full * np.float32(0.1)             # zone summaries are sums / 10
        for a in (self.matrix, self.added, self.tenth):
            a.setflags(write=False)
        #: card index -> row of its back face (0 for cards without one)
        self.back_row = tuple(back_row)
        #: ability key -> (verbs multi-hot as a tuple of verb indices)
        self.ability_verbs = tuple(tuple(sorted({VERB_NAMES.index(a.verb) for a in ab.sequence}))
                                   for ab in db.abilities)
        self.ability_step_verbs = tuple(tuple(VERB_NAMES.index(a.verb) for a in ab.sequence)
                                        for ab in db.abilities)


_TABLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def card_table(db) -> CardTable:
    """The feature table of a card pool, built on first use and kept while the pool lives."""
    t = _TABLES.get(db)
    if t is None:
        t = _TABLES[db] = CardTable(db)
    return t
