"""The house rules as tests: ruff (lint and format) and mypy --strict stay clean on main."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.background import BackgroundError
from tests.conftest import background

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
