"""The market-pulse site: static HTML pages rendered from a snapshot at publish time.

Every number a page shows comes from the bytes the API serves (``readmodel.service``), parsed
once per page, plus the snapshot's trend tables for what the API does not serve: the exact
counts behind each label's test (k1, k2, the exposures, the p-values) and the themes' weekly
shares. Charts are inline SVG (``publishing.static.charts``); search is a Pagefind index built
over the pages afterwards (``publishing.static.build``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined, Template, meta, select_autoescape

from analytics.significance import RAW_P_VALUE
from analytics.themes import AXES, THEME_LABELS, Axis
from analytics.trends import ALPHA, MIN_LABELLED, MODES, Clock
from publishing.static import charts
from publishing.static.feeds import ATOM_TYPE, FEED_ENTRIES, Feed, feed_id_part, render_feed
from publishing.static.paths import (
    ALL_FEED,
    CSS_FILE,
    ENTITIES_PAGE,
    INDEX_PAGE,
    METHOD_PAGE,
    SEARCH_PAGE,
    entity_feed_path,
    entity_json_path,
    entity_page,
    signal_json_path,
    signal_page,
    story_feed_path,
    story_json_path,
    story_page,
    theme_feed_path,
    theme_json_path,
    theme_page,
    trending_feed_path,
    trending_json_path,
)
from publishing.static.reuse import PageKeys, SiteWriter
from readmodel import service
from readmodel.store import LoadedSnapshot, SignalQuery
from warehouse.snapshot import OpenedSnapshot

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_SIGNALS = 5  # signals shown on an entity or theme page, newest first
OVERVIEW_ROWS = 10  # rows of each trending list on the overview
# The overview's "top stories this week" (docs/site.md): stories with a signal in the 7 days up
# to ``as_of`` told by at least two independent sources (``GET /v1/stories?window=7d&
# min_sources=2``), ranked by independent sources, then newest activity; the first 10.
TOP_STORIES = 10
TOP_STORIES_DAYS = 7
TOP_STORIES_MIN_SOURCES = 2
AXIS_NAMES: dict[Axis, str] = {"value_chain": "Value chain", "market_force": "Market force"}
MODE_NOTES = {
    "rising": "share of voice up at least 1.25× on the 8 weeks before, by z-score",
    "hot": "most signals in the last complete week",
    "consistent": "active in at least 9 of the 12 weeks",
    "new": "notable within the last 4 complete weeks",
}


@dataclass(frozen=True)
class RateTest:
    """The counts behind one key's labels (docs/design.md §7): mentions ``k1`` in the last 4 weeks
    and ``k2`` in the 8 before, all signals ``n1`` and ``n2`` in those periods, the raw and
    the Benjamini–Hochberg adjusted p-value of the binomial test, and the weekly shares."""

    k1: int
    k2: int
    n1: int
    n2: int
    p: float | None
    p_adjusted: float | None
    family: int
    history: list[float]

    @property
    def recent_share(self) -> float:
        return self.k1 / self.n1 if self.n1 else 0.0

    @property
    def prior_share(self) -> float:
        return self.k2 / self.n2 if self.n2 else 0.0

    @property
    def ratio(self) -> float | None:
        return self.recent_share / self.prior_share if self.prior_share else None

    @property
    def expected(self) -> float:
        """The share of the 12 weeks' signals that fell in the last 4: what k1/(k1+k2) would
        be if the entity's rate had not changed."""
        total = self.n1 + self.n2
        return self.n1 / total if total else 0.0

    @property
    def variation(self) -> float:
        """Coefficient of variation of the weekly shares (population std / mean)."""
        values = np.asarray(self.history, dtype=np.float64)
        mean = float(values.mean()) if len(values) else 0.0
        return float(values.std()) / mean if mean else 0.0


def rate_tests(trends: pl.DataFrame) -> dict[str, RateTest]:
    """``RateTest`` per key of a snapshot's ``entity_trends`` / ``theme_trends`` table."""
    adjusted = trends["p_value"].to_list()
    family = sum(value is not None for value in adjusted)
    return {
        row["key"]: RateTest(
            row["recent_mentions"],
            row["prior_mentions"],
            row["recent_total"],
            row["prior_total"],
            row[RAW_P_VALUE],
            row["p_value"],
            family,
            list(row["share_of_voice_history"] or []),
        )
        for row in trends.iter_rows(named=True)
    }


