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
                       f"but {ADDED_VERB_SLOTS} observation slots for them: raising "
                       f"ADDED_VERB_SLOTS changes the current layout; append blocks for the "
                       f"further verbs instead (docs/observation.md, Growing the observation)")
AFFILIATION_BUCKETS = 32


@dataclasses.dataclass(frozen=True)
class Terms:
    """The vocabulary's terms that have columns in the observation, each list in column
    order: the ones the layout shipped with first (``SHIPPED``), in their shipped order,
    then any the vocabulary gained since, whose columns are in appended blocks, by the
    layout version that added them (``added_in``), then vocabulary order."""
    keywords: tuple          # section-10 keywords: the card row's multi-hot
    keyword_values: tuple    # keywords whose printed value the card row shows
    gate_values: tuple       # gates whose threshold the card row shows
    subkeywords: tuple       # sub-keywords: a lane's flags (field_flags)
    value_keywords: tuple    # sub-keywords with a value in play: a lane's values
    #: ``(name, version)``: the observation layout version that added a term's columns,
    #: for terms the shipped layout lacks (``vocab.Term.obs_version``); a term is named as
    #: it is in the lists above (a gate value by its gate's key)
    added_in: tuple = ()

    @classmethod
    def of_vocabulary(cls, shipped: "Terms | None" = None, more: "Terms | None" = None):
        """This package's vocabulary (plus ``more``, for tests that grow it), ordered
        shipped terms first."""
        subs, gates = vocab.SUBKEYWORDS, vocab.GATES
        found = cls(
            keywords=vocab.KEYWORD_NAMES,
            # values in play (Pierce 2), then payments (Guardian: cards to pay)
            keyword_values=tuple(t.en for t in subs if t.value == "n")
            + tuple(t.en for t in subs if t.value == "cost"),
            gate_values=tuple(t.key for t in gates if t.arg == "int"),
            subkeywords=tuple(t.en for t in subs),
            value_keywords=tuple(t.en for t in subs if t.value == "n"),
            added_in=tuple((n, vocab.BY_NAME[n].obs_version) for n in vocab.KEYWORD_NAMES
                           if vocab.BY_NAME[n].obs_version)
            + tuple((t.key, t.obs_version) for t in gates if t.obs_version))
        if more is not None:
            found = cls(**{f: getattr(found, f) + getattr(more, f)
                           for f in _TERM_FIELDS + ("added_in",)})
        return found.ordered(shipped or found)

    def version_of(self, name: str) -> int:
        """The layout version that added term ``name``'s columns (0: none named)."""
        return dict(self.added_in).get(name, 0)

    def ordered(self, shipped: "Terms") -> "Terms":
        """These terms with ``shipped``'s first, in its order (each must still be here),
        then the others by the version that added them."""
        out = {}
        for f in _TERM_FIELDS:
            have, old = getattr(self, f), getattr(shipped, f)
            gone = [t for t in old if t not in have]
            if gone:
                raise RuntimeError(f"card_features: the observation has {f} columns for "
                                   f"{gone}, which the vocabulary no longer has; a shipped "
                                   "policy reads those columns (keep the terms)")
            new = [t for t in have if t not in old]
            out[f] = tuple(old) + tuple(sorted(new, key=self.version_of))   # stable
        return Terms(**out, added_in=self.added_in)

    def added(self, shipped: "Terms") -> "Terms":
        """The terms that are not in ``shipped``: those with columns in appended blocks."""
        return Terms(**{f: tuple(t for t in getattr(self, f) if t not in getattr(shipped, f))
                        for f in _TERM_FIELDS}, added_in=self.added_in)

    def by_version(self, shipped: "Terms") -> tuple:
        """``((version, Terms), ...)``: the terms not in ``shipped``, grouped by the layout
        version that added them, in version order (version 0: a term that names none)."""
        a = self.added(shipped)
        versions = sorted({self.version_of(t) for f in _TERM_FIELDS for t in getattr(a, f)})
        return tuple((v, Terms(**{f: tuple(t for t in getattr(a, f) if self.version_of(t) == v)
                                  for f in _TERM_FIELDS}, added_in=self.added_in))
                     for v in versions)


_TERM_FIELDS = tuple(f.name for f in dataclasses.fields(Terms) if f.name != "added_in")
#: the terms the layout shipped with: their columns never move
SHIPPED = Terms(
    keywords=("Entry", "Passive", "Active", "Attacker", "Defender", "Exit", "Armed", "Frontline",
              "Level Link", "Trigger", "Mix", "Escape", "Chain", "Buff", "Pierce", "Plunder",
              "Breakthrough", "Duelist", "Infiltrate", "Finale", "Mutual Destruction", "Return",
              "Awakening", "Berserker", "Guardian", "Barrier", "Sacrifice", "Offset", "Credit"),
    keyword_values=("Pierce", "Plunder", "Infiltrate", "Credit", "Guardian"),
    gate_values=("level_link", "chain", "buff"),
    subkeywords=("Pierce", "Plunder", "Breakthrough", "Duelist", "Infiltrate", "Finale",
                 "Mutual Destruction", "Return", "Berserker", "Guardian", "Credit"),
    value_keywords=("Pierce", "Plunder", "Infiltrate", "Credit"))
#: this package's vocabulary, shipped terms first
TERMS = Terms.of_vocabulary(SHIPPED)
KEYWORDS = SHIPPED.keywords                           # the 29 keywords of section 10
KEYWORD_VALUES = SHIPPED.keyword_values
GATE_VALUES = SHIPPED.gate_values

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


