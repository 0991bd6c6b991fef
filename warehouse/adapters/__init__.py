"""Source adapters, one module per input format; each turns a file into ``RawRecord`` items in the
ingest format (docs/design.md §3) or error records, never an exception that stops a batch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from warehouse.adapters.base import RawRecord
from warehouse.adapters.feeds import FEED_SUFFIXES, read_feed
from warehouse.adapters.html import HTML_SUFFIXES, read_html
from warehouse.adapters.jsonl import JSONL_SUFFIXES, read_jsonl
from warehouse.adapters.markdown import MARKDOWN_SUFFIXES, read_markdown
from warehouse.adapters.pdf import PDF_SUFFIXES, read_pdf
from warehouse.adapters.sidecar import is_sidecar
from warehouse.adapters.transcripts import SRT_SUFFIXES, VTT_SUFFIXES, read_cue_file

Adapter = Callable[[Path], Iterator[RawRecord]]

ADAPTERS: dict[str, Adapter] = {
    **dict.fromkeys(JSONL_SUFFIXES, read_jsonl),
    **dict.fromkeys(MARKDOWN_SUFFIXES, read_markdown),
    **dict.fromkeys(HTML_SUFFIXES, read_html),
    **dict.fromkeys(FEED_SUFFIXES, read_feed),
    **dict.fromkeys(PDF_SUFFIXES, read_pdf),
    **dict.fromkeys(VTT_SUFFIXES + SRT_SUFFIXES, read_cue_file),
}

__all__ = ["ADAPTERS", "Adapter", "RawRecord", "is_sidecar"]
