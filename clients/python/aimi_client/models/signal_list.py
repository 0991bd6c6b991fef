from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.signal_card import SignalCard


T = TypeVar("T", bound="SignalList")


@_attrs_define
class SignalList:
    """A page of signal cards.

    Attributes:
        signals (list[SignalCard]): At most `limit` cards, in the page's order.
        has_more (bool): True when another page follows; pass `next_cursor` back as `cursor` to read it.
        next_cursor (None | str): Opaque. `sort=published`: the next page's cursor, null once `has_more` is false.
            `sort=changed`: a resume point to keep and poll from, returned on the last page too; null only when nothing
            changed after `cursor` (keep the one you had).
    """

    signals: list[SignalCard]
    has_more: bool
    next_cursor: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signals = []
        for signals_item_data in self.signals:
            signals_item = signals_item_data.to_dict()
            signals.append(signals_item)

        has_more = self.has_more

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signals": signals,
                "has_more": has_more,
                "next_cursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.signal_card import SignalCard  # noqa: PLC0415

        d = dict(src_dict)
        signals = []
        _signals = d.pop("signals")
        for signals_item_data in _signals:
            signals_item = SignalCard.from_dict(signals_item_data)

            signals.append(signals_item)

        has_more = d.pop("has_more")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        signal_list = cls(
            signals=signals,
            has_more=has_more,
            next_cursor=next_cursor,
        )

        signal_list.additional_properties = d
        return signal_list

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
