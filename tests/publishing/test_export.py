"""Bulk export (publishing.export, ``aimi export``, ``site/export/``): every exported table, read
back from Parquet, JSON Lines and CSV, equals what ``/v1`` answers on the demo snapshot."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import polars as pl
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from analytics.records import parse_timestamp
from analytics.trends import MODES
from cli.app import app as aimi
from publishing.export import (
    EXPORT_TABLES,
    FORMATS,
    ExportError,
    ExportSource,
    checked_rows,
    struct_of,
)
from readmodel.models import (
    EntityProfileDetail,
    EntityTrend,
    SignalCard,
    Story,
    ThemeDetail,
    ThemeTrend,
    TrendingItem,
    TrendingTrend,
    Unit,
)
from readmodel.store import LoadedSnapshot
from serving.app import create_app
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot


@pytest.fixture(scope="module")
def client(demo_data_dir: DataDir) -> Iterator[TestClient]:
    with TestClient(
        create_app(make_settings(demo_data_dir.root)), headers={"X-API-Key": DEV_KEY}
    ) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def exported(demo_data_dir: DataDir, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``aimi export`` in each format, into a folder of its own."""
    folders: dict[str, Path] = {}
    for fmt in FORMATS:
        out = tmp_path_factory.mktemp(f"export-{fmt}")
        result = CliRunner().invoke(
            aimi, ["export", "--format", fmt, str(out), "--data-dir", str(demo_data_dir.root)]
        )
        assert result.exit_code == 0, result.output
        folders[fmt] = out
    return folders


def _get(client: TestClient, path: str) -> Any:
    response = client.get(path)
    assert response.status_code == 200, (path, response.text)
    return response.json()


