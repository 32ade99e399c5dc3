"""Mixed precision (agents/precision.py): bfloat16 only where it is asked for and
supported, the module's weights untouched; on a CUDA machine, a tiny training run in it."""
import subprocess
import sys

import pytest

th = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from agents.precision import mixed_precision, resolve  # noqa: E402

HAS_CUDA = th.cuda.is_available()


def test_auto_is_float32_on_the_cpu_and_bfloat16_is_refused_there():
    assert resolve("auto", "cpu") == "float32" and resolve("float32", "cpu") == "float32"
    assert resolve("auto", "cpu", batch_size=8192) == "float32"
    with pytest.raises(ValueError, match="bfloat16 needs a CUDA device"):
        resolve("bfloat16", "cpu")
    with pytest.raises(ValueError, match="choose one of auto, float32, bfloat16"):
        resolve("half", "cpu")


def test_hooks_run_the_module_in_bfloat16_and_hand_back_float32():
    """On the CPU autocast's bfloat16 runs too: the hooked module computes in bfloat16
    (its result differs from float32's in the low bits), returns float32, and its
    state_dict is unchanged; removing the hooks gives float32 results again."""
    th.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    x = th.randn(32, 64)
    exact = m(x)
    handles = mixed_precision(m, "cpu")
    mixed = m(x)
    assert mixed.dtype == th.float32 and not th.equal(mixed, exact)
    assert th.allclose(mixed, exact, atol=0.1)
    mixed.sum().backward()                       # gradients reach the float32 weights
    assert all(p.grad is not None and p.grad.dtype == th.float32 for p in m.parameters())
    for h in handles:
        h.remove()
    assert th.equal(m(x), exact)
    assert all(th.equal(before[k], v) for k, v in m.state_dict().items())


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_train_on_the_gpu_in_mixed_precision(tmp_path):
    """Runs where a GPU is: train.py picks CUDA by itself, says bfloat16, and exports a
    policy that plays on the CPU."""
    out = tmp_path / "run"
    assert resolve("auto", "cuda") == "float32"                 # minibatch 256: no gain
    assert resolve("auto", "cuda", batch_size=4096) == "bfloat16"
    r = subprocess.run([sys.executable, "train.py", "--quick", "--obs", "compact",
                        "--precision", "bfloat16",
                        "--out", str(out), "--no-progress", "--final-games", "2"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "device: cuda" in r.stdout and "precision: bfloat16" in r.stdout
    from agents import load_opponent
    agent = load_opponent(str(out / "policy.pt"))
    assert agent is not None
