// Python face of nv::Batch (nivel_env/native/batch.py wraps it as GameBatch's native backend).
#pragma once
#include <pybind11/numpy.h>

#include "batch.hpp"

namespace nv_bind {

namespace py = pybind11;
using nv::Batch;

template <class T>
T* buffer(py::handle a, const char* name, size_t count) {
  auto arr = py::reinterpret_borrow<py::array>(a);
  if (!py::isinstance<py::array_t<T>>(arr) || !(arr.flags() & py::array::c_style) ||
      (size_t)arr.size() != count || !arr.writeable())
    throw py::value_error(std::string("native batch: ") + name + " must be a writeable C-contiguous " +
                          py::str(py::dtype::of<T>()).cast<std::string>() + " array of " +
                          std::to_string(count) + " values");
  return static_cast<T*>(arr.mutable_data());
}

struct PyBatch {
  Batch b;
  py::list keep;  // the caller's arrays, kept alive while the batch writes into them
  struct Saved {  // what restore() puts back (the caller keeps its arrays)
    std::vector<nv::Game> games;
    std::vector<uint64_t> streams, seats;
  };
  std::unique_ptr<Saved> saved;
};

inline void bind_batch(py::module_& m) {
  py::class_<PyBatch>(m, "Batch")
      .def(py::init([](const PyProgram& prog, py::tuple cfg, py::list decks, bool fixed, int seat,
                       int n, int threads) {
             auto* pb = new PyBatch();
             Batch& b = pb->b;
             b.prog = prog.p;
             b.cfg = config_of(cfg);
             for (auto d : decks) {
               py::tuple t = d.cast<py::tuple>();
               nv::DeckSpec s{t[0].cast<int>(), t[1].cast<nv::IV>()};
               if (s.cards.empty() || s.cards.size() > nv::PER - 1)
                 throw py::value_error("native batch: a deck has 1 to 40 cards");
               b.decks.push_back(s);
             }
             if (b.decks.empty() || (fixed && b.decks.size() != 2))
               throw py::value_error("native batch: a fixed pair or a non-empty pool of decks");
             b.fixed = fixed;
             b.seat_option = seat;
             b.n = n;
             b.threads = std::max(1, threads);
             b.games.resize(n);
             b.streams.assign(n, 0);
             b.seats.assign(n, 0);
             return pb;
           }),
           py::arg("program"), py::arg("config"), py::arg("decks"), py::arg("fixed"),
           py::arg("seat"), py::arg("n"), py::arg("threads") = 1)
      .def("bind", [](PyBatch& pb, py::object mask, py::object actor, py::object learner,
                      py::object done, py::object truncated, py::object reward,
                      py::object episodes, py::object last_ret, py::object has_last) {
        Batch& b = pb.b;
        size_t n = b.n;
        b.mask = buffer<bool>(mask, "mask", n * nv::N_ACTIONS);
        b.actor = buffer<int8_t>(actor, "actor", n);
        b.learner = buffer<int8_t>(learner, "learner_seat", n);
        b.done = buffer<bool>(done, "done", n);
        b.truncated = buffer<bool>(truncated, "truncated", n);
        b.reward = buffer<float>(reward, "reward", n);
        b.episodes = buffer<int64_t>(episodes, "episodes", n);
        b.last_ret = buffer<int8_t>(last_ret, "last_returns", 2 * n);
        b.has_last = buffer<bool>(has_last, "has_last", n);
        for (auto x : {mask, actor, learner, done, truncated, reward, episodes, last_ret, has_last})
          pb.keep.append(x);
      })
      .def("attach_encoder", [](PyBatch& pb, py::object encoder, py::object obs,
                                py::object final_obs) {
        const nv::EncSpec& S = encoder.cast<const nv::EncSpec&>();
        Batch& b = pb.b;
        size_t n = b.n;
        b.obs = buffer<float>(obs, "obs", n * S.size);
        b.final_obs = buffer<float>(final_obs, "final_obs", n * S.size);
        b.obs_size = S.size;
        const nv::EncSpec* spec = &S;
        // the acting seat sees its playable hand slots (legal), the final view does not
        b.encode = [spec](nv::Game& g, int seat, float* out, nv::enc::RowCache* cache) {
          nv::ensure(g);
          bool acting = !g.has_result && g.legal_ok && g.dec.player == seat;
          nv::enc::encode(*spec, g, seat, acting ? &g.legal : nullptr, out, cache);
        };
        b.caches.assign(n, nv::enc::RowCache());  // obs: nothing known of what it holds
        b.spec = spec;
        pb.keep.append(encoder);
        pb.keep.append(obs);
        pb.keep.append(final_obs);
      }, py::arg("encoder"), py::arg("obs"), py::arg("final_obs"))
      .def("reset", [](PyBatch& pb, std::vector<uint64_t> streams, std::vector<uint64_t> seats) {
        Batch& b = pb.b;
        if ((int)streams.size() != b.n || (int)seats.size() != b.n)
          throw py::value_error("native batch: one stream state per game");
        if (!b.mask) throw py::value_error("native batch: bind() the output arrays first");
        b.streams = streams;
        b.seats = seats;
        py::gil_scoped_release nogil;
        for (int i = 0; i < b.n; ++i) b.deal(i);
      })
      .def("step", [](PyBatch& pb, py::array_t<int64_t, py::array::c_style | py::array::forcecast> acts,
                      py::object rows) {
        Batch& b = pb.b;
        if (acts.size() != b.n) throw py::value_error("native batch: one action per game");
        std::vector<int> r;
        if (!rows.is_none()) r = rows.cast<std::vector<int>>();
        const int64_t* a = acts.data();
        std::string err;
        {
          py::gil_scoped_release nogil;
          err = b.step(a, r, rows.is_none());
        }
        return err;
      })
      .def("try_step", [](PyBatch& pb, py::array_t<int64_t, py::array::c_style> acts)
               -> py::object {
        // every game's action, checked here: False (nothing moved) when one is not legal,
        // else step's answer
        Batch& b = pb.b;
        if (acts.ndim() != 1 || acts.size() != b.n)
          throw py::value_error("native batch: one action per game");
        const int64_t* a = acts.data();
        std::string err;
        bool legal;
        {
          py::gil_scoped_release nogil;
          legal = b.all_legal(a);
          if (legal) err = b.step(a, {}, true);
        }
        if (!legal) return py::bool_(false);
        return py::str(err);
      })
      .def("random_steps", [](PyBatch& pb, int rounds, uint64_t seed) {
        std::string err;
        {
          py::gil_scoped_release nogil;
          err = pb.b.random_steps(rounds, seed);
        }
        return err;
      })
      .def("game", [](PyBatch& pb, int i) {
        if (i < 0 || i >= pb.b.n) throw py::index_error("native batch: no such game");
        return new Core{pb.b.games[i]};
      }, py::return_value_policy::take_ownership)
      .def("save", [](PyBatch& pb) {
        pb.saved.reset(new PyBatch::Saved{pb.b.games, pb.b.streams, pb.b.seats});
      })
      .def("restore", [](PyBatch& pb) {
        if (!pb.saved) throw py::value_error("native batch: nothing saved");
        Batch& b = pb.b;
        PyBatch::Saved& s = *pb.saved;
        b.games = s.games; b.streams = s.streams; b.seats = s.seats;
        b.forget_rows();  // the caller puts its own copy of obs back
      })
      .def("forget_rows", [](PyBatch& pb) { pb.b.forget_rows(); })
      .def("random_actions", [](PyBatch& pb, py::object out) {
        Batch& b = pb.b;
        int64_t* o = buffer<int64_t>(out, "random_actions out", b.n);
        {
          py::gil_scoped_release nogil;
          b.random_actions(o);
        }
        return out;
      }, py::arg("out"))
      .def_property("sampler_state", [](PyBatch& pb) { return pb.b.sampler; },
                    [](PyBatch& pb, uint64_t s) { pb.b.sampler = s; })
      .def("drop_saved", [](PyBatch& pb) { pb.saved.reset(); })
      .def_property("threads", [](PyBatch& pb) { return pb.b.threads; },
                    [](PyBatch& pb, int t) {
                      pb.b.threads = std::max(1, t);
                      pb.b.pace[0] = pb.b.pace[1] = 0.0;  // time both ways afresh
                    })
      .def_property_readonly("n", [](PyBatch& pb) { return pb.b.n; });
}

}  // namespace nv_bind