def term_column_groups(terms: Terms = TERMS) -> tuple:
    """The card row's columns for the terms added since the row shipped (section-10
    keywords, keyword values, gate values), grouped by the layout version that added them:
    ``((version, ((name, width, meaning), ...)), ...)`` in version order.  Each group is
    that version's ``*_added_terms_v<version>`` blocks, one row per card row; none while
    no term was added."""
    out = []
    for v, a in terms.by_version(SHIPPED):
        cols = tuple(c for c in (
            ("added_keywords", len(a.keywords), "as keywords, for " + ", ".join(a.keywords)),
            ("added_keyword_values", len(a.keyword_values), "as keyword_values, for "
                                                            + ", ".join(a.keyword_values)),
            ("added_gate_values", len(a.gate_values), "as gate_values, for "
                                                      + ", ".join(a.gate_values)),
        ) if c[1])
        if cols:
            out.append((v, cols))
    return tuple(out)


def added_term_columns(terms: Terms = TERMS) -> tuple:
    """``term_column_groups``' columns one after another: the full row's columns past the
    card row and its added verbs, as ``(name, width, meaning)``."""
    return tuple(c for _, cols in term_column_groups(terms) for c in cols)


def _term_offsets(terms: Terms) -> dict:
    """Full-row index of each term's column, by (column group, term name)."""
    out = {}
    for col, names in (("keywords", KEYWORDS), ("keyword_values", KEYWORD_VALUES),
                       ("gate_values", GATE_VALUES)):
        out.update({(col, t): OFFSET[col] + i for i, t in enumerate(names)})
    o = WIDTH + ADDED_WIDTH
    groups = dict(terms.by_version(SHIPPED))
    for v, cols in term_column_groups(terms):
        for name, w, _ in cols:
            col = name[len("added_"):]
            out.update({(col, t): o + i for i, t in enumerate(getattr(groups[v], col))})
            o += w
    return out


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


def _face_row(card: m.Card, abilities: tuple, subkeywords: tuple, back: bool,
              terms: Terms = TERMS) -> np.ndarray:
    """The full row: the card row's ``WIDTH`` columns, the ``ADDED_WIDTH`` ones, then the
    columns of terms added since (``added_term_columns``)."""
    at = _term_offsets(terms)
    r = np.zeros(WIDTH + ADDED_WIDTH + sum(w for _, w, _ in added_term_columns(terms)),
                 dtype=np.float32)
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
        if ("keywords", k) in at:
            r[at["keywords", k]] = 1
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
        i = at.get(("keyword_values", k.name))
        if i is not None:
            r[i] = max(r[i], k.n / 5)
    for gt in gates:
        i = at.get(("gate_values", gt.kind))
        if i is not None:
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

    def __init__(self, db, terms: Terms = TERMS):
        n = len(db.cards)
        #: the full row's columns past the card row and its added verbs
        self.terms_width = sum(w for _, w, _ in added_term_columns(terms))
        rows = [np.zeros(WIDTH + ADDED_WIDTH + self.terms_width, dtype=np.float32)]
        back_row = [0] * n
        for c in db.cards:
            rows.append(_face_row(c, c.abilities, c.subkeywords, False, terms))
        for c in db.cards:
            if c.back is not None:
                back_row[c.index] = len(rows)
                rows.append(_face_row(c, c.back.abilities, c.back.subkeywords, True, terms))
        # custom pools may print values past the scale (hit 99 is 19.8): clip into the
        # observation's bounds, as the encoder does for everything it computes
        from .layout import OBS_HIGH, OBS_LOW
        full = np.clip(np.stack(rows), OBS_LOW, OBS_HIGH)
        #: the card rows (``WIDTH`` columns) and their added columns (``ADDED_WIDTH``)
        self.matrix = np.ascontiguousarray(full[:, :WIDTH])
        self.added = np.ascontiguousarray(full[:, WIDTH:WIDTH + ADDED_WIDTH])
        #: the columns of terms added since the row shipped (none today), all of them and
        #: one matrix per layout version that added some (``term_column_groups``' order)
        self.added_terms = np.ascontiguousarray(full[:, WIDTH + ADDED_WIDTH:])
        self.term_groups, o = [], WIDTH + ADDED_WIDTH
        for _v, cols in term_column_groups(terms):
            w = sum(w for _, w, _ in cols)
            self.term_groups.append(np.ascontiguousarray(full[:, o:o + w]))
            o += w
        self.tenth = full * np.float32(0.1)             # zone summaries are sums / 10
        #: every column of every row (the card row, its added verbs' columns, then each
        #: version's added terms'): the compact observation's card table, which its
        #: indices point into (``env.card_table()``)
        self.full = np.ascontiguousarray(full, dtype=np.float32)
        for a in (self.matrix, self.added, self.added_terms, self.tenth, self.full,
                  *self.term_groups):
            a.setflags(write=False)
        #: card index -> row of its back face (0 for cards without one)
        self.back_row = tuple(back_row)
        #: ability key -> (verbs multi-hot as a tuple of verb indices)
        self.ability_verbs = tuple(tuple(sorted({VERB_NAMES.index(a.verb) for a in ab.sequence}))
                                   for ab in db.abilities)
        self.ability_step_verbs = tuple(tuple(VERB_NAMES.index(a.verb) for a in ab.sequence)
                                        for ab in db.abilities)


_TABLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def card_table(db, terms: Terms = TERMS) -> CardTable:
    """The feature table of a card pool, built on first use and kept while the pool lives."""
    if terms == TERMS:                         # this package's vocabulary: cached per pool
        t = _TABLES.get(db)
        if t is None:
            t = _TABLES[db] = CardTable(db)
        return t
    return CardTable(db, terms)              # a grown vocabulary (tests): not cached
