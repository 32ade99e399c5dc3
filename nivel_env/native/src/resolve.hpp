// Carrying verbs out (verbs.py's run functions), frames and batches (effects.py), combat
// (combat.py, damage_window.py), sub-keyword effects (keywords.py), the turn (flow.py) and
// legality (legal.py).
#pragma once
#include "play.hpp"

namespace nv {

static bool run_verb(Game& g, int p, int self, const Action& a, const IV& picked) {
  int qs[2];
  switch (a.verb) {
    case V_DRAW: {
      int n = a.up_to ? (int)picked.size() : value(g, p, self, a.amount);
      if (n <= 0) return false;  // 4.4.5
      bool done = false;
      int nq = players_for(g, p, a.player, qs);
      for (int i = 0; i < nq; ++i) {  // 8.4.4
        done |= draw(g, qs[i], n) > 0;
        if (g.lost[qs[i]] && !g.cfg.simultaneous_each_player) break;
      }
      return done;
    }
    case V_DISCARD: {
      players_for(g, p, a.player, qs);
      int q = qs[0];
      int n = value(g, p, self, a.amount);
      IV cards = a.random ? sample(g, g.hand[q], n) : picked;
      for (int iid : cards) {
        move(g, iid, Z_TRASH);
        ev(g, E_DISCARD, q, iid, DR_EFFECT);
      }
      return !cards.empty();
    }
    case V_MILL: case V_TO_DAMAGE: {
      int n = value(g, p, self, a.amount);
      bool done = false;
      int nq = players_for(g, p, a.player, qs);
      for (int i = 0; i < nq; ++i) {
        int q = qs[i];
        int times = std::min(n, (int)g.deck[q].size());
        for (int t = 0; t < times; ++t) {
          int iid = g.deck[q].back();
          if (a.verb == V_MILL) {
            move(g, iid, Z_TRASH);
            ev(g, E_MILL, q, iid);
          } else {  // 1.2.2.2: not damage
            move(g, iid, Z_DAMAGE);
            ev(g, E_TO_DAMAGE, q, iid, (int)g.damage[q].size());
          }
          done = true;
        }
      }
      return done;
    }
    case V_DAMAGE: {
      int n = value(g, p, self, a.amount);
      if (n <= 0) return false;
      int nq = players_for(g, p, a.player, qs);
      if (nq > 1 && g.cfg.simultaneous_each_player) g.stack.push_back(simple(T_LOSS_CHECK));
      Hits hits;
      for (int i = 0; i < nq; ++i) hits.push_back({qs[i], n});
      damage_occurs(g, hits);  // 4.5.2, 1.3.5.1
      return true;
    }
    case V_HEAL: {
      for (int iid : picked) {
        move(g, iid, Z_TRASH);
        ev(g, E_HEAL, p, iid);
      }
      return !picked.empty();
    }
    case V_LEVEL: {
      int n = value(g, p, self, a.amount);
      bool done = false;
      int nq = players_for(g, p, a.player, qs);
      for (int i = 0; i < nq; ++i) done |= change_level(g, qs[i], n);
      return done;
    }
    case V_SIZE: {
      int nq = players_for(g, p, a.player, qs);
      for (int i = 0; i < nq; ++i) g.mods.push_back(Mod{M_SIZE, qs[i], a.size, a.until, p});
      g.dirty = true;
      return a.size != 0;
    }
    case V_TRASH: {
      bool done = false;
      for (int iid : targets(g, p, self, a, picked)) {  // 8.4.4
        int z = g.where[iid] >> 2;
        if (z == Z_UNIT || z == Z_ITEM || z == Z_SKILL) {
          trash_from_field(g, iid, true);
        } else if (z == Z_TRASH || z == Z_LEVEL) {  // 4.8.2, 3.3.4
          continue;
        } else {
          move(g, iid, Z_TRASH);
          ev(g, E_TRASH, iid, owner(iid), TR_EFFECT, -1);
        }
        done = true;
      }
      return done;
    }
    case V_RETURN_TO_HAND: case V_TO_DECK_BOTTOM: case V_SALVAGE: {
      int zone = a.verb == V_TO_DECK_BOTTOM ? Z_DECK : Z_HAND;
      bool bottom = a.verb == V_TO_DECK_BOTTOM;
      int kind = a.verb == V_RETURN_TO_HAND ? E_RETURN_TO_HAND
                 : a.verb == V_TO_DECK_BOTTOM ? E_TO_DECK_BOTTOM : E_SALVAGE;
      int label = a.verb == V_RETURN_TO_HAND ? RV_RETURN_TO_HAND
                  : a.verb == V_TO_DECK_BOTTOM ? RV_TO_DECK_BOTTOM : RV_SALVAGE;
      IV cards = targets(g, p, self, a, picked);
      const Selector* sel = a.target >= 0 ? &g.P().selectors[a.target] : nullptr;
      bool conditioned = sel && !g.P().filter(sel->filter).empty;
      int picker = 0;  // 11.2.1: a bit for the player who looked while choosing
      if (sel && sel->ref < 0 &&
          (sel->mode == MODE_UP_TO ||
           (sel->mode == MODE_CHOOSE && (int)named(g, p, self, a).size() > sel->n)))
        picker = 1 << chooser_of(g, p, *sel);
      for (int iid : cards) {
        int src = g.where[iid] >> 2;
        int seen = who_sees(g, iid);
        leave_field(g, iid, zone, bottom);
        int came = -1, seen_by = -1;
        if (src == Z_HAND || src == Z_DECK) {  // 3.1.7, 3.8.3
          came = src;
          seen_by = seen | who_sees(g, iid) | picker;
        } else if (a.verb == V_SALVAGE && src != Z_TRASH) {
          came = src;
        }
        ev(g, kind, iid, owner(iid), came, seen_by);
        if (conditioned && (zone == Z_HAND || zone == Z_DECK)) reveal(g, iid, label);
      }
      if (zone == Z_DECK && cards.size() > 1) order_into_deck(g, cards, self);  // 3.1.6
      return !cards.empty();
    }
    case V_SEARCH: {
      const Filter& f = g.P().filter(a.filter);
      for (int iid : picked) {
        move(g, iid, Z_HAND);
        ev(g, E_SEARCH, p, iid);
        if (!f.empty) reveal(g, iid, RV_SEARCH);  // 3.1.7
      }
      shuffle(g.rng, g.deck[p]);  // 3.2.4
      ev(g, E_SHUFFLE, p);
      return !picked.empty();
    }
    case V_MODIFY: {
      IV cards = targets(g, p, self, a, picked);
      for (int iid : cards) {
        if ((g.where[iid] >> 2) != Z_UNIT) continue;
        if (a.power) g.mods.push_back(Mod{M_POWER, iid, a.power, a.until, p});
        if (a.hit) g.mods.push_back(Mod{M_HIT, iid, a.hit, a.until, p});
        if (a.attacks) g.mods.push_back(Mod{M_ATTACKS, iid, a.attacks, a.until, p});
        if (a.cost) g.mods.push_back(Mod{M_COST, iid, a.cost, a.until, p});
        ev(g, E_MODIFY, iid, a.power, a.hit, a.attacks, a.until, a.cost ? a.cost : NONE);
      }
      g.dirty = true;
      return !cards.empty();
    }
    case V_GRANT: case V_PROHIBIT: case V_SCALE: {
      IV cards;
      for (int i : targets(g, p, self, a, picked))
        if ((g.where[i] >> 2) == Z_UNIT) cards.push_back(i);
      for (int iid : cards) {
        if (a.verb == V_GRANT) {
          g.mods.push_back(Mod{M_GRANT, iid, a.keyword, a.until, p});
          ev(g, E_GRANT, iid, a.keyword);
        } else if (a.verb == V_PROHIBIT) {
          int bit = a.prohibit == 0 ? PROHIBIT_ATTACK : PROHIBIT_DEFEND;
          g.mods.push_back(Mod{M_PROHIBIT, iid, bit, a.until, p});
          ev(g, E_PROHIBIT, iid, a.prohibit);
        } else {  // 1.3.7.2
          g.mods.push_back(Mod{a.stat == 0 ? M_SCALE_POWER : M_SCALE_HIT, iid, a.percent, a.until, p});
          ev(g, E_SCALE, iid, a.stat, a.percent, a.until);
        }
      }
      g.dirty = true;
      return !cards.empty();
    }
    case V_MOVE: {
      IV lanes;
      int iid = move_unit_target(g, p, self, a, lanes);
      if (iid < 0 || picked.empty()) return false;
      int lane = -1 - picked[0];
      int q = owner(iid);
      int old = q * 3 + (g.where[iid] & 3);
      int nw = q * 3 + lane;
      // between one's own unit zones the unit stays the same object (docs/rulings.md R3)
      g.unit[old] = -1;
      g.unit[nw] = iid;
      Pile moved = g.items[old];
      g.items[old].clear();
      g.items[nw] = moved;
      g.where[iid] = Z_UNIT * 4 + lane;
      for (int it : g.items[nw]) g.where[it] = Z_ITEM * 4 + lane;
      ev(g, E_MOVE, iid, lane);
      g.dirty = true;
      return true;
    }
    case V_WIN: case V_LOSE: {  // 1.2.5
      int nq = players_for(g, p, a.player, qs);
      for (int i = 0; i < nq; ++i) ev(g, E_GAME_EFFECT, qs[i], a.verb == V_WIN ? 0 : 1, self);
      for (int i = 0; i < nq; ++i) g.lost[a.verb == V_WIN ? 1 - qs[i] : qs[i]] = true;
      return true;
    }
    case V_ATTACK: {
      IV c = attackers(g, p, self, a);
      int iid = !picked.empty() ? picked[0] : (!c.empty() ? c[0] : -1);
      if (!contains(c, iid)) return false;
      declare_attack(g, g.where[iid] & 3, true);
      return true;
    }
  }
  throw EngineError("unknown verb");
}

// verbs.count_draw: 4.4.4 "draw up to N"
static bool count_spec(Game& g, int p, int self, const Action& a, int& who, int& most) {
  if (a.verb != V_DRAW || !a.up_to) return false;
  int qs[2];
  players_for(g, p, a.player, qs);
  who = qs[0];
  most = std::min(value(g, p, self, a.amount), (int)g.deck[who].size());
  return true;
}

// passives (8.1.3.3): the change an action in a passive ability makes to derived values
static void passive(Game& g, int p, int self, const Action& act, int size[2]) {
  auto units = [&](SVec<6>& out) {
    out.clear();
    for (int t : select(g, p, self, act.target)) {
      int s = unit_slot(g, t);
      if (s >= 0) out.push_back(s);
    }
  };
  SVec<6> slots;
  switch (act.verb) {
    case V_MODIFY:
      units(slots);
      for (int s : slots) {
        g.pw[s] += act.power; g.ht[s] += act.hit; g.na[s] += act.attacks;
        if (act.cost) g.uc[s] += act.cost;
      }
      return;
    case V_GRANT: {
      units(slots);
      const Keyword& K = g.P().keywords[act.keyword];
      for (int s : slots)
        if (K.gates.empty() || gates_ok(g, s / 3, g.unit[s], K.gates)) g.kws[s].push_back(act.keyword);
      return;
    }
    case V_PROHIBIT: {
      int bit = act.prohibit == 0 ? PROHIBIT_ATTACK : PROHIBIT_DEFEND;
      units(slots);
      for (int s : slots) g.cant[s] |= bit;
      return;
    }
    case V_SCALE: {
      units(slots);
      for (int s : slots) {
        if (act.stat == 0) g.pw[s] = scaled(g.pw[s], act.percent);
        else g.ht[s] = scaled(g.ht[s], act.percent);
      }
      return;
    }
    case V_SIZE:
      size[act.player == 0 ? p : 1 - p] += act.size;
      return;
  }
  throw EngineError(std::string("verb '") + VERB_KEYS[act.verb] + "' has no passive part");
}

// ================================================================== effects.py
constexpr int F_P = 0, F_SELF = 1, F_KEY = 2, F_STEP = 3, F_SUB = 4, F_DID = 5, F_PART = 6;

static void push_frame(Game& g, int p, int self, const Ability& ab) {
  g.stack.push_back(frame(p, self, ab.key, ab.optional ? -1 : 0, SUB_FRESH, IV(), true, 0));
}

static int each_in_turn(const Game& g, const Action& a, int out[2]) {  // 1.3.5.1
  if (a.player == 2 && verb_has_choice(a.verb)) { out[0] = g.tp; out[1] = 1 - g.tp; return 2; }
  return 0;
}

static IV hidden_last_by_card(const Game& g, int chooser, IV cands) {  // 3.2.2, 11.2.1
  IV hidden;
  for (int c : cands) {
    bool h = c >= 0 && ((g.where[c] >> 2) == Z_DECK ||
                        ((g.where[c] >> 2) == Z_HAND && owner(c) != chooser));
    if (h) hidden.push_back(c);
  }
  if (hidden.empty()) return cands;
  sort_by_card(g, hidden);
  // Python: [c for c in cands if c not in seen] + sorted(hidden)
  IV out;
  for (int c : cands)
    if (!contains(hidden, c)) out.push_back(c);
  out.insert(out.end(), hidden.begin(), hidden.end());
  return out;
}

static int push_next(Game& g, Task nxt, const IV& seq) {
  int step = nxt.x[F_STEP];
  const Program& P = g.P();
  if (0 < step && step <= (int)seq.size() && P.actions[seq[step - 1]].additionally &&
      !(step < (int)seq.size() && P.actions[seq[step]].additionally) && !g.stack.empty() &&
      g.stack.back().kind == T_LOSS_CHECK) {
    Task mk = g.stack.back();
    g.stack.pop_back();
    g.stack.push_back(std::move(nxt));
    g.stack.push_back(std::move(mk));
    return (int)g.stack.size() - 2;
  }
  g.stack.push_back(std::move(nxt));
  return (int)g.stack.size() - 1;
}

static Task next_step(const Task& f) {
  return frame(f.x[F_P], f.x[F_SELF], f.x[F_KEY], f.x[F_STEP] + 1, SUB_FRESH, IV(), false, 0);
}

static int after_part(Game& g, const Task& f, const IV& seq, bool did) {
  int each[2];
  int ne = each_in_turn(g, action_at(g, seq[f.x[F_STEP]]), each);
  int part = f.x[F_PART];
  if (part + 1 < ne) {  // 1.3.5.1: then the other player
    g.stack.push_back(frame(f.x[F_P], f.x[F_SELF], f.x[F_KEY], f.x[F_STEP], SUB_FRESH, IV(), did, part + 1));
    return (int)g.stack.size() - 1;
  }
  Task nxt = next_step(f);
  nxt.x[F_DID] = did;
  nxt.x[F_PART] = 0;
  if (ne && g.cfg.simultaneous_each_player) {
    if (g.stack.empty() || g.stack.back().kind != T_LOSS_CHECK)
      throw EngineError("each-player action: expected its loss-check marker on the work stack");
    Task mk = g.stack.back();
    g.stack.pop_back();
    int pos = push_next(g, std::move(nxt), seq);
    g.stack.push_back(std::move(mk));
    return pos;
  }
  return push_next(g, std::move(nxt), seq);
}

static bool effect_in_progress(const Game& g) {
  for (const Task& t : g.stack)
    if (t.kind == T_FRAME) return true;
  return false;
}

static inline bool is_whenever(const Entry& e) { return e.cls == CONT && e.kind == K_ABILITY; }

static void release(Game& g) {  // whenever.release (8.4.1.1)
  bool any = false;
  for (const Entry& e : g.pend) any |= is_whenever(e);
  if (g.pend.empty() || !any) return;
  Task t; t.kind = T_BATCH;
  std::vector<Entry> rest;
  for (const Entry& e : g.pend) (is_whenever(e) ? t.ent : rest).push_back(e);
  g.pend.swap(rest);
  g.stack.push_back(std::move(t));
}

static void effect_over(Game& g) {  // 1.2.2.2, 9.2.1.2, 8.4.1.1
  for (const Task& t : g.stack)
    if (t.kind == T_FRAME || t.kind == T_DAMAGE_CHECK) return;
  int order[2] = {g.tp, 1 - g.tp};
  for (int q : order)
    if (g.damage[q].size() >= 10) lose(g, q);
  if (!(g.lost[0] || g.lost[1])) release(g);
}

static void run_frame(Game& g, Task f) {
  int p = f.x[F_P], self = f.x[F_SELF], key = f.x[F_KEY], step = f.x[F_STEP];
  int sub = f.x[F_SUB], part = f.x[F_PART];
  bool did = f.x[F_DID] != 0;
  const IV* picked = &f.v;  // (the frame is ours: read in place)
  IV all_cands;
  const Ability& ab = g.P().abilities[key];
  if (step < 0) {  // "may" for the whole ability (8.1.2.2)
    if (sub == SUB_YES) {
      g.stack.push_back(frame(p, self, key, 0, SUB_FRESH, IV(), true, 0));
    } else {
      g.stack.push_back(f);
      set_dec_yesno(g, p, key, self, -1);
    }
    return;
  }
  const IV& seq = ab.seq;
  if (step >= (int)seq.size()) {
    ev(g, E_EFFECT_END, p, self, key);
    effect_over(g);
    return;
  }
  const Action& a = action_at(g, seq[step]);
  int each[2];
  int ne = each_in_turn(g, a, each);
  if (sub == SUB_FRESH) {
    if (part == 0) {
      if (!a.additionally && step + 1 < (int)seq.size() && action_at(g, seq[step + 1]).additionally)
        g.stack.push_back(simple(T_LOSS_CHECK));  // 8.4.4.1
      if ((a.if_done && !did) || (a.condition >= 0 && !condition(g, p, self, a.condition))) {
        push_next(g, next_step(f), seq);  // 8.3.2
        return;
      }
      if (ne) {
        if (g.cfg.simultaneous_each_player) g.stack.push_back(simple(T_LOSS_CHECK));  // 8.4.4
        did = false;
        f.x[F_DID] = 0;
      }
    }
    if (a.optional) {  // 8.1.2.2
      g.stack.push_back(f);
      set_dec_yesno(g, ne ? each[part] : p, key, self, step);
      return;
    }
  }
  Action act = a;
  if (ne) act.player = each[part] == p ? 0 : 1;  // effects.part_action
  if (verb_has_choice(a.verb) && sub != SUB_PICKED) {
    Spec spec = choice(g, p, self, act);
    if (spec.has) {
      IV rest;
      for (int c : spec.cands)
        if (!contains(*picked, c)) rest.push_back(c);
      IV left = hidden_last_by_card(g, spec.chooser, std::move(rest));
      if ((int)picked->size() < spec.hi && !left.empty()) {
        if (spec.lo >= (int)spec.cands.size()) {  // 8.3.3.1: all of them
          all_cands = spec.cands;
          picked = &all_cands;
        } else {
          Task nf = f;
          nf.x[F_SUB] = SUB_PICKING;
          g.stack.push_back(nf);
          set_dec_pick(g, spec.chooser, spec.purpose, left, (int)picked->size() >= spec.lo, key, self);
          return;
        }
      }
    }
  }
  int who, most;
  if (sub != SUB_PICKED && count_spec(g, p, self, act, who, most)) {  // 1.3.6
    if ((int)picked->size() < most) {
      Task nf = f;
      nf.x[F_SUB] = SUB_PICKING;
      g.stack.push_back(nf);
      set_dec_yesno(g, who, key, self, step);
      g.dec.d = (int)picked->size();
      g.dec.e = most;
      g.dec.n = 7;
      return;
    }
  }
  int pos = after_part(g, f, seq, ne ? did : false);
  if (run_verb(g, p, self, act, *picked)) g.stack[pos].x[F_DID] = 1;
}

static void frame_pick(Game& g, Task f, int v) {
  f.v.push_back(v);
  g.stack.push_back(std::move(f));
}

static void frame_pass(Game& g, Task f) {
  if (f.x[F_SUB] == SUB_PICKING) {
    f.x[F_SUB] = SUB_PICKED;
    g.stack.push_back(std::move(f));
  } else if (f.x[F_STEP] < 0) {
    ev(g, E_DECLINE, f.x[F_P], f.x[F_SELF]);
  } else {
    const IV& seq = g.P().abilities[f.x[F_KEY]].seq;
    int each[2];
    int ne = each_in_turn(g, action_at(g, seq[f.x[F_STEP]]), each);
    after_part(g, f, seq, ne ? f.x[F_DID] != 0 : false);
  }
}

static void frame_yes(Game& g, Task f) {
  if (f.x[F_SUB] == SUB_PICKING) {
    frame_pick(g, std::move(f), 1);
  } else {
    f.x[F_SUB] = SUB_YES;
    g.stack.push_back(std::move(f));
  }
}

static void open_batch(Game& g) {  // 8.4.1.1
  std::vector<Entry> keep;
  bool anyw = false;
  for (const Entry& e : g.pend) anyw |= is_whenever(e);
  if (anyw && effect_in_progress(g))
    for (const Entry& e : g.pend)
      if (is_whenever(e)) keep.push_back(e);
  std::vector<Entry> batch;
  if (!keep.empty()) {
    for (const Entry& e : g.pend)
      if (!is_whenever(e)) batch.push_back(e);
  } else {
    batch = g.pend;
  }
  g.pend = keep;
  if (!batch.empty()) {
    Task t; t.kind = T_BATCH; t.ent = std::move(batch);
    g.stack.push_back(std::move(t));
  }
}

static IV next_group(const Game& g, const std::vector<Entry>& entries) {  // 8.1.3.2.3
  int tp = g.tp;
  int order[4][2] = {{CONT, tp}, {CONT, 1 - tp}, {AUTO, tp}, {AUTO, 1 - tp}};
  for (auto& o : order) {
    IV mine;
    for (int i = 0; i < (int)entries.size(); ++i)
      if (entries[i].cls == o[0] && entries[i].p == o[1]) mine.push_back(i);
    if (!mine.empty()) return mine;
  }
  return IV();
}

static void resolve_entry(Game& g, const Entry& e);

static void resolve_from_batch(Game& g, const Task& t, int index) {
  Task rest; rest.kind = T_BATCH;
  for (int i = 0; i < (int)t.ent.size(); ++i)
    if (i != index) rest.ent.push_back(t.ent[i]);
  Entry e = t.ent[index];
  if (!rest.ent.empty()) g.stack.push_back(std::move(rest));
  resolve_entry(g, e);
}

static void run_batch(Game& g, const Task& t) {
  IV group = next_group(g, t.ent);
  if (group.empty()) return;
  if (group.size() > 1 && t.ent[group[0]].cls == AUTO && g.cfg.choose_effect_order) {  // 1.3.5
    g.stack.push_back(t);
    set_dec_pick(g, t.ent[group[0]].p, P_ORDER, group, false, -1, -1);
    return;
  }
  resolve_from_batch(g, t, group[0]);
}

// ---- chosen discards (hand limit 6.6.1.4, Credit)
static void discard_card(Game& g, int p, int iid, int purpose) {
  move(g, iid, Z_TRASH);
  ev(g, E_DISCARD, p, iid, purpose);
}

static void run_discard_task(Game& g, const Task& t) {
  int p = t.x[0], n = t.x[1], purpose = t.x[2];
  Pile& hand = g.hand[p];
  if (n <= 0 || hand.empty()) return;
  if ((int)hand.size() <= n) {
    Pile all = hand;
    for (int iid : all) discard_card(g, p, iid, purpose);
    return;
  }
  g.stack.push_back(t);
  set_dec_pick(g, p, purpose, hand, false, -1, -1);
}

static void discard_pick(Game& g, const Task& t, int iid) {
  int p = t.x[0], n = t.x[1], purpose = t.x[2];
  discard_card(g, p, iid, purpose);
  if (n > 1) g.stack.push_back(task2(T_DISCARD, p, n - 1, purpose));
}

// ================================================================== combat.py
static bool can_attack(Game& g, int lane) {  // 7.2.1, 7.2.1.2
  int p = g.tp, s = p * 3 + lane;
  int iid = g.unit[s];
  if (iid < 0) return false;
  if (g.turn == 1 && !g.cfg.first_turn_attack) return false;  // docs/rulings.md C5
  ensure(g);
  if (g.cant[s] & PROHIBIT_ATTACK) return false;  // 1.3.4
  int st = g.stamp[iid], made = 0;
  for (const Pair& a : g.attacked)
    if (a.iid == iid && a.stamp == st) ++made;
  return made < g.na[s];
}

static bool must_attack(Game& g) {  // Berserker, 10.2.6.2.3
  int p = g.tp;
  for (int lane = 0; lane < 3; ++lane) {
    int s = p * 3 + lane;
    if (g.unit[s] >= 0 && has_keyword(g, s, S_BERSERKER) && can_attack(g, s % 3)) return true;
  }
  return false;
}

static void declare_attack(Game& g, int lane, bool by_effect) {  // 7.2
  int p = g.tp, s = p * 3 + lane;
  int iid = g.unit[s];
  ensure(g);
  if (!by_effect) {
    g.attacked.push_back(Pair{iid, g.stamp[iid]});
    g.dirty = true;  // Chain counts (10.1.14)
  }
  Battle b;
  b.has = true; b.atk = iid; b.lane = lane; b.def = -1; b.step = BS_GUARD; b.duel = false;
  b.atk_stamp = g.stamp[iid]; b.def_stamp = -1;
  g.battle = b;
  g.battle.brk = keywords_named(g, s, S_BREAKTHROUGH);  // 10.2.3.4
  g.battle.duel = has_keyword(g, s, S_DUELIST) && g.unit[(1 - s / 3) * 3 + s % 3] >= 0;  // 10.2.3.5.2
  ev(g, E_ATTACK, p, iid, lane, by_effect);
  g.stack.push_back(simple(T_BATTLE));
  trigger_timing(g, iid, W_ATTACKER);  // 7.2.2
}

static bool present(const Game& g, int iid, int st) {
  return iid >= 0 && g.stamp[iid] == st && (g.where[iid] >> 2) == Z_UNIT;
}

static bool can_defend(Game& g, int s) {
  int iid = g.unit[s];
  if (iid < 0) return false;
  ensure(g);
  if (g.cant[s] & PROHIBIT_DEFEND) return false;
  for (int key : g.battle.brk) {  // 10.2.3.4.2-4
    const Filter& f = g.P().filter(g.P().keywords[key].filter);
    if (f.empty || matches(g, iid, f)) return false;
  }
  return true;
}

static IV others(const Game& g, int s) {
  int q = s / 3;
  IV out;
  for (int lane = 0; lane < 3; ++lane)
    if (g.unit[q * 3 + lane] >= 0 && q * 3 + lane != s) out.push_back(g.unit[q * 3 + lane]);
  return out;
}

static bool guardian_payable(const Game& g, int s, const Keyword& k) {  // 10.2.6.3.4
  switch (k.guardian) {
    case G_BARRIER: return (int)g.hand[s / 3].size() >= k.n;
    case G_SACRIFICE: return (int)others(g, s).size() >= k.n;
    case G_OFFSET:
      for (int it : g.items[s])
        if (matches_f(g, it, k.filter)) return true;
      return false;
  }
  throw EngineError("unknown Guardian payment");
}

static void guardian_candidates(const Game& g, int s, const Keyword& k, IV& cands, int& need, int& purpose) {
  cands.clear();
  switch (k.guardian) {
    case G_BARRIER: cands = g.hand[s / 3]; need = k.n; purpose = P_BARRIER; return;
    case G_SACRIFICE: cands = others(g, s); need = k.n; purpose = P_SACRIFICE; return;
    default:
      for (int it : g.items[s])
        if (matches_f(g, it, k.filter)) cands.push_back(it);
      need = 1; purpose = P_OFFSET;
  }
}

static IV guardian_options(Game& g) {  // 10.2.6.3.2-3, docs/rulings.md D2-D3
  IV out;
  const Battle& b = g.battle;
  if (b.duel) return out;
  int q = 1 - g.tp;
  int lanes[2] = {b.lane - 1, b.lane + 1};
  for (int lane : lanes) {
    if (lane < 0 || lane >= 3) continue;
    int s = q * 3 + lane;
    if (g.unit[s] >= 0 && can_defend(g, s)) {
      for (int k : keywords_named(g, s, S_GUARDIAN))
        if (guardian_payable(g, s, g.P().keywords[k])) { out.push_back(lane); break; }
    }
  }
  return out;
}

static void declare_defense(Game& g, int iid, int payment) {  // 7.3
  Battle& b = g.battle;
  b.def = iid;
  b.def_stamp = g.stamp[iid];
  int q = owner(iid);
  if (payment >= 0) ev(g, E_GUARDIAN, q, iid, g.where[iid] & 3, payment);
  else ev(g, E_DEFEND, q, iid, g.where[iid] & 3);
  trigger_timing(g, iid, W_DEFENDER);  // 7.3.2
  int s = unit_slot(g, iid);
  if (s < 0) s = 5;  // as Python's g.kws[-1] would read
  if (has_keyword(g, s, S_FINALE)) queue(g, AUTO, q, K_FINALE, iid);  // 10.2.4.2
}

static void battle_step(Game& g, bool atk_here) {
  int p = g.tp;
  int atk = g.battle.atk, dfn = g.battle.def;
  if (!atk_here) {  // 7.4.1
    ev(g, E_BATTLE, BR_ATTACKER_GONE, NONE, NONE, NONE, NONE);
    return;
  }
  ensure(g);
  int sa = unit_slot(g, atk);
  if (dfn < 0 || !present(g, dfn, g.battle.def_stamp)) {
    if (dfn >= 0 && !g.cfg.damage_if_defender_gone) {
      ev(g, E_BATTLE, BR_DEFENDER_GONE, NONE, NONE, NONE, NONE);
      return;
    }
    int hit = g.ht[sa];  // 7.4.2
    ev(g, E_BATTLE, BR_UNBLOCKED, hit, 1 - p, NONE, NONE);
    damage_occurs(g, Hits(1 - p, hit));  // 4.5.2
    return;
  }
  int sd = unit_slot(g, dfn);
  int pa = g.pw[sa], pd = g.pw[sd];
  if (pa >= pd) {  // 7.4.3
    ev(g, E_BATTLE, BR_DEFENDER_TRASHED, NONE, NONE, pa, pd);
    std::vector<std::pair<int, int>> won;
    int n = keyword_value(g, sa, S_PIERCE);  // 10.2.3.2.3
    if (n) won.push_back({K_PIERCE, n});
    n = keyword_value(g, sa, S_PLUNDER);  // 10.2.3.3.3
    if (n) won.push_back({K_PLUNDER, n});
    trash_from_field(g, dfn, false, true, atk);
    for (auto& w : won) queue(g, AUTO, p, w.first, atk, w.second);
  } else {
    ev(g, E_BATTLE, BR_ATTACKER_TRASHED, NONE, NONE, pa, pd);
    trash_from_field(g, atk, false, true, dfn);
  }
}

static void run_battle(Game& g, const Task& t) {
  Battle& b = g.battle;
  int step = b.step, p = g.tp, atk = b.atk;
  bool atk_here = present(g, atk, b.atk_stamp);
  if (step == BS_GUARD) {
    g.battle.step = BS_DEFENSE;
    g.stack.push_back(t);
    if (atk_here) {
      IV opts = guardian_options(g);
      if (!opts.empty()) {
        g.dec.reset();
        g.dec.has = true; g.dec.kind = D_GUARDIAN; g.dec.player = 1 - p; g.dec.cands = opts; g.dec.n = 3;
      }
    }
  } else if (step == BS_DEFENSE) {
    g.battle.step = BS_BATTLE;
    g.stack.push_back(t);
    if (atk_here && g.battle.def < 0) {  // 7.3.3
      int s = (1 - g.tp) * 3 + g.battle.lane;  // 7.3.1: the encounter unit
      if (g.unit[s] >= 0 && can_defend(g, s)) {
        g.dec.reset();
        g.dec.has = true; g.dec.kind = D_DEFENSE; g.dec.player = 1 - p;
        g.dec.a = g.battle.lane; g.dec.b = g.battle.duel; g.dec.n = 4;  // 10.2.3.5.3
      }
    }
  } else if (step == BS_BATTLE) {
    g.battle.step = BS_RESOLVE;
    g.stack.push_back(t);
    if (atk_here) {
      ensure(g);
      int s = unit_slot(g, atk);
      int n = keyword_value(g, s, S_INFILTRATE);  // 10.2.3.6.2-3
      if (n) queue(g, AUTO, p, K_INFILTRATE, atk, n);
    }
  } else if (step == BS_RESOLVE) {
    g.battle.step = BS_END;
    g.stack.push_back(t);
    battle_step(g, atk_here);
  } else {  // 7.5
    g.mods.erase(std::remove_if(g.mods.begin(), g.mods.end(),
                                [](const Mod& md) { return md.until == U_BATTLE; }),
                 g.mods.end());  // 7.5.1
    g.dirty = true;
    g.battle = Battle();
    ev(g, E_BATTLE_END);
  }
}

static void start_guard(Game& g, int lane) {
  int q = 1 - g.tp, s = q * 3 + lane;
  for (int k : keywords_named(g, s, S_GUARDIAN)) {
    if (guardian_payable(g, s, g.P().keywords[k])) {
      Task t; t.kind = T_GUARD; t.x[0] = s; t.x[1] = k;
      g.stack.push_back(t);
      return;
    }
  }
  throw EngineError("Guardian declared with no payable Guardian keyword");
}

static void run_guard(Game& g, const Task& t) {  // docs/rulings.md D2
  int s = t.x[0];
  const Keyword& k = g.P().keywords[t.x[1]];
  int q = s / 3;
  int guardian = g.unit[s];
  IV cands;
  int need = 0, purpose = 0;
  guardian_candidates(g, s, k, cands, need, purpose);
  IV picked = t.v;
  IV left;
  for (int c : cands)
    if (!contains(picked, c)) left.push_back(c);
  if ((int)picked.size() < need && !left.empty()) {
    if ((int)cands.size() <= need) {
      picked = cands;
    } else {
      g.stack.push_back(t);
      set_dec_pick(g, q, purpose, left, false, -1, guardian);
      return;
    }
  }
  for (int iid : picked) {
    if (k.guardian == G_BARRIER) {
      move(g, iid, Z_TRASH);
      ev(g, E_DISCARD, q, iid, DR_BARRIER);
    } else {
      trash_from_field(g, iid, true, false, -1, false, true);
    }
  }
  if (guardian >= 0 && (g.where[guardian] >> 2) == Z_UNIT) declare_defense(g, guardian, k.guardian);
}

static void guard_pick(Game& g, Task t, int iid) {
  t.v.push_back(iid);
  g.stack.push_back(std::move(t));
}

static void run_damage_task(Game& g, const Task& t) {  // 4.5.4
  int p = t.x[0], n = t.x[1];
  if (n <= 0) return;
  if (g.deck[p].empty()) {  // 4.5.3
    ev(g, E_DECK_OUT, p, 0);
    lose(g, p);
    return;
  }
  n -= 1;  // 4.5.4.1
  int iid = g.deck[p].back();  // 4.5.4.2
  g.deck[p].pop_back();
  g.damage[p].push_back(iid);
  g.where[iid] = Z_DAMAGE * 4 + 3;
  g.stamp[iid] += 1;
  g.dirty = true;
  const Card& c = g.card(iid);
  ev(g, E_DAMAGE, p, iid, (int)g.damage[p].size(), c.trigger >= 0);
  met(g, WATCH_DAMAGE, p, 1);  // 8.4.1.1
  if (c.trigger >= 0) {  // 4.5.4.3
    g.stack.push_back(task2(T_DAMAGE_CHECK, p, 0));
    ev(g, E_TRIGGER, p, iid, c.trigger);
    push_frame(g, p, iid, g.P().abilities[c.trigger]);
  } else {
    g.stack.push_back(task2(T_DAMAGE_CHECK, p, n));
  }
}

static void damage_check(Game& g, const Task& t) {
  int p = t.x[0], n = t.x[1];
  if (g.damage[p].size() >= 10) lose(g, p);  // 4.5.4.4
  else if (n > 0) g.stack.push_back(task2(T_DAMAGE, p, n));  // 4.5.4.5
}

// ================================================================== damage_window.py
static void window_effects(Game& g, int q, std::vector<Entry>& out) {
  for (int lane = 0; lane < 3; ++lane) {
    int iid = g.unit[q * 3 + lane];
    if (iid < 0) continue;
    each_unit_ability(g, iid, W_BEFORE_DAMAGE, [&](int ak) {
      const Ability& a = g.P().abilities[ak];
      if (a.gates.empty() || gates_ok(g, q, iid, a.gates))
        out.push_back(Entry{AUTO, q, K_ABILITY, iid, g.stamp[iid], a.key, 0});
    });
  }
  int leader = q * PER;
  for (int ak : leader_abilities(g, q, W_BEFORE_DAMAGE)) {
    const Ability& a = g.P().abilities[ak];
    if (a.gates.empty() || gates_ok(g, q, leader, a.gates))
      out.push_back(Entry{AUTO, q, K_ABILITY, leader, g.stamp[leader], a.key, 0});
  }
}

static void damage_occurs(Game& g, const Hits& hits_in) {  // 4.5.2
  Hits hits;
  for (auto& h : hits_in)
    if (h.second > 0) hits.push_back(h);
  for (int i = (int)hits.size() - 1; i >= 0; --i)
    g.stack.push_back(task2(T_DAMAGE, hits[i].first, hits[i].second));
  if (!g.P().has_window) return;
  std::vector<Entry> entries;
  for (auto& h : hits) {
    std::vector<Entry> mine;
    window_effects(g, h.first, mine);
    if (!mine.empty()) {
      ev(g, E_DAMAGE_WINDOW, h.first, h.second);
      entries.insert(entries.end(), mine.begin(), mine.end());
    }
  }
  if (!entries.empty()) {
    Task t; t.kind = T_BATCH; t.ent = std::move(entries);
    g.stack.push_back(std::move(t));
  }
}

// ================================================================== keywords.py (pending)
static const bool PENDING_FIZZLES[] = {false, true, true, true, true, false, false, false, false, false};
static const bool PENDING_SHOWS[] = {false, true, true, true, false, false, false, true, true, false};

static void resolve_pending(Game& g, int kind, int p, int iid, int st, int arg, int arg2) {
  switch (kind) {
    case K_PIERCE: damage_occurs(g, Hits(1 - p, arg)); return;  // 10.2.3.2.2
    case K_PLUNDER: case K_CREDIT_DRAW: draw(g, p, arg); return;  // 10.2.3.3.2, 10.2.6.4.3
    case K_INFILTRATE: {
      const Battle& b = g.battle;
      if (!b.has || b.def < 0 || (g.where[b.def] >> 2) != Z_UNIT) draw(g, p, arg);
      return;
    }
    case K_FINALE:  // 10.2.4.2.2
      if (g.battle.has) g.battle.step = BS_END;
      trash_from_field(g, iid, true);
      return;
    case K_MUTUAL: {  // 10.2.5.2.3-4
      int other = arg, other_stamp = arg2;
      if (g.stamp[iid] != st || (g.where[iid] >> 2) != Z_TRASH) return;
      if (g.stamp[other] == other_stamp && (g.where[other] >> 2) == Z_UNIT &&
          g.card(iid).cost >= unit_cost(g, other))
        trash_from_field(g, other, true);
      return;
    }
    case K_RETURN: g.delayed.push_back(Pair{iid, g.stamp[iid]}); return;  // 10.2.5.3.3
    case K_CREDIT_DISCARD: g.stack.push_back(task2(T_DISCARD, p, arg, P_CREDIT)); return;
    case K_RETURN_HAND:  // 10.2.5.3.3-4
      if (g.stamp[iid] == st && (g.where[iid] >> 2) == Z_TRASH) {
        move(g, iid, Z_HAND);
        ev(g, E_RETURN_TO_HAND, iid, p, -1, -1);
      }
      return;
  }
  throw EngineError("unknown pending kind");
}

static void resolve_entry(Game& g, const Entry& e) {
  int p = e.p, kind = e.kind, iid = e.iid, arg = e.arg;
  bool moved = g.stamp[iid] != e.stamp;
  if (kind == K_ABILITY) {
    const Ability& ab = g.P().abilities[arg];
    if (moved && ab.when != W_EXIT && ab.when != W_TRIGGER) {
      ev(g, E_FIZZLE, p, iid, -1);  // 8.1.3.2.1
      return;
    }
    if (ab.condition >= 0 && !condition(g, p, iid, ab.condition)) return;
    ev(g, E_EFFECT, p, iid, arg, ab.when);
    push_frame(g, p, iid, ab);
    return;
  }
  if (PENDING_FIZZLES[kind] && moved) {
    ev(g, E_FIZZLE, p, iid, kind);
    return;
  }
  ev(g, E_KEYWORD, p, iid, kind, PENDING_SHOWS[kind] ? arg : NONE);
  resolve_pending(g, kind, p, iid, e.stamp, arg, e.arg2);
}

// ================================================================== flow.py
static void finish(Game& g) {  // 1.2.1, 1.2.3
  bool l0 = g.lost[0], l1 = g.lost[1];
  if (l0 && l1) { g.result[0] = 0; g.result[1] = 0; }
  else if (l0) { g.result[0] = -1; g.result[1] = 1; }
  else if (l1) { g.result[0] = 1; g.result[1] = -1; }
  else return;
  g.has_result = true;
  g.phase = PH_OVER;
  g.dec.reset();
  ev(g, E_GAME_OVER, g.result[0], g.result[1], (l0 && l1) ? GO_BOTH_LOST : GO_LOSS);
}

static void mulligan(Game& g, int p, bool redraw) {
  g.mulled[p] = true;
  if (redraw) {  // 5.1.6.1
    for (int iid : g.hand[p]) {
      g.deck[p].push_back(iid);
      g.where[iid] = Z_DECK * 4 + 3;
      g.stamp[iid] += 1;
    }
    g.hand[p].clear();
    g.known[p].clear();
    shuffle(g.rng, g.deck[p]);
    draw(g, p, 5);
  }
  ev(g, E_MULLIGAN, p, redraw);
}

static void start_turn(Game& g) {
  if (g.turn > 0) g.tp = 1 - g.tp;  // 6.6.1.5
  g.turn += 1;
  if (g.turn > g.cfg.max_turns) {  // docs/rulings.md G
    g.truncated = true;
    g.has_result = true;
    g.result[0] = g.result[1] = 0;
    g.phase = PH_OVER;
    ev(g, E_GAME_OVER, 0, 0, GO_MAX_TURNS);
    return;
  }
  int p = g.tp;
  g.placed[0] = g.placed[1] = 0;
  g.attacked.clear();
  g.used.clear();
  g.dirty = true;
  ev(g, E_TURN, g.turn, p);
  g.phase = PH_LEVEL_UP;
  change_level(g, p, 1);  // 6.2.1
  g.phase = PH_DRAW;
  if (!(g.turn == 1 && p == g.first)) draw(g, p, 1);  // 6.3.1.1
  g.stack.push_back(simple(T_MAIN_START));
}

static void main_start(Game& g) {
  g.phase = PH_MAIN;
  int p = g.tp;
  for (int lane = 0; lane < 3; ++lane) {  // 10.1.13.2: Escape
    int iid = g.unit[p * 3 + lane];
    if (iid >= 0) trigger_timing(g, iid, W_ESCAPE);
  }
  g.stack.push_back(simple(T_MAIN));
}

static void end_phase(Game& g, const Task& t) {
  int step = t.x[0], p = g.tp;
  if (step == 0) {  // 6.6.1.1
    g.phase = PH_END;
    g.stack.push_back(task2(T_END, 1));
    for (const Pair& d : g.delayed)
      g.pend.push_back(Entry{AUTO, owner(d.iid), K_RETURN_HAND, d.iid, d.stamp, 0, 0});
    g.delayed.clear();
    for (int lane = 0; lane < 3; ++lane) {
      int iid = g.unit[p * 3 + lane];
      if (iid >= 0) trigger_timing(g, iid, W_END_OF_TURN);
    }
    for (int ak : leader_abilities(g, p, W_END_OF_TURN)) {
      const Ability& a = g.P().abilities[ak];
      if (a.gates.empty() || gates_ok(g, p, p * PER, a.gates))
        queue(g, AUTO, p, K_ABILITY, p * PER, a.key);
    }
  } else if (step == 1) {  // 6.6.1.2, 8.5.3
    size_t before = g.mods.size();
    g.mods.erase(std::remove_if(g.mods.begin(), g.mods.end(),
                                [](const Mod& md) { return md.until == U_TURN; }),
                 g.mods.end());
    if (g.mods.size() != before) {
      g.dirty = true;
      ev(g, E_EXPIRE, (int)(before - g.mods.size()));
    }
    g.stack.push_back(task2(T_END, 2));
  } else if (step == 2) {  // 6.6.1.3
    Pile sk = g.skill[p];
    for (int iid : sk) trash_from_field(g, iid, false);
    g.stack.push_back(task2(T_END, 3));
    int excess = (int)g.hand[p].size() - g.cfg.hand_limit;  // 6.6.1.4
    if (excess > 0) g.stack.push_back(task2(T_DISCARD, p, excess, P_HAND_LIMIT));
  } else {
    ev(g, E_END_TURN, g.turn, p);
    g.stack.push_back(simple(T_TURN));
  }
}

static void check_equips(Game& g) {  // 8.6.2
  const Pile* on = g.items;  // (run at every step of the work stack: one test, no loop)
  if (!(on[0].n | on[1].n | on[2].n | on[3].n | on[4].n | on[5].n)) return;
  for (int s = 0; s < 6; ++s) {
    if (g.items[s].empty()) continue;
    ensure(g);
    int u = g.unit[s];
    Pile its = g.items[s];
    for (int it : its) {
      int cond = g.card(it).equip;
      if (cond >= 0 && !matches_f(g, u, cond)) {
        ev(g, E_EQUIP_LOST, it);
        trash_from_field(g, it, false);
        ensure(g);
      }
    }
  }
}

static void rule_processing(Game& g) {  // 9.1.2
  if (g.lost[0] || g.lost[1]) { finish(g); return; }
  if (g.dirty) {
    ensure(g);
    IV zero;
    for (int s = 0; s < 6; ++s)
      if (g.unit[s] >= 0 && g.pw[s] == 0) zero.push_back(g.unit[s]);
    if (!zero.empty() && in_simultaneous_action(g)) {  // 8.4.4: once it is done
      zero.clear();
      g.dirty = true;
    }
    for (int iid : zero) {  // 1.3.7.3
      ev(g, E_POWER_ZERO, iid);
      trash_from_field(g, iid, true);
    }
    if (!zero.empty()) ensure(g);
  }
  if (!g.stack.empty()) {
    int k = g.stack.back().kind;
    if (k == T_FRAME || k == T_DAMAGE || k == T_DAMAGE_CHECK || k == T_LOSS_CHECK || k == T_ORDER) return;
  }
  check_equips(g);
  // 9.2.1.1-2
  if ((g.damage[0].size() >= 10 || g.damage[1].size() >= 10) && !effect_in_progress(g))
    for (int p = 0; p < 2; ++p)
      if (g.damage[p].size() >= 10) g.lost[p] = true;
  if (g.lost[0] || g.lost[1]) finish(g);
}

static inline bool checkpoint(int k) {  // 8.4.1.1, 8.4.3
  return k == T_TURN || k == T_MAIN_START || k == T_MAIN || k == T_ATTACK || k == T_END || k == T_BATTLE;
}

static void run(Game& g) {
  g.dec.reset();
  for (;;) {
    rule_processing(g);
    if (g.has_result || g.dec.has) return;
    if (!g.pend.empty() && (g.stack.empty() || checkpoint(g.stack.back().kind))) open_batch(g);
    if (g.stack.empty()) throw EngineError("the work stack ran empty");
    Task t = std::move(g.stack.back());
    g.stack.pop_back();
    switch (t.kind) {
      case T_TURN: start_turn(g); break;
      case T_MAIN_START: main_start(g); break;
      case T_MAIN: g.stack.push_back(std::move(t)); set_dec_simple(g, D_MAIN, g.tp); break;
      case T_ATTACK: g.stack.push_back(std::move(t)); set_dec_simple(g, D_ATTACK, g.tp); break;
      case T_END: end_phase(g, t); break;
      case T_BATTLE: run_battle(g, t); break;
      case T_FRAME: run_frame(g, std::move(t)); break;
      case T_BATCH: run_batch(g, t); break;
      case T_DAMAGE: run_damage_task(g, t); break;
      case T_DAMAGE_CHECK: damage_check(g, t); break;
      case T_LOSS_CHECK: loss_check(g, t); break;
      case T_ORDER: run_order(g, t); break;
      case T_DISCARD: run_discard_task(g, t); break;
      case T_GUARD: run_guard(g, t); break;
      case T_MULLIGAN: {
        int p = t.x[0];
        g.stack.push_back(t);
        set_dec_simple(g, D_MULLIGAN, p);
        break;
      }
      default: throw EngineError("unknown task");
    }
  }
}

static void setup(Game& g, bool mirror) {  // 5.1.3-5.1.7
  int order[2] = {mirror ? 1 : 0, mirror ? 0 : 1};
  for (int p : order) shuffle(g.rng, g.deck[p]);
  uint64_t r = next_u64(g.rng);
  g.first = g.tp = (int)(r & 1);  // 5.1.5
  ev(g, E_SETUP, g.first);
  int dr[2] = {g.first, 1 - g.first};
  for (int p : dr) draw(g, p, 5);  // 5.1.6
  g.stack.push_back(simple(T_TURN));
  if (g.cfg.mulligan) {
    g.stack.push_back(task2(T_MULLIGAN, 1 - g.first));
    g.stack.push_back(task2(T_MULLIGAN, g.first));
  }
  run(g);
}

// ================================================================== legal.py
static int field_cost(Game& g, int p) {  // 6.4.1.1.2, docs/rulings.md B1
  ensure(g);
  int total = 0;
  for (int s = p * 3; s < p * 3 + 3; ++s) {
    if (g.unit[s] >= 0) {
      total += g.uc[s];
      for (int it : g.items[s]) total += g.card(it).cost;
    }
  }
  for (int iid : g.skill[p]) total += g.card(iid).cost;
  return total;
}

static int replaced_cost(Game& g, int s) {  // 6.4.1.1.2.1
  ensure(g);
  int c = g.uc[s];
  for (int i : g.items[s]) c += g.card(i).cost;
  return c;
}

struct Activ { int ab, src, self; };
struct ActivList {
  int n = 0;
  Activ v[64];
  void clear() { n = 0; }
  void push_back(Activ a) {
    if (n >= 64) throw std::length_error("native state: a source with over 64 activated abilities");
    v[n++] = a;
  }
  int size() const { return n; }
  const Activ& operator[](int i) const { return v[i]; }
  const Activ& at(int i) const {
    if (i < 0 || i >= n) throw std::out_of_range("activated ability slot");
    return v[i];
  }
};

static void activated_list(const Game& g, int p, int source, ActivList& out) {
  out.clear();
  const Program& P = g.P();
  if (source == 0) {
    int leader = p * PER;
    for (int a : leader_face_abilities(g, p)) {
      int w = P.abilities[a].when;
      if (w == W_ACTIVE_MAIN || w == W_ACTIVE_ATTACK) out.push_back({a, leader, leader});
    }
    return;
  }
  int s = p * 3 + source - 1;
  int iid = g.unit[s];
  if (iid < 0) return;
  for (int a : g.card(iid).activated) out.push_back({a, iid, iid});
  for (int it : g.items[s])  // 8.6.1
    for (int a : g.card(it).activated) out.push_back({a, it, iid});
}

static bool usable(Game& g, int p, const Ability& ab, int src, int self, int timing) {
  if (ab.when != timing) return false;  // 6.4.1.2.2, 8.1.3.1.2
  int st = g.stamp[src], count = 0;
  for (const Used& u : g.used)
    if (u.src == src && u.stamp == st && u.key == ab.key) ++count;
  if (ab.limit <= 1) {
    if (count) return false;
  } else if (count >= ab.limit) {
    return false;
  }
  if (!ab.gates.empty() && !gates_ok(g, p, self, ab.gates)) return false;
  if (ab.condition >= 0 && !condition(g, p, self, ab.condition)) return false;
  for (int a : ab.cost)
    if (!cost_payable(g, p, self, a)) return false;
  for (int a : ab.actions)
    if (possible(g, p, self, a)) return true;
  return false;
}

static void plays(Game& g, IV& out) {
  int p = g.tp;
  if (g.hand[p].empty()) return;
  ensure(g);
  int room = g.size[p] - field_cost(g, p);
  int placed = g.placed[p];
  Pile hand = g.hand[p];
  for (int h = 0; h < (int)hand.size(); ++h) {
    int iid = hand[h];
    const Card& c = g.card(iid);
    int base = A_PLAY + h * 4;
    if (c.type == TY_UNIT) {
      for (int lane = 0; lane < 3; ++lane) {
        if (placed >> lane & 1) continue;  // 6.4.1.1.3
        int cur = g.unit[p * 3 + lane];
        if (cur < 0) {
          if (c.cost <= room) out.push_back(base + lane);
          continue;
        }
        if (c.cost <= g.uc[p * 3 + lane]) continue;  // 3.5.5
        if (c.cost <= room + replaced_cost(g, p * 3 + lane)) out.push_back(base + lane);
      }
    } else if (c.type == TY_ITEM) {
      if (c.cost > room) continue;
      for (int lane = 0; lane < 3; ++lane) {
        int u = g.unit[p * 3 + lane];
        if (u >= 0 && (c.equip < 0 || matches_f(g, u, c.equip))) out.push_back(base + lane);
      }
    } else if (c.type == TY_SKILL) {
      const Ability& ab = g.P().abilities[c.effect];
      if (c.cost <= room && (ab.condition < 0 || condition(g, p, iid, ab.condition))) {
        for (int a : ab.actions)  // 8.1.3.1.2
          if (possible(g, p, iid, a)) { out.push_back(base + 3); break; }
      }
    }
  }
}

static void activations(Game& g, IV& out, int timing) {
  int p = g.tp;
  ActivList lst;
  for (int source = 0; source < 4; ++source) {
    activated_list(g, p, source, lst);
    int n = std::min((int)lst.size(), 8);
    for (int slot = 0; slot < n; ++slot)
      if (usable(g, p, g.P().abilities[lst[slot].ab], lst[slot].src, lst[slot].self, timing))
        out.push_back(A_ACTIVATE + source * 8 + slot);
  }
}

static void legal_actions(Game& g, IV& out) {
  out.clear();
  if (g.has_result) return;
  const Dec& d = g.dec;
  switch (d.kind) {
    case D_MAIN:
      plays(g, out);
      activations(g, out, W_ACTIVE_MAIN);
      out.push_back(A_END_MAIN);
      break;
    case D_ATTACK:
      activations(g, out, W_ACTIVE_ATTACK);
      for (int lane = 0; lane < 3; ++lane)
        if (can_attack(g, lane)) out.push_back(A_ATTACK + lane);
      if (!must_attack(g)) out.push_back(A_END_ATTACK);
      break;
    case D_PICK: {
      int n = std::min((int)d.cands.size(), 128);
      for (int i = 0; i < n; ++i) out.push_back(A_PICK + i);
      if (d.b) out.push_back(A_PASS);
      break;
    }
    case D_MULLIGAN: out.push_back(A_KEEP); out.push_back(A_MULLIGAN); break;
    case D_GUARDIAN:
      out.push_back(A_PASS);
      for (int lane : d.cands) out.push_back(A_GUARDIAN + lane);
      break;
    case D_DEFENSE:
      if (!d.b) out.push_back(A_PASS);
      out.push_back(A_DEFEND + d.a);
      break;
    case D_YESNO: out.push_back(A_PASS); out.push_back(A_YES); break;
  }
  if (g.cfg.surrender_action) out.push_back(A_SURRENDER);
  std::sort(out.begin(), out.end());
}

static IV legal_actions(Game& g) {
  IV out;
  legal_actions(g, out);
  return out;
}

static void surrender(Game& g, int p) {  // 1.2.4
  if (g.has_result) return;
  ev(g, E_SURRENDER, p);
  g.lost[p] = true;
  finish(g);
  g.legal_ok = false;
}

static void play(Game& g, int h, int target) {  // 6.4.1.1
  int p = g.tp;
  int iid = g.hand[p][h];
  const Card& c = g.card(iid);
  if (c.type == TY_UNIT) {
    int lane = target;
    g.placed[p] |= 1 << lane;
    int cur = g.unit[p * 3 + lane];
    ev(g, E_PLAY, p, iid, lane, cur);
    if (cur >= 0) trash_from_field(g, cur, false, false, -1, true);  // 3.5.5.1
    place_unit(g, iid, lane);
  } else if (c.type == TY_ITEM) {
    move(g, iid, Z_ITEM, target);  // 3.5.6
    ev(g, E_EQUIP, p, iid, target, g.unit[p * 3 + target]);
  } else {
    move(g, iid, Z_SKILL);  // 3.6.1
    ev(g, E_SKILL, p, iid);
    push_frame(g, p, iid, g.P().abilities[c.effect]);
  }
}

static void activate(Game& g, int source, int slot) {
  int p = g.tp;
  ActivList lst;
  activated_list(g, p, source, lst);
  Activ a = lst.at(slot);
  const Ability& ab = g.P().abilities[a.ab];
  g.used.push_back(Used{a.src, g.stamp[a.src], ab.key});
  ev(g, E_ACTIVATE, p, a.src, a.self, ab.key);
  push_frame(g, p, a.self, ab);
}

// legal.apply_action: ``a`` is legal (checked by the caller against legal_actions)
static void apply_action(Game& g, int a) {
  ensure(g);  // fresh at every decision of a game played on; a restored game's are stale
  Dec d = std::move(g.dec);
  int kind = d.kind, p = d.player;
  g.dec.reset();
  if (a == A_SURRENDER) {
    surrender(g, p);
    return;
  }
  auto pop = [&]() {
    Task t = std::move(g.stack.back());
    g.stack.pop_back();
    return t;
  };
  if (kind == D_MAIN || kind == D_ATTACK) {
    if (a == A_END_MAIN) {
      pop();
      g.phase = PH_ATTACK;
      ev(g, E_PHASE, 0, p);
      g.stack.push_back(simple(T_ATTACK));
    } else if (a == A_END_ATTACK) {
      pop();
      ev(g, E_PHASE, 1, p);
      g.stack.push_back(task2(T_END, 0));
    } else if (a < A_ACTIVATE) {
      play(g, (a - A_PLAY) / 4, (a - A_PLAY) % 4);
    } else if (a < A_ATTACK) {
      activate(g, (a - A_ACTIVATE) / 8, (a - A_ACTIVATE) % 8);
    } else {
      declare_attack(g, a - A_ATTACK, false);
    }
  } else if (kind == D_PICK) {
    Task t = pop();
    if (a == A_PASS) {
      frame_pass(g, std::move(t));
    } else {
      int v = d.cands[a - A_PICK];
      switch (t.kind) {
        case T_FRAME: frame_pick(g, std::move(t), v); break;
        case T_BATCH:
          ev(g, E_ORDER, p);
          resolve_from_batch(g, t, v);
          break;
        case T_DISCARD: discard_pick(g, t, v); break;
        case T_ORDER: order_pick(g, t, v); break;
        default: guard_pick(g, std::move(t), v); break;
      }
    }
  } else if (kind == D_MULLIGAN) {
    pop();
    mulligan(g, p, a == A_MULLIGAN);
  } else if (kind == D_GUARDIAN) {
    if (a == A_PASS) ev(g, E_GUARDIAN_DECLINED, p);
    else start_guard(g, a - A_GUARDIAN);
  } else if (kind == D_DEFENSE) {
    if (a == A_PASS) ev(g, E_NO_DEFENSE, p);
    else declare_defense(g, g.unit[p * 3 + (a - A_DEFEND)], -1);
  } else if (kind == D_YESNO) {
    Task t = pop();
    if (a == A_YES) frame_yes(g, std::move(t));
    else frame_pass(g, std::move(t));
  }
  run(g);
}

}  // namespace nv
