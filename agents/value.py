"""The value head a search reads at its leaves: loading it, and the features it reads.

A search (``agents.search``) values a leaf with the trained policy's critic, or with a
small head fit to how the policy's self-play games end (a file under ``agents/values/``).
This module is what a search needs at runtime: the head (``ValueHead``), its file reader
(``load_value_head``, which refuses a bad file or one fit to another policy with a
``ValueFileError``) and the features it reads from one forward of the policy
(``value_features``, ``critic_width``).  The command that fits a head
(``python -m agents.value_fit``) imports this module; nothing here imports it back.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import torch as th
from torch import nn

from .policy import PolicyFileError, open_policy_file

VALUE_FORMAT = "nivel_env.value_head"
VALUE_VERSION = 1
#: the largest width or hidden size a value-head file may declare (a policy's critic
#: features are a few hundred wide)
MAX_SIZE = 65536
_MAX_BYTES = 64 << 20                   # a value head is a few hundred kilobytes


class ValueFileError(ValueError):
    """A value-head file that cannot be used (names the file and the fault)."""


def sha256(path: str | Path) -> str:
    """The SHA-256 of the policy file ``path`` (``PolicyFileError`` for a path that is not
    a regular policy-sized file: ``nivel_env.files``), read in blocks."""
    h = hashlib.sha256()
    with open_policy_file(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def value_features(policy, obs: th.Tensor):
    """(action logits, the critic's input features) for a batch, from one extractor pass."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    return policy.action_net(latent_pi), latent_vf


def critic_width(policy) -> int:
    """How many leading columns of the critic's input carry the value (a pointer network's
    trunk; all of a plain actor-critic's latent)."""
    return int(getattr(policy.value_net, "trunk_dim", 0) or policy.mlp_extractor.latent_dim_vf)


class ValueHead(nn.Module):
    """An MLP over the first ``width`` columns of the critic's input."""

    def __init__(self, width: int, hidden: int = 128):
        super().__init__()
        self.width, self.hidden = int(width), int(hidden)
        self.net = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, latent_vf: th.Tensor) -> th.Tensor:
        return self.net(latent_vf[:, :self.width]).squeeze(1)


def read_saved(path: Path, what: str, error, fmt: str, version: int,
               max_bytes: int = _MAX_BYTES) -> dict:
    """The plain data of a small weights file ``path`` (a value head, an oracle), read with
    torch's weights-only loader from a regular file of at most ``max_bytes``, with its
    ``format`` and ``version`` checked: else ``error`` naming the file and the fault."""
    f = open_policy_file(path, what, error, max_bytes)
    try:
        with f:
            saved = th.load(f, map_location="cpu", weights_only=True)
    except Exception as e:                          # noqa: BLE001 -- any unreadable file
        raise error(f"{path}: not a readable {what} ({type(e).__name__}: "
                    f"{str(e)[:200]})") from None
    if not isinstance(saved, dict) or saved.get("format") != fmt:
        raise error(f"{path}: not a nivel_env {what}")
    if saved.get("version") != version:
        raise error(f"{path}: {what} version {saved.get('version')!r}; this nivel_env "
                    f"reads {version}")
    return saved


def load_value_head(path: str | Path, policy_path: str | Path | None = None) -> ValueHead:
    """A value head from ``path``; with ``policy_path``, refuse a head fit to another
    policy (the features would mean something else).

    Only regular files are opened (a named pipe would block forever), and the sizes the
    file declares are checked against bounds and against its own tensors' shapes before
    the head is built: a bad file gets a ``ValueFileError`` naming it and the field."""
    path = Path(path)
    saved = read_saved(path, "value-head file", ValueFileError, VALUE_FORMAT, VALUE_VERSION)
    width, hidden = _declared_shape(path, saved)
    if policy_path is not None:
        try:
            digest = sha256(policy_path)
        except PolicyFileError as e:
            raise ValueFileError(str(e)) from None
        if saved.get("policy_sha256") != digest:
            raise ValueFileError(f"{path}: fit to another policy than {policy_path} (its "
                                 f"policy_sha256 does not match)")
    head = ValueHead(width, hidden)
    head.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
    meta = saved.get("meta", {})
    head.meta = meta if isinstance(meta, dict) else {}
    return head.eval()


def _declared_shape(path: Path, saved: dict) -> tuple[int, int]:
    """(width, hidden) a value-head file declares, once both are sizes within
    ``MAX_SIZE`` and its ``state_dict`` holds exactly the tensors of that head."""
    sizes = {}
    for field in ("width", "hidden"):
        v = saved.get(field)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 < v <= MAX_SIZE:
            raise ValueFileError(f"{path}: field '{field}' must be a size in 1..{MAX_SIZE}, "
                                 f"got {v!r}"[:300])
        sizes[field] = v
    w, h = sizes["width"], sizes["hidden"]
    want = {"net.0.weight": (h, w), "net.0.bias": (h,), "net.2.weight": (1, h),
            "net.2.bias": (1,)}
    state = saved.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, th.Tensor) and
                                              v.is_floating_point() for v in state.values()):
        raise ValueFileError(f"{path}: field 'state_dict' must map names to float tensors")
    have = {k: tuple(v.shape) for k, v in state.items()}
    if have != want:
        wrong = [f"{k} {have.get(k, 'missing')}, width {w} and hidden {h} need {s}"
                 for k, s in want.items() if have.get(k) != s]
        wrong += [f"unexpected {k}" for k in have if k not in want]
        raise ValueFileError(f"{path}: field 'state_dict' does not fit the declared width "
                             f"and hidden sizes ({'; '.join(wrong[:3])})"[:400])
    return w, h


__all__ = ["ValueFileError", "ValueHead", "critic_width", "load_value_head", "read_saved",
           "sha256",
           "value_features"]
