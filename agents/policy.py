"""Trained policies as files, and the agent that plays one.

A policy file (``.pt``) is plain data, loaded with ``torch.load(weights_only=True)``, so
opening one can never run code: the weights (float16, to keep it small), the network's
shape as plain values (observation size, action count, layer sizes, activation and
feature-extractor names from the fixed tables below), and what it was made for (the
observation layout version, the card pool version, the training command and step count).
A policy for the compact observation (``layout.COMPACT``, whose card rows are indices into
the card pool's table) also names that layout (``meta.observation_layout``: ``"compact"``;
absent: ``"full"``) and holds the training pool's card table (``card_table``, float32), which
it reads until ``PolicyAgent.use_card_pool`` gives it the pool being played.
Loading a file made for another observation layout fails with a clear error (a layout
that only appended blocks since is read through the observation's prefix); another card
pool only warns (cards are read by their features, so a policy can play a new pool, if
less well).

Playing a file needs torch alone (``agents.network.PolicyNetwork``, the inference copy
of sb3-contrib's actor-critic): the ``train``, ``rllib`` and ``tianshou`` extras all
have it.  Writing one (``export_policy``) reads an SB3 policy, which training made.

The network is first built on torch's ``meta`` device (no memory) and its tensor shapes
compared with the file's, so sizes a file declares never allocate more than the weights
it holds.

Files written by nivel_env 0.1 (format version 1) held pickled Python classes; they are
refused, and ``python -m agents.policy upgrade OLD.pt NEW.pt`` rewrites one into this
format without running anything in it.
"""
from __future__ import annotations

import pickle
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np

from nivel_env.install_hints import PLAY_POLICIES

try:
    import torch as th
    from torch import nn
except ImportError as e:                # a core install: the heuristic plays, policies don't
    raise ImportError(f"{PLAY_POLICIES} (importing torch failed: {e})") from e

from nivel_env.cards import load_card_db
from nivel_env.difficulty import DIFFICULTIES
from nivel_env.env.encoder import READABLE_LAYOUTS
from nivel_env.env.layout import INDEX_HIGH, LAYOUTS
from nivel_env.players import MAX_FILE_BYTES  # a policy file over 1 GiB is not ours

FORMAT = "nivel-policy"
VERSION = 2
SUFFIX = ".pt"
#: activation name in a file -> torch module class
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU, "leaky_relu": nn.LeakyReLU,
               "gelu": nn.GELU, "silu": nn.SiLU}
#: the network shape's fields and their plain types
_NETWORK_FIELDS = {"obs_size": int, "n_actions": int, "net_arch": (dict, list),
                   "activation": str, "features_extractor": str,
                   "features_extractor_kwargs": dict, "share_features_extractor": bool,
                   "ortho_init": bool}
#: the network kinds a file names in ``network.policy`` (absent: actor_critic)
POLICY_KINDS = ("actor_critic", "pointer", "compact_pointer")
#: the network kinds whose action head is ``PointerHead``
POINTER_KINDS = ("pointer", "compact_pointer")
#: the network kind that reads the compact observation, and its feature extractor's name
COMPACT_KIND = "compact_pointer"
#: a feature extractor's full class name (as SB3 training or a format-1 file names it)
#: -> its name in a file
_EXTRACTOR_NAMES = {"agents.network.CardSetExtractor": "card_set",
                    "agents.network.PointerExtractor": "pointer",
                    "agents.network.CompactPointerExtractor": "compact_pointer",
                    "agents.network.FlattenExtractor": "flatten",
                    "stable_baselines3.common.torch_layers.FlattenExtractor": "flatten"}


class PolicyFileError(ValueError):
    """A policy file cannot be used here; the message names the file and why."""


def _extractors() -> dict:
    """feature-extractor name in a file -> the torch class that plays it."""
    from .network import (CardSetExtractor, CompactPointerExtractor, FlattenExtractor,
                          PointerExtractor)
    return {"card_set": CardSetExtractor, "flatten": FlattenExtractor,
            "pointer": PointerExtractor, "compact_pointer": CompactPointerExtractor}


