"""The catalog's views name their files relative to the data dir: a copied or moved data dir
answers from its own files, without a rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

from warehouse.paths import DataDir
from warehouse.tables import catalog_refreshed_at_the_end, open_catalog, write_table


def test_a_moved_data_dir_answers_from_its_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = DataDir(tmp_path / "built")
    write_table(data, "signals", pl.DataFrame({"signal_id": ["sig_a", "sig_b"]}))
    with duckdb.connect(str(data.catalog), read_only=True) as con:
        [(sql,)] = con.sql("SELECT sql FROM duckdb_views() WHERE view_name = 'signals'").fetchall()
    assert "'warehouse/signals.parquet'" in sql and str(tmp_path) not in sql

    moved = DataDir(tmp_path / "elsewhere" / "copy")
    shutil.copytree(data.root, moved.root)
    shutil.rmtree(data.root)  # nothing left to point at
    monkeypatch.chdir(tmp_path)  # and the working directory is not the data dir
    with open_catalog(moved) as con:
        assert con.sql("SELECT count(*) FROM signals").fetchall() == [(2,)]
    # the copy is its own: a write to it shows, without refreshing its catalog
    write_table(moved, "signals", pl.DataFrame({"signal_id": ["sig_c"]}))
    with open_catalog(moved) as con:
        assert con.sql("SELECT signal_id FROM signals").fetchall() == [("sig_c",)]


def test_a_run_refreshes_the_catalog_once_at_its_end(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")

    def views() -> set[str]:
        if not data.catalog.exists():
            return set()
        with open_catalog(data) as con:
            return {name for (name,) in con.sql("SELECT view_name FROM duckdb_views()").fetchall()}

    with pytest.raises(RuntimeError, match="asset failed"), catalog_refreshed_at_the_end(data):
        write_table(data, "signals", pl.DataFrame({"signal_id": ["sig_a"]}))
        write_table(data, "units", pl.DataFrame({"unit_id": ["u_a"]}))
        assert not {"signals", "units"} & views()  # not one refresh per new table
        raise RuntimeError("asset failed")
    # at the end, after a failure too, every table written has its view
    assert {"signals", "units"} <= views()
    # outside a run, a new table gets its view at once, as before
    write_table(data, "entities", pl.DataFrame({"entity_id": ["ent:/x"]}))
    assert "entities" in views()


def test_a_refresh_that_fails_after_a_failed_run_never_hides_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk full during a build: the step's error is what the caller sees, not the
    catalog's own failure to refresh on the same full disk (logged instead)."""
    import warehouse.tables as tables

    def full(_data: DataDir) -> Path:
        raise duckdb.IOException('Could not write file ".catalog-x.duckdb": No space left')

    monkeypatch.setattr(tables, "refresh_catalog", full)
    data = DataDir(tmp_path / "data")
    data.root.mkdir()
    with pytest.raises(RuntimeError, match="the step failed"), catalog_refreshed_at_the_end(data):
        raise RuntimeError("the step failed")
    with pytest.raises(duckdb.IOException), catalog_refreshed_at_the_end(data):
        pass  # a run that went well: its refresh's error is raised
