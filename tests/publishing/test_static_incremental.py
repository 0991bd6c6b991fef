"""Incremental publishing of the static half: a build with no data change links every file of
the previous snapshot's site but the overview (which names the snapshot), Pagefind's index
included; a changed entity and a changed signal get their files written afresh, and pages that
show them are rendered again; the result is byte for byte a full render's, and survives the
pruning of the snapshot it links from."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from publishing.static.build import StaticReport, write_static
from publishing.static.paths import decode_segment
from publishing.static.site import entity_page, signal_page
from publishing.static.tree import entity_json_path, signal_json_path
from warehouse.paths import DataDir
from warehouse.snapshot import (
    SITE_DIR,
    SITE_INPUTS_FILE,
    OpenedSnapshot,
    add_files,
    open_snapshot,
    stage_snapshot,
    static_file,
    switch_current,
)

Edit = Callable[[dict[str, pl.DataFrame]], dict[str, pl.DataFrame]]
ENTRY = "pagefind/pagefind-entry.json"
NOTE = "Edited by the incremental publishing test."


def stage_copy(
    data: DataDir, source: OpenedSnapshot, built_at: datetime, edit: Edit | None = None
) -> OpenedSnapshot:
    """Stage a snapshot with ``source``'s tables (after ``edit``) and search files, no site."""
    tables = {name: source.read_table(name) for name in source.manifest.tables}
    if edit is not None:
        tables = edit(tables)

    def copy_files(folder: Path) -> Mapping[str, Any]:
        for name in source.manifest.files:
            if not static_file(name):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source.path / name, folder / name)
        return {}

    metadata = {k: v for k, v in source.manifest.metadata.items() if k != "static_site"}
    return stage_snapshot(
        data,
        tables,
        as_of=source.manifest.as_of,
        built_at=built_at,
        metadata=metadata,
        write_files=copy_files,
    )


def publish_site(staged: OpenedSnapshot, data: DataDir, previous: Path | None) -> StaticReport:
    """``write_static`` in-process, sealed into the manifest as the ``static_site`` asset does
    (a file linked from ``previous`` keeps its manifest entry)."""
    reports: list[StaticReport] = []

    def write(folder: Path) -> Mapping[str, Any]:
        reports.append(write_static(folder, previous))
        return {}

    linked_from = open_snapshot(previous, verify=False) if previous is not None else None
    add_files(data, staged, write, linked_from=linked_from)
    return reports[0]


def site_files(folder: Path) -> dict[str, Path]:
    site = folder / SITE_DIR
    return {p.relative_to(site).as_posix(): p for p in sorted(site.rglob("*")) if p.is_file()}


def is_unordered(path: str) -> bool:
    return path.startswith("pagefind/filter/") or path.endswith(".pf_meta") or path == ENTRY


def kind_of(path: str) -> str:
    return path.rsplit("/", 1)[0] + path.rsplit(".", 1)[-1]


def same_file(a: Path, b: Path) -> bool:
    return os.stat(a).st_ino == os.stat(b).st_ino