def _full_name(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _name_of(table: dict, cls, what: str) -> str:
    for name, c in table.items():
        if c is cls:
            return name
    raise PolicyFileError(f"export_policy: the {what} {cls.__name__} has no name in "
                          f"agents.policy ({', '.join(table)}); add it there so files that "
                          f"use it can be loaded without running code")


def open_policy_file(path: str | Path, what: str = "policy file", error=None,
                     max_bytes: int | None = None):
    """``path`` opened for reading if it is a regular file of at most ``max_bytes``
    (default ``MAX_FILE_BYTES``): the one check of ``nivel_env.files`` (a named pipe
    would block the reader forever, a device never end), its refusal raised as ``error``
    (default ``PolicyFileError``) naming the path and what it is."""
    from nivel_env.files import FileRefused, open_regular
    try:
        return open_regular(path, MAX_FILE_BYTES if max_bytes is None else max_bytes, what)
    except FileRefused as e:
        raise (error or PolicyFileError)(str(e)) from None


def _plain(value, where: str):
    """``value`` if it is plain data (numbers, strings, lists, dicts of those)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, where) for k, v in value.items()}
    raise PolicyFileError(f"export_policy: {where} holds a {type(value).__name__}; a policy "
                          f"file keeps plain values only")


def network_spec(policy) -> dict:
    """The plain-data description of a policy's network: a ``PolicyNetwork``'s own, or a
    MaskableActorCriticPolicy's (training: needs the train extra)."""
    from .network import PolicyNetwork
    if isinstance(policy, PolicyNetwork):
        return dict(policy.spec)
    from .sb3_policy import policy_classes
    data = policy._get_constructor_parameters()
    kind = _name_of(policy_classes(), type(policy), "policy class")
    fx = data["features_extractor_class"]
    return {
        # the plain actor-critic is not named (files from before the field stay identical)
        **({} if kind == "actor_critic" else {"policy": kind}),
        "obs_size": int(np.prod(data["observation_space"].shape)),
        "n_actions": int(data["action_space"].n),
        "net_arch": _plain(data.get("net_arch") or [], "net_arch"),
        "activation": _name_of(ACTIVATIONS, data["activation_fn"], "activation"),
        "features_extractor": _EXTRACTOR_NAMES.get(_full_name(fx)) or _name_of(
            _extractors(), fx, "feature extractor"),
        "features_extractor_kwargs": _plain(data.get("features_extractor_kwargs") or {},
                                            "features_extractor_kwargs"),
        "share_features_extractor": bool(getattr(policy, "share_features_extractor", True)),
        "ortho_init": bool(data.get("ortho_init", True)),
    }


def export_policy(model, path: str | Path, meta: dict | None = None) -> Path:
    """Write ``model``'s policy (a MaskablePPO, or its policy) as a policy file."""
    from .network import card_table_of
    path = Path(path)
    policy = getattr(model, "policy", model)
    table = card_table_of(policy)
    layout = "full" if table is None else "compact"
    info = {"layout_version": LAYOUTS[layout].hash, "card_pool_version": load_card_db().version,
            "num_timesteps": int(getattr(model, "num_timesteps", 0)), **(meta or {}),
            **({} if table is None else {"observation_layout": layout})}
    # a shared feature extractor appears under three names; convert (and store) it once
    done: dict = {}
    state = {}
    for k, v in policy.state_dict().items():
        same = (v.untyped_storage().data_ptr(), v.storage_offset(), tuple(v.shape),
                v.stride(), v.dtype)
        if same not in done:
            done[same] = v.detach().cpu().half() if v.is_floating_point() \
                else v.detach().cpu()
        state[k] = done[same]
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = {} if table is None else {"card_table": table.detach().cpu().float().clone()}
    th.save({"format": FORMAT, "version": VERSION, "meta": _plain(info, "meta"),
             "network": network_spec(policy), "state_dict": state, **extra}, path)
    return path


def _load_plain(path: Path, device: str):
    """The file's contents, unpickled with torch's weights-only loader (no code runs)."""
    f = open_policy_file(path)
    try:
        with f:
            return th.load(f, map_location=device, weights_only=True)
    except pickle.UnpicklingError as e:
        import re
        found = re.search(r"GLOBAL ([\w.]+)", str(e))
        if found is None:                        # not a pickle stream at all
            raise PolicyFileError(f"{path}: not a readable policy file (not a torch file)") \
                from None
        raise PolicyFileError(
            f"{path}: refused -- it holds Python objects ({found.group(1)}), not only weights "
            f"and plain values, and loading it could run code. Policy files from nivel_env 0.1 "
            f"can be rewritten, running nothing, with: python -m agents.policy upgrade "
            f"{path} NEW.pt") from None
    except (RuntimeError, EOFError, OSError, ValueError, zipfile.BadZipFile, KeyError,
            TypeError, AttributeError, IndexError, MemoryError, OverflowError) as e:
        raise PolicyFileError(f"{path}: not a readable policy file "
                              f"({type(e).__name__}: {str(e)[:200]})") from None


def _check_network(path: Path, net) -> dict:
    if not isinstance(net, dict):
        raise PolicyFileError(f"{path}: field 'network' must be a mapping")
    for key, typ in _NETWORK_FIELDS.items():
        v = net.get(key)
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise PolicyFileError(f"{path}: field 'network.{key}' is missing or not "
                                  f"{getattr(typ, '__name__', 'a list or mapping')}: {v!r}"[:300])
    if net.get("policy", "actor_critic") not in POLICY_KINDS:
        raise PolicyFileError(f"{path}: field 'network.policy' {net['policy']!r} is not one "
                              f"of {', '.join(POLICY_KINDS)}")
    if net["activation"] not in ACTIVATIONS:
        raise PolicyFileError(f"{path}: field 'network.activation' {net['activation']!r} is "
                              f"not one of {', '.join(ACTIVATIONS)}")
    extractors = _extractors()
    if net["features_extractor"] not in extractors:
        raise PolicyFileError(f"{path}: field 'network.features_extractor' "
                              f"{net['features_extractor']!r} is not one of "
                              f"{', '.join(extractors)}")
    arch = net["net_arch"]
    layers = [arch] if isinstance(arch, list) else list(arch.values())
    if isinstance(arch, dict) and set(arch) - {"pi", "vf"}:
        raise PolicyFileError(f"{path}: field 'network.net_arch' may only have pi and vf")
    for lay in layers:
        if not isinstance(lay, list) or not all(
                isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 65536 for n in lay):
            raise PolicyFileError(f"{path}: field 'network.net_arch' must list layer sizes "
                                  f"(1..65536), got {arch!r}"[:300])
    for k, v in net["features_extractor_kwargs"].items():
        if not isinstance(k, str) or not (isinstance(v, (int, float, str, bool)) or v is None):
            raise PolicyFileError(f"{path}: field 'network.features_extractor_kwargs' holds "
                                  f"{k!r}: {v!r}; plain values only"[:300])
        if isinstance(v, int) and not isinstance(v, bool) and not 0 < v <= 65536:
            raise PolicyFileError(f"{path}: field 'network.features_extractor_kwargs.{k}' "
                                  f"must be a size in 1..65536, got {v!r}"[:300])
    if not 0 < net["n_actions"] <= 65536:
        raise PolicyFileError(f"{path}: field 'network.n_actions' must be in 1..65536, got "
                              f"{net['n_actions']!r}")
    return net


def read_policy_file(path: str | Path, device: str = "cpu"):
    """(policy module, meta) from a policy file; refuses other layouts and anything that
    is not plain data, and builds nothing until the whole file has been checked."""
    path = Path(path)
    saved = _load_plain(path, device)
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise PolicyFileError(f"{path}: not a nivel_env policy file (export one with "
                              f"agents.policy.export_policy or train.py)")
    if saved.get("version") != VERSION:
        raise PolicyFileError(f"{path}: policy file format version {saved.get('version')!r}; "
                              f"this nivel_env reads version {VERSION}")
    meta = saved.get("meta")
    if not isinstance(meta, dict):
        raise PolicyFileError(f"{path}: field 'meta' must be a mapping")
    layout = meta.get("observation_layout", "full")
    if layout not in LAYOUTS:
        raise PolicyFileError(f"{path}: field 'meta.observation_layout' {layout!r} is not one "
                              f"of {', '.join(LAYOUTS)}"[:300])
    readable = LAYOUTS[layout].readable()
    if meta.get("layout_version") not in readable:
        raise PolicyFileError(
            f"{path}: made for {layout} observation layout {meta.get('layout_version')!r}, "
            f"but this nivel_env uses {LAYOUTS[layout].hash!r}; retrain it (train.py) or use "
            f"the nivel_env version it was trained with")
    net = _check_network(path, saved.get("network"))
    if (net.get("policy") == COMPACT_KIND) != (layout == "compact") or (
            net["features_extractor"] == COMPACT_KIND) != (layout == "compact"):
        raise PolicyFileError(f"{path}: a {layout} observation policy with network "
                              f"{net.get('policy', 'actor_critic')!r} and extractor "
                              f"{net['features_extractor']!r}; the compact observation is "
                              f"read by the {COMPACT_KIND!r} network and extractor, and only "
                              f"it")
    table = _check_card_table(path, saved.get("card_table")) if layout == "compact" else None
    state = saved.get("state_dict")
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, th.Tensor) for k, v in state.items()):
        raise PolicyFileError(f"{path}: field 'state_dict' must map names to tensors")
    if net["obs_size"] != readable[meta["layout_version"]]:
        raise PolicyFileError(f"{path}: network reads {net['obs_size']} observation values, "
                              f"its layout has {readable[meta['layout_version']]}")
    bad = [k for k, v in state.items() if v.is_floating_point() and not th.isfinite(v).all()]
    if bad:
        raise PolicyFileError(f"{path}: weights {', '.join(bad[:3])} hold NaN or infinity")
    db = load_card_db()
    pool = db.version
    trained = meta.get("card_pool_version")
    if not (isinstance(trained, str) and db.extends(trained)):   # cards appended since: fine
        warnings.warn(f"{path}: trained on card pool {trained}, playing "
                      f"pool {pool}; it reads cards by their features, but may play new cards "
                      f"less well", stacklevel=2)
    policy = _network_with_weights(path, net, state)
    if table is not None:
        _give_card_table(path, policy, table)
    policy.to(device)
    policy.set_training_mode(False)
    return policy, meta


