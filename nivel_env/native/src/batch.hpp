// N games stepped together in C++ (env/vector.py GameBatch's work), with the GIL released
// and the batch split over threads: deal, apply, end and deal again, masks, actors and
// observations written into the caller's arrays.  The deals are GameBatch's, stream for
// stream (env/setup.py SeedStream and DeckChoice), so a native batch and a Python one
// reset with the same seed play the same games.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "encode.hpp"
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

// Helper threads for a batch's steps, started once and parked between steps.  A step is
// cut into small chunks of consecutive games that the caller's thread and the helpers
// claim one at a time (an atomic counter), so a helper that the OS runs late (a busy
// machine) costs nothing: the caller takes the chunks it did not, and waits only for
// chunks a helper has claimed.  Consecutive games keep each thread's writes to its own
// cache lines of the output arrays.
class Pool {
 public:
  explicit Pool(int helpers) : owner_(getpid()) {
    for (int t = 0; t < helpers; ++t) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {  // in the process that made it only (see Batch::keep_foreign)
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int helpers() const { return (int)workers_.size(); }
  bool mine() const { return owner_ == getpid(); }

  // runs fn(chunk) for chunk in [0, chunks), on this thread and the helpers
  void run(int chunks, const std::function<void(int)>& fn) {
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lk(mu_);
      gen = ++gen_;
      // closed first: a helper still holding the last generation's counter can no longer
      // claim with it (its exchange fails) once the chunk count changes below
      next_.store(gen << 32 | CLOSED, std::memory_order_seq_cst);
      fn_ = &fn;
      chunks_.store(chunks, std::memory_order_seq_cst);
      done_.store(0, std::memory_order_seq_cst);
      next_.store(gen << 32, std::memory_order_seq_cst);
    }
    cv_.notify_all();
    work(gen);
    // a helper is finishing a chunk: spin a little, then sleep, so that on a busy machine
    // a helper waiting for a core can be run on this one
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (done_.load(std::memory_order_acquire) < chunks) {
      if (std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
        continue;
      }
      std::unique_lock<std::mutex> lk(done_mu_);
      done_cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) >= chunks; });
    }
  }

 private:
  // claim chunks of generation ``gen`` until none is left
  void work(uint64_t gen) {
    for (;;) {
      uint64_t v = next_.load(std::memory_order_acquire);
      int64_t chunk = (int64_t)(v & 0xffffffffu);
      if ((v >> 32) != gen || chunk >= chunks_.load(std::memory_order_seq_cst)) return;
      if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_seq_cst)) continue;
      (*fn_)((int)chunk);
      int done = done_.fetch_add(1, std::memory_order_acq_rel) + 1;
      if (done == chunks_.load(std::memory_order_relaxed)) {
        std::lock_guard<std::mutex> lk(done_mu_);  // the caller may be asleep on the last one
        done_cv_.notify_all();
      }
    }
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      uint64_t gen;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || gen_ != seen; });
        if (stop_) return;
        gen = seen = gen_;
      }
      work(gen);
    }
  }
  pid_t owner_;  // the process whose threads these are
  std::vector<std::thread> workers_;
  std::mutex mu_, done_mu_;
  std::condition_variable cv_, done_cv_;
  bool stop_ = false;
  uint64_t gen_ = 0;
  // (generation << 32) | next chunk; a helper that wakes after its generation ended sees
  // another generation and claims nothing
  static constexpr uint64_t CLOSED = 0xffffffffu;
  std::atomic<uint64_t> next_{0};
  std::atomic<int> done_{0};
  const std::function<void(int)>* fn_ = nullptr;  // fixed while a claimed chunk runs
  std::atomic<int> chunks_{0};
};

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
  // the observation writer (nullptr: masks only); ``cache``: what the vector holds
  std::function<void(Game&, int, float*, enc::RowCache*)> encode;
  std::vector<enc::RowCache> caches;  // per game: what its row of ``obs`` holds
  const EncSpec* spec = nullptr;      // the encoder's layout (for prefetching its rows)
  int threads = 1;
  std::shared_ptr<Pool> pool;         // threads - 1 helpers, started on the first split step
  uint64_t sampler = 0;               // random_actions' SplitMix64 state
  // seconds per game of recent steps on one thread / split over the pool (0: none yet),
  // and steps since the slower way was last tried
  double pace[2] = {0.0, 0.0};
  int since_probe = 0;
  static constexpr int PROBE_EVERY = 16;

  static uint64_t next(uint64_t& s) { return next_u64(s); }

  Batch() = default;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() { keep_foreign(); }

  // A pool copied into a forked child (a multiprocessing worker) has no threads there,
  // and its parked helpers' condition variable cannot be destroyed in the child (glibc
  // waits for its waiters): the child lets go of it without destroying it and makes its
  // own on its next split step.
  void keep_foreign() {
    if (pool && !pool->mine()) new std::shared_ptr<Pool>(std::move(pool));  // never freed
  }

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
    if (encode) encode(g, p, obs + (size_t)i * obs_size, &caches[i]);
  }

  // every cached row of ``obs`` is rewritten on its next write (someone else wrote obs)
  void forget_rows() {
    for (auto& c : caches) c.forget();
  }

  void end(int i) {
    Game& g = games[i];
    int seat = learner[i];
    if (encode) encode(g, seat, final_obs + (size_t)i * obs_size, nullptr);
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
      // this game's output rows, fetched while the move runs (they were last written a
      // whole batch ago: in a far cache by now)
      bool* m = mask + (size_t)i * N_ACTIONS;
      for (int k = 0; k < N_ACTIONS; k += 64) __builtin_prefetch(m + k, 1);
      if (spec) enc::prefetch(*spec, obs + (size_t)i * obs_size, caches[i]);
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

  // a uniformly random legal action of every game into ``out`` (n values) from the
  // batch's own SplitMix64 stream ``sampler``: a random player with no numpy in the loop
  void random_actions(int64_t* out) {
    for (int i = 0; i < n; ++i) {
      const IV& legal = games[i].legal;
      out[i] = legal.empty() ? -1 : legal[(size_t)(next(sampler) % legal.size())];
    }
  }

  // whether ``acts`` (one per game) holds a legal action of every game: the caller's checks
  // of a whole step in one pass (Python says what is wrong when one is not)
  bool all_legal(const int64_t* acts) const {
    for (int i = 0; i < n; ++i) {
      int64_t a = acts[i];
      if (a < 0 || a >= N_ACTIONS || !mask[(size_t)i * N_ACTIONS + a]) return false;
    }
    return true;
  }

  // apply ``acts`` to the games ``rows`` (every game when ``all``), split over threads in
  // chunks of consecutive games
  std::string step(const int64_t* acts, const std::vector<int>& rows, bool all) {
    std::fill(done, done + n, false);
    std::fill(truncated, truncated + n, false);
    std::fill(reward, reward + n, 0.0f);
    int count = all ? n : (int)rows.size();
    constexpr int CHUNK = 8;
    int chunks = (count + CHUNK - 1) / CHUNK;
    int nt = std::max(1, std::min(threads, chunks / 2));
    std::vector<std::string> errors(chunks);
    auto work = [&](int c) {
      int hi = std::min(count, (c + 1) * CHUNK);
      for (int k = c * CHUNK; k < hi; ++k) {
        int i = all ? k : rows[k];
        std::string e = step_one(i, (int)acts[i]);
        if (!e.empty() && errors[c].empty()) errors[c] = e;
      }
    };
    if (nt == 1) {
      for (int c = 0; c < chunks; ++c) work(c);
    } else {
      // split or not: whichever has been faster per game lately (on a machine whose other
      // core is busy a helper can cost more than it brings), the other one now and then
      int mode = pace[0] == 0.0 ? 0 : pace[1] == 0.0 ? 1 : pace[1] < pace[0] ? 1 : 0;
      if (++since_probe >= PROBE_EVERY) {
        since_probe = 0;
        mode = 1 - mode;
      }
      auto t0 = std::chrono::steady_clock::now();
      if (mode == 0) {
        for (int c = 0; c < chunks; ++c) work(c);
      } else {
        keep_foreign();
        if (!pool || pool->helpers() != threads - 1) pool = std::make_shared<Pool>(threads - 1);
        pool->run(chunks, work);
      }
      double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                   count;
      pace[mode] = pace[mode] == 0.0 ? per : 0.75 * pace[mode] + 0.25 * per;
    }
    for (auto& e : errors)
      if (!e.empty()) return e;
    return "";
  }
};

}  // namespace nv
