from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.unit_role import UnitRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.corroboration import Corroboration
    from ..models.evidence_preview import EvidencePreview
    from ..models.verification import Verification


T = TypeVar("T", bound="Unit")


@_attrs_define
class Unit:
    """A verified text unit: the same object in signal detail and in search hits.

    Attributes:
        id (str): Stable unit id; the same unit has the same id in search and in signal detail, and it is what
            `similar_to` takes.
        role (UnitRole): `thesis`: central statement of an analysis; `synopsis`: central statement of an event;
            `argument`: a supporting sentence of an analysis; `claim`: an atomic fact.
        text (str): The verified text.
        argument_id (str | Unset): Only when role=argument: units sharing it, in list order, form one argument (a
            paragraph). Absent on other roles.
        entities (list[str] | Unset): Public ids (`ent:/…`) of the entities the unit's text names; absent when it names
            none.
        verification (Verification | Unset): Present only on units a human reviewer approved.
        evidence_preview (EvidencePreview | Unset): Where in the source the unit comes from.
        corroboration (Corroboration | Unset): Who else states the same fact, counted by independent source.
    """

    id: str
    role: UnitRole
    text: str
    argument_id: str | Unset = UNSET
    entities: list[str] | Unset = UNSET
    verification: Verification | Unset = UNSET
    evidence_preview: EvidencePreview | Unset = UNSET
    corroboration: Corroboration | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        role = self.role.value

        text = self.text

        argument_id = self.argument_id

        entities: list[str] | Unset = UNSET
        if not isinstance(self.entities, Unset):
            entities = self.entities

        verification: dict[str, Any] | Unset = UNSET
        if not isinstance(self.verification, Unset):
            verification = self.verification.to_dict()

        evidence_preview: dict[str, Any] | Unset = UNSET
        if not isinstance(self.evidence_preview, Unset):
            evidence_preview = self.evidence_preview.to_dict()

        corroboration: dict[str, Any] | Unset = UNSET
        if not isinstance(self.corroboration, Unset):
            corroboration = self.corroboration.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "role": role,
                "text": text,
            }
        )
        if argument_id is not UNSET:
            field_dict["argument_id"] = argument_id
        if entities is not UNSET:
            field_dict["entities"] = entities
        if verification is not UNSET:
            field_dict["verification"] = verification
        if evidence_preview is not UNSET:
            field_dict["evidence_preview"] = evidence_preview
        if corroboration is not UNSET:
            field_dict["corroboration"] = corroboration

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.corroboration import Corroboration  # noqa: PLC0415
        from ..models.evidence_preview import EvidencePreview  # noqa: PLC0415
        from ..models.verification import Verification  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        role = UnitRole(d.pop("role"))

        text = d.pop("text")

        argument_id = d.pop("argument_id", UNSET)

        entities = cast(list[str], d.pop("entities", UNSET))

        _verification = d.pop("verification", UNSET)
        verification: Verification | Unset
        if isinstance(_verification, Unset):
            verification = UNSET
        else:
            verification = Verification.from_dict(_verification)

        _evidence_preview = d.pop("evidence_preview", UNSET)
        evidence_preview: EvidencePreview | Unset
        if isinstance(_evidence_preview, Unset):
            evidence_preview = UNSET
        else:
            evidence_preview = EvidencePreview.from_dict(_evidence_preview)

        _corroboration = d.pop("corroboration", UNSET)
        corroboration: Corroboration | Unset
        if isinstance(_corroboration, Unset):
            corroboration = UNSET
        else:
            corroboration = Corroboration.from_dict(_corroboration)

        unit = cls(
            id=id,
            role=role,
            text=text,
            argument_id=argument_id,
            entities=entities,
            verification=verification,
            evidence_preview=evidence_preview,
            corroboration=corroboration,
        )

        unit.additional_properties = d
        return unit

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
