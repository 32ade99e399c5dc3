// The observation encoders (nivel_env/env/encoder.py: Encoder and CompactEncoder), written
// straight into a caller's float32 vector, bit for bit as the Python ones write it.
//
// Nothing here knows the card pool or the layout: both come from Python once per encoder
// (``EncSpec``, filled by nivel_env/native/encoder.py from a Python encoder's own tables),
// so the card features are computed in one place (env/card_features.py) and the offsets in
// one place (env/layout.py).  Like the Python encoder, a caller that owns the output vector
// (the batch: one per game slot) may keep a ``RowCache`` with it: the full layout's card
// rows, known-hand rows and zone sums are then written only when what they are made from
// changed since that vector's last call, and the zone sums are extended card by card
// (the same float32 additions in the same order, so the same bits), and the blocks
// written on every call are cleared only where the last call set something; without one
// every block is written.  Either way the vector is the same.  Values are computed in double and
// rounded to float32 once, as numpy does when Python floats are stored into a float32
// array.
#pragma once
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <cstring>
#include <vector>

#include "state.hpp"

namespace nv {

struct EncSpec {
  bool compact = false;
  int size = 0;                      // the vector's length
  int nvalues = 0;                   // the leading block of numbers (global, players, lanes)
  int nfv = 0, nff = 0, nkv = 0;     // field values and flags per lane, value keyword slots
  std::vector<std::pair<int, int>> cleared;  // [start, stop) runs cleared on every call
  // offsets of the blocks written by index
  int seat, first_player, my_turn, phase, decision, acting, pick_purpose, can_pass, count,
      guardian_lanes, defender_lane, must_defend, effect_mine, in_battle, attacker_mine,
      attack_lane, battle_step, breakthrough, duelist, has_defender, me_flags, opponent_flags,
      field_flags, hand_slots, candidate_slots;
  // candidate feature columns
  int ncf, cf_is_card, cf_is_lane, cf_is_effect, cf_mine, cf_in_deck, cf_lane_0, cf_power,
      cf_effect_0;
  // ability key -> observation indices of its verbs / of each step's verb
  std::vector<std::vector<int>> ab_verbs, ab_steps;
  // per lane k (6) and keyword key: flag index in the lane's field_flags or -1, added flag
  // index or -1, value slot or -1, added value index or -1; and each keyword's value / 5
  int nkw = 0;
  std::vector<int> kwinfo;           // [6][nkw][4]
  std::vector<double> kw_n5;
  // per card index (def): printed cost, power, hit; the row of its back face
  std::vector<int> cost, power, hit, back_row;
  // the card table (full rows: every column) and its tenths (zone sums)
  int nrows = 0, width = 0;
  std::vector<float> full, tenth;
  int zone_safe = 0;
  // full layout: the blocks holding the card rows of cards / zones / known, each as (block
  // offset, first column, end column) of the full row
  std::vector<std::array<int, 3>> cards_parts, zones_parts, known_parts;
  // compact layout: the index blocks
  int card_index = 0, known_index = 0;
  int zone_index[6] = {0, 0, 0, 0, 0, 0}, zone_rows[6] = {0, 0, 0, 0, 0, 0};
};

namespace enc {

constexpr int HAND_ROWS = 12, CANDIDATE_ROWS = 16, KNOWN_ROWS = 8, ITEM_ROWS = 2;
constexpr int ROW_LEADERS = 0, ROW_UNITS = 2, ROW_ITEMS = ROW_UNITS + 6,
              ROW_HAND = ROW_ITEMS + 6 * ITEM_ROWS, ROW_REFS = ROW_HAND + HAND_ROWS,
              ROW_CANDS = ROW_REFS + 3, CARD_ROWS = ROW_CANDS + CANDIDATE_ROWS;
constexpr int PLAY_TARGETS = 4;
constexpr double OBS_LOW = -10.0, OBS_HIGH = 10.0;
constexpr int SLOTS[2][6] = {{0, 1, 2, 3, 4, 5}, {3, 4, 5, 0, 1, 2}};
constexpr int ZONE_SOURCES[2][6] = {{0, 1, 2, 3, 4, 5}, {1, 0, 3, 2, 5, 4}};

inline int owner(int iid) { return iid / PER; }
inline int zone(const Game& g, int iid) { return g.where[iid] >> 2; }
inline int lane(const Game& g, int iid) { return g.where[iid] & 3; }
inline bool hidden_from(const Game& g, int p, int iid) {
  int z = zone(g, iid);
  return owner(iid) == p ? z == Z_DECK : (z == Z_DECK || z == Z_HAND);
}
inline double clip(double v) { return v > OBS_HIGH ? OBS_HIGH : v < OBS_LOW ? OBS_LOW : v; }

// A growing list that keeps its storage between calls; push_back is small enough to inline.
template <class T>
struct List {
  std::vector<T> v;
  size_t n = 0;
  void push_back(T x) {
    if (__builtin_expect(n == v.size(), 0)) grow();
    v[n++] = x;
  }
  __attribute__((noinline)) void grow() { v.resize(n ? 2 * n : 128); }
  void insert_zeros(size_t k) {
    if (n + k > v.size()) v.resize(2 * (n + k));
    std::fill(v.begin() + n, v.begin() + n + k, T());
    n += k;
  }
  void clear() { n = 0; }
  size_t size() const { return n; }
  T& operator[](size_t i) { return v[i]; }
  const T* begin() const { return v.data(); }
  const T* end() const { return v.data() + n; }
};

// One call's working lists (kept with a RowCache, so a batch's calls allocate nothing once
// warm).
struct Out {
  List<double> vals;
  List<int> ones, vi;
  List<double> vv;
  std::vector<std::pair<int, double>> xmax;  // added value index -> highest value / 5
  std::vector<float> acc;                    // a zone sum (no cache)
  int rows[CARD_ROWS];
  void clear() {
    vals.clear();
    ones.clear();
    vi.clear();
    vv.clear();
    xmax.clear();
  }
};

// What one output vector's cached blocks (Block.cached: card rows, the known hand, zone
// sums; full layout) hold, so that a call rewrites only what changed.  Valid only while
// nobody else writes into that vector; ``forget()`` when someone did (or may have).
struct RowCache {
  int rows[CARD_ROWS], krows[KNOWN_ROWS];  // the table row each slot holds; -1: unknown
  // the six piles (trash, damage, skill) x (player 0, 1): the rows summed so far, in
  // order, and their float32 sum; a version per change, unique within this cache
  std::vector<int> zrows[6];
  std::vector<float> zsum;                 // 6 x width
  Out out;                                 // the working lists of the calls through it
  // the indices past the leading values that the last call set in the blocks cleared on
  // every call (flags, candidate slots, counts): the only ones there that are not zero
  std::vector<int> set;
  bool set_known = false;
  uint64_t zver[6] = {0, 0, 0, 0, 0, 0}, counter = 0;
  uint64_t written[6] = {0, 0, 0, 0, 0, 0};  // per zone block: the version it holds; 0: unknown
  RowCache() { forget(); }
  void forget() {
    for (int& r : rows) r = -1;
    for (int& r : krows) r = -1;
    for (auto& z : zrows) z.clear();
    std::fill(zsum.begin(), zsum.end(), 0.0f);
    for (int k = 0; k < 6; ++k) {
      zver[k] = ++counter;  // an empty pile, summed to zeros
      written[k] = 0;
    }
    set.clear();
    set_known = false;
  }
};

inline int rowof(const Game& g, int iid) { return g.defs[iid] + 1; }

inline int visible_row(const EncSpec& S, const Game& g, int p, int iid) {
  if (hidden_from(g, p, iid)) return 0;
  int o = owner(iid);
  if (iid == o * PER && g.awake[o]) return S.back_row[g.defs[iid]];
  return rowof(g, iid);
}

inline int chooser_row(const EncSpec& S, const Game& g, int iid) {
  int o = owner(iid);
  if (iid == o * PER && g.awake[o]) return S.back_row[g.defs[iid]];
  return rowof(g, iid);
}

// The candidate slots; returns how many candidates ``p`` may know of (Encoder._candidates).
inline int candidates(const EncSpec& S, const Game& g, int p, Out& out) {
  const Dec& d = g.dec;
  const std::vector<int>& cands = d.cands;
  bool order = d.a == P_ORDER, chooser = d.player == p;
  const std::vector<Entry>* entries = nullptr;
  if (order && !g.stack.empty() && g.stack.back().kind == T_BATCH) entries = &g.stack.back().ent;
  size_t n_entries = entries ? entries->size() : 0;
  int i = 0;
  for (int v : cands) {
    if (i >= CANDIDATE_ROWS) break;
    if (!order && v >= 0 && !chooser && hidden_from(g, p, v)) continue;
    int base = S.candidate_slots + i * S.ncf;
    ++i;
    out.ones.push_back(base);
    if (order) {
      out.ones.push_back(base + S.cf_is_effect);
      if (v >= 0 && (size_t)v < n_entries) {
        const Entry& e = (*entries)[v];
        out.ones.push_back(base + S.cf_effect_0 + e.kind);
        v = e.iid;
      } else {
        continue;
      }
    } else if (v < 0) {
      out.ones.push_back(base + S.cf_is_lane);
      out.ones.push_back(base + S.cf_lane_0 - 1 - v);
      continue;
    } else {
      out.ones.push_back(base + S.cf_is_card);
    }
    int z = zone(g, v), ln = lane(g, v), ow = owner(v);
    if (ow == p) out.ones.push_back(base + S.cf_mine);
    out.ones.push_back(base + S.cf_in_deck + z);
    if (ln < 3) {
      out.ones.push_back(base + S.cf_lane_0 + ln);
      if (z == Z_UNIT) {
        out.vi.push_back(base + S.cf_power);
        out.vv.push_back(g.pw[ow * 3 + ln] / 10.0);
      }
    }
    out.rows[ROW_CANDS + i - 1] = (!chooser || order) ? visible_row(S, g, p, v)
                                                      : chooser_row(S, g, v);
  }
  if (order || chooser || d.a == P_CARD_ORDER) return (int)cands.size();
  if (cands.size() <= (size_t)CANDIDATE_ROWS) return i;
  int more = 0;
  for (size_t k = CANDIDATE_ROWS; k < cands.size(); ++k) {
    int v = cands[k];
    if (v < 0 || !hidden_from(g, p, v)) ++more;
  }
  return i + more;
}

inline int ab_index(const std::vector<std::vector<int>>& t, int key) {
  // Python indexes a tuple: a negative key counts from the end
  return key < 0 ? (int)t.size() + key : key;
}

// Asks the memory system for the parts of ``buf`` that the next call through ``c`` writes
// for sure (the leading values, where the last call set flags), for writing: called before
// the engine's move, the fetch from a far cache overlaps with the move's work.
inline void prefetch(const EncSpec& S, float* buf, const RowCache& c) {
  for (int k = 0; k < S.nvalues; k += 16) __builtin_prefetch(buf + k, 1);
  if (c.set_known)
    for (int x : c.set) __builtin_prefetch(buf + x, 1);
}

// A card table row's tenths added to a zone sum, in float32, as numpy's += does.
inline void add_row(const EncSpec& S, float* acc, int row) {
  const float* t = &S.tenth[(size_t)row * S.width];
  for (int c = 0; c < S.width; ++c) acc[c] += t[c];
}

// Zone block ``z`` (observer-relative) written from a sum of ``count`` cards.
inline void put_zone(const EncSpec& S, float* buf, int z, const float* acc, size_t count) {
  bool clipped = (int)count > S.zone_safe;  // only extreme custom pools
  for (auto& pt : S.zones_parts) {
    int w = pt[2] - pt[1];
    float* dst = buf + pt[0] + (size_t)z * w;
    if (!clipped) {
      std::memcpy(dst, acc + pt[1], sizeof(float) * w);
    } else {
      for (int c = 0; c < w; ++c) {
        float x = acc[pt[1] + c];
        dst[c] = x > 10.0f ? 10.0f : x < -10.0f ? -10.0f : x;
      }
    }
  }
}

// The full layout's cached blocks through ``cache``: a card or known-hand slot is copied
// only when its row changed; a pile's sum is extended when cards were only added at its
// end (most changes) and rebuilt otherwise, and a zone block is copied when its sum
// changed or it holds another pile's (the observer changed).
inline void write_full_cached(const EncSpec& S, const Game& g, int p, const int* rows,
                              const int* krows, const Pile* const* lists, float* buf,
                              RowCache& c) {
  auto put_row = [&](const std::vector<std::array<int, 3>>& parts, int slot, int row) {
    const float* src = &S.full[(size_t)std::min(std::max(row, 0), S.nrows - 1) * S.width];
    for (auto& pt : parts) {
      int w = pt[2] - pt[1];
      std::memcpy(buf + pt[0] + (size_t)slot * w, src + pt[1], sizeof(float) * w);
    }
  };
  for (int r = 0; r < CARD_ROWS; ++r)
    if (c.rows[r] != rows[r]) {
      put_row(S.cards_parts, r, rows[r]);
      c.rows[r] = rows[r];
    }
  for (int r = 0; r < KNOWN_ROWS; ++r)
    if (c.krows[r] != krows[r]) {
      put_row(S.known_parts, r, krows[r]);
      c.krows[r] = krows[r];
    }
  if (c.zsum.size() != (size_t)6 * S.width) {
    c.zsum.assign((size_t)6 * S.width, 0.0f);
    for (auto& z : c.zrows) z.clear();
    for (int k = 0; k < 6; ++k) c.zver[k] = ++c.counter;
  }
  for (int kq = 0; kq < 6; ++kq) {
    const Pile& lst = *lists[kq];
    std::vector<int>& old = c.zrows[kq];
    size_t n = old.size(), m = (size_t)lst.size(), same = 0;
    while (same < n && same < m && old[same] == rowof(g, lst[(int)same])) ++same;
    if (same == n && n == m) continue;
    float* acc = &c.zsum[(size_t)kq * S.width];
    if (same < n) {  // a card left or changed: sum again from the first card
      std::fill(acc, acc + S.width, 0.0f);
      old.clear();
      same = 0;
    }
    for (size_t i = same; i < m; ++i) {
      int row = rowof(g, lst[(int)i]);
      add_row(S, acc, row);
      old.push_back(row);
    }
    c.zver[kq] = ++c.counter;
  }
  for (int z = 0; z < 6; ++z) {
    int kq = ZONE_SOURCES[p][z];
    if (c.written[z] == c.zver[kq]) continue;
    put_zone(S, buf, z, &c.zsum[(size_t)kq * S.width], c.zrows[kq].size());
    c.written[z] = c.zver[kq];
  }
}

// Writes observer ``p``'s observation of ``g`` into ``buf`` (S.size float32 values).
// ``legal``: the legal actions when ``p`` acts (marks playable hand slots), else null.
// ``g``'s derived stats must be fresh (ensure).
// ``cache``: what ``buf`` holds from this encoder's earlier calls (null: nothing known,
// every block is written).
inline void encode(const EncSpec& S, const Game& g, int p, const std::vector<int>* legal,
                   float* buf, RowCache* cache = nullptr) {
  // the blocks written on every call start from zeros: cleared whole, or (with a cache)
  // only where the last call set something, the rest being zeros still
  if (cache && cache->set_known) {
    for (int x : cache->set) buf[x] = 0.0f;
  } else {
    for (auto& r : S.cleared) std::memset(buf + r.first, 0, sizeof(float) * (r.second - r.first));
  }
  Out local;
  Out& out = cache ? cache->out : local;
  out.clear();
  for (int& r : out.rows) r = 0;
  auto& vals = out.vals;
  auto& ones = out.ones;
  int o = 1 - p;
  // ------------------------------------------------------------------ global
  vals.push_back((double)g.turn / g.cfg.max_turns);
  vals.push_back(std::min(g.turn, 30) / 30.0);
  vals.push_back(g.attacked.size() / 5.0);
  vals.push_back(0.0);
  bool big = g.attacked.size() > 50;
  if (p) ones.push_back(S.seat);
  if (g.first == p) ones.push_back(S.first_player);
  if (g.tp == p) ones.push_back(S.my_turn);
  ones.push_back(S.phase + g.phase);
  bool has_dec = !g.has_result;
  const Dec& d = g.dec;
  if (has_dec) {
    int kind = d.kind;
    ones.push_back(S.decision + kind);
    if (d.player == p) ones.push_back(S.acting);
    int key = -1, src = -1;
    if (kind == D_PICK) {
      ones.push_back(S.pick_purpose + d.a);
      if (d.b && d.player == p) ones.push_back(S.can_pass);
      key = d.c;
      src = d.d;
      int step = -1;
      if (!g.stack.empty() && g.stack.back().kind == T_FRAME) {
        const Task& f = g.stack.back();
        if (d.c >= 0 && f.x[2] == d.c && f.x[3] >= 0) step = f.x[3];
      }
      if (key >= 0 && step >= 0) ones.push_back(S.ab_steps[key][step]);
      vals[3] = candidates(S, g, p, out) / (double)CANDIDATE_ROWS;
    } else if (kind == D_YESNO) {
      key = d.a;
      src = d.b;
      if (d.c >= 0) ones.push_back(S.ab_steps[ab_index(S.ab_steps, key)][d.c]);
      if (d.n == 7 && d.e >= 0) {  // choosing a number (4.4.4)
        out.vi.push_back(S.count);
        out.vi.push_back(S.count + 1);
        out.vv.push_back(d.d / 10.0);
        out.vv.push_back(d.e / 10.0);
      }
    } else if (kind == D_GUARDIAN) {
      for (int ln : d.cands) ones.push_back(S.guardian_lanes + ln);
    } else if (kind == D_DEFENSE) {
      ones.push_back(S.defender_lane + d.a);
      if (d.b) ones.push_back(S.must_defend);
    }
    if (key >= 0)
      for (int x : S.ab_verbs[key]) ones.push_back(x);
    if (src >= 0) {
      if (owner(src) == p) ones.push_back(S.effect_mine);
      out.rows[ROW_REFS + 2] = visible_row(S, g, p, src);
    }
  }
  const Battle& b = g.battle;
  if (b.has) {
    ones.push_back(S.in_battle);
    if (owner(b.atk) == p) ones.push_back(S.attacker_mine);
    ones.push_back(S.attack_lane + b.lane);
    ones.push_back(S.battle_step + b.step);
    if (!b.brk.empty()) ones.push_back(S.breakthrough);
    if (b.duel) ones.push_back(S.duelist);
    out.rows[ROW_REFS] = rowof(g, b.atk);
    if (b.def >= 0) {
      ones.push_back(S.has_defender);
      out.rows[ROW_REFS + 1] = rowof(g, b.def);
    }
  }
  // ------------------------------------------------------------------ players
  for (int side = 0; side < 2; ++side) {
    int q = side ? o : p, flags = side ? S.opponent_flags : S.me_flags;
    int cost = 0, units = 0;
    for (int s = q * 3; s < q * 3 + 3; ++s) {  // 6.4.1.1.2: field cost
      if (g.unit[s] >= 0) {
        ++units;
        cost += g.uc[s];  // as effects change it (R28)
        for (int it : g.items[s]) cost += S.cost[g.defs[it]];
      }
    }
    for (int it : g.skill[q]) cost += S.cost[g.defs[it]];
    int size = g.size[q];
    if (size > 100 || cost > 100 || cost - size > 100) big = true;
    vals.push_back(g.level[q] / 10.0);
    vals.push_back(size / 10.0);
    vals.push_back(cost / 10.0);
    vals.push_back((size - cost) / 10.0);
    vals.push_back(g.damage[q].size() / 10.0);
    vals.push_back(g.deck[q].size() / 40.0);
    vals.push_back(g.hand[q].size() / 10.0);
    vals.push_back(g.trash[q].size() / 40.0);
    vals.push_back(g.skill[q].size() / 10.0);
    vals.push_back(units / 3.0);
    if (g.awake[q]) ones.push_back(flags);
    if (g.mulled[q]) ones.push_back(flags + 1);
    for (int ln = 0; ln < 3; ++ln)
      if (g.placed[q] >> ln & 1) ones.push_back(flags + 2 + ln);
    int leader = q * PER;
    out.rows[ROW_LEADERS + (q != p)] = g.awake[q] ? S.back_row[g.defs[leader]] : rowof(g, leader);
  }
  // ------------------------------------------------------------------ field
  auto& xmax = out.xmax;
  for (int k = 0; k < 6; ++k) {
    int s = SLOTS[p][k];
    int u = g.unit[s];
    if (u < 0) {
      vals.insert_zeros(S.nfv);
      continue;
    }
    const Pile& its = g.items[s];
    out.rows[ROW_UNITS + k] = rowof(g, u);
    if (!its.empty()) {
      int ri = ROW_ITEMS + k * ITEM_ROWS;
      out.rows[ri] = rowof(g, its[0]);
      if (its.size() > 1) out.rows[ri + 1] = rowof(g, its[1]);
    }
    int def = g.defs[u];
    int base = S.field_flags + k * S.nff;
    ones.push_back(base);
    int cant = g.cant[s];
    if (cant & PROHIBIT_ATTACK) ones.push_back(base + 1);
    if (cant & PROHIBIT_DEFEND) ones.push_back(base + 2);
    if (g.pw[s] > 100 || g.ht[s] > 50 || g.na[s] > 20 || its.size() > 30) big = true;
    int made = 0;
    for (const Pair& a : g.attacked)
      if (a.iid == u) ++made;
    vals.push_back(g.pw[s] / 10.0);
    vals.push_back(g.ht[s] / 5.0);
    vals.push_back((g.pw[s] - S.power[def]) / 10.0);
    vals.push_back((g.ht[s] - S.hit[def]) / 5.0);
    vals.push_back(g.na[s] / 2.0);
    vals.push_back(made / 2.0);
    vals.push_back(its.size() / 3.0);
    size_t top = vals.size();
    vals.insert_zeros(S.nkv);  // value keyword slots, raised below
    for (int kw : g.kws[s]) {
      const int* info = &S.kwinfo[((size_t)k * S.nkw + kw) * 4];
      double n5 = S.kw_n5[kw];
      if (info[0] >= 0) ones.push_back(base + info[0]);
      else if (info[1] >= 0) ones.push_back(info[1]);
      if (info[2] >= 0) {
        if (n5 > vals[top + info[2]]) vals[top + info[2]] = n5;
      } else if (info[3] >= 0) {
        bool found = false;
        for (auto& e : xmax)
          if (e.first == info[3]) {
            found = true;
            if (n5 > e.second) e.second = n5;
          }
        if (!found && n5 > 0.0) xmax.emplace_back(info[3], n5);
      }
    }
  }
  for (auto& e : xmax) {
    out.vi.push_back(e.first);
    out.vv.push_back(e.second);
  }
  // ------------------------------------------------------------------ hand
  const Pile& hand = g.hand[p];
  int nh = std::min((int)hand.size(), HAND_ROWS);
  for (int h = 0; h < nh; ++h) out.rows[ROW_HAND + h] = rowof(g, hand[h]);
  if (legal && !legal->empty() && has_dec && d.kind == D_MAIN && d.player == p) {
    int hi = A_PLAY + HAND_ROWS * PLAY_TARGETS;
    for (int a : *legal)
      if (A_PLAY <= a && a < hi) ones.push_back(S.hand_slots + a - A_PLAY);
  }
  // ------------------------------------------------------------------ card rows
  const Pile& known = g.known[o];
  int krows[KNOWN_ROWS] = {0, 0, 0, 0, 0, 0, 0, 0};
  {
    size_t n = known.size(), first = n > KNOWN_ROWS ? n - KNOWN_ROWS : 0;
    for (size_t i = first; i < n; ++i) krows[i - first] = rowof(g, known[i]);
  }
  const Pile* lists[6] = {&g.trash[0], &g.trash[1], &g.damage[0],
                                      &g.damage[1], &g.skill[0], &g.skill[1]};
  if (S.compact) {
    for (int r = 0; r < CARD_ROWS; ++r) buf[S.card_index + r] = (float)out.rows[r];
    for (int r = 0; r < KNOWN_ROWS; ++r) buf[S.known_index + r] = (float)krows[r];
    for (int z = 0; z < 6; ++z) {
      const Pile& lst = *lists[ZONE_SOURCES[p][z]];
      int n = S.zone_rows[z];
      float* dst = buf + S.zone_index[z];
      size_t first = lst.size() > (size_t)n ? lst.size() - n : 0;
      int w = 0;
      for (size_t i = first; i < lst.size(); ++i) dst[w++] = (float)rowof(g, lst[i]);
      for (; w < n; ++w) dst[w] = 0.0f;
    }
  } else if (cache) {
    write_full_cached(S, g, p, out.rows, krows, lists, buf, *cache);
  } else {
    auto put_row = [&](const std::vector<std::array<int, 3>>& parts, int slot, int row) {
      const float* src = &S.full[(size_t)std::min(std::max(row, 0), S.nrows - 1) * S.width];
      for (auto& pt : parts) {
        int w = pt[2] - pt[1];
        std::memcpy(buf + pt[0] + (size_t)slot * w, src + pt[1], sizeof(float) * w);
      }
    };
    for (int r = 0; r < CARD_ROWS; ++r) put_row(S.cards_parts, r, out.rows[r]);
    for (int r = 0; r < KNOWN_ROWS; ++r) put_row(S.known_parts, r, krows[r]);
    // zone sums: rows added one at a time in zone order, in float32, as numpy's += does
    std::vector<float>& acc = out.acc;
    acc.resize(S.width);
    for (int z = 0; z < 6; ++z) {
      const Pile& lst = *lists[ZONE_SOURCES[p][z]];
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int iid : lst) add_row(S, acc.data(), rowof(g, iid));
      put_zone(S, buf, z, acc.data(), lst.size());
    }
  }
  // ------------------------------------------------------------------ write
  if ((int)vals.size() != S.nvalues)
    throw std::runtime_error("the layout's leading values block has " +
                             std::to_string(S.nvalues) + " values, the game gave " +
                             std::to_string(vals.size()));
  for (int i = 0; i < S.nvalues; ++i)
    buf[i] = (float)(big ? clip(vals[i]) : vals[i]);
  for (int x : ones) buf[x] = 1.0f;
  for (size_t i = 0; i < out.vi.size(); ++i) buf[out.vi[i]] = (float)clip(out.vv[i]);
  if (cache) {
    cache->set.assign(ones.begin(), ones.end());
    cache->set.insert(cache->set.end(), out.vi.begin(), out.vi.end());
    cache->set_known = true;
  }
}

}  // namespace enc
}  // namespace nv
