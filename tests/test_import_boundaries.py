"""Who may import whom (docs/design.md §2). The packages stand in layers, and a package imports
only packages of lower layers: analytics is pure; warehouse does the I/O and reads only
analytics' schemas; retrieval is search (its index build and its engine) and fetch, beside it,
the source fetcher (it writes inbox files and ingests them through warehouse); readmodel is the
loaded snapshot and the answers; publishing writes what a snapshot publishes (the static site,
feeds, JSON tree, export) and delivers webhooks; pipelines (Dagster) and serving (the read-only
API) stand side by side and never import each other; cli (the ``aimi`` command line) is the one
package that imports every other, and the only one that imports demo (the generated corpus,
which reads only analytics' schemas); nothing imports cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# lowest first; the packages of one layer never import each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("analytics",),
    ("warehouse",),
    # search (the engine and its index) and the source fetcher: beside each other
    ("retrieval", "fetch"),
    ("readmodel",),
    ("publishing",),
    ("pipelines", "serving"),
    ("cli",),
)
ALLOWED = {
    package: {lower for below in LAYERS[:level] for lower in below}
    for level, layer in enumerate(LAYERS)
    for package in layer
}
# demo stands apart: it reads analytics' schemas, and only the command line reads it
ALLOWED["demo"] = {"analytics"}
ALLOWED["cli"].add("demo")
OURS = tuple(ALLOWED)
# Schema-like analytics modules: constants, record models, no computations.
DEMO_MAY_USE = {"analytics.schema", "analytics.records", "analytics.entities", "analytics.themes"}
# analytics does no I/O and knows nothing of the frameworks around it.
FORBIDDEN_THIRD_PARTY = {
    "analytics": {"dagster", "fastapi", "starlette", "duckdb", "uvicorn", "faiss", "tantivy"},
    "demo": {"dagster", "fastapi", "starlette", "duckdb", "uvicorn", "faiss", "tantivy", "torch"},
    "warehouse": {"dagster", "fastapi", "starlette", "uvicorn"},
    "retrieval": {"dagster", "fastapi", "starlette", "uvicorn"},
    "readmodel": {"dagster", "fastapi", "starlette", "uvicorn"},
    "publishing": {"dagster", "fastapi", "starlette", "uvicorn"},
    "fetch": {"dagster", "fastapi", "starlette", "uvicorn"},
    "serving": {"dagster"},
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def violations(package: str) -> list[str]:
    problems = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, module in imported_modules(path):
            top = module.split(".")[0]
            where = f"{path.relative_to(ROOT)}:{line} imports {module}"
            if top in OURS and top != package and top not in ALLOWED[package]:
                problems.append(where)
            if top in FORBIDDEN_THIRD_PARTY.get(package, set()):
                problems.append(where)
    return problems


@pytest.mark.parametrize("package", OURS)
def test_package_respects_design_boundaries(package: str) -> None:
    assert violations(package) == []


def test_warehouse_imports_only_schemas_and_pure_helpers_from_analytics() -> None:
    # warehouse may use analytics for schemas and record validation, never for computations
    # that belong in pipelines (trends, decomposition, rendering).
    allowed = {
        "analytics.schema",
        "analytics.records",
        "analytics.urls",
        "analytics.transcripts",  # the transcript turn format adapters emit
        "analytics.embedding",  # the Embedder protocol the MiniLM loader implements
        "analytics.entities",  # the Entity model the registry file holds
        "analytics.themes",  # the canonical labels and the taxonomy the theme file holds
        "analytics.entity_review",  # the decision model the entity reviews file holds
    }
    used = {
        module
        for path in (ROOT / "warehouse").rglob("*.py")
        for _, module in imported_modules(path)
        if module.split(".")[0] == "analytics"
    }
    assert used <= allowed, used - allowed


def test_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import dagster\nfrom serving.app import create_app\n")
    assert [m for _, m in imported_modules(bad)] == ["dagster", "serving.app"]


def test_demo_imports_only_analytics_schemas() -> None:
    used = {
        module
        for path in (ROOT / "demo").rglob("*.py")
        for _, module in imported_modules(path)
        if module.split(".")[0] == "analytics"
    }
    assert used <= DEMO_MAY_USE, used - DEMO_MAY_USE


def imported_packages(package: str) -> set[str]:
    """Our other packages that ``package`` imports (lazy imports inside functions included)."""
    return {
        module.split(".")[0]
        for path in (ROOT / package).rglob("*.py")
        for _, module in imported_modules(path)
        if module.split(".")[0] in OURS and module.split(".")[0] != package
    }


def test_cli_is_the_only_package_that_imports_every_other() -> None:
    imports_all = [
        package
        for package in OURS
        if imported_packages(package) == {other for other in OURS if other != package}
    ]
    assert imports_all == ["cli"]


def test_only_the_cli_imports_demo() -> None:
    importers = {package for package in OURS if "demo" in imported_packages(package)}
    assert importers == {"cli"}
    # the two commands that need it: `aimi demo-data` and `aimi build --demo`
    files = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "cli").rglob("*.py")
        for _, module in imported_modules(path)
        if module.split(".")[0] == "demo"
    }
    assert files == {"cli/demo.py", "cli/build.py"}


def test_the_layers_read_as_the_design_says() -> None:
    # the pairs a reader asks about, spelled out
    assert ALLOWED["pipelines"] == {
        "analytics",
        "warehouse",
        "retrieval",
        "fetch",
        "readmodel",
        "publishing",
    }
    assert ALLOWED["serving"] == ALLOWED["pipelines"]
    assert ALLOWED["readmodel"] == {"analytics", "warehouse", "retrieval", "fetch"}
    assert ALLOWED["fetch"] == {"analytics", "warehouse"}
    assert ALLOWED["cli"] == set(OURS) - {"cli"}
