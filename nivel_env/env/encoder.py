"""The observation: one flat float32 vector, from one player's view only.

The layout is a spec (``BLOCKS`` here, ``card_features.COLUMNS`` for card rows),
printed as the table in docs/observation.md by ``python -m nivel_env.env.encoder``.
It depends on neither the card pool nor the game, so a policy trained on one pool
can read a game played with another.

Why it looks like this:

* Cards are rows of features from the card data (card_features.py), never ids,
  so a policy can play cards it has not seen.  All card rows sit in one block
  shaped ``(CARD_ROWS, card_features.WIDTH)`` so a network may share weights
  across slots.
* Only what the observer may see (3.1, 3.2.2, 3.8.2): their own hand, every
  public zone, counts of hidden zones.  The chooser of a pick sees every candidate,
  those in a hidden zone too (11.2.1), listed by card rather than position; any other
  observer sees only the candidates in zones open to them (not even how many others
  there are), except that how many cards a player is ordering into their deck is
  public (3.1.5, 3.1.6: the ``card order`` pick).  Nothing depends on instance ids or
  deck order, which the hidden-information check tests by redrawing, substituting and
  relabelling them.
* Speed: the encoder fills a preallocated array with a handful of numpy calls
  (one gather for all card rows, one scatter for flags, one for values, one
  matrix product for zone summaries); the Python work is a few list appends.
"""
from __future__ import annotations

import numpy as np

from ..cards import vocab
from ..engine import actions as A, const as K
from ..engine.view import battle_info, decision_info, derived, effects_to_order
from . import card_features as cf

#: every observation value lies in [OBS_LOW, OBS_HIGH] (the encoder clips to it)
OBS_LOW, OBS_HIGH = -10.0, 10.0
HAND_ROWS = 12        # hand slots shown (PLAY ids cover 40; a hand rarely passes 10)
CANDIDATE_ROWS = 16   # candidates of a pick shown (PICK ids cover 128)
KNOWN_ROWS = 8        # cards known to be in the opponent's hand shown (the latest ones)
ITEM_ROWS = 2         # items shown per unit (more are counted in the field block)
SUBKEYWORDS = tuple(t.en for t in vocab.SUBKEYWORDS)            # the vocabulary's order
VALUE_KEYWORDS = tuple(t.en for t in vocab.SUBKEYWORDS if t.value == "n")
N_VERBS = cf.ROW_VERBS                 # verbs with columns in the first layout's blocks

# card rows, in order
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
FIELD_VALUES = (
    ("power", "current power / 10"), ("hit", "current hit / 5"),
    ("power_change", "current minus printed power / 10"),
    ("hit_change", "current minus printed hit / 5"),
    ("attacks_allowed", "attacks it may make this turn / 2"),
    ("attacks_made", "attacks it made this turn / 2"),
    ("items", "items equipped / 3"),
) + tuple((f"{k.lower()}_value", f"its highest {k} value now / 5") for k in VALUE_KEYWORDS)
FIELD_FLAGS = (
    ("occupied", "a unit is in this lane"),
    ("cannot_attack", "an effect forbids it to attack"),
    ("cannot_defend", "an effect forbids it to defend"),
) + tuple((f"has_{k.lower().replace(' ', '_')}", f"it has {k} now (printed, item or granted)")
          for k in SUBKEYWORDS)
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


def _names(feats) -> str:
    return ", ".join(n for n, _ in feats)


