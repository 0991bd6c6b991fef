"""The MCP server: eight read-only tools over the same service functions as the /v1 routes
(``serving.service``), so a tool returns the object the REST endpoint returns and fails with the
REST error's message.

Two transports: stdio (``aimi mcp``, a local process over the data dir, no key) and streamable
HTTP at ``/mcp`` inside ``aimi serve``, where the same ``X-API-Key`` and rate limit as /v1
apply (``serving.app``).
"""

from __future__ import annotations

from collections.abc import Callable
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

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.schema import ContentType, UnitRole
from analytics.themes import Axis
from analytics.trends import Mode
from serving import service
from serving.auth import admit, api_key_of, authenticate
from serving.catalog import EntitySort
from serving.errors import ApiError, error_response_of
from serving.models import Confidence, Direction, IsoDateTime, Notability, Scale, Stability
from serving.responses import DEFAULT_LIMIT, MAX_LIMIT
from serving.service import ABOUT, Embed, SignalSort
from serving.store import LoadedSnapshot
from serving.version import API_VERSION

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "aimi: verified, source-cited market intelligence about the AI economy. Every object is "
    "the JSON the /v1 REST API returns for the same request (the tool descriptions are the "
    "endpoints'). Start with get_themes or list_entities; search finds verified units with "
    "their verbatim evidence; list_signals with sort='changed' is the change feed. List tools "
    "page with next_cursor: pass it back as cursor until has_more is false."
)

# Every tool only reads an immutable snapshot: repeating a call changes nothing, and it reaches
# no system beyond the snapshot.
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Page size.")]
Cursor = Annotated[str | None, Field(description="`next_cursor` of the last page.")]
ThemeFilter = Annotated[
    str | None,
    Field(
        max_length=service.MAX_THEME_CHARS,
        description="One of the 12 canonical theme labels (any case). Unknown → error.",
    ),
]
EntityFilter = Annotated[
    str | None,
    Field(
        max_length=service.MAX_ENTITY_FILTER_CHARS,
        description="Public entity ID or exact display name (any case, aliases too); a family "
        "covers its members. Unknown → error.",
    ),
]
WindowFilter = Annotated[
    str | None,
    Field(
        pattern=service.WINDOW_PATTERN,
        description="Relative lower bound from the snapshot's as_of: d = days, w = weeks, "
        "m = 30-day months (e.g. 7d, 2w, 1m). Not together with published_after.",
    ),
]
After = Annotated[
    IsoDateTime | None, Field(description="Published at or after (ISO 8601; UTC if no offset).")
]
Before = Annotated[
    IsoDateTime | None, Field(description="Published before (ISO 8601; UTC if no offset).")
]


