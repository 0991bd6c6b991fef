from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.entity_profile import EntityProfile


T = TypeVar("T", bound="EntityList")


@_attrs_define
class EntityList:
    """A page of entity profiles.

    Attributes:
        entities (list[EntityProfile]): At most `limit` profiles, in sort order.
        has_more (bool): True when another page follows; pass `next_cursor` back as `cursor` to read it.
        next_cursor (None | str): Opaque cursor of the next page; null once `has_more` is false.
    """

    entities: list[EntityProfile]
    has_more: bool
    next_cursor: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entities = []
        for entities_item_data in self.entities:
            entities_item = entities_item_data.to_dict()
            entities.append(entities_item)

        has_more = self.has_more

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entities": entities,
                "has_more": has_more,
                "next_cursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_profile import EntityProfile  # noqa: PLC0415

        d = dict(src_dict)
        entities = []
        _entities = d.pop("entities")
        for entities_item_data in _entities:
            entities_item = EntityProfile.from_dict(entities_item_data)

            entities.append(entities_item)

        has_more = d.pop("has_more")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        entity_list = cls(
            entities=entities,
            has_more=has_more,
            next_cursor=next_cursor,
        )

        entity_list.additional_properties = d
        return entity_list

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
