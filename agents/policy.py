"""Trained policies as files, and the agent that plays one.

A policy file (``.pt``) holds the MaskablePPO policy's weights (float16, to keep it
small), its constructor arguments, and what it was made for: the observation layout
version, the card pool version, the training command and step count.  Loading a file
made for another observation layout fails with a clear error; another card pool only
warns (cards are read by their features, so a policy can play a new pool, if less well).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch as th

from nivel_env.cards import load_card_db
from nivel_env.env.encoder import LAYOUT_VERSION

FORMAT = "nivel-policy"
#: difficulty name -> (sampling temperature, share of uniformly random moves)
DIFFICULTIES = {"hard": (0.0, 0.0), "normal": (1.0, 0.0), "easy": (1.0, 0.3)}


class PolicyFileError(ValueError):
    """A policy file cannot be used here; the message names the file and why."""


def export_policy(model, path: str | Path, meta: dict | None = None) -> Path:
    """Write ``model``'s policy (a MaskablePPO) as a policy file."""
    path = Path(path)
    policy = model.policy
    info = {"layout_version": LAYOUT_VERSION, "card_pool_version": load_card_db().version,
            "num_timesteps": int(getattr(model, "num_timesteps", 0)), **(meta or {})}
    state = {k: (v.half() if v.is_floating_point() else v) for k, v in policy.state_dict().items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    th.save({"format": FORMAT, "version": 1, "meta": info,
             "data": policy._get_constructor_parameters(), "state_dict": state}, path)
    return path


def read_policy_file(path: str | Path, device: str = "cpu"):
    """(policy module, meta) from a policy file; refuses other layouts."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    path = Path(path)
    try:
        saved = th.load(path, map_location=device, weights_only=False)
    except FileNotFoundError:
        raise PolicyFileError(f"{path}: no such policy file") from None
    except Exception as e:                                  # truncated, not a torch file
        raise PolicyFileError(f"{path}: not a readable policy file ({e})") from None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise PolicyFileError(f"{path}: not a nivel_env policy file (export one with "
                              f"agents.policy.export_policy or train.py)")
    meta = saved.get("meta", {})
    if meta.get("layout_version") != LAYOUT_VERSION:
        raise PolicyFileError(
            f"{path}: made for observation layout {meta.get('layout_version')!r}, but this "
            f"nivel_env uses {LAYOUT_VERSION!r}; retrain it (train.py) or use the nivel_env "
            f"version it was trained with")
    pool = load_card_db().version
    if meta.get("card_pool_version") != pool:
        warnings.warn(f"{path}: trained on card pool {meta.get('card_pool_version')}, playing "
                      f"pool {pool}; it reads cards by their features, but may play new cards "
                      f"less well", stacklevel=2)
    policy = MaskableActorCriticPolicy(**saved["data"])
    policy.load_state_dict({k: v.float() if v.is_floating_point() else v
                            for k, v in saved["state_dict"].items()})
    policy.to(device)
    policy.set_training_mode(False)
    return policy, meta


class PolicyAgent:
    """Plays a trained policy: ``act(observation, action_mask) -> action``.

    ``temperature`` 0 takes the most probable legal action; higher samples from the
    policy's distribution.  ``random_share`` replaces that share of moves with uniform
    legal ones (a weaker opponent).  ``difficulty`` (``hard``, ``normal``, ``easy``) sets
    both from ``DIFFICULTIES``.
    """

    needs_observation = True

    def __init__(self, path=None, temperature: float = 0.0, random_share: float = 0.0,
                 seed: int | None = None, difficulty: str | None = None, policy=None,
                 meta: dict | None = None):
        if difficulty is not None:
            if difficulty not in DIFFICULTIES:
                raise ValueError(f"PolicyAgent: difficulty must be one of "
                                 f"{', '.join(DIFFICULTIES)}, got {difficulty!r}")
            temperature, random_share = DIFFICULTIES[difficulty]
        if policy is None:
            policy, meta = read_policy_file(path)
        self.policy, self.meta, self.path = policy, meta or {}, path
        self.temperature, self.random_share = float(temperature), float(random_share)
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        mask = np.asarray(action_mask).astype(bool)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("PolicyAgent.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        if self.random_share and self.rng.random() < self.random_share:
            return int(legal[self.rng.integers(legal.size)])
        with th.no_grad():
            obs = th.as_tensor(np.asarray(observation, dtype=np.float32)).reshape(1, -1)
            dist = self.policy.get_distribution(obs, action_masks=mask.reshape(1, -1))
            logits = dist.distribution.logits[0].numpy()
        if self.temperature <= 0:
            return int(legal[np.argmax(logits[legal])])
        z = logits[legal] / self.temperature
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[self.rng.choice(legal.size, p=p)])
