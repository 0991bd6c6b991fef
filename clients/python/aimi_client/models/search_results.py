from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.search_hit import SearchHit


T = TypeVar("T", bound="SearchResults")


@_attrs_define
class SearchResults:
    """The best `limit` hits, best first; not paginated.

    Attributes:
        results (list[SearchHit]): At most `limit` hits, best first.
        query (str | Unset): Echoed when q is used; absent otherwise.
        similar_to (str | Unset): Echoed when similar_to is used; absent otherwise.
    """

    results: list[SearchHit]
    query: str | Unset = UNSET
    similar_to: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        query = self.query

        similar_to = self.similar_to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "results": results,
            }
        )
        if query is not UNSET:
            field_dict["query"] = query
        if similar_to is not UNSET:
            field_dict["similar_to"] = similar_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.search_hit import SearchHit  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = SearchHit.from_dict(results_item_data)

            results.append(results_item)

        query = d.pop("query", UNSET)

        similar_to = d.pop("similar_to", UNSET)

        search_results = cls(
            results=results,
            query=query,
            similar_to=similar_to,
        )

        search_results.additional_properties = d
        return search_results

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
