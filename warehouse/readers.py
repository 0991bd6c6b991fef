"""Source readers: files in, raw records (with file and line) or read errors out.

This module picks the adapter for a file by its suffix (``warehouse.adapters``: JSONL, Markdown,
HTML, RSS/Atom, PDF, WebVTT, SRT); validation happens afterwards, in one place
(``analytics.records``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from warehouse.adapters import ADAPTERS, is_sidecar
from warehouse.adapters.base import RawRecord
from warehouse.adapters.jsonl import read_jsonl
from warehouse.adapters.markdown import read_markdown, split_front_matter

SUPPORTED_SUFFIXES = tuple(ADAPTERS)

__all__ = [
    "SUPPORTED_SUFFIXES",
    "RawRecord",
    "UnsupportedFileError",
    "discover",
    "read_file",
    "read_jsonl",
    "read_markdown",
    "split_front_matter",
]


class UnsupportedFileError(ValueError):
    """No adapter reads this kind of file."""


def _readable(path: Path) -> bool:
    return path.suffix.lower() in ADAPTERS and not is_sidecar(path)


def discover(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Expand folders into the files an adapter reads; report what cannot be read and why.

    Sidecars (``*.meta.yaml``, ``*.meta.json``) are metadata for the file beside them, never
    inputs of their own.
    """
    found: list[Path] = []
    problems: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if child.is_file() and _readable(child) and not hidden:
                    found.append(child)
        elif path.is_file():
            if _readable(path):
                found.append(path)
            elif is_sidecar(path):
                problems.append(
                    (path, "a sidecar holds metadata for the file beside it; ingest that file")
                )
            else:
                supported = ", ".join(SUPPORTED_SUFFIXES)
                problems.append(
                    (
                        path,
                        f"no adapter reads {path.suffix or 'extensionless'} "
                        f"files (supported: {supported})",
                    )
                )
        else:
            problems.append((path, "no such file or folder"))
    return found, problems


def read_file(path: Path) -> Iterator[RawRecord]:
    """The records of one file, read by the adapter for its suffix."""
    adapter = ADAPTERS.get(path.suffix.lower())
    if adapter is None:
        raise UnsupportedFileError(f"no adapter reads {path.suffix} files")
    yield from adapter(path)