def create_mcp_server(snapshot: Callable[[], LoadedSnapshot], embed: Embed) -> MCPServer:
    """The MCP server over whatever snapshot ``snapshot()`` returns at each call (the store's
    current one; it raises the 503 ``ApiError`` while there is none) and the query encoder."""
    server = MCPServer(
        name="aimi",
        title="aimi market intelligence",
        instructions=INSTRUCTIONS,
        version=API_VERSION,
    )

    def answer(fn: Callable[..., bytes], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """``fn``'s body over the current snapshot as an object; its ApiError as a tool error."""
        try:
            body = fn(snapshot(), *args, **kwargs)
        except ApiError as exc:
            raise ToolError(f"{exc.code} ({exc.status}): {exc.message}") from None
        parsed: dict[str, Any] = orjson.loads(body)
        return parsed

    def tool(name: str, title: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return server.tool(name=name, title=title, description=ABOUT[name], annotations=READ_ONLY)

    @tool("get_themes", "The 12 themes")
    async def get_themes(
        axis: Annotated[Axis | None, Field(description="Only this axis.")] = None,
    ) -> dict[str, Any]:
        return answer(service.list_themes, axis)

    @tool("get_theme", "One theme with related themes")
    async def get_theme(
        axis: Annotated[Axis, Field(description="The theme's axis.")],
        label: Annotated[
            str, Field(max_length=service.MAX_THEME_CHARS, description="A canonical label.")
        ],
    ) -> dict[str, Any]:
        return answer(service.get_theme, axis, label)

    @tool("list_entities", "List entity profiles")
    async def list_entities(
        theme: ThemeFilter = None,
        type: Annotated[EntityType | None, Field(description="Entity type.")] = None,
        name: Annotated[
            str | None,
            Field(
                max_length=service.MAX_NAME_CHARS,
                description="Substring of the display name, matched in any case.",
            ),
        ] = None,
        sort: EntitySort = "signal_count",
        direction: Direction | None = None,
        confidence: Confidence | None = None,
        stability: Stability | None = None,
        scale: Scale | None = None,
        notability: Notability | None = None,
        min_signals: Annotated[
            int,
            Field(ge=1, le=2**31, description="Minimum `signal_count`; 1 includes everything."),
        ] = service.DEFAULT_MIN_SIGNALS,
        cursor: Cursor = None,
        limit: Limit = DEFAULT_LIMIT,
    ) -> dict[str, Any]:
        return answer(
            service.list_entities,
            theme=theme,
            entity_type=type,
            name=name,
            sort=sort,
            direction=direction,
            confidence=confidence,
            stability=stability,
            scale=scale,
            notability=notability,
            min_signals=min_signals,
            cursor=cursor,
            limit=limit,
        )

    @tool("get_entity_profile", "One entity profile with related entities")
    async def get_entity_profile(
        name_or_id: Annotated[
            str,
            Field(
                max_length=service.MAX_NAME_OR_ID_CHARS,
                description="Public entity id (ent:/…) or display name or alias.",
            ),
        ],
    ) -> dict[str, Any]:
        return answer(service.entity_profile, name_or_id)

    @tool("get_trending_entities", "Trending entities")
    async def get_trending_entities(
        mode: Annotated[Mode, Field(description="rising, hot, consistent or new.")],
        theme: ThemeFilter = None,
        type_primary: TypePrimary | None = None,
        limit: Limit = DEFAULT_LIMIT,
    ) -> dict[str, Any]:
        return answer(
            service.trending_entities, mode, theme=theme, type_primary=type_primary, limit=limit
        )

    @tool("list_signals", "List signals, newest first, or the change feed")
    async def list_signals(
        entity: EntityFilter = None,
        theme: ThemeFilter = None,
        keyword: Annotated[
            str | None,
            Field(
                max_length=service.MAX_KEYWORD_CHARS,
                description="A literal word or phrase, matched whole-word in any case against "
                "the title and the units' text; not relevance-ranked.",
            ),
        ] = None,
        content_type: ContentType | None = None,
        published_after: After = None,
        published_before: Before = None,
        window: WindowFilter = None,
        sort: Annotated[
            SignalSort,
            Field(description="`published`: newest first. `changed`: the change feed."),
        ] = "published",
        cursor: Cursor = None,
        limit: Limit = DEFAULT_LIMIT,
    ) -> dict[str, Any]:
        return answer(
            service.list_signals,
            entity=entity,
            theme=theme,
            keyword=keyword,
            content_type=content_type,
            published_after=published_after,
            published_before=published_before,
            window=window,
            sort=sort,
            cursor=cursor,
            limit=limit,
        )

    @tool("get_signal", "One signal with its verified units")
    async def get_signal(
        signal_id: Annotated[str, Field(description="The signal's `signal_id`.")],
    ) -> dict[str, Any]:
        return answer(service.get_signal, signal_id)

    @tool("search", "Search verified units")
    async def search(
        q: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=service.MAX_QUERY_CHARS,
                description="Natural-language query.",
            ),
        ] = None,
        similar_to: Annotated[
            str | None,
            Field(max_length=service.MAX_UNIT_ID_CHARS, description="A unit `id`."),
        ] = None,
        role: UnitRole | None = None,
        entity: EntityFilter = None,
        theme: ThemeFilter = None,
        content_type: ContentType | None = None,
        published_after: After = None,
        published_before: Before = None,
        window: WindowFilter = None,
        recency_boost: Annotated[
            float, Field(ge=0, le=1, description="0 = off; 1 = full recency factor.")
        ] = 0.0,
        limit: Annotated[
            int, Field(ge=1, le=service.MAX_SEARCH_LIMIT, description="Results.")
        ] = service.DEFAULT_SEARCH_LIMIT,
        diversity_cap: Annotated[
            int, Field(ge=1, le=service.MAX_SEARCH_LIMIT, description="Units per signal.")
        ] = service.DEFAULT_DIVERSITY_CAP,
    ) -> dict[str, Any]:
        # the query embedding and both legs block: off the event loop, like the REST route
        blocking = partial(
            answer,
            service.search,
            embed,
            q=q,
            similar_to=similar_to,
            role=role,
            entity=entity,
            theme=theme,
            content_type=content_type,
            published_after=published_after,
            published_before=published_before,
            window=window,
            recency_boost=recency_boost,
            limit=limit,
            diversity_cap=diversity_cap,
        )
        return await to_thread.run_sync(blocking)

    return server


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
