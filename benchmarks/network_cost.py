"""Training cost of each policy network: CPU time per sample of forward + backward + Adam.

    python benchmarks/network_cost.py [--rounds 7] [--batches 256 64] [--positions 2048]

What one MaskablePPO minibatch costs the learner, per sample: the actor's logits and the
critic's value of a minibatch of real observations, a loss over both, its backward pass
and one Adam step, for the card-set network (full observation), today's pointer network
(full observation) and the compact pointer network (compact observation, ``layout.COMPACT``:
card table indices; the table embedded once per minibatch) at its default widths
(``compact``) and at the pointer network's (``compact_wide``: card 64, key 32, trunk 256).
Observations are the same positions in both layouts: random legal play of the four
bundled decks, the player to act encoded at every decision by ``make_encoder(db, "full")``
and ``make_encoder(db, "compact")``.

One torch thread (``torch.set_num_threads(1)``), CPU time (``time.process_time``); each
round times every network in turn (the order reversed every other round) over the same
minibatches, ``--steps`` steps each after one untimed warm-up step.  Prints per round, then
the median over rounds with the spread (least-most), the pointer network's time over each
network's (median of per-round ratios: above 1, cheaper than the pointer network) and each
network's parameter count.  Adam is SB3's (eps 1e-5); ``--fused-adam`` times torch's fused
Adam for every network (what ``compact_pointer_policy`` asks for).  Then, with the train
extra, the same for a whole MaskablePPO minibatch update of the SB3 policies
(``PointerPolicy``, ``CompactPointerPolicy``, each with the optimizer its
``*_pointer_policy()`` gives): ``evaluate_actions``, the loss, backward, gradient clipping
and the step, at the first ``--batches`` size.
"""
from __future__ import annotations

import argparse
import random
import statistics as st
import time

import numpy as np
import torch as th

DECKS = ("ember-rush", "stone-bastion", "gale-runners", "anvil-guild")


def positions(n: int, seed: int = 0):
    """(full observations, compact observations, action masks) of ``n`` positions of random
    legal play, the same positions in both layouts (float32 arrays), as the player to act
    sees them."""
    from nivel_env.cards import load_card_db, load_deck
    from nivel_env.engine import actions as A
    from nivel_env.engine import new_game
    from nivel_env.env.encoder import make_encoder
    db = load_card_db()
    decks = [load_deck(d) for d in DECKS]
    full, compact, masks = [], [], []
    s = seed
    while len(full) < n:
        g = new_game(decks[s % 4], decks[(s + 1) % 4], seed=s)
        encoders = make_encoder(g.db, "full"), make_encoder(g.db, "compact")
        rng = random.Random(s)
        while not g.is_terminal() and len(full) < n:
            legal = g.legal_actions()
            p = g.current_player
            full.append(encoders[0].encode(g, p, legal).copy())
            compact.append(encoders[1].encode(g, p, legal).copy())
            m = np.zeros(A.N_ACTIONS, bool)
            m[legal] = True
            masks.append(m)
            g.apply_action(legal[rng.randrange(len(legal))])
        s += 1
    assert db.version == g.db.version
    return np.stack(full), np.stack(compact), np.stack(masks)


def networks(card_table) -> dict:
    """name -> (plain-torch policy network, which observations it reads)."""
    from agents.network import PolicyNetwork, set_card_table
    from agents.policy import _extractors
    from nivel_env.engine.actions import N_ACTIONS
    from nivel_env.env.layout import COMPACT, LAYOUT
    fx = _extractors()
    out = {
        "card_set": (PolicyNetwork(LAYOUT.size, N_ACTIONS, {"pi": [128], "vf": [128]},
                                   th.nn.Tanh, fx["card_set"], {}), "full"),
        "pointer": (PolicyNetwork(LAYOUT.size, N_ACTIONS, {"pi": [], "vf": []}, th.nn.Tanh,
                                  fx["pointer"], {}, pointer=True), "full"),
        "compact": (PolicyNetwork(COMPACT.size, N_ACTIONS, {"pi": [], "vf": []}, th.nn.Tanh,
                                  fx["compact_pointer"], {}, pointer=True), "compact"),
        # the compact network at the pointer network's widths
        "compact_wide": (PolicyNetwork(COMPACT.size, N_ACTIONS, {"pi": [], "vf": []},
                                       th.nn.Tanh, fx["compact_pointer"],
                                       {"card_dim": 64, "key_dim": 32, "trunk_dim": 256},
                                       pointer=True), "compact"),
    }
    for name in ("compact", "compact_wide"):
        set_card_table(out[name][0], card_table)
    return out


def forward(net, obs):
    """Logits and values of ``obs`` as MaskablePPO's ``evaluate_actions`` computes them:
    the shared features once, then the actor's and the critic's heads."""
    latent_pi, latent_vf = net.mlp_extractor(net.features_extractor(obs))
    return net.action_net(latent_pi), net.value_net(latent_vf)


def train_step(net, opt, obs, masks) -> None:
    """One forward+backward+Adam step on ``obs`` (a loss over the masked logits and the
    values; also network_cost_gpu.py's)."""
    logits, value = forward(net, obs)
    logits = logits.masked_fill(~masks, -1e8)
    loss = -logits.log_softmax(1).amax(1).mean() + value.square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def step_time(net, opt, obs, masks, steps: int) -> float:
    """CPU seconds per sample of ``steps`` forward+backward+Adam steps on ``obs``."""
    t0 = time.process_time()
    for _ in range(steps):
        train_step(net, opt, obs, masks)
    return (time.process_time() - t0) / (steps * len(obs))


