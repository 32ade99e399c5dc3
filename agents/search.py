"""Search over hidden information: determinized PUCT with a trained policy as prior and a
value head (or the policy's critic) at the leaves.

At each decision the agent samples ``worlds`` games consistent with what the acting
player may see (``nivel_env.engine.hidden.determinize``: its own deck's order redrawn,
the opponent's unknown hand and deck cards drawn from what it may know of the opponent's
deck -- by default only the cards the opponent's leader may use, as deck lists are not
public, docs/rulings.md R24, ``agents.worlds`` -- and the engine's generator reseeded),
grows one search tree per world -- PUCT (the AlphaZero rule) with the policy's move
probabilities as priors and a value estimate at the leaves, both players' decisions
searched -- and plays the move with the most visits summed over the worlds (or, with
``root="gumbel"``, sequential halving over Gumbel-sampled moves shared by the worlds: see
``SearchAgent``).  Inside a
world the engine is deterministic, so a tree node holds its game state; moves with a
single legal option are played through without a node.

The search reads the game only through a world it redraws, so two games that differ only
in what the acting player cannot see give the same move: the opponent's hidden cards come
from a public prior given only the cards in view and the counts
(``engine.hidden.opponent_view``), its own deck's from its cards sorted, never from
where they really lie (``python -m nivel_env check``'s ``agents`` check holds it to that).
With ``belief`` on, the worlds are picked from more candidates by how likely the
opponent's remembered moves were in each (``agents.belief``), which reads the past
positions only through each candidate's cards (``tests/players/test_belief.py``).
The budget is simulations per move (``simulations``) and/or wall time (``max_ms``); the
worlds and every choice come from ``seed``, so with ``simulations`` alone a move is
reproducible.

``max_ms`` is a cap on the whole move's wall time (what a waiting person feels), counted
from the call: sampling the worlds, expanding the roots and every wave.  It is checked
after each world is sampled (at least one is), before each wave and between the descents
of a wave, so a wave the time runs out in is cut short -- the leaves already selected are
evaluated and backed up, no virtual loss is left -- and the most visited move so far is
played.  What can pass the cap: the roots' one forward (always made: without it there is
no move to rank) and a cut wave's last descent and forward; the descents stop early by
the longest forward seen in the move (at most a tenth of the cap), so that forward still
fits.  A cap the search stays inside changes nothing: the same waves, in the same order,
from the same seed, give the same move as no cap (``tests/players/test_search.py``).  ``threads``
sets torch's intra-op threads in whichever thread runs the forwards: with two, OpenMP's
waiting thread spins on a core other work holds, and a forward took seconds
(docs/opponents.md, "Thinking within a time limit").

Each wave of the search takes ``batch`` leaves spread over the worlds' trees (a leaf that
waits for its value holds a virtual loss, so the next pick in the same tree goes
elsewhere) and evaluates them in one batched forward of the network: a forward for one
position costs nearly what one for sixteen does.

What a move costs, and what is done about it without changing a single float (the moves
are the plain search's, ``tests/players/test_search.py``; ``benchmarks/native_search.py``
compares moves, visits and time with the previous version): the forwards
(``agents.leaf_forward``: the card layer on the rows that hold a card), the tree (one
selection loop in ``_wave``, no call per node; children by move index; a node's result
read once), the priors (``leaf_priors``, the softmax of a whole wave at once), the
observations (into a reused buffer) and the worlds (``agents.worlds``).

The leaf value: PPO's critic estimates the policy's return against its training pool,
which flatters whichever seat it is asked about; ``agents.value_fit`` fits a head over the
same features to how self-play games of the policy end, and the shipped ``nv2-search``
uses the one in ``agents/values/`` (docs/opponents.md has both measured).
"""
from __future__ import annotations

import gc
import itertools
import math
import time

import numpy as np

from nivel_env.engine.hidden import determinize
from nivel_env.env.encoder import Encoder

from .belief import PolicyLogits, make_belief
from .worlds import check_deck_lists, deck_prior

