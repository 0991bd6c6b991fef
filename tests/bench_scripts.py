"""A benchmark script imported as a module by its tests: ``bench/`` scripts run from their own
folder and import their neighbours by bare name, so the folder goes first on ``sys.path`` while
the test module uses it, and the modules are forgotten afterwards."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


@contextmanager
def bench_script(folder: str, name: str, *neighbours: str) -> Iterator[ModuleType]:
    """``bench/<folder>/<name>.py`` imported; ``neighbours`` are the sibling modules it imports,
    dropped with it on the way out."""
    path = str(BENCH / folder)
    sys.path.insert(0, path)
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(path)
        for module in (name, *neighbours):
            sys.modules.pop(module, None)
