"""Policy files are plain data: loading one never runs code, and only real policies load.

Each hostile file here is handed to every public way in (``read_policy_file``,
``load_opponent``, ``PolicyAgent``); a file that would run code when unpickled leaves a
marker file behind if it ever is, so a test fails on any loader that executes it.  A
policy file plays with torch alone (no stable-baselines3), so every extra with torch can
use the shipped opponents; value-head files get the same checks.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

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
    with pytest.raises(ValueError, match="known: .*nv1-ppo"):
        load_opponent("nv9")
    # a path names the file, and the file is checked
    with pytest.raises(PolicyFileError, match="refused"):
        load_opponent("./nv1-ppo")
    assert not marker.exists()
    assert set(bundled_opponents()) >= {"random", "heuristic", "nv1-ppo"}


@pytest.mark.parametrize("net", ["card_set", "pointer", "separate"])
def test_export_and_read_round_trip_plays_the_same(tmp_path, net):
    """What MaskablePPO trained (an SB3 policy) and what the file plays (plain torch) give
    the same action distribution and value, for each network kind."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents.network import PolicyNetwork, pointer_policy, policy_kwargs
    from nivel_env import NivelArenaGymEnv
    env = NivelArenaGymEnv(decks=("ember-rush", "stone-bastion"))
    cls, kw = pointer_policy(16, 8, 32) if net == "pointer" else ("MlpPolicy", policy_kwargs())
    if net == "separate":
        kw = {**kw, "share_features_extractor": False}
    model = MaskablePPO(cls, env, n_steps=32, policy_kwargs=kw, seed=0, device="cpu")
    path = export_policy(model, tmp_path / "p.pt", {"command": "test"})
    torch.load(path, weights_only=True)
    agent = PolicyAgent(path)
    assert agent.meta["command"] == "test" and isinstance(agent.policy, PolicyNetwork)
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        mask = env.action_masks()
        with torch.no_grad():
            x = torch.as_tensor(obs).reshape(1, -1)
            a = model.policy.get_distribution(x, action_masks=mask.reshape(1, -1))
            lb = torch.as_tensor(agent.logits(x.numpy(), mask.reshape(1, -1))[0][mask])
            va, vb = model.policy.predict_values(x), agent.policy.predict_values(x)
        la = a.distribution.logits[0][mask]
        # float16 storage: same ranking of legal moves up to fp16 rounding
        assert torch.allclose(la - la.logsumexp(0), lb - lb.logsumexp(0), atol=2e-2)
        assert torch.allclose(va, vb, atol=2e-2)
        obs, _, done, trunc, _ = env.step(int(np.flatnonzero(mask)[int(lb.argmax())]))
        if done or trunc:
            obs, _ = env.reset()
    assert os.path.getsize(path) < 10 << 20


def test_upgrade_rewrites_a_format_1_file_running_nothing(tmp_path):
    """A nivel_env 0.1 file pickled classes and functions; upgrade reads it with the
    weights-only loader (inert stand-ins for every name) and writes the same network."""
    from agents.network import CardSetExtractor
    from agents.policy import ACTIVATIONS, upgrade_policy_file
    policy, meta = read_policy_file(SHIPPED)
    marker = tmp_path / "pwned"
    net = policy.spec
    # what SB3's _get_constructor_parameters held: spaces, classes, plain values
    data = {"observation_space": policy.observation_space, "action_space": policy.action_space,
            "net_arch": net["net_arch"], "activation_fn": ACTIVATIONS[net["activation"]],
            "features_extractor_class": CardSetExtractor,
            "features_extractor_kwargs": net["features_extractor_kwargs"],
            "ortho_init": net["ortho_init"], "x": _Payload(marker)}
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


