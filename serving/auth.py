"""API-key authentication and rate limiting for the data endpoints (docs/api.md §5, §8):
``X-API-Key`` must be the dev key (``AIMI_DEV_API_KEY``) or an active key from the key store, and
the key's tier must have room in both windows. The ``X-RateLimit-*`` headers of the decision go on
the response whatever its status (``serving.errors.RequestIdMiddleware`` adds them)."""

from __future__ import annotations

import hmac
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader
from starlette.datastructures import State
from starlette.types import Scope

from readmodel.errors import RateLimited, Unauthorized, Unavailable
from serving.errors import RATE_LIMIT_HEADERS_STATE
from serving.keys import KeyStore
from serving.ratelimit import RateLimiter, RateLimitError

logger = logging.getLogger("aimi.ratelimit")


class ThrottledLog:
    """Logs an outage's error at most once per ``every`` seconds per process, with the number
    of requests it refused since the last line: while the storage is down every keyed request
    fails the same way, and a line per request buries the rest of the log."""

    def __init__(
        self,
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        log: logging.Logger | None = None,
        level: int = logging.ERROR,
    ) -> None:
        self.every = every
        self._clock = clock
        self._log = log or logger
        self._level = level
        self._lock = threading.Lock()
        self._last: float | None = None
        self._quiet = 0

    def error(self, message: str, detail: object) -> None:
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last < self.every:
                self._quiet += 1
                return
            quiet, self._quiet, self._last = self._quiet, 0, now
        more = f" ({quiet} more refused since the last line)" if quiet else ""
        self._log.log(self._level, "%s: %s%s", message, detail, more)


API_KEY_HEADER = "X-API-Key"
_API_KEY_NAME = API_KEY_HEADER.lower().encode()
DEV_KEY_ID = "dev"
DEV_TIER = "dev"

# auto_error=False: a missing key must give our 401 error body, not FastAPI's 403.
_api_key_header = APIKeyHeader(
    name=API_KEY_HEADER,
    auto_error=False,
    description="Your API key (`aimi keys create --name NAME` issues one).",
)


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key id, its name and its tier (rate limits are per tier)."""

    key_id: str
    name: str
    tier: str


def api_key_of(scope: Scope) -> str | None:
    """The first ``X-API-Key`` header of a raw ASGI request, as Starlette's ``Headers.get``
    reads it (ASGI servers lower-case header names)."""
    for name, value in scope["headers"]:
        if name == _API_KEY_NAME:
            text: str = value.decode("latin-1")
            return text
    return None


def authenticate(state: State, presented: str | None) -> Principal:
    """The principal ``presented`` names; 401 when it is missing, unknown or revoked.

    ``state`` is the app's state: its settings (the dev key) and key store.
    """
    if not presented:
        raise Unauthorized(f"missing API key: send it in the {API_KEY_HEADER} header")
    dev_key = state.settings.dev_api_key
    if dev_key is not None and hmac.compare_digest(
        presented.encode("utf-8"), dev_key.get_secret_value().encode()
    ):
        return Principal(key_id=DEV_KEY_ID, name="development key", tier=DEV_TIER)
    keys: KeyStore = state.keys
    record = keys.verify(presented)
    if record is None:
        raise Unauthorized(f"invalid or revoked API key in the {API_KEY_HEADER} header")
    return Principal(key_id=record.key_id, name=record.name, tier=record.tier)


def admit(state: State, scope: Scope, principal: Principal) -> None:
    """Count the request against the key's quota; 429 when a window is full. The decision's
    ``X-RateLimit-*`` headers go into the request's ``scope`` state whatever the outcome."""
    limiter: RateLimiter = state.limiter
    try:
        decision = limiter.check(principal.key_id, principal.tier, state.clock())
    except RateLimitError as exc:
        # the detail (a storage URL, a file path) is the operator's, logged with any password
        # redacted; the client learns only what it can act on
        outage_log: ThrottledLog = state.outage_log
        outage_log.error("rate limiting is unavailable", exc)
        raise Unavailable(
            "rate limiting is unavailable on the server; retry later", retry_after=5
        ) from None
    scope.setdefault("state", {})[RATE_LIMIT_HEADERS_STATE] = decision.header_pairs()
    if not decision.admitted:
        window = "monthly" if decision.month_exceeded else "per-minute"
        quota = decision.quota.per_month if decision.month_exceeded else decision.quota.per_minute
        raise RateLimited(
            f"{window} quota of {quota} requests for tier {principal.tier!r} is used up; "
            f"retry after {decision.retry_after} s",
            retry_after=decision.retry_after,
            reset=decision.reset,
        )


async def require_api_key(
    request: Request, presented: Annotated[str | None, Security(_api_key_header)]
) -> Principal:
    """The caller's principal, admitted by the rate limiter (401, 429 or 503 otherwise)."""
    principal = authenticate(request.app.state, presented)
    admit(request.app.state, request.scope, principal)
    return principal


ApiKeyDep = Annotated[Principal, Depends(require_api_key)]
