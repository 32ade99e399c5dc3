"""The observation: one flat float32 vector, from one player's view only.

The layout is a spec (``layout.LAYOUT``: blocks by name, with offsets, bounds and the
version that added each; ``card_features.COLUMNS`` for card rows), printed as the table in
docs/observation.md by ``python -m nivel_env observation``; this module writes each block
through the layout's named views and offsets.
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

from ..engine import actions as A, const as K
from ..engine.view import battle_info, decision_info, derived, effects_to_order
from . import card_features as cf

from . import layout as L
from .layout import (CANDIDATE_FEATURES, CANDIDATE_ROWS, CARD_ROWS, FIELD_LANES,  # noqa: F401
                     FIELD_STATES,
                     GLOBAL_VALUES, HAND_FEATURES, HAND_ROWS, ITEM_ROWS, KNOWN_ROWS, LAYOUT, OBS_HIGH, OBS_LOW,
                     PLAYER_FLAGS, PLAYER_VALUES, ROW_CANDS, ROW_HAND, ROW_ITEMS, ROW_LEADERS,
                     ROW_REFS, ROW_UNITS, SUBKEYWORDS, VALUE_KEYWORDS, ZONES)

N_VERBS = cf.ROW_VERBS                 # verbs with columns in the first layout's blocks
FIELD_VALUES = LAYOUT.field_values()
FIELD_FLAGS = LAYOUT.field_flags()
#: (block name, shape, meaning), in vector order (``LAYOUT.blocks`` has them as ``Block``s)
BLOCKS = tuple((b.name, b.spec_shape(), b.meaning) for b in LAYOUT.blocks)
#: block name -> first index in the vector
OFFSETS: dict[str, int] = LAYOUT.offsets
OBS_SIZE = LAYOUT.size
#: Changes whenever the layout does; trained policy files record it and refuse to load
#: under a layout they cannot read.
LAYOUT_VERSION = LAYOUT.hash
#: every layout a policy file may name -> the observation size that policy reads: this one,
#: and each earlier version (its prefix: the blocks appended since are left out)
READABLE_LAYOUTS = LAYOUT.readable()


def layout_version(blocks) -> str:
    """The hash of a list of ``(name, shape, meaning)`` blocks (``layout.layout_hash``)."""
    return L.layout_hash([L.Block(n, (s,) if isinstance(s, int) else tuple(s), m, 0)
                          for n, s, m in blocks])


def observation_box():
    """The observation vector's space, from the layout's block bounds:
    ``Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), float32)``."""
    return LAYOUT.box()


_CF = {n: i for i, (n, _) in enumerate(CANDIDATE_FEATURES)}
_NCF = len(CANDIDATE_FEATURES)
_SLOTS = ((0, 1, 2, 3, 4, 5), (3, 4, 5, 0, 1, 2))   # field block order for observer 0 / 1
_ZONE_SOURCES = ((0, 1, 2, 3, 4, 5), (1, 0, 3, 2, 5, 4))  # zone block <- shared summary
_HIDDEN_OWN = (K.Z_DECK,)               # hidden even from their owner
_HIDDEN_OTHER = (K.Z_DECK, K.Z_HAND)    # hidden from the other player


class Encoder:
    """Encodes games of one card pool into one preallocated array per observer.

    Card rows and zone summaries change a few times a turn, while flags change every
    step; each observer's array keeps its card-row blocks (``Block.cached``) until their
    inputs change, and every other block is cleared per call before it is written.

    ``layout`` is ``layout.LAYOUT`` unless a test replays the vocabulary growing: every
    block is written through the layout's named views and offsets.
    """

    def __init__(self, db, layout: L.Layout = LAYOUT):
        self.layout = lay = layout
        self.table = cf.card_table(db, lay.terms)
        self.db = db
        self.bufs = [np.zeros(lay.size, dtype=np.float32) for _ in range(2)]
        O = self._off = lay.offsets
        # every block but the cached card rows is cleared per call, then written: the runs
        # of consecutive such blocks (today: global_values .. candidate_slots, count ..
        # effect_step_added_verb)
        runs: list = []
        for blk in lay.blocks:
            if blk.cached:
                continue
            if runs and runs[-1][1] == blk.offset:
                runs[-1][1] = blk.stop
            else:
                runs.append([blk.offset, blk.stop])
        self._cleared = [tuple(b[a:z] for a, z in runs) for b in self.bufs]
        self._init_cards(lay)
        self._nvalues = O["seat"]                 # the leading block of numbers
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
        # The field blocks' keyword columns, derived from the layout's vocabulary: a lane's
        # flag of a sub-keyword and its value keyword slot.  Shipped terms have columns in
        # field_flags / field_values; terms added since in their version's
        # field_added_flags_v<N> / field_added_values_v<N>.
        fv, ff = lay.field_values(), lay.field_flags()
        self._nfv, self._nff = len(fv), len(ff)
        self._empty_lane = [0.0] * len(fv)
        ships, shipv = lay.shipped_subkeywords, lay.shipped_value_keywords
        self._nkv = len(shipv)                                 # value slots in field_values
        self._no_values = [0.0] * self._nkv
        first_kw_flag = len(FIELD_STATES)
        flag_of = {k: first_kw_flag + i for i, k in enumerate(ships)}
        value_of = {k: i for i, k in enumerate(shipv)}
        added_flag, added_value = {}, {}            # term -> (block offset, its lane width)
        for v, a in lay.term_versions():
            for names, kind, into in ((a.subkeywords, "field_added_flags", added_flag),
                                      (a.value_keywords, "field_added_values", added_value)):
                if names:
                    blk = lay.block(L.term_block(kind, v))
                    into.update({k: (blk.offset + i, blk.shape[1]) for i, k in enumerate(names)})
        # per lane k of the field blocks: keyword key -> (flag index in a lane of
        # field_flags or -1, observation index of its added flag or -1, value slot in
        # field_values or -1, observation index of its added value or -1, its value / 5:
        # the highest n / 5 is the highest n, / 5)
        def lane_info(k: int) -> tuple:
            out = []
            for kw in db.keywords:
                x, xs = added_flag.get(kw.name, (-1, 0))
                y, ys = added_value.get(kw.name, (-1, 0))
                out.append((flag_of.get(kw.name, -1), x + k * xs if x >= 0 else -1,
                            value_of.get(kw.name, -1), y + k * ys if y >= 0 else -1, kw.n / 5))
            return tuple(out)
        self._kwinfo = tuple(lane_info(k) for k in range(FIELD_LANES))
        # what the field loop reads, in one tuple
        self._field = (self._kwinfo, self._nff, self._empty_lane, self._no_values, self._nkv)
        self._defs = None
        self._native = None           # the native core's encoder, made for the first NativeGame
        self._stale = False           # the native one wrote bufs: forget the caches
        self._rowmap: list = []
        self._costmap: list = []
        self._forget()

    def _init_cards(self, lay: L.Layout) -> None:
        """Where the card rows, the known hand and the zone sums go: per observer, (the
        table's matrix, the block it fills) for the row, its added verbs' columns and each
        version's added terms' columns."""
        view = lay.view
        rowblocks = {x: lay.card_row_blocks(x) for x in ("cards", "zones", "known")}
        terms = {L.term_block(k, v) for v, _ in lay.term_versions() for k in L.TERM_BLOCKS}
        # the blocks it fills: this package's layout's (FEATURES included), and the blocks
        # of the terms the layout's vocabulary added; cached ones only as card rows
        unknown = [b.name for b in lay.blocks if b.name not in LAYOUT and b.name not in terms]
        unknown += [b.name for b in lay.blocks if b.cached and not any(
            b.name in r for r in rowblocks.values())]
        if unknown:
            raise ValueError(f"Encoder: the layout has blocks it cannot fill: {unknown}")
        tb = self.table
        mats = (tb.matrix, tb.added) + tuple(tb.term_groups)
        for x, names in rowblocks.items():
            if len(names) != len(mats):
                raise ValueError(f"Encoder: the layout's {x} rows are in {names}, the card "
                                 f"table has {len(mats)} matrices for them")
        self._cards = [tuple(zip(mats, (view(b, n) for n in rowblocks["cards"])))
                       for b in self.bufs]
        self._known = [tuple(zip(mats, (view(b, n) for n in rowblocks["known"])))
                       for b in self.bufs]
        # zone sums: (block, first and last column of the full row) per part
        bounds, o = [], 0
        for m in mats:
            bounds.append((o, o + m.shape[1]))
            o += m.shape[1]
        self._zones = [tuple((view(b, n),) + lh for n, lh in zip(rowblocks["zones"], bounds))
                       for b in self.bufs]
        self._nrows = self.table.matrix.shape[0]
        # a zone of at most this many cards cannot sum past the bounds (rows are <= 1/10th)
        peak = float(np.abs(self.table.tenth).max()) or 1.0
        self._zone_safe = int(OBS_HIGH / peak)

    # A copy (deepcopy, pickle) is a fresh encoder of the same pool: the arrays above are
    # views into ``bufs`` that a copy would split, and the caches are only a speed-up.
    def __getstate__(self):
        lay = self.layout
        return {"db": self.db, "layout": lay.name if L.LAYOUTS.get(lay.name) is lay else lay}

    def __setstate__(self, state):
        self.__init__(state["db"], L.layout_named(state.get("layout", "full")))

    def _forget(self) -> None:
        self._last_rows: list = [None, None]         # per observer: card rows last written
        self._last_known: list = [None, None]        # per observer: known-hand rows written
        # zone summaries, shared by both observers: index kind * 2 + owner for
        # (trash, damage, skill) x (player 0, player 1); contents seen, sums, versions
        self._zlist: list = [[] for _ in range(6)]
        full = self.table.tenth.shape[1]                       # sums of full rows
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
        which hand slots may be played.  A native game (``g.backend == "native"``) is
        encoded by the native core into the same array, bit for bit.
        """
        if getattr(g, "backend", "python") == "native":
            return self._encode_native(g, p, legal)
        if self._stale:
            self._stale = False
            self._defs = None
        dv = derived(g)
        rowof = self._row_of(g)
        tb = self.table
        buf = self.bufs[p]
        for part in self._cleared[p]:
            part.fill(0.0)
        o = 1 - p
        rows = [0] * CARD_ROWS
        ones: list = []
        vi: list = []
        vv: list = []
        O = self._off
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
                if g.owner(src) == p:
                    ones.append(O["effect_mine"])
                rows[ROW_REFS + 2] = self._visible_row(g, p, src, rowof)
        b = battle_info(g)
        if b is not None:
            ones.append(O["in_battle"])
            atk = b.attacker
            if g.owner(atk) == p:
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
        kwinfos, nff, empty_lane, no_values, nkv = self._field
        xmax: dict = {}                  # field_added_values_v* index -> highest value / 5
        pw, ht, na, kws, prohibited = dv.power, dv.hit, dv.attacks, dv.keywords, dv.prohibited
        for k, s in enumerate(_SLOTS[p]):
            u = unit[s]
            if u < 0:
                vals += empty_lane
                continue
            its = g.items[s]
            rows[ROW_UNITS + k] = rowof[u]
            if its:
                ri = ROW_ITEMS + k * ITEM_ROWS
                rows[ri] = rowof[its[0]]
                if len(its) > 1:
                    rows[ri + 1] = rowof[its[1]]
            c = cards[defs[u]]
            base = ff + k * nff
            ones.append(base)
            cant = prohibited[s]
            if cant:
                if cant & K.PROHIBIT_ATTACK:
                    ones.append(base + 1)
                if cant & K.PROHIBIT_DEFEND:
                    ones.append(base + 2)
            if pw[s] > 100 or ht[s] > 50 or na[s] > 20 or len(its) > 30:
                big = True
            vals += (pw[s] / 10, ht[s] / 5, (pw[s] - c.power) / 10, (ht[s] - c.hit) / 5,
                     na[s] / 2, made.get(u, 0) / 2, len(its) / 3)
            vals += no_values                # value keyword slots, raised below
            kl = kws[s]
            if kl:
                top = len(vals) - nkv
                kwinfo = kwinfos[k]
                for kw in kl:
                    i, x, j, y, n5 = kwinfo[kw.key]
                    if i >= 0:
                        ones.append(base + i)
                    elif x >= 0:                                    # field_added_flags_v*
                        ones.append(x)
                    if j >= 0:                                      # the highest value
                        if n5 > vals[top + j]:
                            vals[top + j] = n5
                    elif y >= 0:                                    # field_added_values_v*
                        if n5 > xmax.get(y, 0.0):
                            xmax[y] = n5
        if xmax:
            vi += xmax
            vv += xmax.values()
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
        self._write_cards(g, p, rows, rowof)
        if big:
            vals = [OBS_HIGH if v > OBS_HIGH else OBS_LOW if v < OBS_LOW else v for v in vals]
        buf[:self._nvalues] = vals
        buf[ones] = 1.0
        if vi:
            buf[vi] = [OBS_HIGH if v > OBS_HIGH else OBS_LOW if v < OBS_LOW else v for v in vv]
        return buf

    def _encode_native(self, g, p: int, legal) -> np.ndarray:
        if self._native is None:
            from ..native.encoder import NativeEncoder
            self._native = NativeEncoder(self)
        self._stale = True                  # every block rewritten: the caches are stale
        return self._native.encode(g, p, self.bufs[p], legal)

    def _write_cards(self, g, p: int, rows: list, rowof) -> None:
        """The card rows of ``rows`` (card table rows), the opponent's known hand and the
        zone sums, each written only when it changed since this observer's last call."""
        tb = self.table
        o = 1 - p
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
        zparts = self._zones[p]
        for z, kq in enumerate(_ZONE_SOURCES[p]):
            if written[z] != zver[kq]:
                written[z] = zver[kq]
                for out, lo, hi in zparts:
                    out[z] = zout[kq, lo:hi]
        # ---------------------------------------------------------------- write
        if rows != self._last_rows[p]:
            self._last_rows[p] = rows
            for mat, out in self._cards[p]:
                mat.take(rows, 0, out, "clip")         # 'clip' writes out unbuffered
        known, lk = g.known[o], self._last_known[p]
        if known or lk != []:                       # None: this buffer's rows are unknown
            krows = [rowof[i] for i in known[-KNOWN_ROWS:]]
            if krows != lk:
                self._last_known[p] = krows
                padded = krows + [0] * (KNOWN_ROWS - len(krows))
                for mat, out in self._known[p]:
                    mat.take(padded, 0, out, "clip")

    def _visible_row(self, g, p: int, iid: int, rowof) -> int:
        owner = g.owner(iid)
        if g.zone(iid) in (_HIDDEN_OWN if owner == p else _HIDDEN_OTHER):
            return 0
        if iid == owner * K.PER and g.awake[owner]:            # an awakened leader's back
            return self.table.back_row[g.defs[iid]]
        return rowof[iid]

    def _candidates(self, g, p, d, rowof, rows, ones, vi, vv, power) -> int:
        """Fill the candidate slots; returns how many candidates ``p`` may know of.

        The chooser sees every candidate, those in hidden zones too (11.2.1: the player
        resolving the effect looks at them; the engine lists those by card, 3.2.2).  Any
        other observer sees only candidates in zones open to them: a candidate in their
        opponent's hand or in a deck is left out, count included -- except for the cards
        a player is ordering into their deck (3.1.6), whose number is public (3.1.5)."""
        co = self._off["candidate_slots"]
        cands = d.candidates
        order = d.purpose == K.P_ORDER
        chooser = d.player == p
        entries = effects_to_order(g) if order else ()
        zone, owner_of, lane_of = g.zone, g.owner, g.lane
        i = 0
        for v in cands:
            if i >= CANDIDATE_ROWS:
                break
            if not order and v >= 0 and not chooser:
                if zone(v) in (_HIDDEN_OWN if owner_of(v) == p else _HIDDEN_OTHER):
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
            z, lane, owner = zone(v), lane_of(v), owner_of(v)
            if owner == p:
                ones.append(base + _CF["mine"])
            ones.append(base + _CF["in_deck"] + z)
            if lane < 3:
                ones.append(base + _CF["lane_0"] + lane)
                if z == K.Z_UNIT:
                    vi.append(base + _CF["power"])
                    vv.append(power[owner * 3 + lane] / 10)
            rows[ROW_CANDS + i - 1] = (self._visible_row(g, p, v, rowof) if not chooser or
                                       order else self._chooser_row(g, v, rowof))
        if order or chooser or d.purpose == K.P_CARD_ORDER:
            return len(cands)
        return i if len(cands) <= CANDIDATE_ROWS else i + sum(
            1 for v in cands[CANDIDATE_ROWS:] if v < 0 or zone(v) not in
            (_HIDDEN_OWN if owner_of(v) == p else _HIDDEN_OTHER))

    def _chooser_row(self, g, iid: int, rowof) -> int:
        """The card row the chooser of a pick sees, hidden zone or not (11.2.1)."""
        owner = g.owner(iid)
        if iid == owner * K.PER and g.awake[owner]:            # an awakened leader's back
            return self.table.back_row[g.defs[iid]]
        return rowof[iid]


class CompactEncoder(Encoder):
    """The compact observation (``layout.COMPACT``): the same blocks as the full one but
    the card rows, which are card table indices here -- the very rows ``Encoder`` copies
    features from, so the two show a player exactly the same things.  Zones are listed
    card by card, the latest ``TRASH_ROWS`` / ``DAMAGE_ROWS`` / ``SKILL_ROWS`` of each."""

    def __init__(self, db, layout: L.Layout = L.COMPACT):
        super().__init__(db, layout)

    def _init_cards(self, lay: L.Layout) -> None:
        index = ("card_index", "known_index", "trash_index", "damage_index", "skill_index")
        terms = {L.term_block(k, v) for v, _ in lay.term_versions()
                 for k in ("field_added_values", "field_added_flags")}
        unknown = [b.name for b in lay.blocks if b.name not in index and (
            b.cached or (b.name not in LAYOUT and b.name not in terms))]
        if unknown:
            raise ValueError(f"CompactEncoder: the layout has blocks it cannot fill: {unknown}")
        view = lay.view
        self._index = []
        for b in self.bufs:
            zones = tuple(view(b, n)[side] for n in index[2:] for side in (0, 1))
            self._index.append((view(b, "card_index"), view(b, "known_index"), zones))
        self._cards = self._known = self._zones = ()

    def _forget(self) -> None:
        super()._forget()
        self._zlast = [[None] * 6 for _ in range(2)]   # per observer: zone lists written

    def _write_cards(self, g, p: int, rows: list, rowof) -> None:
        cards, known_out, zones = self._index[p]
        if rows != self._last_rows[p]:
            self._last_rows[p] = rows
            cards[:] = rows
        known, lk = g.known[1 - p], self._last_known[p]
        if known or lk != []:
            krows = [rowof[i] for i in known[-KNOWN_ROWS:]]
            if krows != lk:
                self._last_known[p] = krows
                known_out[:] = krows + [0] * (KNOWN_ROWS - len(krows))
        last = self._zlast[p]
        lists = (g.trash[0], g.trash[1], g.damage[0], g.damage[1], g.skill[0], g.skill[1])
        for z, kq in enumerate(_ZONE_SOURCES[p]):
            lst = lists[kq]
            if lst != last[z]:
                last[z] = lst[:]
                out = zones[z]
                n = len(out)
                idx = [rowof[i] for i in lst[-n:]]
                out[:len(idx)] = idx
                out[len(idx):] = 0.0


def make_encoder(db, obs="full") -> Encoder:
    """An encoder of ``db``'s games for the layout ``obs`` (``"full"``, ``"compact"`` or a
    ``Layout``)."""
    lay = L.layout_named(obs)
    return CompactEncoder(db, lay) if lay.name == "compact" else Encoder(db, lay)


def card_table(db) -> np.ndarray:
    """The card table of ``db``'s pool, which the compact observation's indices point
    into: float32 ``(rows, columns)``, read-only; row 0 is "no card", row ``1 +
    card.index`` a card (a leader's front face), then the leaders' back faces; the columns
    are the full observation's card-row columns (``card_features.COLUMNS``, then the added
    ones), so a network made for it reads any pool's table."""
    return cf.card_table(db).full


DOC_INTRO = f"""# The observation

Generated by `python -m nivel_env observation > docs/observation.md` from the layout in
`nivel_env/env/layout.py` and `nivel_env/env/card_features.py`; a test fails when the two
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
from nivel_env.env.layout import LAYOUT
LAYOUT.block("hand_slots")          # Block: offset, shape, bounds, the version that added it
LAYOUT.view(obs, "hand_slots")      # numpy or torch view, shaped (12, 4); batches too
LAYOUT.versions                     # version -> (layout hash, length of its prefix)
```

The encoder writes each block through the layout's named views and offsets, the
networks (`agents/network.py`) and `ObservationView` read them the same way; no
reader computes an offset by hand.

## Growing the observation

A policy file names the layout version it was made for and reads the observation's
prefix up to where that version ends.  So nothing already in the vector ever moves or
widens: what is new goes in blocks of the next version, N + 1, where N is the last
version in the table below (`LAYOUT.version`: N + 1 is {LAYOUT.version + 1} today).  Every
version's blocks come after the earlier versions' (`layout.build_layout` orders them, a
version's term blocks before its features); a version number skipped, or one of the
shipped layout's (1 to 3), is refused.

- **A new feature**: append `Block(name, shape, meaning, since=N + 1)` to
  `layout.FEATURES`; write it in `Encoder.encode` through `O[name]`
  (`ones.append(O[name] + i)` for a flag, `vi.append(O[name] + i)` and
  `vv.append(value)` for a value).  The encoder clears every block but the cached card
  rows (`Block.cached`) on every call, so a feature written only in some positions reads
  0 in the others.  Regenerate this page, and give the networks that should read it the
  block by name (guarded by `LAYOUT.in_prefix(name, n_obs)`, so networks of earlier
  versions keep their inputs).
- **A new keyword** (or gate, or sub-keyword): its `Term` in `nivel_env/cards/vocab.py`
  with `obs_version=N + 1`, its hook in `nivel_env/engine/keywords.py` and its stacking
  in `nivel_env/engine/explain.py` (`STACKING`).  The observation's columns for terms
  come from the vocabulary (`card_features.Terms`): the shipped ones
  (`card_features.SHIPPED`: the card row's keywords, keyword values and gate values; a
  lane's sub-keyword flags and value keywords) where they always were, and a term added
  since in the blocks of the version it names: `field_added_values_v<N + 1>`,
  `field_added_flags_v<N + 1>` (a lane's value and flag), and `cards_added_terms_v<N + 1>`,
  `zones_added_terms_v<N + 1>`, `known_added_terms_v<N + 1>` (the card row's keyword and
  value columns, one row per row of `cards`, `zones` and `opponent_known_hand`).  A term
  added later names a later version and gets blocks of its own, so this version's never
  widen.  A term with no columns in the shipped layout and no `obs_version` is refused
  when the layout is built, with the number to write.  Nothing to write in the encoder;
  regenerate this page and docs/cards.md.
- **A new verb**: its card-row columns go in the reserved slots of the `*_added` blocks
  ({cf.ADDED_VERB_SLOTS} per group, {cf.ADDED_VERB_SLOTS - len(cf.ADDED_VERB_NAMES)} free
  today): no layout change.  Once they are full, append blocks for the further verbs
  as a new feature (raising `card_features.ADDED_VERB_SLOTS` would change the current
  version's blocks, and the policies made for it would no longer load).
- Check: `tests/env/test_observation_layout.py` grows the vocabulary by test keywords, one
  version after another and mixed with features, and checks every earlier version's hash
  and prefix bytes stay and `nv2-ppo` plays the same reading its prefix.

Layouts and the prefixes their policies read:

| version | layout hash | values read |
|---:|---|---:|
""" + "\n".join(f"| {v} | `{h}` | {n} |" for v, (h, n) in sorted(LAYOUT.versions.items())) \
    + """

## Blocks
"""


COMPACT_INTRO = f"""
## The compact layout

`obs="compact"` on any environment (`raw_env`, `NivelArenaGymEnv`, `GameBatch`, the
self-play VecEnvs) and `train.py --obs compact` give a second layout, `layout.COMPACT`:
{L.COMPACT.size} values instead of {OBS_SIZE}.  It has every block of the full layout but
the card rows, with the same names, shapes and meanings, then the cards as **indices into
the pool's card table**: `card_index` holds, for each of the {CARD_ROWS} rows of the full
layout's `cards` block and in the same order, the number of the table row the full layout
copies that card's features from (0: no card); `known_index` does the same for
`opponent_known_hand`; `trash_index`, `damage_index` and `skill_index` list each zone's
cards in zone order (mine, then the opponent's; the latest {L.TRASH_ROWS}, {L.DAMAGE_ROWS}
and {L.SKILL_ROWS} when a zone holds more: the player blocks count them all), where the full
layout sums their rows.  Indices are whole numbers stored as float32, in
`[0, {int(L.INDEX_HIGH)}]`.

The card table comes with the environment: `env.card_table()` (also
`env.metadata["card_table"]` for frameworks that read only metadata) is a read-only float32
array, one row per card of the pool (row 0 "no card", row `1 + card.index` a card, a
leader's front face, then the leaders' back faces), its columns the full layout's card-row
columns below ({cf.WIDTH} + {cf.ADDED_WIDTH}).  A network embeds the table once per forward
and gathers rows by index (`agents.network.CompactPointerExtractor`); a compact policy file
keeps the table of the pool it was trained on and is given the table of the pool it plays
(`PolicyAgent.use_card_pool`), so it reads cards it never saw by their features as a
full-layout policy does (how well a policy plays such cards is measured in
[opponents.md](opponents.md#cards-a-policy-never-saw)).  What a player is shown is the same in both layouts -- an index
names the row the full layout would show, nothing more -- and the hidden-information check
(`python -m nivel_env check`, tests/env/test_compact_observation.py) runs on both.
"""


def feature_table_markdown() -> str:
    """docs/observation.md: every block, its offset, shape and meaning."""
    out = [DOC_INTRO, "| offset | block | shape | version | meaning |",
           "|---:|---|---|---:|---|"]
    for b in LAYOUT.blocks:
        out.append(f"| {b.offset} | `{b.name}` | {' x '.join(map(str, b.shape))} | {b.since} "
                   f"| {b.meaning} |")
    out += ["", f"Total: {OBS_SIZE} float32 values.", "",
            f"## Card rows ({cf.WIDTH} values each)", "",
            "| offset in row | column | width | meaning |", "|---:|---|---|---|"]
    for name, w, meaning in cf.COLUMNS:
        out.append(f"| {cf.OFFSET[name]} | `{name}` | {w} | {meaning} |")
    out += ["", COMPACT_INTRO.strip(), "", "| offset | block | shape | version | meaning |",
            "|---:|---|---|---:|---|"]
    for b in L.COMPACT.blocks:
        meaning = b.meaning if b.name not in LAYOUT else "as in the full layout"
        out.append(f"| {b.offset} | `{b.name}` | {' x '.join(map(str, b.shape))} | {b.since} "
                   f"| {meaning} |")
    out += ["", f"Total (compact): {L.COMPACT.size} float32 values (layout "
                f"`{L.COMPACT.hash}`)."]
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

