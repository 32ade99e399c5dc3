"""The observation's layout: its blocks by name, where each sits, its bounds, and which
layout version added it.

One home for what the encoder writes, what the spaces declare and what the networks read
(OpenSpiel's observer idea: every writer and reader takes a named view of one block,
``LAYOUT.view(buf, "hand_slots")``, never an offset computed by hand).

Growing the observation (docs/observation.md, "Growing the observation"): a policy file
names the layout version it was made for and reads the observation's prefix up to where
that version ended.  So nothing already there ever moves or widens: what is new goes in
blocks of the next version (``LAYOUT.version + 1``), and every version's blocks come after
the earlier versions'.  A new feature is a ``Block`` in ``FEATURES`` with that version.  The
blocks derive their width from the card vocabulary where it names things (keywords,
sub-keywords, value keywords, gates: ``card_features.Terms``); the columns the shipped
layout gave them stay where they are (``card_features.SHIPPED``), and a term added to the
vocabulary since names the version that added it (``vocab.Term.obs_version``): its columns
are in that version's blocks (``field_added_values_v<N>``, ``field_added_flags_v<N>``,
``*_added_terms_v<N>``), so a term added later goes in a later version's blocks and never
widens an earlier one's.

The layout depends on neither the card pool nor the game.
"""
from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from ..engine import actions as A, const as K
from . import card_features as cf

#: every observation value lies in [OBS_LOW, OBS_HIGH] (the encoder clips to it)
OBS_LOW, OBS_HIGH = -10.0, 10.0
DTYPE = np.float32
HAND_ROWS = 12        # hand slots shown (PLAY ids cover 40; a hand rarely passes 10)
CANDIDATE_ROWS = 16   # candidates of a pick shown (PICK ids cover 128)
KNOWN_ROWS = 8        # cards known to be in the opponent's hand shown (the latest ones)
ITEM_ROWS = 2         # items shown per unit (more are counted in the field block)
FIELD_LANES = 6       # my lanes 0-2, then the opponent's

#: the sub-keywords and value keywords the first layout gave columns in the field blocks;
#: terms the vocabulary gained since go to the appended ``field_added_*`` blocks
SHIPPED_SUBKEYWORDS = cf.SHIPPED.subkeywords
SHIPPED_VALUE_KEYWORDS = cf.SHIPPED.value_keywords
SUBKEYWORDS = cf.TERMS.subkeywords               # shipped first, then any added since
VALUE_KEYWORDS = cf.TERMS.value_keywords

# card rows of the ``cards`` block, in order
ROW_LEADERS = 0                                   # mine, opponent's
ROW_UNITS = 2                                     # my lanes 0-2, opponent's lanes 0-2
ROW_ITEMS = ROW_UNITS + 6                         # per unit slot, ITEM_ROWS each
ROW_HAND = ROW_ITEMS + 6 * ITEM_ROWS
ROW_REFS = ROW_HAND + HAND_ROWS                   # attacker, defender, effect source
ROW_CANDS = ROW_REFS + 3
CARD_ROWS = ROW_CANDS + CANDIDATE_ROWS
ZONES = ("my trash", "opponent trash", "my damage", "opponent damage", "my skill zone",
         "opponent skill zone")

