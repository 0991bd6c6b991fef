"""``GET /v1/health``: liveness, API version and the snapshot being served; no key needed."""

from __future__ import annotations

from fastapi import APIRouter

from serving.deps import StoreDep
from serving.models import Health, SnapshotInfo
from serving.settings import API_VERSION

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    response_model=Health,
    summary="Service health",
    description="`status` is `ok` once a snapshot is loaded and `starting` before; both are "
    "200. Sending an API key is allowed and not required.",
)
async def health(store: StoreDep) -> Health:
    snapshot = store.current
    if snapshot is None:
        return Health(status="starting", version=API_VERSION, snapshot=None)
    return Health(
        status="ok",
        version=API_VERSION,
        snapshot=SnapshotInfo(
            id=snapshot.snapshot_id, as_of=snapshot.as_of, built_at=snapshot.built_at
        ),
    )
