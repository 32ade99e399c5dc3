// The card program: a pool's cards as the tables nivel_env/native/program.py compiles.
//
// The core knows no card; it reads these rows.  Term codes are positions in TERMS (the
// vocabulary keys the core has handlers for); program.py maps the pool's keys to them and
// refuses, by name, a pool with a key not listed here.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace nv {

constexpr int NONE = -(1 << 30);  // an unset bound (None in a Python Filter)

// ---- term codes (the order of the lists in TERMS, below)
enum Verb {
  V_DRAW, V_DISCARD, V_MILL, V_DAMAGE, V_HEAL, V_LEVEL, V_SIZE, V_TRASH, V_RETURN_TO_HAND,
  V_TO_DECK_BOTTOM, V_SALVAGE, V_SEARCH, V_MODIFY, V_GRANT, V_PROHIBIT, V_MOVE, V_WIN,
  V_LOSE, V_ATTACK, V_SCALE, V_TO_DAMAGE, N_VERBS
};
static const char* VERB_KEYS[] = {
  "draw", "discard", "mill", "damage", "heal", "level", "size", "trash", "return_to_hand",
  "to_deck_bottom", "salvage", "search", "modify", "grant", "prohibit", "move", "win",
  "lose", "attack", "scale", "to_damage"};

enum CondKind {
  C_ARMED, C_FRONTLINE, C_LEVEL_LINK, C_MIX, C_CHAIN, C_BUFF, C_LEVEL_AT_LEAST,
  C_OPP_LEVEL_AT_LEAST, C_DAMAGE_AT_LEAST, C_OPP_DAMAGE_AT_LEAST, C_HAND_AT_LEAST,
  C_HAND_AT_MOST, C_COUNT_AT_LEAST, C_COUNT_AT_MOST, N_CONDS
};
static const char* COND_KEYS[] = {
  "armed", "frontline", "level_link", "mix", "chain", "buff", "level_at_least",
  "opponent_level_at_least", "damage_at_least", "opponent_damage_at_least", "hand_at_least",
  "hand_at_most", "count_at_least", "count_at_most"};

enum Timing {
  W_ENTRY, W_PASSIVE, W_ACTIVE_MAIN, W_ACTIVE_ATTACK, W_ATTACKER, W_DEFENDER, W_EXIT,
  W_ESCAPE, W_END_OF_TURN, W_BEFORE_DAMAGE, W_WHENEVER, W_TRIGGER, N_TIMINGS
};
static const char* TIMING_KEYS[] = {
  "entry", "passive", "active_main", "active_attack", "attacker", "defender", "exit",
  "escape", "end_of_turn", "before_damage", "whenever", "trigger"};

enum Term {
  S_PIERCE, S_PLUNDER, S_BREAKTHROUGH, S_DUELIST, S_INFILTRATE, S_FINALE, S_MUTUAL,
  S_RETURN, S_BERSERKER, S_GUARDIAN, S_CREDIT, N_SUBS
};
static const char* SUB_KEYS[] = {
  "pierce", "plunder", "breakthrough", "duelist", "infiltrate", "finale",
  "mutual_destruction", "return", "berserker", "guardian", "credit"};

enum Payment { G_BARRIER, G_SACRIFICE, G_OFFSET, N_PAYMENTS };
static const char* PAYMENT_KEYS[] = {"barrier", "sacrifice", "offset"};

// program.py's small enumerations
enum { TY_LEADER, TY_UNIT, TY_ITEM, TY_SKILL };
enum { R_SELF, R_ENCOUNTER, R_ATTACKER, R_DEFENDER, R_BATTLE_OPPONENT, R_EQUIPPED };
enum { WHO_YOU, WHO_OPPONENT, WHO_ANY };  // selector.who; action.player: 2 = each
enum { SZ_UNIT, SZ_ITEM, SZ_HAND, SZ_TRASH, SZ_DECK, SZ_DAMAGE, SZ_SKILL };
enum { L_ANY, L_SAME, L_ADJACENT, L_OTHER };
enum { MODE_ALL, MODE_CHOOSE, MODE_UP_TO, MODE_RANDOM };
enum { ST_LEVEL, ST_DAMAGE, ST_HAND };
enum { WATCH_DRAW, WATCH_DISCARD, WATCH_TRASH, WATCH_DAMAGE };

