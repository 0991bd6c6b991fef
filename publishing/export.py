"""Bulk export: a snapshot's served tables as Parquet, CSV or JSON Lines files, with a README of
their columns and an index of sizes and SHA-256 checksums (``aimi export``, and ``export/`` in
the static tree).

Every row is an object the API serves (a signal card, a unit of a signal's detail, an entity
profile, a theme, an entity's trending item), taken from the same pre-rendered bytes through
the service functions the routes call, so an export cannot drift from the API. A table is one
``ExportTable`` in ``EXPORT_TABLES``: a new served table is exported by adding one line there.

The files' bytes depend only on the rows (no timestamps of their own), so a table that did not
change keeps its bytes from one snapshot to the next and the site links it, like a page.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Literal, get_args, get_origin

import orjson
import polars as pl
from pydantic import BaseModel

from analytics.records import iso_utc, parse_timestamp
from analytics.themes import AXES, THEME_LABELS
from analytics.trends import MIN_LABELLED, MODES
from readmodel import service
from readmodel.models import EntityTrend, ThemeTrend, TrendingTrend
from readmodel.store import LoadedSnapshot
from warehouse.snapshot import OpenedSnapshot

Format = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[Format, ...] = get_args(Format)
README_FILE = "README.md"
INDEX_FILE = "index.json"


class ExportError(RuntimeError):
    """A served object does not fit its table's declared columns (the API grew a field that
    the export does not declare yet); the message names the table and the field."""


@dataclass(frozen=True)
class Column:
    """One column: its name (the API's field name), its Parquet type, what it holds."""

    name: str
    dtype: pl.DataType
    about: str

    @property
    def nested(self) -> bool:
        return self.dtype.is_nested()

    @property
    def timestamp(self) -> bool:
        return isinstance(self.dtype, pl.Datetime)


@dataclass(frozen=True)
class ExportSource:
    """The snapshot an export reads: the served bytes, and its signals table for the change
    feed's ``changed_at``, which no answer carries."""

    snapshot: LoadedSnapshot
    opened: OpenedSnapshot

    @cached_property
    def changed_at(self) -> dict[str, datetime]:
        # two columns of the largest table, not the whole of it
        path = self.opened.table_path("signals")
        frame = pl.read_parquet(path, columns=["signal_id", "changed_at"])
        return dict(frame.iter_rows())


@dataclass(frozen=True)
class ExportTable:
    """A served table: its file name, one line about it for the README, its columns, and
    its rows (API objects, keys among the columns'; a missing key is null)."""

    name: str
    about: str
    columns: tuple[Column, ...]
    rows: Callable[[ExportSource], Iterator[dict[str, Any]]] = field(repr=False)

    @property
    def schema(self) -> pl.Schema:
        return pl.Schema({column.name: column.dtype for column in self.columns})


UTC_TIME = pl.Datetime("us", "UTC")
STRINGS = pl.List(pl.String)
THEMES = pl.Struct(dict.fromkeys(AXES, STRINGS))
ENTITY_REF = pl.Struct({"entity_id": pl.String, "name": pl.String, "type": pl.String})
CONTENT_TYPE_MIX = pl.Struct({"analysis": pl.Int64, "event": pl.Int64})
DISTRIBUTIONS = {axis: pl.Struct(dict.fromkeys(THEME_LABELS[axis], pl.Int64)) for axis in AXES}
SNIPPET = pl.Struct({"text": pl.String, "truncated": pl.Boolean})
LABELS = ("direction", "confidence", "stability", "notability")
_OTHER_CLAIM: dict[str, pl.DataType | type[pl.DataType]] = {
    "unit_id": pl.String,
    "signal_id": pl.String,
    "domain": pl.String,
    "text": pl.String,
    "evidence": SNIPPET,
}
CORROBORATION = pl.Struct(
    {
        "count": pl.Int64,
        "sources": STRINGS,
        "claims": pl.List(pl.Struct(_OTHER_CLAIM)),
        "contested": pl.List(pl.Struct({**_OTHER_CLAIM, "cues": STRINGS})),
    }
)
STORY_COUNT = "stories (`stories`) holding a signal that carries it"


_DTYPES: dict[type, pl.DataType] = {
    float: pl.Float64(),
    int: pl.Int64(),
    str: pl.String(),
    bool: pl.Boolean(),
}


def _dtype_of(annotation: Any) -> pl.DataType:
    if get_origin(annotation) is list:
        return pl.List(_dtype_of(get_args(annotation)[0]))
    return _DTYPES[annotation]


def struct_of(model: type[BaseModel]) -> pl.Struct:
    """The column type of an object the API serves: its response model's fields, in order, so
    the export's columns cannot drift from the API's shape."""
    return pl.Struct({name: _dtype_of(f.annotation) for name, f in model.model_fields.items()})


def _time(moment: datetime) -> str:
    """An instant as the API writes one (to the second, UTC)."""
    return iso_utc(moment.astimezone(UTC))


def _mixes() -> tuple[Column, ...]:
    return (
        Column("content_type_mix", CONTENT_TYPE_MIX, "signals per content type"),
        *(
            Column(f"{axis}_distribution", DISTRIBUTIONS[axis], f"signals per {axis} theme")
            for axis in AXES
        ),
    )


# --- the tables -------------------------------------------------------------------------------


def _signal_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    snapshot = source.snapshot
    for row, card in enumerate(snapshot.cards):
        item: dict[str, Any] = orjson.loads(card)
        signal_id = snapshot.signal_ids[row]
        item["change_seq"] = int(snapshot.change_seqs[row])
        item["changed_at"] = _time(source.changed_at[signal_id])
        yield item


def _unit_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    for signal_id in source.snapshot.signal_ids:
        detail = orjson.loads(service.get_signal(source.snapshot, signal_id))
        for position, unit in enumerate(detail["units"]):
            yield {"signal_id": signal_id, "position": position, **unit}


def _entity_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    snapshot = source.snapshot
    for entity_id in snapshot.entities.entity_ids:
        yield orjson.loads(service.entity_profile(snapshot, entity_id))


def _theme_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    for axis in AXES:
        for label in THEME_LABELS[axis]:
            yield orjson.loads(service.get_theme(source.snapshot, axis, label))


def _trend_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    catalog = source.snapshot.entities
    ranks: dict[str, dict[str, int]] = {mode: {} for mode in MODES}
    for mode in MODES:
        listed = orjson.loads(service.trending_entities(source.snapshot, mode, limit=len(catalog)))
        for rank, item in enumerate(listed["data"], start=1):
            ranks[mode][item["entity_id"]] = rank
    for row, entity_id in enumerate(catalog.entity_ids):
        item = orjson.loads(catalog.trending_json[row])
        for mode in MODES:
            item[f"rank_{mode}"] = ranks[mode].get(entity_id)
        yield item


SIGNALS = ExportTable(
    "signals",
    "One row per served signal: its card as `GET /v1/signals` lists it, and its place in "
    "the change feed.",
    (
        Column("signal_id", pl.String(), "the signal's id"),
        Column("title", pl.String(), "the full source's title"),
        Column("url", pl.String(), "link to the full source"),
        Column("published_at", UTC_TIME, "publication time of the full source"),
        Column("content_type", pl.String(), "`analysis` or `event`"),
        Column("domain", pl.String(), "registrable domain of the source"),
        Column("verified_unit_count", pl.Int64(), "verified units (rows of `units`)"),
        Column("thesis", pl.String(), "central statement of an analysis (null for an event)"),
        Column("synopsis", pl.String(), "central statement of an event (null for an analysis)"),
        Column("themes", THEMES, "theme labels per axis"),
        Column("entities", pl.List(ENTITY_REF), "entities mentioned"),
        Column("story_id", pl.String(), "the story it is in (`stories`), null when in none"),
        Column("change_seq", pl.Int64(), "position in the change feed (`sort=changed`)"),
        Column("changed_at", UTC_TIME, "when the signal last changed"),
    ),
    _signal_rows,
)
UNITS = ExportTable(
    "units",
    "One row per verified unit, with its evidence, in each signal's order "
    "(`GET /v1/signals/{signal_id}`'s `units`).",
    (
        Column("signal_id", pl.String(), "the unit's signal"),
        Column("position", pl.Int64(), "0-based place in the signal's `units` list"),
        Column("id", pl.String(), "the unit's stable id"),
        Column("role", pl.String(), "`thesis`, `synopsis`, `argument` or `claim`"),
        Column("text", pl.String(), "the verified text"),
        Column("argument_id", pl.String(), "the argument it belongs to (arguments only)"),
        Column("entities", STRINGS, "public ids of the entities its text names"),
        Column(
            "verification",
            pl.Struct({"human_reviewed": pl.Boolean}),
            "`{human_reviewed: true}` when a reviewer approved it, else null",
        ),
        Column(
            "evidence_preview",
            pl.Struct({"snippets": pl.List(SNIPPET)}),
            "verbatim snippets (at most 50 characters) locating it in the source",
        ),
        Column(
            "corroboration",
            CORROBORATION,
            "other voices' claims of the same fact: `count` independent sources, their names, "
            "up to 5 claims, and up to 5 contesting claims with their cues (null when none)",
        ),
    ),
    _unit_rows,
)
ENTITIES = ExportTable(
    "entities",
    "One row per entity, whatever its signal count: its profile as "
    "`GET /v1/entities/{entity_id}` answers it.",
    (
        Column("entity_id", pl.String(), "stable public id `ent:/…`"),
        Column("name", pl.String(), "display name"),
        Column("type", pl.String(), "`organization`, `person`, `model`, … (8 types)"),
        Column("wikipedia_url", pl.String(), "Wikipedia page, when known"),
        Column("signal_count", pl.Int64(), "signals mentioning it"),
        Column("first_seen", UTC_TIME, "first mention"),
        Column("last_seen", UTC_TIME, "latest mention"),
        Column(
            "trend",
            struct_of(EntityTrend),
            "share of voice (last 4 weeks), growth streak, last two weeks, source domains",
        ),
        Column("scale", pl.String(), "`Large`, `Medium` or `Small`"),
        *(
            Column(name, pl.String(), f"`{name}` label (null below {MIN_LABELLED} signals)")
            for name in LABELS
        ),
        Column("notability_reasoning", pl.String(), "the notability points in words"),
        *_mixes(),
        Column(
            "related_entities",
            pl.List(pl.Struct({**ENTITY_REF.to_schema(), "co_occurrence_count": pl.Int64})),
            "top 25 entities by signals in common",
        ),
        Column("story_count", pl.Int64(), STORY_COUNT.replace("carries", "mentions")),
    ),
    _entity_rows,
)
THEMES_TABLE = ExportTable(
    "themes",
    "One row per canonical theme (12): as `GET /v1/themes/{axis}/{label}` answers it.",
    (
        Column("axis", pl.String(), "`value_chain` or `market_force`"),
        Column("label", pl.String(), "the canonical label"),
        Column("signal_count", pl.Int64(), "signals carrying it"),
        Column(
            "trend",
            struct_of(ThemeTrend),
            "share of voice (last 4 weeks), growth streak, last two weeks",
        ),
        *(Column(label, pl.String(), f"`{label}` label") for label in LABELS),
        Column("notability_reasoning", pl.String(), "the notability points in words"),
        Column(
            "related_themes",
            pl.List(
                pl.Struct({"axis": pl.String, "label": pl.String, "co_occurrence_count": pl.Int64})
            ),
            "themes of both axes by signals in common",
        ),
        Column("story_count", pl.Int64(), STORY_COUNT),
    ),
    _theme_rows,
)
TRENDS = ExportTable(
    "trends",
    "One row per entity: its trend item as `GET /v1/entities/trending` shows it (momentum, "
    "z-score, the 12 weekly shares), and its rank in each mode's list.",
    (
        Column("entity_id", pl.String(), "stable public id"),
        Column("display_name", pl.String(), "display name"),
        Column("type_primary", pl.String(), "`Organization`, `Person`, `Product` or `Other`"),
        Column("signal_count", pl.Int64(), "signals mentioning it"),
        Column("first_seen", UTC_TIME, "first mention"),
        Column("last_seen", UTC_TIME, "latest mention"),
        Column(
            "trend",
            struct_of(TrendingTrend),
            "the trend metrics (docs/design.md §7); `share_of_voice_history` oldest week first",
        ),
        *_mixes(),
        *(
            Column(f"rank_{mode}", pl.Int64(), f"1-based rank in the `{mode}` list, else null")
            for mode in MODES
        ),
    ),
    _trend_rows,
)


def _story_rows(source: ExportSource) -> Iterator[dict[str, Any]]:
    stories = source.snapshot.stories
    for story_id in stories.story_ids:
        yield orjson.loads(stories.details[story_id])


STORIES = ExportTable(
    "stories",
    "One row per story, newest activity first: as `GET /v1/stories/{story_id}` answers it, its "
    "signals included.",
    (
        Column("story_id", pl.String(), "stable id `sty_…`"),
        Column("title", pl.String(), "a title naming its event"),
        Column("first_seen", UTC_TIME, "publication time of its earliest signal"),
        Column("last_seen", UTC_TIME, "publication time of its latest signal"),
        Column("signal_count", pl.Int64(), "its signals"),
        Column(
            "independent_sources",
            pl.Int64(),
            "distinct publishers (authors, else domains), chapters, parts, reprints and "
            "near-copies counted once",
        ),
        Column("domains", STRINGS, "distinct source domains, sorted"),
        Column("themes", THEMES, "theme labels of its signals, both axes"),
        Column("entities", pl.List(ENTITY_REF), "entities its signals mention"),
        Column(
            "signals",
            pl.List(
                pl.Struct(
                    {
                        "signal_id": pl.String,
                        "title": pl.String,
                        "url": pl.String,
                        "published_at": pl.String,
                        "domain": pl.String,
                    }
                )
            ),
            "its signals, newest first (`published_at` as the API writes it)",
        ),
        Column(
            "parts",
            pl.List(
                pl.Struct(
                    {
                        "signal_id": pl.String,
                        "units": pl.List(pl.Struct({"unit_id": pl.String, "text": pl.String})),
                    }
                )
            ),
            "per roundup among its signals, its units that report this story's event, else null",
        ),
        Column("merged_from", STRINGS, "ids of the stories a rebuild merged into it, else null"),
        Column("split_from", pl.String(), "the story a rebuild split it from, else null"),
    ),
    _story_rows,
)

# Every exported table, in the README's order. A new served table is one line here.
EXPORT_TABLES: tuple[ExportTable, ...] = (
    SIGNALS,
    UNITS,
    ENTITIES,
    THEMES_TABLE,
    TRENDS,
    STORIES,
)


# --- encoding ---------------------------------------------------------------------------------


def checked_rows(table: ExportTable, source: ExportSource) -> list[dict[str, Any]]:
    """The table's rows, each refused when it holds a field the table does not declare (an
    export never drops a field silently)."""
    declared = {column.name for column in table.columns}
    rows = list(table.rows(source))
    for row in rows:
        extra = row.keys() - declared
        if extra:
            raise ExportError(
                f"table {table.name}: fields {sorted(extra)} are served but not exported; "
                "declare them in publishing.export"
            )
    return rows


def to_frame(table: ExportTable, rows: Sequence[dict[str, Any]]) -> pl.DataFrame:
    """The rows as a typed frame: timestamps parsed, nested values as Parquet structs and
    lists."""
    data: dict[str, list[Any]] = {}
    for column in table.columns:
        values = [row.get(column.name) for row in rows]
        if column.timestamp:
            values = [None if v is None else parse_timestamp(v) for v in values]
        data[column.name] = values
    return pl.DataFrame(data, schema=table.schema, strict=True)


def encode(table: ExportTable, rows: Sequence[dict[str, Any]], fmt: Format) -> bytes:
    """One table's file in ``fmt``: Parquet (zstd, typed), CSV (nested values as JSON text,
    timestamps as the API writes them) or JSON Lines (each row the API's object)."""
    if fmt == "jsonl":
        names = [column.name for column in table.columns]
        return b"".join(
            orjson.dumps({name: row[name] for name in names if name in row}) + b"\n" for row in rows
        )
    if fmt == "csv":
        data = {
            column.name: [
                _csv_value(row.get(column.name)) if column.nested else row.get(column.name)
                for row in rows
            ]
            for column in table.columns
        }
        schema = {
            column.name: pl.String() if column.nested or column.timestamp else column.dtype
            for column in table.columns
        }
        buffer = io.BytesIO()
        pl.DataFrame(data, schema=schema, strict=True).write_csv(buffer)
        return buffer.getvalue()
    buffer = io.BytesIO()
    to_frame(table, rows).write_parquet(buffer, compression="zstd", statistics=True)
    return buffer.getvalue()


def _csv_value(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


@dataclass(frozen=True)
class ExportFile:
    """One file of an export: its name, the table and format it holds, its rows and bytes."""

    name: str
    table: str
    format: Format
    rows: int
    body: bytes = field(repr=False)

    def index_entry(self) -> dict[str, Any]:
        return {
            "path": self.name,
            "table": self.table,
            "format": self.format,
            "rows": self.rows,
            "bytes": len(self.body),
            "sha256": hashlib.sha256(self.body).hexdigest(),
        }


def export_files(
    source: ExportSource,
    formats: Iterable[Format],
    tables: Sequence[ExportTable] = EXPORT_TABLES,
    on_table: Callable[[ExportTable], object] | None = None,
) -> Iterator[ExportFile]:
    """Every table in each of ``formats``; ``on_table`` is told when a table is done."""
    wanted = tuple(formats)
    for table in tables:
        rows = checked_rows(table, source)
        for fmt in wanted:
            body = encode(table, rows, fmt)
            yield ExportFile(f"{table.name}.{fmt}", table.name, fmt, len(rows), body)
        if on_table is not None:
            on_table(table)


def index_body(source: ExportSource, files: Sequence[ExportFile]) -> bytes:
    """``index.json``: the snapshot, and each file's table, format, rows, bytes and SHA-256."""
    snapshot = source.snapshot
    body = {
        "snapshot_id": snapshot.snapshot_id,
        "as_of": _time(snapshot.as_of),
        "built_at": _time(snapshot.built_at),
        "files": [item.index_entry() for item in files],
    }
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"


def readme(tables: Sequence[ExportTable] = EXPORT_TABLES) -> bytes:
    """``README.md``: the formats, then each table and its columns (generated from the
    declarations, so it cannot fall behind them)."""
    lines = [
        "# aimi export",
        "",
        "The served tables of one snapshot, each the API's own objects. `index.json` names the",
        "snapshot and gives every file's rows, bytes and SHA-256.",
        "",
        "- `*.parquet`: typed columns; timestamps are UTC `timestamp[us]`, objects are structs",
        "  and arrays are lists (`pl.read_parquet(path_or_url)`).",
        "- `*.jsonl`: one JSON object per line, exactly as the API serves it (absent optional",
        "  fields are left out, as in the API).",
        "- `*.csv`: one row per line with a header; timestamps as the API writes them",
        "  (ISO 8601, UTC); struct and list columns as JSON text.",
        "",
    ]
    for table in tables:
        lines += [f"## {table.name}", "", table.about, ""]
        lines += ["| column | type | what |", "|---|---|---|"]
        for column in table.columns:
            lines.append(f"| `{column.name}` | `{_type_name(column.dtype)}` | {column.about} |")
        lines.append("")
    return "\n".join(lines).encode()


def _type_name(dtype: object) -> str:
    if isinstance(dtype, pl.Datetime):
        return "timestamp (UTC)"
    if isinstance(dtype, pl.Struct):
        return "struct"
    if isinstance(dtype, pl.List):
        return f"list of {_type_name(dtype.inner)}"
    return {"String": "string", "Int64": "int64", "Float64": "float64", "Boolean": "bool"}.get(
        str(dtype), str(dtype)
    )