#: how the root's move is chosen: PUCT's most visited, or the Gumbel root's survivor
ROOTS = ("puct", "gumbel")


class _Node:
    """A decision inside one world: its state, who chooses, and per-move statistics
    (visit counts and value sums from the chooser's side), kept as Python lists: with a
    handful of legal moves a Python loop beats numpy's per-call cost.  ``children[k]`` is
    the node after move ``k`` (None until a descent first takes it); ``over`` is the
    game's result, read once (a node's game never moves on: a child is a copy)."""

    __slots__ = ("g", "over", "player", "legal", "prior", "n", "w", "visits", "value_sum",
                 "children", "expanded", "pending", "value")

    def __init__(self, g, legal=None):
        self.g = g
        self.over = g.result
        if self.over is None:
            self.player = g.current_player
            self.legal = g.legal_actions() if legal is None else legal
        else:
            self.player, self.legal = -1, []
        self.prior: list = []
        self.n = 0                      # visits through this node
        self.w = 0.0                    # their value sum, from the chooser's side
        k = len(self.legal)
        self.visits = [0] * k
        self.value_sum = [0.0] * k
        self.children: list = [None] * k
        self.expanded = False
        self.pending = False            # waiting for the network in this wave
        self.value = 0.0


def _advance(g, action: int):
    """A copy of ``g`` after ``action`` and every forced (single-option) move after it,
    and its legal moves (None once the game is over)."""
    h = g.clone()
    h.apply_action(action)
    while h.result is None:
        legal = h.legal_actions()
        if len(legal) != 1:
            return h, legal
        h.apply_action(legal[0])
    return h, None


def leaf_priors(logits: np.ndarray, legal: list, temperature: float) -> list:
    """Each row's prior over its legal moves: the softmax of ``logits[j][legal[j]]`` at
    ``temperature``, as lists of floats.  Computed for the whole batch at once with the
    float32 operations each row would get alone -- the division, the row's max taken off,
    ``exp`` (elementwise: the same bits on any slice), the row's own ``sum`` (numpy's
    ``add.reduceat`` adds in another order, and its bits differ) and the division by it
    -- so the same bits as row by row."""
    sizes = [len(x) for x in legal]
    n = len(sizes)
    cols = np.fromiter(itertools.chain.from_iterable(legal), dtype=np.intp, count=sum(sizes))
    starts = np.zeros(n, dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    z = logits[np.repeat(np.arange(n), sizes), cols] / temperature
    e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts), sizes))
    total = np.array([e[a:a + k].sum() for a, k in zip(starts.tolist(), sizes)],
                     dtype=e.dtype)
    flat = (e / np.repeat(total, sizes)).tolist()
    return [flat[a:a + k] for a, k in zip(starts.tolist(), sizes)]


