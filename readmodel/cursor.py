"""Opaque keyset cursors (docs/api.md §4.11): URL-safe base64 of a small versioned JSON naming the
sort and the last row's key, so a page boundary survives a snapshot swap."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

import orjson

from readmodel.errors import InvalidParameters

CURSOR_VERSION = 1
# A real cursor is well under 200 characters; anything far longer is not one of ours.
MAX_CURSOR_CHARS = 512
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class PublishedKey:
    """Keyset position for ``sort=published``: the last row's ``(published_at, signal_id)``
    with ``published_at`` in microseconds since the epoch, ordered descending."""

    published_us: int
    signal_id: str


@dataclass(frozen=True)
class ChangedKey:
    """Keyset position for ``sort=changed``: the last delivered ``change_seq``."""

    change_seq: int


def _encode(sort: str, key: list[Any]) -> str:
    payload = {"v": CURSOR_VERSION, "s": sort, "k": key}
    return base64.urlsafe_b64encode(orjson.dumps(payload)).rstrip(b"=").decode("ascii")


def encode_changed(key: ChangedKey) -> str:
    return _encode("changed", [key.change_seq])


def decode_changed(cursor: str) -> ChangedKey:
    """The position in a ``sort=changed`` cursor; 400 ``field=cursor`` otherwise."""
    payload = _payload(cursor)
    _require_sort(payload, "changed")
    key = payload.get("k")
    if (
        not isinstance(key, list)
        or len(key) != 1
        or type(key[0]) is not int
        or not 0 <= key[0] <= _INT64_MAX
    ):
        raise _invalid("its position is malformed")
    return ChangedKey(change_seq=key[0])


def _describe(sort: object) -> str:
    if isinstance(sort, str) and sort.startswith("entities:"):
        return f"/v1/entities sort={sort.partition(':')[2]!r}"
    if sort == "stories":
        return "/v1/stories"
    return f"/v1/signals sort={sort!r}"


def _require_sort(payload: dict[str, Any], expected: str) -> None:
    sort = payload.get("s")
    if sort != expected:
        raise InvalidParameters(
            f"cursor was issued for {_describe(sort)}, not {_describe(expected)}; keep the "
            "endpoint and sort the same across one pagination sequence",
            field="cursor",
        )


def encode_published(key: PublishedKey) -> str:
    return _encode("published", [key.published_us, key.signal_id])


def _invalid(why: str) -> InvalidParameters:
    return InvalidParameters(
        f"cursor is not valid ({why}); pass back next_cursor exactly as returned, or drop "
        "cursor to start from the first page",
        field="cursor",
    )


def _payload(cursor: str) -> dict[str, Any]:
    if len(cursor) > MAX_CURSOR_CHARS:
        raise _invalid("too long")
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
        payload = orjson.loads(raw)
    except (binascii.Error, ValueError):
        # orjson.JSONDecodeError and undecodable text are both ValueErrors.
        raise _invalid("not a cursor this API issued") from None
    if not isinstance(payload, dict):
        raise _invalid("not a cursor this API issued")
    if payload.get("v") != CURSOR_VERSION:
        raise _invalid("issued by another version of the API")
    return payload


def _int_and_id(payload: dict[str, Any]) -> tuple[int, str]:
    """The ``[int64, non-empty id]`` position both keyset sorts use."""
    key = payload.get("k")
    if (
        not isinstance(key, list)
        or len(key) != 2
        or type(key[0]) is not int
        or not _INT64_MIN <= key[0] <= _INT64_MAX
        or not isinstance(key[1], str)
        or not key[1]
    ):
        raise _invalid("its position is malformed")
    return key[0], key[1]


def decode_published(cursor: str) -> PublishedKey:
    """The keyset position in a ``sort=published`` cursor; 400 ``field=cursor`` otherwise."""
    payload = _payload(cursor)
    _require_sort(payload, "published")
    published_us, signal_id = _int_and_id(payload)
    return PublishedKey(published_us=published_us, signal_id=signal_id)


@dataclass(frozen=True)
class EntityKey:
    """Keyset position in the entity list: the last row's sort value (an integer: signal
    count, first-seen microseconds, or recent mentions for ``sort=trend``) and its id; rows
    run value descending, then id ascending."""

    value: int
    entity_id: str


def encode_entities(sort: str, key: EntityKey) -> str:
    return _encode(f"entities:{sort}", [key.value, key.entity_id])


def decode_entities(cursor: str, sort: str) -> EntityKey:
    """The position in an entity-list cursor issued for ``sort``; 400 ``field=cursor``
    otherwise."""
    payload = _payload(cursor)
    _require_sort(payload, f"entities:{sort}")
    value, entity_id = _int_and_id(payload)
    return EntityKey(value=value, entity_id=entity_id)


@dataclass(frozen=True)
class StoryKey:
    """Keyset position of ``/v1/stories``: the last story's ``last_seen`` (microseconds since
    the epoch, descending) and ``story_id`` (ascending)."""

    last_seen_us: int
    story_id: str


def encode_stories(key: StoryKey) -> str:
    return _encode("stories", [key.last_seen_us, key.story_id])


def decode_stories(cursor: str) -> StoryKey:
    """The position in a ``/v1/stories`` cursor; 400 ``field=cursor`` otherwise."""
    payload = _payload(cursor)
    _require_sort(payload, "stories")
    last_seen_us, story_id = _int_and_id(payload)
    return StoryKey(last_seen_us=last_seen_us, story_id=story_id)
