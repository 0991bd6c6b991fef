from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StorySignal")


@_attrs_define
class StorySignal:
    """A signal of a story, in brief; `GET /v1/signals/{signal_id}` has the rest.

    Attributes:
        signal_id (str): The signal's id.
        title (str): The signal's title.
        url (str): Canonical URL of the source.
        published_at (datetime.datetime): Publication time (UTC).
        domain (str): Registrable domain of the source.
    """

    signal_id: str
    title: str
    url: str
    published_at: datetime.datetime
    domain: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signal_id = self.signal_id

        title = self.title

        url = self.url

        published_at = self.published_at.isoformat()

        domain = self.domain

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signal_id": signal_id,
                "title": title,
                "url": url,
                "published_at": published_at,
                "domain": domain,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        signal_id = d.pop("signal_id")

        title = d.pop("title")

        url = d.pop("url")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        domain = d.pop("domain")

        story_signal = cls(
            signal_id=signal_id,
            title=title,
            url=url,
            published_at=published_at,
            domain=domain,
        )

        story_signal.additional_properties = d
        return story_signal

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
