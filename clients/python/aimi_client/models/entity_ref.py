from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_ref_type import EntityRefType

T = TypeVar("T", bound="EntityRef")


@_attrs_define
class EntityRef:
    """An entity a signal mentions.

    Attributes:
        entity_id (str): Stable public id, `ent:/…`.
        name (str): Display name.
        type_ (EntityRefType): Entity type.
    """

    entity_id: str
    name: str
    type_: EntityRefType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entity_id = self.entity_id

        name = self.name

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entity_id": entity_id,
                "name": name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        entity_id = d.pop("entity_id")

        name = d.pop("name")

        type_ = EntityRefType(d.pop("type"))

        entity_ref = cls(
            entity_id=entity_id,
            name=name,
            type_=type_,
        )

        entity_ref.additional_properties = d
        return entity_ref

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
