"""One lock helper: every ``flock`` in the project goes through ``warehouse.locks``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("analytics", "demo", "warehouse", "pipelines", "serving")


def imports_fcntl(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "fcntl" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "fcntl":
            return True
    return False


def test_only_the_lock_helper_imports_fcntl() -> None:
    modules = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]
    assert len(modules) > 50  # the packages were really read
    found = [str(p.relative_to(ROOT)) for p in modules if imports_fcntl(p)]
    assert found == ["warehouse/locks.py"]