struct Filter {
  bool empty = true;
  int types = 0;
  bool has_attrs = false;
  int attrs = 0;
  std::vector<int> affil;
  int cost_min = NONE, cost_max = NONE, power_min = NONE, power_max = NONE;
  int hit_min = NONE, hit_max = NONE;
  int keyword = -1;
  int has_item = -1, has_trigger = -1;
  bool has_ids = false;
  std::vector<int> ids;
};

struct Selector {
  int ref = -1, who = WHO_OPPONENT, zone = SZ_UNIT, lanes = L_ANY;
  bool other = false;
  int filter = -1, mode = MODE_CHOOSE, n = 1;
};

struct Value {
  int n = 0, count = -1, times = 1, stat = -1, who = WHO_YOU;
};

struct Condition {
  int kind = 0, n = 0, text = -1, sel = -1;
};

struct Keyword {
  int name = -1, term = 0, n = 0, filter = -1, guardian = -1;
  std::vector<int> gates;
  int key = -1;
};

struct Action {
  int verb = 0, target = -1, amount = -1, player = 0;
  int power = 0, hit = 0, attacks = 0, cost = 0, size = 0, until = 0, keyword = -1;
  int prohibit = -1;
  bool optional = false, if_done = false;
  int condition = -1;
  bool up_to = false, random = false;
  int filter = -1;
  bool additionally = false;
  int stat = 0, percent = 100;
};

struct Ability {
  int when = 0;
  std::vector<int> actions, gates;
  int condition = -1;
  bool optional = false;
  std::vector<int> cost;
  int key = -1, limit = 1, watch = -1, whose = WHO_YOU;
  std::vector<int> seq;  // cost, then actions: the order a frame runs them
};

struct Card {
  int type = 0, cost = 0, power = 0, hit = 0, attr = -1;
  std::vector<int> affil, abilities, subkw;
  int trigger = -1, effect = -1, equip = -1, awakening = 0;
  bool has_back = false;
  std::vector<int> back_abilities, back_subkw, names, activated, passives;
  // derived at load: a face's abilities by timing, in printed order ([0] the front,
  // [1] the back), so that the hot paths read only the abilities of the timing they serve
  std::vector<int> by_when[2][N_TIMINGS];
};

struct Program {
  std::vector<Filter> filters;
  std::vector<Selector> selectors;
  std::vector<Value> values;
  std::vector<Condition> conditions;
  std::vector<Action> actions;
  std::vector<Ability> abilities;
  std::vector<Keyword> keywords;
  std::vector<Card> cards;
  bool moving[N_VERBS] = {};
  bool has_window = false;     // some ability has the before_damage timing
  int watched = 0;             // bit per watched action of the pool's whenever abilities
  Filter empty_filter;

  const Filter& filter(int i) const { return i < 0 ? empty_filter : filters[i]; }
};

// ---- loading, with each row's width checked
struct RowReader {
  py::list row;
  std::string where;
  size_t i = 0;
  RowReader(py::handle h, const std::string& w) : where(w) {
    if (!py::isinstance<py::list>(h)) throw py::value_error(where + ": expected a list");
    row = py::reinterpret_borrow<py::list>(h);
  }
  py::handle next() {
    if (i >= row.size()) throw py::value_error(where + ": row too short");
    return row[i++];
  }
  int num() { return next().cast<int>(); }
  bool flag() { return next().cast<int>() != 0; }
  std::vector<int> ints() { return next().cast<std::vector<int>>(); }
  void done() {
    if (i != row.size()) throw py::value_error(where + ": row too long");
  }
};

