"""What every data endpoint answers, free of any transport: the REST routes
(``serving.routers``), their fast path (``serving.fastpath``) and the MCP tools
(``serving.mcp``) all call these functions, so one request gets one answer whichever way it
comes in.

Each function takes the snapshot the request answers from and typed parameters, and returns
the response body as JSON bytes (joined from the snapshot's pre-rendered bytes, never parsed
and re-serialized). Bad input raises an ``ApiError`` (``readmodel.errors``) whose message each
transport passes on unchanged. Type and bound checks (a ``limit`` of 0, an unknown ``role``)
belong to the transports, which declare them from the constants here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal, TypedDict

from analytics.embedding import FloatMatrix
from analytics.entities import EntityType, fold_name, is_internal_key
from analytics.profiles import TypePrimary
from analytics.schema import ContentType, UnitRole
from analytics.themes import Axis, UnknownTheme, resolve_theme
from analytics.trends import MIN_LABELLED, Mode
from readmodel.catalog import EntityQuery, EntitySort, StoryQuery
from readmodel.cursor import (
    ChangedKey,
    decode_changed,
    decode_entities,
    decode_published,
    decode_stories,
    encode_changed,
    encode_entities,
    encode_published,
    encode_stories,
)
from readmodel.errors import InvalidParameters, NotFound
from readmodel.responses import DEFAULT_LIMIT, MAX_LIMIT, json_list
from readmodel.store import LoadedSnapshot, SignalQuery
from retrieval.engine import SearchFilters, SearchRequest

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "Embed",
    "SignalSort",
    "canonical_theme",
    "entity_profile",
    "find_entity",
    "get_signal",
    "get_theme",
    "list_entities",
    "list_signals",
    "list_themes",
    "published_bounds",
    "resolve_filters",
    "search",
    "trending_entities",
    "window_start",
]

Embed = Callable[[Sequence[str]], FloatMatrix]
SignalSort = Literal["published", "changed"]

# Bounds the transports declare (docs/api.md §8).
MAX_NAME_CHARS = 200
MAX_NAME_OR_ID_CHARS = 500
MAX_THEME_CHARS = 200
MAX_ENTITY_FILTER_CHARS = 500
MAX_KEYWORD_CHARS = 200
MAX_QUERY_CHARS = 2000
MAX_UNIT_ID_CHARS = 200
DEFAULT_MIN_SIGNALS = 2
DEFAULT_SEARCH_LIMIT = 10
MAX_SEARCH_LIMIT = 100
DEFAULT_DIVERSITY_CAP = 2

# d = days, w = weeks, m = 30-day months (docs/api.md §4.2); four digits keep the start in range.
WINDOW_PATTERN = r"^[1-9][0-9]{0,3}[dwm]$"
_WINDOW = re.compile(WINDOW_PATTERN)
_WINDOW_DAYS = {"d": 1, "w": 7, "m": 30}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MICROSECOND = timedelta(microseconds=1)

# What each endpoint (and the MCP tool of the same data) answers: the OpenAPI document and
# the MCP tool list both show these texts.
ABOUT: dict[str, str] = {
    "list_entities": (
        "Cursor-paginated entity profiles without `related_entities`. Pass `next_cursor` back as "
        "`cursor` until `has_more` is false; a cursor only works with the `sort` that issued it. "
        "The default `min_signals=2` returns the human-reviewed set; `min_signals=1` adds single-"
        "signal entities and unreviewed names found by discovery. Sorts: `signal_count` (most "
        "first), `first_seen` (newest first), `trend` (share of voice, highest first); ties go to"
        f" `entity_id` ascending. Label filters match nothing below {MIN_LABELLED} signals, where "
        "labels are null."
    ),
    "get_trending_entities": (
        "Entities with at least 2 signals, reviewed set. `rising`: the `direction` label's share"
        " rule says Rising (the last 4 weeks' share of voice at least 1.25 times the 8 weeks' "
        "before, or new there) and at least 2 signals in the last complete week, by z-score, "
        "whatever the signal count: a rising entity is never labelled Declining or Stable; "
        "`hot`: by signals in the last "
        "complete week; `consistent`: active in at least 9 of the 12 weeks, by persistence; "
        "`new`: notable (its third signal) in the last 4 complete weeks and first mentioned at "
        "most 26 weeks before that (one or two earlier mentions, a rumour, do not keep a name "
        "out; an old name mentioned again is not new), by signal count. Ties end on "
        "`entity_id`. Field names differ from the entity list (`display_name`, `type_primary`, "
        "`trend` with momentum numbers)."
    ),
    "get_entity_profile": (
        "By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or alias, "
        "whatever its signal count. `related_entities`: top 25 by signals in common."
    ),
    "get_themes": ("Both axes in canonical order (value chain first), or one axis. Not paginated."),
    "get_theme": (
        "`label` is a URL-encoded canonical label, matched in any case (e.g. "
        "`/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are "
        "unknown labels: 404, whose message names the canonical label."
    ),
    "list_signals": (
        "Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until `has_more` is "
        "false; paging is keyset-based, so a snapshot published between pages neither skips nor "
        "repeats a signal. `window` is measured back from the snapshot's `as_of`; "
        "`published_after` is inclusive and `published_before` exclusive. `sort=changed` is the "
        "change feed: oldest change first; its `next_cursor` is a resume point returned even on "
        "the last page (null only when nothing changed after `cursor`); a reprocessed signal "
        "reappears once, at its new position. A cursor only works with the `sort` that issued it."
    ),
    "get_signal": ("One signal with its verified units."),
    "list_changes": (
        "What changed since a cursor, for an agent that watches: the change feed's cards "
        "(new and reprocessed signals, oldest change first), filtered like `list_signals`. "
        "Without a cursor it returns no signals and a `next_cursor` at the feed's head: keep "
        "it and call again later to get only what changed meanwhile (`from_start=true` pages "
        "from the first change instead). Pass `next_cursor` back until `has_more` is false; "
        "it is returned on the last page too (the same cursor when nothing changed, never null), "
        "and `snapshot_id` names the snapshot answered "
        "from. Cursors of `list_signals` with `sort=changed` work here, and these there."
    ),
    "list_stories": (
        "Cursor-paginated stories: signals about the same event or development, grouped within "
        "a rolling window of days (a story keeps its id as it grows). Newest activity "
        "(`last_seen`) first, ties by `story_id`. `independent_sources` counts distinct "
        "publishers (authors, else domains): chapters, parts, reprints and near-copies once. "
        "`window` keeps stories active in it (measured back from the snapshot's `as_of`); "
        "`entity` matches the entity or a family member; `min_sources` is the least "
        "`independent_sources`. Pass `next_cursor` back as `cursor` until `has_more` is false."
    ),
    "get_story": (
        "One story with its signals (newest first), `parts` (a roundup's units that report "
        "this story's event, when a roundup is among its signals) and, when a rebuild merged or "
        "split it, `merged_from` / `split_from`."
    ),
    "search": (
        "Exactly one of `q` (hybrid: BM25 over the units and MiniLM cosine, each filtered "
        "first, fused by reciprocal rank with k = 60; when every word of `q` is in the title, "
        "or in one passage of the complete text, of no more than a few signals, the best of "
        "them are lifted to the first page even if none of their units carries those words, "
        "each served as its verified unit nearest the passage that matched, and a line of "
        "five or more words that the text of at most three signals holds word for word (one "
        "forgotten word of one index term allowed) ranks first; parts of `q` in "
        'double quotes are phrases: `"wafer-scale inference"` keeps only units of signals '
        "whose title or text holds those words in that order) or `similar_to` (a unit id: "
        "cosine of stored embeddings, the unit itself excluded). `relevance_score` is the "
        "fused score (for a lifted unit at least its floor) or the cosine, times the"
        " recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the "
        "snapshot's `as_of`). At most `diversity_cap` units per signal. `entity` keeps units "
        "whose own text names the entity (or a family member). Not paginated: the best `limit` "
        "hits."
    ),
}


def _shown(value: str) -> str:
    """``value`` as an error message quotes it: at most 200 characters."""
    return value if len(value) <= 200 else value[:200] + "…"


# --- themes -----------------------------------------------------------------------------------


def list_themes(snapshot: LoadedSnapshot, axis: Axis | None) -> bytes:
    """The 12 themes in canonical order (value chain first), or one axis."""
    return json_list("themes", snapshot.themes.listed(axis))


def get_theme(snapshot: LoadedSnapshot, axis: Axis, label: str) -> bytes:
    """One theme with related themes; ``label`` matches a canonical label in any case."""
    try:
        found_axis, canonical = resolve_theme(label, axis)
    except UnknownTheme as exc:
        raise NotFound(str(exc)) from None
    body = snapshot.themes.theme_json.get((found_axis, canonical))
    if body is None:  # a snapshot always carries all 12; say so rather than answer 500
        raise NotFound(f"theme '{axis}/{canonical}' is not in this snapshot")
    return body


def canonical_theme(theme: str | None) -> str | None:
    """The canonical label a ``theme`` filter names; unknown → 404 naming the label."""
    if theme is None:
        return None
    try:
        return resolve_theme(theme)[1]
    except UnknownTheme as exc:
        raise NotFound(str(exc), field="theme") from None


# --- entities ---------------------------------------------------------------------------------


def list_entities(
    snapshot: LoadedSnapshot,
    *,
    theme: str | None = None,
    entity_type: EntityType | None = None,
    name: str | None = None,
    sort: EntitySort = "signal_count",
    direction: str | None = None,
    confidence: str | None = None,
    stability: str | None = None,
    scale: str | None = None,
    notability: str | None = None,
    min_signals: int = DEFAULT_MIN_SIGNALS,
    cursor: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """A keyset page of entity profiles (without ``related_entities``). An empty ``cursor``
    (what a client sends back when ``next_cursor`` was null) is no cursor: the first page."""
    folded = None
    if name is not None:
        folded = fold_name(name)
        if not folded:
            raise InvalidParameters("name is empty; give part of a display name", field="name")
    labels = tuple(
        (field, value)
        for field, value in (
            ("direction", direction),
            ("confidence", confidence),
            ("stability", stability),
            ("scale", scale),
            ("notability", notability),
        )
        if value is not None
    )
    query = EntityQuery(
        sort=sort,
        min_signals=min_signals,
        type=entity_type,
        name=folded,
        theme=canonical_theme(theme),
        labels=labels,
        after=decode_entities(cursor, sort) if cursor else None,
    )
    page = snapshot.entities.page(query, limit)
    next_cursor = None if page.last is None else encode_entities(sort, page.last)
    return json_list(
        "entities", page.items, extra=(("has_more", page.has_more), ("next_cursor", next_cursor))
    )


def trending_entities(
    snapshot: LoadedSnapshot,
    mode: Mode,
    *,
    theme: str | None = None,
    type_primary: TypePrimary | None = None,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """The trending entities of one mode."""
    items = snapshot.entities.trending(
        mode, limit, theme=canonical_theme(theme), type_primary=type_primary
    )
    return json_list("data", items)


def find_entity(snapshot: LoadedSnapshot, name_or_id: str) -> int:
    """The catalog row a path names: a public id (raw or URL-encoded) or a display name or
    alias; an internal ``type:key`` id is 400, anything unknown 404."""
    value = name_or_id.strip()
    if is_internal_key(value):
        public = next(
            (e.entity_id for e in snapshot.entity_index.by_id.values() if e.key == value), None
        )
        hint = f" ('{public}')" if public else ""
        raise InvalidParameters(
            f"'{_shown(value)}' is an internal id; use the public entity_id{hint} or the "
            "display name",
            field="name_or_id",
        )
    found = snapshot.entity_index.resolve(value)
    row = None if found is None else snapshot.entities.row_of.get(found.entity_id)
    if row is None:
        raise NotFound(f"entity '{_shown(value)}' not found")
    return row


def entity_profile(snapshot: LoadedSnapshot, name_or_id: str) -> bytes:
    """One entity's profile with its related entities."""
    return snapshot.entities.profile_json[find_entity(snapshot, name_or_id)]


