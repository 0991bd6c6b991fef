from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analytics.schema import SOURCES
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir
from warehouse.tables import open_catalog, read_table


def rec(n: int, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "news",
        "title": f"Story {n}",
        "url": f"https://example.com/story/{n}",
        "published_at": f"2026-05-{n % 28 + 1:02d}T08:00:00Z",
        "text": f"Acme raised ${n} million on Monday. The round was led by Beta Capital.",
    }
    base.update(overrides)
    return base


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def data(tmp_path: Path) -> DataDir:
    return DataDir(tmp_path / "data")


def test_bad_records_are_quarantined_with_file_line_and_reason(
    data: DataDir, tmp_path: Path
) -> None:
    src = write_jsonl(
        tmp_path / "batch.jsonl",
        [
            json.dumps(rec(1)),
            "{not json",
            json.dumps(rec(2, published_at="soon")),
            "",
            json.dumps(rec(3)),
            json.dumps([1, 2]),
        ],
    )
    report = ingest_paths(data, [src], progress=False)
    assert (report.inserted, len(report.quarantined)) == (2, 3)
    quarantine = read_table(
        data,
        "quarantine",
        pl.Schema({"file": pl.String, "line": pl.Int64, "field": pl.String, "reason": pl.String}),
    )
    rows = sorted(quarantine.select("line", "field", "reason").iter_rows())
    assert rows[0][0] == 2 and rows[0][2].startswith("invalid JSON")
    assert rows[1][:2] == (3, "published_at") and "ISO 8601" in rows[1][2]
    assert rows[2][0] == 6 and "JSON object" in rows[2][2]
    assert set(quarantine["file"].to_list()) == {str(src)}


def test_reingest_updates_never_duplicates(data: DataDir, tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "a.jsonl", [json.dumps(rec(n)) for n in range(5)])
    assert ingest_paths(data, [first], progress=False).inserted == 5
    before = read_table(data, "sources", SOURCES)

    again = ingest_paths(data, [first], progress=False)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 5)

    # the same sources under other spellings of the URL: still five sources
    respelled = [rec(n, url=f"http://www.example.com/story/{n}/?utm_source=feed") for n in range(5)]
    report = ingest_paths(
        data,
        [write_jsonl(tmp_path / "b.jsonl", [json.dumps(r) for r in respelled])],
        progress=False,
    )
    assert report.inserted == 0
    assert read_table(data, "sources", SOURCES)["source_id"].n_unique() == 5

    # one source with new text: exactly one update
    edited = [dict(r) for r in respelled]
    edited[2]["text"] = "Acme raised $2 million on Tuesday, not Monday."
    report = ingest_paths(
        data, [write_jsonl(tmp_path / "c.jsonl", [json.dumps(r) for r in edited])], progress=False
    )
    assert (report.inserted, report.updated, report.unchanged) == (0, 1, 4)
    after = read_table(data, "sources", SOURCES)
    assert after.height == 5 and after["source_id"].n_unique() == 5
    changed = after.filter(pl.col("text").str.contains("Tuesday"))
    assert changed.height == 1
    original = before.filter(pl.col("source_id") == changed["source_id"][0])
    assert changed["first_ingested_at"][0] == original["first_ingested_at"][0]


def test_duplicate_within_one_batch_keeps_the_last(data: DataDir, tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "dup.jsonl", [json.dumps(rec(1)), json.dumps(rec(1, title="Story 1, corrected"))]
    )
    report = ingest_paths(data, [src], progress=False)
    table = read_table(data, "sources", SOURCES)
    assert report.inserted == 1 and table["title"].to_list() == ["Story 1, corrected"]


def test_markdown_front_matter_and_folders(data: DataDir, tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "essay.md").write_text(
        "---\nkind: essay\ntitle: 'Compute: the new oil?'\nurl: https://blog.example.org/compute\n"
        "date: 2026-06-01\nauthor: A. Writer\n---\n\nFirst paragraph.\n\nSecond paragraph.\n"
    )
    (folder / "no-front-matter.md").write_text("# Just a heading\n")
    (folder / "notes.txt").write_text("ignored: folders only yield files an adapter reads")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "x.md").write_text("---\nkind: essay\n---\n")
    report = ingest_paths(data, [folder], progress=False)
    assert report.inserted == 1 and len(report.quarantined) == 1
    assert "front matter" in report.quarantined[0].reason
    row = read_table(data, "sources", SOURCES).row(0, named=True)
    assert row["title"] == "Compute: the new oil?"
    assert row["text"] == "First paragraph.\n\nSecond paragraph."
    assert row["published_at"].isoformat() == "2026-06-01T00:00:00+00:00"


def test_unreadable_inputs_are_reported_not_fatal(data: DataDir, tmp_path: Path) -> None:
    pdf = tmp_path / "paper.docx"
    pdf.write_bytes(b"PK\x03\x04")
    good = write_jsonl(tmp_path / "ok.jsonl", [json.dumps(rec(1))])
    report = ingest_paths(data, [pdf, tmp_path / "missing.jsonl", good], progress=False)
    reasons = sorted(q.reason for q in report.quarantined)
    assert report.inserted == 1
    assert "no adapter reads .docx" in reasons[0] and reasons[1] == "no such file or folder"


def test_unchanged_files_are_skipped_when_asked(data: DataDir, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "a.jsonl", [json.dumps(rec(1))])
    ingest_paths(data, [src], progress=False, skip_unchanged_files=True)
    second = ingest_paths(data, [src], progress=False, skip_unchanged_files=True)
    assert (second.files, second.skipped_files, second.records) == (0, 1, 0)
    write_jsonl(src, [json.dumps(rec(1)), json.dumps(rec(2))])
    third = ingest_paths(data, [src], progress=False, skip_unchanged_files=True)
    assert (third.inserted, third.unchanged) == (1, 1)


