// N games stepped together in C++ (env/vector.py GameBatch's work), with the GIL released
// and the batch split over threads: deal, apply, end and deal again, masks, actors and
// observations written into the caller's arrays.  The deals are GameBatch's, stream for
// stream (env/setup.py SeedStream and DeckChoice), so a native batch and a Python one
// reset with the same seed play the same games.
#pragma once
#include <functional>
#include <thread>

#include "resolve.hpp"

namespace nv {

inline uint64_t seed_state(uint64_t seed) {  // engine/rng.py seed_state, mod 2^64
  return seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
}

struct DeckSpec {
  int leader;
  IV cards;  // pool indices, in deck order
};

// blank_game + new_game's deal + setup (state.py, engine/__init__.py)
inline void deal_game(Game& g, const std::shared_ptr<const Program>& prog, const Config& cfg,
                      const DeckSpec& d0, const DeckSpec& d1, uint64_t seed, bool mirror) {
  g = Game();
  g.prog = prog;
  g.cfg = cfg;
  const DeckSpec* ds[2] = {&d0, &d1};
  for (int i = 0; i < N_IID; ++i) { g.defs[i] = 0; g.where[i] = -4; g.stamp[i] = 0; }
  for (int s = 0; s < 6; ++s) {
    g.unit[s] = -1;
    g.pw[s] = g.ht[s] = g.na[s] = g.cant[s] = g.uc[s] = 0;
  }
  g.size[0] = g.size[1] = 0;
  g.level[0] = g.level[1] = cfg.starting_level;
  g.awake[0] = g.awake[1] = false;
  g.placed[0] = g.placed[1] = 0;
  g.lost[0] = g.lost[1] = false;
  g.mulled[0] = g.mulled[1] = false;
  for (int p = 0; p < 2; ++p) {
    g.defs[p * PER] = ds[p]->leader;
    g.where[p * PER] = Z_LEVEL * 4 + 3;
    for (size_t i = 0; i < ds[p]->cards.size(); ++i) {
      int iid = p * PER + 1 + (int)i;
      g.defs[iid] = ds[p]->cards[i];
      g.deck[p].push_back(iid);
      g.where[iid] = Z_DECK * 4 + 3;
    }
  }
  g.rng = seed_state(seed);
  setup(g, mirror);
}

struct Batch {
  std::shared_ptr<const Program> prog;
  Config cfg;
  std::vector<DeckSpec> decks;  // the fixed pair, or the pool
  bool fixed = false;
  int seat_option = -1;  // -1: drawn per deal
  int n = 0;
  std::vector<Game> games;
  std::vector<uint64_t> streams, seats;
  // outputs (the caller's arrays)
  float* obs = nullptr;
  float* final_obs = nullptr;
  int obs_size = 0;
  bool* mask = nullptr;
  int8_t *actor = nullptr, *learner = nullptr, *last_ret = nullptr;
  bool *done = nullptr, *truncated = nullptr, *has_last = nullptr;
  float* reward = nullptr;
  int64_t* episodes = nullptr;
  // the observation writer (nullptr: masks only)
  std::function<void(Game&, int, float*)> encode;
  int threads = 1;

  static uint64_t next(uint64_t& s) { return next_u64(s); }

  void deal(int i) {
    uint64_t& st = streams[i];
    uint64_t seed = next(st);
    int a = 0, b = 1;
    if (!fixed) {
      a = (int)(next(st) % decks.size());
      b = (int)(next(st) % decks.size());
    }
    learner[i] = (int8_t)(seat_option < 0 ? (int)(next(seats[i]) % 2) : seat_option);
    deal_game(games[i], prog, cfg, decks[a], decks[b], seed, false);
    write(i);
  }

  void write(int i) {
    Game& g = games[i];
    int p = g.dec.player;
    actor[i] = (int8_t)p;
    legal_actions(g, g.legal);
    g.legal_ok = true;
    bool* m = mask + (size_t)i * N_ACTIONS;
    std::fill(m, m + N_ACTIONS, false);
    for (int a : g.legal) m[a] = true;
    if (encode) encode(g, p, obs + (size_t)i * obs_size);
  }

  void end(int i) {
    Game& g = games[i];
    int seat = learner[i];
    if (encode) encode(g, seat, final_obs + (size_t)i * obs_size);
    done[i] = true;
    truncated[i] = g.truncated;
    reward[i] = (float)g.result[seat];
    last_ret[2 * i] = (int8_t)g.result[0];
    last_ret[2 * i + 1] = (int8_t)g.result[1];
    has_last[i] = true;
    episodes[i] += 1;
    deal(i);
  }

  // one game's move (legal: the caller checked the mask); returns an error or ""
  std::string step_one(int i, int a) {
    Game& g = games[i];
    if (g.has_result || a < 0 || a >= N_ACTIONS || !mask[(size_t)i * N_ACTIONS + a])
      return "game " + std::to_string(i) + ": action " + std::to_string(a) + " is not legal";
    try {
      g.legal_ok = false;
      apply_action(g, a);
      if (g.has_result) end(i);
      else write(i);
    } catch (std::exception& e) {
      return "game " + std::to_string(i) + ": " + e.what();
    }
    return "";
  }

  // ``rounds`` random legal moves in every game (a uniform player on a SplitMix64 stream
  // from ``seed``): the engine's own speed, with no Python in the loop
  std::string random_steps(int rounds, uint64_t seed) {
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < n; ++i) {
        const IV& legal = games[i].legal;
        int a = legal[(size_t)(next(seed) % legal.size())];
        std::string e = step_one(i, a);
        if (!e.empty()) return e;
      }
    }
    return "";
  }

  // apply ``acts`` to the games ``rows`` (every game when ``all``), split over threads
  std::string step(const int64_t* acts, const std::vector<int>& rows, bool all) {
    std::fill(done, done + n, false);
    std::fill(truncated, truncated + n, false);
    std::fill(reward, reward + n, 0.0f);
    int count = all ? n : (int)rows.size();
    int nt = std::max(1, std::min(threads, count / 32));
    std::vector<std::string> errors(nt);
    auto work = [&](int t) {
      for (int k = t; k < count; k += nt) {
        int i = all ? k : rows[k];
        std::string e = step_one(i, (int)acts[i]);
        if (!e.empty() && errors[t].empty()) errors[t] = e;
      }
    };
    if (nt == 1) {
      work(0);
    } else {
      std::vector<std::thread> pool;
      for (int t = 1; t < nt; ++t) pool.emplace_back(work, t);
      work(0);
      for (auto& th : pool) th.join();
    }
    for (auto& e : errors)
      if (!e.empty()) return e;
    return "";
  }
};

}  // namespace nv
