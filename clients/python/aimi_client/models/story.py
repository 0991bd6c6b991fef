from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.entity_ref import EntityRef
    from ..models.themes import Themes


T = TypeVar("T", bound="Story")


@_attrs_define
class Story:
    """Signals about the same event or development, grouped within a rolling window of days.

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
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_ref import EntityRef  # noqa: PLC0415
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

        story = cls(
            story_id=story_id,
            title=title,
            first_seen=first_seen,
            last_seen=last_seen,
            signal_count=signal_count,
            independent_sources=independent_sources,
            domains=domains,
            themes=themes,
            entities=entities,
        )

        story.additional_properties = d
        return story

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
