"""JSONL (``.jsonl``, ``.ndjson``): one source record per line, already in the ingest format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from warehouse.adapters.base import RawRecord

JSONL_SUFFIXES = (".jsonl", ".ndjson")


def read_jsonl(path: Path) -> Iterator[RawRecord]:
    """One record per non-blank line; a line that is not JSON is reported, the rest goes on."""
    with path.open("rb") as fh:
        for number, raw_line in enumerate(fh, start=1):
            size = len(raw_line)
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield RawRecord(str(path), number, None, "", size, f"not UTF-8 text: {exc}")
                continue
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                yield RawRecord(
                    str(path),
                    number,
                    None,
                    line.rstrip("\n"),
                    size,
                    f"invalid JSON: {exc.msg} at column {exc.colno}",
                )
                continue
            yield RawRecord(str(path), number, data, line.rstrip("\n"), size)
