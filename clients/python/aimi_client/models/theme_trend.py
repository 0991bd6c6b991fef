from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ThemeTrend")


@_attrs_define
class ThemeTrend:
    """Trend numbers over the rolling 12-week window of complete Monday–Sunday weeks.

    Attributes:
        share_of_voice (float): Share of all signals over the trailing 4 complete weeks, 0 to 1.
        streak (int): Consecutive weeks of growth ending at the last complete week (0–11).
        current_week (int): Signals in the last complete Monday–Sunday week.
        prior_week (int): Signals in the week before it.
    """

    share_of_voice: float
    streak: int
    current_week: int
    prior_week: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        share_of_voice = self.share_of_voice

        streak = self.streak

        current_week = self.current_week

        prior_week = self.prior_week

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "share_of_voice": share_of_voice,
                "streak": streak,
                "current_week": current_week,
                "prior_week": prior_week,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        share_of_voice = d.pop("share_of_voice")

        streak = d.pop("streak")

        current_week = d.pop("current_week")

        prior_week = d.pop("prior_week")

        theme_trend = cls(
            share_of_voice=share_of_voice,
            streak=streak,
            current_week=current_week,
            prior_week=prior_week,
        )

        theme_trend.additional_properties = d
        return theme_trend

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
