// nivel_env.native._core: the native rules engine and its Python face.
//
// The rules are in rules.hpp / play.hpp / resolve.hpp, function for function as the Python
// engine has them.  This file converts the state to and from the Python engine's own field
// values (engine/state.py's _PICKLED order), so that nivel_env/native/game.py can give a
// native game the Python Game's whole API and the differential check can compare the two
// states bit for bit.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/numpy.h>

#include "resolve.hpp"
#include "encode.hpp"

namespace py = pybind11;
using namespace nv;

namespace {

py::list to_list(const IV& v) {
  py::list l(v.size());
  for (size_t i = 0; i < v.size(); ++i) l[i] = py::int_(v[i]);
  return l;
}
py::tuple to_tuple(const IV& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
  return t;
}
py::tuple entry_tuple(const Entry& e) {
  return py::make_tuple(e.cls, e.p, e.kind, e.iid, e.stamp, e.arg, e.arg2);
}

py::tuple task_tuple(const Task& t) {
  switch (t.kind) {
    case T_END: return py::make_tuple(t.kind, t.x[0]);
    case T_FRAME:
      return py::make_tuple(t.kind, t.x[0], t.x[1], t.x[2], t.x[3], t.x[4], to_tuple(t.v),
                            py::bool_(t.x[5] != 0), t.x[6]);
    case T_BATCH: {
      py::tuple ent(t.ent.size());
      for (size_t i = 0; i < t.ent.size(); ++i) ent[i] = entry_tuple(t.ent[i]);
      return py::make_tuple(t.kind, ent);
    }
    case T_DAMAGE: case T_DAMAGE_CHECK: return py::make_tuple(t.kind, t.x[0], t.x[1]);
    case T_DISCARD: return py::make_tuple(t.kind, t.x[0], t.x[1], t.x[2]);
    case T_GUARD: return py::make_tuple(t.kind, t.x[0], t.x[1], to_tuple(t.v));
    case T_MULLIGAN: return py::make_tuple(t.kind, t.x[0]);
    case T_LOSS_CHECK: return py::make_tuple(t.kind, to_tuple(t.v));
    case T_ORDER: return py::make_tuple(t.kind, t.x[0], to_tuple(t.v), t.x[1]);
    default: return py::make_tuple(t.kind);
  }
}

py::object dec_tuple(const Dec& d) {
  if (!d.has) return py::none();
  switch (d.kind) {
    case D_PICK:
      return py::make_tuple(d.kind, d.player, d.a, to_tuple(d.cands), py::bool_(d.b != 0), d.c, d.d);
    case D_YESNO:
      if (d.n == 7) return py::make_tuple(d.kind, d.player, d.a, d.b, d.c, d.d, d.e);
      return py::make_tuple(d.kind, d.player, d.a, d.b, d.c);
    case D_GUARDIAN: return py::make_tuple(d.kind, d.player, to_tuple(d.cands));
    case D_DEFENSE: return py::make_tuple(d.kind, d.player, d.a, py::bool_(d.b != 0));
    default: return py::make_tuple(d.kind, d.player);
  }
}

py::list pair_list(const std::vector<Pair>& v) {
  py::list l;
  for (auto& x : v) l.append(py::make_tuple(x.iid, x.stamp));
  return l;
}

// ---- reading Python values back (Game fields -> state)
IV ints(py::handle h) { return h.cast<IV>(); }
std::vector<IV> tuple_items(py::handle h) {
  std::vector<IV> out;
  for (auto x : h) out.push_back(x.cast<IV>());
  return out;
}
Entry entry_of(py::handle h) {
  IV v = h.cast<IV>();
  if (v.size() != 7) throw py::value_error("a waiting effect needs 7 fields");
  return Entry{v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

Task task_of(py::handle h) {
  py::tuple tp = py::reinterpret_borrow<py::object>(h).cast<py::tuple>();
  Task t;
  t.kind = tp[0].cast<int>();
  auto need = [&](size_t n) {
    if (tp.size() != n) throw py::value_error("work-stack task " + std::to_string(t.kind) +
                                              ": expected " + std::to_string(n) + " fields");
  };
  switch (t.kind) {
    case T_END: need(2); t.x[0] = tp[1].cast<int>(); break;
    case T_FRAME:
      need(9);
      for (int i = 0; i < 5; ++i) t.x[i] = tp[i + 1].cast<int>();
      t.v = ints(tp[6]);
      t.x[5] = tp[7].cast<bool>();
      t.x[6] = tp[8].cast<int>();
      break;
    case T_BATCH:
      need(2);
      for (auto e : tp[1]) t.ent.push_back(entry_of(e));
      break;
    case T_DAMAGE: case T_DAMAGE_CHECK:
      need(3); t.x[0] = tp[1].cast<int>(); t.x[1] = tp[2].cast<int>(); break;
    case T_DISCARD:
      need(4); for (int i = 0; i < 3; ++i) t.x[i] = tp[i + 1].cast<int>(); break;
    case T_GUARD:
      need(4); t.x[0] = tp[1].cast<int>(); t.x[1] = tp[2].cast<int>(); t.v = ints(tp[3]); break;
    case T_MULLIGAN: need(2); t.x[0] = tp[1].cast<int>(); break;
    case T_LOSS_CHECK: need(2); t.v = ints(tp[1]); break;
    case T_ORDER:
      need(4); t.x[0] = tp[1].cast<int>(); t.v = ints(tp[2]); t.x[1] = tp[3].cast<int>(); break;
    case T_TURN: case T_MAIN_START: case T_MAIN: case T_ATTACK: case T_BATTLE: need(1); break;
    default: throw py::value_error("unknown work-stack task " + std::to_string(t.kind));
  }
  return t;
}

Dec dec_of(py::handle h) {
  Dec d;
  if (h.is_none()) return d;
  py::tuple tp = py::reinterpret_borrow<py::object>(h).cast<py::tuple>();
  d.has = true;
  d.kind = tp[0].cast<int>();
  d.player = tp[1].cast<int>();
  d.n = (int)tp.size();
  switch (d.kind) {
    case D_PICK:
      d.a = tp[2].cast<int>(); d.cands = ints(tp[3]); d.b = tp[4].cast<bool>();
      d.c = tp[5].cast<int>(); d.d = tp[6].cast<int>();
      break;
    case D_YESNO:
      d.a = tp[2].cast<int>(); d.b = tp[3].cast<int>(); d.c = tp[4].cast<int>();
      if (d.n == 7) { d.d = tp[5].cast<int>(); d.e = tp[6].cast<int>(); }
      break;
    case D_GUARDIAN: d.cands = ints(tp[2]); break;
    case D_DEFENSE: d.a = tp[2].cast<int>(); d.b = tp[3].cast<bool>(); break;
    default: break;
  }
  return d;
}

Config config_of(py::tuple c) {
  if (c.size() != 10) throw py::value_error("RuleConfig: expected 10 options");
  Config k;
  k.starting_level = c[0].cast<int>(); k.first_turn_attack = c[1].cast<bool>();
  k.max_turns = c[2].cast<int>(); k.hand_limit = c[3].cast<int>(); k.mulligan = c[4].cast<bool>();
  k.choose_effect_order = c[5].cast<bool>(); k.surrender_action = c[6].cast<bool>();
  k.damage_if_defender_gone = c[7].cast<bool>(); k.simultaneous_each_player = c[8].cast<bool>();
  k.hand_owner_chooses = c[9].cast<bool>();
  return k;
}

struct PyProgram {
  std::shared_ptr<const Program> p;
};

struct Core {
  Game g;

  static Core* blank(const PyProgram& prog, py::tuple cfg, const IV& defs) {
    if (defs.size() != N_IID) throw py::value_error("defs: expected 82 card indices");
    auto* c = new Core();
    Game& g = c->g;
    g.prog = prog.p;
    g.cfg = config_of(cfg);
    for (int i = 0; i < N_IID; ++i) {
      if (defs[i] < 0 || defs[i] >= (int)prog.p->cards.size())
        throw py::value_error("defs: card index out of range");
      g.defs[i] = defs[i];
      g.where[i] = -4;
      g.stamp[i] = 0;
    }
    for (int s = 0; s < 6; ++s) g.unit[s] = -1;
    g.level[0] = g.level[1] = g.cfg.starting_level;
    g.awake[0] = g.awake[1] = false;
    g.placed[0] = g.placed[1] = 0;
    g.lost[0] = g.lost[1] = false;
    g.mulled[0] = g.mulled[1] = false;
    for (int s = 0; s < 6; ++s) { g.pw[s] = g.ht[s] = g.na[s] = g.cant[s] = g.uc[s] = 0; }
    g.size[0] = g.size[1] = 0;
    for (int p = 0; p < 2; ++p) g.where[p * PER] = Z_LEVEL * 4 + 3;
    return c;
  }

  // new_game: decks of ``n0`` and ``n1`` cards (iids p*PER+1 ..), shuffled from ``rng``
  static Core* new_game(const PyProgram& prog, py::tuple cfg, const IV& defs, int n0, int n1,
                        uint64_t rng, bool mirror) {
    Core* c = blank(prog, cfg, defs);
    Game& g = c->g;
    g.rng = rng;
    int ns[2] = {n0, n1};
    for (int p = 0; p < 2; ++p) {
      if (ns[p] < 1 || ns[p] > PER - 1) throw py::value_error("deck size out of range");
      for (int i = 0; i < ns[p]; ++i) {
        int iid = p * PER + 1 + i;
        g.deck[p].push_back(iid);
        g.where[iid] = Z_DECK * 4 + 3;
      }
    }
    try {
      setup(g, mirror);
    } catch (EngineError& e) {
      delete c;
      throw py::value_error(std::string("native engine: ") + e.what());
    }
    return c;
  }

  static Core* from_fields(const PyProgram& prog, py::tuple cfg, py::tuple f) {
    if (f.size() != 32) throw py::value_error("state: expected 32 fields");
    IV defs = ints(f[0]);
    Core* c = blank(prog, cfg, defs);
    Game& g = c->g;
    try {
      g.rng = f[1].cast<uint64_t>();
      Pile* piles[5] = {g.deck, g.hand, g.trash, g.damage, g.skill};
      for (int k = 0; k < 5; ++k) {
        auto two = tuple_items(f[2 + k]);
        if (two.size() != 2) throw py::value_error("a zone needs 2 players' lists");
        piles[k][0] = two[0];
        piles[k][1] = two[1];
      }
      IV unit = ints(f[7]);
      auto items = tuple_items(f[8]);
      IV where = ints(f[9]), stamp = ints(f[10]), level = ints(f[11]);
      if (unit.size() != 6 || items.size() != 6 || where.size() != N_IID ||
          stamp.size() != N_IID || level.size() != 2)
        throw py::value_error("state: a field has the wrong length");
      for (int s = 0; s < 6; ++s) { g.unit[s] = unit[s]; g.items[s] = items[s]; }
      for (int i = 0; i < N_IID; ++i) { g.where[i] = where[i]; g.stamp[i] = stamp[i]; }
      g.level[0] = level[0]; g.level[1] = level[1];
      auto awake = f[12].cast<std::vector<bool>>();
      g.awake[0] = awake.at(0); g.awake[1] = awake.at(1);
      g.turn = f[13].cast<int>(); g.tp = f[14].cast<int>(); g.first = f[15].cast<int>();
      g.phase = f[16].cast<int>();
      IV placed = ints(f[17]);
      g.placed[0] = placed.at(0); g.placed[1] = placed.at(1);
      for (auto x : f[18]) { IV v = x.cast<IV>(); g.attacked.push_back(Pair{v.at(0), v.at(1)}); }
      for (auto x : f[19]) { IV v = x.cast<IV>(); g.used.push_back(Used{v.at(0), v.at(1), v.at(2)}); }
      for (auto x : f[20]) {
        IV v = x.cast<IV>();
        g.mods.push_back(Mod{v.at(0), v.at(1), v.at(2), v.at(3), v.at(4)});
      }
      if (!f[21].is_none()) {
        py::list b = f[21].cast<py::list>();
        g.battle.has = true;
        g.battle.atk = b[0].cast<int>(); g.battle.lane = b[1].cast<int>();
        g.battle.def = b[2].cast<int>(); g.battle.step = b[3].cast<int>();
        g.battle.brk = ints(b[4]); g.battle.duel = b[5].cast<bool>();
        g.battle.atk_stamp = b[6].cast<int>(); g.battle.def_stamp = b[7].cast<int>();
      }
      for (auto x : f[22]) g.pend.push_back(entry_of(x));
      for (auto x : f[23]) g.stack.push_back(task_of(x));
      g.dec = dec_of(f[24]);
      auto lost = f[25].cast<std::vector<bool>>();
      g.lost[0] = lost.at(0); g.lost[1] = lost.at(1);
      if (!f[26].is_none()) {
        IV r = ints(f[26]);
        g.has_result = true; g.result[0] = r.at(0); g.result[1] = r.at(1);
      }
      g.truncated = f[27].cast<bool>();
      for (auto x : f[28]) { IV v = x.cast<IV>(); g.delayed.push_back(Pair{v.at(0), v.at(1)}); }
      // f[29] is the log: events stay on the Python side (game.py's prefix)
      auto mulled = f[30].cast<std::vector<bool>>();
      g.mulled[0] = mulled.at(0); g.mulled[1] = mulled.at(1);
      auto known = tuple_items(f[31]);
      g.known[0] = known.at(0); g.known[1] = known.at(1);
    } catch (...) {
      delete c;
      throw;
    }
    g.dirty = true;
    return c;
  }

  py::tuple fields() const {
    py::tuple t(32);
    IV defs(g.defs, g.defs + N_IID);
    t[0] = to_tuple(defs);
    t[1] = py::int_(g.rng);
    const Pile* piles[5] = {g.deck, g.hand, g.trash, g.damage, g.skill};
    for (int k = 0; k < 5; ++k) {
      py::list two;
      two.append(to_list(piles[k][0]));
      two.append(to_list(piles[k][1]));
      t[2 + k] = two;
    }
    t[7] = to_list(IV(g.unit, g.unit + 6));
    py::list items;
    for (int s = 0; s < 6; ++s) items.append(to_list(g.items[s]));
    t[8] = items;
    t[9] = to_list(IV(g.where, g.where + N_IID));
    t[10] = to_list(IV(g.stamp, g.stamp + N_IID));
    t[11] = to_list(IV(g.level, g.level + 2));
    py::list awake;
    awake.append(py::bool_(g.awake[0])); awake.append(py::bool_(g.awake[1]));
    t[12] = awake;
    t[13] = py::int_(g.turn); t[14] = py::int_(g.tp); t[15] = py::int_(g.first);
    t[16] = py::int_(g.phase);
    t[17] = to_list(IV(g.placed, g.placed + 2));
    t[18] = pair_list(g.attacked);
    py::list used;
    for (auto& u : g.used) used.append(py::make_tuple(u.src, u.stamp, u.key));
    t[19] = used;
    py::list mods;
    for (auto& m : g.mods) mods.append(py::make_tuple(m.kind, m.target, m.amount, m.until, m.by));
    t[20] = mods;
    if (g.battle.has) {
      const Battle& b = g.battle;
      py::list bl;
      bl.append(b.atk); bl.append(b.lane); bl.append(b.def); bl.append(b.step);
      bl.append(to_tuple(b.brk)); bl.append(py::bool_(b.duel)); bl.append(b.atk_stamp);
      bl.append(b.def_stamp);
      t[21] = bl;
    } else {
      t[21] = py::none();
    }
    py::list pend;
    for (auto& e : g.pend) pend.append(entry_tuple(e));
    t[22] = pend;
    py::list stack;
    for (auto& task : g.stack) stack.append(task_tuple(task));
    t[23] = stack;
    t[24] = dec_tuple(g.dec);
    py::list lost;
    lost.append(py::bool_(g.lost[0])); lost.append(py::bool_(g.lost[1]));
    t[25] = lost;
    t[26] = g.has_result ? py::object(py::make_tuple(g.result[0], g.result[1])) : py::object(py::none());
    t[27] = py::bool_(g.truncated);
    t[28] = pair_list(g.delayed);
    t[29] = py::none();
    py::list mulled;
    mulled.append(py::bool_(g.mulled[0])); mulled.append(py::bool_(g.mulled[1]));
    t[30] = mulled;
    py::list known;
    known.append(to_list(g.known[0])); known.append(to_list(g.known[1]));
    t[31] = known;
    return t;
  }

  py::list events(size_t start) const {
    py::list out;
    g.log.each_from(start, [&](const Ev& e) {
      out.append(py::make_tuple(e.kind, e.f[0], e.f[1], e.f[2], e.f[3], e.f[4], e.f[5]));
    });
    return out;
  }

  const IV& legal() {
    if (!g.legal_ok) {
      g.legal = legal_actions(g);
      g.legal_ok = true;
    }
    return g.legal;
  }

  // apply ``a`` if legal; false (state untouched) if not
  bool apply(int a) {
    if (g.has_result) return false;
    const IV& l = legal();
    if (!std::binary_search(l.begin(), l.end(), a)) return false;
    g.legal_ok = false;
    try {
      apply_action(g, a);
    } catch (EngineError& e) {
      throw std::runtime_error(std::string("native engine: ") + e.what());
    }
    return true;
  }
};

}  // namespace

// ---------------------------------------------------------------- observation encoders
// Encoder(spec: dict) -- the layout's offsets and the pool's tables, from
// nivel_env/native/encoder.py; encode(core, seat, out, legal=None) writes seat's
// observation into ``out`` (float32, C-contiguous, the layout's size); mask(core, out)
// writes the legal actions' mask into a bool / int8 / uint8 vector of 337.
namespace {

template <class T>
std::vector<T> vec_of(py::handle h) { return h.cast<std::vector<T>>(); }

nv::EncSpec spec_of(py::dict d) {
  nv::EncSpec S;
  auto I = [&](const char* k) { return d[k].cast<int>(); };
  S.compact = d["compact"].cast<bool>();
  S.size = I("size"); S.nvalues = I("nvalues");
  S.nfv = I("nfv"); S.nff = I("nff"); S.nkv = I("nkv");
  S.cleared = d["cleared"].cast<std::vector<std::pair<int, int>>>();
  S.seat = I("seat"); S.first_player = I("first_player"); S.my_turn = I("my_turn");
  S.phase = I("phase"); S.decision = I("decision"); S.acting = I("acting");
  S.pick_purpose = I("pick_purpose"); S.can_pass = I("can_pass"); S.count = I("count");
  S.guardian_lanes = I("guardian_lanes"); S.defender_lane = I("defender_lane");
  S.must_defend = I("must_defend"); S.effect_mine = I("effect_mine");
  S.in_battle = I("in_battle"); S.attacker_mine = I("attacker_mine");
  S.attack_lane = I("attack_lane"); S.battle_step = I("battle_step");
  S.breakthrough = I("breakthrough"); S.duelist = I("duelist");
  S.has_defender = I("has_defender"); S.me_flags = I("me_flags");
  S.opponent_flags = I("opponent_flags"); S.field_flags = I("field_flags");
  S.hand_slots = I("hand_slots"); S.candidate_slots = I("candidate_slots");
  S.ncf = I("ncf"); S.cf_is_card = I("cf_is_card"); S.cf_is_lane = I("cf_is_lane");
  S.cf_is_effect = I("cf_is_effect"); S.cf_mine = I("cf_mine"); S.cf_in_deck = I("cf_in_deck");
  S.cf_lane_0 = I("cf_lane_0"); S.cf_power = I("cf_power"); S.cf_effect_0 = I("cf_effect_0");
  S.ab_verbs = d["ab_verbs"].cast<std::vector<std::vector<int>>>();
  S.ab_steps = d["ab_steps"].cast<std::vector<std::vector<int>>>();
  S.nkw = I("nkw");
  S.kwinfo = vec_of<int>(d["kwinfo"]);
  S.kw_n5 = vec_of<double>(d["kw_n5"]);
  if (S.kwinfo.size() != (size_t)6 * S.nkw * 4 || S.kw_n5.size() != (size_t)S.nkw)
    throw py::value_error("Encoder: kwinfo must hold 6 x nkw x 4 ints, kw_n5 nkw values");
  S.cost = vec_of<int>(d["cost"]); S.power = vec_of<int>(d["power"]);
  S.hit = vec_of<int>(d["hit"]); S.back_row = vec_of<int>(d["back_row"]);
  auto table = d["full"].cast<py::array_t<float, py::array::c_style | py::array::forcecast>>();
  auto tenth = d["tenth"].cast<py::array_t<float, py::array::c_style | py::array::forcecast>>();
  if (table.ndim() != 2 || tenth.ndim() != 2 || table.shape(0) != tenth.shape(0) ||
      table.shape(1) != tenth.shape(1))
    throw py::value_error("Encoder: the card table and its tenths must be 2-D of one shape");
  S.nrows = (int)table.shape(0); S.width = (int)table.shape(1);
  S.full.assign(table.data(), table.data() + table.size());
  S.tenth.assign(tenth.data(), tenth.data() + tenth.size());
  S.zone_safe = I("zone_safe");
  auto parts = [&](const char* k) { return d[k].cast<std::vector<std::array<int, 3>>>(); };
  S.cards_parts = parts("cards_parts"); S.zones_parts = parts("zones_parts");
  S.known_parts = parts("known_parts");
  S.card_index = I("card_index"); S.known_index = I("known_index");
  auto zi = vec_of<int>(d["zone_index"]), zr = vec_of<int>(d["zone_rows"]);
  if (zi.size() != 6 || zr.size() != 6) throw py::value_error("Encoder: 6 zone index blocks");
  for (int z = 0; z < 6; ++z) { S.zone_index[z] = zi[z]; S.zone_rows[z] = zr[z]; }
  if (S.nvalues > S.size) throw py::value_error("Encoder: nvalues past the vector's size");
  return S;
}

void bind_encoders(py::module_& m) {
  py::class_<nv::EncSpec>(m, "Encoder")
      .def(py::init(&spec_of), py::arg("spec"))
      .def_property_readonly("size", [](const nv::EncSpec& S) { return S.size; })
      .def_property_readonly("compact", [](const nv::EncSpec& S) { return S.compact; })
      .def("encode", [](const nv::EncSpec& S, Core& c, int seat, py::array out,
                        py::object legal) {
        if (seat != 0 && seat != 1) throw py::value_error("Encoder.encode: seat must be 0 or 1");
        if (!py::isinstance<py::array_t<float>>(out) || out.ndim() != 1 ||
            out.shape(0) != S.size || !(out.flags() & py::array::c_style) || !out.writeable())
          throw py::value_error("Encoder.encode: out must be a writable C-contiguous float32 "
                                "vector of " + std::to_string(S.size) + " values, got dtype " +
                                py::str(out.dtype()).cast<std::string>() + " shape " +
                                py::str(py::tuple(py::cast(std::vector<py::ssize_t>(
                                    out.shape(), out.shape() + out.ndim())))).cast<std::string>());
        std::vector<int> lv;
        bool has_legal = !legal.is_none();
        if (has_legal) lv = legal.cast<std::vector<int>>();
        float* buf = static_cast<float*>(out.mutable_data());
        std::string err;
        {
          py::gil_scoped_release nogil;
          try {
            ensure(c.g);
            nv::enc::encode(S, c.g, seat, has_legal ? &lv : nullptr, buf);
          } catch (std::exception& e) {
            err = e.what();
          }
        }
        if (!err.empty()) throw std::runtime_error("native encoder: " + err);
      }, py::arg("core"), py::arg("seat"), py::arg("out"), py::arg("legal") = py::none())
      .def_static("mask", [](Core& c, py::array out) {
        auto k = out.dtype().kind();
        if (out.ndim() != 1 || out.shape(0) != N_ACTIONS || out.itemsize() != 1 ||
            !(k == 'b' || k == 'i' || k == 'u') || !(out.flags() & py::array::c_style) ||
            !out.writeable())
          throw py::value_error("Encoder.mask: out must be a writable contiguous bool, int8 or "
                                "uint8 vector of 337, got dtype " +
                                py::str(out.dtype()).cast<std::string>());
        auto* m = static_cast<uint8_t*>(out.mutable_data());
        std::memset(m, 0, N_ACTIONS);
        if (!c.g.has_result)
          for (int a : c.legal()) m[a] = 1;
      }, py::arg("core"), py::arg("out"));
}

}  // namespace

#include "batch_bind.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "The native Nivel Arena rules engine (see nivel_env/native/).";
  m.attr("ABI") = 1;
  m.attr("N_EVENTS") = (int)N_EVENTS;
  // a game state's fixed part (its lists of events, tasks and effects come on top)
  m.attr("GAME_BYTES") = (int)sizeof(nv::Game);
  py::dict terms;
  terms["verbs"] = std::vector<std::string>(VERB_KEYS, VERB_KEYS + N_VERBS);
  terms["conditions"] = std::vector<std::string>(COND_KEYS, COND_KEYS + N_CONDS);
  terms["timings"] = std::vector<std::string>(TIMING_KEYS, TIMING_KEYS + N_TIMINGS);
  terms["subkeywords"] = std::vector<std::string>(SUB_KEYS, SUB_KEYS + N_SUBS);
  terms["guardian_payments"] = std::vector<std::string>(PAYMENT_KEYS, PAYMENT_KEYS + N_PAYMENTS);
  m.attr("TERMS") = terms;
  nv_bind::bind_batch(m);

  py::class_<PyProgram>(m, "Program")
      .def(py::init([](py::dict d) {
        PyProgram p;
        p.p = std::make_shared<const Program>(load_program(d));
        return p;
      }))
      .def_property_readonly("n_cards", [](const PyProgram& p) { return p.p->cards.size(); });

  py::class_<Core>(m, "Core")
      .def_static("new_game", &Core::new_game, py::return_value_policy::take_ownership)
      .def_static("from_fields", &Core::from_fields, py::return_value_policy::take_ownership)
      .def("legal_actions", [](Core& c) { return c.legal(); })
      .def("apply", &Core::apply)
      .def("surrender", [](Core& c, int p) { surrender(c.g, p); })
      // engine.hidden.determinize: the cards behind the instances and the generator
      // redrawn, every place kept (Game.set_deal); derived stats and legality are stale
      .def("set_deal", [](Core& c, const IV& defs, uint64_t rng) {
        if (defs.size() != N_IID) throw py::value_error("set_deal: expected 82 card indices");
        for (int i = 0; i < N_IID; ++i)
          if (defs[i] < 0 || defs[i] >= (int)c.g.prog->cards.size())
            throw py::value_error("set_deal: card index out of range");
        for (int i = 0; i < N_IID; ++i) c.g.defs[i] = defs[i];
        c.g.rng = rng;
        c.g.dirty = true;
        c.g.legal_ok = false;
      })
      .def("clone", [](const Core& c) { return new Core(c); }, py::return_value_policy::take_ownership)
      .def("fields", &Core::fields)
      .def("events", &Core::events, py::arg("start") = 0)
      .def_property_readonly("n_events", [](const Core& c) { return c.g.log.size(); })
      .def_property_readonly("over", [](const Core& c) { return c.g.has_result; })
      .def_property_readonly("result", [](const Core& c) {
        return c.g.has_result ? py::object(py::make_tuple(c.g.result[0], c.g.result[1])) : py::object(py::none());
      })
      .def_property_readonly("current_player", [](const Core& c) {
        return c.g.has_result ? py::object(py::none()) : py::object(py::int_(c.g.dec.player));
      })
      .def_property_readonly("decision_kind", [](const Core& c) {
        return c.g.has_result ? -1 : c.g.dec.kind;
      })
      .def_property_readonly("dec", [](const Core& c) { return dec_tuple(c.g.dec); })
      .def_property_readonly("turn", [](const Core& c) { return c.g.turn; })
      .def_property_readonly("tp", [](const Core& c) { return c.g.tp; })
      .def_property_readonly("first", [](const Core& c) { return c.g.first; })
      .def_property_readonly("phase", [](const Core& c) { return c.g.phase; })
      .def_property_readonly("truncated", [](const Core& c) { return c.g.truncated; })
      .def_property_readonly("rng", [](const Core& c) { return c.g.rng; })
      .def_property_readonly("defs", [](const Core& c) {
        return to_tuple(IV(c.g.defs, c.g.defs + N_IID));
      });
  bind_encoders(m);

  // clone_game(game): NativeGame.clone in one call -- a new instance of ``game``'s class
  // (no __init__, as object.__new__ makes one) whose __dict__ is a copy of ``game``'s
  // with "_core" a copy of the core and "_py" (the mirror) None.  A clone is what a
  // search does most; done from Python it cost as much again as the core's own copy.
  static PyObject* const k_core = PyUnicode_InternFromString("_core");  // (immortal here)
  static PyObject* const k_py = PyUnicode_InternFromString("_py");
  m.def("clone_game", [](py::handle game) {
    PyObject* src = game.ptr();
    py::object d = py::reinterpret_steal<py::object>(PyObject_GenericGetDict(src, nullptr));
    if (!d || !PyDict_Check(d.ptr())) throw py::error_already_set();
    PyObject* core = PyDict_GetItemWithError(d.ptr(), k_core);  // (borrowed)
    if (!core) {
      if (PyErr_Occurred()) throw py::error_already_set();
      throw py::value_error("clone_game: the game has no core");
    }
    Core& c = py::handle(core).cast<Core&>();
    py::object copy = py::reinterpret_steal<py::object>(PyDict_Copy(d.ptr()));
    if (!copy) throw py::error_already_set();
    py::object nc = py::cast(new Core(c), py::return_value_policy::take_ownership);
    if (PyDict_SetItem(copy.ptr(), k_core, nc.ptr()) < 0 ||
        PyDict_SetItem(copy.ptr(), k_py, Py_None) < 0)
      throw py::error_already_set();
    PyTypeObject* tp = Py_TYPE(src);
    py::object out = py::reinterpret_steal<py::object>(tp->tp_alloc(tp, 0));
    if (!out) throw py::error_already_set();
    if (PyObject_GenericSetDict(out.ptr(), copy.ptr(), nullptr) < 0) throw py::error_already_set();
    return out;
  }, py::arg("game"));
}
