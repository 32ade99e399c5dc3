"""Search over hidden information: determinized PUCT with a trained policy as prior and its
critic as the value.

At each decision the agent samples ``worlds`` games consistent with what the acting
player may see (``nivel_env.engine.hidden.determinize``: the opponent's unknown hand
cards and both decks' orders redrawn, the engine's generator reseeded), grows one search
tree per world -- PUCT (the AlphaZero rule) with the policy's move probabilities as
priors and its value estimate at the leaves, both players' decisions searched -- and
plays the move with the most visits summed over the worlds.  Inside a world the engine
is deterministic, so a tree node holds its game state; moves with a single legal option
are played through without a node.

The search reads the game only through a world it redraws, so two games that differ only
in what the acting player cannot see give the same move (the worlds are drawn from the
hidden cards sorted by card, not from where they really are).  The budget is simulations
per move (``simulations``) and/or wall time (``max_ms``); the worlds and every choice
come from ``seed``, so with ``simulations`` alone a move is reproducible.

Each wave of the search takes one leaf from every world's tree and evaluates them in one
batched forward of the network.
"""
from __future__ import annotations

import time

import numpy as np

from nivel_env.engine.hidden import determinize
from nivel_env.env.encoder import Encoder


class _Node:
    """A decision inside one world: its state, who chooses, and per-move statistics
    (visit counts and value sums from the chooser's side)."""

    __slots__ = ("g", "player", "legal", "prior", "n", "visits", "value_sum", "children",
                 "expanded")

    def __init__(self, g):
        self.g = g
        over = g.result is not None
        self.player = -1 if over else g.dec[1]
        self.legal = [] if over else g.legal_actions()
        self.prior = None
        self.n = 0
        self.visits = np.zeros(len(self.legal), dtype=np.float64)
        self.value_sum = np.zeros(len(self.legal), dtype=np.float64)
        self.children: dict = {}
        self.expanded = False


def _advance(g, action: int):
    """A copy of ``g`` after ``action`` and every forced (single-option) move after it."""
    h = g.clone()
    h.apply_action(action)
    while h.result is None:
        legal = h.legal_actions()
        if len(legal) != 1:
            break
        h.apply_action(legal[0])
    return h


