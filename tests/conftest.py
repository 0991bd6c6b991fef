"""Session fixtures: one real snapshot built by the pipeline from the generated demo corpus.

The suite is arranged for its wall time on two cores (docs/benchmarks.md): it runs on every
core with pytest-xdist, and the demo snapshot is built once per session, in a background
process started as soon as collection shows that a selected test needs it, and so are the
real-data build (with ``../shared``) and ``mypy --strict`` (these two at a lower priority); the
workers share that work through the session's board (below), the tests that need none of it
run meanwhile, and the tests that wait for it run last, in the order it should finish. Tests
that need the demo snapshot are marked ``snapshot`` here, so ``make test-fast`` (``-m "not
snapshot and not slow"``) can leave them out.

Tests never read ../shared; the few that measure against it are marked ``shared_data`` and
skip when it is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.background import (
    DEMO_BUILD_REPORT,
    INGEST_REPORT,
    Background,
    start_demo_build,
    start_mypy,
    start_real_build,
)
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot

if TYPE_CHECKING:
    from analytics.embedding import Embedder

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
# Fixtures that stand for the demo snapshot: a test whose fixture closure holds one needs it.
SNAPSHOT_FIXTURES = frozenset({"demo_data_dir", "demo_snapshot"})
REAL_FIXTURE = "real_data_dir"
MYPY_TEST = "test_tool_is_clean[mypy-strict]"

# The session's board: a folder per piece of background work (``tests.background.Background``).
# The process that runs the session owns it (under pytest-xdist, the controller, which hands
# its path to every worker) and removes it at the end; the first process that needs a piece of
# work starts it, the others wait on the same folder.
BOARD_KEY = "aimi_board"
WORKER_NICE = 3
_board: list[Path] = []  # [] until this process knows it
_owner: list[bool] = []


def _the_board() -> Path:
    if not _board:
        _board.append(Path(tempfile.mkdtemp(prefix="aimi-suite-")))
        _owner.append(True)
    return _board[0]


def pytest_configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and BOARD_KEY in workerinput:
        _board[:] = [Path(workerinput[BOARD_KEY])]
        _owner[:] = [False]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, in the controller: every worker shares this session's board."""
    node.workerinput[BOARD_KEY] = str(_the_board())


def _work(name: str) -> Background:
    """The background work ``name`` (``demo``, ``real``, ``mypy``): started here unless another
    process of the session started it first."""
    folder = _the_board() / name
    try:
        folder.mkdir()
    except FileExistsError:
        return Background(folder)
    if name == "demo":
        return start_demo_build(folder)
    if name == "real":
        return start_real_build(SHARED_DATA, folder)
    return start_mypy(folder)


def _wait_rank(item: pytest.Item) -> int:
    """0 for a test that waits for no background work, then in the order the work is expected
    to finish: the demo snapshot (built at full priority), mypy, the real-data build."""
    names = set(getattr(item, "fixturenames", ()))
    if names & SNAPSHOT_FIXTURES:
        return 1
    if item.name == MYPY_TEST:
        return 2
    return 3 if REAL_FIXTURE in names else 0


def pytest_itemcollected(item: pytest.Item) -> None:
    # before `-m` deselects: `-m "not snapshot"` sees the marker
    if SNAPSHOT_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.snapshot)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Once the selection is final: the tests that wait for background work last (stable
    otherwise), the background work started (under pytest-xdist every worker collects every
    test: the first to get here starts it, the others find it started)."""
    ranks = {item.nodeid: _wait_rank(item) for item in items}
    files: dict[Path, int] = {}
    for item in items:
        files[item.path] = max(files.get(item.path, 0), ranks[item.nodeid])
    # by file first: pytest-xdist hands a worker a whole file (`--dist loadfile`), so a file
    # with one test that waits would hold its worker, and the files queued behind it, idle
    items.sort(key=lambda item: (files[item.path], ranks[item.nodeid]))
    if config.option.collectonly:
        return
    if any(item.get_closest_marker("snapshot") for item in items):
        _work("demo")
    if any(item.name == MYPY_TEST for item in items):
        _work("mypy")
    if SHARED_DATA.is_dir() and any(REAL_FIXTURE in getattr(i, "fixturenames", ()) for i in items):
        _work("real")
    if hasattr(config, "workerinput"):
        # once the work is started (it keeps the priority it was started with): the demo build
        # that most tests wait for goes first, where two workers beside it on two cores would
        # leave it two thirds of one
        os.nice(WORKER_NICE)


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The machine, under the durations: the suite's time means little without its CPU."""
    from tests.machine import this_machine

    terminalreporter.write_line(this_machine())


