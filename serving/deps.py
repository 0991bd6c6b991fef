"""``Annotated`` dependency aliases the routes declare: the settings, the caller's key and the
snapshot a request answers from."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from readmodel.store import LoadedSnapshot, SnapshotStore
from serving.auth import ApiKeyDep, Principal, require_api_key
from warehouse.settings import Settings

__all__ = [
    "ApiKeyDep",
    "Principal",
    "SettingsDep",
    "SnapshotDep",
    "StoreDep",
    "current_snapshot",
    "require_api_key",
]


async def app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def snapshot_store(request: Request) -> SnapshotStore:
    store: SnapshotStore = request.app.state.store
    return store


async def current_snapshot(request: Request) -> LoadedSnapshot:
    """The one snapshot this request uses throughout, even if a swap happens meanwhile."""
    store: SnapshotStore = request.app.state.store
    return store.require()


SettingsDep = Annotated[Settings, Depends(app_settings)]
StoreDep = Annotated[SnapshotStore, Depends(snapshot_store)]
SnapshotDep = Annotated[LoadedSnapshot, Depends(current_snapshot)]
