"""Response models of the /v1 API, exactly the shapes of docs/api.md §2 and §7.

Their docstrings and field descriptions are the OpenAPI document's text, read by API consumers:
they say what a value means (units, ranges, what null or absence means) and point at nothing a
consumer cannot see (``tests/serving/test_openapi.py`` holds that).

Most routes return pre-rendered bytes, so these models document the contract in OpenAPI and let
tests check the bytes. Optional fields that the API omits rather than nulls are typed
``X | SkipJsonSchema[None] = None``: absent from ``required``, never ``null`` in the schema.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field
from pydantic.json_schema import SkipJsonSchema

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.schema import ContentType, UnitRole
from analytics.themes import Axis
from analytics.trends import MIN_LABELLED

_ISO_DATE_START = re.compile(r"\d{4}-\d{2}-\d{2}")


def _require_iso_8601(value: Any) -> Any:
    # Pydantic would read a bare number such as 20260301 as epoch seconds; the spec says ISO.
    if isinstance(value, str) and not _ISO_DATE_START.match(value.strip()):
        raise ValueError("expected an ISO 8601 date or date-time, e.g. 2026-03-01")
    return value


IsoDateTime = Annotated[
    datetime,
    BeforeValidator(_require_iso_8601),
    Field(description="ISO 8601 date (2026-03-01) or date-time; UTC when it has no offset."),
]


class Snippet(BaseModel):
    """A short verbatim locator into the source, not the full passage."""

    text: str = Field(description="Verbatim text from the source, at most 50 characters.")
    truncated: bool = Field(
        description="True when the passage went on past these 50 characters and was cut."
    )


class EvidencePreview(BaseModel):
    """Where in the source the unit comes from."""

    snippets: list[Snippet] = Field(description="One or more locators, in source order.")


class Verification(BaseModel):
    """Present only on units a human reviewer approved."""

    human_reviewed: Literal[True] = Field(description="Always true when present.")


class OtherClaim(BaseModel):
    """Another voice's claim about the same entities, in brief."""

    unit_id: str = Field(description="The other claim's unit id (`similar_to` takes it).")
    signal_id: str = Field(description="Its signal; `GET /v1/signals/{signal_id}` reads it.")
    domain: str = Field(description="Registrable domain of its source.")
    text: str = Field(description="The other claim's verified text.")
    evidence: Snippet | SkipJsonSchema[None] = Field(
        default=None, description="Its first evidence snippet; absent when it has none."
    )


class ContestingClaim(OtherClaim):
    """Another voice's claim that reverses this one."""

    cues: list[str] = Field(
        description="The reversing words: a negation one claim makes and the other does not, "
        "or a word whose opposite the other uses (`faster` against `slower`)."
    )


class Corroboration(BaseModel):
    """Who else states the same fact, counted by independent source."""

    count: int = Field(
        description="Independent sources stating the same fact: distinct authors (else "
        "domains) other than this unit's, a reprint and its original counted once."
    )
    sources: list[str] = Field(description="Those sources' names (author, else domain), sorted.")
    claims: list[OtherClaim] = Field(
        description="Up to 5 of their claims, most similar first, one per reprint group."
    )
    contested: list[ContestingClaim] = Field(
        description="Up to 5 claims of other voices that state the same fact reversed; this "
        "unit's own snippet is its `evidence_preview`. Empty when none."
    )


class Unit(BaseModel):
    """A verified text unit: the same object in signal detail and in search hits."""

    id: str = Field(
        description="Stable unit id; the same unit has the same id in search and in signal "
        "detail, and it is what `similar_to` takes."
    )
    role: UnitRole = Field(
        description="`thesis`: central statement of an analysis; `synopsis`: central "
        "statement of an event; `argument`: a supporting sentence of an analysis; `claim`: "
        "an atomic fact."
    )
    text: str = Field(description="The verified text.")
    argument_id: str | SkipJsonSchema[None] = Field(
        default=None,
        description="Only when role=argument: units sharing it, in list order, form one "
        "argument (a paragraph). Absent on other roles.",
    )
    entities: list[str] | SkipJsonSchema[None] = Field(
        default=None,
        description="Public ids (`ent:/…`) of the entities the unit's text names; absent when "
        "it names none.",
    )
    verification: Verification | SkipJsonSchema[None] = Field(
        default=None,
        description="Present only when a human reviewer approved the unit; absent otherwise.",
    )
    evidence_preview: EvidencePreview | SkipJsonSchema[None] = Field(
        default=None, description="Verbatim locators into the source; absent when none."
    )
    corroboration: Corroboration | SkipJsonSchema[None] = Field(
        default=None,
        description="On a thesis, synopsis or claim that other voices state too, or reverse: "
        "who, with their claims and evidence. Absent when no other voice's "
        "claim matches.",
    )