GLOBAL_VALUES = (
    ("turn", "turn / RuleConfig.max_turns"), ("turn_early", "min(turn, 30) / 30"),
    ("attacks_this_turn", "attacks declared this turn / 5 (Chain counts them)"),
    ("candidates", "pick: number of candidates / 16"),
)
PLAYER_VALUES = (
    ("level", "leader level / 10"), ("size", "size / 10 (4.7)"),
    ("cost_in_use", "cost of cards on the field / 10"),
    ("room", "size minus cost in use / 10"), ("damage", "damage zone cards / 10"),
    ("deck", "deck cards / 40"), ("hand", "hand cards / 10"), ("trash", "trash cards / 40"),
    ("skills", "skill zone cards / 10"), ("units", "units on the field / 3"),
)
PLAYER_FLAGS = (
    ("awakened", "1 once the leader has awakened"),
    ("mulligan_done", "1 once this player has decided the mulligan"),
    ("placed_lane_0", "a unit was placed in lane 0 this turn (6.4.1.1.3)"),
    ("placed_lane_1", "same, lane 1"), ("placed_lane_2", "same, lane 2"),
)
#: the field values every unit has; its value keywords' columns follow (``FIELD_VALUES``)
FIELD_STATS = (
    ("power", "current power / 10"), ("hit", "current hit / 5"),
    ("power_change", "current minus printed power / 10"),
    ("hit_change", "current minus printed hit / 5"),
    ("attacks_allowed", "attacks it may make this turn / 2"),
    ("attacks_made", "attacks it made this turn / 2"),
    ("items", "items equipped / 3"),
)
#: the flags every unit has; one per sub-keyword follows (``FIELD_FLAGS``)
FIELD_STATES = (
    ("occupied", "a unit is in this lane"),
    ("cannot_attack", "an effect forbids it to attack"),
    ("cannot_defend", "an effect forbids it to defend"),
)
HAND_FEATURES = (("playable_lane_0", "a PLAY id of this slot into lane 0 is legal now"),
                 ("playable_lane_1", "same, lane 1"), ("playable_lane_2", "same, lane 2"),
                 ("playable_skill", "same, into the skill zone"))
CANDIDATE_FEATURES = (
    ("present", "a candidate is in this slot"),
    ("is_card", "it is a card (its card row is in the card block)"),
    ("is_lane", "it is a lane"), ("is_effect", "it is a pending effect (effect order)"),
    ("mine", "the card is the observer's"),
) + tuple((f"in_{z}", f"the card is in the {z} zone") for z in K.ZONE_NAMES) + (
    ("lane_0", "lane 0 (the lane itself, or the card's lane)"), ("lane_1", "lane 1"),
    ("lane_2", "lane 2"), ("power", "current power / 10 of a unit on the field"),
) + tuple((f"effect_{n.lower().replace(' ', '_')}", f"pending effect kind: {n}")
          for n in K.KIND_NAMES)

#: one-hot lane blocks and the battle's steps
BATTLE_STEPS = ("guardian", "defense", "battle", "resolve", "end")


def value_feature(keyword: str) -> tuple[str, str]:
    return f"{keyword.lower()}_value", f"its highest {keyword} value now / 5"


def flag_feature(keyword: str) -> tuple[str, str]:
    return (f"has_{keyword.lower().replace(' ', '_')}",
            f"it has {keyword} now (printed, item or granted)")


def _names(feats) -> str:
    return ", ".join(n for n, _ in feats)


@dataclasses.dataclass(frozen=True)
class Block:
    """One named block of the observation vector.

    ``shape`` is ``(n,)`` for a flat block, ``(rows, columns)`` for a table; ``since`` is
    the layout version that appended it (a policy made for an earlier version never reads
    it); ``low`` / ``high`` are the bounds every value in it lies in.  ``cached``: the
    encoder keeps the block between calls and rewrites it only when its inputs change (the
    card rows and zone sums); every other block is cleared on every call before it is
    written, so a block is never left holding an earlier position's values."""
    name: str
    shape: tuple
    meaning: str
    since: int
    offset: int = 0
    low: float = OBS_LOW
    high: float = OBS_HIGH
    dtype: type = DTYPE
    cached: bool = False

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.offset + self.size

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.stop)

    def spec_shape(self):
        """The shape as the layout hash has always spelled it: an int for a flat block."""
        return self.shape[0] if len(self.shape) == 1 else tuple(self.shape)


def layout_hash(blocks, name: str = "full") -> str:
    """A hash of a layout: block names and shapes, card columns, the action space.  The
    verbs in it are the card row's; added verbs fill reserved slots (their names do not
    change the layout, their count does through the blocks' shapes).  The full layout's
    hashes are those it always had; another layout's name is hashed in too."""
    spec = ([(b.name, b.spec_shape()) for b in blocks], [(n, w) for n, w, _ in cf.COLUMNS],
            A.N_ACTIONS, cf.ROW_VERB_NAMES, cf.KEYWORDS)
    if name != "full":
        spec += (name,)
    return hashlib.sha256(repr(spec).encode()).hexdigest()[:12]


