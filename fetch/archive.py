"""The fetch archive: every response a fetch kept, as WARC (warcio), under
``<data dir>/fetch/archive/``, with one metadata record per item saying which file it became, so
that ``aimi ingest --warc DIR`` rebuilds the same inbox files with no network."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]
from warcio.exceptions import ArchiveLoadFailed  # type: ignore[import-untyped]
from warcio.statusandheaders import StatusAndHeaders  # type: ignore[import-untyped]
from warcio.warcwriter import WARCWriter  # type: ignore[import-untyped]

from fetch.http import Response

# the body is kept decoded, so the headers that described its transfer no longer hold
_TRANSFER_HEADERS = frozenset({"content-encoding", "transfer-encoding", "content-length"})
ITEM_PROFILE = "application/vnd.aimi.item+json"


@dataclass(frozen=True)
class ArchivedItem:
    """One item as the archive replays it: what the fetch wrote, and the body it came from."""

    payload: dict[str, Any]
    body: bytes | None


class WarcArchive:
    """A WARC file being written by one fetch run (thread-safe)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("ab")
        self._writer = WARCWriter(self._file, gzip=True)
        self._lock = threading.Lock()
        self.responses = 0

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def __enter__(self) -> WarcArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def response(self, response: Response) -> str:
        """Archive a 200 answer; returns its record id."""
        headers = [(k, v) for k, v in response.headers.items() if k not in _TRANSFER_HEADERS]
        headers.append(("Content-Length", str(len(response.body))))
        http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
        record = self._writer.create_warc_record(
            response.url,
            "response",
            payload=io.BytesIO(response.body),
            length=len(response.body),
            http_headers=http,
            warc_headers_dict={"WARC-Date": _warc_date(response.fetched_at)},
        )
        with self._lock:
            self._writer.write_record(record)
            self.responses += 1
        return str(record.rec_headers.get_header("WARC-Record-ID"))

    def item(self, url: str, payload: dict[str, Any], refers_to: str | None) -> None:
        """Archive what an item became (its file name, sidecar, record)."""
        body = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")
        headers = {"WARC-Date": _warc_date(datetime.now(UTC))}
        if refers_to:
            headers["WARC-Refers-To"] = refers_to
        record = self._writer.create_warc_record(
            url,
            "metadata",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type=ITEM_PROFILE,
            warc_headers_dict=headers,
        )
        with self._lock:
            self._writer.write_record(record)


def _warc_date(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def archive_files(root: Path) -> list[Path]:
    """The WARC files under ``root`` (a file or a folder), oldest first by name."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*.warc*") if p.is_file())


def read_items(root: Path) -> Iterator[ArchivedItem]:
    """Every archived item under ``root``, in the order they were fetched, with the body of
    the response it refers to."""
    for path in archive_files(root):
        try:
            yield from _items_of(path)
        except ArchiveLoadFailed as exc:
            # a run killed while it wrote leaves a truncated last record
            raise ValueError(f"{path} is not a readable WARC file ({exc})") from None


def _items_of(path: Path) -> Iterator[ArchivedItem]:
    bodies: dict[str, bytes] = {}
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh):
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            if record.rec_type == "response":
                bodies[record_id] = record.content_stream().read()
            elif (
                record.rec_type == "metadata"
                and record.rec_headers.get_header("Content-Type") == ITEM_PROFILE
            ):
                payload = json.loads(record.content_stream().read().decode("utf-8"))
                refers = record.rec_headers.get_header("WARC-Refers-To")
                yield ArchivedItem(payload, bodies.get(refers) if refers else None)
