"""Mixed precision for the network's heavy part, on CUDA.

The feature extractor (the card embeddings, the trunk, the row keys) is where a forward
and its backward spend their time; the action and value heads, the distribution and PPO's
loss are small and numerically touchy (a probability ratio ``exp(logp - old_logp)`` in
bfloat16 keeps about 3 significant digits).  So only the extractor runs under
``torch.autocast`` in bfloat16, and its output is cast back to float32 for the rest:
bfloat16 has float32's range, so no loss scaling is needed, and the weights, the optimizer
state and every loss stay float32.

It is attached with forward hooks (``mixed_precision(module)``), so the module, its
``state_dict`` and the policy files written from it are exactly those of a float32 run:
a policy trained this way plays anywhere, on the CPU in float32.
"""
from __future__ import annotations

import torch as th
from torch import nn

#: --precision choices: auto (bfloat16 on a CUDA device that has it, for minibatches of at
#: least ``AUTO_BATCH``; else float32)
CHOICES = ("auto", "float32", "bfloat16")
#: Measured on an H100 (benchmarks/network_cost_gpu.py, wall us per sample of forward +
#: backward + Adam, float32 -> bfloat16 extractor): at minibatch 256 these networks are too
#: small for bfloat16 to pay (pointer 21.8 -> 27.3, compact 33.6 -> 41.4: kernel launches,
#: not arithmetic, bound them); at 4,096 the compact network gains (3.16 -> 2.51), the
#: pointer network breaks even (1.46 -> 1.49).  Results kept either way: logits within
#: 0.002 of float32's, the same greedy action in 99.9% of positions.
AUTO_BATCH = 2048


def resolve(choice: str, device, batch_size: int = 256) -> str:
    """The precision ``choice`` means on ``device`` for minibatches of ``batch_size``:
    ``"bfloat16"`` or ``"float32"``; a ``ValueError`` for bfloat16 asked of a device
    without it."""
    if choice not in CHOICES:
        raise ValueError(f"precision {choice!r}: choose one of {', '.join(CHOICES)}")
    dev = th.device(device)
    cuda_bf16 = dev.type == "cuda" and th.cuda.is_bf16_supported()
    if choice == "auto":
        return "bfloat16" if cuda_bf16 and batch_size >= AUTO_BATCH else "float32"
    if choice == "bfloat16" and not cuda_bf16:
        raise ValueError(f"precision bfloat16 needs a CUDA device that supports it; the "
                         f"device is {dev}")
    return choice


class _Autocast:
    """The pre- and post-forward hooks that run one module under autocast."""

    def __init__(self, device_type: str, dtype):
        self.device_type, self.dtype = device_type, dtype
        self._open: list = []

    def before(self, module, args):
        ctx = th.autocast(self.device_type, dtype=self.dtype)
        ctx.__enter__()
        self._open.append(ctx)

    def after(self, module, args, output):
        self._open.pop().__exit__(None, None, None)
        return output.float() if th.is_tensor(output) else tuple(o.float() for o in output)


def mixed_precision(module: nn.Module, device_type: str = "cuda",
                    dtype=th.bfloat16) -> tuple:
    """Run ``module``'s forward under autocast (``dtype``) and return float32; returns the
    hook handles (``handle.remove()`` undoes it)."""
    hooks = _Autocast(device_type, dtype)
    return (module.register_forward_pre_hook(hooks.before),
            module.register_forward_hook(hooks.after))


def apply_to_policy(policy, precision: str) -> str:
    """Put an SB3 policy's feature extractors under ``precision`` (``"bfloat16"``: mixed
    precision on its device; ``"float32"``: nothing to do).  Returns what it did."""
    if precision != "bfloat16":
        return "float32"
    device_type = th.device(policy.device).type
    seen = set()
    for name in ("features_extractor", "pi_features_extractor", "vf_features_extractor"):
        m = getattr(policy, name, None)
        if m is not None and id(m) not in seen:
            seen.add(id(m))
            mixed_precision(m, device_type)
    return "bfloat16 feature extractor, float32 heads and losses"