class Layout:
    """The observation's blocks in vector order, looked up by name.

    ``layout.block("hand_slots")`` is the ``Block``; ``layout.view(buf, "hand_slots")`` the
    numpy view of it in a vector (or a batch, last axis), shaped as the block; ``versions``
    maps each layout version number to its hash and to the length of the prefix a policy
    made for it reads."""

    def __init__(self, blocks, terms: cf.Terms = cf.TERMS, shipped: cf.Terms = cf.SHIPPED,
                 name: str = "full"):
        #: ``"full"`` (card rows of features) or ``"compact"`` (card table indices)
        self.name = name
        placed, o = [], 0
        for b in blocks:
            placed.append(dataclasses.replace(b, offset=o))
            o += placed[-1].size
        self.blocks: tuple[Block, ...] = tuple(placed)
        self.size = o
        self._by_name = {b.name: b for b in self.blocks}
        if len(self._by_name) != len(self.blocks):
            raise ValueError("observation layout: two blocks share a name")
        since = [b.since for b in self.blocks]
        if since != sorted(since):
            raise ValueError(f"observation layout: a block of version {max(since)} sits before "
                             "one of an earlier version; new blocks go at the end")
        #: the vocabulary's terms with columns, in column order (the shipped ones in their
        #: blocks, then the added ones in the appended blocks), and the shipped ones
        self.terms, self.shipped = terms, shipped
        self.subkeywords, self.value_keywords = terms.subkeywords, terms.value_keywords
        self.shipped_subkeywords = shipped.subkeywords
        self.shipped_value_keywords = shipped.value_keywords
        #: version number -> (layout hash, observation values a policy of it reads)
        self.versions: dict[int, tuple[str, int]] = {}
        for v in sorted(set(since)):
            prefix = [b for b in self.blocks if b.since <= v]
            self.versions[v] = (layout_hash(prefix, name), prefix[-1].stop)
        self.version = max(self.versions)
        self.hash = self.versions[self.version][0]

    def block(self, name: str) -> Block:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"observation layout has no block {name!r}; blocks: "
                           f"{', '.join(self._by_name)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def offset(self, name: str) -> int:
        return self.block(name).offset

    def slice(self, name: str) -> slice:
        return self.block(name).slice

    def view(self, obs, name: str):
        """Block ``name`` of ``obs`` (last axis the vector), shaped as the block: a view of
        a numpy array or torch tensor, no copy."""
        b = self.block(name)
        part = obs[..., b.offset:b.stop]
        return part.reshape(tuple(obs.shape[:-1]) + tuple(b.shape))

    def in_prefix(self, name: str, size: int) -> bool:
        """Whether block ``name`` lies in the first ``size`` values: whether a policy that
        reads an earlier version's prefix of that length sees it."""
        return self.block(name).stop <= size

    def version_of_size(self, size: int) -> int:
        """The layout version whose prefix is ``size`` values long."""
        for v, (_h, n) in self.versions.items():
            if n == size:
                return v
        raise ValueError(f"observation layout: no version reads {size} values; versions "
                         + ", ".join(f"{v}: {n}" for v, (_h, n) in self.versions.items()))

    @property
    def offsets(self) -> dict[str, int]:
        return {b.name: b.offset for b in self.blocks}

    def readable(self) -> dict[str, int]:
        """Layout hash -> observation values read, for every version a policy file may name."""
        return {h: n for h, n in self.versions.values()}

    def low(self) -> np.ndarray:
        out = np.empty(self.size, DTYPE)
        for b in self.blocks:
            out[b.slice] = b.low
        return out

    def high(self) -> np.ndarray:
        out = np.empty(self.size, DTYPE)
        for b in self.blocks:
            out[b.slice] = b.high
        return out

    def box(self, size: int | None = None):
        """The Gymnasium space of the vector (or of its first ``size`` values, an earlier
        version's prefix), its bounds the blocks'."""
        from gymnasium import spaces
        n = self.size if size is None else size
        low, high = self.low()[:n], self.high()[:n]
        if n and low.min() == low.max() and high.min() == high.max():
            return spaces.Box(float(low[0]), float(high[0]), (n,), DTYPE)  # the same space
        return spaces.Box(low, high, (n,), DTYPE)

    def field_values(self) -> tuple:
        """The per-lane features of ``field_values``: unit stats, then shipped value keywords."""
        return field_values(self.value_keywords, self.shipped_value_keywords)

    def field_flags(self) -> tuple:
        """The per-lane features of ``field_flags``: unit states, then shipped sub-keywords."""
        return field_flags(self.subkeywords, self.shipped_subkeywords)

    def added_value_keywords(self) -> tuple:
        """Value keywords whose columns are in ``field_added_values_v*`` (none today)."""
        return tuple(k for k in self.value_keywords if k not in self.shipped_value_keywords)

    def added_subkeywords(self) -> tuple:
        """Sub-keywords whose flags are in ``field_added_flags_v*`` (none today)."""
        return tuple(k for k in self.subkeywords if k not in self.shipped_subkeywords)

    def term_versions(self) -> tuple:
        """``((version, Terms), ...)``: the terms added since the shipped layout, by the
        version whose ``*_v<version>`` blocks hold their columns (none today)."""
        return self.terms.by_version(self.shipped)

    def card_row_blocks(self, rows: str, size: int | None = None) -> tuple:
        """The blocks that together hold the card rows of ``rows`` (``cards``, ``zones``
        or ``known``), in vector order: the row, its added verbs' columns, then each
        version's added terms' columns -- those within the first ``size`` values (an
        earlier version's prefix; all when None).  Concatenated along the last axis they
        are the full rows."""
        first = {"cards": "cards", "zones": "zones", "known": "opponent_known_hand"}[rows]
        names = [first, rows + "_added"] + [term_block(rows + "_added_terms", v)
                                            for v, _ in self.term_versions()]
        n = self.size if size is None else size
        return tuple(x for x in names if x in self and self.in_prefix(x, n))


