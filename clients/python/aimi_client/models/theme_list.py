from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.theme import Theme


T = TypeVar("T", bound="ThemeList")


@_attrs_define
class ThemeList:
    """The themes, value chain first, each axis in canonical order.

    Attributes:
        themes (list[Theme]): 12 themes, or the 6 of the requested axis.
    """

    themes: list[Theme]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        themes = []
        for themes_item_data in self.themes:
            themes_item = themes_item_data.to_dict()
            themes.append(themes_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "themes": themes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.theme import Theme  # noqa: PLC0415

        d = dict(src_dict)
        themes = []
        _themes = d.pop("themes")
        for themes_item_data in _themes:
            themes_item = Theme.from_dict(themes_item_data)

            themes.append(themes_item)

        theme_list = cls(
            themes=themes,
        )

        theme_list.additional_properties = d
        return theme_list

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