class Themes(BaseModel):
    """A signal's theme labels on the two axes (each can be empty)."""

    value_chain: list[str] = Field(
        description="Value-chain labels (Semiconductors & Hardware, Infrastructure, Data, "
        "Foundation Models, Tooling & Platforms, Applications)."
    )
    market_force: list[str] = Field(
        description="Market-force labels (Competitive Dynamics, Capital & Investment, "
        "Regulatory & Legal, Talent & Labor, Technology & Scientific Innovation, Adoption & "
        "Demand)."
    )


class EntityRef(BaseModel):
    """An entity a signal mentions."""

    entity_id: str = Field(description="Stable public id, `ent:/…`.")
    name: str = Field(description="Display name.")
    type: EntityType = Field(description="Entity type.")


class SignalFields(BaseModel):
    """The fields a signal card and a signal detail share."""

    signal_id: str = Field(description="Unique signal id; `GET /v1/signals/{signal_id}` reads it.")
    title: str = Field(
        description="Title of the full source (for a podcast segment: `<Episode> — <Chapter>`), "
        "not necessarily of the extracted segment."
    )
    url: str = Field(
        description="Link to the full source; a podcast segment's carries the audio span as "
        "`t=<start_seconds>` and `end=<end_seconds>`."
    )
    published_at: datetime = Field(description="Publication time of the full source (UTC).")
    content_type: ContentType = Field(
        description="`analysis` (an argued position) or `event` (a factual report)."
    )
    domain: str = Field(description="Registrable domain of the source, e.g. `example.com`.")
    verified_unit_count: int = Field(
        description="Number of verified units; equals the length of `units` in the detail."
    )
    themes: Themes = Field(description="Theme labels on both axes.")
    entities: list[EntityRef] = Field(description="Entities the signal mentions.")
    story_id: str | None = Field(
        default=None,
        description="The story the signal belongs to (`GET /v1/stories/{story_id}`); null when "
        "it is in none (published after the snapshot's `as_of`). A roundup split into its items "
        "is in the story of each: this is the one holding most of its units (the first id on a "
        "tie).",
    )


class SignalCard(SignalFields):
    """An item of the signal list: the shared fields plus the central statement."""

    thesis: str | SkipJsonSchema[None] = Field(
        default=None,
        description="Central statement of an analysis signal, whole; absent on events.",
    )
    synopsis: str | SkipJsonSchema[None] = Field(
        default=None,
        description="Central statement of an event signal, whole; absent on analyses.",
    )


class SignalDetail(SignalFields):
    """One signal with its verified units."""

    units: list[Unit] = Field(
        description="Flat list grouped by role: the central statement (thesis or synopsis), "
        "then arguments, then claims, in document order. Events have no arguments."
    )


_HAS_MORE = "True when another page follows; pass `next_cursor` back as `cursor` to read it."


class SignalList(BaseModel):
    """A page of signal cards."""

    signals: list[SignalCard] = Field(description="At most `limit` cards, in the page's order.")
    has_more: bool = Field(description=_HAS_MORE)
    next_cursor: str | None = Field(
        description="Opaque. `sort=published`: the next page's cursor, null once `has_more` is "
        "false. `sort=changed`: a resume point to keep and poll from, returned on the last page "
        "too; null only when nothing changed after `cursor` (keep the one you had)."
    )


class StorySignal(BaseModel):
    """A signal of a story, in brief; `GET /v1/signals/{signal_id}` has the rest."""

    signal_id: str = Field(description="The signal's id.")
    title: str = Field(description="The signal's title.")
    url: str = Field(description="Canonical URL of the source.")
    published_at: datetime = Field(description="Publication time (UTC).")
    domain: str = Field(description="Registrable domain of the source.")


