"""The /v1 routers, one per resource, gathered under one versioned prefix."""

from __future__ import annotations

from fastapi import APIRouter

from serving.routers import admin, entities, health, search, signals, stories, themes

API_PREFIX = "/v1"


def v1_router() -> APIRouter:
    """Every resource router mounted under ``/v1``."""
    router = APIRouter(prefix=API_PREFIX)
    for resource in (
        health.router,
        search.router,
        signals.router,
        entities.router,
        themes.router,
        stories.router,
        admin.router,
    ):
        router.include_router(resource)
    return router
