"""The warehouse on an S3-compatible store (``AIMI_WAREHOUSE_URL``, issue 33): tables and a
split pass's parts written and read there, nothing in the data dir's ``warehouse/`` folder;
and a whole build, in-process and on the multiprocess executor, whose tables are all in the
bucket. Against a real local S3 server (moto's, ``tests.s3_server``), no test double."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from analytics.schema import UNITS
from tests.s3_server import S3Server, module_server, warehouse_on
from warehouse.paths import DataDir
from warehouse.snapshot import open_current
from warehouse.tables import (
    PARTS_FOLDER,
    S3Tables,
    drop_parts,
    read_part,
    read_stored,
    read_table,
    table_exists,
    table_store,
    write_part,
    write_table,
)

_prefixes = iter(range(10_000))
AS_OF = datetime(2026, 7, 1, tzinfo=UTC)


s3 = module_server("aimi-warehouse")


@pytest.fixture
def on_s3(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``AIMI_WAREHOUSE_URL`` set to a prefix of this test's own, and boto3 pointed at the
    server (the variables a step's process inherits too)."""
    with warehouse_on(s3, monkeypatch, f"test-{next(_prefixes)}") as url:
        yield url


def _keys(s3: S3Server, url: str) -> set[str]:
    prefix = url.removeprefix(f"s3://{s3.bucket}/")
    listed = s3.client().list_objects_v2(Bucket=s3.bucket, Prefix=prefix + "/")
    return {item["Key"].removeprefix(prefix + "/") for item in listed.get("Contents", [])}


def test_tables_and_parts_live_in_the_bucket(tmp_path: Path, on_s3: str, s3: S3Server) -> None:
    data = DataDir(tmp_path / "data")
    assert isinstance(table_store(data), S3Tables)
    frame = pl.DataFrame({"signal_id": ["s1", "s2"], "n": [1, 2]})
    assert not table_exists(data, "signals")
    assert read_table(data, "signals", pl.Schema({"signal_id": pl.String})).height == 0
    with pytest.raises(FileNotFoundError, match=f"{on_s3}/warehouse/signals.parquet"):
        read_stored(data, "signals")
    assert write_table(data, "signals", frame) == f"{on_s3}/warehouse/signals.parquet"
    assert table_exists(data, "signals")
    assert read_stored(data, "signals").equals(frame)
    assert read_table(data, "signals", pl.Schema({"n": pl.Int64})).equals(frame.select("n"))
    # a newer version of a table is read whole in its place
    write_table(data, "signals", frame.head(1))
    assert read_stored(data, "signals").equals(frame.head(1))
    # a chunk's parts, for the collecting step of another process or machine
    units = pl.DataFrame(schema=UNITS)
    write_part(data, "run-1", "units", 0, "units", units)
    write_part(data, "run-1", "units", 1, "units", units)
    assert _keys(s3, on_s3) == {
        "warehouse/signals.parquet",
        f"warehouse/{PARTS_FOLDER}/run-1/units/0000-units.parquet",
        f"warehouse/{PARTS_FOLDER}/run-1/units/0001-units.parquet",
    }
    part = read_part(data, "run-1", "units", 1, "units", UNITS)
    assert part is not None and part.schema == UNITS
    assert read_part(data, "run-1", "units", 2, "units", UNITS) is None
    drop_parts(data, "run-1", "units")
    assert _keys(s3, on_s3) == {"warehouse/signals.parquet"}
    assert not (data.root / "warehouse").exists()  # nothing local


def test_a_table_of_another_version_is_refused_naming_its_url(tmp_path: Path, on_s3: str) -> None:
    data = DataDir(tmp_path / "data")
    write_table(data, "units", pl.DataFrame({"unit_id": ["u1"]}))
    with pytest.raises(RuntimeError, match=f"{on_s3}/warehouse/units.parquet lacks columns"):
        read_table(data, "units", UNITS)


@pytest.mark.slow  # two builds of a small corpus, one on the multiprocess executor
@pytest.mark.timeout(1500)
@pytest.mark.parametrize("processes", [1, 2])
def test_a_build_keeps_its_warehouse_in_the_bucket(
    tmp_path: Path, on_s3: str, s3: S3Server, processes: int
) -> None:
    from pipelines.build import build
    from tests.pipelines.test_incremental import news, record, write

    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    write(data.inbox / "batch.jsonl", [record(1), *(news(n) for n in range(3))])
    if processes == 1:
        build(data, as_of=AS_OF, persistent=False)
    else:
        # as an operator runs it: `python -m pipelines build --processes 2` (what `aimi build`
        # runs), its steps in processes of their own that find the tables only in the bucket.
        # A process of its own, too, because the executor's fork server keeps the environment
        # of the first multiprocess run in a process, and this test's bucket is its own.
        command = [sys.executable, "-m", "pipelines", "build", "--as-of", AS_OF.isoformat()]
        command += ["--processes", "2", "--data-dir", str(data.root)]
        done = subprocess.run(
            command, env=os.environ.copy(), capture_output=True, text=True, timeout=1400
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "published snapshot" in done.stdout
    keys = _keys(s3, on_s3)
    for table in ("sources", "signals", "units", "signal_themes", "unit_embeddings", "stories"):
        assert f"warehouse/{table}.parquet" in keys
    assert not any(key.startswith(f"warehouse/{PARTS_FOLDER}/") for key in keys)
    assert not (data.root / "warehouse").exists()
    # the snapshot is published locally as always (AIMI_SNAPSHOT_STORE moves it), made from
    # the bucket's tables
    opened = open_current(data)
    assert opened is not None
    assert opened.read_table("units").height == read_stored(data, "units").height > 0
