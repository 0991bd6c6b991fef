"""No import cycle anywhere in our packages: the import graph, lazy imports inside functions
included (a cycle hidden behind a function-level import is still a cycle), has no strongly
connected component of more than one module."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.packages import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = PRODUCT_PACKAGES


def modules(root: Path = ROOT) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_graph(found: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in found]
                # `from pkg import module` runs pkg/__init__ too, but ours hold no imports
                targets = submodules or [base]
            for target in targets:
                # `import a.b.c` imports a, a.b and a.b.c: the deepest of ours is the edge
                parts = target.split(".")
                for depth in range(len(parts), 0, -1):
                    candidate = ".".join(parts[:depth])
                    if candidate in found:
                        if candidate != name:
                            graph[name].add(candidate)
                        break
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_in_our_packages() -> None:
    graph = import_graph(modules())
    assert sum(len(edges) for edges in graph.values()) > 100  # the graph was really read
    assert cycles(graph) == []


def test_the_checker_finds_a_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    package = tmp_path / "warehouse"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tables.py").write_text("def f():\n    from warehouse.snapshot import g\n")
    (package / "snapshot.py").write_text("from warehouse import tables\n")
    (package / "paths.py").write_text("from . import snapshot\n")
    graph = import_graph(modules(tmp_path))
    assert graph["warehouse.paths"] == {"warehouse.snapshot"}
    assert cycles(graph) == [["warehouse.snapshot", "warehouse.tables"]]
