"""The entity, theme and story parts of a loaded snapshot: pre-rendered JSON per entity, theme
and story, and the columns their lists filter and sort on, laid out for keyset paging.

Every list is a walk over a precomputed order: for the entity list one permutation per sort,
for trending one per mode (its ranks were fixed at build time). A request builds one boolean
mask from its filters and takes the first rows of the order that pass it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.entities import fold_name
from analytics.trends import MODES, Mode
from readmodel.cursor import EntityKey, StoryKey

EntitySort = Literal["signal_count", "first_seen", "trend"]
ENTITY_SORTS: tuple[EntitySort, ...] = get_args(EntitySort)
LABEL_FILTERS = ("direction", "confidence", "stability", "scale", "notability")
# Sort value of an entity without signals: it has no first_seen and sorts last (one above the
# minimum, so that negating it cannot overflow).
_NO_TIME = np.iinfo(np.int64).min + 1

BoolArray = npt.NDArray[np.bool_]
Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class EntityQuery:
    """The entity list's filters; ``name`` is already folded (``fold_name``), ``theme``
    canonical."""

    sort: EntitySort = "signal_count"
    min_signals: int = 2
    type: str | None = None
    name: str | None = None
    theme: str | None = None
    labels: tuple[tuple[str, str], ...] = ()  # (label field, wanted value)
    after: EntityKey | None = None


@dataclass(frozen=True)
class EntityPage:
    items: list[bytes]
    has_more: bool
    last: EntityKey | None  # set only when has_more


@dataclass(frozen=True, eq=False)
class EntityCatalog:
    """Rows in ``entity_id`` order; ``orders[sort]`` lists the rows in that sort's order and
    ``sort_keys[sort]`` their ``(-value, entity_id)`` keys, ascending, for ``bisect``."""

    entity_ids: list[str]
    folded_names: list[str]
    row_of: dict[str, int]
    types: npt.NDArray[np.str_]
    type_primary: npt.NDArray[np.str_]
    reviewed: BoolArray
    signal_count: Int64Array
    labels: dict[str, npt.NDArray[np.object_]]
    theme_rows: dict[str, BoolArray]
    values: dict[EntitySort, Int64Array]
    orders: dict[EntitySort, Int64Array]
    sort_keys: dict[EntitySort, list[tuple[int, str]]]
    trending_orders: dict[Mode, Int64Array]
    list_json: list[bytes]
    profile_json: list[bytes]
    trending_json: list[bytes]

    @classmethod
    def from_frame(cls, frame: pl.DataFrame) -> EntityCatalog:
        frame = frame.sort("entity_id")
        entity_ids: list[str] = frame["entity_id"].to_list()
        values: dict[EntitySort, Int64Array] = {
            "signal_count": frame["signal_count"].to_numpy().astype(np.int64),
            "first_seen": frame["first_seen"]
            .dt.epoch("us")
            .fill_null(_NO_TIME)
            .to_numpy()
            .astype(np.int64),
            "trend": frame["recent_mentions"].to_numpy().astype(np.int64),
        }
        orders: dict[EntitySort, Int64Array] = {}
        sort_keys: dict[EntitySort, list[tuple[int, str]]] = {}
        ids = np.asarray(entity_ids, dtype=object)
        for sort, value in values.items():
            # value descending, then entity_id ascending; rows are already in id order
            order = np.lexsort((np.arange(len(value)), -value)).astype(np.int64)
            orders[sort] = order
            sort_keys[sort] = list(zip((-value[order]).tolist(), ids[order].tolist(), strict=True))
        theme_rows: dict[str, BoolArray] = {}
        for row, labels in enumerate(frame["themes"].to_list()):
            for label in labels or []:
                theme_rows.setdefault(label, np.zeros(frame.height, dtype=bool))[row] = True
        trending_orders: dict[Mode, Int64Array] = {}
        for mode in MODES:
            ranks = frame[f"rank_{mode}"].to_numpy()
            ranked = np.flatnonzero(~np.isnan(ranks.astype(np.float64)))
            trending_orders[mode] = ranked[np.argsort(ranks[ranked], kind="stable")].astype(
                np.int64
            )
        return cls(
            entity_ids=entity_ids,
            folded_names=[fold_name(name) for name in frame["name"].to_list()],
            row_of={entity_id: row for row, entity_id in enumerate(entity_ids)},
            types=frame["type"].to_numpy().astype(np.str_),
            type_primary=frame["type_primary"].to_numpy().astype(np.str_),
            reviewed=frame["reviewed"].fill_null(False).to_numpy().astype(bool),
            signal_count=values["signal_count"],
            labels={name: frame[name].to_numpy().astype(object) for name in LABEL_FILTERS},
            theme_rows=theme_rows,
            values=values,
            orders=orders,
            sort_keys=sort_keys,
            trending_orders=trending_orders,
            list_json=frame["list_json"].to_list(),
            profile_json=frame["profile_json"].to_list(),
            trending_json=frame["trending_json"].to_list(),
        )

    def __len__(self) -> int:
        return len(self.entity_ids)

    def _theme_mask(self, theme: str) -> BoolArray:
        return self.theme_rows.get(theme, np.zeros(len(self), dtype=bool))

    def _mask(self, query: EntityQuery) -> BoolArray:
        mask = self.signal_count >= query.min_signals
        if query.min_signals >= 2:
            # The default list is the human-reviewed set; min_signals=1 opens it to
            # unreviewed discovered names too
            # (docs/decisions/0028-the-reviewed-set-and-aimi-entities-review.md).
            mask &= self.reviewed
        if query.type is not None:
            mask &= self.types == query.type
        if query.theme is not None:
            mask &= self._theme_mask(query.theme)
        for name, wanted in query.labels:
            mask &= self.labels[name] == wanted
        return mask

    def page(self, query: EntityQuery, limit: int) -> EntityPage:
        """Up to ``limit`` list-form profiles after ``query.after`` in ``query.sort`` order."""
        order = self.orders[query.sort]
        start = 0
        if query.after is not None:
            start = bisect_right(
                self.sort_keys[query.sort], (-query.after.value, query.after.entity_id)
            )
        rows = order[start:]
        rows = rows[self._mask(query)[rows]]
        page: list[int] = []
        for row in rows:
            if query.name is None or query.name in self.folded_names[row]:
                page.append(int(row))
                if len(page) > limit:
                    break
        has_more = len(page) > limit
        page = page[:limit]
        last = None
        if has_more:
            row = page[-1]
            last = EntityKey(int(self.values[query.sort][row]), self.entity_ids[row])
        return EntityPage([self.list_json[row] for row in page], has_more, last)

    def trending(
        self, mode: Mode, limit: int, *, theme: str | None, type_primary: str | None
    ) -> list[bytes]:
        rows = self.trending_orders[mode]
        if theme is not None:
            rows = rows[self._theme_mask(theme)[rows]]
        if type_primary is not None:
            rows = rows[self.type_primary[rows] == type_primary]
        return [self.trending_json[row] for row in rows[:limit]]


@dataclass(frozen=True, eq=False)
class ThemeCatalog:
    """The 12 themes in canonical order, list form and full form."""

    axes: list[str]
    labels: list[str]
    list_json: list[bytes]
    theme_json: dict[tuple[str, str], bytes]

    @classmethod
    def from_frame(cls, frame: pl.DataFrame) -> ThemeCatalog:
        frame = frame.sort("position")
        axes: list[str] = frame["axis"].to_list()
        labels: list[str] = frame["label"].to_list()
        return cls(
            axes=axes,
            labels=labels,
            list_json=frame["list_json"].to_list(),
            theme_json=dict(zip(zip(axes, labels, strict=True), frame["theme_json"], strict=True)),
        )

    def listed(self, axis: str | None) -> list[bytes]:
        return [
            body
            for body, own_axis in zip(self.list_json, self.axes, strict=True)
            if axis is None or own_axis == axis
        ]


@dataclass(frozen=True)
class StoryQuery:
    """The story list's filters: any of ``entity_ids`` (an entity and its family), a canonical
    ``theme``, activity (``last_seen``) at or after ``active_from_us``, at least
    ``min_sources`` independent sources."""

    entity_ids: frozenset[str] | None = None
    theme: str | None = None
    active_from_us: int | None = None
    min_sources: int = 1
    after: StoryKey | None = None


@dataclass(frozen=True)
class StoryPage:
    items: list[bytes]
    has_more: bool
    last: StoryKey | None  # set only when has_more


@dataclass(frozen=True, eq=False)
class StoryCatalog:
    """The snapshot's stories, newest activity first: rows in ``(last_seen
    descending, story_id)`` order, ``keys`` their ``(-last_seen_us, story_id)`` ascending, for
    ``bisect``."""

    story_ids: list[str]
    keys: list[tuple[int, str]]
    last_seen_us: Int64Array
    sources: Int64Array
    entity_rows: dict[str, Int64Array]
    theme_rows: dict[str, Int64Array]
    list_json: list[bytes]
    details: dict[str, bytes]

    @classmethod
    def from_frame(cls, frame: pl.DataFrame) -> StoryCatalog:
        frame = frame.with_columns(pl.col("last_seen").dt.epoch("us").alias("_us")).sort(
            ["_us", "story_id"], descending=[True, False]
        )
        story_ids: list[str] = frame["story_id"].to_list()
        last_seen_us = frame["_us"].to_numpy().astype(np.int64)

        def rows_by(column: str) -> dict[str, Int64Array]:
            grouped: dict[str, list[int]] = {}
            for row, members in enumerate(frame[column].to_list()):
                for member in members or []:
                    grouped.setdefault(member, []).append(row)
            return {k: np.asarray(v, dtype=np.int64) for k, v in grouped.items()}

        return cls(
            story_ids=story_ids,
            keys=[(-int(us), sid) for us, sid in zip(last_seen_us, story_ids, strict=True)],
            last_seen_us=last_seen_us,
            sources=frame["independent_sources"].to_numpy().astype(np.int64),
            entity_rows=rows_by("entity_ids"),
            theme_rows=rows_by("themes"),
            list_json=frame["list_json"].to_list(),
            details=dict(zip(story_ids, frame["detail_json"].to_list(), strict=True)),
        )

    @classmethod
    def empty(cls) -> StoryCatalog:
        """A snapshot published before stories existed serves none."""
        return cls([], [], np.empty(0, np.int64), np.empty(0, np.int64), {}, {}, [], {})

    def __len__(self) -> int:
        return len(self.story_ids)

    def page(self, query: StoryQuery, limit: int) -> StoryPage:
        """Up to ``limit`` list-form stories after ``query.after``, newest activity first."""
        mask = self.sources >= query.min_sources
        if query.active_from_us is not None:
            mask &= self.last_seen_us >= query.active_from_us
        if query.theme is not None:
            allowed = np.zeros(len(self), dtype=bool)
            allowed[self.theme_rows.get(query.theme, np.empty(0, np.int64))] = True
            mask &= allowed
        if query.entity_ids is not None:
            allowed = np.zeros(len(self), dtype=bool)
            for entity_id in query.entity_ids:
                allowed[self.entity_rows.get(entity_id, np.empty(0, np.int64))] = True
            mask &= allowed
        start = 0
        if query.after is not None:
            start = bisect_right(self.keys, (-query.after.last_seen_us, query.after.story_id))
        rows = np.flatnonzero(mask[start:])[: limit + 1] + start
        page = rows.tolist()
        has_more = len(page) > limit
        page = page[:limit]
        last = None
        if has_more:
            row = page[-1]
            last = StoryKey(int(self.last_seen_us[row]), self.story_ids[row])
        return StoryPage([self.list_json[row] for row in page], has_more, last)