class SearchAgent:
    """Determinized PUCT over sampled worlds (see the module docstring).

    Args:
        policy: a ``PolicyAgent`` (or anything with ``.policy``, an SB3 actor-critic):
            priors from its action head, leaf values from its critic.
        simulations: simulations per move, split over the worlds (at least one each).
        worlds: worlds sampled per move.
        max_ms: a cap on each move's wall time in milliseconds (see the module
            docstring); the search stops there with the best move so far, so a move
            that hits it depends on timing.  None: simulations alone.
        threads: torch intra-op threads for the forwards, set in the thread that searches
            (None: leave torch's setting; 1 for interactive play, ``agents.opponents``).
        c_puct: exploration weight of the PUCT rule.
        temperature: 0 plays the most visited move; above 0 samples by visits^(1/T).
        value: a value head for the leaves (``agents.value_fit``: a path or a loaded
            ``ValueHead``); None uses the policy's own critic.
        policy_path: the policy's file, to check that ``value`` was fit to it.
        prior_temperature: priors are the policy's probabilities at this temperature; above
            1 flattens them, so the search also tries moves the policy rates low (a trained
            policy is often near-certain, and PUCT then rarely looks past its first choice).
        batch: leaves evaluated per network forward, shared over the worlds (a leaf
            waiting for its value holds a virtual loss, so a world's later picks in the
            same wave go elsewhere).
        seed: seeds the worlds and any sampling.
        deck_lists: what the player knows of the opponent's deck (``agents.worlds``):
            ``"closed"`` (default, the rules: the opponent's hidden cards are drawn from
            the cards their leader may use), ``"open"`` (open deck lists: their list is
            known) or a list of decks (``Deck`` objects or names) they may be playing.
        root: how the move at the root is chosen: ``"puct"`` (default: PUCT at the root
            too, the most visited move over the worlds) or ``"gumbel"`` (below).
        considered: the Gumbel root's candidates, at most (``m``).
        c_visit, c_scale: the Gumbel root's monotone transform of the values,
            sigma(q) = (c_visit + the most visits of a move) * c_scale * q.
        belief: weight the worlds by how likely the opponent's moves were in them
            (``agents.belief``): ``"on"``/True (defaults), ``"tempered"`` (the weights
            kept at an effective sample size of half the candidates), a ``Belief``, or
            ``"off"`` (default: the worlds as drawn).  On, the agent has ``inform_action``, which
            the drivers call with every move (``nivel_env.players.inform``).

    The Gumbel root (Danihelka et al. 2022, "Policy improvement by planning with
    Gumbel"): draw Gumbel noise g(a) for the legal moves (from the agent's rng), take the
    ``m = min(legal, considered)`` moves with the largest g + logits (the policy's raw
    logits at the root, not the flattened priors: the Gumbel-max trick makes argmax
    g + logits a sample from the policy itself, which is what the method's guarantee of
    improving on the policy rests on) and run sequential halving over them:
    ceil(log2 m) phases, each spending an equal share of the budget in equal visits to
    the survivors (the last phase what is left), then keeping the better half by
    g + logits + sigma(q) -- q the completed value rescaled to [0, 1] by the root's
    values' min and max, a move never visited completed with the mixed value (the
    roots' value and the visited moves' values weighted by the policy).  The survivor is
    played.  Below the root the trees are PUCT's, with the flattened priors.

    Worlds share one root decision: the player cannot tell the worlds apart, so its move
    is one move for all of them, and what it should maximise is the move's value
    averaged over the worlds (the information set's expected value, as far as the
    sample says).  So there is one halving over the moves, not one per world followed by
    a vote: a candidate's q is the mean over the worlds that visited it of its value in
    that world, and its visits go round the worlds (visit j of candidate c goes to world
    (c + j) mod worlds), so every survivor is valued on the same worlds as far as the
    budget allows -- world luck (a good draw for the player) lifts every candidate
    alike and drops out of the comparison, as common random numbers do.  A halving per
    world would let each world's noise eliminate candidates on its own, and a vote
    throws away how much better a move is.  The visits are summed over the worlds for
    sigma's "most visits" (they are all samples of the one decision's values).  Each
    phase runs as waves of ``batch`` leaves over the worlds, one forward a wave.  The
    root's logits are the mean of the worlds' root rows (each world's root is the same
    position in the player's view).  ``temperature`` must be 0: the Gumbel noise is the
    sampling.  ``max_ms`` stops it as it stops PUCT; the survivor with the most visits
    and the best score is played.
    """

    needs_observation = False
    needs_state = True

    def __init__(self, policy, simulations: int = 128, worlds: int = 4,
                 max_ms: float | None = None, c_puct: float = 2.5, temperature: float = 0.0,
                 batch: int = 16, value=None, policy_path=None, prior_temperature: float = 8.0,
                 seed: int | None = None, deck_lists="closed", threads: int | None = None,
                 root: str = "puct", considered: int = 16, c_visit: float = 50.0,
                 c_scale: float = 0.1, oracle=None, belief="off"):
        if root not in ROOTS:
            raise ValueError(f"SearchAgent: root must be one of {', '.join(ROOTS)}, got "
                             f"{root!r}")
        if root == "gumbel":
            if isinstance(considered, bool) or not (isinstance(considered, int)
                                                    and considered >= 1):
                raise ValueError(f"SearchAgent: considered must be a positive int, got "
                                 f"{considered!r}")
            if not (c_visit >= 0 and c_scale > 0):
                raise ValueError(f"SearchAgent: c_visit must be at least 0 and c_scale "
                                 f"positive, got {c_visit!r} and {c_scale!r}")
            if temperature != 0:
                raise ValueError(f"SearchAgent: root='gumbel' samples through its Gumbel "
                                 f"noise; temperature must be 0, got {temperature!r}")
        if not prior_temperature > 0:
            raise ValueError(f"SearchAgent: prior_temperature must be positive, got "
                             f"{prior_temperature!r}")
        if simulations < 1 or worlds < 1 or batch < 1:
            raise ValueError(f"SearchAgent: simulations, worlds and batch must be at least "
                             f"1, got {simulations}, {worlds} and {batch}")
        if max_ms is not None and not max_ms > 0:
            raise ValueError(f"SearchAgent: max_ms must be positive, got {max_ms!r}")
        if threads is not None and not (isinstance(threads, int) and threads >= 1):
            raise ValueError(f"SearchAgent: threads must be a positive int, got {threads!r}")
        self.net = getattr(policy, "policy", policy)
        self.n_obs = int(self.net.observation_space.shape[0])
        self.simulations, self.worlds = int(simulations), int(worlds)
        self.max_ms, self.c_puct, self.temperature = max_ms, float(c_puct), float(temperature)
        self.batch = int(batch)
        self.prior_temperature = float(prior_temperature)
        self.root, self.considered = root, int(considered)
        self.c_visit, self.c_scale = float(c_visit), float(c_scale)
        if value is not None and not callable(value):
            from .value import load_value_head
            value = load_value_head(value, policy_path)
        self.value = value
        if oracle is not None and not hasattr(oracle, "values"):
            from .oracle import load_oracle
            oracle = load_oracle(oracle, self.net, policy_path)
        self.oracle = oracle
        self.seed = seed
        try:
            self.deck_lists = check_deck_lists(deck_lists)     # an unknown deck: refused now
        except ValueError as e:
            raise ValueError(f"SearchAgent: {e}") from None
        try:
            self.belief = make_belief(belief)               # refused now, by name
        except ValueError as e:
            raise ValueError(f"SearchAgent: {e}") from None
        if self.belief is not None:                         # told every move (players.py)
            self.inform_action = self.belief.record
        self._prior: tuple | None = None          # (card pool, prior) built on first use
        self.rng = np.random.default_rng(seed)
        self._encoders: list = []                 # one per world
        self._buffer: np.ndarray | None = None    # the leaves' observations, reused
        self._forward = None                      # LeafForward, made on first use
        self.threads = threads
        #: the clock ``max_ms`` is measured on (seconds; tests give a fake one)
        self.clock = time.perf_counter
        self._deadline: float | None = None       # this move's, while it searches
        self._reserve = 0.0                       # its longest forward, seconds
        self.last_stats: dict = {}

    def reset(self) -> None:
        if self.belief is not None:
            self.belief.reset()

    def __getstate__(self) -> dict:
        """Pickled without what a move rebuilds: the leaves' buffer and the forward (a pool
        member is pickled to its worker)."""
        state = dict(self.__dict__)
        state.update(_buffer=None, _forward=None)
        return state

    def act(self, observation, action_mask) -> int:
        raise TypeError("SearchAgent searches the game itself: call act_state(game) (the "
                        "arena, the environments' opponents, play and evaluate.py do)")

    # ---------------------------------------------------------------- search
    def act_state(self, game) -> int:
        """The move for the player ``game`` waits on, from what that player may see."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._search(game, legal)
        finally:
            if paused:
                gc.enable()

    def _search(self, game, legal: list) -> int:
        """``act_state``'s search, with the collector's passes held off: a move makes tens
        of thousands of nodes and game copies, which refcounting frees (no cycles), yet they
        set off full passes over everything loaded, torch included -- up to 150 ms each, about
        13% of the expert's time (docs/opponents.md).  Nothing a move plays depends on it."""
        t0 = self.clock()
        self._deadline = None if self.max_ms is None else t0 + self.max_ms / 1000
        self._reserve = 0.0
        me = game.current_player
        draw = self.rng.integers(1 << 62, size=self.worlds)   # all drawn: the rng moves on
        prior = self.prior(game.db)                            # alike whatever the clock
        weighed = None if self.belief is None else self.belief.worlds(
            game, me, self.worlds, lambda s: determinize(game, me, s, opponent=prior),
            self.rng, PolicyLogits(lambda obs: self._evaluate(obs)[0], self.n_obs))
        roots = [] if weighed is None else [_Node(w) for w in weighed]
        for s in draw if weighed is None else ():
            roots.append(_Node(determinize(game, me, int(s), opponent=prior)))
            if self._late():
                break                                          # at least one world
        while len(self._encoders) < len(roots):
            self._encoders.append(Encoder(game.db))
        per_world = max(1, self.simulations // self.worlds)
        per_wave = max(1, self.batch // self.worlds)
        logits = self._expand(list(enumerate(roots)))   # every root in one forward:
        if self.root == "gumbel":                       # simulation one
            return self._gumbel(roots, legal, logits, per_world, t0)
        done, simulations = 1, len(roots)
        while done < per_world and not self._late():
            k = min(per_wave, per_world - done)
            simulations += self._wave(roots, k)
            done += k
        capped = simulations < per_world * self.worlds
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
        self._deadline = None
        self.last_stats = {"simulations": simulations, "worlds": len(roots),
                           "ms": (self.clock() - t0) * 1000, "capped": capped,
                           "visits": dict(zip(map(int, legal), visits.tolist()))}
        return int(legal[choice])

    def _gumbel(self, roots, legal: list, logits: np.ndarray, per_world: int,
                t0: float) -> int:
        """The Gumbel root (``root="gumbel"``, see the class docstring): the roots are
        expanded (``logits``, their raw action logits, a row per world); sequential
        halving over the top ``considered`` moves by Gumbel noise + logits, PUCT below the
        root; plays the last survivor."""
        n_worlds, k_legal = len(roots), len(legal)
        slot = [{a: i for i, a in enumerate(r.legal)} for r in roots]
        rows = np.asarray(logits[:n_worlds], dtype=np.float64)[:, legal]
        z = rows.mean(axis=0)                  # the same position in every world's view
        base = self.rng.gumbel(size=k_legal) + z
        m = min(k_legal, self.considered)
        survivors = [int(c) for c in np.argsort(-base, kind="stable")[:m]]
        phases = math.ceil(math.log2(m)) if m > 1 else 0
        budget = (per_world - 1) * n_worlds    # the roots' forward was simulation one
        remaining, simulations, capped = budget, n_worlds, False
        seen = [0] * k_legal                   # each move's visits so far, over the worlds
        per_wave = max(1, self.batch // n_worlds)
        for phase in range(phases):
            if len(survivors) == 1 or remaining <= 0:
                break
            each = max(1, budget // (phases * len(survivors)))
            spend = remaining if phase == phases - 1 else min(each * len(survivors),
                                                              remaining)
            queues: list = [[] for _ in roots]
            for j in range(spend):             # round robin, best-scored survivor first
                c = survivors[j % len(survivors)]
                w = (c + seen[c]) % n_worlds   # a move's visits go round the worlds
                seen[c] += 1
                queues[w].append(slot[w][legal[c]])
            remaining -= spend
            while any(queues):
                if self._late():
                    capped = True
                    break
                simulations += self._wave(roots, 0, [q[:per_wave] for q in queues])
                queues = [q[per_wave:] for q in queues]
            if capped:
                break
            score, _ = self._gumbel_scores(roots, legal, slot, z, base)
            survivors = sorted(survivors, key=lambda c: -score[c])[:(len(survivors) + 1) // 2]
        score, visits = self._gumbel_scores(roots, legal, slot, z, base)
        improved = score - base + z                  # logits + sigma(completed q): the
        improved = np.exp(improved - improved.max())  # paper's improved policy, what a
        improved /= improved.sum()                   # policy is distilled to (agents.distill)
        most = max(visits[c] for c in survivors)     # a cut phase: its best-visited
        choice = max((c for c in survivors if visits[c] == most), key=lambda c: score[c])
        self._deadline = None
        self.last_stats = {"simulations": simulations, "worlds": n_worlds,
                           "ms": (self.clock() - t0) * 1000, "capped": capped,
                           "visits": dict(zip(map(int, legal), visits.tolist())),
                           "gumbel": {int(legal[c]): float(base[c])
                                      for c in np.argsort(-base, kind="stable")[:m]},
                           "score": dict(zip(map(int, legal), score.tolist())),
                           "improved": dict(zip(map(int, legal), improved.tolist()))}
        return int(legal[choice])

    def _gumbel_scores(self, roots, legal, slot, z, base) -> tuple:
        """(score, visits): each legal root move's visits summed over the worlds and its
        g + logits + sigma(completed q) for every legal root move: q the mean over the
        worlds that visited the move of its value there, a move no world visited completed
        with the mixed value (the roots' value and the visited moves' values weighted by
        the policy, as the paper's ``v_mix``); the q rescaled to [0, 1] by their min and
        max; sigma(q) = (c_visit + most visits of a move) * c_scale * q."""
        k = len(legal)
        total = np.zeros(k)
        qsum, worlds = np.zeros(k), np.zeros(k)
        for w, r in enumerate(roots):
            for c, a in enumerate(legal):
                n = r.visits[slot[w][a]]
                if n:
                    total[c] += n
                    qsum[c] += r.value_sum[slot[w][a]] / n
                    worlds[c] += 1
        visited = worlds > 0
        q = np.divide(qsum, worlds, out=np.zeros(k), where=visited)
        pi = np.exp(z - z.max())
        pi /= pi.sum()
        v_root = float(np.mean([r.value for r in roots]))
        n_all = total.sum()
        if visited.any():
            v_mix = (v_root + n_all * (pi[visited] @ q[visited]) / pi[visited].sum()) \
                / (1 + n_all)
        else:
            v_mix = v_root
        q = np.where(visited, q, v_mix)
        lo, hi = q.min(), q.max()
        q = (q - lo) / max(hi - lo, 1e-8)
        return base + (self.c_visit + total.max()) * self.c_scale * q, total

    def _late(self) -> bool:
        """Whether this move's time is up, keeping back the longest forward so far (the
        cut wave's forward must still fit), at most a tenth of the cap: one forward
        slowed by other work must not end the search early; never without a cap."""
        if self._deadline is None:
            return False
        return self.clock() + min(self._reserve, self.max_ms / 10_000) >= self._deadline

    def prior(self, db):
        """Where the worlds' opponent cards come from, for card pool ``db`` (None: the true
        ones, open deck lists)."""
        if self._prior is None or self._prior[0] is not db:
            self._prior = (db, deck_prior(self.deck_lists, db))
        return self._prior[1]

    def _wave(self, roots, per_world: int, plan=None) -> int:
        """``per_world`` simulations in every world: select down each tree, evaluate the
        new leaves in one forward, back the values up.  When the move's time runs out
        (``_late``) the selection stops and what was selected is evaluated and backed up.
        Returns the simulations made.

        A descent takes PUCT's pick at each node -- Q + c * P * sqrt(N) / (1 + n), an
        unvisited move valued at the node's mean, the first of equal scores -- adding a
        virtual loss along the way (a visit valued -1, replaced by the leaf's value in the
        back-up).  It is written out in this one loop (no call per node): the tree's
        Python is a third of a move.

        ``plan`` (the Gumbel root): per world, the root move index of each descent (its
        length is that world's descents; ``per_world`` is then unused); PUCT picks below."""
        sims, todo = [], []
        c_puct, sqrt, late = self.c_puct, math.sqrt, self._late
        timed = self._deadline is not None
        for w, root in enumerate(roots):
            forced = None if plan is None else plan[w]
            for j in range(per_world if forced is None else len(forced)):
                path, node = [], root
                if forced is not None:                    # the root's move is given
                    k = forced[j]
                    child = node.children[k]
                    if child is None:
                        child = node.children[k] = _Node(*_advance(node.g, node.legal[k]))
                    path.append((node, k))
                    node.n += 1                             # virtual loss, as below
                    node.visits[k] += 1
                    node.value_sum[k] -= 1.0
                    node.w -= 1.0
                    node = child
                while node.expanded and node.over is None:
                    n = node.n
                    fpu = node.w / n if n else 0.0
                    scale = c_puct * sqrt(n + 1)
                    best, k, i = -1e30, 0, 0
                    for vn, sv, p in zip(node.visits, node.value_sum, node.prior):
                        score = (sv / vn if vn else fpu) + scale * p / (1 + vn)
                        if score > best:
                            best, k = score, i
                        i += 1
                    child = node.children[k]
                    if child is None:
                        child = node.children[k] = _Node(*_advance(node.g, node.legal[k]))
                    path.append((node, k))
                    node.n = n + 1                          # virtual loss: a visit valued -1
                    node.visits[k] += 1
                    node.value_sum[k] -= 1.0
                    node.w -= 1.0
                    node = child
                sims.append((path, node))
                if node.over is None and not node.expanded and not node.pending:
                    node.pending = True
                    todo.append((w, node))
                if timed and late():
                    break
            else:
                continue
            break
        if todo:
            self._expand(todo)
        for path, leaf in sims:
            r = leaf.over
            if r is not None:
                v0, v1 = float(r[0]), float(r[1])
            else:
                v0 = leaf.value if leaf.player == 0 else -leaf.value
                v1 = -v0
            for node, k in path:                 # replace the virtual loss with the value
                v = (v0 if node.player == 0 else v1) + 1.0
                node.value_sum[k] += v
                node.w += v
        return len(sims)

    def _expand(self, todo) -> np.ndarray:
        """Priors and values for ``todo`` ([(world, leaf)]) from one batched forward;
        returns the network's raw action logits, a row per leaf."""
        started = self.clock()
        obs = self._encode(todo)
        logits, v = self._evaluate(obs)
        priors = leaf_priors(logits, [leaf.legal for _, leaf in todo], self.prior_temperature)
        if self.oracle is not None:         # each leaf's world, never the real game
            v = self.oracle.values([leaf.g for _, leaf in todo],
                                   [leaf.player for _, leaf in todo])
        v = np.where(v > -1.0, v, np.float32(-1.0))           # min(1, max(-1, v)), as floats
        values = np.where(v < 1.0, v, np.float32(1.0)).tolist()
        for (_, leaf), prior, value in zip(todo, priors, values):
            leaf.prior = prior
            leaf.value = value                                # the chooser's side
            leaf.expanded, leaf.pending = True, False
        self._reserve = max(self._reserve, self.clock() - started)
        return logits

    def _encode(self, todo):
        """The leaves' observations, one row each, in this agent's reused buffer (the
        prefix the network reads of each world's ``Encoder``'s vector; a native game's is
        written by the core's encoder)."""
        n, size = len(todo), self.n_obs
        buf = self._buffer
        if buf is None or buf.shape[0] < n:
            buf = self._buffer = np.empty((max(n, self.batch, self.worlds), size),
                                          dtype=np.float32)
        encoders = self._encoders
        for j, (w, leaf) in enumerate(todo):
            buf[j] = encoders[w].encode(leaf.g, leaf.player, leaf.legal)[:size]
        return buf[:n]

    def _evaluate(self, obs: np.ndarray):
        """Action logits and value estimates for a batch of observations (one forward;
        rows may be longer than the network reads)."""
        import torch as th
        if self.threads is not None and th.get_num_threads() != self.threads:
            th.set_num_threads(self.threads)     # per OS thread: OpenMP keeps one each
        f = self._forward
        if f is None or f.net is not self.net or f.value is not self.value:
            from .leaf_forward import LeafForward
            f = self._forward = LeafForward(self.net, self.value)
        return f(th.from_numpy(obs))


__all__ = ["SearchAgent"]