def _check_card_table(path, table) -> th.Tensor:
    """A compact policy file's ``card_table`` field, checked: a finite float 2-D tensor
    with a "no card" row 0 and at most ``INDEX_HIGH`` rows."""
    if not isinstance(table, th.Tensor) or table.ndim != 2 or not table.is_floating_point():
        raise PolicyFileError(f"{path}: a compact observation policy needs field "
                              f"'card_table', a float (rows, columns) tensor; got "
                              f"{type(table).__name__} {tuple(getattr(table, 'shape', ()))}")
    if not 1 <= table.shape[0] <= INDEX_HIGH or not th.isfinite(table).all():
        raise PolicyFileError(f"{path}: field 'card_table' of shape {tuple(table.shape)} must "
                              f"have 1..{int(INDEX_HIGH)} rows of finite values")
    return table.float()


def _give_card_table(path, policy, table) -> None:
    from .network import set_card_table
    try:
        set_card_table(policy, table)
    except ValueError as e:
        raise PolicyFileError(f"{path}: field 'card_table' does not fit the network "
                              f"({e})") from None


def _network_with_weights(path, net: dict, state: dict):
    """The network ``net`` describes, with ``state``'s weights (float16 files widened).
    Its shape is checked against the weights on the meta device first, so a file that
    declares huge layers is refused before anything is allocated."""
    with th.device("meta"):
        shape = build_policy(net, path).state_dict()
    have = {k: tuple(v.shape) for k, v in state.items()}
    want = {k: tuple(v.shape) for k, v in shape.items()}
    if have != want:
        missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
        wrong = [f"{k} is {have[k]}, the network needs {want[k]}" for k in sorted(want)
                 if k in have and have[k] != want[k]]
        why = "; ".join(([f"missing {', '.join(missing[:3])}"] if missing else [])
                        + ([f"unexpected {', '.join(extra[:3])}"] if extra else [])
                        + wrong[:3])
        raise PolicyFileError(f"{path}: the weights do not fit the network it describes "
                              f"in field 'network' ({why})"[:600])
    policy = build_policy(net, path)
    policy.load_state_dict({k: v.float() if v.is_floating_point() else v
                            for k, v in state.items()})
    return policy