#: (block name, shape, meaning), in vector order.  Numbers that are not 0/1 flags come
#: first, in one block the encoder writes with a single slice assignment.
BLOCKS = (
    ("global_values", len(GLOBAL_VALUES), _names(GLOBAL_VALUES)),
    ("me_values", len(PLAYER_VALUES), "observer: " + _names(PLAYER_VALUES)),
    ("opponent_values", len(PLAYER_VALUES), "the same for the opponent"),
    ("field_values", (6, len(FIELD_VALUES)), "my lanes 0-2, then the opponent's: "
                                             + _names(FIELD_VALUES)),
    ("seat", 1, "0 for player_0, 1 for player_1"),
    ("first_player", 1, "1 if the observer went first"),
    ("my_turn", 1, "1 on the observer's turn"),
    ("acting", 1, "1 if the pending decision is the observer's"),
    ("phase", len(K.PHASE_NAMES), "one-hot: " + ", ".join(K.PHASE_NAMES)),
    ("decision", len(K.DECISION_NAMES), "one-hot: " + ", ".join(K.DECISION_NAMES)),
    ("pick_purpose", len(K.PICK_PURPOSES), "one-hot: " + ", ".join(K.PICK_PURPOSES)),
    ("can_pass", 1, "pick: PASS is legal (fewer may be chosen)"),
    ("guardian_lanes", 3, "guardian decision: lanes whose unit may pay Guardian"),
    ("defender_lane", 3, "defense decision: one-hot lane of the unit that may defend"),
    ("must_defend", 1, "defense decision: Duelist forces the defense"),
    ("effect_verbs", N_VERBS, "may / pick inside an effect: verbs of the ability being "
                              "resolved: " + ", ".join(cf.ROW_VERB_NAMES)),
    ("effect_step_verb", N_VERBS, "one-hot: the verb of the step asking now"),
    ("effect_mine", 1, "the effect being resolved is the observer's"),
    ("in_battle", 1, "a battle is in progress (7)"),
    ("attacker_mine", 1, "the attacking unit is the observer's"),
    ("attack_lane", 3, "one-hot: the attacking unit's lane"),
    ("has_defender", 1, "a unit defends"),
    ("battle_step", 5, "one-hot: guardian, defense, battle, resolve, end"),
    ("breakthrough", 1, "Breakthrough applies to this battle"),
    ("duelist", 1, "Duelist applies to this battle"),
    ("me_flags", len(PLAYER_FLAGS), "observer: " + _names(PLAYER_FLAGS)),
    ("opponent_flags", len(PLAYER_FLAGS), "the same for the opponent"),
    ("field_flags", (6, len(FIELD_FLAGS)), "my lanes 0-2, then the opponent's: "
                                           + _names(FIELD_FLAGS)),
    ("hand_slots", (HAND_ROWS, len(HAND_FEATURES)),
     "per hand slot: " + _names(HAND_FEATURES)),
    ("candidate_slots", (CANDIDATE_ROWS, len(CANDIDATE_FEATURES)),
     "per candidate of a pick (PICK + i): " + _names(CANDIDATE_FEATURES)),
    ("cards", (CARD_ROWS, cf.WIDTH),
     "card rows (card_features.COLUMNS): leaders (mine, opponent's, current face); units in my "
     "lanes 0-2 then the opponent's; their items (2 per lane); my hand slots 0-11; attacker, "
     f"defender, effect source; candidates 0-{CANDIDATE_ROWS - 1}"),
    ("zones", (len(ZONES), cf.WIDTH), "sum of the card rows / 10 in: " + ", ".join(ZONES)),
    ("opponent_known_hand", (KNOWN_ROWS, cf.WIDTH),
     "card rows of cards known to be in the opponent's hand, latest last: cards they had to "
     "reveal (3.1.7) and cards that went there from an open zone (returned from the field, "
     "salvaged from the trash); a row stays until the card leaves their hand"),
    # ------------------------------------------ appended when verbs were added (1.2.5 ...)
    ("count", 2, "may decision that chooses a number one \"one more?\" at a time (draw up to "
                 "N, 4.4.4): chosen so far / 10, the most that may be chosen / 10"),
    ("effect_added_verbs", cf.ADDED_VERB_SLOTS, "as effect_verbs, for the verbs added since "
                                                "(card_features.ADDED_VERB_NAMES)"),
    ("effect_step_added_verb", cf.ADDED_VERB_SLOTS, "as effect_step_verb, for the same verbs"),
    ("cards_added", (CARD_ROWS, cf.ADDED_WIDTH), "the added columns "
                                                 "(card_features.ADDED_COLUMNS) of each row of "
                                                 "`cards`, in the same order"),
    ("zones_added", (len(ZONES), cf.ADDED_WIDTH), "the same for `zones` (sums / 10)"),
    ("known_added", (KNOWN_ROWS, cf.ADDED_WIDTH), "the same for `opponent_known_hand`"),
)
#: blocks added after a layout shipped, by the first block of each addition: a policy
#: made for the layout before an addition reads the observation's prefix up to it
#: (agents.policy slices it)
STAGES = ("opponent_known_hand", "count")