class SearchAgent:
    """Determinized PUCT over sampled worlds (see the module docstring).

    Args:
        policy: a ``PolicyAgent`` (or anything with ``.policy``, an SB3 actor-critic):
            priors from its action head, leaf values from its critic.
        simulations: simulations per move, split over the worlds (at least one each).
        worlds: worlds sampled per move.
        max_ms: also stop after this many milliseconds (then moves depend on timing).
        c_puct: exploration weight of the PUCT rule.
        temperature: 0 plays the most visited move; above 0 samples by visits^(1/T).
        seed: seeds the worlds and any sampling.
    """

    needs_observation = False
    needs_state = True

    def __init__(self, policy, simulations: int = 256, worlds: int = 8,
                 max_ms: float | None = None, c_puct: float = 1.5, temperature: float = 0.0,
                 seed: int | None = None):
        if simulations < 1 or worlds < 1:
            raise ValueError(f"SearchAgent: simulations and worlds must be at least 1, got "
                             f"{simulations} and {worlds}")
        if max_ms is not None and not max_ms > 0:
            raise ValueError(f"SearchAgent: max_ms must be positive, got {max_ms!r}")
        self.net = getattr(policy, "policy", policy)
        self.n_obs = int(self.net.observation_space.shape[0])
        self.simulations, self.worlds = int(simulations), int(worlds)
        self.max_ms, self.c_puct, self.temperature = max_ms, float(c_puct), float(temperature)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._encoders: list = []
        self.last_stats: dict = {}

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        raise TypeError("SearchAgent searches the game itself: call act_state(game) (the "
                        "arena, the environments' opponents, play and evaluate.py do)")

    # ---------------------------------------------------------------- search
    def act_state(self, game) -> int:
        """The move for the player ``game`` waits on, from what that player may see."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        t0 = time.perf_counter()
        me = game.dec[1]
        draw = self.rng.integers(1 << 62, size=self.worlds)
        roots = [_Node(determinize(game, me, int(s))) for s in draw]
        while len(self._encoders) < self.worlds:
            self._encoders.append(Encoder(game.db))
        per_world = max(1, self.simulations // self.worlds)
        waves = 0
        for waves in range(1, per_world + 1):
            self._wave(roots)
            if self.max_ms is not None and (time.perf_counter() - t0) * 1000 > self.max_ms:
                break
        visits = np.zeros(len(legal))
        prior = np.zeros(len(legal))
        index = {a: i for i, a in enumerate(legal)}
        for r in roots:                      # the acting player's moves: the same everywhere
            for a, v, p in zip(r.legal, r.visits, r.prior):
                visits[index[a]] += v
                prior[index[a]] += p
        if self.temperature > 0:
            w = visits ** (1.0 / self.temperature)
            choice = int(self.rng.choice(len(legal), p=w / w.sum())) if w.sum() > 0 \
                else int(np.argmax(prior))
        else:
            best = visits.max()
            tied = np.flatnonzero(visits == best)
            choice = int(tied[np.argmax(prior[tied])])
        self.last_stats = {"simulations": waves * self.worlds, "worlds": self.worlds,
                           "ms": (time.perf_counter() - t0) * 1000,
                           "visits": dict(zip(map(int, legal), visits.tolist()))}
        return int(legal[choice])

    def _wave(self, roots) -> None:
        """One simulation in every world: select down each tree, evaluate the new leaves
        together, back the values up."""
        paths, leaves, values = [], [], []
        for w, root in enumerate(roots):
            path, node = [], root
            while node.expanded and node.g.result is None:
                k = self._select(node)
                a = node.legal[k]
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = _Node(_advance(node.g, a))
                path.append((node, k))
                node = child
            paths.append(path)
            if node.g.result is not None:
                r = node.g.result
                values.append((float(r[0]), float(r[1])))
                leaves.append(None)
            else:
                values.append(None)
                leaves.append((w, node))
        todo = [x for x in leaves if x is not None]
        if todo:
            obs = np.zeros((len(todo), self.n_obs), dtype=np.float32)
            for j, (w, node) in enumerate(todo):
                obs[j] = self._encoders[w].encode(node.g, node.player, node.legal)[:self.n_obs]
            logits, v = self._evaluate(obs)
            j = 0
            for i, x in enumerate(leaves):
                if x is None:
                    continue
                node = x[1]
                z = logits[j][node.legal]
                p = np.exp(z - z.max())
                node.prior = p / p.sum()
                node.expanded = True
                val = float(np.clip(v[j], -1.0, 1.0))
                values[i] = (val, -val) if node.player == 0 else (-val, val)
                j += 1
        for path, (v0, v1) in zip(paths, values):
            for node, k in path:
                node.n += 1
                node.visits[k] += 1
                node.value_sum[k] += v0 if node.player == 0 else v1

    def _select(self, node) -> int:
        """PUCT: Q + c * P * sqrt(N) / (1 + n); unvisited moves start at the node's mean."""
        n = node.visits
        q = np.where(n > 0, node.value_sum / np.maximum(n, 1),
                     node.value_sum.sum() / max(node.n, 1))
        u = self.c_puct * node.prior * np.sqrt(node.n + 1) / (1.0 + n)
        return int(np.argmax(q + u))

    def _evaluate(self, obs: np.ndarray):
        """Action logits and value estimates for a batch of observations (one forward)."""
        import torch as th
        p = self.net
        with th.no_grad():
            x = th.as_tensor(obs).to(p.device)
            features = p.extract_features(x)
            if p.share_features_extractor:
                latent_pi, latent_vf = p.mlp_extractor(features)
            else:
                latent_pi = p.mlp_extractor.forward_actor(features[0])
                latent_vf = p.mlp_extractor.forward_critic(features[1])
            logits = p.action_net(latent_pi).float().cpu().numpy()
            values = p.value_net(latent_vf).float().cpu().numpy().reshape(-1)
        return logits, values


__all__ = ["SearchAgent"]
