from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.related_entity_type import RelatedEntityType

T = TypeVar("T", bound="RelatedEntity")


@_attrs_define
class RelatedEntity:
    """An entity that shares signals with the one asked for.

    Attributes:
        entity_id (str): Stable public id, `ent:/…`.
        name (str): Display name.
        type_ (RelatedEntityType): Entity type.
        co_occurrence_count (int): Signals mentioning both entities.
    """

    entity_id: str
    name: str
    type_: RelatedEntityType
    co_occurrence_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entity_id = self.entity_id

        name = self.name

        type_ = self.type_.value

        co_occurrence_count = self.co_occurrence_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entity_id": entity_id,
                "name": name,
                "type": type_,
                "co_occurrence_count": co_occurrence_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        entity_id = d.pop("entity_id")

        name = d.pop("name")

        type_ = RelatedEntityType(d.pop("type"))

        co_occurrence_count = d.pop("co_occurrence_count")

        related_entity = cls(
            entity_id=entity_id,
            name=name,
            type_=type_,
            co_occurrence_count=co_occurrence_count,
        )

        related_entity.additional_properties = d
        return related_entity

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
