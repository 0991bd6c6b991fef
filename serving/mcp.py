"""The MCP server: nine read-only tools over the same service functions as the /v1 routes
(``readmodel.service``), so a tool fails with the REST error's message and, with ``full=true`` (and
always for the three single-object tools), returns the object the REST endpoint returns. By
default the four list tools return a compact projection of it (``COMPACT``), so a page of
results does not flood an agent's context.

Two transports: stdio (``aimi mcp``, a local process over the data dir, no key) and streamable
HTTP at ``/mcp`` inside ``aimi serve``, where the same ``X-API-Key`` and rate limit as /v1
apply (``serving.app``).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

import orjson
from anyio import to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import Field
from starlette.types import ASGIApp, Receive, Scope, Send

from analytics.themes import Axis
from readmodel import service
from readmodel.errors import ApiError
from readmodel.responses import DEFAULT_LIMIT
from readmodel.service import ABOUT, Embed
from readmodel.store import LoadedSnapshot
from readmodel.version import API_VERSION
from serving import filters
from serving.arguments import ENTITIES, SEARCH, SIGNALS, STORIES, TRENDING
from serving.auth import admit, api_key_of, authenticate
from serving.errors import error_response_of

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "aimi: verified, source-cited market intelligence about the AI economy. Start with "
    "get_themes or list_entities; search finds verified units with their source; list_signals "
    "with sort='changed' is the change feed; list_changes, called without a cursor, gives "
    "the cursor to watch from. The list tools (get_themes, list_entities, "
    "get_trending_entities, list_signals, list_changes, search) return compact items by "
    "default: the ids, names, titles, dates and a short text you need to choose what to open "
    "next with get_theme, get_entity_profile or get_signal, which return whole objects; pass "
    "full=true to a list tool for every field. Paged tools return next_cursor: pass it back "
    "as cursor until has_more is false."
)

# Every tool only reads an immutable snapshot: repeating a call changes nothing, and it reaches
# no system beyond the snapshot.
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

Full = Annotated[
    bool,
    Field(
        description="false (default): compact items (ids, names, titles, dates, a short text). "
        "true: every field, as the REST API returns it."
    ),
]

# What each tool says to an MCP client. The REST texts (``service.ABOUT``) hold where they
# speak of parameters and data alike; the two below speak of paths and status codes, which
# only a REST client sees.
_SAID_FOR_MCP = {
    "get_entity_profile": (
        "By public id (`ent:/…`), display name or alias, any case, whatever its signal count. "
        "`related_entities`: top 25 by signals in common."
    ),
    "get_theme": (
        "One theme by its axis and canonical `label`, matched in any case (e.g. "
        "`Capital & Investment`), with its related themes. Shorthands such as `C&I` are "
        "unknown labels: the error names the canonical label."
    ),
}
COMPACT_NOTE = (
    " Compact items by default (the fields to choose what to open next); `full=true` returns "
    "every field."
)

# A projection of a response: a key maps to None (kept whole), to a number (a string cut to
# that many characters, ending in "…" when cut) or to a nested projection (applied to an
# object, or to each object of a list). Keys absent from the response stay absent.
Projection = dict[str, "Projection | int | None"]
SHORT_TEXT = 200
_ENTITY_REF: Projection = {"entity_id": None, "name": None}
# a signal card as list_signals and list_changes return it
_SIGNAL_CARD: Projection = {
    "signal_id": None,
    "title": None,
    "published_at": None,
    "content_type": None,
    "domain": None,
    "thesis": SHORT_TEXT,
    "synopsis": SHORT_TEXT,
    "entities": _ENTITY_REF,
    "story_id": None,
}
COMPACT: dict[str, Projection] = {
    "get_themes": {
        "themes": {
            "axis": None,
            "label": None,
            "signal_count": None,
            "direction": None,
            "notability": None,
            "story_count": None,
        }
    },
    "list_entities": {
        "entities": {
            "entity_id": None,
            "name": None,
            "type": None,
            "signal_count": None,
            "last_seen": None,
            "direction": None,
            "notability": None,
            "story_count": None,
        },
        "has_more": None,
        "next_cursor": None,
    },
    "get_trending_entities": {
        "data": {
            "entity_id": None,
            "display_name": None,
            "type_primary": None,
            "signal_count": None,
            "last_seen": None,
            "trend": {"current_week": None, "prior_week": None, "z_score": None},
        }
    },
    "list_signals": {
        "signals": _SIGNAL_CARD,
        "has_more": None,
        "next_cursor": None,
    },
    "list_changes": {
        "signals": _SIGNAL_CARD,
        "has_more": None,
        "next_cursor": None,
        "snapshot_id": None,
    },
    "search": {
        "results": {
            "unit": {
                "id": None,
                "role": None,
                "text": SHORT_TEXT,
                "corroboration": {"count": None, "sources": None},
            },
            "citation": {"signal_id": None, "title": None, "published_at": None},
            "relevance_score": None,
        },
        "query": None,
        "similar_to": None,
    },
}
DESCRIPTIONS: dict[str, str] = {
    name: _SAID_FOR_MCP.get(name, text) + (COMPACT_NOTE if name in COMPACT else "")
    for name, text in ABOUT.items()
}


def project(value: Any, projection: Projection | int | None) -> Any:
    """``value`` cut down to ``projection`` (see ``Projection``)."""
    if projection is None:
        return value
    if isinstance(projection, int):
        if isinstance(value, str) and len(value) > projection:
            return value[: projection - 1].rstrip() + "…"
        return value
    if isinstance(value, list):
        return [project(item, projection) for item in value]
    if isinstance(value, dict):
        return {
            key: project(value[key], inner) for key, inner in projection.items() if key in value
        }
    return value


# Names agents bring from other APIs, and the argument each one means here (when the tool has
# it): what a spelling match alone would not suggest ("query" is not close to "q").
_MEANT = {
    "query": ("q", "keyword"),
    "text": ("q", "keyword"),
    "search": ("q", "keyword"),
    "q": ("keyword", "name"),
    "page_size": ("limit",),
    "per_page": ("limit",),
    "size": ("limit",),
    "count": ("limit",),
    "id": ("signal_id", "entity_id", "story_id", "theme_id"),
    "since": ("published_after", "cursor"),
    "until": ("published_before",),
}


def unknown_argument_message(given: str, known: frozenset[str]) -> str:
    """``unknown argument `query`; did you mean `q`?``, or the arguments the tool takes when
    nothing is close."""
    meant = [name for name in _MEANT.get(given, ()) if name in known]
    meant = meant or difflib.get_close_matches(given, sorted(known), n=1, cutoff=0.6)
    if meant:
        return f"unknown argument `{given}`; did you mean `{meant[0]}`?"
    listed = ", ".join(f"`{name}`" for name in sorted(known)) or "none"
    return f"unknown argument `{given}`; the arguments are {listed}"


class _StrictServer(MCPServer):
    """An ``MCPServer`` that refuses a call with an argument its tool does not take, naming the
    one meant, instead of dropping it silently (a search sent ``query`` for ``q`` then failed
    with "give q or similar_to", which sent the agent looking in the wrong place)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.arguments: dict[str, frozenset[str]] = {}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = self.arguments.get(name)
        if known is not None:
            for given in arguments:
                if given not in known:
                    raise ToolError(
                        f"invalid_parameters (400): {unknown_argument_message(given, known)}"
                    )
        return await super().call_tool(name, arguments, context)


