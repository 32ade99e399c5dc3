// The game state: the Python engine's fields (nivel_env/engine/state.py), one for one, so
// that both engines' states convert to the same Python values and compare bit for bit.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "program.hpp"

namespace nv {

constexpr int PER = 41;
constexpr int N_IID = 2 * PER;

enum { Z_DECK, Z_HAND, Z_UNIT, Z_ITEM, Z_SKILL, Z_TRASH, Z_DAMAGE, Z_LEVEL };
enum { PH_SETUP, PH_LEVEL_UP, PH_DRAW, PH_MAIN, PH_ATTACK, PH_END, PH_OVER };
enum {
  T_TURN, T_MAIN_START, T_MAIN, T_ATTACK, T_END, T_BATTLE, T_FRAME, T_BATCH, T_DAMAGE,
  T_DAMAGE_CHECK, T_DISCARD, T_GUARD, T_MULLIGAN, T_LOSS_CHECK, T_ORDER
};
enum { D_MULLIGAN, D_MAIN, D_ATTACK, D_GUARDIAN, D_DEFENSE, D_YESNO, D_PICK };
enum {
  P_TARGET, P_ORDER, P_HAND_LIMIT, P_CREDIT, P_BARRIER, P_SACRIFICE, P_OFFSET, P_CARD_ORDER
};
enum { CONT, AUTO };
enum {
  K_ABILITY, K_PIERCE, K_PLUNDER, K_INFILTRATE, K_FINALE, K_MUTUAL, K_RETURN, K_CREDIT_DRAW,
  K_CREDIT_DISCARD, K_RETURN_HAND
};
enum { M_POWER, M_HIT, M_ATTACKS, M_SIZE, M_GRANT, M_PROHIBIT, M_SCALE_POWER, M_SCALE_HIT, M_COST };
enum { U_TURN, U_BATTLE, U_LEAVES };
constexpr int PROHIBIT_ATTACK = 1, PROHIBIT_DEFEND = 2;
enum { BS_GUARD, BS_DEFENSE, BS_BATTLE, BS_RESOLVE, BS_END };
enum { SUB_FRESH, SUB_YES, SUB_PICKING, SUB_PICKED };

// action ids (engine/actions.py)
constexpr int A_KEEP = 0, A_MULLIGAN = 1, A_END_MAIN = 2, A_END_ATTACK = 3, A_PASS = 4,
              A_YES = 5, A_SURRENDER = 6, A_PLAY = 8, A_ACTIVATE = 168, A_ATTACK = 200,
              A_DEFEND = 203, A_GUARDIAN = 206, A_PICK = 209, N_ACTIONS = 337;

// Events: a kind and up to six ints; nivel_env/native/game.py turns them into the
// engine's event records (engine/events.py), field by field.
enum EvKind {
  E_SETUP, E_MULLIGAN, E_TURN, E_PHASE, E_END_TURN, E_EXPIRE, E_LEVEL, E_AWAKEN, E_DRAW,
  E_DECK_OUT, E_SURRENDER, E_GAME_OVER, E_GAME_EFFECT, E_PLAY, E_EQUIP, E_SKILL, E_ACTIVATE,
  E_PLACE, E_MOVE, E_ATTACK, E_GUARDIAN, E_DEFEND, E_GUARDIAN_DECLINED, E_NO_DEFENSE,
  E_BATTLE, E_BATTLE_END, E_DAMAGE_WINDOW, E_DAMAGE, E_EFFECT, E_TRIGGER, E_EFFECT_END,
  E_DECLINE, E_FIZZLE, E_KEYWORD, E_ORDER, E_CARD_ORDER, E_DISCARD, E_MILL, E_TO_DAMAGE,
  E_HEAL, E_TRASH, E_POWER_ZERO, E_EQUIP_LOST, E_RETURN_TO_HAND, E_TO_DECK_BOTTOM,
  E_SALVAGE, E_REVEAL, E_SEARCH, E_SHUFFLE, E_MODIFY, E_GRANT, E_PROHIBIT, E_SCALE, N_EVENTS
};
// small string codes inside events (game.py holds the same tables)
enum { BR_UNBLOCKED, BR_DEFENDER_TRASHED, BR_ATTACKER_TRASHED, BR_ATTACKER_GONE, BR_DEFENDER_GONE };
enum { GO_LOSS, GO_BOTH_LOST, GO_MAX_TURNS };
enum { TR_BATTLE, TR_EFFECT, TR_UPGRADE, TR_RULE };
// discard reasons: the pick purposes 0-7, then these
constexpr int DR_EFFECT = 8, DR_BARRIER = 9;
// reveal causes
enum { RV_RETURN_TO_HAND, RV_TO_DECK_BOTTOM, RV_SALVAGE, RV_SEARCH };

// A list of at most N ints stored inline: a state made of these copies with one memcpy
// (clone: trivially copyable, so the compiler copies the game's lists as one block, not
// list by list), and moving cards allocates nothing.  Overflow is an error, never a write
// past the end (a pile holds at most a player's 41 cards).
template <int N>
struct SVec {
  int n = 0;
  int v[N];
  using value_type = int;
  SVec() = default;
  // copy ``o``'s elements only (a plain copy moves the whole array: right for a state's
  // one-block copy, wasteful for one short list)
  void assign(const SVec& o) {
    n = o.n;
    std::copy(o.v, o.v + o.n, v);
  }
  int size() const { return n; }
  bool empty() const { return n == 0; }
  int* begin() { return v; }
  int* end() { return v + n; }
  const int* begin() const { return v; }
  const int* end() const { return v + n; }
  int& operator[](int i) { return v[i]; }
  int operator[](int i) const { return v[i]; }
  int back() const { return v[n - 1]; }
  void push_back(int x) {
    if (n >= N) overflow();
    v[n++] = x;
  }
  void pop_back() { --n; }
  void clear() { n = 0; }
  void insert_front(int x) {
    if (n >= N) overflow();
    for (int i = n; i > 0; --i) v[i] = v[i - 1];
    v[0] = x;
    ++n;
  }
  void erase_at(int i) {
    for (int k = i; k < n - 1; ++k) v[k] = v[k + 1];
    --n;
  }
  SVec& operator=(const std::vector<int>& o) {
    if ((int)o.size() > N) overflow();
    n = (int)o.size();
    for (int i = 0; i < n; ++i) v[i] = o[i];
    return *this;
  }
  operator std::vector<int>() const { return std::vector<int>(v, v + n); }
  [[noreturn]] static void overflow() {
    throw std::length_error("native state: a list went over its fixed size of " +
                            std::to_string(N) + " (a zone, or a unit's keywords)");
  }
};
using Pile = SVec<PER>;

struct Ev {
  int kind;
  int f[6];
};

// The event log: append-only, in chunks that a game shares with its clones, so that a
// clone copies one pointer and a length, not every event so far.  Only a chunk's free tail
// is ever written: a game logs in place when no game sharing the chunk has logged past
// its own end there (``used``, claimed atomically, so that clones may play on in
// different threads), and otherwise first copies the chunk's events up to its end (at
// most CAP).  Full chunks are never written again.
struct EvChunk {
  static constexpr int CAP = 64;
  std::shared_ptr<EvChunk> prev;  // the full chunk before, or null
  uint32_t base = 0;              // the index of ev[0] in the log
  std::atomic<uint32_t> used{0};  // slots claimed by some game sharing this chunk
  Ev ev[CAP];
  EvChunk() {}  // (the events are written as they are logged)
};

struct EvLog {
  std::shared_ptr<EvChunk> tail;
  uint32_t n = 0;