class Story(BaseModel):
    """Signals about the same event or development, grouped within a rolling window of days."""

    story_id: str = Field(
        description="Stable id, `sty_…`: a story keeps it as it grows across builds."
    )
    title: str = Field(
        description="A title naming its event: its most central signal's own title when that "
        "names what the story's texts name, else the member title naming most of it, else the "
        "first sentence of the central signal's synopsis; never a title used on three or more "
        'days (a digest\'s "not much happened today", a recurring heading).'
    )
    first_seen: datetime = Field(description="Publication time of its earliest signal (UTC).")
    last_seen: datetime = Field(description="Publication time of its latest signal (UTC).")
    signal_count: int = Field(description="Its signals.")
    independent_sources: int = Field(
        description="Distinct publishers — the author when the source names one (a name, not "
        "a sentence or link text), else its domain — with chapters and parts of one source, "
        "and reprints and near-copies of an earlier signal, counted once. A story of one "
        "publisher has 1, however many signals it holds."
    )
    domains: list[str] = Field(description="Distinct source domains, sorted.")
    themes: Themes = Field(description="Theme labels of its signals, both axes.")
    entities: list[EntityRef] = Field(description="Entities its signals mention.")


class StoryPartUnit(BaseModel):
    """A unit of a roundup that reports the story's event."""

    unit_id: str = Field(description="The unit's id.")
    text: str = Field(description="The unit's text.")


class StoryPart(BaseModel):
    """The units of one roundup (a digest of unrelated items, split into its items before
    stories are built) that belong to this story; the roundup's other items are in other
    stories."""

    signal_id: str = Field(description="The roundup signal's id (also among `signals`).")
    units: list[StoryPartUnit] = Field(description="Its units in this story, in text order.")


class StoryDetail(Story):
    """One story with its signals."""

    signals: list[StorySignal] = Field(description="Its signals, newest first.")
    parts: list[StoryPart] | SkipJsonSchema[None] = Field(
        default=None,
        description="Per roundup among its signals, the roundup's units that report this "
        "story's event (omitted when none).",
    )
    merged_from: list[str] | SkipJsonSchema[None] = Field(
        default=None,
        description="Ids of earlier stories this one absorbed when a rebuild merged them "
        "(omitted when none).",
    )
    split_from: str | SkipJsonSchema[None] = Field(
        default=None,
        description="The earlier story this one was cut from, whose id went to another part "
        "(omitted when none).",
    )


class StoryList(BaseModel):
    """A page of stories, newest activity first."""

    stories: list[Story] = Field(description="At most `limit` stories, in the page's order.")
    has_more: bool = Field(description=_HAS_MORE)
    next_cursor: str | None = Field(
        description="Opaque: the next page's cursor, null once `has_more` is false."
    )


Direction = Literal["Rising", "Stable", "Declining", "New"]
ThemeDirection = Literal["Rising", "Stable", "Declining"]
Confidence = Literal["Significant", "Insignificant"]
Stability = Literal["Volatile", "Steady"]
Scale = Literal["Large", "Medium", "Small"]
Notability = Literal["High", "Medium", "Low", "Negligible"]

_UNRATED = f" Null below {MIN_LABELLED} signals, where no label is computed."
_DIRECTION_RULE = (
    "Share of voice of the last 4 weeks against the 8 weeks before: `Rising` at 1.25 times or "
    "more (or none before), `Declining` at 0.8 times or less, else `Stable`."
)
_CONFIDENCE_RULE = (
    "`Significant` when that change in mention rate passes a two-sided test of two Poisson "
    "rates at 5% (Benjamini–Hochberg adjusted across the rated keys), else `Insignificant`."
)
_STABILITY_RULE = (
    "`Volatile` when the 12 weekly shares vary by more than half their mean (coefficient of "
    "variation > 0.5), else `Steady`."
)
_TREND_WINDOW = (
    "Weeks are complete Monday–Sunday weeks (UTC); the week in progress is excluded. The "
    "window is the last 12 of them."
)


# The trend numbers a theme, an entity and a trending item share, each declared once.
ShareOfVoice = Annotated[
    float, Field(description="Share of all signals over the trailing 4 complete weeks, 0 to 1.")
]
Streak = Annotated[
    int, Field(description="Consecutive weeks of growth ending at the last complete week (0–11).")
]
CurrentWeek = Annotated[int, Field(description="Signals in the last complete Monday–Sunday week.")]
PriorWeek = Annotated[int, Field(description="Signals in the week before it.")]


class ThemeTrend(BaseModel):
    """Trend numbers over the rolling 12-week window of complete Monday–Sunday weeks."""

    share_of_voice: ShareOfVoice
    streak: Streak
    current_week: CurrentWeek
    prior_week: PriorWeek


class EntityTrend(ThemeTrend):
    """An entity's trend numbers."""

    source_diversity: int = Field(description="Distinct source domains in the 12-week window.")


