"""The house's layers, as docs/architecture.md draws them, checked on the source.

The table under "## Layers" in docs/architecture.md names each part of the code and the
parts it may import; this test reads that table and walks every import statement of the
project's modules (module level and inside functions, by ``ast``, without importing
anything), and fails on an import the table does not allow or on an import cycle between
modules at module level.  The doc is the rule; changing the house means changing the doc.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"


def layer_table() -> dict[str, set[str]]:
    """part -> the parts it may import, from the doc's table (``| part | may import |``)."""
    text = DOC.read_text(encoding="utf-8").split("## Layers", 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        part = cells[0].strip("`")
        table[part] = set(re.findall(r"`([^`]+)`", cells[2]))
    assert table, f"{DOC}: no layer table found under '## Layers'"
    return table


def modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for f in [*ROOT.glob("nivel_env/**/*.py"), *ROOT.glob("agents/**/*.py"),
              ROOT / "train.py", ROOT / "evaluate.py"]:
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (f, package)
    return found


def imports(mod: str, path: Path, package: bool, known) -> list[tuple[str, int, bool]]:
    """(imported module, line, at module level) for each import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set()
    for n in tree.body:       # module level includes `if`/`try` blocks at the top
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top.update(id(x) for x in ast.walk(n))
    here = mod if package else mod.rpartition(".")[0]
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            names = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                base = here.split(".")[:len(here.split(".")) - (n.level - 1)]
                base = ".".join(base + ([n.module] if n.module else []))
            else:
                base = n.module or ""
            subs = [f"{base}.{a.name}" for a in n.names if f"{base}.{a.name}" in known]
            names = subs + ([base] if len(subs) < len(n.names) else [])
        else:
            continue
        out += [(m, n.lineno, id(n) in top) for m in names]
    return out


def part_of(mod: str, table) -> str | None:
    """The most specific part of the table that holds ``mod`` (the row ``nivel_env`` is
    the package's ``__init__`` alone, not everything under it)."""
    best = None
    for part in table:
        if mod == part or (part != "nivel_env" and mod.startswith(part + ".")):
            if best is None or len(part) > len(best):
                best = part
    return best


def violations(table) -> tuple[list[str], list[str]]:
    """(imports ``table`` does not allow, modules in no part of it)."""
    known = modules()
    wrong, unplaced = [], []
    for mod, (path, package) in known.items():
        src = part_of(mod, table)
        if src is None:
            unplaced.append(mod)
            continue
        for target, line, _top in imports(mod, path, package, known):
            if target.split(".")[0] not in ("nivel_env", "agents", "train", "evaluate"):
                continue
            dst = part_of(target, table)
            if dst is None or dst == src:
                continue
            allowed = table[src]
            if dst not in allowed and not ("nivel_env.*" in allowed and
                                           dst.startswith("nivel_env")):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {src} imports {target} ({dst})")
    return wrong, unplaced


def test_every_import_follows_the_layer_table():
    wrong, unplaced = violations(layer_table())
    assert not unplaced, f"modules in no part of docs/architecture.md's table: {unplaced}"
    assert not wrong, "imports across the layers docs/architecture.md forbids:\n" + \
        "\n".join(wrong)


def test_the_check_sees_a_forbidden_import():
    """The table's rows bite: without its right to import the player protocol, the Gym env
    (which asks its opponent through it) breaks the rule; without a row, modules are
    unplaced."""
    table = layer_table()
    table["nivel_env.env"] = table["nivel_env.env"] - {"nivel_env.players"}
    wrong, _ = violations(table)
    assert any(w.startswith("nivel_env/env/single.py") and "nivel_env.players" in w
               for w in wrong), wrong
    del table["nivel_env.web"]
    assert "nivel_env.web.app" in violations(table)[1]


def test_no_import_cycle_between_modules():
    known = modules()
    graph = {m: set() for m in known}
    for mod, (path, package) in known.items():
        for target, _line, top in imports(mod, path, package, known):
            while target and target not in known and "." in target:
                target = target.rpartition(".")[0]
            if top and target in known and target != mod:
                graph[mod].add(target)
    cycles = strongly_connected(graph)
    assert not cycles, f"import cycles at module level: {cycles}"


def strongly_connected(graph) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        work.append((v, iter(sorted(graph[v]))))

    for root in graph:
        if root in index:
            continue
        work: list = []
        visit(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    visit(w)
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


#: the engine's one function-local import: new_game's door to the native wrapper, which
#: imports the engine (at module level it would be a cycle)
LAZY_IN_ENGINE = {("nivel_env.engine", "nivel_env.native.game")}


def test_no_function_local_imports_in_the_engine():
    known = modules()
    local = [f"{path.relative_to(ROOT)}:{line}"
             for mod, (path, package) in known.items() if mod.startswith("nivel_env.engine")
             for t, line, top in imports(mod, path, package, known)
             if not top and (mod, t) not in LAZY_IN_ENGINE]
    assert not local, f"function-local imports in the engine (move them up): {local}"


#: ids and locations decoded by hand: a shift or mask of ``Game.where``, an instance id
#: divided by ``K.PER``, an action id minus the start of its range
_ARITHMETIC = re.compile(r">>\s*2\b|&\s*3\b|//\s*K\.PER|%\s*K\.PER|divmod\(\w+\s*-\s*A\.|"
                         r"-\s*A\.(PLAY|ACTIVATE|ATTACK|DEFEND|GUARDIAN|PICK)\b")
#: the encoder's hand_slots block has one column per PLAY id by definition
_ALLOWED = {("nivel_env/env/encoder.py", "ones.append(ho + a - A.PLAY)")}


def test_no_id_arithmetic_outside_the_engine():
    """Moves are read through ``engine.actions.decode`` and locations through the read API
    (``zone_of``, ``lane_of``, ``owner_of``, ``leader_of``); only the engine knows how ids
    and locations are packed."""
    found = []
    for mod, (path, _package) in modules().items():
        if mod.startswith("nivel_env.engine"):
            continue
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _ARITHMETIC.search(code) and (rel, code.strip()) not in _ALLOWED:
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "ids or locations decoded by hand outside the engine:\n" + \
        "\n".join(found)