def build_policy(net: dict, path="policy"):
    """The ``PolicyNetwork`` (plain torch) with the shape ``net`` (a checked ``network``
    field), freshly initialised."""
    from .network import PolicyNetwork
    try:
        return PolicyNetwork(
            net["obs_size"], net["n_actions"], net["net_arch"], ACTIVATIONS[net["activation"]],
            _extractors()[net["features_extractor"]], net["features_extractor_kwargs"],
            share=net["share_features_extractor"],
            pointer=net.get("policy", "actor_critic") in POINTER_KINDS, spec=net)
    except (TypeError, ValueError, RuntimeError) as e:
        raise PolicyFileError(f"{path}: the network it describes cannot be built "
                              f"({str(e)[:300]})") from None


def frozen_copy(policy, device=None):
    """A separate, untrainable copy of ``policy``'s network and weights (a self-play
    snapshot held in memory: no file written or read)."""
    from .network import card_table_of
    copy = _network_with_weights("frozen_copy", network_spec(policy),
                                 {k: v.detach() for k, v in policy.state_dict().items()})
    table = card_table_of(policy)
    if table is not None:
        _give_card_table("frozen_copy", copy, table.detach().clone())
    copy.to(device if device is not None else policy.device)
    copy.set_training_mode(False)
    for q in copy.parameters():
        q.requires_grad_(False)
    return copy


