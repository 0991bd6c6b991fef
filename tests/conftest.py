"""Session fixtures: one real snapshot built by the pipeline from the generated demo corpus.

Tests never read ../shared; the few that measure against it are marked ``shared_data`` and
skip when it is absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from analytics.demo import DEMO_AS_OF, generate_demo_corpus
from warehouse.demo import write_demo_corpus
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture(scope="session")
def demo_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DataDir]:
    """A data dir whose inbox holds the demo corpus and whose snapshot the pipeline built."""
    from pipelines.build import build

    data = DataDir(tmp_path_factory.mktemp("demo") / "data")
    write_demo_corpus(generate_demo_corpus(), data.inbox / "demo")
    build(data, as_of=DEMO_AS_OF, persistent=False)
    yield data


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
