from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.story import Story


T = TypeVar("T", bound="StoryList")


@_attrs_define
class StoryList:
    """A page of stories, newest activity first.

    Attributes:
        stories (list[Story]): At most `limit` stories, in the page's order.
        has_more (bool): True when another page follows; pass `next_cursor` back as `cursor` to read it.
        next_cursor (None | str): Opaque: the next page's cursor, null once `has_more` is false.
    """

    stories: list[Story]
    has_more: bool
    next_cursor: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stories = []
        for stories_item_data in self.stories:
            stories_item = stories_item_data.to_dict()
            stories.append(stories_item)

        has_more = self.has_more

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stories": stories,
                "has_more": has_more,
                "next_cursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.story import Story  # noqa: PLC0415

        d = dict(src_dict)
        stories = []
        _stories = d.pop("stories")
        for stories_item_data in _stories:
            stories_item = Story.from_dict(stories_item_data)

            stories.append(stories_item)

        has_more = d.pop("has_more")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        story_list = cls(
            stories=stories,
            has_more=has_more,
            next_cursor=next_cursor,
        )

        story_list.additional_properties = d
        return story_list

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
