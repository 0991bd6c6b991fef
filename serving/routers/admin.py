"""``POST /v1/admin/refresh`` (docs/api.md §4.10, docs/design.md §10): re-materialize the derived
views, embed units not embedded yet, publish, swap, report. Only the admin secret opens it; an API
key alone never does.

The work runs in a child interpreter (``python -m pipelines refresh``): the API process never
imports Dagster, and a crash in a build cannot take the server down. The
request waits for it. A second refresh while one runs (or while ``aimi build`` runs) is refused
at once with 503 and ``retry_after``: the data dir's build lock decides, so two refreshes never
write at the same time.

Failed attempts (a missing or wrong secret) are counted per server process and UTC minute: past
``ADMIN_FAILURES_PER_MINUTE``, every attempt is refused with 429 until the minute ends, before
any secret is compared, and the failures are logged (at most a line per 30 s, with the count),
never with what was presented.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from anyio import to_thread
from fastapi import APIRouter, Request, Security
from fastapi.security import APIKeyHeader

from publishing.webhooks import start_in_background
from readmodel.errors import ApiError, RateLimited, Unauthorized, Unavailable
from readmodel.models import (
    Embeddings,
    MaterializedViews,
    RefreshResult,
    SnapshotInfo,
    error_responses,
)
from serving.auth import ThrottledLog
from serving.deps import SettingsDep, StoreDep
from serving.openapi import example
from warehouse.clock import ClockFileError, effective_clock
from warehouse.paths import DataDir
from warehouse.settings import Settings

log = logging.getLogger("aimi.serving")

ADMIN_SECRET_HEADER = "X-Admin-Secret"
REFRESH_TIMEOUT_SECONDS = 6 * 3600
BUSY_RETRY_SECONDS = 30
ADMIN_FAILURES_PER_MINUTE = 10  # per server process: a guess every 6 s, not thousands

router = APIRouter(prefix="/admin", tags=["admin"])

_admin_secret_header = APIKeyHeader(
    name=ADMIN_SECRET_HEADER,
    auto_error=False,
    scheme_name="AdminSecret",
    description="The admin secret (`AIMI_ADMIN_SECRET` or `AIMI_ADMIN_SECRET_SHA256`).",
)


def _expected_digest(settings: Settings) -> bytes | None:
    if settings.admin_secret_sha256 is not None:  # 64 hex digits: Settings checks it
        return bytes.fromhex(settings.admin_secret_sha256.get_secret_value().strip())
    if settings.admin_secret is not None and settings.admin_secret.get_secret_value():
        return hashlib.sha256(settings.admin_secret.get_secret_value().encode()).digest()
    return None


class AdminGuard:
    """Failed admin attempts in the current UTC minute, for one server process: past
    ``limit``, ``check`` refuses every attempt (429) until the minute ends. A legitimate
    admin locked out by someone guessing waits at most that minute."""

    def __init__(
        self, limit: int = ADMIN_FAILURES_PER_MINUTE, clock: Callable[[], float] = time.time
    ) -> None:
        self.limit = limit
        self._clock = clock
        self._lock = threading.Lock()
        self._minute = 0
        self._failures = 0
        self.log = ThrottledLog(log=log, level=logging.WARNING)

    def check(self) -> None:
        now = self._clock()
        minute = int(now) - int(now) % 60
        with self._lock:
            if minute != self._minute:
                self._minute, self._failures = minute, 0
            if self._failures < self.limit:
                return
        reset = minute + 60
        raise RateLimited(
            f"too many failed admin attempts ({self.limit} a minute); retry after "
            f"{max(1, reset - int(now))} s",
            retry_after=max(1, reset - int(now)),
            reset=reset,
        )

    def failed(self, why: Unauthorized) -> None:
        with self._lock:
            self._failures += 1
        # the error names what was missing or wrong, never the value presented
        self.log.error("admin refresh refused", why.message)


def require_admin(settings: Settings, presented: str | None) -> None:
    """401 unless ``presented`` is the admin secret; compared as SHA-256 digests in constant
    time, so neither the secret's length nor its prefix leaks through timing."""
    expected = _expected_digest(settings)
    if expected is None:
        raise Unauthorized(
            "the admin endpoint is disabled: set AIMI_ADMIN_SECRET (or AIMI_ADMIN_SECRET_SHA256)"
        )
    if not presented:
        raise Unauthorized(f"missing admin secret: send it in the {ADMIN_SECRET_HEADER} header")
    if not hmac.compare_digest(hashlib.sha256(presented.encode()).digest(), expected):
        raise Unauthorized(f"invalid admin secret in the {ADMIN_SECRET_HEADER} header")


