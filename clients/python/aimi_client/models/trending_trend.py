from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TrendingTrend")


@_attrs_define
class TrendingTrend:
    """Trend numbers of a trending entity (12 complete Monday–Sunday weeks).

    Attributes:
        momentum_wow (float): Week-over-week change: (current_week − prior_week) / max(prior_week, 1).
        momentum_4w (float): Signals in the last 4 weeks against the 4 before: (recent − before) / max(before, 1).
        acceleration (float): This week's `momentum_wow` minus the previous week's.
        z_score (float): The last week's count against the 11 weeks before: (count − mean) / max(standard deviation, 1).
        persistence (float): Share of the 12 weeks with a signal, 0 to 1.
        share_of_voice (float): Share of all signals over the trailing 4 complete weeks, 0 to 1.
        share_of_voice_history (list[float]): 12 weekly shares of all signals, oldest first.
        streak (int): Consecutive weeks of growth ending at the last complete week (0–11).
        current_week (int): Signals in the last complete Monday–Sunday week.
        prior_week (int): Signals in the week before it.
    """

    momentum_wow: float
    momentum_4w: float
    acceleration: float
    z_score: float
    persistence: float
    share_of_voice: float
    share_of_voice_history: list[float]
    streak: int
    current_week: int
    prior_week: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        momentum_wow = self.momentum_wow

        momentum_4w = self.momentum_4w

        acceleration = self.acceleration

        z_score = self.z_score

        persistence = self.persistence

        share_of_voice = self.share_of_voice

        share_of_voice_history = self.share_of_voice_history

        streak = self.streak

        current_week = self.current_week

        prior_week = self.prior_week

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "momentum_wow": momentum_wow,
                "momentum_4w": momentum_4w,
                "acceleration": acceleration,
                "z_score": z_score,
                "persistence": persistence,
                "share_of_voice": share_of_voice,
                "share_of_voice_history": share_of_voice_history,
                "streak": streak,
                "current_week": current_week,
                "prior_week": prior_week,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        momentum_wow = d.pop("momentum_wow")

        momentum_4w = d.pop("momentum_4w")

        acceleration = d.pop("acceleration")

        z_score = d.pop("z_score")

        persistence = d.pop("persistence")

        share_of_voice = d.pop("share_of_voice")

        share_of_voice_history = cast(list[float], d.pop("share_of_voice_history"))

        streak = d.pop("streak")

        current_week = d.pop("current_week")

        prior_week = d.pop("prior_week")

        trending_trend = cls(
            momentum_wow=momentum_wow,
            momentum_4w=momentum_4w,
            acceleration=acceleration,
            z_score=z_score,
            persistence=persistence,
            share_of_voice=share_of_voice,
            share_of_voice_history=share_of_voice_history,
            streak=streak,
            current_week=current_week,
            prior_week=prior_week,
        )

        trending_trend.additional_properties = d
        return trending_trend

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