class Distributions(BaseModel):
    content_type_mix: dict[str, int] = Field(
        description="Signals per content type (`analysis`, `event`); both keys always present."
    )
    value_chain_distribution: dict[str, int] = Field(
        description="Signals per value-chain theme; all six labels, zeros included."
    )
    market_force_distribution: dict[str, int] = Field(
        description="Signals per market-force theme; all six labels, zeros included."
    )


class EntityProfile(Distributions):
    """An entity as the list serves it, without `related_entities`."""

    entity_id: str = Field(description="Stable opaque public id, `ent:/…`.")
    name: str = Field(description="Display name.")
    type: EntityType = Field(
        description="Entity type; `other` covers products, software, frameworks, datasets, "
        "benchmarks, publications and technical concepts."
    )
    wikipedia_url: str | SkipJsonSchema[None] = Field(
        default=None, description="Wikipedia article; absent when none is known."
    )
    signal_count: int = Field(description="Signals mentioning the entity, all time.")
    first_seen: datetime | None = Field(
        description="Publication time of the first mention; null only without any signal."
    )
    last_seen: datetime | None = Field(
        description="Publication time of the latest mention; null only without any signal."
    )
    trend: EntityTrend = Field(description=f"Trend numbers. {_TREND_WINDOW}")
    scale: Scale = Field(
        description=f"Rank among entities with {MIN_LABELLED} or more signals by mentions in the "
        "window: about the top 10% `Large`, the next 25% `Medium`, the rest `Small`; below "
        f"{MIN_LABELLED} signals always `Small`."
    )
    direction: Direction | None = Field(
        description=_DIRECTION_RULE + " `New`: reached its third signal in the last 4 weeks "
        "and was first seen at most 26 weeks before that." + _UNRATED
    )
    confidence: Confidence | None = Field(description=_CONFIDENCE_RULE + _UNRATED)
    stability: Stability | None = Field(description=_STABILITY_RULE + _UNRATED)
    notability: Notability | None = Field(
        description="Overall notability, explained by `notability_reasoning`." + _UNRATED
    )
    notability_reasoning: str = Field(
        description="How the notability label was reached (the points each rule gave), or why "
        "there is none."
    )
    story_count: int | SkipJsonSchema[None] = Field(
        default=None,
        description="Stories (`GET /v1/stories?entity=…`) holding a signal that mentions the "
        "entity: many signals in few stories is buzz about one event, many stories is breadth.",
    )


class RelatedEntity(BaseModel):
    """An entity that shares signals with the one asked for."""

    entity_id: str = Field(description="Stable public id, `ent:/…`.")
    name: str = Field(description="Display name.")
    type: EntityType = Field(description="Entity type.")
    co_occurrence_count: int = Field(description="Signals mentioning both entities.")


class EntityProfileDetail(EntityProfile):
    """One entity with its top 25 related entities."""

    related_entities: list[RelatedEntity] = Field(
        description="At most 25, by `co_occurrence_count` descending."
    )


class EntityList(BaseModel):
    """A page of entity profiles."""

    entities: list[EntityProfile] = Field(description="At most `limit` profiles, in sort order.")
    has_more: bool = Field(description=_HAS_MORE)
    next_cursor: str | None = Field(
        description="Opaque cursor of the next page; null once `has_more` is false."
    )


class TrendingTrend(BaseModel):
    """Trend numbers of a trending entity (12 complete Monday–Sunday weeks)."""

    momentum_wow: float = Field(
        description="Week-over-week change: (current_week − prior_week) / max(prior_week, 1)."
    )
    momentum_4w: float = Field(
        description="Signals in the last 4 weeks against the 4 before: (recent − before) / "
        "max(before, 1)."
    )
    acceleration: float = Field(description="This week's `momentum_wow` minus the previous week's.")
    z_score: float = Field(
        description="The last week's count against the 11 weeks before: (count − mean) / "
        "max(standard deviation, 1)."
    )
    persistence: float = Field(description="Share of the 12 weeks with a signal, 0 to 1.")
    share_of_voice: ShareOfVoice
    share_of_voice_history: list[float] = Field(
        description="12 weekly shares of all signals, oldest first."
    )
    streak: Streak
    current_week: CurrentWeek
    prior_week: PriorWeek