def _size(shape) -> int:
    if isinstance(shape, int):
        return shape
    n = 1
    for s in shape:
        n *= s
    return n


OFFSETS: dict[str, int] = {}
_o = 0
for _name, _shape, _ in BLOCKS:
    OFFSETS[_name] = _o
    _o += _size(_shape)
OBS_SIZE = _o
del _o, _name, _shape


def layout_version(blocks) -> str:
    """A hash of a layout: block names and shapes, card columns, the action space.  The
    verbs in it are the card row's; added verbs fill reserved slots (their names do not
    change the layout, their count does through the blocks' shapes)."""
    return __import__("hashlib").sha256(repr((
        [(n, s) for n, s, _ in blocks], [(n, w) for n, w, _ in cf.COLUMNS], A.N_ACTIONS,
        cf.ROW_VERB_NAMES, cf.KEYWORDS)).encode()).hexdigest()[:12]


#: Changes whenever the layout does; trained policy files record it and refuse to load
#: under a layout they cannot read.
LAYOUT_VERSION = layout_version(BLOCKS)
#: every layout a policy file may name -> the observation size that policy reads: this one,
#: and this one without the blocks appended since (its prefix)
READABLE_LAYOUTS = {LAYOUT_VERSION: OBS_SIZE}
for _first in STAGES:
    _k = [n for n, _, _ in BLOCKS].index(_first)
    READABLE_LAYOUTS[layout_version(BLOCKS[:_k])] = OFFSETS[_first]
del _k, _first



def observation_box():
    """The observation vector's space: ``Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), float32)``."""
    from gymnasium import spaces
    return spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)


_CF = {n: i for i, (n, _) in enumerate(CANDIDATE_FEATURES)}
_NCF, _NFV, _NFF = len(CANDIDATE_FEATURES), len(FIELD_VALUES), len(FIELD_FLAGS)
_NVALUES = OFFSETS["seat"]                 # the leading block of numbers
_SUBKW = {k: i for i, k in enumerate(SUBKEYWORDS)}
_VALKW = {k: i for i, k in enumerate(VALUE_KEYWORDS)}
_EMPTY_LANE = [0.0] * _NFV
_SLOTS = ((0, 1, 2, 3, 4, 5), (3, 4, 5, 0, 1, 2))   # field block order for observer 0 / 1
_ZONE_SOURCES = ((0, 1, 2, 3, 4, 5), (1, 0, 3, 2, 5, 4))  # zone block <- shared summary
_HIDDEN_OWN = (K.Z_DECK,)               # hidden even from their owner
_HIDDEN_OTHER = (K.Z_DECK, K.Z_HAND)    # hidden from the other player