# --- signals ----------------------------------------------------------------------------------


class SetFilters(TypedDict, total=False):
    entity_ids: frozenset[str]
    theme: str
    keyword: re.Pattern[str]


def resolve_filters(
    snapshot: LoadedSnapshot, *, entity: str | None, theme: str | None, keyword: str | None
) -> SetFilters:
    """``entity``, ``theme`` and ``keyword`` as the store reads them; an unknown entity or
    theme is 404 (never an empty list), an empty keyword 400."""
    filters: SetFilters = {}
    if entity is not None:
        found = snapshot.entity_index.resolve(entity)
        if found is None:
            raise NotFound(f"entity '{_shown(entity)}' not found", field="entity")
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
    if match is None:  # the transports' pattern rejects these first; kept for direct callers
        raise InvalidParameters(f"window {window!r} is not like 7d, 2w or 1m", field="window")
    count, unit = int(window[:-1]), window[-1]
    return _utc(as_of) - timedelta(days=count * _WINDOW_DAYS[unit])


# Pure in its arguments, and clients repeat the same few (a window against one as_of): the
# date arithmetic was a fifth of a filtered page's own work. Errors are raised, never cached.
@lru_cache(maxsize=256)
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


def list_signals(
    snapshot: LoadedSnapshot,
    *,
    entity: str | None = None,
    theme: str | None = None,
    keyword: str | None = None,
    content_type: ContentType | None = None,
    published_after: datetime | None = None,
    published_before: datetime | None = None,
    window: str | None = None,
    sort: SignalSort = "published",
    cursor: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """A keyset page of signal cards, newest first, or of the change feed (``sort="changed"``,
    oldest change first, whose cursor is a resume point). An empty ``cursor`` is no cursor."""
    filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=keyword)
    lower, upper = published_bounds(published_after, published_before, window, snapshot.as_of)
    if sort == "changed":
        query = SignalQuery(
            content_type=content_type,
            published_from_us=lower,
            published_before_us=upper,
            after_seq=decode_changed(cursor).change_seq if cursor else None,
            **filters,
        )
        cards, has_more, next_cursor = _changes(snapshot, query, limit)
    else:
        query = SignalQuery(
            content_type=content_type,
            published_from_us=lower,
            published_before_us=upper,
            after=decode_published(cursor) if cursor else None,
            **filters,
        )
        page = snapshot.published_page(query, limit)
        cards, has_more = page.cards, page.has_more
        next_cursor = encode_published(page.last) if page.last is not None else None
    return json_list("signals", cards, extra=(("has_more", has_more), ("next_cursor", next_cursor)))


