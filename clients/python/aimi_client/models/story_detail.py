from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entity_ref import EntityRef
    from ..models.story_part import StoryPart
    from ..models.story_signal import StorySignal
    from ..models.themes import Themes


T = TypeVar("T", bound="StoryDetail")


@_attrs_define
class StoryDetail:
    """One story with its signals.

    Attributes:
        story_id (str): Stable id, `sty_…`: a story keeps it as it grows across builds.
        title (str): A title naming its event: its most central signal's own title when that names what the story's
            texts name, else the member title naming most of it, else the first sentence of the central signal's synopsis;
            never a title used on three or more days (a digest's "not much happened today", a recurring heading).
        first_seen (datetime.datetime): Publication time of its earliest signal (UTC).
        last_seen (datetime.datetime): Publication time of its latest signal (UTC).
        signal_count (int): Its signals.
        independent_sources (int): Distinct publishers — the author when the source names one (a name, not a sentence or
            link text), else its domain — with chapters and parts of one source, and reprints and near-copies of an earlier
            signal, counted once. A story of one publisher has 1, however many signals it holds.
        domains (list[str]): Distinct source domains, sorted.
        themes (Themes): A signal's theme labels on the two axes (each can be empty).
        entities (list[EntityRef]): Entities its signals mention.
        signals (list[StorySignal]): Its signals, newest first.
        parts (list[StoryPart] | Unset): Per roundup among its signals, the roundup's units that report this story's
            event (omitted when none).
        merged_from (list[str] | Unset): Ids of earlier stories this one absorbed when a rebuild merged them (omitted
            when none).
        split_from (str | Unset): The earlier story this one was cut from, whose id went to another part (omitted when
            none).
    """

    story_id: str
    title: str
    first_seen: datetime.datetime
    last_seen: datetime.datetime
    signal_count: int
    independent_sources: int
    domains: list[str]
    themes: Themes
    entities: list[EntityRef]
    signals: list[StorySignal]
    parts: list[StoryPart] | Unset = UNSET
    merged_from: list[str] | Unset = UNSET
    split_from: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        story_id = self.story_id

        title = self.title

        first_seen = self.first_seen.isoformat()

        last_seen = self.last_seen.isoformat()

        signal_count = self.signal_count

        independent_sources = self.independent_sources

        domains = self.domains

        themes = self.themes.to_dict()

        entities = []
        for entities_item_data in self.entities:
            entities_item = entities_item_data.to_dict()
            entities.append(entities_item)

        signals = []
        for signals_item_data in self.signals:
            signals_item = signals_item_data.to_dict()
            signals.append(signals_item)

        parts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.parts, Unset):
            parts = []
            for parts_item_data in self.parts:
                parts_item = parts_item_data.to_dict()
                parts.append(parts_item)

        merged_from: list[str] | Unset = UNSET
        if not isinstance(self.merged_from, Unset):
            merged_from = self.merged_from

        split_from = self.split_from

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "story_id": story_id,
                "title": title,
                "first_seen": first_seen,
                "last_seen": last_seen,
                "signal_count": signal_count,
                "independent_sources": independent_sources,
                "domains": domains,
                "themes": themes,
                "entities": entities,
                "signals": signals,
            }
        )
        if parts is not UNSET:
            field_dict["parts"] = parts
        if merged_from is not UNSET:
            field_dict["merged_from"] = merged_from
        if split_from is not UNSET:
            field_dict["split_from"] = split_from

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_ref import EntityRef  # noqa: PLC0415
        from ..models.story_part import StoryPart  # noqa: PLC0415
        from ..models.story_signal import StorySignal  # noqa: PLC0415
        from ..models.themes import Themes  # noqa: PLC0415

        d = dict(src_dict)
        story_id = d.pop("story_id")

        title = d.pop("title")

        first_seen = datetime.datetime.fromisoformat(d.pop("first_seen"))

        last_seen = datetime.datetime.fromisoformat(d.pop("last_seen"))

        signal_count = d.pop("signal_count")

        independent_sources = d.pop("independent_sources")

        domains = cast(list[str], d.pop("domains"))

        themes = Themes.from_dict(d.pop("themes"))

        entities = []
        _entities = d.pop("entities")
        for entities_item_data in _entities:
            entities_item = EntityRef.from_dict(entities_item_data)

            entities.append(entities_item)

        signals = []
        _signals = d.pop("signals")
        for signals_item_data in _signals:
            signals_item = StorySignal.from_dict(signals_item_data)

            signals.append(signals_item)

        _parts = d.pop("parts", UNSET)
        parts: list[StoryPart] | Unset = UNSET
        if _parts is not UNSET:
            parts = []
            for parts_item_data in _parts:
                parts_item = StoryPart.from_dict(parts_item_data)

                parts.append(parts_item)

        merged_from = cast(list[str], d.pop("merged_from", UNSET))

        split_from = d.pop("split_from", UNSET)

        story_detail = cls(
            story_id=story_id,
            title=title,
            first_seen=first_seen,
            last_seen=last_seen,
            signal_count=signal_count,
            independent_sources=independent_sources,
            domains=domains,
            themes=themes,
            entities=entities,
            signals=signals,
            parts=parts,
            merged_from=merged_from,
            split_from=split_from,
        )

        story_detail.additional_properties = d
        return story_detail

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
