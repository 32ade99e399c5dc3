// Effects, verbs, combat, keywords, the turn and legality: engine/effects.py, verbs.py,
// combat.py, damage_window.py, keywords.py, flow.py and legal.py, in that order.
#pragma once
#include "rules.hpp"

namespace nv {

static const Action& action_at(const Game& g, int i) { return g.P().actions[i]; }

static void set_dec_pick(Game& g, int chooser, int purpose, const IV& cands, bool can_pass, int key, int source) {
  g.dec.reset();
  g.dec.has = true; g.dec.kind = D_PICK; g.dec.player = chooser; g.dec.a = purpose;
  g.dec.cands = cands; g.dec.b = can_pass; g.dec.c = key; g.dec.d = source; g.dec.n = 7;
}
static void set_dec_yesno(Game& g, int p, int key, int self, int step) {
  g.dec.reset();
  g.dec.has = true; g.dec.kind = D_YESNO; g.dec.player = p; g.dec.a = key; g.dec.b = self;
  g.dec.c = step; g.dec.n = 5;
}
static void set_dec_simple(Game& g, int kind, int p) {
  g.dec.reset();
  g.dec.has = true; g.dec.kind = kind; g.dec.player = p; g.dec.n = 2;
}

static Task frame(int p, int self, int key, int step, int sub, IV picked, bool did, int part) {
  Task t; t.kind = T_FRAME;
  t.x[0] = p; t.x[1] = self; t.x[2] = key; t.x[3] = step; t.x[4] = sub; t.x[5] = did; t.x[6] = part;
  t.v = std::move(picked);
  return t;
}
static Task simple(int kind) { Task t; t.kind = kind; return t; }
static Task task2(int kind, int a, int b = 0, int c = 0) {
  Task t; t.kind = kind; t.x[0] = a; t.x[1] = b; t.x[2] = c; return t;
}

// ================================================================== verbs.py
struct Spec {
  bool has = false;
  int chooser = 0;
  IV cands;
  int lo = 0, hi = 0, purpose = P_TARGET;
};

static int players_for(const Game& g, int p, int who, int out[2]) {  // verbs._players
  if (who == 0) { out[0] = p; return 1; }
  if (who == 1) { out[0] = 1 - p; return 1; }
  out[0] = g.tp; out[1] = 1 - g.tp;  // 1.3.5.1: turn player first
  return 2;
}

static IV sample(Game& g, const IV& cands, int n) {  // verbs._sample: shuffled, then [:n]
  IV c = cands;
  shuffle(g.rng, c);
  int size = (int)c.size();
  c.resize(n >= 0 ? std::min(n, size) : std::max(0, size + n));
  return c;
}

static bool takes(const Game& g, int verb, int iid) {  // 3.3.4, 4.8.2
  int z = g.where[iid] >> 2;
  if (z == Z_LEVEL) return !g.P().moving[verb];
  return z != Z_TRASH || verb != V_TRASH;
}

static Sel named(const Game& g, int p, int self, const Action& a) {
  Sel c = select(g, p, self, a.target);
  if (g.P().moving[a.verb]) {
    Sel out;
    for (int i : c)
      if (takes(g, a.verb, i)) out.push_back(i);
    return out;
  }
  return c;
}

static int chooser_of(const Game& g, int p, const Selector& sel) {  // 11.2.1, R12
  if (sel.zone == SZ_HAND && sel.who == WHO_OPPONENT && g.cfg.hand_owner_chooses) return 1 - p;
  return p;
}

static Spec target_choice(Game& g, int p, int self, const Action& a) {
  Spec s;
  const Selector& sel = g.P().selectors[a.target];
  if (sel.ref >= 0 || sel.mode == MODE_ALL || sel.mode == MODE_RANDOM) return s;
  IV cands = named(g, p, self, a);
  if (cands.empty()) return s;
  s.has = true;
  s.lo = sel.mode == MODE_UP_TO ? 0 : std::min(sel.n, (int)cands.size());
  s.chooser = chooser_of(g, p, sel);
  s.cands = std::move(cands);
  s.hi = sel.n;
  return s;
}

static IV targets(Game& g, int p, int self, const Action& a, const IV& picked) {
  const Selector& sel = g.P().selectors[a.target];
  if (sel.ref >= 0 || sel.mode == MODE_ALL) return named(g, p, self, a);
  if (sel.mode == MODE_RANDOM) return sample(g, named(g, p, self, a), sel.n);
  return picked;
}

static bool has_targets(const Game& g, int p, int self, const Action& a) {  // R13
  const Selector& sel = g.P().selectors[a.target];
  if (sel.ref < 0 && (sel.zone == SZ_DECK || sel.zone == SZ_HAND)) {
    int qs[2];
    int nq = players_of(p, sel.who, qs);
    const Filter& f = g.P().filter(sel.filter);
    for (int qi = 0; qi < nq; ++qi) {
      int q = qs[qi];
      const IV& z = sel.zone == SZ_DECK ? g.deck[q] : g.hand[q];
      if (sel.zone == SZ_DECK || q != p) {
        for (int i : z)
          if (!(sel.other && i == self)) return true;
      } else {
        for (int i : z)
          if (!(sel.other && i == self) && matches(g, i, f)) return true;
      }
    }
    return false;
  }
  return !named(g, p, self, a).empty();
}

static bool some(const Game& g, int p, int self, const Action& a) {  // 1.3.3, 4.4.5, R13
  const Value& v = g.P().values[a.amount];
  if (v.count < 0) return value(g, p, self, a.amount) > 0;
  const Selector& sel = g.P().selectors[v.count];
  if (sel.ref < 0 && (sel.zone == SZ_DECK || (sel.zone == SZ_HAND && sel.who != WHO_YOU))) {
    int qs[2];
    int nq = players_of(p, sel.who, qs);
    for (int qi = 0; qi < nq; ++qi) {
      int q = qs[qi];
      if (sel.zone == SZ_DECK) { if (!g.deck[q].empty()) return true; }
      else if (q != p && !g.hand[q].empty()) return true;
    }
    return value(g, p, self, a.amount) > 0;
  }
  return value(g, p, self, a.amount) > 0;
}

static bool verb_has_choice(int verb) {
  switch (verb) {
    case V_DISCARD: case V_HEAL: case V_TRASH: case V_RETURN_TO_HAND: case V_TO_DECK_BOTTOM:
    case V_SALVAGE: case V_SEARCH: case V_MODIFY: case V_GRANT: case V_PROHIBIT: case V_MOVE:
    case V_ATTACK: case V_SCALE:
      return true;
    default:
      return false;
  }
}

// ---- attack (combat.py: an attack an effect declares, 7.2.1.1)
static IV attackers(Game& g, int p, int self, const Action& a) {
  IV out;
  if (g.tp != p || g.battle.has || (g.turn == 1 && !g.cfg.first_turn_attack)) return out;
  ensure(g);
  for (int iid : select(g, p, self, a.target)) {
    int s = unit_slot(g, iid);
    if (s >= 0 && s / 3 == p && !(g.cant[s] & PROHIBIT_ATTACK)) out.push_back(iid);
  }
  return out;
}

// ---- move
static int move_unit_target(Game& g, int p, int self, const Action& a, IV& lanes) {
  Sel t = select(g, p, self, a.target);
  lanes.clear();
  if (t.empty() || (g.where[t[0]] >> 2) != Z_UNIT) return -1;
  int q = owner(t[0]);
  for (int lane = 0; lane < 3; ++lane)
    if (g.unit[q * 3 + lane] < 0) lanes.push_back(lane);
  return t[0];
}

static Spec choice(Game& g, int p, int self, const Action& a) {
  Spec s;
  int qs[2];
  switch (a.verb) {
    case V_DISCARD: {
      players_for(g, p, a.player, qs);
      int q = qs[0];
      int n = value(g, p, self, a.amount);
      if (a.random || n <= 0 || g.hand[q].empty()) return s;
      s.has = true; s.chooser = q; s.cands = g.hand[q];
      s.lo = a.up_to ? 0 : std::min(n, (int)g.hand[q].size()); s.hi = n;
      return s;
    }
    case V_HEAL: {
      int n = value(g, p, self, a.amount);
      if (n <= 0 || g.damage[p].empty()) return s;
      s.has = true; s.chooser = p; s.cands = g.damage[p];
      s.lo = a.up_to ? 0 : std::min(n, (int)g.damage[p].size()); s.hi = n;
      return s;
    }
    case V_SEARCH: {
      int n = value(g, p, self, a.amount);
      IV cands;
      const Filter& f = g.P().filter(a.filter);
      for (int i : g.deck[p])
        if (matches(g, i, f)) cands.push_back(i);
      if (n <= 0 || cands.empty()) return s;
      sort_by_card(g, cands);  // by card, not by deck position
      s.has = true; s.chooser = p; s.cands = cands; s.lo = 0; s.hi = n;
      return s;
    }
    case V_MOVE: {
      IV lanes;
      int iid = move_unit_target(g, p, self, a, lanes);
      if (iid < 0 || lanes.empty()) return s;
      s.has = true; s.chooser = p;
      for (int l : lanes) s.cands.push_back(-1 - l);  // lanes as -1-lane
      s.lo = 1; s.hi = 1;
      return s;
    }
    case V_ATTACK: {
      if (g.P().selectors[a.target].ref >= 0) return s;
      IV c = attackers(g, p, self, a);
      if (c.size() > 1) { s.has = true; s.chooser = p; s.cands = c; s.lo = 1; s.hi = 1; }
      return s;
    }
    case V_TRASH: case V_RETURN_TO_HAND: case V_TO_DECK_BOTTOM: case V_SALVAGE:
    case V_MODIFY: case V_GRANT: case V_PROHIBIT: case V_SCALE:
      return target_choice(g, p, self, a);
    default:
      return s;
  }
}

static bool possible_verb(Game& g, int p, int self, const Action& a) {
  int qs[2];
  switch (a.verb) {
    case V_DRAW:
      if (a.up_to) {
        players_for(g, p, a.player, qs);
        return !g.deck[qs[0]].empty() && some(g, p, self, a);
      }
      return some(g, p, self, a);
    case V_DISCARD: {
      int n = players_for(g, p, a.player, qs);
      bool any = false;
      for (int i = 0; i < n; ++i) any |= !g.hand[qs[i]].empty();
      return any && some(g, p, self, a);
    }
    case V_MILL: case V_TO_DAMAGE: {
      int n = players_for(g, p, a.player, qs);
      bool any = false;
      for (int i = 0; i < n; ++i) any |= !g.deck[qs[i]].empty();
      return any && some(g, p, self, a);
    }
    case V_DAMAGE: return some(g, p, self, a);
    case V_HEAL: return !g.damage[p].empty() && some(g, p, self, a);
    case V_LEVEL: {
      int n = players_for(g, p, a.player, qs);
      bool any = false;
      for (int i = 0; i < n; ++i) any |= g.level[qs[i]] < 10;
      return any && some(g, p, self, a);
    }
    case V_SIZE: return a.size != 0;
    case V_SEARCH: return !g.deck[p].empty() && some(g, p, self, a);
    case V_MOVE: {
      IV lanes;
      int iid = move_unit_target(g, p, self, a, lanes);
      return iid >= 0 && !lanes.empty();
    }
    case V_WIN: case V_LOSE: return true;
    case V_ATTACK: return !attackers(g, p, self, a).empty();
    default:  // trash, return_to_hand, to_deck_bottom, salvage, modify, grant, prohibit, scale
      return has_targets(g, p, self, a);
  }
}

static bool possible(Game& g, int p, int self, int ai) {
  const Action& a = action_at(g, ai);
  if (a.condition >= 0 && !condition(g, p, self, a.condition)) return false;
  return possible_verb(g, p, self, a);
}

static bool cost_payable(Game& g, int p, int self, int ai) {
  const Action& a = action_at(g, ai);
  int qs[2];
  switch (a.verb) {
    case V_DISCARD: return (int)g.hand[p].size() >= value(g, p, self, a.amount);
    case V_DAMAGE: return (int)g.deck[p].size() >= value(g, p, self, a.amount);
    case V_TO_DAMAGE: {
      int v = value(g, p, self, a.amount);
      int n = players_for(g, p, a.player, qs);
      for (int i = 0; i < n; ++i)
        if ((int)g.deck[qs[i]].size() < v) return false;
      return true;
    }
    case V_TRASH: case V_RETURN_TO_HAND: case V_TO_DECK_BOTTOM: {
      const Selector& sel = g.P().selectors[a.target];
      int n = sel.ref >= 0 ? 1 : std::max(1, sel.n);
      return (int)named(g, p, self, a).size() >= n;
    }
    default:
      throw EngineError(std::string("verb '") + VERB_KEYS[a.verb] + "' cannot be a cost");
  }
}

static void reveal(Game& g, int iid, int by) {  // 3.1.7
  int q = owner(iid);
  ev(g, E_REVEAL, q, iid, by, g.where[iid] >> 2);
  if ((g.where[iid] >> 2) == Z_HAND && !contains(g.known[q], iid)) g.known[q].push_back(iid);
}

// (continued in verbs_run.hpp)
}  // namespace nv