def field_values(value_keywords, shipped=SHIPPED_VALUE_KEYWORDS) -> tuple:
    return FIELD_STATS + tuple(value_feature(k) for k in value_keywords if k in shipped)


def field_flags(subkeywords, shipped=SHIPPED_SUBKEYWORDS) -> tuple:
    return FIELD_STATES + tuple(flag_feature(k) for k in subkeywords if k in shipped)


def build_layout(terms: cf.Terms = cf.TERMS, extra=(), *,
                 shipped: cf.Terms = cf.SHIPPED) -> Layout:
    """The layout for a vocabulary's terms (``card_features.Terms``), plus the feature
    blocks ``FEATURES`` and ``extra`` (tests: ``Block``s of a feature being added), each
    version's blocks after the earlier versions'.  The defaults are this package's
    vocabulary and the shipped layout's columns: ``LAYOUT``.  (Tests grow ``terms`` to add
    a term, or pass a ``shipped`` with fewer sub-keywords or value keywords to replay one
    being added after the layout shipped; the card row's shipped columns are
    ``card_features.SHIPPED``'s.)"""
    terms = terms.ordered(shipped)
    value_keywords, subkeywords = terms.value_keywords, terms.subkeywords
    shipped_value_keywords, shipped_subkeywords = shipped.value_keywords, shipped.subkeywords
    fv = field_values(value_keywords, shipped_value_keywords)
    ff = field_flags(subkeywords, shipped_subkeywords)
    V1, V2, V3 = 1, 2, 3
    blocks = [
        Block("global_values", (len(GLOBAL_VALUES),), _names(GLOBAL_VALUES), V1),
        Block("me_values", (len(PLAYER_VALUES),), "observer: " + _names(PLAYER_VALUES), V1),
        Block("opponent_values", (len(PLAYER_VALUES),), "the same for the opponent", V1),
        Block("field_values", (FIELD_LANES, len(fv)), "my lanes 0-2, then the opponent's: "
                                                      + _names(fv), V1),
        Block("seat", (1,), "0 for player_0, 1 for player_1", V1),
        Block("first_player", (1,), "1 if the observer went first", V1),
        Block("my_turn", (1,), "1 on the observer's turn", V1),
        Block("acting", (1,), "1 if the pending decision is the observer's", V1),
        Block("phase", (len(K.PHASE_NAMES),), "one-hot: " + ", ".join(K.PHASE_NAMES), V1),
        Block("decision", (len(K.DECISION_NAMES),), "one-hot: " + ", ".join(K.DECISION_NAMES),
              V1),
        Block("pick_purpose", (len(K.PICK_PURPOSES),), "one-hot: " + ", ".join(K.PICK_PURPOSES),
              V1),
        Block("can_pass", (1,), "pick: PASS is legal (fewer may be chosen)", V1),
        Block("guardian_lanes", (3,), "guardian decision: lanes whose unit may pay Guardian", V1),
        Block("defender_lane", (3,), "defense decision: one-hot lane of the unit that may "
                                     "defend", V1),
        Block("must_defend", (1,), "defense decision: Duelist forces the defense", V1),
        Block("effect_verbs", (cf.ROW_VERBS,), "may / pick inside an effect: verbs of the "
                                               "ability being resolved: "
                                               + ", ".join(cf.ROW_VERB_NAMES), V1),
        Block("effect_step_verb", (cf.ROW_VERBS,), "one-hot: the verb of the step asking now",
              V1),
        Block("effect_mine", (1,), "the effect being resolved is the observer's", V1),
        Block("in_battle", (1,), "a battle is in progress (7)", V1),
        Block("attacker_mine", (1,), "the attacking unit is the observer's", V1),
        Block("attack_lane", (3,), "one-hot: the attacking unit's lane", V1),
        Block("has_defender", (1,), "a unit defends", V1),
        Block("battle_step", (len(BATTLE_STEPS),), "one-hot: " + ", ".join(BATTLE_STEPS), V1),
        Block("breakthrough", (1,), "Breakthrough applies to this battle", V1),
        Block("duelist", (1,), "Duelist applies to this battle", V1),
        Block("me_flags", (len(PLAYER_FLAGS),), "observer: " + _names(PLAYER_FLAGS), V1),
        Block("opponent_flags", (len(PLAYER_FLAGS),), "the same for the opponent", V1),
        Block("field_flags", (FIELD_LANES, len(ff)), "my lanes 0-2, then the opponent's: "
                                                     + _names(ff), V1),
        Block("hand_slots", (HAND_ROWS, len(HAND_FEATURES)),
              "per hand slot: " + _names(HAND_FEATURES), V1),
        Block("candidate_slots", (CANDIDATE_ROWS, len(CANDIDATE_FEATURES)),
              "per candidate of a pick (PICK + i): " + _names(CANDIDATE_FEATURES), V1),
        Block("cards", (CARD_ROWS, cf.WIDTH),
              "card rows (card_features.COLUMNS): leaders (mine, opponent's, current face); "
              "units in my lanes 0-2 then the opponent's; their items (2 per lane); my hand "
              f"slots 0-11; attacker, defender, effect source; candidates 0-{CANDIDATE_ROWS - 1}",
              V1, cached=True),
        Block("zones", (len(ZONES), cf.WIDTH), "sum of the card rows / 10 in: "
                                               + ", ".join(ZONES), V1, cached=True),
        # ---------------------------------------- version 2: memory of the opponent's hand
        Block("opponent_known_hand", (KNOWN_ROWS, cf.WIDTH),
              "card rows of cards known to be in the opponent's hand, latest last: cards they "
              "had to reveal (3.1.7) and cards that went there from an open zone (returned "
              "from the field, salvaged from the trash); a row stays until the card leaves "
              "their hand", V2, cached=True),
        # ---------------------------------------- version 3: verbs added (1.2.5 ...)
        Block("count", (2,), "may decision that chooses a number one \"one more?\" at a time "
                             "(draw up to N, 4.4.4): chosen so far / 10, the most that may be "
                             "chosen / 10", V3),
        Block("effect_added_verbs", (cf.ADDED_VERB_SLOTS,), "as effect_verbs, for the verbs "
                                                            "added since "
                                                            "(card_features.ADDED_VERB_NAMES)",
              V3),
        Block("effect_step_added_verb", (cf.ADDED_VERB_SLOTS,), "as effect_step_verb, for the "
                                                                "same verbs", V3),
        Block("cards_added", (CARD_ROWS, cf.ADDED_WIDTH), "the added columns "
                                                          "(card_features.ADDED_COLUMNS) of "
                                                          "each row of `cards`, in the same "
                                                          "order", V3, cached=True),
        Block("zones_added", (len(ZONES), cf.ADDED_WIDTH), "the same for `zones` (sums / 10)",
              V3, cached=True),
        Block("known_added", (KNOWN_ROWS, cf.ADDED_WIDTH), "the same for "
                                                           "`opponent_known_hand`", V3,
              cached=True),
    ]
    return Layout(blocks + _grown_blocks(terms, shipped, V3, tuple(FEATURES) + tuple(extra)),
                  terms, shipped)