def test_catalog_has_a_view_per_table(data: DataDir, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "a.jsonl", [json.dumps(rec(1)), "{bad"])
    ingest_paths(data, [src], progress=False)
    with open_catalog(data) as con:
        views = {
            row[0]
            for row in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
        }
        assert {"sources", "quarantine", "ingest_log"} <= views
        assert con.execute("SELECT count(*) FROM sources").fetchone() == (1,)
    # a later write replaces the file under the same view: the catalog sees the new rows
    ingest_paths(data, [write_jsonl(tmp_path / "b.jsonl", [json.dumps(rec(2))])], progress=False)
    with open_catalog(data) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone() == (2,)


def test_editing_a_sidecar_makes_the_inbox_read_its_file_again(
    data: DataDir, tmp_path: Path
) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "note.md").write_text(
        "---\nkind: essay\ntitle: Power first\nurl: https://example.org/power\n"
        "date: 2026-06-01\n---\n\nPower is the constraint on new data centers.\n"
    )
    sidecar = folder / "note.md.meta.yaml"
    sidecar.write_text("author: First Author\n")
    first = ingest_paths(data, [folder], progress=False, skip_unchanged_files=True)
    assert first.inserted == 1
    assert ingest_paths(data, [folder], progress=False, skip_unchanged_files=True).files == 0
    sidecar.write_text("author: Second Author\n")
    again = ingest_paths(data, [folder], progress=False, skip_unchanged_files=True)
    assert (again.files, again.updated) == (1, 1)
    assert read_table(data, "sources", SOURCES)["author"].to_list() == ["Second Author"]


def test_a_clean_ingest_still_has_an_empty_quarantine(data: DataDir, tmp_path: Path) -> None:
    ingest_paths(data, [write_jsonl(tmp_path / "a.jsonl", [json.dumps(rec(1))])], progress=False)
    with open_catalog(data) as con:
        assert con.execute("SELECT count(*) FROM quarantine").fetchone() == (0,)


def _story(path: Path, text: str, **overrides: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_jsonl(path, [json.dumps(rec(7, text=text, **overrides))])


def _served_text(data: DataDir) -> list[str]:
    return read_table(data, "sources", SOURCES)["text"].to_list()


def test_a_copied_data_dir_reads_nothing_again_and_keeps_the_newer_update(
    tmp_path: Path,
) -> None:
    """Issue 46: after `cp -a` the inbox was read again (the log held absolute paths) and the
    old inbox text replaced a newer `aimi ingest` update of the same URL."""
    data = DataDir(tmp_path / "data")
    _story(data.inbox / "batch.jsonl", "Acme raised $7 million on Monday.")
    ingest_paths(data, [data.inbox], skip_unchanged_files=True, progress=False)
    update = _story(tmp_path / "update.jsonl", "Acme raised $9 million on Monday, it corrected.")
    assert ingest_paths(data, [update], progress=False).updated == 1
    copied = DataDir(tmp_path / "copy")
    shutil.copytree(data.root, copied.root)  # as `cp -a`
    report = ingest_paths(copied, [copied.inbox], skip_unchanged_files=True, progress=False)
    assert (report.files, report.skipped_files, report.updated) == (0, 1, 0)
    assert _served_text(copied) == ["Acme raised $9 million on Monday, it corrected."]


def test_an_older_version_read_again_never_replaces_a_newer_one(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    old = _story(tmp_path / "old.jsonl", "Acme raised $7 million on Monday.")
    ingest_paths(data, [old], progress=False)
    ingest_paths(data, [_story(tmp_path / "new.jsonl", "Acme raised $9 million.")], progress=False)
    # the old file read again by hand, and the old record inside a new, edited inbox file
    again = ingest_paths(data, [old], progress=False)
    edited = write_jsonl(
        tmp_path / "edited.jsonl",
        [json.dumps(rec(7, text="Acme raised $7 million on Monday.")), json.dumps(rec(8))],
    )
    mixed = ingest_paths(data, [edited], progress=False)
    assert (again.updated, again.stale) == (0, 1)
    assert (mixed.inserted, mixed.updated, mixed.stale) == (1, 0, 1)
    assert "1 older version(s) kept out" in mixed.summary()
    assert sorted(_served_text(data)) == [
        "Acme raised $8 million on Monday. The round was led by Beta Capital.",
        "Acme raised $9 million.",
    ]


def test_a_new_version_dated_before_the_stored_one_is_kept_out(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    newer = _story(tmp_path / "a.jsonl", "Second text.", published_at="2026-05-09T08:00:00Z")
    ingest_paths(data, [newer], progress=False)
    older = _story(tmp_path / "b.jsonl", "First text.", published_at="2026-05-02T08:00:00Z")
    assert ingest_paths(data, [older], progress=False).stale == 1
    later = _story(tmp_path / "c.jsonl", "Third text.", published_at="2026-05-09T08:00:00Z")
    assert ingest_paths(data, [later], progress=False).updated == 1
    assert _served_text(data) == ["Third text."]


def test_in_one_batch_the_later_dated_version_wins_whatever_the_order(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    batch = write_jsonl(
        tmp_path / "batch.jsonl",
        [
            json.dumps(rec(7, text="Later.", published_at="2026-05-09T08:00:00Z")),
            json.dumps(rec(7, text="Earlier.", published_at="2026-05-02T08:00:00Z")),
        ],
    )
    assert ingest_paths(data, [batch], progress=False).inserted == 1
    assert _served_text(data) == ["Later."]
