"""Where each static file lives (pages, feeds, the JSON tree, the export), and the reversible
encoding of ids in its path.

An id becomes one path segment: ASCII letters, digits, ``-`` and ``_`` stay, every other byte
of its UTF-8 form becomes ``~`` and two upper-case hex digits (``ent:/openai`` →
``ent~3A~2Fopenai``). ``~`` is unreserved in URLs, so a static host or CDN serves the name
as written (percent signs would be decoded once by the host and break the link), and no
segment can be ``.``, ``..`` or a hidden file.
"""

from __future__ import annotations

import re

_ESCAPED = re.compile(r"[^A-Za-z0-9_-]+")
_TOKEN = re.compile(r"~([0-9A-F]{2})|([A-Za-z0-9_-])")
_SEGMENT = re.compile(r"(?:[A-Za-z0-9_-]|~[0-9A-F]{2})+")

# Every path is relative to the site's folder (``<snapshot>/site/``: warehouse.snapshot.SITE_DIR).
INDEX_PAGE = "index.html"
METHOD_PAGE = "method.html"
SEARCH_PAGE = "search.html"
ENTITIES_PAGE = "entities/index.html"
CSS_FILE = "site.css"
FEEDS_DIR = "feeds"
ALL_FEED = f"{FEEDS_DIR}/all.atom"
JSON_ROOT = "json/v1"
EXPORT_DIR = "export"


def encode_segment(value: str) -> str:
    """``value`` as one path segment (see the module docstring); ``decode_segment`` inverts it."""
    if not value:
        raise ValueError("an empty id has no path")
    return _ESCAPED.sub(_escape, value)


def _escape(match: re.Match[str]) -> str:
    return "".join(f"~{byte:02X}" for byte in match.group().encode())


def decode_segment(segment: str) -> str:
    """The id ``encode_segment`` made ``segment`` from; ``ValueError`` for anything else."""
    if not _SEGMENT.fullmatch(segment):
        raise ValueError(f"{segment!r} is not an encoded id")
    raw = bytearray()
    for match in _TOKEN.finditer(segment):
        escaped, kept = match.groups()
        raw += bytes.fromhex(escaped) if escaped else kept.encode()
    decoded = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if encode_segment(decoded) != segment:  # e.g. "~41" for a plain "A": not canonical
        raise ValueError(f"{segment!r} is not the canonical encoding of {decoded!r}")
    return decoded


def entity_page(entity_id: str) -> str:
    return f"entities/{encode_segment(entity_id)}.html"


def theme_page(axis: str, label: str) -> str:
    return f"themes/{axis}/{encode_segment(label)}.html"


def signal_page(signal_id: str) -> str:
    return f"signals/{encode_segment(signal_id)}.html"


def story_page(story_id: str) -> str:
    return f"stories/{encode_segment(story_id)}.html"


def entity_feed_path(entity_id: str) -> str:
    return f"{FEEDS_DIR}/entities/{encode_segment(entity_id)}.atom"


def theme_feed_path(axis: str, label: str) -> str:
    return f"{FEEDS_DIR}/themes/{axis}/{encode_segment(label)}.atom"


def trending_feed_path(mode: str) -> str:
    return f"{FEEDS_DIR}/trending/{mode}.atom"


def story_feed_path(story_id: str) -> str:
    return f"{FEEDS_DIR}/stories/{encode_segment(story_id)}.atom"


def theme_list_json_path(axis: str | None) -> str:
    """``GET /v1/themes`` (all axes when ``axis`` is None) or ``?axis=``."""
    return f"{JSON_ROOT}/themes.json" if axis is None else f"{JSON_ROOT}/themes/{axis}.json"


def theme_json_path(axis: str, label: str) -> str:
    return f"{JSON_ROOT}/themes/{axis}/{encode_segment(label)}.json"


def trending_json_path(mode: str, suffix: str = "") -> str:
    """``GET /v1/entities/trending?mode=`` at the default limit, or with ``suffix``
    ``.limit-50`` at the largest."""
    return f"{JSON_ROOT}/entities/trending/{mode}{suffix}.json"


def entity_json_path(entity_id: str) -> str:
    return f"{JSON_ROOT}/entities/{encode_segment(entity_id)}.json"


def signal_json_path(signal_id: str) -> str:
    return f"{JSON_ROOT}/signals/{encode_segment(signal_id)}.json"


def story_list_json_path() -> str:
    return f"{JSON_ROOT}/stories.json"


def story_list_page_path(number: int) -> str:
    return f"{JSON_ROOT}/stories/pages/{number}.json"


def story_json_path(story_id: str) -> str:
    return f"{JSON_ROOT}/stories/{encode_segment(story_id)}.json"


def export_path(name: str) -> str:
    """A file of the bulk export (a table's file, its README or its index)."""
    return f"{EXPORT_DIR}/{name}"