#: The blocks of the observation features added after the shipped layout, each with the
#: layout version that added it (``Block(name, shape, meaning, since)``).  A new feature
#: is a ``Block`` appended here with ``since`` the next version, ``LAYOUT.version + 1``
#: (docs/observation.md, "Growing the observation"); ``build_layout`` puts every version's
#: blocks after the earlier versions', a version's term blocks before its features.
FEATURES: tuple = ()

#: the kinds of block a layout version that added vocabulary terms has, each
#: ``<kind>_v<version>`` (present when the version's terms need it)
TERM_BLOCKS = ("field_added_values", "field_added_flags", "cards_added_terms",
               "zones_added_terms", "known_added_terms")


def term_block(kind: str, version: int) -> str:
    """The name of version ``version``'s block of ``kind`` (``TERM_BLOCKS``)."""
    return f"{kind}_v{version}"


def _term_blocks(v: int, a: cf.Terms, columns: tuple) -> list:
    """Version ``v``'s blocks for the terms it added (``a``; ``columns``: their card-row
    columns, ``card_features.term_column_groups``)."""
    out = []
    if a.value_keywords:
        out.append(Block(term_block("field_added_values", v), (FIELD_LANES, len(a.value_keywords)),
                         "as field_values, for the value keywords this version added: "
                         + _names(value_feature(k) for k in a.value_keywords), v))
    if a.subkeywords:
        out.append(Block(term_block("field_added_flags", v), (FIELD_LANES, len(a.subkeywords)),
                         "as field_flags, for the sub-keywords this version added: "
                         + _names(flag_feature(k) for k in a.subkeywords), v))
    tw = sum(w for _, w, _ in columns)
    if tw:
        cols = ", ".join(n for n, _, _ in columns)
        out += [Block(term_block("cards_added_terms", v), (CARD_ROWS, tw), "the columns of the "
                      f"card vocabulary's terms this version added ({cols}: "
                      f"{'; '.join(m for _, _, m in columns)}) of each row of `cards`", v,
                      cached=True),
                Block(term_block("zones_added_terms", v), (len(ZONES), tw), "the same for "
                      "`zones` (sums / 10)", v, cached=True),
                Block(term_block("known_added_terms", v), (KNOWN_ROWS, tw), "the same for "
                      "`opponent_known_hand`", v, cached=True)]
    return out


