"""Every third-party import is declared by the install that runs it, and the README's first
command works on the core install alone.

Static: every module of nivel_env/, agents/, examples/, train.py and evaluate.py is read
with ``ast`` (imports at module level and inside functions alike), each third-party import
mapped to its distribution and compared with pyproject.toml's groups.  Which install a
module belongs to is ``INSTALLS`` below (core unless named there); docs: README.md, "On a
fresh machine".  The rules:

* an import that runs when the module is imported must be declared by core or by every
  install of the module -- and of every module that imports it at module level (importing
  a module runs its imports);
* an import inside a function must be declared by core or every install of its module;
* an import inside ``try: ... except ImportError:`` is an optional path: accepted when the
  handler falls back quietly, or when its message names ``pip install ... ".[extra]"``
  for an extra that declares the package, or the package itself (``pip install
  torch==2.13.0``), so the user is told what to install; a message built from
  ``nivel_env.install_hints`` is read as the words it says.

Dynamic: with every distribution outside the core install made unimportable
(``blocked_imports``), the README's main job (``evaluate.py decks``) at a tiny size and the
``python -m nivel_env demo`` / ``check`` entry points succeed.
"""
from __future__ import annotations

import ast
import fnmatch
import functools
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from blocked_imports import (ROOT, canonical, not_in_core, pyproject_groups,
                             run_without)

#: installs that play policy files: torch alone (no stable-baselines3)
PLAYS_POLICIES = ("train", "rllib", "tianshou")
#: file pattern -> the extras whose install must run the module (every other: core)
INSTALLS = {
    "nivel_env/web/*": ("web",),                    # python -m nivel_env serve
    "nivel_env/checks/web.py": ("web", "dev"),     # the check's browser answers: TestClient
    "nivel_env/env/vector_sb3.py": ("train",),          # SB3's VecEnv
    "nivel_env/env/vector_workers.py": ("train",),
    "train.py": ("train",),
    "agents/sb3_policy.py": ("train",),
    "nivel_env/tournaments/ray_backend.py": ("ray",),  # evaluate.py --ray
    "agents/policy.py": PLAYS_POLICIES,
    "agents/network.py": PLAYS_POLICIES,
    "agents/value.py": PLAYS_POLICIES,              # the search agents' value heads
    "agents/value_fit.py": PLAYS_POLICIES,          # the command that fits them
    "agents/training.py": ("train",),               # train.py's loop: SB3
    "agents/precision.py": ("train",),              # train.py --precision
    "agents/search.py": PLAYS_POLICIES,
    "agents/leaf_forward.py": PLAYS_POLICIES,       # the search's forward
    "agents/oracle.py": PLAYS_POLICIES,             # the search's full-state value
    "agents/oracle_fit.py": PLAYS_POLICIES,         # the command that fits it
    "agents/distill.py": PLAYS_POLICIES,            # expert iteration: search, fit, evaluation
    "examples/rllib_selfplay.py": ("rllib",),
    "examples/tianshou_selfplay.py": ("tianshou",),
    "examples/common.py": ("rllib", "tianshou"),
}
SCANNED = ("nivel_env", "agents", "examples", "train.py", "evaluate.py")
FIRST_PARTY = {"nivel_env", "agents"}
#: import name -> distribution, for packages not installed where the test runs
KNOWN = {"yaml": "pyyaml", "sb3_contrib": "sb3-contrib",
         "stable_baselines3": "stable-baselines3", "torch": "torch", "ray": "ray",
         "tianshou": "tianshou", "starlette": "starlette", "uvicorn": "uvicorn",
         "httpx": "httpx", "playwright": "playwright", "PIL": "pillow",
         "tensorboard": "tensorboard", "gymnasium": "gymnasium", "pettingzoo": "pettingzoo",
         "numpy": "numpy", "scipy": "scipy", "matplotlib": "matplotlib", "tqdm": "tqdm",
         "rich": "rich", "hypothesis": "hypothesis", "pytest": "pytest"}
_EXTRA = re.compile(r"pip install[^\n]*?(?:\.|nivel[-_]env)\[([\w, -]+)\]")
#: a message naming the package itself: ``pip install torch==2.13.0``
_DIRECT = re.compile(r"pip install (?!-)([A-Za-z0-9][A-Za-z0-9_.-]*?)(?=[=<>~!\s)\"'`;,]|$)")