  size_t size() const { return n; }
  void push_back(const Ev& e) {
    EvChunk* t = tail.get();
    uint32_t k = t ? n - t->base : 0;
    if (!t || k == (uint32_t)EvChunk::CAP) {  // a new chunk after the full one
      auto c = std::make_shared<EvChunk>();
      c->prev = std::move(tail);
      c->base = n;
      c->used.store(1, std::memory_order_relaxed);
      c->ev[0] = e;
      tail = std::move(c);
    } else if (tail.use_count() == 1) {  // ours alone: whatever a former sharer wrote is dead
      t->used.store(k + 1, std::memory_order_relaxed);
      t->ev[k] = e;
    } else {
      uint32_t expect = k;
      if (t->used.compare_exchange_strong(expect, k + 1, std::memory_order_acq_rel)) {
        t->ev[k] = e;
      } else {  // another game logged past our end here: copy our part of the chunk
        auto c = std::make_shared<EvChunk>();
        c->prev = t->prev;
        c->base = t->base;
        std::copy(t->ev, t->ev + k, c->ev);
        c->ev[k] = e;
        c->used.store(k + 1, std::memory_order_relaxed);
        tail = std::move(c);
      }
    }
    ++n;
  }
  void clear() {
    tail.reset();
    n = 0;
  }
  // events [start, n) in order
  template <class F>
  void each_from(size_t start, F fn) const {
    if (start >= n) return;
    const EvChunk* chunks[64];
    std::vector<const EvChunk*> more;  // a log of over 64 chunks read from far back
    int nc = 0;
    for (const EvChunk* c = tail.get(); c; c = c->prev.get()) {
      if (nc < 64) chunks[nc++] = c;
      else more.push_back(c);
      if (c->base <= start) break;
    }
    auto visit = [&](const EvChunk* c) {
      uint32_t end = std::min<uint32_t>(n, c->base + EvChunk::CAP);
      for (uint32_t i = std::max<uint32_t>(c->base, (uint32_t)start); i < end; ++i)
        fn(c->ev[i - c->base]);
    };
    for (size_t i = more.size(); i-- > 0;) visit(more[i]);
    for (int i = nc; i-- > 0;) visit(chunks[i]);
  }
};

struct Entry {  // a waiting effect (Game.pend): (cls, player, kind, self_iid, stamp, arg, arg2)
  int cls, p, kind, iid, stamp, arg, arg2;
  bool operator==(const Entry& o) const {
    return cls == o.cls && p == o.p && kind == o.kind && iid == o.iid && stamp == o.stamp &&
           arg == o.arg && arg2 == o.arg2;
  }
};

// A work-stack task.  Fields by kind (x[]):
//   T_END: step | T_FRAME: p, self, key, step, sub, did, part (v: picked)
//   T_DAMAGE / T_DAMAGE_CHECK: p, n | T_DISCARD: p, n, purpose | T_GUARD: slot, key (v:
//   picked) | T_MULLIGAN: p | T_LOSS_CHECK: (v: losers) | T_ORDER: q, source (v: cards)
//   T_BATCH: (ent: entries)
struct Task {
  int kind = 0;
  int x[7] = {0, 0, 0, 0, 0, 0, 0};
  std::vector<int> v;
  std::vector<Entry> ent;
};

struct Mod { int kind, target, amount, until, by; };
struct Used { int src, stamp, key; };
struct Pair { int iid, stamp; };

struct Battle {
  bool has = false;
  int atk = -1, lane = 0, def = -1, step = 0;
  std::vector<int> brk;
  bool duel = false;
  int atk_stamp = 0, def_stamp = -1;
};

// The pending decision (Game.dec).  Fields by kind:
//   D_PICK: player = chooser, a = purpose, cands, b = can pass, c = ability key, d = source
//   D_YESNO: a = key, b = source, c = step; with n == 7 also d = count, e = most
//   D_GUARDIAN: cands = lanes | D_DEFENSE: a = lane, b = must
struct Dec {
  bool has = false;
  int kind = 0, player = 0, a = 0, b = 0, c = 0, d = 0, e = 0, n = 2;
  std::vector<int> cands;
  // back to no decision, keeping the candidates' storage (a decision a step)
  void reset() {
    has = false;
    kind = player = a = b = c = d = e = 0;
    n = 2;
    cands.clear();
  }
};

struct Config {
  int starting_level = 1;
  bool first_turn_attack = true;
  int max_turns = 200;
  int hand_limit = 7;
  bool mulligan = true;
  bool choose_effect_order = true;
  bool surrender_action = false;
  bool damage_if_defender_gone = true;
  bool simultaneous_each_player = true;
  bool hand_owner_chooses = false;
};

struct Game {
  std::shared_ptr<const Program> prog;
  Config cfg;
  int defs[N_IID];
  uint64_t rng = 0;
  Pile deck[2], hand[2], trash[2], damage[2], skill[2];
  int unit[6];
  Pile items[6];
  int where[N_IID], stamp[N_IID];
  int level[2];
  bool awake[2];
  int turn = 0, tp = 0, first = 0, phase = PH_SETUP;
  int placed[2];
  std::vector<Pair> attacked;
  std::vector<Used> used;
  std::vector<Mod> mods;
  Battle battle;
  std::vector<Entry> pend;
  std::vector<Task> stack;
  Dec dec;
  bool lost[2];
  bool has_result = false;
  int result[2] = {0, 0};
  bool truncated = false;
  std::vector<Pair> delayed;
  EvLog log;
  bool mulled[2];
  Pile known[2];
  // derived (stats.refresh) and the legal-action cache: never saved
  bool dirty = true;
  int pw[6], ht[6], na[6], cant[6], size[2], uc[6];
  SVec<64> kws[6];
  bool legal_ok = false;
  std::vector<int> legal;

  const Program& P() const { return *prog; }
  const Card& card(int iid) const { return prog->cards[defs[iid]]; }
};

}  // namespace nv
