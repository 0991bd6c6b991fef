"""``GET /v1/health``: liveness, API version and the snapshot being served; ``GET /v1/changelog``:
the API changelog (``docs/changelog.md``), where deprecation ``Link`` headers point. Neither
needs a key."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Response

from readmodel.errors import NotFound
from readmodel.models import Health, SnapshotInfo, error_responses
from readmodel.version import API_VERSION
from serving.deps import StoreDep
from serving.openapi import example

router = APIRouter(tags=["health"])

CHANGELOG = Path(__file__).resolve().parents[2] / "docs" / "changelog.md"
# the head of the table, as the document shows it
CHANGELOG_EXAMPLE = (
    "| date | status | item | migration note |\n"
    "|---|---|---|---|\n"
    "| 2026-09-12 | Shipped | `min_signals` on `/v1/entities`, default 2 | Pass "
    "`min_signals=1` to include single-signal entities. |\n"
)


@router.get(
    "/health",
    response_model=Health,
    responses={200: {"content": {"application/json": {"example": example("getHealth")}}}},
    operation_id="getHealth",
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


@router.get(
    "/changelog",
    response_class=Response,
    responses={
        200: {
            "content": {"text/markdown": {"example": CHANGELOG_EXAMPLE}},
            "description": "The changelog.",
        },
        **error_responses(404),
    },
    operation_id="getChangelog",
    summary="API changelog",
    description="Dated entries (`Announcement`, `Deprecated`, `Shipped`, `Sunset`) with a "
    "migration note each, as Markdown. The `Link` of a deprecated parameter's response points "
    "here. No key needed.",
)
async def changelog() -> Response:
    try:
        text = CHANGELOG.read_bytes()
    except FileNotFoundError:
        raise NotFound("the changelog is not installed with this copy of the service") from None
    return Response(text, media_type="text/markdown; charset=utf-8")