class TrendingItem(Distributions):
    """A trending entity, with this endpoint's own field names."""

    entity_id: str = Field(description="Stable public id, `ent:/…`.")
    display_name: str = Field(description="Display name (`name` in the entity list).")
    type_primary: TypePrimary = Field(
        description="Coarse type: `Product` covers models, hardware and other; `Other` "
        "covers locations, events and regulation."
    )
    signal_count: int = Field(description="Signals mentioning the entity, all time.")
    first_seen: datetime = Field(description="Publication time of the first mention.")
    last_seen: datetime = Field(description="Publication time of the latest mention.")
    trend: TrendingTrend = Field(description="Trend numbers.")


class TrendingList(BaseModel):
    """The trending entities of one mode."""

    data: list[TrendingItem] = Field(description="At most `limit` entities, in the mode's order.")


class Theme(BaseModel):
    """A theme as the list serves it, without `related_themes`."""

    axis: Axis = Field(description="`value_chain` or `market_force`.")
    label: str = Field(description="One of the 12 canonical labels.")
    signal_count: int = Field(description="Signals carrying the label, all time.")
    trend: ThemeTrend = Field(description=f"Trend numbers. {_TREND_WINDOW}")
    direction: ThemeDirection | None = Field(description=_DIRECTION_RULE + _UNRATED)
    confidence: Confidence | None = Field(description=_CONFIDENCE_RULE + _UNRATED)
    stability: Stability | None = Field(description=_STABILITY_RULE + _UNRATED)
    notability: Notability | None = Field(
        description="Overall notability, explained by `notability_reasoning`." + _UNRATED
    )
    notability_reasoning: str = Field(
        description="How the notability label was reached, or why there is none."
    )
    story_count: int | SkipJsonSchema[None] = Field(
        default=None,
        description="Stories (`GET /v1/stories?theme=…`) holding a signal that carries the label.",
    )


class RelatedTheme(BaseModel):
    """A theme, on either axis, that shares signals with the one asked for."""

    axis: Axis = Field(description="`value_chain` or `market_force`.")
    label: str = Field(description="Canonical label.")
    co_occurrence_count: int = Field(description="Signals carrying both labels.")


class ThemeDetail(Theme):
    """One theme with the themes of both axes that share its signals."""

    related_themes: list[RelatedTheme] = Field(
        description="Themes of both axes sharing signals with this one, by "
        "`co_occurrence_count` descending."
    )


class ThemeList(BaseModel):
    """The themes, value chain first, each axis in canonical order."""

    themes: list[Theme] = Field(description="12 themes, or the 6 of the requested axis.")


class Citation(BaseModel):
    """The signal a search hit comes from."""

    signal_id: str = Field(description="The source signal; `GET /v1/signals/{signal_id}`.")
    title: str | None = Field(description="Title of the full source; null when unknown.")
    url: str | None = Field(description="Link to the full source; null when unknown.")
    domain: str | None = Field(description="Registrable domain of the source; null when unknown.")
    published_at: datetime | None = Field(
        description="Publication time of the full source; null when unknown."
    )


class SearchHit(BaseModel):
    """A search result: the unit exactly as in its signal's detail, and its citation."""

    unit: Unit = Field(description="The matching unit, with its verification and evidence.")
    citation: Citation = Field(description="Where the unit comes from.")
    relevance_score: float = Field(
        description="Fused reciprocal-rank score (q) or cosine similarity (similar_to), times "
        "the recency factor when recency_boost > 0. Higher is more relevant; no fixed floor."
    )


class SearchResults(BaseModel):
    """The best `limit` hits, best first; not paginated."""

    results: list[SearchHit] = Field(description="At most `limit` hits, best first.")
    query: str | SkipJsonSchema[None] = Field(
        default=None, description="Echoed when q is used; absent otherwise."
    )
    similar_to: str | SkipJsonSchema[None] = Field(
        default=None, description="Echoed when similar_to is used; absent otherwise."
    )


class SnapshotInfo(BaseModel):
    """The published snapshot of the data being served."""

    id: str = Field(description="Snapshot id; changes with every publish.")
    as_of: datetime = Field(
        description="The build clock: trend weeks and `window` are measured back from it."
    )
    built_at: datetime = Field(description="When the snapshot was built.")


class Health(BaseModel):
    """Liveness, the API version and the snapshot being served."""

    status: Literal["ok", "starting"] = Field(
        description="`ok` once a snapshot is loaded; `starting` before (data endpoints answer "
        "503 meanwhile)."
    )
    version: str = Field(description="API version, e.g. `0.1.0`.")
    snapshot: SnapshotInfo | None = Field(
        description="The snapshot being served; null while `starting`."
    )


