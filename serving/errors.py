"""The API's one renderer of errors (docs/api.md §7, docs/design.md §9); the hierarchy it
renders is ``readmodel.errors``.

``add_exception_handlers`` installs the handlers and the request-id middleware: every response
carries ``X-Request-Id``, every error status except 422 answers with the error body, and an
unhandled exception becomes a 500 ``internal_error`` without leaking its traceback.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import secrets
from collections.abc import Mapping

import orjson
from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from readmodel.errors import ApiError

log = logging.getLogger("aimi.serving")

REQUEST_ID_HEADER = "X-Request-Id"
# An incoming id is honoured only when it is safe to echo into headers, bodies and logs.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")

# Codes for statuses that reach us as framework exceptions rather than as ApiError.
_CODES_BY_STATUS = {
    400: "invalid_parameters",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


RATE_LIMIT_HEADERS_STATE = "rate_limit_headers"


def request_id_of(scope: Scope) -> str | None:
    """The id the middleware gave this request (None outside the middleware)."""
    state = scope.get("state")
    if isinstance(state, dict):
        value = state.get("request_id")
        return value if isinstance(value, str) else None
    return None


def error_response(
    scope: Scope,
    status: int,
    code: str,
    message: str,
    *,
    field: str | None = None,
    retry_after: int | None = None,
    reset: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The error body of docs/api.md §7; ``Retry-After`` mirrors ``retry_after``."""
    body = {
        "error": {
            "code": code,
            "message": message,
            "status": status,
            "field": field,
            "request_id": request_id_of(scope),
            "retry_after": retry_after,
            "reset": reset,
        }
    }
    all_headers = dict(headers or {})
    if retry_after is not None:
        all_headers["Retry-After"] = str(retry_after)
    return Response(
        orjson.dumps(body), status_code=status, headers=all_headers, media_type="application/json"
    )


def error_response_of(scope: Scope, exc: ApiError) -> Response:
    """The error body of ``exc``."""
    return error_response(
        scope,
        exc.status,
        exc.code,
        exc.message,
        field=exc.field,
        retry_after=exc.retry_after,
        reset=exc.reset,
    )


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response_of(request.scope, exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    if status == 404:
        message = f"no route {request.url.path!r}; the API lives under /v1 (see /docs)"
    elif status == 405:
        message = f"method {request.method} is not allowed on {request.url.path!r}"
    else:
        message = str(exc.detail)
    code = _CODES_BY_STATUS.get(status, "http_error")
    return error_response(request.scope, status, code, message, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> Response:
    # 422 keeps FastAPI's own {detail: [...]} body (docs/api.md §7); the middleware adds the id.
    assert isinstance(exc, RequestValidationError)
    return await request_validation_exception_handler(request, exc)


class RequestIdMiddleware:
    """Pure ASGI middleware: assigns the request id, stamps ``X-Request-Id`` on every response
    (and the ``X-RateLimit-*`` headers on every authenticated one, from the request state the
    key check fills), and turns an exception nothing else handled into the 500 error body.

    Pure ASGI rather than ``BaseHTTPMiddleware``: no extra task or body buffering per request.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_request_id(scope) or new_request_id()
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        header = (REQUEST_ID_HEADER.lower().encode(), request_id.encode())
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != header[0]]
                headers.append(header)
                headers.extend(state.get(RATE_LIMIT_HEADERS_STATE, ()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception(
                "unhandled error in %s %s (request %s)",
                scope.get("method"),
                scope.get("path"),
                request_id,
            )
            if started:
                raise  # the status line is gone; the server can only drop the connection
            response = error_response(
                scope,
                500,
                "internal_error",
                f"internal error; quote request id {request_id} when reporting it",
            )
            await response(scope, receive, send_with_id)


# A request id is this process's random 64-bit prefix and a counter: 32 hex characters like a
# UUID's, unique across processes and restarts, without uuid4's system call and object per
# request (4 µs, a tenth of the fast path's own work). ``next`` on a count is atomic.
# A forked child (a server that preloads the app) draws its own prefix.
_ID_PREFIX = secrets.token_hex(8)
_ID_COUNTER = itertools.count(secrets.randbits(40))


def _new_id_prefix() -> None:
    global _ID_PREFIX, _ID_COUNTER
    _ID_PREFIX = secrets.token_hex(8)
    _ID_COUNTER = itertools.count(secrets.randbits(40))


os.register_at_fork(after_in_child=_new_id_prefix)


def new_request_id() -> str:
    return f"{_ID_PREFIX}{next(_ID_COUNTER) & 0xFFFF_FFFF_FFFF_FFFF:016x}"


def _incoming_request_id(scope: Scope) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"x-request-id":
            text = value.decode("latin-1")
            return text if _REQUEST_ID.fullmatch(text) else None
    return None


def add_exception_handlers(app: FastAPI) -> None:
    """Render every error the one way the spec describes (see the module docstring)."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_middleware(RequestIdMiddleware)