def _grown_blocks(terms: cf.Terms, shipped: cf.Terms, base: int, features: tuple) -> list:
    """The blocks of every version after ``base`` (the shipped layout's last), in version
    order: for each version, the blocks of the vocabulary terms it added, then its
    feature blocks.  Refuses a term that names no version, a version at or below
    ``base`` and a version number skipped."""
    groups = terms.by_version(shipped)
    columns = dict(cf.term_column_groups(terms))     # the card row's: always cf.SHIPPED's
    named = [v for v, _ in groups if v] + [b.since for b in features]
    nxt = max([base] + [v for v in named if v > base]) + 1
    for v, a in groups:
        names = sorted({t for f in cf._TERM_FIELDS for t in getattr(a, f)})
        if not v:
            raise ValueError(
                f"observation layout: the vocabulary's term(s) {', '.join(names)} have no "
                "columns in the shipped layout and name no layout version: write "
                f"obs_version={nxt} in each one's Term (nivel_env/cards/vocab.py; {nxt} is "
                f"the next version, LAYOUT.version + 1), so their columns go in version "
                f"{nxt}'s blocks at the end (docs/observation.md, Growing the observation)")
        if v <= base:
            raise ValueError(
                f"observation layout: term(s) {', '.join(names)} name layout version {v}, "
                f"but versions up to {base} are the shipped layout's and never change: "
                f"write obs_version={nxt} (the next version, LAYOUT.version + 1)")
    for b in features:
        if b.since <= base:
            raise ValueError(f"observation layout: appended block {b.name!r} must have a "
                             f"version above {base}, got {b.since}; the next is {nxt}")
    versions = sorted(set(named))
    if versions and versions != list(range(base + 1, versions[-1] + 1)):
        missing = sorted(set(range(base + 1, versions[-1] + 1)) - set(versions))
        raise ValueError(f"observation layout: versions {', '.join(map(str, versions))} "
                         f"skip {', '.join(map(str, missing))}: a new version is the next "
                         "one, LAYOUT.version + 1")
    by_v = dict(groups)
    out: list = []
    for v in versions:
        if v in by_v:
            out += _term_blocks(v, by_v[v], columns.get(v, ()))
        out += [b for b in features if b.since == v]
    return out


