from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.contesting_claim import ContestingClaim
    from ..models.other_claim import OtherClaim


T = TypeVar("T", bound="Corroboration")


@_attrs_define
class Corroboration:
    """Who else states the same fact, counted by independent source.

    Attributes:
        count (int): Independent sources stating the same fact: distinct authors (else domains) other than this unit's,
            a reprint and its original counted once.
        sources (list[str]): Those sources' names (author, else domain), sorted.
        claims (list[OtherClaim]): Up to 5 of their claims, most similar first, one per reprint group.
        contested (list[ContestingClaim]): Up to 5 claims of other voices that state the same fact reversed; this unit's
            own snippet is its `evidence_preview`. Empty when none.
    """

    count: int
    sources: list[str]
    claims: list[OtherClaim]
    contested: list[ContestingClaim]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        sources = self.sources

        claims = []
        for claims_item_data in self.claims:
            claims_item = claims_item_data.to_dict()
            claims.append(claims_item)

        contested = []
        for contested_item_data in self.contested:
            contested_item = contested_item_data.to_dict()
            contested.append(contested_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "sources": sources,
                "claims": claims,
                "contested": contested,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contesting_claim import ContestingClaim  # noqa: PLC0415
        from ..models.other_claim import OtherClaim  # noqa: PLC0415

        d = dict(src_dict)
        count = d.pop("count")

        sources = cast(list[str], d.pop("sources"))

        claims = []
        _claims = d.pop("claims")
        for claims_item_data in _claims:
            claims_item = OtherClaim.from_dict(claims_item_data)

            claims.append(claims_item)

        contested = []
        _contested = d.pop("contested")
        for contested_item_data in _contested:
            contested_item = ContestingClaim.from_dict(contested_item_data)

            contested.append(contested_item)

        corroboration = cls(
            count=count,
            sources=sources,
            claims=claims,
            contested=contested,
        )

        corroboration.additional_properties = d
        return corroboration

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
