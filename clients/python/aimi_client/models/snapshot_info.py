from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SnapshotInfo")


@_attrs_define
class SnapshotInfo:
    """The published snapshot of the data being served.

    Attributes:
        id (str): Snapshot id; changes with every publish.
        as_of (datetime.datetime): The build clock: trend weeks and `window` are measured back from it.
        built_at (datetime.datetime): When the snapshot was built.
    """

    id: str
    as_of: datetime.datetime
    built_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        as_of = self.as_of.isoformat()

        built_at = self.built_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "as_of": as_of,
                "built_at": built_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        as_of = datetime.datetime.fromisoformat(d.pop("as_of"))

        built_at = datetime.datetime.fromisoformat(d.pop("built_at"))

        snapshot_info = cls(
            id=id,
            as_of=as_of,
            built_at=built_at,
        )

        snapshot_info.additional_properties = d
        return snapshot_info

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
