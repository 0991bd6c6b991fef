"""The source list the operator owns: ``<data dir>/sources.yaml``, validated on load, written
atomically under a lock, editable by hand (docs/sources.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from analytics.records import RecordError, parse_timestamp
from analytics.schema import SOURCE_KINDS as KINDS
from warehouse.files import atomic_write_text
from warehouse.locks import file_lock
from warehouse.paths import DataDir

SOURCES_FILE = "sources.yaml"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_EVERY = re.compile(r"^(\d+)\s*([mhdw])$")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_FIELDS = ("name", "url", "feed", "sitemaps", "kind", "every", "backfill", "added")
_HEADER = (
    "# The sources aimi follows (docs/sources.md). Edit by hand or with `aimi sources add` /\n"
    "# `aimi sources remove`; `aimi fetch` reads it. One entry per source:\n"
    "#   name: a short id (lower case, digits, . _ -), url: what was added,\n"
    "#   feed: the feed read every time (none for a sitemap-only source),\n"
    "#   sitemaps: sitemaps read for older or unlisted pages, kind: the signal kind of its\n"
    "#   items, every: how often it is due (30m, 6h, 1d, 1w), backfill: read the sitemaps too.\n"
)


class SourceListError(ValueError):
    """``sources.yaml`` cannot be read, or an edit would make it invalid; the message says
    which entry and field, and how to fix it."""


@dataclass(frozen=True)
class Source:
    """One followed source."""

    name: str
    url: str
    feed: str | None = None
    sitemaps: tuple[str, ...] = ()
    kind: str = "article"
    every: str = "1d"
    backfill: bool = False
    added: datetime | None = None

    @property
    def interval(self) -> timedelta:
        return parse_every(self.every)

    def as_yaml(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "url": self.url,
            "feed": self.feed,
            "sitemaps": list(self.sitemaps),
            "kind": self.kind,
            "every": self.every,
            "backfill": self.backfill,
        }
        if self.added is not None:
            data["added"] = self.added.astimezone(UTC).isoformat().replace("+00:00", "Z")
        return data


@dataclass
class SourceList:
    """The sources in file order."""

    sources: list[Source] = field(default_factory=list)

    def get(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.name == name), None)

    def names(self) -> list[str]:
        return [s.name for s in self.sources]


def parse_every(value: str) -> timedelta:
    """``30m``, ``6h``, ``1d``, ``1w`` as a duration (at least a minute)."""
    match = _EVERY.match(value.strip().lower())
    if match is None or int(match.group(1)) == 0:
        raise SourceListError(
            f"every: {value!r} is not a fetch interval; write a number and a unit, e.g. 30m, "
            "6h, 1d or 1w"
        )
    return timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2)])


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise SourceListError(
            f"name: {name!r} is not a source name; use 1-64 lower-case letters, digits, '.', "
            "'_' or '-', starting with a letter or digit"
        )
    return name


def _http_url(value: object, where: str) -> str:
    if not isinstance(value, str) or not re.match(r"^https?://[^\s/]+", value.strip()):
        raise SourceListError(f"{where}: {value!r} is not an http(s) URL")
    return value.strip()


def _source(entry: object, position: int) -> Source:
    where = f"sources[{position}]"
    if not isinstance(entry, dict):
        raise SourceListError(f"{where}: each source is a mapping of field: value")
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise SourceListError(
            f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(_FIELDS)})"
        )
    name = entry.get("name")
    if not isinstance(name, str):
        raise SourceListError(f"{where}: name is required")
    where = f"source {name!r}"
    check_name(name)
    url = _http_url(entry.get("url"), f"{where}: url")
    feed = entry.get("feed")
    feed = None if feed is None else _http_url(feed, f"{where}: feed")
    sitemaps = entry.get("sitemaps") or []
    if not isinstance(sitemaps, list):
        raise SourceListError(f"{where}: sitemaps is a list of URLs")
    kind = entry.get("kind", "article")
    if kind not in KINDS:
        raise SourceListError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    every = str(entry.get("every", "1d"))
    parse_every(every)
    backfill = entry.get("backfill", False)
    if not isinstance(backfill, bool):
        raise SourceListError(f"{where}: backfill is true or false")
    added = entry.get("added")
    if isinstance(added, str):
        try:
            added = parse_timestamp(added)
        except RecordError:
            raise SourceListError(f"{where}: added {added!r} is not an ISO 8601 time") from None
    if added is not None and not isinstance(added, datetime):
        raise SourceListError(f"{where}: added is an ISO 8601 time")
    if feed is None and not sitemaps:
        raise SourceListError(f"{where}: give a feed, sitemaps, or both")
    return Source(
        name=name,
        url=url,
        feed=feed,
        sitemaps=tuple(_http_url(s, f"{where}: sitemaps") for s in sitemaps),
        kind=kind,
        every=every,
        backfill=backfill,
        added=added.replace(tzinfo=added.tzinfo or UTC) if added else None,
    )


def parse_source_list(text: str, *, path: str = SOURCES_FILE) -> SourceList:
    try:
        loaded = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError as exc:
        raise SourceListError(f"{path} is not valid YAML: {exc}") from None
    if loaded is None:
        return SourceList()
    if not isinstance(loaded, dict) or not isinstance(loaded.get("sources", []), list):
        raise SourceListError(f"{path}: expected a mapping with a list under `sources:`")
    sources = [_source(entry, i) for i, entry in enumerate(loaded.get("sources") or [])]
    seen: set[str] = set()
    for source in sources:
        if source.name in seen:
            raise SourceListError(f"{path}: the name {source.name!r} is used twice")
        seen.add(source.name)
    return SourceList(sources)


def render_source_list(sources: SourceList) -> str:
    body = yaml.safe_dump(
        {"sources": [s.as_yaml() for s in sources.sources]},
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
    )
    return _HEADER + body


def sources_path(data: DataDir) -> Path:
    return data.root / SOURCES_FILE


def load_sources(data: DataDir) -> SourceList:
    """The source list (empty when the file does not exist); ``SourceListError`` when it is
    not valid, naming the entry and field."""
    path = sources_path(data)
    if not path.is_file():
        return SourceList()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceListError(f"{path} cannot be read: {exc}") from None
    return parse_source_list(text, path=str(path))


@contextmanager
def editing_sources(data: DataDir) -> Iterator[SourceList]:
    """The source list to change in place; written back atomically when the block ends
    without an error, under a lock so that two edits never lose each other's change."""
    path = sources_path(data)
    with file_lock(data.root / ".sources.lock"):
        sources = load_sources(data)
        yield sources
        text = render_source_list(sources)
        parse_source_list(text, path=str(path))  # what is written can be read back
        atomic_write_text(path, text)


def add_source(data: DataDir, source: Source) -> Source:
    """Append ``source``; ``SourceListError`` when its name is taken."""
    check_name(source.name)
    with editing_sources(data) as sources:
        if sources.get(source.name) is not None:
            raise SourceListError(
                f"a source named {source.name!r} exists already; choose another with --name"
            )
        source = replace(source, added=source.added or datetime.now(UTC))
        sources.sources.append(source)
    return source


def remove_source(data: DataDir, name: str) -> Source:
    """Drop the source ``name`` from the list (its signals stay); ``SourceListError`` when
    there is none of that name."""
    with editing_sources(data) as sources:
        found = sources.get(name)
        if found is None:
            known = ", ".join(sources.names()) or "none"
            raise SourceListError(f"no source named {name!r} (sources: {known})")
        sources.sources.remove(found)
    return found