@dataclass(frozen=True)
class Edited:
    entity_id: str
    signal_id: str

    def __call__(self, tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
        def profile(raw: bytes) -> bytes:
            body = orjson.loads(raw)
            body["notability_reasoning"] = NOTE
            return orjson.dumps(body)

        def detail(raw: bytes) -> bytes:
            body = orjson.loads(raw)
            body["title"] = NOTE
            return orjson.dumps(body)

        profiles, signals = tables["entity_profiles"], tables["signals"]
        entity = pl.col("entity_id") == self.entity_id
        signal = pl.col("signal_id") == self.signal_id
        return {
            **tables,
            "entity_profiles": profiles.with_columns(
                profile_json=pl.when(entity)
                .then(pl.col("profile_json").map_elements(profile, return_dtype=pl.Binary))
                .otherwise(pl.col("profile_json"))
            ),
            "signals": signals.with_columns(
                detail_json=pl.when(signal)
                .then(pl.col("detail_json").map_elements(detail, return_dtype=pl.Binary))
                .otherwise(pl.col("detail_json"))
            ),
        }


@dataclass(frozen=True)
class Build:
    snapshot: OpenedSnapshot  # as sealed, with its site
    report: StaticReport
    files: list[str]  # every file of its site
    fresh: set[str]  # those not linked from the site it was built over


def build(
    data: DataDir,
    source: OpenedSnapshot,
    built_at: datetime,
    over: OpenedSnapshot | None,
    edit: Edit | None = None,
) -> Build:
    staged = stage_copy(data, source, built_at, edit)
    report = publish_site(staged, data, over.path if over is not None else None)
    files = site_files(staged.path)
    before = site_files(over.path) if over is not None else {}
    fresh = {
        path for path in files if path not in before or not same_file(files[path], before[path])
    }
    return Build(open_snapshot(staged.path), report, sorted(files), fresh)


@dataclass(frozen=True)
class Builds:
    full: OpenedSnapshot  # the demo snapshot, its site rendered whole by the pipeline
    same: Build  # the same data, built over ``full``
    changed: Build  # one entity and one signal edited, built over ``same``, which is then pruned
    reference: Build  # the changed data rendered whole, in another data dir
    edit: Edited


@pytest.fixture(scope="module")
def builds(demo_snapshot: OpenedSnapshot, tmp_path_factory: pytest.TempPathFactory) -> Builds:
    data = DataDir(tmp_path_factory.mktemp("incremental") / "data")
    with_page = sorted((demo_snapshot.path / SITE_DIR / "entities").glob("ent*.html"))
    edit = Edited(
        decode_segment(with_page[0].stem), demo_snapshot.read_table("signals")["signal_id"][0]
    )
    same = build(data, demo_snapshot, datetime(2026, 11, 27, 1, tzinfo=UTC), demo_snapshot)
    switch_current(data, same.snapshot)
    built_at = datetime(2026, 11, 27, 2, tzinfo=UTC)
    changed = build(data, demo_snapshot, built_at, same.snapshot, edit)
    switch_current(data, changed.snapshot, keep=1)  # prunes ``same``, which it links from
    other = DataDir(tmp_path_factory.mktemp("full") / "data")
    reference = build(other, demo_snapshot, built_at, None, edit)
    return Builds(demo_snapshot, same, changed, reference, edit)


def test_a_build_with_no_data_change_links_every_file_but_the_overview(builds: Builds) -> None:
    same = builds.same
    assert same.files == sorted(site_files(builds.full.path))
    # the overview and the export's index name the snapshot and its build time
    assert same.fresh == {"index.html", "export/index.json"}
    # story pages and their JSON are there, and so linked, not written again
    assert any(path.startswith("stories/") for path in same.files)
    assert any(path.startswith("json/v1/stories/") for path in same.files)
    report = same.report
    assert report.rendered_pages == 1 and report.pagefind_reused
    assert report.linked_files == len(same.files) - 2
    assert report.previous == builds.full.snapshot_id


def test_a_changed_entity_and_signal_are_written_afresh_and_the_rest_linked(
    builds: Builds,
) -> None:
    changed, edit = builds.changed, builds.edit
    site = changed.snapshot.path / SITE_DIR
    for path in (
        entity_page(edit.entity_id),
        entity_json_path(edit.entity_id),
        signal_page(edit.signal_id),
        signal_json_path(edit.signal_id),
    ):
        assert path in changed.fresh, path
        assert NOTE.encode() in (site / path).read_bytes(), path
    assert "index.html" in changed.fresh
    assert not changed.report.pagefind_reused  # an indexed page changed
    pages = [path for path in changed.files if path.endswith(".html")]
    assert changed.report.rendered_pages < len(pages) / 2  # most were linked, not rendered
    json_files = {path for path in changed.files if path.startswith("json/")}
    assert len(changed.fresh & json_files) == 2  # the entity's and the signal's
    # the exported tables that hold the edited profile are written again, the others linked
    for fmt in ("parquet", "csv", "jsonl"):
        assert f"export/entities.{fmt}" in changed.fresh
        assert f"export/themes.{fmt}" not in changed.fresh


def test_the_incremental_site_is_byte_for_byte_a_full_render(builds: Builds) -> None:
    changed, reference = builds.changed, builds.reference
    assert changed.snapshot.snapshot_id == reference.snapshot.snapshot_id  # same tables and time
    assert reference.report.rendered_pages == reference.report.pages
    assert reference.report.pages == changed.report.pages > changed.report.rendered_pages
    ours, theirs = site_files(changed.snapshot.path), site_files(reference.snapshot.path)
    # Pagefind orders filter values differently from run to run (two full renders differ in
    # the same files): its filter chunks, and the metadata and entry file that name them
    # by their hashes, are compared by count; every other file byte for byte
    unordered = [path for path in {*ours, *theirs} if is_unordered(path)]
    assert Counter(kind_of(p) for p in ours if is_unordered(p)) == Counter(
        kind_of(p) for p in theirs if is_unordered(p)
    )
    assert len(unordered) < 12
    pages = [orjson.loads(files[ENTRY].read_bytes())["languages"] for files in (ours, theirs)]
    assert pages[0]["en"]["page_count"] == pages[1]["en"]["page_count"] > 100
    assert set(ours) - set(unordered) == set(theirs) - set(unordered)
    differing = [
        path
        for path in ours
        if path not in unordered and ours[path].read_bytes() != theirs[path].read_bytes()
    ]
    assert differing == []
    inputs = (changed.snapshot.path / SITE_INPUTS_FILE).read_bytes()
    assert inputs == (reference.snapshot.path / SITE_INPUTS_FILE).read_bytes()


def test_linked_files_are_sealed_and_outlive_the_pruned_snapshot_they_came_from(
    builds: Builds,
) -> None:
    changed = builds.changed
    files = set(changed.snapshot.manifest.files)
    assert {f"{SITE_DIR}/{path}" for path in changed.files} <= files and SITE_INPUTS_FILE in files
    assert not builds.same.snapshot.path.exists()  # pruned
    opened = open_snapshot(changed.snapshot.path, thorough=True)  # every SHA-256 again
    assert opened.snapshot_id == changed.snapshot.snapshot_id