class ErrorDetail(BaseModel):
    """What went wrong, for people and for programs."""

    code: str = Field(
        description="Machine-readable: `invalid_parameters`, `unauthorized`, `not_found`, "
        "`method_not_allowed`, `rate_limited`, `internal_error` or `unavailable`."
    )
    message: str = Field(description="Human-readable, naming the fix where there is one.")
    status: int = Field(description="The HTTP status, repeated.")
    field: str | None = Field(
        default=None, description="The offending parameter, when one is to blame; else null."
    )
    request_id: str | None = Field(
        default=None, description="Correlation id, also in the `X-Request-Id` header."
    )
    retry_after: int | None = Field(
        default=None,
        description="Seconds to wait, on 429 and 503 (mirrors `Retry-After`); else null.",
    )
    reset: int | None = Field(
        default=None,
        description="Unix seconds at which the exceeded rate-limit window resets, on 429; "
        "else null.",
    )


class ErrorBody(BaseModel):
    """The error body of every error status except 422."""

    error: ErrorDetail = Field(description="The error.")


_ERROR_DESCRIPTIONS = {
    400: "Invalid parameters (`invalid_parameters`, `field` names the parameter).",
    401: "Missing, invalid or revoked API key (`unauthorized`).",
    404: "Unknown resource (`not_found`).",
    429: "Rate limit exceeded (`rate_limited`); `retry_after` and `reset` say until when, and "
    "the `Retry-After` and `X-RateLimit-*` headers repeat it.",
    500: "The refresh failed (`internal_error`); the snapshot served before stays.",
    503: "Temporarily unavailable (`unavailable`): no snapshot loaded yet, rate limiting "
    "unreachable, or (admin) another build running; retry after `retry_after` seconds.",
}


_RATE_LIMIT_HEADERS = {
    f"X-RateLimit-{part}-{window}": {
        "description": description.format(window=window.lower()),
        "schema": {"type": "integer"},
    }
    for window in ("Minute", "Monthly")
    for part, description in (
        ("Limit", "Requests allowed per {window} window for the key's tier."),
        ("Remaining", "Requests left in the current {window} window."),
        ("Reset", "Unix seconds at which the current {window} window resets."),
    )
}


def error_responses(
    *statuses: int,
    example: Any = None,
    invalid: str | None = None,
    too_many: str | None = None,
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries documenting the error body for each status. With 429 (every
    route behind the API key), the success response and every error also document the
    ``X-RateLimit-*`` headers, and the 429 its ``Retry-After``. ``example`` is a 200 body shown
    in the document; ``invalid`` lists the operation's 400 rules after the generic text.
    ``too_many`` is a 429 of another kind than the key's quota (the admin endpoint's failed
    attempts): its description, with ``Retry-After`` alone and no ``X-RateLimit-*`` headers."""
    responses: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorBody, "description": _ERROR_DESCRIPTIONS[status]}
        for status in statuses
    }
    if invalid is not None:
        responses[400]["description"] += " " + invalid
    if too_many is not None:
        responses[429]["description"] = too_many
        responses[429]["headers"] = {}
    elif 429 in statuses:
        responses[200] = {"headers": _RATE_LIMIT_HEADERS}
        for status in statuses:
            if status != 401:  # no valid key, no quota to report
                responses[status]["headers"] = dict(_RATE_LIMIT_HEADERS)
    if 429 in statuses:
        responses[429]["headers"]["Retry-After"] = {
            "description": "Seconds until the exceeded window resets (1–60 for the minute).",
            "schema": {"type": "integer"},
        }
    if example is not None:
        responses.setdefault(200, {})["content"] = {"application/json": {"example": example}}
    return responses


class MaterializedViews(BaseModel):
    """The derived views a refresh re-materialized."""

    views_refreshed: int = Field(description="How many derived views were re-materialized.")
    views: list[str] = Field(description="Their names.")


class Embeddings(BaseModel):
    """What a refresh embedded."""

    units_embedded: int = Field(description="Units embedded by this refresh (new since the last).")


class RefreshResult(BaseModel):
    """What an admin refresh did, and the snapshot it published."""

    status: str = Field(description="`ok` when the new snapshot is being served.")
    materialized_views: MaterializedViews = Field(description="The views re-materialized.")
    embeddings: Embeddings = Field(description="The units embedded.")
    snapshot: SnapshotInfo = Field(description="The snapshot the refresh published.")
