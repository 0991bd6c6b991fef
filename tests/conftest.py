"""Session fixtures: one real snapshot built by the pipeline from the generated demo corpus.

The suite is arranged for its wall time on two cores (docs/benchmarks.md): the demo snapshot
is built once per session, in a background process started as soon as collection shows that a
selected test needs it, and ``mypy --strict`` likewise; the tests that need neither run
meanwhile, and the tests that need the snapshot run last. Tests that need the snapshot are
marked ``snapshot`` here, so ``make test-fast`` (``-m "not snapshot and not slow"``) can leave
them out.

Tests never read ../shared; the few that measure against it are marked ``shared_data`` and
skip when it is absent.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.background import Background, start_demo_build, start_mypy
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
# Fixtures that stand for the demo snapshot: a test whose fixture closure holds one needs it.
SNAPSHOT_FIXTURES = frozenset({"demo_data_dir", "demo_snapshot"})
MYPY_TEST = "test_tool_is_clean[mypy-strict]"

_background: dict[str, Background] = {}
_demo_root: list[Path] = []


def pytest_itemcollected(item: pytest.Item) -> None:
    # before `-m` deselects: `-m "not snapshot"` sees the marker
    if SNAPSHOT_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.snapshot)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Once the selection is final: the snapshot's tests last, background work started."""
    needs_snapshot = [item for item in items if item.get_closest_marker("snapshot")]
    if needs_snapshot:
        items[:] = [item for item in items if not item.get_closest_marker("snapshot")] + (
            needs_snapshot
        )
    if config.option.collectonly:
        return
    if needs_snapshot and "demo" not in _background:
        root = Path(tempfile.mkdtemp(prefix="aimi-demo-"))
        _demo_root.append(root)
        _background["demo"] = start_demo_build(root / "data")
    if any(item.name == MYPY_TEST for item in items) and "mypy" not in _background:
        _background["mypy"] = start_mypy()


def pytest_sessionfinish() -> None:
    for work in _background.values():
        work.stop()
    _background.clear()
    for root in _demo_root:
        shutil.rmtree(root, ignore_errors=True)


def background(name: str) -> Background | None:
    """The background work ``name`` (``demo``, ``mypy``) when this session started it."""
    return _background.get(name)


@pytest.fixture(scope="session")
def demo_data_dir() -> Iterator[DataDir]:
    """A data dir whose inbox holds the demo corpus and whose snapshot the pipeline built."""
    build = background("demo")
    if build is None:  # e.g. a session that selected tests after collection by another route
        root = Path(tempfile.mkdtemp(prefix="aimi-demo-"))
        _demo_root.append(root)
        build = _background["demo"] = start_demo_build(root / "data")
    build.wait()
    yield DataDir(_demo_root[-1] / "data")


@pytest.fixture(scope="session")
def demo_snapshot(demo_data_dir: DataDir) -> OpenedSnapshot:
    from warehouse.snapshot import open_current

    opened = open_current(demo_data_dir)
    assert opened is not None
    return opened


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    return SHARED_DATA
