"""The FastAPI application factory: settings, key store, snapshot store, error rendering and
the /v1 routers, with a lifespan that loads the snapshot and follows its pointer."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from anyio import CapacityLimiter, to_thread
from fastapi import FastAPI

from readmodel.store import SnapshotStore
from readmodel.version import API_VERSION
from retrieval.query_embedder import QueryEmbedder, load_query_model
from serving.auth import ThrottledLog
from serving.errors import add_exception_handlers
from serving.fastpath import FastPath
from serving.keys import KeyStore
from serving.mcp import McpEndpoint, create_mcp_server, streamable_http_app
from serving.openapi import document
from serving.ratelimit import open_limiter
from serving.routers import v1_router
from serving.routers.admin import AdminGuard
from warehouse.object_store import SnapshotPuller, open_object_store
from warehouse.paths import DataDir
from warehouse.settings import Settings, load_settings

DESCRIPTION = (
    "Verified, source-cited market intelligence about the AI economy. Every data endpoint "
    "needs an `X-API-Key` header; `/v1/health` does not."
)


def search_threads(settings: Settings) -> int:
    """How many searches run at once (``AIMI_SEARCH_THREADS``): unset, one more than the cores
    this process may use, so one waits ready while the others run."""
    return settings.search_threads or len(os.sched_getaffinity(0)) + 1


def create_app(settings: Settings | None = None, *, fast_path: bool = True) -> FastAPI:
    """A new app over ``settings`` (the environment's when None); tests pass their own.

    ``fast_path=False`` leaves every request to the FastAPI routes (``serving.fastpath``
    answers the pre-rendered entity and signal resources otherwise); tests compare the two.
    """
    settings = settings or load_settings()
    data_dir = DataDir.from_env(settings.data_dir)
    object_store = open_object_store(settings.snapshot_store)
    store = SnapshotStore(
        data_dir,
        poll_seconds=settings.snapshot_poll_seconds,
        puller=SnapshotPuller(data_dir, object_store) if object_store else None,
    )
    query_embedder = QueryEmbedder(partial(load_query_model, settings))
    mcp_server = create_mcp_server(store.require, query_embedder)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Verifying checksums reads every table: keep that off the event loop.
        await to_thread.run_sync(store.start)
        _app.state.limiter = open_limiter(
            settings.rate_limit_storage, data_dir.root, settings.rate_limit_tiers
        )
        _app.state.search_limiter = CapacityLimiter(search_threads(settings))
        query_embedder.warm()
        # a session manager runs once: each lifespan (tests run several) gets its own
        _app.state.mcp_app = streamable_http_app(mcp_server)
        try:
            async with mcp_server.session_manager.run():
                yield
        finally:
            await to_thread.run_sync(store.stop)
            # the limiter the app holds now: whoever replaced the first one closed that one
            _app.state.limiter.close()

    app = FastAPI(
        title="aimi",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        # /docs and /redoc come from serving.openapi.document, with assets served from here
        docs_url=None,
        redoc_url=None,
        # FastAPI's OpenTelemetry hooks asked the global providers on every request (~10 µs,
        # a tenth of a page of signals); nothing here configures OpenTelemetry, and the fast
        # path answers most requests outside FastAPI's routes anyway
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.settings = settings
    app.state.store = store
    app.state.query_embedder = query_embedder
    app.state.keys = KeyStore(data_dir.keys_file)
    app.state.clock = time.time  # the rate-limit windows' clock; tests move it
    app.state.outage_log = ThrottledLog()  # one line per 30 s while the limiter's storage is down
    app.state.admin_guard = AdminGuard()  # failed admin attempts, limited per minute
    # added before add_exception_handlers, so they sit inside its request-id middleware
    app.add_middleware(McpEndpoint)
    if fast_path:
        app.add_middleware(FastPath)
    add_exception_handlers(app)
    app.include_router(v1_router())
    document(app)
    return app
