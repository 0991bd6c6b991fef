from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_profile_detail_confidence_type_0 import EntityProfileDetailConfidenceType0
from ..models.entity_profile_detail_direction_type_0 import EntityProfileDetailDirectionType0
from ..models.entity_profile_detail_notability_type_0 import EntityProfileDetailNotabilityType0
from ..models.entity_profile_detail_scale import EntityProfileDetailScale
from ..models.entity_profile_detail_stability_type_0 import EntityProfileDetailStabilityType0
from ..models.entity_profile_detail_type import EntityProfileDetailType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entity_profile_detail_content_type_mix import EntityProfileDetailContentTypeMix
    from ..models.entity_profile_detail_market_force_distribution import EntityProfileDetailMarketForceDistribution
    from ..models.entity_profile_detail_value_chain_distribution import EntityProfileDetailValueChainDistribution
    from ..models.entity_trend import EntityTrend
    from ..models.related_entity import RelatedEntity


T = TypeVar("T", bound="EntityProfileDetail")


@_attrs_define
class EntityProfileDetail:
    """One entity with its top 25 related entities.

    Attributes:
        content_type_mix (EntityProfileDetailContentTypeMix): Signals per content type (`analysis`, `event`); both keys
            always present.
        value_chain_distribution (EntityProfileDetailValueChainDistribution): Signals per value-chain theme; all six
            labels, zeros included.
        market_force_distribution (EntityProfileDetailMarketForceDistribution): Signals per market-force theme; all six
            labels, zeros included.
        entity_id (str): Stable opaque public id, `ent:/…`.
        name (str): Display name.
        type_ (EntityProfileDetailType): Entity type; `other` covers products, software, frameworks, datasets,
            benchmarks, publications and technical concepts.
        signal_count (int): Signals mentioning the entity, all time.
        first_seen (datetime.datetime | None): Publication time of the first mention; null only without any signal.
        last_seen (datetime.datetime | None): Publication time of the latest mention; null only without any signal.
        trend (EntityTrend): An entity's trend numbers.
        scale (EntityProfileDetailScale): Rank among entities with 8 or more signals by mentions in the window: about
            the top 10% `Large`, the next 25% `Medium`, the rest `Small`; below 8 signals always `Small`.
        direction (EntityProfileDetailDirectionType0 | None): Share of voice of the last 4 weeks against the 8 weeks
            before: `Rising` at 1.25 times or more (or none before), `Declining` at 0.8 times or less, else `Stable`. `New`:
            reached its third signal in the last 4 weeks and was first seen at most 26 weeks before that. Null below 8
            signals, where no label is computed.
        confidence (EntityProfileDetailConfidenceType0 | None): `Significant` when that change in mention rate passes a
            two-sided test of two Poisson rates at 5% (Benjamini–Hochberg adjusted across the rated keys), else
            `Insignificant`. Null below 8 signals, where no label is computed.
        stability (EntityProfileDetailStabilityType0 | None): `Volatile` when the 12 weekly shares vary by more than
            half their mean (coefficient of variation > 0.5), else `Steady`. Null below 8 signals, where no label is
            computed.
        notability (EntityProfileDetailNotabilityType0 | None): Overall notability, explained by `notability_reasoning`.
            Null below 8 signals, where no label is computed.
        notability_reasoning (str): How the notability label was reached (the points each rule gave), or why there is
            none.
        related_entities (list[RelatedEntity]): At most 25, by `co_occurrence_count` descending.
        wikipedia_url (str | Unset): Wikipedia article; absent when none is known.
        story_count (int | Unset): Stories (`GET /v1/stories?entity=…`) holding a signal that mentions the entity: many
            signals in few stories is buzz about one event, many stories is breadth.
    """

    content_type_mix: EntityProfileDetailContentTypeMix
    value_chain_distribution: EntityProfileDetailValueChainDistribution
    market_force_distribution: EntityProfileDetailMarketForceDistribution
    entity_id: str
    name: str
    type_: EntityProfileDetailType
    signal_count: int
    first_seen: datetime.datetime | None
    last_seen: datetime.datetime | None
    trend: EntityTrend
    scale: EntityProfileDetailScale
    direction: EntityProfileDetailDirectionType0 | None
    confidence: EntityProfileDetailConfidenceType0 | None
    stability: EntityProfileDetailStabilityType0 | None
    notability: EntityProfileDetailNotabilityType0 | None
    notability_reasoning: str
    related_entities: list[RelatedEntity]
    wikipedia_url: str | Unset = UNSET
    story_count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type_mix = self.content_type_mix.to_dict()

        value_chain_distribution = self.value_chain_distribution.to_dict()

        market_force_distribution = self.market_force_distribution.to_dict()

        entity_id = self.entity_id

        name = self.name

        type_ = self.type_.value

        signal_count = self.signal_count

        first_seen: None | str
        if isinstance(self.first_seen, datetime.datetime):
            first_seen = self.first_seen.isoformat()
        else:
            first_seen = self.first_seen

        last_seen: None | str
        if isinstance(self.last_seen, datetime.datetime):
            last_seen = self.last_seen.isoformat()
        else:
            last_seen = self.last_seen

        trend = self.trend.to_dict()

        scale = self.scale.value

        direction: None | str
        if isinstance(self.direction, EntityProfileDetailDirectionType0):
            direction = self.direction.value
        else:
            direction = self.direction

        confidence: None | str
        if isinstance(self.confidence, EntityProfileDetailConfidenceType0):
            confidence = self.confidence.value
        else:
            confidence = self.confidence

        stability: None | str
        if isinstance(self.stability, EntityProfileDetailStabilityType0):
            stability = self.stability.value
        else:
            stability = self.stability

        notability: None | str
        if isinstance(self.notability, EntityProfileDetailNotabilityType0):
            notability = self.notability.value
        else:
            notability = self.notability

        notability_reasoning = self.notability_reasoning

        related_entities = []
        for related_entities_item_data in self.related_entities:
            related_entities_item = related_entities_item_data.to_dict()
            related_entities.append(related_entities_item)

        wikipedia_url = self.wikipedia_url

        story_count = self.story_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type_mix": content_type_mix,
                "value_chain_distribution": value_chain_distribution,
                "market_force_distribution": market_force_distribution,
                "entity_id": entity_id,
                "name": name,
                "type": type_,
                "signal_count": signal_count,
                "first_seen": first_seen,
                "last_seen": last_seen,
                "trend": trend,
                "scale": scale,
                "direction": direction,
                "confidence": confidence,
                "stability": stability,
                "notability": notability,
                "notability_reasoning": notability_reasoning,
                "related_entities": related_entities,
            }
        )
        if wikipedia_url is not UNSET:
            field_dict["wikipedia_url"] = wikipedia_url
        if story_count is not UNSET:
            field_dict["story_count"] = story_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_profile_detail_content_type_mix import EntityProfileDetailContentTypeMix  # noqa: PLC0415
        from ..models.entity_profile_detail_market_force_distribution import EntityProfileDetailMarketForceDistribution  # noqa: PLC0415
        from ..models.entity_profile_detail_value_chain_distribution import EntityProfileDetailValueChainDistribution  # noqa: PLC0415
        from ..models.entity_trend import EntityTrend  # noqa: PLC0415
        from ..models.related_entity import RelatedEntity  # noqa: PLC0415

        d = dict(src_dict)
        content_type_mix = EntityProfileDetailContentTypeMix.from_dict(d.pop("content_type_mix"))

        value_chain_distribution = EntityProfileDetailValueChainDistribution.from_dict(
            d.pop("value_chain_distribution")
        )

        market_force_distribution = EntityProfileDetailMarketForceDistribution.from_dict(
            d.pop("market_force_distribution")
        )

        entity_id = d.pop("entity_id")

        name = d.pop("name")

        type_ = EntityProfileDetailType(d.pop("type"))

        signal_count = d.pop("signal_count")

        def _parse_first_seen(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_seen_type_0 = datetime.datetime.fromisoformat(data)

                return first_seen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        first_seen = _parse_first_seen(d.pop("first_seen"))

        def _parse_last_seen(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_type_0 = datetime.datetime.fromisoformat(data)

                return last_seen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_seen = _parse_last_seen(d.pop("last_seen"))

        trend = EntityTrend.from_dict(d.pop("trend"))

        scale = EntityProfileDetailScale(d.pop("scale"))

        def _parse_direction(data: object) -> EntityProfileDetailDirectionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                direction_type_0 = EntityProfileDetailDirectionType0(data)

                return direction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EntityProfileDetailDirectionType0 | None, data)

        direction = _parse_direction(d.pop("direction"))

        def _parse_confidence(data: object) -> EntityProfileDetailConfidenceType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confidence_type_0 = EntityProfileDetailConfidenceType0(data)

                return confidence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EntityProfileDetailConfidenceType0 | None, data)

        confidence = _parse_confidence(d.pop("confidence"))

        def _parse_stability(data: object) -> EntityProfileDetailStabilityType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stability_type_0 = EntityProfileDetailStabilityType0(data)

                return stability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EntityProfileDetailStabilityType0 | None, data)

        stability = _parse_stability(d.pop("stability"))

        def _parse_notability(data: object) -> EntityProfileDetailNotabilityType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                notability_type_0 = EntityProfileDetailNotabilityType0(data)

                return notability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EntityProfileDetailNotabilityType0 | None, data)

        notability = _parse_notability(d.pop("notability"))

        notability_reasoning = d.pop("notability_reasoning")

        related_entities = []
        _related_entities = d.pop("related_entities")
        for related_entities_item_data in _related_entities:
            related_entities_item = RelatedEntity.from_dict(related_entities_item_data)

            related_entities.append(related_entities_item)

        wikipedia_url = d.pop("wikipedia_url", UNSET)

        story_count = d.pop("story_count", UNSET)

        entity_profile_detail = cls(
            content_type_mix=content_type_mix,
            value_chain_distribution=value_chain_distribution,
            market_force_distribution=market_force_distribution,
            entity_id=entity_id,
            name=name,
            type_=type_,
            signal_count=signal_count,
            first_seen=first_seen,
            last_seen=last_seen,
            trend=trend,
            scale=scale,
            direction=direction,
            confidence=confidence,
            stability=stability,
            notability=notability,
            notability_reasoning=notability_reasoning,
            related_entities=related_entities,
            wikipedia_url=wikipedia_url,
            story_count=story_count,
        )

        entity_profile_detail.additional_properties = d
        return entity_profile_detail

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
