from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.theme_axis import ThemeAxis
from ..models.theme_confidence_type_0 import ThemeConfidenceType0
from ..models.theme_direction_type_0 import ThemeDirectionType0
from ..models.theme_notability_type_0 import ThemeNotabilityType0
from ..models.theme_stability_type_0 import ThemeStabilityType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.theme_trend import ThemeTrend


T = TypeVar("T", bound="Theme")


@_attrs_define
class Theme:
    """A theme as the list serves it, without `related_themes`.

    Attributes:
        axis (ThemeAxis): `value_chain` or `market_force`.
        label (str): One of the 12 canonical labels.
        signal_count (int): Signals carrying the label, all time.
        trend (ThemeTrend): Trend numbers over the rolling 12-week window of complete Monday–Sunday weeks.
        direction (None | ThemeDirectionType0): Share of voice of the last 4 weeks against the 8 weeks before: `Rising`
            at 1.25 times or more (or none before), `Declining` at 0.8 times or less, else `Stable`. Null below 8 signals,
            where no label is computed.
        confidence (None | ThemeConfidenceType0): `Significant` when that change in mention rate passes a two-sided test
            of two Poisson rates at 5% (Benjamini–Hochberg adjusted across the rated keys), else `Insignificant`. Null below
            8 signals, where no label is computed.
        stability (None | ThemeStabilityType0): `Volatile` when the 12 weekly shares vary by more than half their mean
            (coefficient of variation > 0.5), else `Steady`. Null below 8 signals, where no label is computed.
        notability (None | ThemeNotabilityType0): Overall notability, explained by `notability_reasoning`. Null below 8
            signals, where no label is computed.
        notability_reasoning (str): How the notability label was reached, or why there is none.
        story_count (int | Unset): Stories (`GET /v1/stories?theme=…`) holding a signal that carries the label.
    """

    axis: ThemeAxis
    label: str
    signal_count: int
    trend: ThemeTrend
    direction: None | ThemeDirectionType0
    confidence: None | ThemeConfidenceType0
    stability: None | ThemeStabilityType0
    notability: None | ThemeNotabilityType0
    notability_reasoning: str
    story_count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        axis = self.axis.value

        label = self.label

        signal_count = self.signal_count

        trend = self.trend.to_dict()

        direction: None | str
        if isinstance(self.direction, ThemeDirectionType0):
            direction = self.direction.value
        else:
            direction = self.direction

        confidence: None | str
        if isinstance(self.confidence, ThemeConfidenceType0):
            confidence = self.confidence.value
        else:
            confidence = self.confidence

        stability: None | str
        if isinstance(self.stability, ThemeStabilityType0):
            stability = self.stability.value
        else:
            stability = self.stability

        notability: None | str
        if isinstance(self.notability, ThemeNotabilityType0):
            notability = self.notability.value
        else:
            notability = self.notability

        notability_reasoning = self.notability_reasoning

        story_count = self.story_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "axis": axis,
                "label": label,
                "signal_count": signal_count,
                "trend": trend,
                "direction": direction,
                "confidence": confidence,
                "stability": stability,
                "notability": notability,
                "notability_reasoning": notability_reasoning,
            }
        )
        if story_count is not UNSET:
            field_dict["story_count"] = story_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.theme_trend import ThemeTrend  # noqa: PLC0415

        d = dict(src_dict)
        axis = ThemeAxis(d.pop("axis"))

        label = d.pop("label")

        signal_count = d.pop("signal_count")

        trend = ThemeTrend.from_dict(d.pop("trend"))

        def _parse_direction(data: object) -> None | ThemeDirectionType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                direction_type_0 = ThemeDirectionType0(data)

                return direction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThemeDirectionType0, data)

        direction = _parse_direction(d.pop("direction"))

        def _parse_confidence(data: object) -> None | ThemeConfidenceType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confidence_type_0 = ThemeConfidenceType0(data)

                return confidence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThemeConfidenceType0, data)

        confidence = _parse_confidence(d.pop("confidence"))

        def _parse_stability(data: object) -> None | ThemeStabilityType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stability_type_0 = ThemeStabilityType0(data)

                return stability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThemeStabilityType0, data)

        stability = _parse_stability(d.pop("stability"))

        def _parse_notability(data: object) -> None | ThemeNotabilityType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                notability_type_0 = ThemeNotabilityType0(data)

                return notability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThemeNotabilityType0, data)

        notability = _parse_notability(d.pop("notability"))

        notability_reasoning = d.pop("notability_reasoning")

        story_count = d.pop("story_count", UNSET)

        theme = cls(
            axis=axis,
            label=label,
            signal_count=signal_count,
            trend=trend,
            direction=direction,
            confidence=confidence,
            stability=stability,
            notability=notability,
            notability_reasoning=notability_reasoning,
            story_count=story_count,
        )

        theme.additional_properties = d
        return theme

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