def _hint_names(tree: ast.AST) -> dict:
    """The names a module imports from ``nivel_env.install_hints`` (anywhere in it) ->
    their values: the hints are plain strings and ``extra(name)``, so a message built
    from them is read as the words it will say."""
    from nivel_env import install_hints
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[-1] == "install_hints":
            for a in n.names:
                v = getattr(install_hints, a.name, None)
                if isinstance(v, str) or callable(v):
                    out[a.asname or a.name] = v
    return out


def _value(node: ast.AST, names: dict):
    """A module constant's string: a literal, or an expression of hint names (an f-string,
    a call of ``extra``) evaluated; None for anything else."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if not used or not used <= set(names):
        return None
    try:
        v = eval(compile(ast.Expression(node), "<hint>", "eval"),  # noqa: S307 -- hint names only
                 {"__builtins__": {}}, dict(names))
    except Exception:                                             # noqa: BLE001
        return None
    return v if isinstance(v, str) else None


@dataclass
class Import:
    file: str          # relative path
    line: int
    name: str          # the imported module, dotted
    module_level: bool
    guard: str | None  # None: unguarded; "fallback"; or the handler's text


def _installs(rel: str) -> tuple[str, ...]:
    for pattern, groups in INSTALLS.items():
        if fnmatch.fnmatch(rel, pattern):
            return groups
    return ()


def _handler_text(handler: ast.ExceptHandler, consts: dict) -> str | None:
    """The handler's message (its strings, and module string constants it names), or None
    when it falls back quietly (no raise, print, exit or returned message)."""
    loud = False
    parts = []
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise) or (isinstance(node, ast.Return) and isinstance(
                node.value, (ast.JoinedStr, ast.Constant)) and isinstance(
                getattr(node.value, "value", ""), str)):
            loud = True
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
                else ""
            loud |= name in ("print", "exit", "SystemExit", "error", "fail")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts.append(node.value)
        elif isinstance(node, ast.Name) and isinstance(consts.get(node.id), str):
            parts.append(consts[node.id])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and callable(consts.get(node.func.id)):           # extra("web")
            said = _value(node, consts)
            if said:
                parts.append(said)
    return "\n".join(parts) if loud else None


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    names = t.elts if isinstance(t, ast.Tuple) else [t] if t is not None else []
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
               for n in names)


def read_imports(path: Path, rel: str) -> list[Import]:
    """Every import in a file, with where it sits (module level or in a function) and the
    ``except ImportError`` guarding it, if any.  ``if TYPE_CHECKING:`` blocks never run."""
    tree = ast.parse(path.read_text(), str(path))
    hints = _hint_names(tree)
    consts = {**hints, **{t.id: v for n in tree.body if isinstance(n, ast.Assign)
                          and (v := _value(n.value, hints)) is not None
                          for t in n.targets if isinstance(t, ast.Name)}}
    package = rel[:-3].replace("/", ".")
    if not rel.endswith("__init__.py"):
        package = package.rpartition(".")[0]
    else:
        package = package[:-len(".__init__")]
    found: list[Import] = []

    def visit(node, module_level: bool, guard):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            module_level = False
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child, module_level, guard)
            return
        if isinstance(node, ast.Try):
            handlers = [h for h in node.handlers if _catches_import_error(h)]
            inner = guard
            if handlers:
                texts = [_handler_text(h, consts) for h in handlers]
                inner = "fallback" if any(t is None for t in texts) else "\n".join(texts)
            for child in node.body:
                visit(child, module_level, inner)
            for child in node.handlers + node.orelse + node.finalbody:
                visit(child, module_level, guard)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                found.append(Import(rel, node.lineno, a.name, module_level, guard))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            if mod != "__future__":
                found.append(Import(rel, node.lineno, mod, module_level, guard))
                for a in node.names:             # from package import submodule
                    found.append(Import(rel, node.lineno, f"{mod}.{a.name}", module_level,
                                        guard))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in (
                "importlib.import_module", "import_module", "__import__") and node.args \
                and isinstance(node.args[0], ast.Constant):
            found.append(Import(rel, node.lineno, str(node.args[0].value), module_level,
                                guard))
        for child in ast.iter_child_nodes(node):
            visit(child, module_level, guard)

    for top in tree.body:
        visit(top, True, None)
    return found


def _first_party_file(root: Path, name: str, importer: str) -> str | None:
    """The scanned file a first-party module name is, or None (a name in a package, not
    a module)."""
    parts = name.split(".")
    if importer.startswith("examples/") and len(parts) == 1 \
            and (root / "examples" / f"{name}.py").exists():
        return f"examples/{name}.py"
    for cand in ("/".join(parts) + ".py", "/".join(parts) + "/__init__.py"):
        if (root / cand).exists():
            return cand
    return None


def _is_first_party(root: Path, name: str, importer: str) -> bool:
    top = name.split(".")[0]
    return top in FIRST_PARTY or (importer.startswith("examples/")
                                  and (root / "examples" / f"{top}.py").exists())


@functools.lru_cache(maxsize=None)
def _installed() -> dict:
    return metadata.packages_distributions()


def _distributions(top: str) -> set[str]:
    found = {canonical(d) for d in _installed().get(top, [])}
    if top in KNOWN:
        found.add(KNOWN[top])
    return found


def problems(root: Path = ROOT, groups: dict | None = None) -> list[str]:
    """Every import the install that runs it does not declare, as readable lines."""
    groups = pyproject_groups(root / "pyproject.toml") if groups is None else groups
    files = [p for d in SCANNED for p in ((root / d).rglob("*.py") if (root / d).is_dir()
                                          else [root / d]) if p.exists()]
    imports = {}
    for p in sorted(files):
        rel = p.relative_to(root).as_posix()
        imports[rel] = read_imports(p, rel)
    unknown = [i for i in (x for v in imports.values() for x in v)
               if _installs(i.file) and any(g not in groups for g in _installs(i.file))]
    assert not unknown, f"INSTALLS names extras pyproject.toml lacks: {unknown[:1]}"
    # where each module runs: its own installs, and those of every module that imports
    # it at module level (core: "core")
    runs = {rel: set(_installs(rel) or ("core",)) for rel in imports}
    changed = True
    while changed:
        changed = False
        for rel, found in imports.items():
            for i in found:
                if not i.module_level or i.guard or not _is_first_party(root, i.name, rel):
                    continue
                parts = i.name.split(".")
                for k in range(1, len(parts) + 1):        # parents' __init__ run too
                    target = _first_party_file(root, ".".join(parts[:k]), rel)
                    if target in runs and not runs[rel] <= runs[target]:
                        runs[target] |= runs[rel]
                        changed = True
    out = []
    for rel, found in imports.items():
        seen = set()
        for i in found:
            top = i.name.split(".")[0]
            if top in sys.stdlib_module_names or _is_first_party(root, i.name, rel) \
                    or (i.line, top) in seen:
                continue
            seen.add((i.line, top))
            dists = _distributions(top)
            if not dists:
                out.append(f"{rel}:{i.line}: import {i.name}: no installed distribution "
                           f"provides {top!r}; add it to KNOWN in {Path(__file__).name}")
                continue
            if dists & groups["core"]:
                continue
            if i.guard is not None and i.guard != "fallback":
                named = {e.strip() for m in _EXTRA.finditer(i.guard)
                         for e in m.group(1).split(",")}
                direct = {canonical(m.group(1)) for m in _DIRECT.finditer(i.guard)}
                if not any(dists & groups.get(e, set()) for e in named) \
                        and not dists & direct:
                    out.append(f"{rel}:{i.line}: import {i.name} is guarded, but the message "
                               f"names no extra that declares {'/'.join(sorted(dists))} "
                               f"(pip install -e \".[EXTRA]\")")
                    continue
            # a guarded import is an optional path where the module runs on core; the
            # installs a module belongs to must still declare it
            if i.guard is not None:
                need = set(_installs(rel))
            elif i.module_level:
                need = runs[rel]
            else:
                need = set(_installs(rel) or ("core",))
            lacking = sorted(g for g in need if g == "core" or not dists & groups[g])
            if lacking:
                out.append(f"{rel}:{i.line}: import {i.name} needs "
                           f"{'/'.join(sorted(dists))}, which "
                           f"{', '.join(lacking)} does not declare in pyproject.toml "
                           f"({'at module level' if i.module_level else 'in a function'};"
                           f" the module runs under {', '.join(sorted(need))})")
    return out


def test_every_import_is_declared_by_its_install():
    found = problems()
    assert not found, "\n".join(found)


def test_without_scipy_the_deck_report_is_undeclared():
    """The fault that reached users: scipy dropped from the core dependencies."""
    groups = pyproject_groups()
    groups["core"] = groups["core"] - {"scipy"}
    found = problems(groups=groups)
    assert any(f.startswith("nivel_env/tournaments/metagame.py") and "scipy" in f
               for f in found), found
    assert any(f.startswith("nivel_env/tournaments/sprt.py") for f in found), found


def _tree(tmp_path, files: dict) -> Path:
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_an_undeclared_import_is_named(tmp_path):
    root = _tree(tmp_path, {
        "nivel_env/__init__.py": "",
        "nivel_env/fine.py": "import numpy\n",
        "nivel_env/late.py": "def f():\n    import torch\n",
        "nivel_env/nowhere.py": "import yaml\nimport requests\n",
        "agents/__init__.py": "from . import policy\n",
        "agents/policy.py": "import torch\n",
    })
    found = "\n".join(problems(root))
    assert "nivel_env/late.py:2: import torch needs torch, which core" in found
    assert "nivel_env/nowhere.py:2: import requests" in found
    assert "yaml" not in found and "fine.py" not in found
    # agents/__init__ (core) imports agents.policy at module level: torch runs on core
    assert "agents/policy.py:1: import torch needs torch, which core" in found


def test_an_extra_must_declare_what_its_modules_import(tmp_path):
    root = _tree(tmp_path, {
        "agents/__init__.py": "",
        "agents/policy.py": "import torch\n\ndef f():\n    import sb3_contrib\n",
        "agents/network.py": "try:\n    import stable_baselines3\nexcept ImportError:\n"
                             "    raise ImportError('pip install -e \".[train]\"')\n",
        "examples/rllib_selfplay.py": "import ray\nimport tianshou\n",
    })
    found = "\n".join(problems(root))
    # a guard tells a core user what to install; it does not excuse the module's installs
    assert "agents/network.py:2: import stable_baselines3 needs stable-baselines3, which " \
           "rllib, tianshou does not declare" in found
    # a policy file must play in the rllib and tianshou installs, which lack sb3-contrib
    assert "agents/policy.py:4: import sb3_contrib needs sb3-contrib, which rllib, " \
           "tianshou does not declare" in found
    assert "examples/rllib_selfplay.py:2: import tianshou" in found
    assert "rllib_selfplay.py:1" not in found


def test_guarded_imports_must_name_an_extra_that_declares_the_package(tmp_path):
    body = "try:\n    import {m}\nexcept ImportError:\n    {handler}\n"
    root = _tree(tmp_path, {
        "nivel_env/__init__.py": "",
        "nivel_env/a.py": body.format(m="uvicorn", handler="raise SystemExit("
                                      "'needs pip install -e \".[web]\"')"),
        "nivel_env/b.py": body.format(m="uvicorn", handler="raise SystemExit("
                                      "'needs pip install -e \".[train]\"')"),
        "nivel_env/c.py": body.format(m="torch", handler="torch = None"),
        "nivel_env/d.py": 'HOW = "pip install -e \'.[train]\'"\n' + body.format(
            m="torch", handler="print(HOW)"),
        "nivel_env/e.py": body.format(m="torch", handler="raise"),
        "nivel_env/f.py": body.format(m="torch", handler="raise SystemExit("
                                      "'pip install torch==2.13.0')"),
        "nivel_env/g.py": body.format(m="uvicorn", handler="raise SystemExit("
                                      "'pip install torch==2.13.0')"),
        "nivel_env/h.py": "from nivel_env.install_hints import PLAY_POLICIES, extra\n"
                          "HOW = f'serve: {extra(\"web\")}'\n" + body.format(
            m="torch", handler="raise ImportError(f'{PLAY_POLICIES}')") + body.format(
            m="uvicorn", handler="print(HOW)") + body.format(
            m="starlette", handler="print(extra('web'))") + body.format(
            m="ray", handler="print(extra('web'))"),
    })
    found = "\n".join(problems(root))
    assert "a.py" not in found and "c.py" not in found and "d.py" not in found
    assert "f.py" not in found and "nivel_env/g.py:2: import uvicorn is guarded" in found
    # messages made of nivel_env.install_hints are read as what they say
    assert [line.split(" is guarded")[0] for line in found.splitlines() if "h.py" in line] \
        == ["nivel_env/h.py:16: import ray"]
    assert "nivel_env/b.py:2: import uvicorn is guarded, but the message names no extra" \
        in found
    assert "nivel_env/e.py:2" in found


def test_the_examples_extras_declare_torch():
    groups = pyproject_groups()
    assert {"torch"} <= groups["rllib"] and {"torch"} <= groups["tianshou"]
    assert "sb3-contrib" not in groups["rllib"] | groups["tianshou"]


# ------------------------------------------------------------------ the core install
def _core_run(args, timeout=120, blocked=None):
    run = run_without(not_in_core() if blocked is None else blocked, args, timeout)
    assert run.returncode == 0, f"{' '.join(args)}:\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    return run


def test_the_core_install_hides_every_extra():
    import importlib.util
    blocked = not_in_core()
    extras = {"torch", "stable_baselines3", "sb3_contrib", "starlette", "ray", "tianshou"}
    assert {m for m in extras if importlib.util.find_spec(m)} <= blocked
    assert not {"numpy", "scipy", "yaml", "gymnasium", "matplotlib"} & blocked
    run = run_without(blocked, ["-c", "import importlib.util as u\n"
                                "assert u.find_spec('torch') is None\nimport torch"])
    assert run.returncode == 1 and "No module named 'torch'" in run.stderr


def test_readme_main_job_runs_on_the_core_install(tmp_path):
    """``pip install -e . && python evaluate.py decks --games 20``, at a tiny size: two
    decks, two seeds, the heuristic pilot (torch is absent), every worker process held to
    the core install too."""
    run = _core_run(["evaluate.py", "decks", "--games", "2", "--decks", "ember-rush",
                     "stone-bastion", "--workers", "2", "--bootstrap", "50", "--no-progress",
                     "--out", str(tmp_path)])
    assert "pilot: heuristic" in run.stdout
    assert (tmp_path / "report.html").stat().st_size > 0


def test_the_main_job_fails_without_scipy(tmp_path):
    """The dynamic check notices a core package gone missing (the reported fault)."""
    run = run_without(not_in_core() | {"scipy"},
                      ["evaluate.py", "decks", "--games", "1", "--decks", "ember-rush",
                       "stone-bastion", "--workers", "1", "--bootstrap", "10",
                       "--no-progress", "--out", str(tmp_path)], 120)
    assert run.returncode != 0 and "scipy" in run.stderr


def test_demo_runs_on_the_core_install():
    assert "Result:" in _core_run(["-m", "nivel_env", "demo", "--seed", "7"]).stdout


def test_check_runs_on_the_core_install():
    run = _core_run(["-m", "nivel_env", "check", "--games", "10", "--workers", "1",
                     "--no-progress"])
    assert "passed" in run.stdout


@pytest.mark.parametrize("opponent", ["nv2-ppo", "casual"])
def test_a_policy_opponent_without_torch_says_what_to_install(opponent):
    """On the core install a trained opponent is refused with the install command; the
    heuristic ladder levels still play."""
    run = run_without(not_in_core(), ["-c", f"from agents import load_opponent\n"
                                            f"load_opponent({opponent!r})"], 60)
    if opponent == "casual":
        assert run.returncode == 0, run.stderr[-2000:]
    else:
        assert run.returncode == 1 and "pip install torch==2.13.0" in run.stderr
        assert ".[train]" not in run.stderr           # a policy plays on torch alone


# ------------------------------------------------------------------ CI and the README
def _readme_commands():
    import importlib.util
    spec = importlib.util.spec_from_file_location("readme_commands",
                                                  ROOT / ".ci" / "readme_commands.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.readme_commands


def test_ci_runs_the_readme_set_up_commands_as_written():
    """CI reads the commands from README.md (never a copy of them), and runs each in a
    fresh virtual environment before anything else is installed there."""
    commands = _readme_commands()((ROOT / "README.md").read_text())
    assert len(commands) == 2
    assert commands[0].startswith("pip install -e . && python evaluate.py decks")
    assert commands[1].startswith("pip install torch==") and "python -m pytest -q" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 .ci/readme_commands.py README.md" in ci
    for c in commands:
        assert c not in ci, f"CI retypes a README command: {c}"
    for k, venv in ((0, "a"), (1, "b")):
        fresh, run = ci.index(f'fresh "$ROOT/.venv-ci/{venv}"'), ci.index(f'"${{SETUP[{k}]}}"')
        between = ci[fresh:run]
        assert fresh < run and "pip install" not in between, between
    assert "--durations=25" in ci and "-m slow" in ci
    # the examples' extras in their own environment, without train
    c = ci[ci.index('fresh "$ROOT/.venv-ci/c"'):]
    assert '".[dev,rllib,tianshou]"' in c and "train" not in c.split("pytest")[0]


def test_readme_commands_reads_only_the_first_bash_block():
    read = _readme_commands()
    text = ("intro\n```bash\n# a comment\n\npip install -e . && \\\n  python x.py --n 2\n"
            "pip install y\n```\n```bash\nnot this\n```\n")
    assert read(text) == ["pip install -e . &&   python x.py --n 2", "pip install y"]
    with pytest.raises(SystemExit, match="no ```bash block"):
        read("no code here")