def test_every_shipped_policy_plays_with_torch_alone():
    """The rllib and tianshou extras install torch but not stable-baselines3: each shipped
    policy (and the search over nv2-ppo, with its value head) must load and move there."""
    from blocked_imports import run_without
    code = """
import sys
from agents import load_opponent
from agents.opponents import POLICY_DIR
from nivel_env.cards import load_deck
from nivel_env.engine import N_ACTIONS, new_game
from nivel_env.env.encoder import Encoder
deck = load_deck("ember-rush")
g = new_game(deck, load_deck("stone-bastion"), seed=3)
legal = g.legal_actions()
obs = Encoder(deck.db).encode(g, g.current_player, legal)
mask = [a in legal for a in range(N_ACTIONS)]
names = sorted(p.stem for p in POLICY_DIR.glob("*.pt"))
assert names, "no shipped policy"
for name in names:
    a = load_opponent(name)
    assert a.act(obs, mask) in legal, name
s = load_opponent("nv2-search:simulations=4,worlds=1")
assert s.act_state(g.clone()) in legal
bad = [m for m in sys.modules if m.split(".")[0] in ("stable_baselines3", "sb3_contrib")]
assert not bad, bad
print("played", names)
"""
    run = run_without({"stable_baselines3", "sb3_contrib"}, ["-c", code], timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "nv2-ppo" in run.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_is_refused_not_waited_on(tmp_path, capsys):
    """Opening a FIFO for reading blocks until a writer comes: each loader must refuse
    it from its file type first.  Each runs in a thread; one still waiting after a few
    seconds fails the test by name (a writer is then opened to set it free)."""
    import threading

    from agents.policy import PolicyFileError, _upgrade, read_policy_file, upgrade_policy_file
    from agents.value import ValueFileError, load_value_head
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    value = POLICY_DIR.parent / "values" / "nv2-ppo.pt"
    loaders = {
        "upgrade": lambda: upgrade_policy_file(fifo, tmp_path / "n.pt"),
        "policy": lambda: read_policy_file(fifo),
        "value_head": lambda: load_value_head(fifo),
        "value_head_policy": lambda: load_value_head(value, fifo),
        "upgrade command": lambda: _upgrade(["upgrade", str(fifo), str(tmp_path / "n.pt")]),
    }
    for name, load in loaders.items():
        got = {}

        def attempt():
            try:
                got["returned"] = load()
            except (PolicyFileError, ValueFileError) as e:
                got["refused"] = str(e)
        t = threading.Thread(target=attempt, daemon=True)
        t.start()
        t.join(10)
        if t.is_alive():
            with open(fifo, "wb"):                      # set the waiting reader free
                pass
            t.join(10)
            pytest.fail(f"{name} waited on the named pipe")
        if name == "upgrade command":                   # the command line says so
            assert got["returned"] == 2, got
            assert "pipe.pt: not a regular file" in capsys.readouterr().err
        else:
            assert "pipe.pt: not a regular file" in got.get("refused", ""), (name, got)


def _value_file(path, **changes):
    from agents.value import VALUE_FORMAT, VALUE_VERSION
    head = {"net.0.weight": torch.zeros(8, 4, dtype=torch.float16),
            "net.0.bias": torch.zeros(8, dtype=torch.float16),
            "net.2.weight": torch.zeros(1, 8, dtype=torch.float16),
            "net.2.bias": torch.zeros(1, dtype=torch.float16)}
    saved = {"format": VALUE_FORMAT, "version": VALUE_VERSION, "width": 4, "hidden": 8,
             "policy_sha256": "0" * 64, "state_dict": head, "meta": {}}
    saved.update(changes)
    torch.save(saved, path)
    return path


@pytest.mark.parametrize("changes, field", [
    ({"width": 10 ** 9, "hidden": 10 ** 9}, "field 'width' must be a size in 1..65536"),
    ({"hidden": 2 ** 40}, "field 'hidden' must be a size"),
    ({"width": -3}, "field 'width'"),
    ({"width": True}, "field 'width'"),
    ({"width": "4"}, "field 'width'"),
    ({"width": 5}, "field 'state_dict' does not fit the declared width"),
    ({"hidden": 60000}, "field 'state_dict' does not fit"),
    ({"state_dict": {"net.0.weight": torch.zeros(8, 4)}}, "net.0.bias missing"),
    ({"state_dict": [1, 2]}, "field 'state_dict' must map names to float tensors"),
])
def test_a_value_head_with_bad_sizes_is_refused_before_anything_is_built(tmp_path, changes,
                                                                          field):
    from agents.value import ValueFileError, load_value_head
    path = _value_file(tmp_path / "head.pt", **changes)
    with pytest.raises(ValueFileError, match=r"head\.pt: ") as e:
        load_value_head(path)
    assert field in str(e.value)
    ok = load_value_head(_value_file(tmp_path / "ok.pt"))
    assert ok.width == 4 and ok.hidden == 8
