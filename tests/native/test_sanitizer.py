"""The differential check on a sanitizer build of the native core (slow tier).

A copy of the tracked tree is built with ``NIVEL_NATIVE_SANITIZE=1`` (AddressSanitizer and
UndefinedBehaviorSanitizer, -O1 -g) and plays differential games under the ASan runtime:
any out-of-bounds read, use after free or undefined behaviour aborts the run with the
sanitizer's report, and a rules difference fails as in the plain check.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nivel_env.native._core")
ROOT = Path(__file__).resolve().parents[2]

GAMES = 24
SCRIPT = f"""
from nivel_env.checks import differential as D
from nivel_env.native import _core
assert _core.__file__.startswith({{root!r}}), _core.__file__
r = D.differential_errors({GAMES}, seed=3, backends=("python", "native"), obs_every=5)
print(r.summary())
assert r.games == {GAMES} and not r.errors, r.errors
"""


@pytest.mark.slow
def test_differential_games_under_address_and_undefined_sanitizers(tmp_path):
    cxx = shutil.which("g++")
    if cxx is None or not (ROOT / ".git").exists():
        pytest.skip("needs g++ and a git checkout")
    asan = subprocess.run([cxx, "-print-file-name=libasan.so"], capture_output=True,
                          text=True).stdout.strip()
    if not asan or not os.path.isabs(asan):
        pytest.skip("the compiler has no libasan")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    tree = tmp_path / "tree"
    for f in files:
        if (ROOT / f).is_file():
            (tree / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, tree / f)
    env = dict(os.environ, NIVEL_NATIVE_SANITIZE="1")
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "--force"],
                           cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    built = list((tree / "nivel_env" / "native").glob("_core*.so"))
    assert build.returncode == 0 and built, build.stdout[-2000:] + build.stderr[-3000:]
    env = dict(os.environ, PYTHONPATH=str(tree), LD_PRELOAD=asan,
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    run = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(tree))], cwd=tree,
                         env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-6000:]
    assert "0 differences" in run.stdout
