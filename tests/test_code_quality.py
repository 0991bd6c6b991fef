"""The house rules as tests: ruff (lint and format) and mypy --strict stay clean on main."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.background import BackgroundError
from tests.conftest import background
from tests.packages import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "--quiet", "."],
        ["ruff", "format", "--check", "--quiet", "."],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_tool_is_clean(command: list[str]) -> None:
    tool = BIN / command[0]
    if not tool.exists():
        pytest.skip(f"{command[0]} is not installed in this environment")
    started = background(command[0])
    if started is not None:  # mypy, started when the session began (tests/conftest.py)
        try:
            started.wait(timeout=300)
        except BackgroundError as exc:  # its message is mypy's output
            pytest.fail(str(exc))
        return
    result = subprocess.run(
        [str(tool), *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- function length ---------------------------------------------------------------------------

PRODUCT = PRODUCT_PACKAGES
MAX_LINES = 80  # from the `def` line to the last line of the body, docstring included
# Functions over the limit in files other engineers are rewriting now; each is shortened there
# and leaves this list (which only shrinks: an entry that is no longer too long fails the test).
SHORTENING: dict[str, set[str]] = {}


def function_lengths(path: Path) -> dict[str, int]:
    """Each function's (and method's) length in lines, by qualified name within the file."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                assert child.end_lineno is not None
                lengths[prefix + child.name] = child.end_lineno - child.lineno + 1
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return lengths


def test_no_product_function_is_longer_than_the_limit() -> None:
    too_long: dict[str, set[str]] = {}
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            lengths = function_lengths(path)
            long = {name for name, lines in lengths.items() if lines > MAX_LINES}
            if long:
                too_long[path.relative_to(ROOT).as_posix()] = long
    unlisted = {
        rel: sorted(names - SHORTENING.get(rel, set()))
        for rel, names in too_long.items()
        if names - SHORTENING.get(rel, set())
    }
    assert unlisted == {}, f"over {MAX_LINES} lines: split them"
    # a listed function that got short (or went) leaves the list
    short_now = {
        rel: sorted(names - too_long.get(rel, set()))
        for rel, names in SHORTENING.items()
        if names - too_long.get(rel, set())
    }
    assert short_now == {}, "no longer too long: take them off SHORTENING"


def test_the_length_counts_a_method_and_a_nested_function(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "class A:\n"
        "    if True:\n"
        "        x = 1\n"
        "\n"
        "    def f(self) -> None:\n"
        '        """Two lines\n'
        '        of docstring."""\n'
        "\n"
        "        def g() -> None:\n"
        "            pass\n"
        "\n"
        "        g()\n"
        "\n"
        "\n"
        "@decorator\n"
        "def h() -> int:\n"
        "    return 1\n",
        encoding="utf-8",
    )
    assert function_lengths(source) == {"A.f": 8, "A.f.g": 2, "h": 2}