class PolicyAgent:
    """Plays a trained policy: ``act(observation, action_mask) -> action``.

    ``temperature`` 0 takes the most probable legal action; higher samples from the
    policy's distribution.  ``random_share`` replaces that share of moves with uniform
    legal ones (a weaker opponent).  ``difficulty`` (``hard``, ``normal``, ``easy``) sets
    both from ``DIFFICULTIES``.

    ``observation_layout`` is the layout its observations must have (``"full"`` or
    ``"compact"``).  A compact policy reads card indices against a card table: the one its
    file holds (the training pool's) until ``use_card_pool(db)`` gives it the pool of the
    game being played.
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
        from .network import card_table_of
        self.policy, self.meta, self.path = policy, meta or {}, path
        self.n_obs = int(self.policy.observation_space.shape[0])
        #: ``"full"`` or ``"compact"``: the observation layout this policy reads
        self.observation_layout = "full" if card_table_of(policy) is None else "compact"
        self._pool = None                  # the card pool whose table the network holds
        self.temperature, self.random_share = float(temperature), float(random_share)
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def use_card_pool(self, db) -> None:
        """Read compact observations of ``db``'s games: give the network ``db``'s card
        table (``nivel_env.env.encoder.card_table``).  Nothing to do for a full-layout
        policy, nor when ``db`` is the pool it already has (cheap to call every move)."""
        if self.observation_layout != "compact" or db is self._pool:
            return
        from nivel_env.env.encoder import card_table
        from .network import set_card_table
        set_card_table(self.policy, card_table(db))
        self._pool = db

    def act_batch(self, observations, action_masks) -> np.ndarray:
        """Moves for a batch of positions in one forward pass (what batched self-play
        calls); the same choices ``act`` makes row by row, for the same generator state."""
        masks = np.asarray(action_masks).astype(bool)
        if masks.ndim != 2 or (~masks.any(axis=1)).any():
            raise ValueError("PolicyAgent.act_batch: a mask has no legal action")
        return self.choose(self.logits(observations, masks), masks)

    def act(self, observation, action_mask) -> int:
        mask = np.asarray(action_mask).astype(bool).reshape(1, -1)
        if not mask.any():
            raise ValueError("PolicyAgent.act: the action mask has no legal action")
        if not self.temperature and not self.random_share and mask.sum() == 1:
            return int(np.flatnonzero(mask)[0])        # forced: no forward needed
        return int(self.choose(self.logits(observation, mask), mask)[0])

    def logits(self, observations, masks) -> np.ndarray:
        """Unmasked action logits of a batch of observations (one row per mask), straight
        from the network in one forward (no distribution object)."""
        k = len(masks)
        with th.no_grad():
            obs = th.as_tensor(np.asarray(observations, dtype=np.float32)).reshape(k, -1)
            if self.observation_layout == "compact" and obs.shape[1] > LAYOUTS["compact"].size:
                raise ValueError(f"PolicyAgent: {self.path or 'this policy'} reads the compact "
                                 f"observation ({self.n_obs} values), got {obs.shape[1]} "
                                 f"values a row (a full observation? encode with "
                                 f"obs='compact')")
            obs = obs[:, :self.n_obs].to(self.policy.device)   # an earlier layout: its prefix
            return actor_logits(self.policy, obs).float().cpu().numpy()

    def choose(self, logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One move per row of ``logits`` (``self.logits``'s), drawn with ``rng``: greedy
        at temperature 0, else a draw from the tempered legal distribution (the
        Gumbel-max trick); ``random_share`` of the moves uniform over the legal ones.  Each
        row takes its own fixed block of uniforms, so a batch draws what its rows would one
        by one."""
        k, n = masks.shape
        z = np.where(masks, logits, -np.inf)
        if self.temperature <= 0 and not self.random_share:
            return z.argmax(axis=1)
        u = self.rng.random((k, n + 1))
        if self.temperature > 0:
            z = z / self.temperature - np.log(-np.log(np.maximum(u[:, 1:], 1e-300)))
        out = z.argmax(axis=1)
        if self.random_share:
            uniform = np.where(masks, u[:, 1:], -1.0).argmax(axis=1)
            out = np.where(u[:, 0] < self.random_share, uniform, out)
        return out


