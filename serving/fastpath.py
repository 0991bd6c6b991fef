"""A fast path for the two pre-rendered resources clients fetch one by one:
``GET /v1/entities/{name_or_id}`` and ``GET /v1/signals/{signal_id}``.

Their answer is bytes the snapshot already holds, so routing and dependency solving in FastAPI
cost several times the work itself (bench/api measured 957 requests/s against 3,888 for a bare
FastAPI endpoint, with our code about 6% of the profile). This pure ASGI middleware answers
them directly: the same key check and rate limit (``serving.auth``), the same snapshot, the same
service function as the routes, and the same error bodies. Anything else, including these paths
with a query string or a path the routes would reject, goes on to FastAPI unchanged; the routes
stay declared there for validation and the OpenAPI document. ``tests/serving/test_fastpath.py``
checks that both ways give the same answers.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from serving import service
from serving.auth import admit, api_key_of, authenticate
from serving.errors import ApiError, error_response_of
from serving.service import MAX_NAME_OR_ID_CHARS
from serving.store import LoadedSnapshot, SnapshotStore

_ENTITY_PREFIX = "/v1/entities/"
_SIGNAL_PREFIX = "/v1/signals/"
_JSON = (b"content-type", b"application/json")

Answer = Callable[[LoadedSnapshot, str], bytes]


def route(path: str) -> tuple[Answer, str] | None:
    """The service function and argument for ``path``, or None when FastAPI should answer.

    Mirrors the routes' matching exactly: ``{name_or_id:path}`` is Starlette's ``.*``, which
    stops at a newline, and ``trending`` is the trending route; ``{signal_id}`` is ``[^/]+``.
    """
    if path.startswith(_ENTITY_PREFIX):
        name_or_id = path[len(_ENTITY_PREFIX) :]
        if (
            name_or_id
            and name_or_id != "trending"
            and "\n" not in name_or_id
            and len(name_or_id) <= MAX_NAME_OR_ID_CHARS
        ):
            return service.entity_profile, name_or_id
    elif path.startswith(_SIGNAL_PREFIX):
        signal_id = path[len(_SIGNAL_PREFIX) :]
        if signal_id and "/" not in signal_id:
            return service.get_signal, signal_id
    return None


class FastPath:
    """Pure ASGI middleware answering the routes of ``route`` without FastAPI's router; it sits
    inside ``RequestIdMiddleware``, which adds the request id and rate-limit headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = None
        if scope["type"] == "http" and scope["method"] == "GET" and not scope["query_string"]:
            found = route(scope["path"])
        if found is None:
            await self.app(scope, receive, send)
            return
        answer, argument = found
        state = scope["app"].state
        try:
            principal = authenticate(state, api_key_of(scope))
            admit(state, scope, principal)
            store: SnapshotStore = state.store
            body = answer(store.require(), argument)
        except ApiError as exc:
            await error_response_of(scope, exc)(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(body)).encode()), _JSON],
            }
        )
        await send({"type": "http.response.body", "body": body})