def _paged(client: TestClient, path: str, key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = _get(client, path + (f"&cursor={quote(cursor)}" if cursor else ""))
        items += page[key]
        if not page["has_more"]:
            return items
        cursor = page["next_cursor"]


def _plain(value: Any) -> Any:
    """A value as the API's JSON has it: timestamps as instants, absent fields dropped."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _instants(row: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {
        k: (parse_timestamp(v) if k in names and isinstance(v, str) else v) for k, v in row.items()
    }


TIMES = ("published_at", "changed_at", "first_seen", "last_seen")


def read_rows(folder: Path, table: str, fmt: str) -> list[dict[str, Any]]:
    """A table's rows read back as plain JSON-like values, from any format."""
    path = folder / f"{table}.{fmt}"
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if fmt == "parquet":
        return [_plain(row) for row in pl.read_parquet(path).to_dicts()]
    frame = pl.read_csv(path, infer_schema=False)  # every column as text
    declared = next(t for t in EXPORT_TABLES if t.name == table)
    rows = []
    for row in frame.to_dicts():
        parsed: dict[str, Any] = {}
        for column in declared.columns:
            value = row[column.name]
            if value is not None and not column.timestamp:
                dtype = column.dtype
                if column.nested:
                    value = json.loads(value)
                elif dtype == pl.Int64:
                    value = int(value)
                elif dtype == pl.Float64:
                    value = float(value)
                elif dtype == pl.Boolean:
                    value = value == "true"
            parsed[column.name] = value
        rows.append(_plain(parsed))
    return rows


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_instants(_plain(row), TIMES) for row in rows]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_exported_table_equals_the_api_answers(
    fmt: str, exported: dict[str, Path], client: TestClient
) -> None:
    folder = exported[fmt]
    # signals: the list's cards, every page, newest first
    cards = _paged(client, "/v1/signals?limit=50", "signals")
    signals = read_rows(folder, "signals", fmt)
    assert [
        {k: v for k, v in row.items() if k not in ("change_seq", "changed_at")}
        for row in comparable(signals)
    ] == comparable(cards)
    # ... in change-feed order by change_seq, as sort=changed pages them
    feed = _paged(client, "/v1/signals?sort=changed&limit=50", "signals")
    by_seq = sorted(signals, key=lambda row: row["change_seq"])
    assert [row["signal_id"] for row in by_seq] == [card["signal_id"] for card in feed]
    # units: each signal's detail, in order
    units = read_rows(folder, "units", fmt)
    for signal_id in [card["signal_id"] for card in cards[:: max(1, len(cards) // 40)]]:
        detail = _get(client, f"/v1/signals/{signal_id}")
        mine = [row for row in units if row["signal_id"] == signal_id]
        assert [row["position"] for row in mine] == list(range(len(detail["units"])))
        trimmed = [{k: v for k, v in r.items() if k not in ("signal_id", "position")} for r in mine]
        assert trimmed == _plain(detail["units"])
    assert len(units) == sum(card["verified_unit_count"] for card in cards)
    # entities: every profile, whatever its signal count
    entities = read_rows(folder, "entities", fmt)
    listed = _paged(client, "/v1/entities?min_signals=1&limit=50", "entities")
    assert {row["entity_id"] for row in listed} <= {row["entity_id"] for row in entities}
    for row in entities[:: max(1, len(entities) // 40)]:
        profile = _get(client, f"/v1/entities/{quote(row['entity_id'], safe='')}")
        assert comparable([row]) == comparable([profile])
    # themes: the 12 single-theme answers
    themes = read_rows(folder, "themes", fmt)
    for row in themes:
        answer = _get(client, f"/v1/themes/{row['axis']}/{quote(row['label'], safe='')}")
        assert _plain(row) == _plain(answer)
    assert len(themes) == 12
    # trends: each mode's list is the rows ranked in that mode
    trends = read_rows(folder, "trends", fmt)
    for mode in ("rising", "hot", "consistent", "new"):
        answer = _get(client, f"/v1/entities/trending?mode={mode}&limit=50")["data"]
        ranked = sorted(
            (r for r in trends if r.get(f"rank_{mode}")), key=lambda r: r[f"rank_{mode}"]
        )
        items = [{k: v for k, v in r.items() if not k.startswith("rank_")} for r in ranked[:50]]
        assert comparable(items) == comparable(answer), mode
    # stories: every story's detail, newest activity first as the list pages them
    stories = read_rows(folder, "stories", fmt)
    listed_stories = _paged(client, "/v1/stories?limit=50", "stories")
    assert [row["story_id"] for row in stories] == [s["story_id"] for s in listed_stories]
    assert stories  # the demo corpus tells several events in many sources
    for row in stories[:: max(1, len(stories) // 20)]:
        answer = _get(client, f"/v1/stories/{row['story_id']}")
        assert comparable([row]) == comparable([answer])


def test_the_export_has_a_readme_of_every_column_and_a_checked_index(
    exported: dict[str, Path],
) -> None:
    for fmt, folder in exported.items():
        readme = (folder / "README.md").read_text(encoding="utf-8")
        for table in EXPORT_TABLES:
            assert f"## {table.name}" in readme
            for column in table.columns:
                assert f"| `{column.name}` |" in readme, (table.name, column.name)
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        assert [entry["path"] for entry in index["files"]] == [
            f"{table.name}.{fmt}" for table in EXPORT_TABLES
        ]
        for entry in index["files"]:
            body = (folder / entry["path"]).read_bytes()
            assert entry["bytes"] == len(body)
            assert entry["sha256"] == hashlib.sha256(body).hexdigest()


def test_the_site_publishes_the_same_files_under_export(
    demo_snapshot: OpenedSnapshot, exported: dict[str, Path]
) -> None:
    site = demo_snapshot.path / "site" / "export"
    for fmt, folder in exported.items():
        for table in EXPORT_TABLES:
            name = f"{table.name}.{fmt}"
            assert (site / name).read_bytes() == (folder / name).read_bytes(), name
    index = json.loads((site / "index.json").read_text(encoding="utf-8"))
    assert len(index["files"]) == len(EXPORT_TABLES) * len(FORMATS)
    assert index["snapshot_id"] == demo_snapshot.snapshot_id
    sealed = demo_snapshot.manifest.files
    assert all(f"site/export/{entry['path']}" in sealed for entry in index["files"])
    # a notebook reads it straight from the site's URL, here through `aimi serve --site`
    from serving.site import mount_site

    app = mount_site(create_app(make_settings(demo_snapshot.path.parent.parent)))
    with TestClient(app) as site_client:
        response = site_client.get("/site/export/themes.parquet")
        assert response.status_code == 200
        assert pl.read_parquet(response.content).height == 12


def test_a_served_field_the_export_does_not_declare_is_refused(
    demo_snapshot: OpenedSnapshot,
) -> None:
    from dataclasses import replace

    source = ExportSource(LoadedSnapshot.from_opened(demo_snapshot), demo_snapshot)
    themes = next(t for t in EXPORT_TABLES if t.name == "themes")
    narrower = replace(
        themes, columns=tuple(c for c in themes.columns if c.name != "related_themes")
    )
    with pytest.raises(ExportError, match=r"table themes: fields \['related_themes'\]"):
        checked_rows(narrower, source)


def test_export_refuses_a_used_folder_and_an_unknown_format(
    demo_data_dir: DataDir, tmp_path: Path
) -> None:
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("")
    root = str(demo_data_dir.root)
    used = CliRunner().invoke(aimi, ["export", str(tmp_path / "used"), "--data-dir", root])
    assert used.exit_code == 2 and "not an empty folder" in used.output
    bad = CliRunner().invoke(
        aimi, ["export", "--format", "xlsx", str(tmp_path / "new"), "--data-dir", root]
    )
    assert bad.exit_code == 2 and "'xlsx' is not one of" in bad.output
    empty = CliRunner().invoke(
        aimi, ["export", str(tmp_path / "new"), "--data-dir", str(tmp_path / "no-data")]
    )
    assert empty.exit_code == 1 and "no snapshot is published yet" in empty.output


def test_the_trend_columns_are_the_response_models_fields() -> None:
    # declared once: a theme's, an entity's and a trending item's trend are the API's models
    tables = {table.name: table for table in EXPORT_TABLES}
    for name, model in (
        ("entities", EntityTrend),
        ("themes", ThemeTrend),
        ("trends", TrendingTrend),
    ):
        (trend,) = [column for column in tables[name].columns if column.name == "trend"]
        assert trend.dtype == struct_of(model)
        assert isinstance(trend.dtype, pl.Struct)
        assert [field.name for field in trend.dtype.fields] == list(model.model_fields)
    history = struct_of(TrendingTrend).to_schema()["share_of_voice_history"]
    assert history == pl.List(pl.Float64)


# each exported table and the response model of what the API serves for it; the columns an
# export adds of its own (the change feed's position, a unit's place, the trending ranks, a
# story's members, a roundup's parts in it, and its lineage)
EXPORTED_MODELS = {
    "signals": (SignalCard, ["change_seq", "changed_at"]),
    "units": (Unit, ["signal_id", "position"]),
    "entities": (EntityProfileDetail, []),
    "themes": (ThemeDetail, []),
    "trends": (TrendingItem, [f"rank_{mode}" for mode in MODES]),
    "stories": (Story, ["signals", "parts", "merged_from", "split_from"]),
}


def test_each_exported_table_holds_exactly_its_resources_fields() -> None:
    assert [table.name for table in EXPORT_TABLES] == list(EXPORTED_MODELS)
    for table in EXPORT_TABLES:
        model, own = EXPORTED_MODELS[table.name]
        columns = [column.name for column in table.columns]
        served = [name for name in columns if name not in own]
        assert sorted(served) == sorted(model.model_fields), table.name
        assert set(own) <= set(columns), table.name