template <class T, class F>
static void load_table(const py::dict& d, const char* name, std::vector<T>& out, F read) {
  if (!d.contains(name)) throw py::value_error(std::string("program: no table '") + name + "'");
  py::list rows = d[name].cast<py::list>();
  out.clear();
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    RowReader r(rows[i], std::string("program table '") + name + "' row " + std::to_string(i));
    out.push_back(read(r));
    r.done();
  }
}

static Program load_program(const py::dict& d) {
  Program P;
  load_table(d, "filters", P.filters, [](RowReader& r) {
    Filter f;
    f.empty = r.flag(); f.types = r.num(); f.has_attrs = r.flag(); f.attrs = r.num();
    f.affil = r.ints(); f.cost_min = r.num(); f.cost_max = r.num(); f.power_min = r.num();
    f.power_max = r.num(); f.hit_min = r.num(); f.hit_max = r.num(); f.keyword = r.num();
    f.has_item = r.num(); f.has_trigger = r.num(); f.has_ids = r.flag(); f.ids = r.ints();
    return f;
  });
  load_table(d, "selectors", P.selectors, [](RowReader& r) {
    Selector s;
    s.ref = r.num(); s.who = r.num(); s.zone = r.num(); s.lanes = r.num(); s.other = r.flag();
    s.filter = r.num(); s.mode = r.num(); s.n = r.num();
    return s;
  });
  load_table(d, "values", P.values, [](RowReader& r) {
    Value v;
    v.n = r.num(); v.count = r.num(); v.times = r.num(); v.stat = r.num(); v.who = r.num();
    return v;
  });
  load_table(d, "conditions", P.conditions, [](RowReader& r) {
    Condition c;
    c.kind = r.num(); c.n = r.num(); c.text = r.num(); c.sel = r.num();
    return c;
  });
  load_table(d, "actions", P.actions, [](RowReader& r) {
    Action a;
    a.verb = r.num(); a.target = r.num(); a.amount = r.num(); a.player = r.num();
    a.power = r.num(); a.hit = r.num(); a.attacks = r.num(); a.cost = r.num();
    a.size = r.num(); a.until = r.num(); a.keyword = r.num(); a.prohibit = r.num();
    a.optional = r.flag(); a.if_done = r.flag(); a.condition = r.num(); a.up_to = r.flag();
    a.random = r.flag(); a.filter = r.num(); a.additionally = r.flag(); a.stat = r.num();
    a.percent = r.num();
    return a;
  });
  load_table(d, "abilities", P.abilities, [](RowReader& r) {
    Ability a;
    a.when = r.num(); a.actions = r.ints(); a.gates = r.ints(); a.condition = r.num();
    a.optional = r.flag(); a.cost = r.ints(); a.key = r.num(); a.limit = r.num();
    a.watch = r.num(); a.whose = r.num();
    a.seq = a.cost;
    a.seq.insert(a.seq.end(), a.actions.begin(), a.actions.end());
    return a;
  });
  load_table(d, "keywords", P.keywords, [](RowReader& r) {
    Keyword k;
    k.name = r.num(); k.term = r.num(); k.n = r.num(); k.filter = r.num();
    k.guardian = r.num(); k.gates = r.ints(); k.key = r.num();
    return k;
  });
  load_table(d, "cards", P.cards, [](RowReader& r) {
    Card c;
    c.type = r.num(); c.cost = r.num(); c.power = r.num(); c.hit = r.num(); c.attr = r.num();
    c.affil = r.ints(); c.abilities = r.ints(); c.subkw = r.ints(); c.trigger = r.num();
    c.effect = r.num(); c.equip = r.num(); c.awakening = r.num();
    py::handle back = r.next();
    if (!back.is_none()) {
      py::list b = back.cast<py::list>();
      if (b.size() != 2) throw py::value_error(r.where + ": back face needs 2 lists");
      c.has_back = true;
      c.back_abilities = b[0].cast<std::vector<int>>();
      c.back_subkw = b[1].cast<std::vector<int>>();
    }
    c.names = r.ints(); c.activated = r.ints(); c.passives = r.ints();
    return c;
  });
  for (int v : d["moving_verbs"].cast<std::vector<int>>()) {
    if (v < 0 || v >= N_VERBS) throw py::value_error("program: moving_verbs out of range");
    P.moving[v] = true;
  }
  // every reference in range (a program from elsewhere must not read out of bounds)
  auto chk = [](int i, size_t n, bool allow_none, const std::string& what) {
    if ((allow_none && i == -1) || (i >= 0 && (size_t)i < n)) return;
    throw py::value_error("program: " + what + " " + std::to_string(i) + " out of range");
  };
  for (auto& s : P.selectors) chk(s.filter, P.filters.size(), true, "selector filter");
  for (auto& v : P.values) chk(v.count, P.selectors.size(), true, "value selector");
  for (auto& c : P.conditions) {
    chk(c.sel, P.selectors.size(), true, "condition selector");
    if (c.kind < 0 || c.kind >= N_CONDS) throw py::value_error("program: condition kind");
  }
  for (auto& a : P.actions) {
    if (a.verb < 0 || a.verb >= N_VERBS) throw py::value_error("program: verb code");
    chk(a.target, P.selectors.size(), true, "action target");
    chk(a.amount, P.values.size(), false, "action amount");
    chk(a.condition, P.conditions.size(), true, "action condition");
    chk(a.filter, P.filters.size(), true, "action filter");
    chk(a.keyword, P.keywords.size(), true, "action keyword");
  }
  for (size_t i = 0; i < P.abilities.size(); ++i) {
    auto& a = P.abilities[i];
    if (a.key != (int)i) throw py::value_error("program: ability keys must be their rows");
    if (a.when < 0 || a.when >= N_TIMINGS) throw py::value_error("program: timing code");
    for (int x : a.seq) chk(x, P.actions.size(), false, "ability action");
    for (int x : a.gates) chk(x, P.conditions.size(), false, "ability gate");
    chk(a.condition, P.conditions.size(), true, "ability condition");
    if (a.when == W_BEFORE_DAMAGE) P.has_window = true;
    if (a.when == W_WHENEVER && a.watch >= 0) P.watched |= 1 << a.watch;
  }
  for (size_t i = 0; i < P.keywords.size(); ++i) {
    auto& k = P.keywords[i];
    if (k.key != (int)i) throw py::value_error("program: keyword keys must be their rows");
    if (k.term < 0 || k.term >= N_SUBS) throw py::value_error("program: sub-keyword code");
    chk(k.filter, P.filters.size(), true, "keyword filter");
    for (int x : k.gates) chk(x, P.conditions.size(), false, "keyword gate");
  }
  for (auto& c : P.cards) {
    for (int x : c.abilities) chk(x, P.abilities.size(), false, "card ability");
    for (int x : c.back_abilities) chk(x, P.abilities.size(), false, "card ability");
    for (int x : c.activated) chk(x, P.abilities.size(), false, "card ability");
    for (int x : c.passives) chk(x, P.abilities.size(), false, "card ability");
    for (int x : c.subkw) chk(x, P.keywords.size(), false, "card keyword");
    for (int x : c.back_subkw) chk(x, P.keywords.size(), false, "card keyword");
    chk(c.trigger, P.abilities.size(), true, "card trigger");
    chk(c.effect, P.abilities.size(), true, "card effect");
    chk(c.equip, P.filters.size(), true, "card equip");
    for (int a : c.abilities) c.by_when[0][P.abilities[a].when].push_back(a);
    for (int a : c.back_abilities) c.by_when[1][P.abilities[a].when].push_back(a);
  }
  return P;
}

}  // namespace nv