def actor_logits(policy, obs: th.Tensor) -> th.Tensor:
    """Unmasked action logits of a float observation batch, from a ``PolicyNetwork`` or
    an SB3 actor-critic alike (they hold the same modules)."""
    features = policy.pi_features_extractor(obs.float())
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


class _Inert:
    """Stands in for every class or function a format-1 file names: built and filled
    from the file's data, it runs nothing.  Only its name is read."""

    qualname = "?"

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


def _name(x) -> str:
    """The name a format-1 file gave a class or function (its stand-in's)."""
    cls = x if isinstance(x, type) else type(x)
    return cls.qualname if issubclass(cls, _Inert) else repr(x)


def upgrade_policy_file(old: str | Path, new: str | Path) -> Path:
    """Rewrite a nivel_env 0.1 policy file (format 1, which pickled Python classes) as a
    plain-data file.  The old file is read with torch's weights-only unpickler, every
    class or function it names replaced by an inert stand-in, so nothing in it runs; the
    network shape is rebuilt from those names and the weights' shapes."""
    old, new = Path(old), Path(new)
    f = open_policy_file(old)
    try:
        with f:
            names = th.serialization.get_unsafe_globals_in_checkpoint(f)
            stubs = [(type(n, (_Inert,), {"qualname": n}), n) for n in names]
            f.seek(0)
            with th.serialization.safe_globals(stubs):
                saved = th.load(f, map_location="cpu", weights_only=True)
    except Exception as e:                        # noqa: BLE001 -- any unreadable file
        raise PolicyFileError(f"{old}: not a readable policy file ({type(e).__name__}: "
                              f"{str(e)[:200]})") from None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT or saved.get("version") != 1:
        raise PolicyFileError(f"{old}: not a format-1 nivel_env policy file")
    data, state, meta = saved.get("data"), saved.get("state_dict"), saved.get("meta")
    if not isinstance(data, dict) or not isinstance(state, dict) or not isinstance(meta, dict):
        raise PolicyFileError(f"{old}: a format-1 file needs data, state_dict and meta")
    layout = meta.get("layout_version")
    if layout not in READABLE_LAYOUTS:
        raise PolicyFileError(f"{old}: made for observation layout {layout!r}, which this "
                              f"nivel_env cannot read")
    by_name = {_full_name(c): n for n, c in ACTIVATIONS.items()}
    act = by_name.get(_name(data.get("activation_fn")))
    ext = _EXTRACTOR_NAMES.get(_name(data.get("features_extractor_class")))
    if act is None or ext is None:
        raise PolicyFileError(f"{old}: activation {_name(data.get('activation_fn'))} or "
                              f"extractor {_name(data.get('features_extractor_class'))} has no "
                              f"name here")
    pi = [k for k in state if k.startswith("pi_features_extractor.")]
    share = all(th.equal(state[k], state.get("vf" + k[2:], th.empty(0))) for k in pi)
    net = {"obs_size": READABLE_LAYOUTS[layout],
           "n_actions": int(state["action_net.weight"].shape[0]),
           "net_arch": _plain(data.get("net_arch") or [], "net_arch"),
           "activation": act, "features_extractor": ext,
           "features_extractor_kwargs": _plain(data.get("features_extractor_kwargs") or {},
                                               "features_extractor_kwargs"),
           "share_features_extractor": share, "ortho_init": bool(data.get("ortho_init", True))}
    _check_network(old, net)
    policy = _network_with_weights(old, net, state)
    new.parent.mkdir(parents=True, exist_ok=True)
    th.save({"format": FORMAT, "version": VERSION, "meta": _plain(meta, "meta"), "network": net,
             "state_dict": {k: v.half() if v.is_floating_point() else v
                            for k, v in policy.state_dict().items()}}, new)
    return new


def _upgrade(argv: list[str]) -> int:
    """``python -m agents.policy upgrade OLD NEW``: rewrite a format-1 file."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m agents.policy")
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("upgrade", help="rewrite a nivel_env 0.1 policy file (format 1) as a "
                                        "plain-data file; nothing in the old file runs")
    up.add_argument("old")
    up.add_argument("new")
    args = ap.parse_args(argv)
    try:
        print(f"wrote {upgrade_policy_file(args.old, args.new)}")
    except PolicyFileError as e:
        print(f"upgrade: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_upgrade(sys.argv[1:]))
