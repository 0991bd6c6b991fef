"""A fast path for the requests clients make most: the three pre-rendered resources fetched one
by one (``GET /v1/entities/{name_or_id}``, ``GET /v1/signals/{signal_id}``,
``GET /v1/stories/{story_id}``), the signal list and change feed (``GET /v1/signals`` with any of
its parameters but the deprecated ``q``), the story list (``GET /v1/stories``, any parameter) and
plain searches (``GET /v1/search`` with ``q`` or ``similar_to`` and at most ``limit``,
``diversity_cap``, ``role`` and ``content_type``).

The resources' answer is bytes the snapshot already holds, so routing and dependency solving in
FastAPI cost several times the work itself (bench/api measured 957 requests/s against 3,888 for
a bare FastAPI endpoint, with our code about 6% of the profile). A search's own work runs off the
event loop, but FastAPI's ~2 ms of Python per request runs on it, and under 8 concurrent
clients that queue is the tail latency (docs/journal/2026-11-25.md). This pure ASGI middleware
answers them directly: the same key check and rate limit (``serving.auth``), the same snapshot,
the same service function as the routes, and the same error bodies. Anything else, including a
query string it does not take whole (another parameter, a repeated one, a value not in the form the
route reads back unchanged) or a path the routes would reject, goes on to FastAPI unchanged;
the routes stay declared there for validation and the OpenAPI document.
``tests/serving/test_fastpath.py`` checks that both ways give the same answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, get_args
from urllib.parse import parse_qsl

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from analytics.schema import UNIT_ROLES
from readmodel import service
from readmodel.cursor import MAX_CURSOR_CHARS
from readmodel.errors import ApiError
from readmodel.responses import MAX_LIMIT
from readmodel.service import (
    MAX_NAME_OR_ID_CHARS,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_UNIT_ID_CHARS,
    SignalSort,
)
from readmodel.store import LoadedSnapshot, SnapshotStore
from serving.arguments import SIGNAL_FILTERS, STORY_FILTERS
from serving.auth import admit, api_key_of, authenticate
from serving.errors import error_response_of
from serving.filters import CONTENT_TYPE, Declined

_ENTITY_PREFIX = "/v1/entities/"
_SIGNAL_PREFIX = "/v1/signals/"
_STORY_PREFIX = "/v1/stories/"
MAX_STORY_ID_CHARS = 64  # the route's bound: a longer id is FastAPI's to refuse
_JSON = (b"content-type", b"application/json")


def _count(highest: int) -> Callable[[str], int]:
    """A page size in canonical decimal form within ``1…highest``; "010", "+5" or " 5" go to
    FastAPI to be read its way."""

    def read(value: str) -> int:
        if not (value.isascii() and value.isdigit() and value == str(int(value))):
            raise Declined(value)
        if not 1 <= int(value) <= highest:
            raise Declined(value)
        return int(value)

    return read


def _text(shortest: int, longest: int) -> Callable[[str], str]:
    def read(value: str) -> str:
        if not shortest <= len(value) <= longest:
            raise Declined(value)
        return value

    return read


def _choice(values: tuple[str, ...]) -> Callable[[str], str]:
    def read(value: str) -> str:
        if value not in values:
            raise Declined(value)
        return value

    return read


@dataclass(frozen=True)
class QueryRoute:
    """A route with query parameters answered here: how each parameter taken is read (any other
    goes to FastAPI), the service function, and whether it blocks (then it runs in a worker
    thread, at most ``AIMI_SEARCH_THREADS`` at once)."""

    parameters: Mapping[str, Callable[[str], Any]]
    answer: Callable[..., bytes]
    blocking: bool


QUERY_ROUTES: dict[str, QueryRoute] = {
    "/v1/search": QueryRoute(
        {
            "q": _text(1, MAX_QUERY_CHARS),
            "similar_to": _text(0, MAX_UNIT_ID_CHARS),
            "limit": _count(MAX_SEARCH_LIMIT),
            "diversity_cap": _count(MAX_SEARCH_LIMIT),
            "role": _choice(UNIT_ROLES),
            "content_type": CONTENT_TYPE.read,
        },
        service.search,
        blocking=True,
    ),
    # `q` (renamed `keyword`, answered with Deprecation headers) stays the route's
    "/v1/signals": QueryRoute(
        {
            # the list filters, read as their declarations say (serving.filters)
            **{arg.name: arg.declared.read for arg in SIGNAL_FILTERS},
            "sort": _choice(get_args(SignalSort)),
            "cursor": _text(0, MAX_CURSOR_CHARS),
            "limit": _count(MAX_LIMIT),
        },
        service.list_signals,
        blocking=False,
    ),
    "/v1/stories": QueryRoute(
        {
            **{arg.name: arg.declared.read for arg in STORY_FILTERS},
            "cursor": _text(0, MAX_CURSOR_CHARS),
            "limit": _count(MAX_LIMIT),
        },
        service.list_stories,
        blocking=False,
    ),
}

Answer = Callable[[LoadedSnapshot, str], bytes]


def route(path: str) -> tuple[Answer, str] | None:
    """The service function and argument for ``path``, or None when FastAPI should answer.

    Mirrors the routes' matching exactly: ``{name_or_id:path}`` is Starlette's ``.*``, which
    stops at a newline, and ``trending`` is the trending route; ``{signal_id}`` and
    ``{story_id}`` are ``[^/]+`` (a story id at most ``MAX_STORY_ID_CHARS`` long).
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
    elif path.startswith(_STORY_PREFIX):
        story_id = path[len(_STORY_PREFIX) :]
        if story_id and "/" not in story_id and len(story_id) <= MAX_STORY_ID_CHARS:
            return service.get_story, story_id
    return None


def query_arguments(route: QueryRoute, query_string: bytes) -> dict[str, Any] | None:
    """``route``'s service keyword arguments for a query string the FastAPI route would read
    into the same values, or None when FastAPI should answer (any other parameter, a repeated
    one, a value it would reject or convert).

    The query string is split as Starlette splits it (``parse_qsl`` of its Latin-1 text,
    blank values kept).
    """
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    arguments: dict[str, Any] = {}
    for name, value in pairs:
        read = route.parameters.get(name)
        if read is None or name in arguments:
            return None
        try:
            arguments[name] = read(value)
        except Declined:
            return None
    return arguments


class FastPath:
    """Pure ASGI middleware answering the routes of ``route`` and the query strings of
    ``query_arguments`` without FastAPI's router; it sits
    inside ``RequestIdMiddleware``, which adds the request id and rate-limit headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        query_route = QUERY_ROUTES.get(scope["path"])
        if query_route is not None:
            arguments = query_arguments(query_route, scope["query_string"])
            if arguments is None:
                await self.app(scope, receive, send)
                return
            await self._query(scope, receive, send, query_route, arguments)
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

    async def _query(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        query_route: QueryRoute,
        arguments: dict[str, Any],
    ) -> None:
        state = scope["app"].state
        try:
            principal = authenticate(state, api_key_of(scope))
            admit(state, scope, principal)
            store: SnapshotStore = state.store
            snapshot = store.require()
            if query_route.blocking:
                answer = partial(query_route.answer, snapshot, state.query_embedder, **arguments)
                # embedding the query and both legs block: keep them off the event loop
                body = await to_thread.run_sync(answer, limiter=state.search_limiter)
            else:
                body = query_route.answer(snapshot, **arguments)
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
