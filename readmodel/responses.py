"""Response bodies joined from pre-rendered JSON bytes, and what the list endpoints share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

# List page size of signals, entities and trending (docs/api.md §8).
DEFAULT_LIMIT = 25
MAX_LIMIT = 50
# The spec's 2026-06-12 rename: `q` is read as absent and the response says it is deprecated.
DEPRECATION_HEADERS = {"Deprecation": "true", "Link": '</v1/changelog>; rel="deprecation"'}


def json_list(key: str, items: Sequence[bytes], extra: Iterable[tuple[str, Any]] = ()) -> bytes:
    """``{"<key>": [items…], <extra fields>}`` from items that are already JSON: the bytes are
    joined, never parsed and re-serialized."""
    parts = [b'{"', key.encode(), b'":[', b",".join(items), b"]"]
    for name, value in extra:
        parts += [b',"', name.encode(), b'":', orjson.dumps(value)]
    parts.append(b"}")
    return b"".join(parts)
