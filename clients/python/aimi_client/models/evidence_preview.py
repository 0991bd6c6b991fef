from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.snippet import Snippet


T = TypeVar("T", bound="EvidencePreview")


@_attrs_define
class EvidencePreview:
    """Where in the source the unit comes from.

    Attributes:
        snippets (list[Snippet]): One or more locators, in source order.
    """

    snippets: list[Snippet]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        snippets = []
        for snippets_item_data in self.snippets:
            snippets_item = snippets_item_data.to_dict()
            snippets.append(snippets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "snippets": snippets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.snippet import Snippet  # noqa: PLC0415

        d = dict(src_dict)
        snippets = []
        _snippets = d.pop("snippets")
        for snippets_item_data in _snippets:
            snippets_item = Snippet.from_dict(snippets_item_data)

            snippets.append(snippets_item)

        evidence_preview = cls(
            snippets=snippets,
        )

        evidence_preview.additional_properties = d
        return evidence_preview

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
