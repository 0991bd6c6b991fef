"""PDF papers (``.pdf``): pypdf text extraction, paragraphs rebuilt from the extracted lines
(line-break hyphens joined), title and date from the PDF's metadata, URL from an arXiv
identifier on the first page; a sidecar supplies or overrides any of them."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, PdfReadError

from analytics.records import iso_utc
from warehouse.adapters.base import RAW_PREVIEW_CHARS, RawRecord, error_record
from warehouse.adapters.sidecar import load_sidecar, sidecar_hint

PDF_SUFFIXES = (".pdf",)

# New-style (2406.01234) and old-style (hep-th/9901001) identifiers, with an optional version.
_ARXIV = re.compile(
    r"arXiv:\s*(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7})(?P<version>v\d+)?",
    re.I,
)
# Metadata titles that name the file or the tool, not the paper.
_JUNK_TITLE = re.compile(r"(\.(pdf|docx?|tex|dvi|ps)$)|(^microsoft word)|(^untitled)", re.I)
_SENTENCE_END = ".,;:!?"
# A line shorter than this fraction of a typical full line ends its paragraph.
_SHORT_LINE = 0.75
# A following line shorter than this, without closing punctuation, is a heading.
_HEADING_LINE = 0.6


def _lines(pages: list[str]) -> list[str]:
    """Extracted lines of all pages, whitespace collapsed; "" where the PDF had a blank line."""
    lines: list[str] = []
    for page in pages:
        for raw in page.split("\n"):
            line = re.sub(r"\s+", " ", raw).strip()
            if re.fullmatch(r"\d{1,4}", line):
                continue  # a page number between the pages' text
            # no break at the page end: paragraphs run on across pages, and a page's short last
            # line ends its paragraph anyway
            lines.append(line)
    return lines


def rebuild_paragraphs(pages: list[str]) -> str:
    """Join wrapped lines into paragraphs separated by blank lines.

    A paragraph ends at a blank line, after a line clearly shorter than a full line (the last
    line of a paragraph, a title, a heading), or before a short line without closing
    punctuation (a heading). ``infer-`` + ``ence`` at a line break becomes ``inference``.
    """
    lines = _lines(pages)
    lengths = sorted(len(line) for line in lines if line)
    if not lengths:
        return ""
    typical = lengths[int(0.8 * (len(lengths) - 1))]
    paragraphs: list[str] = []
    current = ""
    for index, line in enumerate(lines):
        if not line:
            if current:
                paragraphs.append(current)
            current = ""
            continue
        if current and re.search(r"[A-Za-z]-$", current) and re.match(r"[a-z]", line):
            current = current[:-1] + line
        else:
            current = f"{current} {line}" if current else line
        following = lines[index + 1] if index + 1 < len(lines) else ""
        is_short = len(line) < _SHORT_LINE * typical
        heading_next = (
            bool(following)
            and len(following) < _HEADING_LINE * typical
            and following[-1] not in _SENTENCE_END
            and (following[0].isupper() or following[0].isdigit())
        )
        if is_short or heading_next:
            paragraphs.append(current)
            current = ""
    if current:
        paragraphs.append(current)
    return "\n\n".join(paragraphs)


def _title(metadata_title: object, first_page: str) -> str | None:
    if isinstance(metadata_title, str):
        title = re.sub(r"\s+", " ", metadata_title).strip()
        if len(title) >= 4 and not _JUNK_TITLE.search(title):
            return title
    for raw in first_page.split("\n"):
        line = re.sub(r"\s+", " ", raw).strip()
        # the first line that reads like a title: a few words, not the arXiv stamp
        if len(line) >= 10 and len(line.split()) >= 3 and not _ARXIV.search(line):
            return line
    return None


def read_pdf(path: Path) -> Iterator[RawRecord]:
    """One ``paper`` per PDF."""
    blob = path.read_bytes()
    size = len(blob)
    sidecar = load_sidecar(path)
    if sidecar.error:
        yield error_record(path, 1, sidecar.error, size=size)
        return
    try:
        reader = PdfReader(io.BytesIO(blob))
        if reader.is_encrypted and not reader.decrypt(""):
            yield error_record(
                path,
                1,
                "the PDF is encrypted with a password; save an unencrypted copy and ingest that",
                size=size,
            )
            return
        pages = [page.extract_text() or "" for page in reader.pages]
        metadata = reader.metadata
        meta_title = metadata.title if metadata else None
        meta_author = metadata.author if metadata else None
        try:
            created = metadata.creation_date if metadata else None
        except ValueError:
            created = None  # a malformed CreationDate is as good as none: the sidecar can say
    except DependencyError as exc:
        yield error_record(path, 1, f"the PDF cannot be decrypted here: {exc}", size=size)
        return
    except PdfReadError as exc:
        yield error_record(path, 1, f"not a readable PDF: {exc}", size=size)
        return
    # pypdf raises a wide range of types on damaged files; any of them means "unreadable PDF",
    # and one bad file must not stop the batch
    except Exception as exc:
        yield error_record(path, 1, f"not a readable PDF ({type(exc).__name__}: {exc})", size=size)
        return

    text = rebuild_paragraphs(pages)
    preview = text[:RAW_PREVIEW_CHARS]
    if not text:
        yield error_record(
            path,
            1,
            "the PDF has no extractable text (a scanned image?); OCR it, or ingest the text "
            "as a Markdown file with front matter",
            size=size,
        )
        return
    data: dict[str, Any] = {"kind": "paper", "text": text, "pages": len(pages)}
    title = _title(meta_title, pages[0] if pages else "")
    if title:
        data["title"] = title
    if isinstance(meta_author, str) and meta_author.strip():
        data["author"] = meta_author.strip()
    if created is not None:
        data["published_at"] = iso_utc(created, precision="microseconds")
    arxiv = _ARXIV.search(pages[0] if pages else "")
    if arxiv:
        # the version-less abstract page, so that v1 and v2 of a paper are one source
        data["url"] = f"https://arxiv.org/abs/{arxiv.group('id')}"
        data["arxiv_id"] = arxiv.group("id") + (arxiv.group("version") or "")
    data = {**sidecar.defaults, **data, **sidecar.fields}

    lacking = [name for name in ("url", "published_at", "title") if not data.get(name)]
    if lacking:
        why = {
            "url": "url (no arXiv identifier on the first page)",
            "published_at": "published_at (no CreationDate in the PDF's metadata)",
            "title": "title (none in the metadata or on the first page)",
        }
        yield error_record(
            path,
            1,
            f"the PDF gives no {', no '.join(why[name] for name in lacking)}; {sidecar_hint(path)}",
            raw=preview,
            size=size,
        )
        return
    yield RawRecord(str(path), 1, data, preview, size)