def sb3_policies(card_table) -> dict:
    """name -> (the SB3 policy MaskablePPO trains, which observations it reads): the
    pointer network's and the compact one's, as ``pointer_policy()`` and
    ``compact_pointer_policy()`` make them (their optimizers included)."""
    from gymnasium import spaces

    from agents.network import compact_pointer_policy, pointer_policy
    from nivel_env.engine.actions import N_ACTIONS
    from nivel_env.env.encoder import observation_box
    from nivel_env.env.layout import COMPACT
    (pc, pk), (cc, ck) = pointer_policy(), compact_pointer_policy(card_table)
    act = spaces.Discrete(N_ACTIONS)
    return {"pointer": (pc(observation_box(), act, lambda _: 3e-4, **pk), "full"),
            "compact": (cc(COMPACT.box(), act, lambda _: 3e-4, **ck), "compact")}


def ppo_step_time(policy, obs, masks, actions, steps: int) -> float:
    """CPU seconds per sample of ``steps`` MaskablePPO minibatch updates' work: the policy's
    ``evaluate_actions``, a loss of the same terms, backward, gradient clipping and the
    optimizer's step."""
    t0 = time.process_time()
    for _ in range(steps):
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        loss = -log_prob.mean() + values.square().mean() - 0.01 * entropy.mean()
        policy.optimizer.zero_grad()
        loss.backward()
        th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        policy.optimizer.step()
    return (time.process_time() - t0) / (steps * len(obs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=4, help="timed steps per network and round")
    ap.add_argument("--batches", type=int, nargs="+", default=[256, 64])
    ap.add_argument("--positions", type=int, default=2048)
    ap.add_argument("--only", nargs="*", help="networks to time (default: all)")
    ap.add_argument("--fused-adam", action="store_true",
                    help="torch's fused Adam for every network (compact_pointer_policy's "
                         "default) instead of SB3's default Adam")
    args = ap.parse_args()
    th.set_num_threads(1)
    th.manual_seed(0)
    from nivel_env.cards import load_card_db
    from nivel_env.env.encoder import card_table
    full, compact, masks = positions(args.positions)
    nets = networks(card_table(load_card_db()))
    if args.only:
        nets = {k: v for k, v in nets.items() if k in args.only}
    data = {"full": th.as_tensor(full), "compact": th.as_tensor(compact)}
    mask = th.as_tensor(masks)
    for name, (net, _) in nets.items():
        net.train()
        print(f"{name}: {sum(p.numel() for p in net.parameters()):,} parameters")
    adam = {"eps": 1e-5, **({"fused": True} if args.fused_adam else {})}    # SB3's eps
    opts = {k: th.optim.Adam(n.parameters(), lr=1e-4, **adam) for k, (n, _) in nets.items()}
    print(f"Adam {adam}")
    rng = np.random.default_rng(0)
    for batch in args.batches:
        res: dict = {k: [] for k in nets}
        for r in range(args.rounds):
            pick = th.as_tensor(rng.choice(len(mask), batch, replace=False))
            order = list(nets) if r % 2 == 0 else list(nets)[::-1]
            for k in order:
                net, lay = nets[k]
                x, m = data[lay][pick], mask[pick]
                step_time(net, opts[k], x, m, 1)                  # warm-up, untimed
                res[k].append(step_time(net, opts[k], x, m, args.steps) * 1e6)
            print(f"minibatch {batch} round {r}: "
                  + ", ".join(f"{k} {res[k][-1]:.1f}" for k in nets) + " us/sample", flush=True)
        print(f"\nminibatch {batch}, one thread, CPU us per sample (fwd+bwd+Adam), "
              f"{args.rounds} rounds")
        print(f"{'network':12} {'median':>8} {'least':>8} {'most':>8} {'pointer/it':>11}")
        for k, v in res.items():
            ratio = (f"{st.median(b / x for b, x in zip(res['pointer'], v)):.2f}x"
                     if "pointer" in res else "-")
            print(f"{k:12} {st.median(v):8.1f} {min(v):8.1f} {max(v):8.1f} {ratio:>11}")
        print()
    try:
        policies = sb3_policies(card_table(load_card_db()))
    except ImportError as e:                         # no train extra: networks only
        print(f"no MaskablePPO step timed ({e})")
        return
    batch = args.batches[0]
    res = {k: [] for k in policies}
    for r in range(args.rounds):
        pick = rng.choice(len(mask), batch, replace=False)
        m = masks[pick]
        actions = th.as_tensor([rng.choice(np.flatnonzero(row)) for row in m])
        order = list(policies) if r % 2 == 0 else list(policies)[::-1]
        for k in order:
            policy, lay = policies[k]
            x = data[lay][th.as_tensor(pick)]
            ppo_step_time(policy, x, m, actions, 1)              # warm-up, untimed
            res[k].append(ppo_step_time(policy, x, m, actions, args.steps) * 1e6)
    print(f"MaskablePPO minibatch {batch} (evaluate_actions, loss, backward, clipping, "
          f"the policy's own optimizer), one thread, CPU us per sample, {args.rounds} rounds")
    print(f"{'policy':12} {'median':>8} {'least':>8} {'most':>8} {'pointer/it':>11}")
    for k, v in res.items():
        ratio = st.median(b / x for b, x in zip(res["pointer"], v))
        print(f"{k:12} {st.median(v):8.1f} {min(v):8.1f} {max(v):8.1f} {ratio:>10.2f}x")


if __name__ == "__main__":
    main()
