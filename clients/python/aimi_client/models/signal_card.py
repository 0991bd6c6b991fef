from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.signal_card_content_type import SignalCardContentType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entity_ref import EntityRef
    from ..models.themes import Themes


T = TypeVar("T", bound="SignalCard")


@_attrs_define
class SignalCard:
    """An item of the signal list: the shared fields plus the central statement.

    Attributes:
        signal_id (str): Unique signal id; `GET /v1/signals/{signal_id}` reads it.
        title (str): Title of the full source (for a podcast segment: `<Episode> — <Chapter>`), not necessarily of the
            extracted segment.
        url (str): Link to the full source; a podcast segment's carries the audio span as `t=<start_seconds>` and
            `end=<end_seconds>`.
        published_at (datetime.datetime): Publication time of the full source (UTC).
        content_type (SignalCardContentType): `analysis` (an argued position) or `event` (a factual report).
        domain (str): Registrable domain of the source, e.g. `example.com`.
        verified_unit_count (int): Number of verified units; equals the length of `units` in the detail.
        themes (Themes): A signal's theme labels on the two axes (each can be empty).
        entities (list[EntityRef]): Entities the signal mentions.
        story_id (None | str | Unset): The story the signal belongs to (`GET /v1/stories/{story_id}`); null when it is
            in none (published after the snapshot's `as_of`). A roundup split into its items is in the story of each: this
            is the one holding most of its units (the first id on a tie).
        thesis (str | Unset): Central statement of an analysis signal, whole; absent on events.
        synopsis (str | Unset): Central statement of an event signal, whole; absent on analyses.
    """

    signal_id: str
    title: str
    url: str
    published_at: datetime.datetime
    content_type: SignalCardContentType
    domain: str
    verified_unit_count: int
    themes: Themes
    entities: list[EntityRef]
    story_id: None | str | Unset = UNSET
    thesis: str | Unset = UNSET
    synopsis: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signal_id = self.signal_id

        title = self.title

        url = self.url

        published_at = self.published_at.isoformat()

        content_type = self.content_type.value

        domain = self.domain

        verified_unit_count = self.verified_unit_count

        themes = self.themes.to_dict()

        entities = []
        for entities_item_data in self.entities:
            entities_item = entities_item_data.to_dict()
            entities.append(entities_item)

        story_id: None | str | Unset
        if isinstance(self.story_id, Unset):
            story_id = UNSET
        else:
            story_id = self.story_id

        thesis = self.thesis

        synopsis = self.synopsis

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signal_id": signal_id,
                "title": title,
                "url": url,
                "published_at": published_at,
                "content_type": content_type,
                "domain": domain,
                "verified_unit_count": verified_unit_count,
                "themes": themes,
                "entities": entities,
            }
        )
        if story_id is not UNSET:
            field_dict["story_id"] = story_id
        if thesis is not UNSET:
            field_dict["thesis"] = thesis
        if synopsis is not UNSET:
            field_dict["synopsis"] = synopsis

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_ref import EntityRef  # noqa: PLC0415
        from ..models.themes import Themes  # noqa: PLC0415

        d = dict(src_dict)
        signal_id = d.pop("signal_id")

        title = d.pop("title")

        url = d.pop("url")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        content_type = SignalCardContentType(d.pop("content_type"))

        domain = d.pop("domain")

        verified_unit_count = d.pop("verified_unit_count")

        themes = Themes.from_dict(d.pop("themes"))

        entities = []
        _entities = d.pop("entities")
        for entities_item_data in _entities:
            entities_item = EntityRef.from_dict(entities_item_data)

            entities.append(entities_item)

        def _parse_story_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        story_id = _parse_story_id(d.pop("story_id", UNSET))

        thesis = d.pop("thesis", UNSET)

        synopsis = d.pop("synopsis", UNSET)

        signal_card = cls(
            signal_id=signal_id,
            title=title,
            url=url,
            published_at=published_at,
            content_type=content_type,
            domain=domain,
            verified_unit_count=verified_unit_count,
            themes=themes,
            entities=entities,
            story_id=story_id,
            thesis=thesis,
            synopsis=synopsis,
        )

        signal_card.additional_properties = d
        return signal_card

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
