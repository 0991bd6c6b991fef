from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.embeddings import Embeddings
    from ..models.materialized_views import MaterializedViews
    from ..models.snapshot_info import SnapshotInfo


T = TypeVar("T", bound="RefreshResult")


@_attrs_define
class RefreshResult:
    """What an admin refresh did, and the snapshot it published.

    Attributes:
        status (str): `ok` when the new snapshot is being served.
        materialized_views (MaterializedViews): The derived views a refresh re-materialized.
        embeddings (Embeddings): What a refresh embedded.
        snapshot (SnapshotInfo): The published snapshot of the data being served.
    """

    status: str
    materialized_views: MaterializedViews
    embeddings: Embeddings
    snapshot: SnapshotInfo
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        materialized_views = self.materialized_views.to_dict()

        embeddings = self.embeddings.to_dict()

        snapshot = self.snapshot.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "materialized_views": materialized_views,
                "embeddings": embeddings,
                "snapshot": snapshot,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.embeddings import Embeddings  # noqa: PLC0415
        from ..models.materialized_views import MaterializedViews  # noqa: PLC0415
        from ..models.snapshot_info import SnapshotInfo  # noqa: PLC0415

        d = dict(src_dict)
        status = d.pop("status")

        materialized_views = MaterializedViews.from_dict(d.pop("materialized_views"))

        embeddings = Embeddings.from_dict(d.pop("embeddings"))

        snapshot = SnapshotInfo.from_dict(d.pop("snapshot"))

        refresh_result = cls(
            status=status,
            materialized_views=materialized_views,
            embeddings=embeddings,
            snapshot=snapshot,
        )

        refresh_result.additional_properties = d
        return refresh_result

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
