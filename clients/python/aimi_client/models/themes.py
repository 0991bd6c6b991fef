from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Themes")


@_attrs_define
class Themes:
    """A signal's theme labels on the two axes (each can be empty).

    Attributes:
        value_chain (list[str]): Value-chain labels (Semiconductors & Hardware, Infrastructure, Data, Foundation Models,
            Tooling & Platforms, Applications).
        market_force (list[str]): Market-force labels (Competitive Dynamics, Capital & Investment, Regulatory & Legal,
            Talent & Labor, Technology & Scientific Innovation, Adoption & Demand).
    """

    value_chain: list[str]
    market_force: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        value_chain = self.value_chain

        market_force = self.market_force

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "value_chain": value_chain,
                "market_force": market_force,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value_chain = cast(list[str], d.pop("value_chain"))

        market_force = cast(list[str], d.pop("market_force"))

        themes = cls(
            value_chain=value_chain,
            market_force=market_force,
        )

        themes.additional_properties = d
        return themes

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
