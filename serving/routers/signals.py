"""``GET /v1/signals`` (keyset-paged cards) and ``GET /v1/signals/{signal_id}`` (detail), both
answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal, TypedDict

from fastapi import APIRouter, Path, Query, Response

from analytics.schema import ContentType
from analytics.themes import UnknownTheme, resolve_theme
from serving.cursor import (
    ChangedKey,
    decode_changed,
    decode_published,
    encode_changed,
    encode_published,
)
from serving.deps import ApiKeyDep, SnapshotDep
from serving.errors import InvalidParameters, NotFound
from serving.models import IsoDateTime, SignalDetail, SignalList, error_responses
from serving.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT, json_list
from serving.store import LoadedSnapshot, SignalQuery

router = APIRouter(tags=["signals"])

# d = days, w = weeks, m = 30-day months (spec §4.2); four digits keep the start in range.
WINDOW_PATTERN = r"^[1-9][0-9]{0,3}[dwm]$"
_WINDOW = re.compile(WINDOW_PATTERN)

# The filters /v1/signals and /v1/search share, declared once.
EntityFilter = Annotated[
    str | None,
    Query(
        max_length=500,
        description="Public entity ID or exact display name (any case, aliases too); a family "
        "covers its members. Unknown → 404.",
    ),
]
ThemeFilter = Annotated[
    str | None,
    Query(max_length=200, description="One of the 12 canonical theme labels. Unknown → 404."),
]
WindowFilter = Annotated[
    str | None,
    Query(
        pattern=WINDOW_PATTERN,
        description="Relative lower bound from the snapshot's as_of: d = days, w = weeks, "
        "m = 30-day months (e.g. 7d, 2w, 1m). Not together with published_after.",
    ),
]
_WINDOW_DAYS = {"d": 1, "w": 7, "m": 30}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MICROSECOND = timedelta(microseconds=1)
MAX_KEYWORD_CHARS = 200


class SetFilters(TypedDict, total=False):
    entity_ids: frozenset[str]
    theme: str
    keyword: re.Pattern[str]


def canonical_theme(theme: str | None) -> str | None:
    """The canonical label a ``theme`` filter names; unknown → 404 naming the label."""
    if theme is None:
        return None
    try:
        return resolve_theme(theme)[1]
    except UnknownTheme as exc:
        raise NotFound(str(exc), field="theme") from None


def resolve_filters(
    snapshot: LoadedSnapshot, *, entity: str | None, theme: str | None, keyword: str | None
) -> SetFilters:
    """``entity``, ``theme`` and ``keyword`` as the store reads them; an unknown entity or
    theme is 404 (never an empty list), an empty keyword 400."""
    filters: SetFilters = {}
    if entity is not None:
        found = snapshot.entity_index.resolve(entity)
        if found is None:
            shown = entity if len(entity) <= 200 else entity[:200] + "…"
            raise NotFound(f"entity '{shown}' not found", field="entity")
        filters["entity_ids"] = frozenset(snapshot.entity_index.family(found.entity_id))
    label = canonical_theme(theme)
    if label is not None:
        filters["theme"] = label
    if keyword is not None:
        term = " ".join(keyword.split())
        if not term:
            raise InvalidParameters("keyword is empty; give a word or phrase", field="keyword")
        # a literal term matched as whole words in any case: "GPU" finds "gpu", not "GPUs"
        filters["keyword"] = re.compile(
            r"(?<!\w)" + r"\s+".join(re.escape(w) for w in term.split()) + r"(?!\w)",
            re.IGNORECASE,
        )
    return filters


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _epoch_us(moment: datetime) -> int:
    return (_utc(moment) - _EPOCH) // _ONE_MICROSECOND


def window_start(window: str, as_of: datetime) -> datetime:
    """The instant ``window`` reaches back to from ``as_of`` (``7d``, ``2w``, ``1m``)."""
    match = _WINDOW.match(window)
    if match is None:  # the Query pattern rejects these first; kept for direct callers
        raise InvalidParameters(f"window {window!r} is not like 7d, 2w or 1m", field="window")
    count, unit = int(window[:-1]), window[-1]
    return _utc(as_of) - timedelta(days=count * _WINDOW_DAYS[unit])


def published_bounds(
    published_after: datetime | None,
    published_before: datetime | None,
    window: str | None,
    as_of: datetime,
) -> tuple[int | None, int | None]:
    """Inclusive lower and exclusive upper bounds in epoch microseconds."""
    lower_field = "published_after"
    if window is not None:
        if published_after is not None:
            raise InvalidParameters(
                "window and published_after both set a lower bound; send only one of them",
                field="window",
            )
        published_after = window_start(window, as_of)
        lower_field = "window"
    if (
        published_after is not None
        and published_before is not None
        and _utc(published_after) > _utc(published_before)
    ):
        raise InvalidParameters(
            f"{lower_field} starts at {_utc(published_after).isoformat()}, later than "
            f"published_before {_utc(published_before).isoformat()}",
            field=lower_field,
        )
    return (
        None if published_after is None else _epoch_us(published_after),
        None if published_before is None else _epoch_us(published_before),
    )


@router.get(
    "/signals",
    response_model=SignalList,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="List signals, newest first",
    description="Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until "
    "`has_more` is false; paging is keyset-based, so a snapshot published between pages "
    "neither skips nor repeats a signal. `window` is measured back from the snapshot's "
    "`as_of`; `published_after` is inclusive and `published_before` exclusive. "
    "`sort=changed` is the change feed: oldest change first; its `next_cursor` is a resume "
    "point returned even on the last page (null only when nothing changed after `cursor`); "
    "a reprocessed signal reappears once, at its new position. A cursor only works with the "
    "`sort` that issued it.",
)
async def list_signals(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    entity: EntityFilter = None,
    theme: ThemeFilter = None,
    keyword: Annotated[
        str | None,
        Query(
            max_length=MAX_KEYWORD_CHARS,
            description="A literal word or phrase, matched whole-word in any case against the "
            "title and the units' text; not relevance-ranked.",
        ),
    ] = None,
    content_type: Annotated[ContentType | None, Query()] = None,
    published_after: Annotated[IsoDateTime | None, Query()] = None,
    published_before: Annotated[IsoDateTime | None, Query()] = None,
    window: WindowFilter = None,
    sort: Annotated[
        Literal["published", "changed"],
        Query(description="`published`: newest first. `changed`: the change feed."),
    ] = "published",
    cursor: Annotated[str | None, Query(description="`next_cursor` of the last page.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `keyword` on 2026-06-12; ignored."),
    ] = None,
) -> Response:
    filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=keyword)
    lower, upper = published_bounds(published_after, published_before, window, snapshot.as_of)
    if sort == "changed":
        after_seq = None if cursor is None else decode_changed(cursor).change_seq
        query = SignalQuery(
            content_type=content_type,
            published_from_us=lower,
            published_before_us=upper,
            after_seq=after_seq,
            **filters,
        )
        feed = snapshot.changed_page(query, limit)
        cards, has_more = feed.cards, feed.has_more
        # The feed's cursor is a resume point: returned on the last page too, so a client can
        # poll forward; null only when nothing changed after the cursor (keep the old one).
        next_cursor = None if feed.last_seq is None else encode_changed(ChangedKey(feed.last_seq))
    else:
        query = SignalQuery(
            content_type=content_type,
            published_from_us=lower,
            published_before_us=upper,
            after=None if cursor is None else decode_published(cursor),
            **filters,
        )
        page = snapshot.published_page(query, limit)
        cards, has_more = page.cards, page.has_more
        next_cursor = encode_published(page.last) if page.last is not None else None
    body = json_list("signals", cards, extra=(("has_more", has_more), ("next_cursor", next_cursor)))
    headers = DEPRECATION_HEADERS if q is not None else None
    return Response(body, media_type="application/json", headers=headers)


@router.get(
    "/signals/{signal_id}",
    response_model=SignalDetail,
    response_model_exclude_none=True,
    responses=error_responses(401, 404, 503, 429),
    summary="One signal with its verified units",
)
async def get_signal(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    signal_id: Annotated[str, Path(description="The signal's `signal_id`.")],
) -> Response:
    detail = snapshot.details.get(signal_id)
    if detail is None:
        shown = signal_id if len(signal_id) <= 200 else signal_id[:200] + "…"
        raise NotFound(f"signal '{shown}' not found")
    return Response(detail, media_type="application/json")