#: the layout of this package's vocabulary: the one the encoder writes
LAYOUT = build_layout()


# ------------------------------------------------------------------ the compact layout
#: The compact layout (``COMPACT``): every block of the full layout but the card
#: rows, then the card rows as indices into the pool's card table
#: (``card_features.CardTable.full``; ``env.card_table()``).  A network embeds the table
#: once per forward and gathers rows by index, instead of reading 159 features again for
#: every card slot of every observation: 941 values instead of 11,097.  It shows exactly
#: what the full layout shows -- each index is the row the full layout copies features from.
#: Zones are listed card by card (their latest cards when a zone holds more than the rows
#: here; the player blocks count them all) where the full layout sums their rows.
TRASH_ROWS, DAMAGE_ROWS, SKILL_ROWS = 40, 12, 12
#: the most rows a card table a compact observation indexes may have (exact in float32)
INDEX_HIGH = float(2 ** 20)
#: the full layout's last shipped version: its later versions' blocks are the compact
#: layout's versions 2, 3, ... (``since - COMPACT_BASE + 1``)
COMPACT_BASE = 3


def _index_block(name: str, shape: tuple, meaning: str) -> Block:
    return Block(name, shape, meaning + " (card table rows as whole numbers, 0: no card)", 1,
                 low=0.0, high=INDEX_HIGH, cached=True)


def build_compact_layout(full: Layout | None = None) -> Layout:
    """The compact layout over ``full`` (default ``LAYOUT``): its blocks that are not card
    rows, in their order, then the index blocks; blocks the full layout appends after its
    shipped versions follow as the compact layout's later versions."""
    full = LAYOUT if full is None else full
    own = [b for b in full.blocks if not b.cached]
    first = [dataclasses.replace(b, since=1) for b in own if b.since <= COMPACT_BASE]
    later = [dataclasses.replace(b, since=b.since - COMPACT_BASE + 1) for b in own
             if b.since > COMPACT_BASE]
    index = [
        _index_block("card_index", (CARD_ROWS,), "the card of each row of the full layout's "
                     "`cards` block, in its order: leaders, units, items, hand, attacker, "
                     "defender, effect source, candidates"),
        _index_block("known_index", (KNOWN_ROWS,), "cards known to be in the opponent's "
                     "hand, as `opponent_known_hand`"),
        _index_block("trash_index", (2, TRASH_ROWS), "my trash, then the opponent's: its "
                     f"cards in zone order (the latest {TRASH_ROWS} when more)"),
        _index_block("damage_index", (2, DAMAGE_ROWS), "my damage zone, then the opponent's, "
                     "the same way"),
        _index_block("skill_index", (2, SKILL_ROWS), "my skill zone, then the opponent's, the "
                     "same way"),
    ]
    return Layout(first + index + later, full.terms, full.shipped, name="compact")


#: the compact layout of this package's vocabulary
COMPACT = build_compact_layout()
#: the observation layouts by name (``obs=`` of the environments, ``train.py --obs``)
LAYOUTS = {"full": LAYOUT, "compact": COMPACT}


def layout_named(name) -> Layout:
    """The layout called ``name`` (``"full"`` or ``"compact"``), or a ``ValueError``
    naming the choices."""
    if isinstance(name, Layout):
        return name
    try:
        return LAYOUTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"observation layout {name!r}: choose one of "
                         f"{', '.join(map(repr, LAYOUTS))}") from None