@dataclass(frozen=True)
class _Tools:
    """What every tool shares: the server it is registered on, the current snapshot and the
    query encoder."""

    server: _StrictServer
    snapshot: Callable[[], LoadedSnapshot]
    embed: Embed

    def answer(self, fn: Callable[..., bytes], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """``fn``'s body over the current snapshot as an object; its ApiError as a tool error."""
        try:
            body = fn(self.snapshot(), *args, **kwargs)
        except ApiError as exc:
            raise ToolError(f"{exc.code} ({exc.status}): {exc.message}") from None
        parsed: dict[str, Any] = orjson.loads(body)
        return parsed

    def tool(self, name: str, title: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        register = self.server.tool(
            name=name, title=title, description=DESCRIPTIONS[name], annotations=READ_ONLY
        )

        def registered(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.server.arguments[name] = frozenset(inspect.signature(fn).parameters)
            return register(fn)

        return registered


def listed(name: str, full: bool, body: dict[str, Any]) -> dict[str, Any]:
    """A list tool's answer: ``body`` whole, or its compact projection."""
    compact: dict[str, Any] = body if full else project(body, COMPACT[name])
    return compact


def create_mcp_server(snapshot: Callable[[], LoadedSnapshot], embed: Embed) -> MCPServer:
    """The MCP server over whatever snapshot ``snapshot()`` returns at each call (the store's
    current one; it raises the 503 ``ApiError`` while there is none) and the query encoder."""
    server = _StrictServer(
        name="aimi",
        title="aimi market intelligence",
        instructions=INSTRUCTIONS,
        version=API_VERSION,
    )
    tools = _Tools(server, snapshot, embed)
    for register in (_theme_tools, _entity_tools, _signal_tools, _story_tools, _search_tool):
        register(tools)
    return server


def _theme_tools(tools: _Tools) -> None:
    """The theme tools: ``get_themes``, ``get_theme``."""

    @tools.tool("get_themes", "The 12 themes")
    async def get_themes(
        axis: Annotated[Axis | None, Field(description="Only this axis.")] = None,
        full: Full = False,
    ) -> dict[str, Any]:
        return listed("get_themes", full, tools.answer(service.list_themes, axis))

    @tools.tool("get_theme", "One theme with related themes")
    async def get_theme(
        axis: Annotated[Axis, Field(description="The theme's axis.")],
        label: Annotated[
            str, Field(max_length=service.MAX_THEME_CHARS, description="A canonical label.")
        ],
    ) -> dict[str, Any]:
        return tools.answer(service.get_theme, axis, label)


def _entity_tools(tools: _Tools) -> None:
    """The entity tools: ``list_entities``, ``get_entity_profile``, ``get_trending_entities``."""

    @tools.tool("list_entities", "List entity profiles")
    @ENTITIES.tool
    async def list_entities(*, full: Full = False, **given: Any) -> dict[str, Any]:
        body = tools.answer(service.list_entities, **ENTITIES.forward(given))
        return listed("list_entities", full, body)

    @tools.tool("get_entity_profile", "One entity profile with related entities")
    async def get_entity_profile(
        name_or_id: Annotated[
            str,
            Field(
                max_length=service.MAX_NAME_OR_ID_CHARS,
                description="Public entity id (ent:/…) or display name or alias.",
            ),
        ],
    ) -> dict[str, Any]:
        return tools.answer(service.entity_profile, name_or_id)

    @tools.tool("get_trending_entities", "Trending entities")
    @TRENDING.tool
    async def get_trending_entities(*, full: Full = False, **given: Any) -> dict[str, Any]:
        body = tools.answer(service.trending_entities, **TRENDING.forward(given))
        return listed("get_trending_entities", full, body)


def _signal_tools(tools: _Tools) -> None:
    """The signal tools: ``list_signals`` (the change feed too), ``list_changes`` (what
    changed since a cursor, for watchers), ``get_signal``."""

    @tools.tool("list_signals", "List signals, newest first, or the change feed")
    @SIGNALS.tool
    async def list_signals(*, full: Full = False, **given: Any) -> dict[str, Any]:
        body = tools.answer(service.list_signals, **SIGNALS.forward(given))
        return listed("list_signals", full, body)

    @tools.tool("list_changes", "What changed since a cursor")
    async def list_changes(
        cursor: Annotated[
            str | None,
            Field(
                description="`next_cursor` of the last call; none: start watching now (no "
                "signals, the cursor of the feed's head)."
            ),
        ] = None,
        from_start: Annotated[
            bool, Field(description="Without a cursor: page from the first change instead.")
        ] = False,
        entity: Annotated[str | None, filters.ENTITY.field()] = None,
        theme: Annotated[str | None, filters.THEME.field()] = None,
        keyword: Annotated[str | None, filters.KEYWORD.field()] = None,
        limit: Annotated[int, filters.LIMIT.field()] = DEFAULT_LIMIT,
        full: Full = False,
    ) -> dict[str, Any]:
        body = tools.answer(
            service.list_changes,
            entity=entity,
            theme=theme,
            keyword=keyword,
            cursor=cursor,
            from_start=from_start,
            limit=limit,
        )
        return listed("list_changes", full, body)

    @tools.tool("get_signal", "One signal with its verified units")
    async def get_signal(
        signal_id: Annotated[str, Field(description="The signal's `signal_id`.")],
    ) -> dict[str, Any]:
        return tools.answer(service.get_signal, signal_id)


def _story_tools(tools: _Tools) -> None:
    """The story tools: ``list_stories``, ``get_story``."""

    @tools.tool("list_stories", "List stories, newest activity first")
    @STORIES.tool
    async def list_stories(**given: Any) -> dict[str, Any]:
        return tools.answer(service.list_stories, **STORIES.forward(given))

    @tools.tool("get_story", "One story with its signals")
    async def get_story(
        story_id: Annotated[str, Field(max_length=64, description="The story's `story_id`.")],
    ) -> dict[str, Any]:
        return tools.answer(service.get_story, story_id)


def _search_tool(tools: _Tools) -> None:
    """The ``search`` tool: the query embedding and both legs run off the event loop."""

    @tools.tool("search", "Search verified units")
    @SEARCH.tool
    async def search(*, full: Full = False, **given: Any) -> dict[str, Any]:
        # the query embedding and both legs block: off the event loop, like the REST route
        blocking = partial(tools.answer, service.search, tools.embed, **SEARCH.forward(given))
        return listed("search", full, await to_thread.run_sync(blocking))


class McpEndpoint:
    """Pure ASGI middleware serving streamable HTTP MCP at ``/mcp`` behind the API key.

    The MCP app is the one the app's lifespan made (``app.state.mcp_app``). The key check and
    rate limit are the /v1 ones: a missing key is the same 401 body, and
    every HTTP request to ``/mcp`` counts against the key's quota. The MCP app is stateless
    (JSON responses, no session held in a worker), so it works across several workers.
    """

    def __init__(self, app: ASGIApp, path: str = MCP_PATH) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        try:
            admit(state, scope, authenticate(state, api_key_of(scope)))
        except ApiError as exc:
            await error_response_of(scope, exc)(scope, receive, send)
            return
        mcp_app: ASGIApp = state.mcp_app  # set by the app's lifespan
        await mcp_app(scope, receive, send)


def streamable_http_app(server: MCPServer) -> ASGIApp:
    """The MCP server's streamable HTTP app, stateless with JSON responses. Its session
    manager must run for the app's lifetime (``server.session_manager.run()``).

    DNS-rebinding protection is off: it checks ``Host`` against a list of names, which would
    refuse every deployment behind a proxy, and a page that rebinds a name cannot send the
    ``X-API-Key`` it does not know.
    """
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
