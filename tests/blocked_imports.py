"""Run Python as if some packages were not installed: the test helper behind the checks
that a bare install (and the rllib extra, without stable-baselines3) really works.

``run_without(blocked, args)`` starts ``python args...`` with a ``sitecustomize`` on its
path that puts a finder first on ``sys.meta_path``: importing a blocked top-level module
raises ``ModuleNotFoundError``, and ``importlib.util.find_spec`` answers None for it, as
for a package that is absent.  Being a ``sitecustomize``, it also loads in every worker
process the command starts (forkserver, spawn), so a whole ``evaluate.py`` run is held to
it.  ``not_in_core()`` names the top-level modules of every installed distribution that
the core install (``pip install -e .``) would not bring.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_HOOK = '''
import importlib.util as _util
import sys as _sys

_BLOCKED = frozenset({blocked!r})


class _Absent:
    """Blocked packages import as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: not part "
                                      f"of this install)", name=name)
        return None


_real_find_spec = _util.find_spec


def _find_spec(name, package=None):
    if name.partition(".")[0] in _BLOCKED:
        return None
    return _real_find_spec(name, package)


_util.find_spec = _find_spec
_sys.meta_path.insert(0, _Absent())
'''


def run_without(blocked, args, timeout: float = 300, cwd=ROOT, env=None):
    """``python args...`` (a CompletedProcess, text output) with ``blocked`` top-level
    modules unimportable, in that process and every Python process it starts."""
    with tempfile.TemporaryDirectory() as d:
        Path(d, "sitecustomize.py").write_text(_HOOK.format(blocked=sorted(blocked)))
        env = {**os.environ, **(env or {})}
        env["PYTHONPATH"] = os.pathsep.join([d, str(ROOT)] + (
            [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd, env=env)


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them (``PyYAML`` -> ``pyyaml``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(req: str) -> str:
    """The distribution a requirement string names: ``ray[rllib]>=2.52`` -> ``ray``."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    if not m:
        raise ValueError(f"cannot read the requirement {req!r}")
    return canonical(m.group(1))


def pyproject_groups(path: Path = ROOT / "pyproject.toml") -> dict[str, set[str]]:
    """{"core": the dependencies, extra: its requirements}, as canonical names."""
    try:
        import tomllib
    except ModuleNotFoundError:                       # Python 3.10
        import pytest
        tomllib = pytest.importorskip("tomli")
    project = tomllib.loads(path.read_text())["project"]
    groups = {"core": {requirement_name(r) for r in project.get("dependencies", [])}}
    for extra, reqs in project.get("optional-dependencies", {}).items():
        groups[extra] = {requirement_name(r) for r in reqs}
    return groups


def closure(names) -> set[str]:
    """``names`` and every installed distribution they require, unconditionally (not
    through an extra), as canonical names."""
    seen, todo = set(), [canonical(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [requirement_name(r) for r in reqs if "extra" not in r.partition(";")[2]]
    return seen


def not_in_core(core=None) -> set[str]:
    """Top-level modules that only distributions outside the core install provide."""
    keep = closure(pyproject_groups()["core"] if core is None else core) | {
        "pip", "setuptools", "wheel", "nivel-env"}
    out = set()
    for module, dists in metadata.packages_distributions().items():
        if module in sys.stdlib_module_names or module in ("nivel_env", "agents"):
            continue
        if not any(canonical(d) in keep for d in dists):
            out.add(module)
    return out
