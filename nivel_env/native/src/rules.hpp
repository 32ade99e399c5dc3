// The rules, function for function as the Python engine has them (nivel_env/engine/):
// each section names the module it mirrors, each function its Python twin, and the rule
// numbers are the ones cited there.  The Python engine is the reference; the differential
// check (nivel_env/checks/differential.py) proves the two equal, state and events, at
// every decision.
#pragma once
#include <algorithm>

#include "state.hpp"

namespace nv {

using IV = std::vector<int>;

struct EngineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

static inline void ev(Game& g, int kind, int a = 0, int b = 0, int c = 0, int d = 0, int e = 0,
                      int f = 0) {
  g.log.push_back(Ev{kind, {a, b, c, d, e, f}});
}

template <class V>
static inline bool contains(const V& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
static inline void remove_first(Pile& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it == v.end()) throw EngineError("list.remove(x): x not in list");
  v.erase_at((int)(it - v.begin()));
}
static inline int owner(int iid) { return iid / PER; }
static inline int zone_of(const Game& g, int iid) { return g.where[iid] >> 2; }

// ================================================================== rng.py
static inline uint64_t next_u64(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ULL;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
template <class V>
static inline void shuffle(uint64_t& s, V& v) {
  for (int i = (int)v.size() - 1; i > 0; --i) {
    uint64_t r = next_u64(s);
    int j = (int)(r % (uint64_t)(i + 1));
    std::swap(v[i], v[j]);
  }
}

// forward declarations (the Python modules import each other lazily)
static void ensure(Game& g);
static void trash_from_field(Game& g, int iid, bool by_effect, bool by_battle = false,
                             int other = -1, bool upgrade = false, bool pays = false);
struct Hits {  // damage to deal: (player, amount), at most one a player
  int n = 0;
  std::pair<int, int> v[2];
  Hits() = default;
  Hits(int p, int amount) : n(1) { v[0] = {p, amount}; }
  void push_back(std::pair<int, int> h) { v[n++] = h; }
  int size() const { return n; }
  const std::pair<int, int>& operator[](int i) const { return v[i]; }
  const std::pair<int, int>* begin() const { return v; }
  const std::pair<int, int>* end() const { return v + n; }
};
static void damage_occurs(Game& g, const Hits& hits);
static void push_frame(Game& g, int p, int self, const Ability& ab);
static void declare_attack(Game& g, int lane, bool by_effect);
static bool can_attack(Game& g, int lane);
static int draw(Game& g, int p, int n);
static void run(Game& g);
static void finish(Game& g);

const IV& leader_face_abilities(const Game& g, int p) {
  const Card& c = g.card(p * PER);
  return (g.awake[p] && c.has_back) ? c.back_abilities : c.abilities;
}

// leader_face_abilities filtered by timing
static inline const IV& leader_abilities(const Game& g, int p, int timing) {
  const Card& c = g.card(p * PER);
  return c.by_when[(g.awake[p] && c.has_back) ? 1 : 0][timing];
}

// ================================================================ filters.py / match.py
static bool printed_part(const Card& c, const Filter& f, bool skip_cost) {
  if (f.types && !(f.types >> c.type & 1)) return false;
  if (f.has_attrs && (c.attr < 0 || !(f.attrs >> c.attr & 1))) return false;
  if (!f.affil.empty()) {
    bool any = false;
    for (int a : f.affil)
      if (contains(c.affil, a)) { any = true; break; }
    if (!any) return false;
  }
  if (!skip_cost) {
    if (f.cost_min != NONE && c.cost < f.cost_min) return false;
    if (f.cost_max != NONE && c.cost > f.cost_max) return false;
  }
  if (f.has_trigger >= 0 && (c.trigger >= 0) != (f.has_trigger == 1)) return false;
  return true;
}

static bool state_part(const Filter& f, bool is_unit, int pw, int ht, bool has_kw,
                       bool has_item) {
  if ((f.power_min != NONE || f.power_max != NONE || f.hit_min != NONE ||
       f.hit_max != NONE) && !is_unit)
    return false;
  if (f.power_min != NONE && pw < f.power_min) return false;
  if (f.power_max != NONE && pw > f.power_max) return false;
  if (f.hit_min != NONE && ht < f.hit_min) return false;
  if (f.hit_max != NONE && ht > f.hit_max) return false;
  if (f.keyword >= 0 && !has_kw) return false;
  if (f.has_item >= 0 && has_item != (f.has_item == 1)) return false;
  return true;
}

// printed_part with the ids test (the card's pool index)
static bool printed(const Card& c, int index, const Filter& f, bool skip_cost) {
  if (!printed_part(c, f, skip_cost)) return false;
  if (f.has_ids && !contains(f.ids, index)) return false;
  return true;
}

static bool card_matches_static(const Game& g, int iid, const Filter& f) {
  const Card& c = g.card(iid);
  if (!printed(c, g.defs[iid], f, false)) return false;
  bool has_kw = f.keyword >= 0 && contains(c.names, f.keyword);
  return state_part(f, c.type == TY_UNIT, c.power, c.hit, has_kw, false);
}

// match.matches: units in play by their current stats (read as they are: no refresh)
static bool matches(const Game& g, int iid, const Filter& f) {
  if (f.empty) return true;
  const Card& c = g.card(iid);
  int w = g.where[iid];
  if ((w >> 2) != Z_UNIT) return card_matches_static(g, iid, f);
  int slot = owner(iid) * 3 + (w & 3);
  if (f.cost_min != NONE || f.cost_max != NONE) {
    int cost = g.uc[slot];
    if ((f.cost_min != NONE && cost < f.cost_min) || (f.cost_max != NONE && cost > f.cost_max))
      return false;
  }
  if (!printed(c, g.defs[iid], f, true)) return false;
  bool has_kw = false;
  if (f.keyword >= 0) {
    has_kw = contains(c.names, f.keyword);
    if (!has_kw)
      for (int k : g.kws[slot])
        if (g.P().keywords[k].name == f.keyword) { has_kw = true; break; }
  }
  return state_part(f, true, g.pw[slot], g.ht[slot], has_kw, !g.items[slot].empty());
}

static inline bool matches_f(const Game& g, int iid, int filter) {
  return matches(g, iid, g.P().filter(filter));
}

static int unit_slot(const Game& g, int iid) {
  int w = g.where[iid];
  return (w >> 2) == Z_UNIT ? owner(iid) * 3 + (w & 3) : -1;
}

static int ref_card(const Game& g, int p, int self, int ref) {
  (void)p;
  if (ref == R_SELF) return self;
  if (ref == R_EQUIPPED) {
    int w = g.where[self];
    if ((w >> 2) == Z_ITEM) return g.unit[owner(self) * 3 + (w & 3)];
    return (w >> 2) == Z_UNIT ? self : -1;
  }
  const Battle& b = g.battle;
  if (ref == R_ENCOUNTER) {  // 3.5.4.2
    int s = unit_slot(g, self);
    return s >= 0 ? g.unit[(3 - s / 3 * 3) + s % 3] : -1;
  }
  if (!b.has) return -1;
  if (ref == R_ATTACKER) return b.atk;
  if (ref == R_DEFENDER) return b.def;
  if (ref == R_BATTLE_OPPONENT) {
    if (self == b.atk) return b.def;
    if (self == b.def) return b.atk;
    return -1;
  }
  throw EngineError("unknown reference");
}

static int players_of(int p, int who, int out[2]) {
  if (who == WHO_YOU) { out[0] = p; return 1; }
  if (who == WHO_OPPONENT) { out[0] = 1 - p; return 1; }
  out[0] = p; out[1] = 1 - p;
  return 2;
}

static const Pile& pile(const Game& g, int szone, int q) {
  switch (szone) {
    case SZ_HAND: return g.hand[q];
    case SZ_TRASH: return g.trash[q];
    case SZ_DECK: return g.deck[q];
    case SZ_DAMAGE: return g.damage[q];
    default: return g.skill[q];
  }
}

using Sel = SVec<N_IID>;  // the cards a selector names (at most every card in the game)

static Sel select(const Game& g, int p, int self, int sel_i) {
  const Selector& sel = g.P().selectors[sel_i];
  Sel out;
  if (sel.ref >= 0) {
    int iid = ref_card(g, p, self, sel.ref);
    if (iid < 0) return out;
    int z = g.where[iid] >> 2;
    if (sel.ref != R_SELF && z != Z_UNIT) return out;  // a reference to a unit: while in play
    out.push_back(iid);
    return out;
  }
  int qs[2];
  int nq = players_of(p, sel.who, qs);
  const Filter& f = g.P().filter(sel.filter);
  if (sel.zone == SZ_UNIT || sel.zone == SZ_ITEM) {
    int my_slot = unit_slot(g, self);
    if (my_slot < 0 && (g.where[self] >> 2) == Z_ITEM)
      my_slot = owner(self) * 3 + (g.where[self] & 3);
    int my_lane = my_slot >= 0 ? my_slot % 3 : -1;
    for (int qi = 0; qi < nq; ++qi) {
      int q = qs[qi];
      for (int lane = 0; lane < 3; ++lane) {
        if (sel.lanes != L_ANY && my_lane >= 0) {
          if (sel.lanes == L_SAME && lane != my_lane) continue;
          if (sel.lanes == L_ADJACENT && std::abs(lane - my_lane) != 1) continue;
          if (sel.lanes == L_OTHER && lane == my_lane) continue;
        } else if (sel.lanes != L_ANY) {
          continue;
        }
        int s = q * 3 + lane;
        if (sel.zone == SZ_UNIT) {
          int iid = g.unit[s];
          if (iid >= 0 && !(sel.other && iid == self) && matches(g, iid, f)) out.push_back(iid);
        } else {
          for (int i : g.items[s])
            if (!(sel.other && i == self) && matches(g, i, f)) out.push_back(i);
        }
      }
    }
    return out;
  }
  for (int qi = 0; qi < nq; ++qi)
    for (int i : pile(g, sel.zone, qs[qi]))
      if (!(sel.other && i == self) && matches(g, i, f)) out.push_back(i);
  return out;
}

static int value(const Game& g, int p, int self, int vi) {
  const Value& v = g.P().values[vi];
  if (v.count >= 0) return (int)select(g, p, self, v.count).size() * v.times;
  if (v.stat >= 0) {
    int q = v.who == WHO_YOU ? p : 1 - p;
    int base = v.stat == ST_LEVEL ? g.level[q]
               : v.stat == ST_DAMAGE ? (int)g.damage[q].size() : (int)g.hand[q].size();
    return base * v.times;
  }
  return v.n;
}

static int field_attributes(const Game& g, int p) {  // a bit per attribute
  int attrs = 0;
  auto add = [&](int iid) { int a = g.card(iid).attr; if (a >= 0) attrs |= 1 << a; };
  for (int lane = 0; lane < 3; ++lane) {
    int s = p * 3 + lane;
    if (g.unit[s] >= 0) add(g.unit[s]);
    for (int i : g.items[s]) add(i);
  }
  for (int i : g.skill[p]) add(i);
  return attrs;
}

static bool condition(const Game& g, int p, int self, int ci) {
  const Condition& c = g.P().conditions[ci];
  switch (c.kind) {
    case C_ARMED: {  // 10.1.8.2 / 10.1.8.3
      int s = unit_slot(g, self);
      if (s < 0) return false;
      if (c.text < 0) return !g.items[s].empty();
      for (int i : g.items[s])
        if (contains(g.card(i).affil, c.text)) return true;
      return false;
    }
    case C_FRONTLINE:  // 10.1.9.2
      return g.unit[p * 3] >= 0 && g.unit[p * 3 + 1] >= 0 && g.unit[p * 3 + 2] >= 0;
    case C_LEVEL_LINK:
    case C_LEVEL_AT_LEAST: return g.level[p] >= c.n;  // 10.1.10.2
    case C_MIX: return __builtin_popcount(field_attributes(g, p)) >= 2;  // 10.1.12.2
    case C_CHAIN: return g.tp == p && (int)g.attacked.size() >= c.n;   // 10.1.14.2
    case C_BUFF: return (int)g.skill[p].size() >= c.n;                 // 10.1.15.2
    case C_OPP_LEVEL_AT_LEAST: return g.level[1 - p] >= c.n;
    case C_DAMAGE_AT_LEAST: return (int)g.damage[p].size() >= c.n;
    case C_OPP_DAMAGE_AT_LEAST: return (int)g.damage[1 - p].size() >= c.n;
    case C_HAND_AT_LEAST: return (int)g.hand[p].size() >= c.n;
    case C_HAND_AT_MOST: return (int)g.hand[p].size() <= c.n;
    case C_COUNT_AT_LEAST: return (int)select(g, p, self, c.sel).size() >= c.n;
    case C_COUNT_AT_MOST: return (int)select(g, p, self, c.sel).size() <= c.n;
  }
  throw EngineError("unknown condition");
}

static bool gates_ok(const Game& g, int p, int self, const IV& gates) {
  for (int c : gates)
    if (!condition(g, p, self, c)) return false;
  return true;
}

// ================================================================== stats.py
static int scaled(int v, int percent) {  // 1.3.7.2: rounded half up; negative is 0 first
  if (v <= 0) return 0;
  long long r = 2LL * v * percent + 100;
  long long q = r / 200;
  if ((r % 200 != 0) && (r < 0)) --q;  // Python's floor division
  return (int)q;
}

static void passive(Game& g, int p, int self, const Action& act, int size[2]);

// the passive abilities refresh applies, on the stack (refresh runs at every change; a
// field with over 64 of them spills to the heap)
struct Static { int p, self, ab; };
struct Statics {
  int n = 0;
  Static v[64];
  std::vector<Static> more;
  void push_back(Static x) {
    if (n < 64) v[n++] = x;
    else more.push_back(x);
  }
  template <class F>
  void each(F fn) const {
    for (int i = 0; i < n; ++i) fn(v[i]);
    for (const Static& x : more) fn(x);
  }
};

static void refresh(Game& g) {
  g.dirty = false;
  const Program& P = g.P();
  int pw[6] = {0}, ht[6] = {0}, na[6] = {0}, cant[6] = {0}, uc[6] = {0};
  SVec<64> kws[6];
  int size[2] = {g.level[0] + (int)g.damage[0].size(), g.level[1] + (int)g.damage[1].size()};
  Statics statics;
  for (int s = 0; s < 6; ++s) {
    int iid = g.unit[s];
    if (iid < 0) continue;
    const Card& c = g.card(iid);
    pw[s] = c.power; ht[s] = c.hit; na[s] = 1; uc[s] = c.cost;
    int p = s / 3;
    for (int k : c.subkw) {
      const Keyword& K = P.keywords[k];
      if (K.gates.empty() || gates_ok(g, p, iid, K.gates)) kws[s].push_back(k);
    }
    for (int a : c.passives) statics.push_back({p, iid, a});
    for (int it : g.items[s]) {  // 8.6.1
      const Card& ic = g.card(it);
      for (int k : ic.subkw) {
        const Keyword& K = P.keywords[k];
        if (K.gates.empty() || gates_ok(g, p, iid, K.gates)) kws[s].push_back(k);
      }
      for (int a : ic.passives) statics.push_back({p, iid, a});
    }
  }
  for (int p = 0; p < 2; ++p)  // 10.1.3.2
    for (int a : leader_abilities(g, p, W_PASSIVE)) statics.push_back({p, p * PER, a});
  if (!g.mods.empty()) {  // stats._apply_mods
    for (const Mod& md : g.mods) {
      if (md.kind == M_SIZE) { size[md.target] += md.amount; continue; }
      int s = unit_slot(g, md.target);
      if (s < 0) continue;
      switch (md.kind) {
        case M_POWER: pw[s] += md.amount; break;
        case M_HIT: ht[s] += md.amount; break;
        case M_ATTACKS: na[s] += md.amount; break;
        case M_GRANT: {
          const Keyword& K = P.keywords[md.amount];
          if (K.gates.empty() || gates_ok(g, s / 3, md.target, K.gates)) kws[s].push_back(md.amount);
          break;
        }
        case M_PROHIBIT: cant[s] |= md.amount; break;
        case M_SCALE_POWER: pw[s] = scaled(pw[s], md.amount); break;  // 1.3.7.2
        case M_SCALE_HIT: ht[s] = scaled(ht[s], md.amount); break;
        case M_COST: uc[s] += md.amount; break;
      }
    }
  }
  // published now, so that conditions inside passives see printed values + modifiers
  for (int s = 0; s < 6; ++s) {
    g.pw[s] = pw[s]; g.ht[s] = ht[s]; g.na[s] = na[s]; g.cant[s] = cant[s]; g.uc[s] = uc[s];
    g.kws[s].assign(kws[s]);
  }
  statics.each([&](const Static& st) {
    const Ability& a = P.abilities[st.ab];
    if (!a.gates.empty() && !gates_ok(g, st.p, st.self, a.gates)) return;
    if (a.condition >= 0 && !condition(g, st.p, st.self, a.condition)) return;
    for (int ai : a.actions) {
      const Action& act = P.actions[ai];
      if (act.condition >= 0 && !condition(g, st.p, st.self, act.condition)) continue;
      passive(g, st.p, st.self, act, size);
    }
  });
  for (int s = 0; s < 6; ++s) {  // 1.3.7.1
    if (g.pw[s] < 0) g.pw[s] = 0;
    if (g.ht[s] < 0) g.ht[s] = 0;
    if (g.na[s] < 0) g.na[s] = 0;
    if (g.uc[s] < 0) g.uc[s] = 0;
  }
  g.size[0] = std::max(0, size[0]);
  g.size[1] = std::max(0, size[1]);
}

static void ensure(Game& g) {
  if (g.dirty) refresh(g);
}

static int unit_cost(Game& g, int iid) {
  int w = g.where[iid];
  if ((w >> 2) != Z_UNIT) return g.card(iid).cost;
  ensure(g);
  return g.uc[owner(iid) * 3 + (w & 3)];
}

static int keyword_value(const Game& g, int slot, int term) {
  int best = 0;
  for (int k : g.kws[slot]) {
    const Keyword& K = g.P().keywords[k];
    if (K.term == term && K.n > best) best = K.n;
  }
  return best;
}
static bool has_keyword(const Game& g, int slot, int term) {
  for (int k : g.kws[slot])
    if (g.P().keywords[k].term == term) return true;
  return false;
}
static IV keywords_named(const Game& g, int slot, int term) {  // (a new list)
  IV out;
  for (int k : g.kws[slot])
    if (g.P().keywords[k].term == term) out.push_back(k);
  return out;
}

// ================================================================== zones.py
static Pile* pile_of(Game& g, int zone, int p) {
  switch (zone) {
    case Z_DECK: return &g.deck[p];
    case Z_HAND: return &g.hand[p];
    case Z_SKILL: return &g.skill[p];
    case Z_TRASH: return &g.trash[p];
    case Z_DAMAGE: return &g.damage[p];
    default: return nullptr;
  }
}

// a unit's abilities of one timing: its own, then its items' (in their order) -- the
// Python engine's unit_abilities filtered by timing, read from the card's by_when lists
template <class F>
static inline void each_unit_ability(const Game& g, int iid, int timing, F fn) {
  for (int a : g.card(iid).by_when[0][timing]) fn(a);
  int w = g.where[iid];
  if ((w >> 2) == Z_UNIT)
    for (int it : g.items[owner(iid) * 3 + (w & 3)])
      for (int a : g.card(it).by_when[0][timing]) fn(a);
}

// whenever.py: met
static void met(Game& g, int event, int q, int times) {
  if (!(g.P().watched >> event & 1)) return;
  const Program& P = g.P();
  int order[2] = {g.tp, 1 - g.tp};
  for (int p : order) {
    int whose = p == q ? WHO_YOU : WHO_OPPONENT;
    auto consider = [&](int iid, int ak) {
      const Ability& a = P.abilities[ak];
      if (a.watch == event && a.whose == whose && (a.gates.empty() || gates_ok(g, p, iid, a.gates)))
        for (int t = 0; t < times; ++t)
          g.pend.push_back(Entry{CONT, p, K_ABILITY, iid, g.stamp[iid], a.key, 0});
    };
    for (int lane = 0; lane < 3; ++lane) {
      int iid = g.unit[p * 3 + lane];
      if (iid >= 0) each_unit_ability(g, iid, W_WHENEVER, [&](int a) { consider(iid, a); });
    }
    for (int a : leader_abilities(g, p, W_WHENEVER)) consider(p * PER, a);
  }
}

static void done_hook(Game& g, int zone, int src, int p) {  // zones._done
  if (zone == Z_DAMAGE) {
    met(g, WATCH_DAMAGE, p, 1);
  } else {
    if (src == Z_HAND) met(g, WATCH_DISCARD, p, 1);
    met(g, WATCH_TRASH, p, 1);
  }
}

static void take(Game& g, int iid) {
  int w = g.where[iid];
  int z = w >> 2, lane = w & 3, p = owner(iid);
  if (z == Z_LEVEL) throw EngineError("3.3.4: the leader cannot leave the level zone");
  if (z == Z_UNIT) {
    g.unit[p * 3 + lane] = -1;
  } else if (z == Z_ITEM) {
    remove_first(g.items[p * 3 + lane], iid);
  } else {
    Pile* pl = pile_of(g, z, p);
    if (pl) {
      remove_first(*pl, iid);
      if (z == Z_HAND && contains(g.known[p], iid)) remove_first(g.known[p], iid);
    }
  }
}

static inline bool open_zone(int z) {
  return z == Z_UNIT || z == Z_ITEM || z == Z_SKILL || z == Z_TRASH || z == Z_DAMAGE || z == Z_LEVEL;
}

static void put(Game& g, int iid, int zone, int lane = 3, bool bottom = false) {
  int p = owner(iid);
  if (zone == Z_UNIT) {
    g.unit[p * 3 + lane] = iid;
  } else if (zone == Z_ITEM) {
    g.items[p * 3 + lane].push_back(iid);
  } else if (zone == Z_DECK && bottom) {
    g.deck[p].insert_front(iid);
  } else {
    pile_of(g, zone, p)->push_back(iid);
    if (zone == Z_HAND && open_zone(g.where[iid] >> 2) && !contains(g.known[p], iid))
      g.known[p].push_back(iid);  // the other player saw it go (3.1.4)
  }
  g.where[iid] = zone * 4 + lane;
  g.stamp[iid] += 1;
  if (!g.mods.empty())
    g.mods.erase(std::remove_if(g.mods.begin(), g.mods.end(),
                                [iid](const Mod& md) { return md.target == iid && md.kind != M_SIZE; }),
                 g.mods.end());
  g.dirty = true;
}

// ---- simultaneous actions (8.4.4)
static bool continues_group(const Game& g, const Task& f) {
  if (f.x[6] > 0) return true;
  const IV& seq = g.P().abilities[f.x[2]].seq;
  int step = f.x[3];
  return 0 < step && step < (int)seq.size() && g.P().actions[seq[step]].additionally;
}

static int marker(const Game& g) {
  for (int i = (int)g.stack.size() - 1; i >= 0; --i) {
    int kind = g.stack[i].kind;
    if (kind == T_LOSS_CHECK) return i;
    if (kind == T_FRAME && !continues_group(g, g.stack[i])) return -1;
  }
  return -1;
}

static bool in_simultaneous_action(const Game& g) { return marker(g) >= 0; }

static void lose(Game& g, int p) {  // 1.2.2, 8.4.4, 1.2.3
  int i = marker(g);
  if (i < 0) { g.lost[p] = true; return; }
  Task& t = g.stack[i];
  if (!contains(t.v, p)) t.v.push_back(p);
}

static void loss_check(Game& g, const Task& t) {
  IV losers = t.v;
  for (int p : losers) lose(g, p);
}

static void move(Game& g, int iid, int zone, int lane = 3, bool bottom = false) {
  int src = g.where[iid] >> 2;
  take(g, iid);
  put(g, iid, zone, lane, bottom);
  if (zone == Z_TRASH || zone == Z_DAMAGE) done_hook(g, zone, src, owner(iid));
}

static int draw(Game& g, int p, int n) {  // 4.4.3; 1.2.2.4
  int done = 0;
  for (int i = 0; i < n; ++i) {
    if (g.deck[p].empty()) {
      ev(g, E_DECK_OUT, p, -1);
      lose(g, p);
      break;
    }
    int iid = g.deck[p].back();
    g.deck[p].pop_back();
    g.hand[p].push_back(iid);
    g.where[iid] = Z_HAND * 4 + 3;
    g.stamp[iid] += 1;
    done += 1;
  }
  if (done) {
    g.dirty = true;
    ev(g, E_DRAW, p, done);
    met(g, WATCH_DRAW, p, done);  // 8.4.1.1
  }
  return done;
}

static void queue(Game& g, int cls, int p, int kind, int self, int arg = 0, int arg2 = 0) {
  g.pend.push_back(Entry{cls, p, kind, self, g.stamp[self], arg, arg2});
}

static void trigger_timing(Game& g, int iid, int timing) {
  int p = owner(iid);
  each_unit_ability(g, iid, timing, [&](int ak) {
    const Ability& a = g.P().abilities[ak];
    if (a.gates.empty() || gates_ok(g, p, iid, a.gates)) queue(g, AUTO, p, K_ABILITY, iid, a.key);
  });
}

static void place_unit(Game& g, int iid, int lane) {  // 3.5.3, 10.1.2.2, 10.2.6.4.3
  move(g, iid, Z_UNIT, lane);
  int p = owner(iid);
  ev(g, E_PLACE, iid, p, lane);
  trigger_timing(g, iid, W_ENTRY);
  ensure(g);
  SVec<64> ks;
  ks.assign(g.kws[p * 3 + lane]);
  for (int k : ks) {
    const Keyword& K = g.P().keywords[k];
    if (K.term == S_CREDIT) {  // keywords._credit_placed
      if (K.gates.empty() || gates_ok(g, p, iid, K.gates)) queue(g, CONT, p, K_CREDIT_DRAW, iid, K.n);
    }
  }
}

static void trash_from_field(Game& g, int iid, bool by_effect, bool by_battle, int other,
                             bool upgrade, bool pays) {
  int w = g.where[iid];
  int z = w >> 2;
  int p = owner(iid);
  if (z == Z_UNIT) {
    int s = p * 3 + (w & 3);
    IV exits;
    if (by_effect || by_battle) {
      each_unit_ability(g, iid, W_EXIT, [&](int ak) {
        const Ability& a = g.P().abilities[ak];
        if (a.gates.empty() || gates_ok(g, p, iid, a.gates)) exits.push_back(a.key);
      });
    }
    ensure(g);
    SVec<64> subs;
    subs.assign(g.kws[s]);
    Pile its = g.items[s];
    for (int it : its) {
      move(g, it, Z_TRASH);
      ev(g, E_TRASH, it, p, TR_RULE, -1);
    }
    move(g, iid, Z_TRASH);
    int reason = by_battle ? TR_BATTLE : by_effect ? TR_EFFECT : upgrade ? TR_UPGRADE : TR_RULE;
    ev(g, E_TRASH, iid, p, reason, pays ? 0 : -1);
    for (int a : exits) queue(g, AUTO, p, K_ABILITY, iid, a);  // 10.1.7.2.1
    for (int k : subs) {
      const Keyword& K = g.P().keywords[k];
      switch (K.term) {
        case S_MUTUAL:  // 10.2.5.2.2
          if (by_battle && other >= 0) queue(g, AUTO, p, K_MUTUAL, iid, other, g.stamp[other]);
          break;
        case S_RETURN:  // 10.2.5.3.2
          if (by_battle || by_effect) queue(g, AUTO, p, K_RETURN, iid);
          break;
        case S_CREDIT:  // 10.2.6.4.4
          queue(g, CONT, p, K_CREDIT_DISCARD, iid, K.n);
          break;
        default: break;
      }
    }
  } else if (z == Z_ITEM || z == Z_SKILL) {
    move(g, iid, Z_TRASH);
    ev(g, E_TRASH, iid, p, by_effect ? TR_EFFECT : TR_RULE, pays ? 0 : -1);
  }
}

static void leave_field(Game& g, int iid, int zone, bool bottom = false) {
  int w = g.where[iid];
  int p = owner(iid);
  if ((w >> 2) == Z_UNIT) {
    Pile its = g.items[p * 3 + (w & 3)];
    for (int it : its) move(g, it, Z_TRASH);
  }
  move(g, iid, zone, 3, bottom);
}

// ================================================================== leader.py
static bool change_level(Game& g, int p, int n) {
  int nw = std::max(1, std::min(10, g.level[p] + n));
  if (nw == g.level[p]) return false;  // 6.2.1.1, 1.3.2.1
  g.level[p] = nw;
  g.dirty = true;
  ev(g, E_LEVEL, p, nw);
  const Card& leader = g.card(p * PER);
  if (leader.has_back && !g.awake[p] && nw >= leader.awakening) {  // 10.2.6.1.2
    g.awake[p] = true;
    ev(g, E_AWAKEN, p);
  }
  return true;
}

// ================================================================== hidden.who_sees
static int who_sees(const Game& g, int iid) {  // a bit per seat
  int z = g.where[iid] >> 2;
  int o = owner(iid);
  if (z == Z_DECK) return 0;
  if (z == Z_HAND) return contains(g.known[o], iid) ? 3 : (1 << o);
  return 3;
}

// ================================================================== order.py (3.1.6)
static void order_into_deck(Game& g, const IV& cards, int source) {
  std::vector<Task> tasks;
  int order[2] = {g.tp, 1 - g.tp};
  for (int q : order) {
    IV mine;
    for (int c : cards)
      if (owner(c) == q && (g.where[c] >> 2) == Z_DECK) mine.push_back(c);
    if (mine.size() > 1) {
      ev(g, E_CARD_ORDER, q, (int)mine.size());
      Task t; t.kind = T_ORDER; t.x[0] = q; t.x[1] = source; t.v = mine;
      tasks.push_back(t);
    }
  }
  for (int i = (int)tasks.size() - 1; i >= 0; --i) g.stack.push_back(tasks[i]);
}

static void under(Game& g, int q, int iid) {
  Pile& deck = g.deck[q];
  remove_first(deck, iid);
  deck.insert_front(iid);
}

static void sort_by_card(const Game& g, IV& v) {
  std::stable_sort(v.begin(), v.end(), [&](int a, int b) {
    if (g.defs[a] != g.defs[b]) return g.defs[a] < g.defs[b];
    return a < b;
  });
}

static void run_order(Game& g, const Task& t) {
  int q = t.x[0], source = t.x[1];
  IV cards;
  for (int c : t.v)
    if ((g.where[c] >> 2) == Z_DECK && owner(c) == q) cards.push_back(c);
  if (cards.size() <= 1) {
    for (int c : cards) under(g, q, c);
    return;
  }
  Task nt; nt.kind = T_ORDER; nt.x[0] = q; nt.x[1] = source; nt.v = cards;
  g.stack.push_back(nt);
  IV sorted = cards;
  sort_by_card(g, sorted);
  g.dec.reset();
  g.dec.has = true; g.dec.kind = D_PICK; g.dec.player = q; g.dec.a = P_CARD_ORDER;
  g.dec.cands = sorted; g.dec.b = 0; g.dec.c = -1; g.dec.d = source; g.dec.n = 7;
}

static void order_pick(Game& g, const Task& t, int iid) {
  int q = t.x[0];
  under(g, q, iid);
  Task nt; nt.kind = T_ORDER; nt.x[0] = q; nt.x[1] = t.x[1];
  for (int c : t.v)
    if (c != iid) nt.v.push_back(c);
  g.stack.push_back(nt);
}

}  // namespace nv
