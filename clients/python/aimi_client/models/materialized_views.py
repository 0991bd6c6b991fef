from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MaterializedViews")


@_attrs_define
class MaterializedViews:
    """The derived views a refresh re-materialized.

    Attributes:
        views_refreshed (int): How many derived views were re-materialized.
        views (list[str]): Their names.
    """

    views_refreshed: int
    views: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        views_refreshed = self.views_refreshed

        views = self.views

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "views_refreshed": views_refreshed,
                "views": views,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        views_refreshed = d.pop("views_refreshed")

        views = cast(list[str], d.pop("views"))

        materialized_views = cls(
            views_refreshed=views_refreshed,
            views=views,
        )

        materialized_views.additional_properties = d
        return materialized_views

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