def _day(value: str | None) -> str:
    return value[:10] if value else "—"


def p_text(value: float | None) -> str:
    """A p-value as the pages print it: three decimals, or two significant digits below
    0.001 (``4.2e-05``)."""
    if value is None:
        return "—"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("publishing.static", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(percent=charts.percent, day=_day, p=p_text, counted=charts.counted)
    env.globals.update(
        index_page=INDEX_PAGE,
        entities_page=ENTITIES_PAGE,
        search_page=SEARCH_PAGE,
        method_page=METHOD_PAGE,
        css_file=CSS_FILE,
        trending_json=trending_json_path,
        entity_page=entity_page,
        theme_page=theme_page,
        signal_page=signal_page,
        story_page=story_page,
        entity_json=entity_json_path,
        theme_json=theme_json_path,
        signal_json=signal_json_path,
        story_json=story_json_path,
        story_feed=story_feed_path,
        sparkline=charts.sparkline,
        share_chart=charts.share_chart,
        axis_names=AXIS_NAMES,
        alpha=ALPHA,
        min_labelled=MIN_LABELLED,
        top_stories_rule={
            "days": TOP_STORIES_DAYS,
            "min_sources": TOP_STORIES_MIN_SOURCES,
            "shown": TOP_STORIES,
        },
    )
    return env


def card_stories(stories: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Each signal's story, as its card names it (docs/api.md §2.2): the one story listing it,
    or for a roundup listed by several (its items in different stories), the one whose part
    holds most of its units, the first id on a tie; ``stories`` are served story details."""
    best: dict[str, tuple[int, str, Mapping[str, Any]]] = {}
    for story in stories:
        held = {part["signal_id"]: len(part["units"]) for part in story.get("parts") or []}
        for signal in story["signals"]:
            key = (-held.get(signal["signal_id"], 0), story["story_id"])
            if signal["signal_id"] not in best or key < best[signal["signal_id"]][:2]:
                best[signal["signal_id"]] = (*key, story)
    return {signal_id: story for signal_id, (_, _, story) in best.items()}


@dataclass(frozen=True)
class Page:
    path: str  # relative to the site root
    template: str
    context: dict[str, Any]


class SiteData:
    """What the pages are made of, read from one snapshot: parsed API answers and the trend
    tables' counts."""

    def __init__(self, snapshot: LoadedSnapshot, opened: OpenedSnapshot) -> None:
        self.snapshot = snapshot
        self.clock = Clock(snapshot.as_of)
        self.weeks = [week.strftime("%b %d") for week in self.clock.week_starts]
        self.entity_tests = rate_tests(opened.read_table("entity_trends"))
        self.theme_tests = rate_tests(opened.read_table("theme_trends"))
        self.reviewed = self._reviewed_entities()
        self.with_page = {entity["entity_id"] for entity in self.reviewed}
        # two columns of the largest table, not the whole of it
        changes = pl.read_parquet(opened.table_path("signals"), columns=["signal_id", "changed_at"])
        self.changed_at: dict[str, datetime] = dict(changes.iter_rows())
        self._details: dict[str, dict[str, Any]] = {}
        # the stories as served, newest activity first, and each signal's story: read from the
        # snapshot's story table (a story's detail lists its signals)
        stories = snapshot.stories
        self.stories: list[dict[str, Any]] = [
            orjson.loads(stories.details[story_id]) for story_id in stories.story_ids
        ]
        self.story_of: dict[str, dict[str, Any]] = {
            signal_id: {
                "story_id": story["story_id"],
                "title": story["title"],
                "signal_count": story["signal_count"],
            }
            for signal_id, story in card_stories(self.stories).items()
        }
        self._row_of: dict[str, int] | None = None

    def _reviewed_entities(self) -> list[dict[str, Any]]:
        """The entity list's default answer, every page of it: the reviewed set."""
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = orjson.loads(
                service.list_entities(self.snapshot, cursor=cursor, limit=service.MAX_LIMIT)
            )
            found.extend(page["entities"])
            cursor = page["next_cursor"]
            if not page["has_more"]:
                return found

    def history(self, entity_id: str) -> list[float]:
        """The entity's 12 weekly shares, from its trending item: the one served form of an
        entity that carries them (for every entity, ranked or not)."""
        row = self.snapshot.entities.row_of[entity_id]
        trend = orjson.loads(self.snapshot.entities.trending_json[row])["trend"]
        history: list[float] = trend["share_of_voice_history"]
        return history

    def latest_signals(
        self, *, entity: str | None = None, theme: str | None = None, limit: int = LATEST_SIGNALS
    ) -> list[dict[str, Any]]:
        """The newest signals of an entity (and its family) or a theme, as full details."""
        return [self.detail(card["signal_id"]) for card in self.latest_cards(entity, theme, limit)]

    def latest_cards(
        self, entity: str | None = None, theme: str | None = None, limit: int = LATEST_SIGNALS
    ) -> list[dict[str, Any]]:
        cards: list[dict[str, Any]] = orjson.loads(
            service.list_signals(self.snapshot, entity=entity, theme=theme, limit=limit)
        )["signals"]
        return cards

    def changed_signals(
        self, *, entity_ids: frozenset[str] | None = None, theme: str | None = None
    ) -> list[dict[str, Any]]:
        """The signals changed last (new or updated: the change feed's order, latest change
        first) about any of ``entity_ids`` or carrying ``theme``, as full details: a feed's
        entries, so an update sent by a webhook reaches a feed reader too."""
        query = SignalQuery(entity_ids=entity_ids, theme=theme)
        ids = self.snapshot.signal_ids
        rows = self.snapshot.latest_changed_rows(query, FEED_ENTRIES)
        return [self.detail(ids[row]) for row in rows]

    def story_signals(self, story: Mapping[str, Any]) -> list[dict[str, Any]]:
        """A story's signals changed last, the latest change first (at most a feed's)."""
        ids = [signal["signal_id"] for signal in story["signals"]]
        changed = sorted(ids, key=lambda sid: self.changed_at.get(sid, _EPOCH), reverse=True)
        return [self.detail(sid) for sid in changed[:FEED_ENTRIES]]

    def family(self, entity_id: str) -> frozenset[str]:
        """The entity and its family, as the ``entity`` filter matches them."""
        return frozenset(self.snapshot.entity_index.family(entity_id))

    def detail(self, signal_id: str) -> dict[str, Any]:
        """The signal's detail as the API answers it (parsed once per build)."""
        found = self._details.get(signal_id)
        if found is None:
            found = self._details[signal_id] = orjson.loads(
                service.get_signal(self.snapshot, signal_id)
            )
        return found

    def card(self, signal_id: str) -> dict[str, Any]:
        """The signal's card as the signal list serves it (with its central statement)."""
        if self._row_of is None:
            self._row_of = {sid: row for row, sid in enumerate(self.snapshot.signal_ids)}
        card: dict[str, Any] = orjson.loads(self.snapshot.cards[self._row_of[signal_id]])
        return card

    def top_stories(self) -> list[dict[str, Any]]:
        """The overview's top stories this week: ``GET /v1/stories?window=7d&min_sources=2``,
        every page of it, ranked by independent sources, then newest activity (the API's order,
        which the stable sort keeps among equals); the first ``TOP_STORIES``."""
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = orjson.loads(
                service.list_stories(
                    self.snapshot,
                    window=f"{TOP_STORIES_DAYS}d",
                    min_sources=TOP_STORIES_MIN_SOURCES,
                    cursor=cursor,
                    limit=service.MAX_LIMIT,
                )
            )
            found.extend(page["stories"])
            cursor = page["next_cursor"]
            if not page["has_more"]:
                break
        found.sort(key=lambda story: -story["independent_sources"])
        return found[:TOP_STORIES]

    def weekly_volume(self) -> list[int]:
        """Served signals per week of the 12-week window, oldest first."""
        published = -self.snapshot.neg_published_us
        edges = [_us(week) for week in self.clock.week_starts] + [_us(self.clock.window_end)]
        counts, _ = np.histogram(published, bins=np.asarray(edges, dtype=np.int64))
        return [int(c) for c in counts]

    def theme_matrix(self, themes: list[dict[str, Any]]) -> list[list[int]]:
        """Signals carrying both themes, for every pair, from the themes' related lists."""
        labels = [theme["label"] for theme in themes]
        index = {label: i for i, label in enumerate(labels)}
        matrix = [[0] * len(labels) for _ in labels]
        for theme in themes:
            for other in theme["related_themes"]:
                matrix[index[theme["label"]]][index[other["label"]]] = other["co_occurrence_count"]
        for i, theme in enumerate(themes):
            matrix[i][i] = theme["signal_count"]
        return matrix


def _us(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


def pages(data: SiteData) -> Iterator[Page]:
    """Every page of the site, with the context its template reads: the overview, the method,
    search and entity-list pages, then one page per reviewed entity, theme, signal and story."""
    themes = [
        orjson.loads(service.get_theme(data.snapshot, axis, label))
        for axis in AXES
        for label in THEME_LABELS[axis]
    ]
    yield _overview_page(data, themes)
    yield Page(METHOD_PAGE, "method.html.j2", {"title": "Method"})
    yield Page(SEARCH_PAGE, "search.html.j2", {"title": "Search"})
    yield Page(
        ENTITIES_PAGE,
        "entities.html.j2",
        {"title": "Entities", "entities": data.reviewed},
    )
    yield from _entity_pages(data)
    yield from _theme_pages(data, themes)
    yield from _signal_pages(data)
    yield from _story_pages(data)


def _overview_page(data: SiteData, themes: list[dict[str, Any]]) -> Page:
    """The overview: each trending mode's first rows, the feeds, the themes with their tests,
    the weekly volume, the themes' co-occurrence heatmap and the top stories of the week."""
    snapshot = data.snapshot
    trending = {
        mode: orjson.loads(service.trending_entities(snapshot, mode))["data"] for mode in MODES
    }
    catalog = snapshot.entities
    # the registry's type beside each item ("location"), where the API's type_primary folds
    # places, events and policies into "Other"
    entity_types = {
        item["entity_id"]: str(catalog.types[catalog.row_of[item["entity_id"]]])
        for items in trending.values()
        for item in items[:OVERVIEW_ROWS]
    }
    volume = data.weekly_volume()
    matrix = data.theme_matrix(themes)
    return Page(
        INDEX_PAGE,
        "overview.html.j2",
        {
            "title": "Market pulse",
            "trending": {mode: items[:OVERVIEW_ROWS] for mode, items in trending.items()},
            "mode_notes": MODE_NOTES,
            "entity_types": entity_types,
            "feeds": [feed_link(ALL_FEED, "All signals")]
            + [feed_link(trending_feed_path(m), f"Trending: {m}") for m in MODES],
            "themes": themes,
            "theme_tests": data.theme_tests,
            "volume_chart": charts.bar_chart(
                volume, data.weeks, label=f"Signals per week, {sum(volume)} in 12 weeks"
            ),
            "volume": list(zip(data.weeks, volume, strict=True)),
            "heatmap": charts.heatmap(
                [t["label"] for t in themes],
                matrix,
                label="Signals carrying both themes, for each pair of the 12 themes",
            ),
            "matrix": matrix,
            "with_page": data.with_page,
            "top_stories": data.top_stories(),
        },
    )


def _entity_pages(data: SiteData) -> Iterator[Page]:
    """A page per reviewed entity: its profile, its label test and weekly shares, its newest
    signals and its feed."""
    for entity in data.reviewed:
        entity_id = entity["entity_id"]
        profile = orjson.loads(service.entity_profile(data.snapshot, entity_id))
        yield Page(
            entity_page(entity_id),
            "entity.html.j2",
            {
                "title": profile["name"],
                "entity": profile,
                "test": data.entity_tests.get(entity_id),
                "history": data.history(entity_id),
                "weeks": data.weeks,
                "signals": data.latest_signals(entity=entity_id),
                "with_page": data.with_page,
                "themes_of": _themes_of(profile),
                "feeds": [feed_link(entity_feed_path(entity_id), profile["name"])],
            },
        )


def _theme_pages(data: SiteData, themes: list[dict[str, Any]]) -> Iterator[Page]:
    """A page per theme (``themes``, as the API answers each): its label test and weekly
    shares, its top 10 entities, its newest signals and its feed."""
    for theme in themes:
        label = theme["label"]
        top = orjson.loads(service.list_entities(data.snapshot, theme=label, limit=10))["entities"]
        test = data.theme_tests.get(label)
        yield Page(
            theme_page(theme["axis"], label),
            "theme.html.j2",
            {
                "title": label,
                "theme": theme,
                "test": test,
                "history": test.history if test else [0.0] * len(data.weeks),
                "weeks": data.weeks,
                "top_entities": top,
                "signals": data.latest_signals(theme=label),
                "with_page": data.with_page,
                "feeds": [feed_link(theme_feed_path(theme["axis"], label), label)],
            },
        )


def _signal_pages(data: SiteData) -> Iterator[Page]:
    """A page per served signal: its detail as the API answers it and its story."""
    for signal_id in data.snapshot.signal_ids:
        detail = orjson.loads(service.get_signal(data.snapshot, signal_id))
        yield Page(
            signal_page(signal_id),
            "signal.html.j2",
            {
                "title": detail["title"],
                "signal": detail,
                "with_page": data.with_page,
                "story": data.story_of.get(signal_id),
            },
        )


def _story_pages(data: SiteData) -> Iterator[Page]:
    """A page per story: the story, its signals' cards and its feed."""
    for story in data.stories:
        story_id = story["story_id"]
        yield Page(
            story_page(story_id),
            "story.html.j2",
            {
                "title": story["title"],
                "story": story,
                "cards": [data.card(signal["signal_id"]) for signal in story["signals"]],
                # a roundup's units on this story (issue 45), by its signal id
                "parts": {part["signal_id"]: part for part in story.get("parts", ())},
                "with_page": data.with_page,
                "feeds": [feed_link(story_feed_path(story_id), f"Story: {story['title']}")],
            },
        )


def _themes_of(profile: Mapping[str, Any]) -> list[str]:
    return [
        label for axis in AXES for label, count in profile[f"{axis}_distribution"].items() if count
    ]


def template_reads(env: Environment, template: str) -> frozenset[str]:
    """The context names ``template`` reads, itself or through the templates it extends,
    includes or imports (``jinja2.meta``)."""
    names: set[str] = set()
    todo, seen = [template], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert env.loader is not None
        parsed = env.parse(env.loader.get_source(env, name)[0])
        names |= meta.find_undeclared_variables(parsed)
        todo.extend(ref for ref in meta.find_referenced_templates(parsed) if ref is not None)
    return frozenset(names)


@dataclass(frozen=True)
class Rendered:
    pages: int  # rendered or linked
    feeds: int  # Atom feeds, written or linked
    feeds_seconds: float


def feed_link(path: str, title: str) -> dict[str, str]:
    """What a page's ``<link rel="alternate" type="application/atom+xml">`` names."""
    return {"path": path, "title": title, "type": ATOM_TYPE}


def site_feeds(data: SiteData) -> Iterator[tuple[Feed, list[dict[str, Any]]]]:
    """Every feed with its signals (details, newest first): the whole service, each trending
    mode (the newest signals of its listed entities), each entity with a page, each theme, each
    story."""
    snapshot = data.snapshot
    yield (
        Feed(
            ALL_FEED,
            "urn:aimi:feed:all",
            "aimi: all signals",
            "The newest verified signals about the AI economy.",
            INDEX_PAGE,
        ),
        data.changed_signals(),
    )
    for mode in MODES:
        listed = orjson.loads(service.trending_entities(snapshot, mode))["data"]
        family = frozenset(e for item in listed for e in data.family(item["entity_id"]))
        yield (
            Feed(
                trending_feed_path(mode),
                f"urn:aimi:feed:trending:{mode}",
                f"aimi: trending ({mode})",
                f"The newest signals about the entities trending ({mode}).",
                INDEX_PAGE,
            ),
            data.changed_signals(entity_ids=family) if family else [],
        )
    for entity in data.reviewed:
        entity_id = entity["entity_id"]
        yield (
            Feed(
                entity_feed_path(entity_id),
                f"urn:aimi:feed:entity:{feed_id_part(entity_id)}",
                f"aimi: {entity['name']}",
                f"The newest signals about {entity['name']}.",
                entity_page(entity_id),
            ),
            data.changed_signals(entity_ids=data.family(entity_id)),
        )
    for axis in AXES:
        for label in THEME_LABELS[axis]:
            yield (
                Feed(
                    theme_feed_path(axis, label),
                    f"urn:aimi:feed:theme:{axis}:{feed_id_part(label)}",
                    f"aimi: {label}",
                    f"The newest signals carrying the theme {label}.",
                    theme_page(axis, label),
                ),
                data.changed_signals(theme=label),
            )
    for story in data.stories:
        story_id = story["story_id"]
        publishers = story["independent_sources"]
        yield (
            Feed(
                story_feed_path(story_id),
                f"urn:aimi:feed:story:{feed_id_part(story_id)}",
                f"aimi story: {story['title']}",
                f"The signals of one story ({publishers} independent "
                f"{'publisher' if publishers == 1 else 'publishers'}), newest first; a roundup "
                "shows only its items on this story.",
                story_page(story_id),
            ),
            [story_entry(detail, story) for detail in data.story_signals(story)],
        )


def story_entry(detail: dict[str, Any], story: Mapping[str, Any]) -> dict[str, Any]:
    """A signal's detail as a story's feed shows it: a roundup's (issue 45) with only its
    units that report the story's event (the story's ``parts``), any other signal whole."""
    units = {
        unit["unit_id"]
        for part in story.get("parts", ())
        if part["signal_id"] == detail["signal_id"]
        for unit in part["units"]
    }
    if not units:
        return detail
    return {**detail, "units": [u for u in detail["units"] if u["id"] in units]}


def write_feeds(data: SiteData, writer: SiteWriter) -> int:
    """Every feed of ``site_feeds`` through ``writer`` (an unchanged feed is linked)."""
    pages = {signal_id: signal_page(signal_id) for signal_id in data.snapshot.signal_ids}
    count = 0
    for feed, signals in site_feeds(data):
        writer.put(feed.path, render_feed(feed, signals, data.changed_at, pages))
        count += 1
    return count


def render_site(snapshot: LoadedSnapshot, opened: OpenedSnapshot, writer: SiteWriter) -> Rendered:
    """Every page and the style sheet, through ``writer``: a page whose key (its template and
    everything given to it) is the previous build's is linked, not rendered."""
    env = environment()
    keys = PageKeys(env)
    shared = {
        "snapshot_id": snapshot.snapshot_id,
        "as_of": snapshot.as_of.isoformat(),
        "built_at": snapshot.built_at.isoformat(),
        "window": _window_text(Clock(snapshot.as_of)),
    }
    # Each page is given only the snapshot-wide values its template prints: only the overview
    # names the snapshot and its build time, so a page that prints neither (nor the date) keeps
    # its bytes and its key from one build to the next, and is linked instead of rendered.
    shared_by_template: dict[str, list[str]] = {}
    count = 0
    data = SiteData(snapshot, opened)
    for page in pages(data):
        if page.template not in shared_by_template:
            reads = template_reads(env, page.template)
            shared_by_template[page.template] = [name for name in shared if name in reads]
        context = {
            **{name: shared[name] for name in shared_by_template[page.template]},
            **page.context,
            "root": "../" * page.path.count("/"),
            "path": page.path,
        }
        render = partial(_render, env.get_template(page.template), context)
        writer.page(page.path, keys.key(page.template, context), render)
        count += 1
    writer.put(CSS_FILE, (Path(__file__).parent / CSS_FILE).read_bytes())
    started = time.perf_counter()
    feeds = write_feeds(data, writer)
    return Rendered(count, feeds, round(time.perf_counter() - started, 2))


def _render(template: Template, context: Mapping[str, Any]) -> bytes:
    return template.render(**context).encode()


def _window_text(clock: Clock) -> str:
    """The trend window in words: its first Monday and the Sunday that ends it."""
    last_day = clock.window_end - timedelta(days=1)
    return f"{clock.window_start:%Y-%m-%d} to {last_day:%Y-%m-%d}"
