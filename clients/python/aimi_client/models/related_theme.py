from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.related_theme_axis import RelatedThemeAxis

T = TypeVar("T", bound="RelatedTheme")


@_attrs_define
class RelatedTheme:
    """A theme, on either axis, that shares signals with the one asked for.

    Attributes:
        axis (RelatedThemeAxis): `value_chain` or `market_force`.
        label (str): Canonical label.
        co_occurrence_count (int): Signals carrying both labels.
    """

    axis: RelatedThemeAxis
    label: str
    co_occurrence_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        axis = self.axis.value

        label = self.label

        co_occurrence_count = self.co_occurrence_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "axis": axis,
                "label": label,
                "co_occurrence_count": co_occurrence_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        axis = RelatedThemeAxis(d.pop("axis"))

        label = d.pop("label")

        co_occurrence_count = d.pop("co_occurrence_count")

        related_theme = cls(
            axis=axis,
            label=label,
            co_occurrence_count=co_occurrence_count,
        )

        related_theme.additional_properties = d
        return related_theme

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
