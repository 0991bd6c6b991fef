"""The per-signal passes in chunks, and the build on Dagster's multiprocess executor (issue 33):
the same warehouse and the same snapshot, table for table, whether one chunk runs in-process,
two chunks run in-process, or two processes (one encoder thread each) run two chunks; a step
whose launcher no longer holds the build lock runs nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
import pytest

from pipelines import resources
from pipelines.build import build_run
from pipelines.defs.ingest.assets import ingest
from pipelines.resources import AimiResource
from tests.pipelines.test_incremental import news, record, write
from warehouse.paths import DataDir
from warehouse.tables import PARTS_FOLDER

AS_OF = datetime(2026, 7, 1, tzinfo=UTC)
STARTED = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


def _built(tmp_path: Path, name: str, **options: int) -> tuple[DataDir, dg.ExecutionResult]:
    """A build in ``tmp_path/data``, then moved to ``tmp_path/name``: the three builds read
    their inbox at the same path, which the sources and the ingest log record."""
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    # essays (several sentences to embed each) and news, ingested after 2026-04-28: the
    # current extractor, which embeds
    write(
        data.inbox / "batch.jsonl",
        [record(n, title=f"Essay {n} on capex") for n in range(3)] + [news(n) for n in range(5)],
    )
    run = build_run(data, as_of=AS_OF, persistent=False, **options)
    return DataDir(data.root.rename(tmp_path / name)), run.result


def _tables(folder: Path) -> dict[str, pl.DataFrame]:
    return {path.name: pl.read_parquet(path) for path in sorted(folder.glob("*.parquet"))}


def _materialized_chunks(result: dg.ExecutionResult, asset: str) -> int:
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization  # type: ignore[union-attr]
        if materialization.asset_key == dg.AssetKey(asset):
            value = materialization.metadata["chunks"].value
            assert isinstance(value, int)
            return value
    raise AssertionError(f"{asset} was not materialized")


@pytest.mark.slow  # three builds, one of them in step processes: 10 minutes and more under load
@pytest.mark.timeout(1800)
def test_chunks_and_processes_build_the_same_warehouse_and_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one instant for all three runs: what differs then is how the work was split, nothing else
    monkeypatch.setattr(resources, "wall_clock", lambda: STARTED)
    one, one_result = _built(tmp_path, "one")
    two, two_result = _built(tmp_path, "two", chunks=2)
    processes, processes_result = _built(tmp_path, "processes", processes=2)
    # the steps of the multiprocess run ran in processes of their own, two chunks per pass
    pids = {event.pid for event in processes_result.all_events if event.is_step_start}
    assert len(pids) > 10
    for asset in ("units", "signal_themes", "unit_embeddings"):
        assert _materialized_chunks(one_result, asset) == 1
        assert _materialized_chunks(two_result, asset) == 2
        assert _materialized_chunks(processes_result, asset) == 2
    want = _tables(one.warehouse)
    assert {"units.parquet", "signal_themes.parquet", "unit_embeddings.parquet"} <= set(want)
    assert want["units.parquet"].height > 20
    snapshots = [
        next(p for p in data.snapshots.iterdir() if p.is_dir()) for data in (one, two, processes)
    ]
    for data, snapshot in zip((two, processes), snapshots[1:], strict=True):
        got = _tables(data.warehouse)
        assert set(got) == set(want)
        for name, frame in want.items():
            assert got[name].equals(frame), name
        served = _tables(snapshot)
        assert set(served) == set(_tables(snapshots[0]))
        for name, frame in _tables(snapshots[0]).items():
            assert served[name].equals(frame), name
        # the FAISS input: byte for byte
        for name in ("vectors.npy", "spans.npy"):
            assert np.array_equal(np.load(snapshot / name), np.load(snapshots[0] / name))
        assert not (data.warehouse / PARTS_FOLDER).exists() or not any(
            (data.warehouse / PARTS_FOLDER).iterdir()
        )


def test_a_step_whose_launcher_lost_the_lock_runs_nothing(tmp_path: Path) -> None:
    # a multiprocess run's steps trust the lock its launcher took under a token; with no
    # holder (the launcher died), a step fails with what to do instead of building unguarded
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    (data.inbox / "batch.jsonl").write_text(
        '{"kind": "news", "title": "Acme raises", "url": "https://example.com/a", '
        '"published_at": "2026-06-01T08:00:00Z", "text": "Acme raised $1 billion."}\n'
    )
    result = dg.materialize(
        [ingest],
        resources={"aimi": AimiResource(data_dir=str(data.root), lock_token="launcher-gone")},
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=False,
    )
    assert not result.success
    failures = [e for e in result.all_events if e.is_failure]
    assert any("no longer holds the build lock" in str(e.event_specific_data) for e in failures)
    assert not data.table_path("sources").exists()
