from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.health_status import HealthStatus

if TYPE_CHECKING:
    from ..models.snapshot_info import SnapshotInfo


T = TypeVar("T", bound="Health")


@_attrs_define
class Health:
    """Liveness, the API version and the snapshot being served.

    Attributes:
        status (HealthStatus): `ok` once a snapshot is loaded; `starting` before (data endpoints answer 503 meanwhile).
        version (str): API version, e.g. `0.1.0`.
        snapshot (None | SnapshotInfo): The snapshot being served; null while `starting`.
    """

    status: HealthStatus
    version: str
    snapshot: None | SnapshotInfo
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.snapshot_info import SnapshotInfo  # noqa: PLC0415

        status = self.status.value

        version = self.version

        snapshot: dict[str, Any] | None
        if isinstance(self.snapshot, SnapshotInfo):
            snapshot = self.snapshot.to_dict()
        else:
            snapshot = self.snapshot

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "version": version,
                "snapshot": snapshot,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.snapshot_info import SnapshotInfo  # noqa: PLC0415

        d = dict(src_dict)
        status = HealthStatus(d.pop("status"))

        version = d.pop("version")

        def _parse_snapshot(data: object) -> None | SnapshotInfo:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                snapshot_type_0 = SnapshotInfo.from_dict(data)

                return snapshot_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SnapshotInfo, data)

        snapshot = _parse_snapshot(d.pop("snapshot"))

        health = cls(
            status=status,
            version=version,
            snapshot=snapshot,
        )

        health.additional_properties = d
        return health

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