def list_changes(
    snapshot: LoadedSnapshot,
    *,
    entity: str | None = None,
    theme: str | None = None,
    keyword: str | None = None,
    cursor: str | None = None,
    from_start: bool = False,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """The change feed after ``cursor`` (``list_signals`` with ``sort="changed"``) with the
    snapshot's id; with no cursor (and not ``from_start``) no signals and the cursor of the
    feed's head, where a watcher starts from."""
    filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=keyword)
    if cursor or from_start:
        after_seq = decode_changed(cursor).change_seq if cursor else None
        query = SignalQuery(after_seq=after_seq, **filters)
        cards, has_more, next_cursor = _changes(snapshot, query, limit)
        # nothing changed after it: the same cursor again, never null, so a watcher that keeps
        # what it is given cannot fall back to the head and skip what changes meanwhile
        next_cursor = next_cursor or cursor
    else:
        head = snapshot.head_seq
        cards, has_more = [], False
        next_cursor = None if head is None else encode_changed(ChangedKey(head))
    extra = (
        ("has_more", has_more),
        ("next_cursor", next_cursor),
        ("snapshot_id", snapshot.snapshot_id),
    )
    return json_list("signals", cards, extra=extra)


def _changes(
    snapshot: LoadedSnapshot, query: SignalQuery, limit: int
) -> tuple[list[bytes], bool, str | None]:
    """A page of the change feed: its cards, whether more follow, and its resume point."""
    feed = snapshot.changed_page(query, limit)
    # The feed's cursor is a resume point: returned on the last page too, so a client can
    # poll forward; null only when nothing changed after the cursor (keep the old one).
    next_cursor = None if feed.last_seq is None else encode_changed(ChangedKey(feed.last_seq))
    return feed.cards, feed.has_more, next_cursor