class Encoder:
    """Encodes games of one card pool into one preallocated array per observer.

    Card rows and zone summaries change a few times a turn, while flags change every
    step; each observer's array keeps its card block and zone block until their
    inputs change, and only the leading flags-and-values part is cleared per call.
    """

    def __init__(self, db):
        self.table = cf.card_table(db)
        self.db = db
        self.bufs = [np.zeros(OBS_SIZE, dtype=np.float32) for _ in range(2)]
        O = OFFSETS
        c, z, k = O["cards"], O["zones"], O["opponent_known_hand"]
        ca, za, ka = O["cards_added"], O["zones_added"], O["known_added"]
        W, AW = cf.WIDTH, cf.ADDED_WIDTH
        # flags and sparse values, all rewritten per call: seat .. cards, count .. cards_added
        self._head = [(b[O["seat"]:c], b[O["count"]:ca]) for b in self.bufs]
        self._cards = [(b[c:z].reshape(CARD_ROWS, W), b[ca:za].reshape(CARD_ROWS, AW))
                       for b in self.bufs]
        self._zones = [(b[z:k].reshape(len(ZONES), W), b[za:ka].reshape(len(ZONES), AW))
                       for b in self.bufs]
        self._known = [(b[k:O["count"]].reshape(KNOWN_ROWS, W),
                        b[ka:].reshape(KNOWN_ROWS, AW)) for b in self.bufs]
        # ability key -> observation indices of its verbs (effect_verbs or the added block),
        # and of each step's verb (effect_step_verb or effect_step_added_verb)
        tb = self.table

        def col(verb: int, row_block: str, added_block: str) -> int:
            return O[row_block] + verb if verb < cf.ROW_VERBS else \
                O[added_block] + verb - cf.ROW_VERBS
        self._ab_verbs = tuple(tuple(col(v, "effect_verbs", "effect_added_verbs") for v in vs)
                               for vs in tb.ability_verbs)
        self._ab_steps = tuple(tuple(col(v, "effect_step_verb", "effect_step_added_verb")
                                     for v in vs) for vs in tb.ability_step_verbs)
        self._nrows = self.table.matrix.shape[0]
        # a zone of at most this many cards cannot sum past the bounds (rows are <= 1/10th)
        peak = float(np.abs(self.table.tenth).max()) or 1.0
        self._zone_safe = int(OBS_HIGH / peak)
        # keyword key -> (index in SUBKEYWORDS or -1, index in VALUE_KEYWORDS or -1, value)
        self._kwinfo = tuple((_SUBKW.get(k.name, -1), _VALKW.get(k.name, -1), k.n)
                             for k in db.keywords)
        self._defs = None
        self._rowmap: list = []
        self._costmap: list = []
        self._forget()

    # A copy (deepcopy, pickle) is a fresh encoder of the same pool: the arrays above are
    # views into ``bufs`` that a copy would split, and the caches are only a speed-up.
    def __getstate__(self):
        return {"db": self.db}

    def __setstate__(self, state):
        self.__init__(state["db"])

    def _forget(self) -> None:
        self._last_rows: list = [None, None]         # per observer: card rows last written
        self._last_known: list = [None, None]        # per observer: known-hand rows written
        # zone summaries, shared by both observers: index kind * 2 + owner for
        # (trash, damage, skill) x (player 0, player 1); contents seen, sums, versions
        self._zlist: list = [[] for _ in range(6)]
        full = cf.WIDTH + cf.ADDED_WIDTH                       # sums of full rows
        self._zsum = np.zeros((6, full), np.float32)
        self._zout = np.zeros((6, full), np.float32)           # the sums clipped to bounds
        self._zver = [0] * 6
        self._zwritten = [[-1] * 6 for _ in range(2)]

    def _row_of(self, g) -> list:
        """Card instance id -> feature row (and printed cost), cached per game's card list."""
        if g.defs is not self._defs:
            self._defs = g.defs
            self._rowmap = [d + 1 for d in g.defs]
            cards = self.db.cards
            self._costmap = [cards[d].cost for d in g.defs]
            self._forget()
        return self._rowmap

    def encode(self, g, p: int, legal: list | None = None) -> np.ndarray:
        """Fill and return player ``p``'s internal array (callers copy it).

        ``legal`` is the legal action list when ``p`` is the player to act; it marks
        which hand slots may be played.
        """
        dv = derived(g)
        rowof = self._row_of(g)
        tb = self.table
        buf = self.bufs[p]
        head, tail = self._head[p]
        head.fill(0.0)
        tail.fill(0.0)
        o = 1 - p
        rows = [0] * CARD_ROWS
        ones: list = []
        vi: list = []
        vv: list = []
        O = OFFSETS
        # ---------------------------------------------------------------- global
        vals = [g.turn / g.cfg.max_turns, min(g.turn, 30) / 30, len(g.attacked) / 5, 0.0]
        # Values that only custom cards push past the bounds (a 50-power unit with +20
        # buffs, dozens of items) are checked where they are made, and the block is
        # clipped only then: a full min/max pass would cost more than the rest of it.
        big = len(g.attacked) > 50
        if p:
            ones.append(O["seat"])
        if g.first == p:
            ones.append(O["first_player"])
        if g.tp == p:
            ones.append(O["my_turn"])
        ones.append(O["phase"] + g.phase)
        d = decision_info(g)
        if d is not None:
            kind = d.kind
            ones.append(O["decision"] + kind)
            if d.player == p:
                ones.append(O["acting"])
            key, src = -1, -1
            if kind == K.D_PICK:
                ones.append(O["pick_purpose"] + d.purpose)
                if d.can_pass and d.player == p:
                    ones.append(O["can_pass"])
                key, src = d.ability, d.source
                if key >= 0 and d.step >= 0:
                    ones.append(self._ab_steps[key][d.step])
                vals[3] = self._candidates(g, p, d, rowof, rows, ones, vi, vv, dv.power) / CANDIDATE_ROWS
            elif kind == K.D_YESNO:
                key, src = d.ability, d.source
                if d.step >= 0:
                    ones.append(self._ab_steps[key][d.step])
                if d.most >= 0:                          # choosing a number (4.4.4)
                    vi += (O["count"], O["count"] + 1)
                    vv += (d.count / 10, d.most / 10)
            elif kind == K.D_GUARDIAN:
                ones.extend(O["guardian_lanes"] + lane for lane in d.lanes)
            elif kind == K.D_DEFENSE:
                ones.append(O["defender_lane"] + d.lane)
                if d.must:
                    ones.append(O["must_defend"])
            if key >= 0:
                ones.extend(self._ab_verbs[key])
            if src >= 0:
                if src // K.PER == p:
                    ones.append(O["effect_mine"])
                rows[ROW_REFS + 2] = self._visible_row(g, p, src, rowof)
        b = battle_info(g)
        if b is not None:
            ones.append(O["in_battle"])
            atk = b.attacker
            if atk // K.PER == p:
                ones.append(O["attacker_mine"])
            ones.append(O["attack_lane"] + b.lane)
            ones.append(O["battle_step"] + b.step)
            if b.breakthrough:
                ones.append(O["breakthrough"])
            if b.duel:
                ones.append(O["duelist"])
            rows[ROW_REFS] = rowof[atk]
            df = b.defender
            if df >= 0:
                ones.append(O["has_defender"])
                rows[ROW_REFS + 1] = rowof[df]
        # ---------------------------------------------------------------- players
        costof = self._costmap
        ucost = dv.cost
        unit = g.unit
        for q, flags in ((p, O["me_flags"]), (o, O["opponent_flags"])):
            cost = units = 0
            for s in range(q * 3, q * 3 + 3):                  # 6.4.1.1.2: field cost
                if unit[s] >= 0:
                    units += 1
                    cost += ucost[s]                           # as effects change it (R28)
                    for it in g.items[s]:
                        cost += costof[it]
            for it in g.skill[q]:
                cost += costof[it]
            size = dv.size[q]
            if size > 100 or cost > 100 or cost - size > 100:
                big = True
            vals += (g.level[q] / 10, size / 10, cost / 10, (size - cost) / 10,
                     len(g.damage[q]) / 10, len(g.deck[q]) / 40, len(g.hand[q]) / 10,
                     len(g.trash[q]) / 40, len(g.skill[q]) / 10, units / 3)
            if g.awake[q]:
                ones.append(flags)
            if g.mulled[q]:
                ones.append(flags + 1)
            placed = g.placed[q]
            if placed:
                for lane in range(3):
                    if placed >> lane & 1:
                        ones.append(flags + 2 + lane)
            leader = q * K.PER
            rows[ROW_LEADERS + (q != p)] = (tb.back_row[g.defs[leader]] if g.awake[q]
                                            else rowof[leader])
        # ---------------------------------------------------------------- field
        cards = self.db.cards
        defs = g.defs
        made = {}
        for iid, _stamp in g.attacked:
            made[iid] = made.get(iid, 0) + 1
        ff = O["field_flags"]
        kwinfo = self._kwinfo
        pw, ht, na, kws, prohibited = dv.power, dv.hit, dv.attacks, dv.keywords, dv.prohibited
        for k, s in enumerate(_SLOTS[p]):
            u = unit[s]
            if u < 0:
                vals += _EMPTY_LANE
                continue
            its = g.items[s]
            rows[ROW_UNITS + k] = rowof[u]
            if its:
                ri = ROW_ITEMS + k * ITEM_ROWS
                rows[ri] = rowof[its[0]]
                if len(its) > 1:
                    rows[ri + 1] = rowof[its[1]]
            c = cards[defs[u]]
            base = ff + k * _NFF
            ones.append(base)
            cant = prohibited[s]
            if cant:
                if cant & K.PROHIBIT_ATTACK:
                    ones.append(base + 1)
                if cant & K.PROHIBIT_DEFEND:
                    ones.append(base + 2)
            kv = [0, 0, 0, 0]
            for kw in kws[s]:
                i, j, n = kwinfo[kw.key]
                if i >= 0:
                    ones.append(base + 3 + i)
                if j >= 0 and n > kv[j]:
                    kv[j] = n
            if pw[s] > 100 or ht[s] > 50 or na[s] > 20 or len(its) > 30:
                big = True
            vals += (pw[s] / 10, ht[s] / 5, (pw[s] - c.power) / 10, (ht[s] - c.hit) / 5,
                     na[s] / 2, made.get(u, 0) / 2, len(its) / 3,
                     kv[0] / 5, kv[1] / 5, kv[2] / 5, kv[3] / 5)
        # ---------------------------------------------------------------- hand
        hand = g.hand[p]
        nh = min(len(hand), HAND_ROWS)
        for h in range(nh):
            rows[ROW_HAND + h] = rowof[hand[h]]
        if legal and d is not None and d.kind == K.D_MAIN and d.player == p:
            ho = O["hand_slots"]
            hi = A.PLAY + HAND_ROWS * A.PLAY_TARGETS
            for a in legal:
                if A.PLAY <= a < hi:
                    ones.append(ho + a - A.PLAY)
        # ---------------------------------------------------------------- zones
        # These zones change a few times a turn, mostly by a card added at the end.  A sum
        # is always built by adding rows one at a time in zone order, so an extended sum
        # and a fresh one are the same bits.
        zlist, zsum, zver, tenth = self._zlist, self._zsum, self._zver, tb.tenth
        zout = self._zout
        for kq, lst in enumerate((g.trash[0], g.trash[1], g.damage[0], g.damage[1],
                                  g.skill[0], g.skill[1])):
            old = zlist[kq]
            if lst != old:
                n = len(old)
                acc = zsum[kq]
                if len(lst) <= n or lst[:n] != old:
                    acc.fill(0.0)
                    n = 0
                for i in lst[n:]:
                    acc += tenth[rowof[i]]
                if len(lst) > self._zone_safe:               # only extreme custom pools
                    np.clip(acc, OBS_LOW, OBS_HIGH, out=self._zout[kq])
                else:
                    self._zout[kq] = acc
                zlist[kq] = lst[:]
                zver[kq] += 1
        written = self._zwritten[p]
        zones_p, zones_added_p = self._zones[p]
        W = cf.WIDTH
        for z, kq in enumerate(_ZONE_SOURCES[p]):
            if written[z] != zver[kq]:
                written[z] = zver[kq]
                zones_p[z] = zout[kq, :W]
                zones_added_p[z] = zout[kq, W:]
        # ---------------------------------------------------------------- write
        if rows != self._last_rows[p]:
            self._last_rows[p] = rows
            cards_p, cards_added_p = self._cards[p]
            tb.matrix.take(rows, 0, cards_p, "clip")   # 'clip' writes out unbuffered
            tb.added.take(rows, 0, cards_added_p, "clip")
        known, lk = g.known[o], self._last_known[p]
        if known or lk != []:                       # None: this buffer's rows are unknown
            krows = [rowof[i] for i in known[-KNOWN_ROWS:]]
            if krows != lk:
                self._last_known[p] = krows
                padded = krows + [0] * (KNOWN_ROWS - len(krows))
                known_p, known_added_p = self._known[p]
                tb.matrix.take(padded, 0, known_p, "clip")
                tb.added.take(padded, 0, known_added_p, "clip")
        if big:
            vals = [OBS_HIGH if v > OBS_HIGH else OBS_LOW if v < OBS_LOW else v for v in vals]
        buf[:_NVALUES] = vals
        buf[ones] = 1.0
        if vi:
            buf[vi] = [OBS_HIGH if v > OBS_HIGH else OBS_LOW if v < OBS_LOW else v for v in vv]
        return buf

    def _visible_row(self, g, p: int, iid: int, rowof) -> int:
        z = g.where[iid] >> 2
        if z in (_HIDDEN_OWN if iid // K.PER == p else _HIDDEN_OTHER):
            return 0
        if iid % K.PER == 0 and g.awake[iid // K.PER]:
            return self.table.back_row[g.defs[iid]]
        return rowof[iid]

    def _candidates(self, g, p, d, rowof, rows, ones, vi, vv, power) -> int:
        """Fill the candidate slots; returns how many candidates ``p`` may know of.

        The chooser sees every candidate, those in hidden zones too (11.2.1: the player
        resolving the effect looks at them; the engine lists those by card, 3.2.2).  Any
        other observer sees only candidates in zones open to them: a candidate in their
        opponent's hand or in a deck is left out, count included -- except for the cards
        a player is ordering into their deck (3.1.6), whose number is public (3.1.5)."""
        co = OFFSETS["candidate_slots"]
        cands = d.candidates
        order = d.purpose == K.P_ORDER
        chooser = d.player == p
        entries = effects_to_order(g) if order else ()
        where = g.where
        i = 0
        for v in cands:
            if i >= CANDIDATE_ROWS:
                break
            if not order and v >= 0 and not chooser:
                z = where[v] >> 2
                if z in (_HIDDEN_OWN if v // K.PER == p else _HIDDEN_OTHER):
                    continue
            base = co + i * _NCF
            i += 1
            ones.append(base)
            if order:
                ones.append(base + _CF["is_effect"])
                if v < len(entries):
                    e = entries[v]
                    ones.append(base + _CF["effect_" + K.KIND_NAMES[e[2]].lower()
                                       .replace(" ", "_")])
                    v = e[3]
                else:
                    continue
            elif v < 0:
                ones.append(base + _CF["is_lane"])
                ones.append(base + _CF["lane_0"] - 1 - v)
                continue
            else:
                ones.append(base + _CF["is_card"])
            w = where[v]
            z, lane = w >> 2, w & 3
            if v // K.PER == p:
                ones.append(base + _CF["mine"])
            ones.append(base + _CF["in_deck"] + z)
            if lane < 3:
                ones.append(base + _CF["lane_0"] + lane)
                if z == K.Z_UNIT:
                    vi.append(base + _CF["power"])
                    vv.append(power[(v // K.PER) * 3 + lane] / 10)
            rows[ROW_CANDS + i - 1] = (self._visible_row(g, p, v, rowof) if not chooser or
                                       order else self._chooser_row(g, v, rowof))
        if order or chooser or d.purpose == K.P_CARD_ORDER:
            return len(cands)
        return i if len(cands) <= CANDIDATE_ROWS else i + sum(
            1 for v in cands[CANDIDATE_ROWS:] if v < 0 or (where[v] >> 2) not in
            (_HIDDEN_OWN if v // K.PER == p else _HIDDEN_OTHER))

    def _chooser_row(self, g, iid: int, rowof) -> int:
        """The card row the chooser of a pick sees, hidden zone or not (11.2.1)."""
        if iid % K.PER == 0 and g.awake[iid // K.PER]:
            return self.table.back_row[g.defs[iid]]
        return rowof[iid]


DOC_INTRO = f"""# The observation

Generated by `python -m nivel_env observation > docs/observation.md` from the layout in
`nivel_env/env/encoder.py` and `nivel_env/env/card_features.py`; a test fails when the two
disagree.

Each agent's observation is `{{"observation": float32[{OBS_SIZE}], "action_mask": int8[337]}}`
(PettingZoo classic style); the Gymnasium wrapper returns the vector and exposes the mask as
`action_masks()`.  The vector is from the observer's view only: their own hand, all public
zones (level, unit, item, skill, trash, damage: 3.1), and counts of hidden ones.  The
opponent's hand and the order of both decks never influence it (tests/env/test_env_aec.py
resamples them with `nivel_env.engine.hidden.determinize`).  The chooser of a pick sees every
candidate, a card in a hidden zone too (11.2.1: the player resolving the effect looks at it;
the engine lists those by card, not deck position); any other observer sees only candidates
in zones open to them, and their count.  A `card order` pick (`pick_purpose` slot 7, which
was `which effect` and never set by any decision) is a player putting cards that went into
their deck together in the order they choose (3.1.6), one card at a time: its candidates
are those cards in that deck, which only the chooser sees; the other observer sees the
pick's purpose and how many cards are left to place (3.1.5), never which.

The layout depends on neither the card pool nor the game: cards are described by features
of their data (a card row, below), not ids, so a policy can read cards it was not trained
on.  All card rows form one `({CARD_ROWS}, {cf.WIDTH})` block (`cards`) so a network may share
weights across card slots: `obs[OFFSETS["cards"]:OFFSETS["zones"]].reshape({CARD_ROWS}, {cf.WIDTH})`.

Values are scaled to about [-1, 1]; every value is clipped into the space, `Box(-10, 10)`
(the bundled pool stays within about ±3 in random play; only custom cards with extreme
numbers come near the bounds).  Not shown: more than {HAND_ROWS} hand
cards, {ITEM_ROWS} items per unit, {CANDIDATE_ROWS} pick candidates (their ids stay legal in the mask) and
more than {KNOWN_ROWS} known cards in the opponent's hand.  The one piece of memory: cards known to
be in the opponent's hand (`opponent_known_hand`) -- a card they had to reveal (3.1.7) or one
that went there from an open zone -- until it leaves their hand.

Earlier layouts are this one's prefix, so policy files made for them still load and read
the start of the vector: layout `8ec8ba45303d` (the one `nv1-ppo` was trained for) ends
before `opponent_known_hand` (the first {READABLE_LAYOUTS.get("8ec8ba45303d", 0)} values); layout
`ad1491a31dc9` (`nv2-ppo`) ends before `count`, the blocks appended for the verbs the card
language gained later (the first {READABLE_LAYOUTS.get("ad1491a31dc9", 0)} values).  Those verbs
({", ".join(cf.ADDED_VERB_NAMES)}) have their card-row columns in `cards_added`, `zones_added` and
`known_added`, one row per row of `cards`, `zones` and `opponent_known_hand`; their
{cf.ADDED_VERB_SLOTS} slots per column group leave room for later verbs with no layout change.

```python
from nivel_env.env.encoder import OFFSETS, OBS_SIZE   # block name -> first index
```

## Blocks
"""


def feature_table_markdown() -> str:
    """docs/observation.md: every block, its offset, shape and meaning."""
    out = [DOC_INTRO, "| offset | block | shape | meaning |", "|---:|---|---|---|"]
    for name, shape, meaning in BLOCKS:
        sh = str(shape) if isinstance(shape, int) else " x ".join(map(str, shape))
        out.append(f"| {OFFSETS[name]} | `{name}` | {sh} | {meaning} |")
    out += ["", f"Total: {OBS_SIZE} float32 values.", "",
            f"## Card rows ({cf.WIDTH} values each)", "",
            "| offset in row | column | width | meaning |", "|---:|---|---|---|"]
    for name, w, meaning in cf.COLUMNS:
        out.append(f"| {cf.OFFSET[name]} | `{name}` | {w} | {meaning} |")
    for title, feats in (("Global values", GLOBAL_VALUES),
                         ("Player values (`me_values`, `opponent_values`)", PLAYER_VALUES),
                         ("Player flags (`me_flags`, `opponent_flags`)", PLAYER_FLAGS),
                         ("Field values (per lane)", FIELD_VALUES),
                         ("Field flags (per lane)", FIELD_FLAGS),
                         ("Hand slot features", HAND_FEATURES),
                         ("Candidate features", CANDIDATE_FEATURES)):
        out += ["", f"## {title}", "", "| index | feature | meaning |", "|---:|---|---|"]
        out += [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(feats)]
    return "\n".join(out) + "\n"

