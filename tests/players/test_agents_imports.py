"""No import circle among the modules of ``agents/``.

Read with ``ast``: for each module of the package, the ``agents`` modules it imports (``from
.x import``, ``from . import x``, ``import agents.x``; ``from . import Name`` is the package
itself).  At module level (what runs on import) the graph must have no cycle at all.  With
the imports inside functions counted too, no cycle may pass through the value head, the
search that reads it or the training modules: the value head's runtime (``agents.value``)
once lived in its training command, which made opponents -> search -> value_fit ->
opponents a circle (issue 31).
"""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "agents"
#: modules no cycle may pass through, imports inside functions included
ACYCLIC = {"agents.value", "agents.value_fit", "agents.search", "agents.training",
           "agents.training_pool"}


def _qualified(stem: str) -> str:
    return "agents" if stem == "__init__" else f"agents.{stem}"


def import_graph(package: Path, module_level_only: bool) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself left out)."""
    modules = {_qualified(p.stem) for p in package.glob("*.py")}

    def target(name: str) -> str:
        parts = name.split(".")
        return ".".join(parts[:2]) if ".".join(parts[:2]) in modules else "agents"

    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        me = _qualified(path.stem)
        found: set[str] = set()

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                        and module_level_only:
                    continue
                if isinstance(child, ast.Import):
                    found.update(target(a.name) for a in child.names
                                 if a.name.split(".")[0] == "agents")
                elif isinstance(child, ast.ImportFrom):
                    if child.level > 1:
                        continue                        # above the package: not agents
                    base = ("agents" + (f".{child.module}" if child.module else "")
                            if child.level == 1 else child.module or "")
                    if base.split(".")[0] != "agents":
                        continue
                    if base == "agents":                # from . import x: a module or a name
                        found.update(target(f"agents.{a.name}") for a in child.names)
                    else:
                        found.add(target(base))
                visit(child)

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        graph[me] = found - {me}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected parts of more than one module (Tarjan), each
    sorted: every import circle lies inside one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_cycle_finder_finds_a_circle_and_only_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_reads_relative_package_and_function_local_imports(tmp_path):
    pkg = tmp_path / "agents"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .one import X\n")
    (pkg / "one.py").write_text("from . import two\nimport agents.three\nX = 1\n")
    (pkg / "two.py").write_text("def f():\n    from .one import X\n    return X\n")
    (pkg / "three.py").write_text("from agents import X\nfrom numpy import array\n")
    top = import_graph(pkg, module_level_only=True)
    assert top == {"agents": {"agents.one"}, "agents.one": {"agents.two", "agents.three"},
                   "agents.two": set(), "agents.three": {"agents"}}
    assert cycles(top) == [["agents", "agents.one", "agents.three"]]
    every = import_graph(pkg, module_level_only=False)
    assert every["agents.two"] == {"agents.one"}
    assert ["agents.one", "agents.two"] in [[m for m in c if m in ("agents.one", "agents.two")]
                                            for c in cycles(every)]


def test_no_import_cycle_among_agents_modules_at_module_level():
    assert cycles(import_graph(PACKAGE, module_level_only=True)) == []


def test_no_cycle_through_the_value_head_search_or_training_even_inside_functions():
    bad = [c for c in cycles(import_graph(PACKAGE, module_level_only=False))
           if ACYCLIC & set(c)]
    assert bad == [], f"import circles through {sorted(ACYCLIC)}: {bad}"
    graph = import_graph(PACKAGE, module_level_only=False)
    assert "agents.value" in graph["agents.search"]          # the runtime head
    assert "agents.value_fit" not in graph["agents.search"]  # not its training command
