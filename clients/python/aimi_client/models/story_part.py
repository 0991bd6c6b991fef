from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.story_part_unit import StoryPartUnit


T = TypeVar("T", bound="StoryPart")


@_attrs_define
class StoryPart:
    """The units of one roundup (a digest of unrelated items, split into its items before
    stories are built) that belong to this story; the roundup's other items are in other
    stories.

        Attributes:
            signal_id (str): The roundup signal's id (also among `signals`).
            units (list[StoryPartUnit]): Its units in this story, in text order.
    """

    signal_id: str
    units: list[StoryPartUnit]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signal_id = self.signal_id

        units = []
        for units_item_data in self.units:
            units_item = units_item_data.to_dict()
            units.append(units_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signal_id": signal_id,
                "units": units,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.story_part_unit import StoryPartUnit  # noqa: PLC0415

        d = dict(src_dict)
        signal_id = d.pop("signal_id")

        units = []
        _units = d.pop("units")
        for units_item_data in _units:
            units_item = StoryPartUnit.from_dict(units_item_data)

            units.append(units_item)

        story_part = cls(
            signal_id=signal_id,
            units=units,
        )

        story_part.additional_properties = d
        return story_part

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
