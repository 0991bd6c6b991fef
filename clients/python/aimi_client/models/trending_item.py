from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.trending_item_type_primary import TrendingItemTypePrimary

if TYPE_CHECKING:
    from ..models.trending_item_content_type_mix import TrendingItemContentTypeMix
    from ..models.trending_item_market_force_distribution import TrendingItemMarketForceDistribution
    from ..models.trending_item_value_chain_distribution import TrendingItemValueChainDistribution
    from ..models.trending_trend import TrendingTrend


T = TypeVar("T", bound="TrendingItem")


@_attrs_define
class TrendingItem:
    """A trending entity, with this endpoint's own field names.

    Attributes:
        content_type_mix (TrendingItemContentTypeMix): Signals per content type (`analysis`, `event`); both keys always
            present.
        value_chain_distribution (TrendingItemValueChainDistribution): Signals per value-chain theme; all six labels,
            zeros included.
        market_force_distribution (TrendingItemMarketForceDistribution): Signals per market-force theme; all six labels,
            zeros included.
        entity_id (str): Stable public id, `ent:/…`.
        display_name (str): Display name (`name` in the entity list).
        type_primary (TrendingItemTypePrimary): Coarse type: `Product` covers models, hardware and other; `Other` covers
            locations, events and regulation.
        signal_count (int): Signals mentioning the entity, all time.
        first_seen (datetime.datetime): Publication time of the first mention.
        last_seen (datetime.datetime): Publication time of the latest mention.
        trend (TrendingTrend): Trend numbers of a trending entity (12 complete Monday–Sunday weeks).
    """

    content_type_mix: TrendingItemContentTypeMix
    value_chain_distribution: TrendingItemValueChainDistribution
    market_force_distribution: TrendingItemMarketForceDistribution
    entity_id: str
    display_name: str
    type_primary: TrendingItemTypePrimary
    signal_count: int
    first_seen: datetime.datetime
    last_seen: datetime.datetime
    trend: TrendingTrend
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type_mix = self.content_type_mix.to_dict()

        value_chain_distribution = self.value_chain_distribution.to_dict()

        market_force_distribution = self.market_force_distribution.to_dict()

        entity_id = self.entity_id

        display_name = self.display_name

        type_primary = self.type_primary.value

        signal_count = self.signal_count

        first_seen = self.first_seen.isoformat()

        last_seen = self.last_seen.isoformat()

        trend = self.trend.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type_mix": content_type_mix,
                "value_chain_distribution": value_chain_distribution,
                "market_force_distribution": market_force_distribution,
                "entity_id": entity_id,
                "display_name": display_name,
                "type_primary": type_primary,
                "signal_count": signal_count,
                "first_seen": first_seen,
                "last_seen": last_seen,
                "trend": trend,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trending_item_content_type_mix import TrendingItemContentTypeMix  # noqa: PLC0415
        from ..models.trending_item_market_force_distribution import TrendingItemMarketForceDistribution  # noqa: PLC0415
        from ..models.trending_item_value_chain_distribution import TrendingItemValueChainDistribution  # noqa: PLC0415
        from ..models.trending_trend import TrendingTrend  # noqa: PLC0415

        d = dict(src_dict)
        content_type_mix = TrendingItemContentTypeMix.from_dict(d.pop("content_type_mix"))

        value_chain_distribution = TrendingItemValueChainDistribution.from_dict(d.pop("value_chain_distribution"))

        market_force_distribution = TrendingItemMarketForceDistribution.from_dict(d.pop("market_force_distribution"))

        entity_id = d.pop("entity_id")

        display_name = d.pop("display_name")

        type_primary = TrendingItemTypePrimary(d.pop("type_primary"))

        signal_count = d.pop("signal_count")

        first_seen = datetime.datetime.fromisoformat(d.pop("first_seen"))

        last_seen = datetime.datetime.fromisoformat(d.pop("last_seen"))

        trend = TrendingTrend.from_dict(d.pop("trend"))

        trending_item = cls(
            content_type_mix=content_type_mix,
            value_chain_distribution=value_chain_distribution,
            market_force_distribution=market_force_distribution,
            entity_id=entity_id,
            display_name=display_name,
            type_primary=type_primary,
            signal_count=signal_count,
            first_seen=first_seen,
            last_seen=last_seen,
            trend=trend,
        )

        trending_item.additional_properties = d
        return trending_item

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
