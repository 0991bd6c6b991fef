from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.citation import Citation
    from ..models.unit import Unit


T = TypeVar("T", bound="SearchHit")


@_attrs_define
class SearchHit:
    """A search result: the unit exactly as in its signal's detail, and its citation.

    Attributes:
        unit (Unit): A verified text unit: the same object in signal detail and in search hits.
        citation (Citation): The signal a search hit comes from.
        relevance_score (float): Fused reciprocal-rank score (q) or cosine similarity (similar_to), times the recency
            factor when recency_boost > 0. Higher is more relevant; no fixed floor.
    """

    unit: Unit
    citation: Citation
    relevance_score: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        unit = self.unit.to_dict()

        citation = self.citation.to_dict()

        relevance_score = self.relevance_score

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "unit": unit,
                "citation": citation,
                "relevance_score": relevance_score,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.citation import Citation  # noqa: PLC0415
        from ..models.unit import Unit  # noqa: PLC0415

        d = dict(src_dict)
        unit = Unit.from_dict(d.pop("unit"))

        citation = Citation.from_dict(d.pop("citation"))

        relevance_score = d.pop("relevance_score")

        search_hit = cls(
            unit=unit,
            citation=citation,
            relevance_score=relevance_score,
        )

        search_hit.additional_properties = d
        return search_hit

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
