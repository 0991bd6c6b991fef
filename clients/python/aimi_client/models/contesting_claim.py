from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.snippet import Snippet


T = TypeVar("T", bound="ContestingClaim")


@_attrs_define
class ContestingClaim:
    """Another voice's claim that reverses this one.

    Attributes:
        unit_id (str): The other claim's unit id (`similar_to` takes it).
        signal_id (str): Its signal; `GET /v1/signals/{signal_id}` reads it.
        domain (str): Registrable domain of its source.
        text (str): The other claim's verified text.
        cues (list[str]): The reversing words: a negation one claim makes and the other does not, or a word whose
            opposite the other uses (`faster` against `slower`).
        evidence (Snippet | Unset): A short verbatim locator into the source, not the full passage.
    """

    unit_id: str
    signal_id: str
    domain: str
    text: str
    cues: list[str]
    evidence: Snippet | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        unit_id = self.unit_id

        signal_id = self.signal_id

        domain = self.domain

        text = self.text

        cues = self.cues

        evidence: dict[str, Any] | Unset = UNSET
        if not isinstance(self.evidence, Unset):
            evidence = self.evidence.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "unit_id": unit_id,
                "signal_id": signal_id,
                "domain": domain,
                "text": text,
                "cues": cues,
            }
        )
        if evidence is not UNSET:
            field_dict["evidence"] = evidence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.snippet import Snippet  # noqa: PLC0415

        d = dict(src_dict)
        unit_id = d.pop("unit_id")

        signal_id = d.pop("signal_id")

        domain = d.pop("domain")

        text = d.pop("text")

        cues = cast(list[str], d.pop("cues"))

        _evidence = d.pop("evidence", UNSET)
        evidence: Snippet | Unset
        if isinstance(_evidence, Unset):
            evidence = UNSET
        else:
            evidence = Snippet.from_dict(_evidence)

        contesting_claim = cls(
            unit_id=unit_id,
            signal_id=signal_id,
            domain=domain,
            text=text,
            cues=cues,
            evidence=evidence,
        )

        contesting_claim.additional_properties = d
        return contesting_claim

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
