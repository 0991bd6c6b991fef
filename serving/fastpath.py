"""A fast path for the requests clients make most: the two pre-rendered resources fetched one
by one (``GET /v1/entities/{name_or_id}``, ``GET /v1/signals/{signal_id}``) and plain searches
(``GET /v1/search`` with ``q`` or ``similar_to`` and at most ``limit``, ``diversity_cap``,
``role`` and ``content_type``).

The resources' answer is bytes the snapshot already holds, so routing and dependency solving in
FastAPI cost several times the work itself (bench/api measured 957 requests/s against 3,888 for
a bare FastAPI endpoint, with our code about 6% of the profile). A search's own work runs off the
event loop, but FastAPI's ~2 ms of Python per request runs on it, and under 8 concurrent
clients that queue is the tail latency (docs/benchmarks.md). This pure ASGI middleware answers
them directly: the same key check and rate limit (``serving.auth``), the same snapshot, the same
service function as the routes, and the same error bodies. Anything else, including a query
string it does not take whole (another parameter, a repeated one, a value not in the form the
route reads back unchanged) or a path the routes would reject, goes on to FastAPI unchanged;
the routes stay declared there for validation and the OpenAPI document.
``tests/serving/test_fastpath.py`` checks that both ways give the same answers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import parse_qsl

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from analytics.schema import CONTENT_TYPES, UNIT_ROLES
from serving import service
from serving.auth import admit, api_key_of, authenticate
from serving.errors import ApiError, error_response_of
from serving.service import (
    MAX_NAME_OR_ID_CHARS,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_UNIT_ID_CHARS,
)
from serving.store import LoadedSnapshot, SnapshotStore

_ENTITY_PREFIX = "/v1/entities/"
_SIGNAL_PREFIX = "/v1/signals/"
_SEARCH_PATH = "/v1/search"
_JSON = (b"content-type", b"application/json")


def _result_count(value: str) -> bool:
    """A ``limit`` or ``diversity_cap`` in canonical decimal form within the routes' bounds;
    "010", "+5" or " 5" go to FastAPI to be read its way."""
    return (
        value.isascii()
        and value.isdigit()
        and value == str(int(value))
        and 1 <= int(value) <= MAX_SEARCH_LIMIT
    )


# the search parameters taken here, each with the test its value passes in the route unchanged
_SEARCH_PARAMETERS: dict[str, Callable[[str], bool]] = {
    "q": lambda value: 1 <= len(value) <= MAX_QUERY_CHARS,
    "similar_to": lambda value: len(value) <= MAX_UNIT_ID_CHARS,
    "limit": _result_count,
    "diversity_cap": _result_count,
    "role": lambda value: value in UNIT_ROLES,
    "content_type": lambda value: value in CONTENT_TYPES,
}
_INTEGERS = ("limit", "diversity_cap")

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


def search_arguments(query_string: bytes) -> dict[str, Any] | None:
    """``service.search``'s keyword arguments for a search query string the route would read
    into the same values, or None when FastAPI should answer (any other parameter, a repeated
    one, a value it would reject or convert).

    The query string is split as Starlette splits it (``parse_qsl`` of its Latin-1 text,
    blank values kept).
    """
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    arguments: dict[str, Any] = {}
    for name, value in pairs:
        valid = _SEARCH_PARAMETERS.get(name)
        if valid is None or name in arguments or not valid(value):
            return None
        arguments[name] = int(value) if name in _INTEGERS else value
    return arguments


class FastPath:
    """Pure ASGI middleware answering the routes of ``route`` and the searches of
    ``search_arguments`` without FastAPI's router; it sits
    inside ``RequestIdMiddleware``, which adds the request id and rate-limit headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        if scope["path"] == _SEARCH_PATH:
            arguments = search_arguments(scope["query_string"])
            if arguments is None:
                await self.app(scope, receive, send)
                return
            await self._search(scope, receive, send, arguments)
            return
        found = None if scope["query_string"] else route(scope["path"])
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
        await _send_json(send, body)

    async def _search(
        self, scope: Scope, receive: Receive, send: Send, arguments: dict[str, Any]
    ) -> None:
        state = scope["app"].state
        try:
            principal = authenticate(state, api_key_of(scope))
            admit(state, scope, principal)
            store: SnapshotStore = state.store
            answer = partial(service.search, store.require(), state.query_embedder, **arguments)
            # embedding the query and both legs block: keep them off the event loop
            body = await to_thread.run_sync(answer, limiter=state.search_limiter)
        except ApiError as exc:
            await error_response_of(scope, exc)(scope, receive, send)
            return
        await _send_json(send, body)


async def _send_json(send: Send, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(len(body)).encode()), _JSON],
        }
    )
    await send({"type": "http.response.body", "body": body})
