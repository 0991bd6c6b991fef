"""Where each static file lives, and the reversible encoding of ids in its path.

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

# The JSON tree inside the site's folder (``<snapshot>/site/``: ``warehouse.snapshot.SITE_DIR``).
JSON_ROOT = "json/v1"


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