def pytest_sessionfinish() -> None:
    # the webhook delivery runs builds started (they outlive a build by design) must not
    # outlive the session, writing into data dirs it is about to remove
    webhooks = sys.modules.get("publishing.webhooks")
    if webhooks is not None:
        webhooks.reap_started(timeout=30)
    if _board and _owner[0]:  # after every worker has finished, under pytest-xdist
        for folder in _board[0].iterdir():
            Background(folder).stop()
        shutil.rmtree(_board[0], ignore_errors=True)
        _board.clear()
        _owner.clear()


def background(name: str) -> Background | None:
    """The background work ``name`` (``demo``, ``mypy``) when this session started it."""
    folder = _the_board() / name
    return Background(folder) if folder.is_dir() else None


@pytest.fixture(scope="session")
def demo_data_dir() -> Iterator[DataDir]:
    """A data dir whose inbox holds the demo corpus and whose snapshot the pipeline built."""
    work = _work("demo")
    work.wait()
    yield DataDir(work.folder / "data")


@pytest.fixture(scope="session")
def demo_build_report(demo_data_dir: DataDir) -> dict[str, object]:
    """What the demo build's process reported at its end (``tests.background.build_demo``)."""
    report: dict[str, object] = json.loads(
        (demo_data_dir.root.parent / DEMO_BUILD_REPORT).read_text(encoding="utf-8")
    )
    return report


@pytest.fixture(scope="session")
def demo_snapshot(demo_data_dir: DataDir) -> OpenedSnapshot:
    from warehouse.snapshot import open_current

    opened = open_current(demo_data_dir)
    assert opened is not None
    return opened


@pytest.fixture(scope="session")
def real_data_dir(shared_data: Path) -> tuple[DataDir, dict[str, int]]:
    """A data dir built from the first real AINews 2025 records, and its ingest report
    (skips, through ``shared_data``, on a machine without ../shared)."""
    assert shared_data == SHARED_DATA
    work = _work("real")
    work.wait()
    data = DataDir(work.folder / "data")
    return data, json.loads((data.root / INGEST_REPORT).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model cache (``AIMI_MODEL_CACHE``) of this session holding the ONNX encoder at both
    precisions: copies of the machine's exports (``make setup`` makes them) when their records
    are current for the installed weights and tools, else exported here from the packaged
    weights (torch, about 6 s of CPU each; ``tests/warehouse/test_onnx_encoder.py`` exports
    into a folder of its own, so exporting stays tested)."""
    from warehouse.embeddings import model_dir
    from warehouse.onnx_encoder import (
        PRECISIONS,
        ExportRecord,
        export_onnx,
        manifest_path,
        onnx_model_path,
        read_record,
    )
    from warehouse.settings import default_model_cache

    cache = tmp_path_factory.mktemp("model-cache")
    for precision in PRECISIONS:
        made = onnx_model_path(default_model_cache(), precision)
        dest = onnx_model_path(cache, precision)
        if read_record(made) == ExportRecord.current(model_dir(), precision):
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(made, dest)
            shutil.copyfile(manifest_path(made), manifest_path(dest))
        else:
            assert export_onnx(dest, precision=precision).exported
        assert read_record(dest) == ExportRecord.current(model_dir(), precision)
    return cache


@pytest.fixture(scope="session")
def build_minilm(onnx_cache: Path) -> Embedder:
    """MiniLM as a build runs it (ONNX Runtime over the fp32 export, one thread): the encoder
    the analytics tests embed with, without importing torch (its agreement with the torch
    encoder is tested in ``tests/warehouse/test_onnx_encoder.py``)."""
    from warehouse.onnx_encoder import OnnxEncoder, onnx_model_path

    return OnnxEncoder(
        onnx_model_path(onnx_cache, "fp32"), threads=1, spinning=False, exact_lengths=True
    )


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    return SHARED_DATA