def _run_refresh(settings: Settings, data: DataDir) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pipelines", "refresh", "--data-dir", str(data.root)]
    try:
        # the server's settings may not be the child's environment (a .env elsewhere, tests)
        clock = effective_clock(data, settings=settings)
    except ClockFileError as exc:
        raise ApiError(500, "internal_error", f"the refresh failed: {exc}") from None
    if clock.as_of is not None:
        command += ["--as-of", clock.as_of.isoformat()]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=REFRESH_TIMEOUT_SECONDS,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=False,
    )


@router.post(
    "/refresh",
    response_model=RefreshResult,
    summary="Refresh the derived views and embeddings, publish and serve",
    description="Re-materializes the aggregate views behind entity profiles, co-occurrence, the "
    "theme overview and the weekly counts, embeds units not embedded yet, publishes a snapshot "
    "and serves it before answering. Needs `X-Admin-Secret`; an API key is not enough. While "
    "a refresh or a build runs, another is refused with 503 and `retry_after`. The clock is "
    "`AIMI_AS_OF` when set, else the one the data dir remembers from `aimi build --as-of` or "
    "`--demo`, else now. Failed attempts are limited: past "
    f"{ADMIN_FAILURES_PER_MINUTE} a minute (per server process), every attempt is refused with "
    "429 until the minute ends.",
    responses=error_responses(
        401,
        429,
        500,
        503,
        example=example("refreshSnapshot"),
        too_many="Too many failed admin attempts (`rate_limited`): refused until the minute "
        "ends, whatever the secret; `retry_after` and `Retry-After` say how long.",
    ),
    operation_id="refreshSnapshot",
)
async def refresh(
    request: Request,
    settings: SettingsDep,
    store: StoreDep,
    secret: Annotated[str | None, Security(_admin_secret_header)] = None,
) -> RefreshResult:
    guard: AdminGuard = request.app.state.admin_guard
    guard.check()
    try:
        require_admin(settings, secret)
    except Unauthorized as exc:
        guard.failed(exc)
        raise
    done = await to_thread.run_sync(_run_refresh, settings, store.data_dir)
    if done.returncode == os.EX_TEMPFAIL:
        raise Unavailable(
            done.stderr.strip().removeprefix("aimi refresh: "), retry_after=BUSY_RETRY_SECONDS
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ApiError(500, "internal_error", f"the refresh failed: {last}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    await to_thread.run_sync(store.refresh)  # serve it now, not at the next poll
    # the watchlists' deliveries, as after `aimi build`: in a process of their own, so a dead
    # endpoint never holds up this answer (under Dagster the publish sensor starts a run too;
    # the two are serialized by the deliveries' lock and send nothing twice)
    try:
        start_in_background(store.data_dir)
    except OSError as exc:
        log.error("the refresh published, but its webhook deliveries did not start: %s", exc)
    published = report["snapshot"]
    return RefreshResult(
        status="ok",
        materialized_views=MaterializedViews(
            views_refreshed=len(report["views"]), views=report["views"]
        ),
        embeddings=Embeddings(units_embedded=report["units_embedded"]),
        snapshot=SnapshotInfo(
            id=published["id"],
            as_of=datetime.fromisoformat(published["as_of"]),
            built_at=datetime.fromisoformat(published["built_at"]),
        ),
    )