def get_signal(snapshot: LoadedSnapshot, signal_id: str) -> bytes:
    """One signal with its verified units."""
    detail = snapshot.details.get(signal_id)
    if detail is None:
        raise NotFound(f"signal '{_shown(signal_id)}' not found")
    return detail


# --- stories ----------------------------------------------------------------------------------


def list_stories(
    snapshot: LoadedSnapshot,
    *,
    entity: str | None = None,
    theme: str | None = None,
    window: str | None = None,
    min_sources: int = 1,
    cursor: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> bytes:
    """A keyset page of stories, newest activity first. An empty ``cursor`` is no cursor."""
    filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=None)
    active_from, _ = published_bounds(None, None, window, snapshot.as_of)
    query = StoryQuery(
        entity_ids=filters.get("entity_ids"),
        theme=filters.get("theme"),
        active_from_us=active_from,
        min_sources=min_sources,
        after=decode_stories(cursor) if cursor else None,
    )
    page = snapshot.stories.page(query, limit)
    next_cursor = encode_stories(page.last) if page.last is not None else None
    return json_list(
        "stories", page.items, extra=(("has_more", page.has_more), ("next_cursor", next_cursor))
    )


def get_story(snapshot: LoadedSnapshot, story_id: str) -> bytes:
    """One story with its signals."""
    detail = snapshot.stories.details.get(story_id)
    if detail is None:
        raise NotFound(f"story '{_shown(story_id)}' not found")
    return detail


