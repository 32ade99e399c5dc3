"""Worlds weighted by belief (``agents.belief``): is the belief informative, and what does
it cost a move?

Games: ``--games`` seeded games (deck pairs cycling through the bundled decks,
``tournaments.arena.deals``), ``--agent`` with ``belief=on`` in one seat (alternating)
against ``--opponent``, played by ``tournaments.arena.play_game`` (which tells the search
every move, ``players.inform``).  At each of the search's real decisions with at least one
remembered opponent decision:

* informative?  The true world -- the real game's own cards -- is weighed with
  ``--candidates - 1`` worlds drawn as the search draws them (``determinize`` from the
  closed prior), and also with a world that keeps the opponent's true hidden cards but
  shuffles which of them is in hand and which in the deck (``determinize`` with no
  prior: the opponent's list known).  Reported: the true world's rank among the
  candidates (1 = the likeliest; ties share the mean rank) against chance
  (``(candidates + 1) / 2``), and how often it is the likeliest (chance ``1 /
  candidates``).  The opponent playing the very policy the belief models (``nv2-ppo``)
  flatters it; ``--opponent heuristic`` is the honest case.
* cost: the position is searched again, on clones, by the same agent with belief on and
  with it off (each reseeded with the decision's number; which goes first alternates),
  and the CPU time of each ``act_state`` (``time.process_time``; torch at one thread) is
  kept, with the belief's own share (its ``last["ms"]``, wall time).  Reported: median and
  quartiles over the decisions, and the simulations a plain search would make in the
  belief's time (its simulations times the ratio of medians).

    python benchmarks/belief.py                              # 6 games vs nv2-ppo
    python benchmarks/belief.py --opponent heuristic --games 4

Measured (2 shared cores under a load of 6-9, torch at one thread; defaults: 4 candidates a
world, 48 moves remembered, epsilon 0.25; 95% intervals):

* against nv2-ppo (2-3 games, 138-164 decisions): the true world's mean rank among 16 is
  1.09-1.43 (chance 8.5), the likeliest in 89-94% (chance 6.2%); the true list with the
  hand/deck split shuffled ranks 7.1-8.7: what the moves tell is which cards were in hand.
  Epsilon 0.05 and 0.5 rank alike (1.43); 1.0 (legality and the number of legal moves
  only) 2.97 +- 0.42.
* against the heuristic (6 games, 189 decisions): mean rank 5.97 +- 0.64, likeliest 18%;
  epsilon 0.05: 6.31, 0.5: 5.75, 1.0: 5.30 +- 0.57 -- the policy adds nothing
  measurable over legality against a player that is not the policy.
* cost, CPU time a move, median (quartiles): nv2-search (128 simulations) 61 (42-82) ms
  with the belief, 33 (28-42) ms without; nv2-search-deep (512) 94 (73-112) against 60
  (53-72) ms.  So a plain search makes about 236 and 795 simulations in those times.
  Where the belief's time goes (18 positions, CPU time): the forward about 64%, encoding
  15%, building the past positions 12%, drawing the 16 candidates 8%.

Strength (``evaluate.py agents ... --games 30 --seed 1``: 60 duplicate games a pair, the
same deals throughout; score with its 95% interval):

* against nv2-ppo: nv2-search with the belief 0.65 [0.53, 0.76]; without, at equal
  simulations (128) 0.58 [0.47, 0.69], at equal time (236) 0.70 [0.59, 0.79].
* head to head: the belief against the plain search at 128 simulations scores 0.38 (Elo
  -81, [-158, -23]), against 236 simulations 0.37 (Elo -93, [-158, -46]).  Against a
  search the belief hurts: its opponent model is the policy, a search plays otherwise,
  and with about 25 moves remembered the weights are so peaked (effective sample size 2-7
  of 16) that the searched worlds are one or two candidates repeated -- confidently wrong
  worlds, and less variety than four independent ones.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def rank_of_first(logw: np.ndarray) -> float:
    """The rank of ``logw[0]`` among all (1 = largest; ties share the mean rank)."""
    above = float((logw[1:] > logw[0]).sum())
    tied = float((logw[1:] == logw[0]).sum())
    return 1 + above + tied / 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="nv2-search")
    ap.add_argument("--opponent", default="nv2-ppo")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--candidates", type=int, default=16)
    ap.add_argument("--no-timing", action="store_true", help="ranks only")
    ap.add_argument("--epsilons", default="",
                    help="also rank the true world under these epsilons (comma-separated; "
                         "the agent plays with its own)")
    args = ap.parse_args(argv)

    import torch

    from agents import load_opponent
    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine.hidden import determinize
    from nivel_env.tournaments.arena import deals, play_game
    torch.set_num_threads(1)

    spec = args.agent + (",belief=on" if ":" in args.agent else ":belief=on")
    plain_spec = spec.replace("belief=on", "belief=off")
    agent = load_opponent(spec, seed=0)
    belief = agent.belief
    ranks, ranks_list, firsts, sizes = [], [], [], []
    from agents.belief import Belief, PolicyLogits
    other = [float(x) for x in args.epsilons.split(",") if x]
    ranks_eps: dict = {e: [] for e in other}
    times_on, times_off, belief_ms = [], [], []
    decision = [0]
    act = agent.act_state

    def measured(game):
        me = game.current_player
        history = belief.history(game, 1 - me)
        if history and len(game.legal_actions()) > 1:
            k = decision[0]
            decision[0] += 1
            prior = agent.prior(game.db)
            rng = np.random.default_rng(10_000 + k)
            worlds = [game] + [determinize(game, me, int(s), opponent=prior)
                               for s in rng.integers(1 << 62, size=args.candidates - 1)]
            listed = determinize(game, me, int(rng.integers(1 << 62)))
            logits_of = PolicyLogits(lambda obs: agent._evaluate(obs)[0], agent.n_obs)
            logw = belief.log_weights(worlds + [listed], history, 1 - me, logits_of)
            ranks.append(rank_of_first(logw[:-1]))
            firsts.append(ranks[-1] == 1)
            ranks_list.append(rank_of_first(np.concatenate([logw[-1:], logw[1:-1]])))
            for e in other:
                eps_belief = Belief(epsilon=e)
                lw = eps_belief.log_weights(worlds, history, 1 - me, logits_of)
                ranks_eps[e].append(rank_of_first(lw))
            sizes.append(len(history))
            if not args.no_timing:
                plain = load_opponent(plain_spec, seed=k)
                twin = load_opponent(spec, seed=k)
                twin.belief._games[id(game)] = (game, [belief.history(game, 0),
                                                       belief.history(game, 1)])
                order = [(twin, times_on), (plain, times_off)]
                for who, out in order if k % 2 == 0 else order[::-1]:
                    t0 = time.process_time()
                    who.act_state(game.clone() if who is plain else game)
                    out.append(time.process_time() - t0)
                belief_ms.append(twin.belief.last["ms"])
        return act(game)

    agent.act_state = measured
    opponent = load_opponent(args.opponent, seed=1)
    t0 = time.time()
    decks = list_decks()
    for i, (d0, d1, seed) in enumerate(deals(decks, args.games, args.seed)):
        seats = [agent, opponent] if i % 2 == 0 else [opponent, agent]
        play_game(load_deck(d0), load_deck(d1), seed, seats)
        print(f"game {i + 1}/{args.games}: {decision[0]} decisions weighed, "
              f"{time.time() - t0:.0f} s", flush=True)
    n = len(ranks)
    c = args.candidates
    r, rl = np.array(ranks), np.array(ranks_list)
    se = r.std(ddof=1) / np.sqrt(n)
    print(f"\n{spec} vs {args.opponent}: {n} decisions, {np.mean(sizes):.1f} opponent "
          f"moves remembered on average (forced ones included)")
    print(f"true world's rank among {c}: mean {r.mean():.2f} +- {1.96 * se:.2f} (95%; "
          f"chance {(c + 1) / 2:.1f}), likeliest {np.mean(firsts):.1%} (chance {1 / c:.1%})")
    print(f"true list, hand/deck split shuffled: mean rank {rl.mean():.2f} +- "
          f"{1.96 * rl.std(ddof=1) / np.sqrt(n):.2f}")
    for e, x in ranks_eps.items():
        x = np.array(x)
        print(f"epsilon {e}: true world's mean rank {x.mean():.2f} +- "
              f"{1.96 * x.std(ddof=1) / np.sqrt(n):.2f}, likeliest {np.mean(x == 1):.1%}")
    if times_on:
        on, off = np.array(times_on) * 1000, np.array(times_off) * 1000
        q = lambda x: f"{np.median(x):.0f} ms (quartiles {np.percentile(x, 25):.0f}-" \
                      f"{np.percentile(x, 75):.0f})"                     # noqa: E731
        sims = agent.simulations
        print(f"CPU time a move: belief on {q(on)}, off {q(off)}; the belief's own "
              f"(wall) {q(np.array(belief_ms))}")
        print(f"equal time: a plain search would make about "
              f"{sims * np.median(on) / np.median(off):.0f} simulations in the belief's "
              f"median time ({sims} with belief)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
