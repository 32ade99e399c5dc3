"""No import circle through the value head, the search that reads it or the training.

Module-level cycles anywhere are tests/project/test_architecture.py's business; this adds
the imports inside functions for the modules below: the value head's runtime
(``agents.value``) once lived in its training command, which made opponents -> search ->
value_fit -> opponents a circle through function-local imports.  The import walk and the
cycle finder are the architecture test's.
"""
from __future__ import annotations

from test_architecture import imports, modules, strongly_connected

#: modules no cycle may pass through, imports inside functions included
ACYCLIC = {"agents.value", "agents.value_fit", "agents.search", "agents.training",
           "agents.training_pool"}


def agents_graph() -> dict[str, set[str]]:
    """agents module -> the agents modules it imports, at any depth of the code."""
    known = {m: v for m, v in modules().items() if m == "agents" or m.startswith("agents.")}
    graph = {m: set() for m in known}
    for mod, (path, package) in known.items():
        for target, _line, _top in imports(mod, path, package, known):
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target in known and target != mod:
                graph[mod].add(target)
    return graph


def test_no_cycle_through_the_value_head_search_or_training_even_inside_functions():
    graph = agents_graph()
    bad = [c for c in strongly_connected(graph) if ACYCLIC & set(c)]
    assert bad == [], f"import circles through {sorted(ACYCLIC)}: {bad}"
    assert "agents.value" in graph["agents.search"]          # the runtime head
    assert "agents.value_fit" not in graph["agents.search"]  # not its training command


def test_the_walk_sees_function_local_imports():
    """opponents imports the search only when a search is asked for (inside a function):
    a walk of module-level imports alone would miss the edge this test guards."""
    assert "agents.search" in agents_graph()["agents.opponents"]
