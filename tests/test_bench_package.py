"""bench/ is a package run with ``python -m bench.<subject>...``: every module imports as part of
it, every import of a bench module (also one inside a function) names a module that exists, no
script reaches for its neighbours through ``sys.path``, and the commands the README and the
reference docs give name modules that exist."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import bench

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# sitecustomize.py is loaded by an interpreter at start-up (PYTHONPATH=bench/suite), not imported
NOT_IMPORTED = {"bench.suite.sitecustomize"}
# docs/benchmarks.md, quality.md and decisions.md are being rewritten into reference pages and a
# dated journal (whose history keeps the commands as they were run); the README, bench/README.md
# and every other page are held to the current layout
PAGES = [
    ROOT / "README.md",
    BENCH / "README.md",
    *(
        page
        for page in sorted((ROOT / "docs").glob("*.md"))
        if page.name not in {"benchmarks.md", "quality.md", "decisions.md"}
    ),
]
MODULE_COMMAND = re.compile(r"python3? -m (bench(?:\.\w+)+)")
PATH_COMMAND = re.compile(r"python3? (bench/[\w/]+\.py)")


def _modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(bench.__path__, "bench.")]


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("name", [m for m in _modules() if m not in NOT_IMPORTED])
def test_every_bench_module_imports_as_part_of_the_package(name: str) -> None:
    if name == "bench.analytics.speed.pandas_reference":
        pytest.importorskip("pandas")  # not a project dependency (bench/README.md)
    importlib.import_module(name)


def test_every_bench_import_names_a_module_that_exists() -> None:
    missing = []
    for path in sorted(BENCH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] if node.module.split(".")[0] == "bench" else []
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split(".")[0] == "bench"]
            missing += [f"{path.relative_to(ROOT)}: {n}" for n in names if not _module_exists(n)]
    assert missing == []


def test_no_bench_script_edits_sys_path() -> None:
    edits = [
        str(path.relative_to(ROOT))
        for path in sorted(BENCH.rglob("*.py"))
        if "sys.path" in path.read_text(encoding="utf-8")
    ]
    assert edits == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_bench_commands_of_a_page_name_modules_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert [m for m in MODULE_COMMAND.findall(text) if not _module_exists(m)] == []
    # a script run by its path cannot import the package it is part of
    assert PATH_COMMAND.findall(text) == []


def test_the_checker_reads_a_command_and_a_path() -> None:
    text = "`.venv/bin/python -m bench.search.quality.run DIR` or `python bench/encoder.py`"
    assert MODULE_COMMAND.findall(text) == ["bench.search.quality.run"]
    assert PATH_COMMAND.findall(text) == ["bench/encoder.py"]
    assert not _module_exists("bench.search.no_such_module")
