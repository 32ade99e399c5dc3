"""Policy files are plain data: loading one never runs code, and only real policies load.

Each hostile file here is handed to every public way in (``read_policy_file``,
``load_opponent``, ``PolicyAgent``); a file that would run code when unpickled leaves a
marker file behind if it ever is, so a test fails on any loader that executes it.
"""
import os
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import bundled_opponents, load_opponent  # noqa: E402
from agents.opponents import POLICY_DIR  # noqa: E402
from agents.policy import (FORMAT, VERSION, PolicyAgent, PolicyFileError,  # noqa: E402
                           export_policy, read_policy_file)
from nivel_env.env.encoder import LAYOUT_VERSION, READABLE_LAYOUTS  # noqa: E402

SHIPPED = POLICY_DIR / "nv1-ppo.pt"


class _Payload:
    """Unpickling this creates ``marker`` (a stand-in for any code an attacker runs)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _loaders(path):
    yield lambda: read_policy_file(path)
    yield lambda: load_opponent(path)
    yield lambda: load_opponent(str(path))
    yield lambda: PolicyAgent(path)


def _refused(path, match=None):
    for load in _loaders(path):
        with pytest.raises(PolicyFileError, match=match):
            load()


def test_shipped_policy_is_plain_data():
    saved = torch.load(SHIPPED, weights_only=True)          # raises if it held any object
    assert saved["format"] == FORMAT and saved["version"] == VERSION
    # made for the layout before the known-hand block: it reads the observation's prefix
    assert saved["meta"]["layout_version"] in READABLE_LAYOUTS
    assert saved["network"]["obs_size"] == READABLE_LAYOUTS[saved["meta"]["layout_version"]]
    assert saved["network"]["features_extractor"] == "card_set"


def test_a_policy_file_with_code_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    # the old format's shape, with a payload where the constructor arguments were
    torch.save({"format": FORMAT, "version": 1, "meta": {"layout_version": LAYOUT_VERSION},
                "data": {"x": _Payload(marker)}, "state_dict": {}}, evil)
    _refused(evil, "refused -- it holds Python objects")
    # and inside an otherwise valid current file
    saved = torch.load(SHIPPED, weights_only=True)
    saved["meta"]["note"] = _Payload(marker)
    evil2 = tmp_path / "evil2.pt"
    torch.save(saved, evil2)
    _refused(evil2, "evil2.pt: refused")
    assert not marker.exists()


def test_files_that_are_not_policies_get_named_errors(tmp_path):
    shipped = torch.load(SHIPPED, weights_only=True)
    cases = {}
    cases["junk.pt"] = b"not a policy at all"
    data = SHIPPED.read_bytes()
    cases["truncated.pt"] = data[: len(data) // 2]
    cases["empty.pt"] = b""
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)

    def save(name, **changes):
        d = {**shipped, **changes}
        torch.save(d, tmp_path / name)

    save("layout.pt", meta={**shipped["meta"], "layout_version": "0ld"})
    save("version.pt", version=99)
    save("format.pt", format="something-else")
    save("shape.pt", state_dict={k: v[..., :1] if v.ndim else v
                                 for k, v in shipped["state_dict"].items()})
    save("nan.pt", state_dict={k: torch.full_like(v, float("nan")) if v.is_floating_point() else v
                               for k, v in shipped["state_dict"].items()})
    save("activation.pt", network={**shipped["network"], "activation": "os.system"})
    save("extractor.pt", network={**shipped["network"], "features_extractor": "Evil"})
    save("arch.pt", network={**shipped["network"], "net_arch": {"pi": [10 ** 9]}})
    save("size.pt", network={**shipped["network"], "obs_size": 12})
    torch.save([1, 2, 3], tmp_path / "list.pt")
    expect = {"junk.pt": "not a readable policy file", "truncated.pt": "not a readable",
              "empty.pt": "not a readable", "layout.pt": "observation layout '0ld'",
              "version.pt": "format version 99", "format.pt": "not a nivel_env policy file",
              "shape.pt": "do not fit the network", "nan.pt": "NaN or infinity",
              "activation.pt": "network.activation", "extractor.pt": "features_extractor",
              "arch.pt": "net_arch", "size.pt": "12 observation values",
              "list.pt": "not a nivel_env policy file"}
    for name, msg in expect.items():
        _refused(tmp_path / name, msg)
        with pytest.raises(PolicyFileError, match=name.replace(".", r"\.")):
            read_policy_file(tmp_path / name)
    with pytest.raises(PolicyFileError, match="no such policy file"):
        load_opponent(tmp_path / "missing.pt")
    with pytest.raises(PolicyFileError, match="not a regular file"):
        read_policy_file(tmp_path)


def test_a_file_named_like_a_bundled_opponent_does_not_replace_it(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    torch.save({"x": _Payload(marker)}, tmp_path / "nv1-ppo")
    monkeypatch.chdir(tmp_path)
    agent = load_opponent("nv1-ppo")                         # the shipped one
    assert Path(agent.path) == SHIPPED and not marker.exists()
    with pytest.raises(ValueError, match="known: random, heuristic, nv1-ppo"):
        load_opponent("nv9")
    # a path names the file, and the file is checked
    with pytest.raises(PolicyFileError, match="refused"):
        load_opponent("./nv1-ppo")
    assert not marker.exists()
    assert set(bundled_opponents()) >= {"random", "heuristic", "nv1-ppo"}


def test_export_and_read_round_trip_plays_the_same(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.network import policy_kwargs
    from nivel_env import NivelArenaGymEnv
    env = NivelArenaGymEnv(decks=("ember-rush", "stone-bastion"))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, policy_kwargs=policy_kwargs(), seed=0,
                        device="cpu")
    path = export_policy(model, tmp_path / "p.pt", {"command": "test"})
    torch.load(path, weights_only=True)
    agent = PolicyAgent(path)
    assert agent.meta["command"] == "test"
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        mask = env.action_masks()
        with torch.no_grad():
            x = torch.as_tensor(obs).reshape(1, -1)
            a = model.policy.get_distribution(x, action_masks=mask.reshape(1, -1))
            b = agent.policy.get_distribution(x, action_masks=mask.reshape(1, -1))
        la, lb = a.distribution.logits[0][mask], b.distribution.logits[0][mask]
        # float16 storage: same ranking of legal moves up to fp16 rounding
        assert torch.allclose(la, lb, atol=2e-2)
        obs, _, done, trunc, _ = env.step(int(np.flatnonzero(mask)[int(lb.argmax())]))
        if done or trunc:
            obs, _ = env.reset()
    assert os.path.getsize(path) < 10 << 20


def test_upgrade_rewrites_a_format_1_file_running_nothing(tmp_path):
    """A nivel_env 0.1 file pickled classes and functions; upgrade reads it with the
    weights-only loader (inert stand-ins for every name) and writes the same network."""
    from agents.policy import upgrade_policy_file
    policy, meta = read_policy_file(SHIPPED)
    marker = tmp_path / "pwned"
    data = {**policy._get_constructor_parameters(), "x": _Payload(marker)}
    old = tmp_path / "old.pt"
    torch.save({"format": FORMAT, "version": 1, "meta": meta, "data": data,
                "state_dict": {k: v.half() for k, v in policy.state_dict().items()}}, old)
    new = upgrade_policy_file(old, tmp_path / "new.pt")
    assert not marker.exists()
    a = torch.load(new, weights_only=True)
    b = torch.load(SHIPPED, weights_only=True)
    assert a["network"] == b["network"] and a["meta"] == b["meta"]
    assert all(torch.equal(a["state_dict"][k], b["state_dict"][k]) for k in b["state_dict"])
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"junk")
    with pytest.raises(PolicyFileError, match="junk.pt"):
        upgrade_policy_file(junk, tmp_path / "j2.pt")