# --- search -----------------------------------------------------------------------------------


def search(
    snapshot: LoadedSnapshot,
    embed: Embed,
    *,
    q: str | None = None,
    similar_to: str | None = None,
    role: UnitRole | None = None,
    entity: str | None = None,
    theme: str | None = None,
    content_type: ContentType | None = None,
    published_after: datetime | None = None,
    published_before: datetime | None = None,
    window: str | None = None,
    recency_boost: float = 0.0,
    limit: int = DEFAULT_SEARCH_LIMIT,
    diversity_cap: int = DEFAULT_DIVERSITY_CAP,
) -> bytes:
    """Hybrid search (``q``) or units similar to one (``similar_to``). Blocking: it embeds the
    query and runs both legs, so async callers run it in a worker thread."""
    if (q is None) == (similar_to is None):
        raise InvalidParameters(
            "give exactly one of q (a query) or similar_to (a unit id)",
            field="q" if q is None else "similar_to",
        )
    if q is not None and not q.strip():
        raise InvalidParameters("q is empty; give a query", field="q")
    set_filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=None)
    lower, upper = published_bounds(published_after, published_before, window, snapshot.as_of)
    index = snapshot.search
    exclude = None
    if similar_to is not None:
        exclude = index.row_of(similar_to)
        if exclude is None:
            raise NotFound(f"unit '{_shown(similar_to)}' not found", field="similar_to")
    filters = SearchFilters(
        role=role,
        content_type=content_type,
        theme=set_filters.get("theme"),
        entity_ids=set_filters.get("entity_ids"),
        published_from_us=lower,
        published_before_us=upper,
        exclude_row=exclude,
    )
    if exclude is not None:
        vector = index.vectors[exclude]
        echo: tuple[str, str | None] = ("similar_to", similar_to)
    else:
        assert q is not None
        vector = embed([q])[0]
        echo = ("query", q)
    query = SearchRequest(
        query_vector=vector,
        query_text=q,
        filters=filters,
        limit=limit,
        diversity_cap=diversity_cap,
        recency_boost=recency_boost,
    )
    return json_list("results", index.render(index.search(query)), (echo,))
