"""The policy networks' training cost on a CUDA GPU: wall time per sample of forward +
backward + Adam, in float32 and with the feature extractor in bfloat16 (train.py's
``--precision auto`` on CUDA, ``agents/precision.py``).

    python benchmarks/network_cost_gpu.py [--batches 256 1024 4096] [--steps 20]

The same positions and networks as ``network_cost.py`` (the full-layout pointer network
and the compact one), moved to the GPU; each configuration warmed up, then timed over
``--steps`` steps with ``torch.cuda.synchronize()`` around them, in interleaved rounds;
medians and spreads of the rounds.  Also checks that bfloat16 keeps results: the largest
difference of the logits from float32's on the same weights, and how often the greedy
action is the same.  Needs a CUDA device (exits saying so otherwise).
"""
from __future__ import annotations

import argparse
import statistics as st
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", type=int, default=4096)
    args = ap.parse_args()
    import torch as th
    if not th.cuda.is_available():
        sys.exit("network_cost_gpu.py: no CUDA device here")
    from network_cost import forward, networks, positions, train_step

    from agents.precision import mixed_precision
    from nivel_env.cards import load_card_db
    from nivel_env.env.encoder import card_table
    full, compact, masks = positions(args.positions)
    dev = th.device("cuda")
    obs = {"full": th.as_tensor(full, device=dev), "compact": th.as_tensor(compact, device=dev)}
    mask = th.as_tensor(masks, device=dev)
    nets = {k: v for k, v in networks(card_table(load_card_db())).items()
            if k in ("pointer", "compact")}
    print(f"{th.cuda.get_device_name()}, torch {th.__version__}, {len(full)} positions")
    times: dict = {}
    for name, (net, which) in nets.items():
        net.to(dev).train()
        x = obs[which]
        with th.no_grad():
            exact = forward(net, x[:1024])[0].float()
        hooks = mixed_precision(net.features_extractor, "cuda")
        with th.no_grad():
            mixed = forward(net, x[:1024])[0].float()
        for h in hooks:
            h.remove()
        m = mask[:1024]
        same = (exact.masked_fill(~m, -1e9).argmax(1) == mixed.masked_fill(~m, -1e9)
                .argmax(1)).float().mean().item()
        print(f"{name}: bfloat16 extractor vs float32 logits: largest difference "
              f"{(exact - mixed).abs().max().item():.4f}, same greedy action {same:.3f}")
    for _ in range(args.rounds):
        for name, (net, which) in nets.items():
            opt = th.optim.Adam(net.parameters(), lr=1e-4, eps=1e-5, fused=True)
            for precision in ("float32", "bfloat16"):
                hooks = (mixed_precision(net.features_extractor, "cuda")
                         if precision == "bfloat16" else ())
                for b in args.batches:
                    x, m = obs[which][:b], mask[:b]
                    for _ in range(3):
                        train_step(net, opt, x, m)
                    th.cuda.synchronize()
                    t = time.perf_counter()
                    for _ in range(args.steps):
                        train_step(net, opt, x, m)
                    th.cuda.synchronize()
                    us = (time.perf_counter() - t) / (args.steps * b) * 1e6
                    times.setdefault((name, precision, b), []).append(us)
                for h in hooks:
                    h.remove()
    print("\nwall us per sample, forward+backward+Adam (median [least-most] of rounds)")
    print(f"{'network':10s} {'precision':9s} " + " ".join(f"{'batch ' + str(b):>22s}"
                                                         for b in args.batches))
    for name in nets:
        for precision in ("float32", "bfloat16"):
            cells = []
            for b in args.batches:
                v = times[name, precision, b]
                cells.append(f"{st.median(v):7.2f} [{min(v):.2f}-{max(v):.2f}]")
            print(f"{name:10s} {precision:9s} " + " ".join(f"{c:>22s}" for c in cells))


if __name__ == "__main__":
    main()
