"""The MCP server (``serving.mcp``): its tools answer what the /v1 routes answer (the list tools
with ``full=true``; by default a compact cut of it), over the SDK's in-memory client, over
streamable HTTP at ``/mcp`` behind the API key, and over stdio in a real ``aimi mcp`` process."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2
import orjson
import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from readmodel.service import ABOUT
from readmodel.store import SnapshotStore
from retrieval.query_embedder import QueryEmbedder
from serving.app import create_app
from serving.mcp import COMPACT, DESCRIPTIONS, SHORT_TEXT, create_mcp_server, project
from tests.serving.conftest import DEV_KEY, make_settings
from tests.test_end_to_end import client_for
from warehouse.paths import DataDir

TOOLS = {
    "get_themes",
    "get_theme",
    "list_entities",
    "get_entity_profile",
    "get_trending_entities",
    "search",
    "list_signals",
    "list_changes",
    "get_signal",
    "list_stories",
    "get_story",
}


@pytest.fixture(scope="module")
def rest(demo_data_dir: DataDir) -> Iterator[TestClient]:
    yield from client_for(demo_data_dir)


@pytest.fixture(scope="module")
def embedder() -> QueryEmbedder:
    return QueryEmbedder()


@pytest.fixture(scope="module")
def store(demo_data_dir: DataDir) -> SnapshotStore:
    store = SnapshotStore(demo_data_dir, poll_seconds=3600)
    store.refresh()
    return store


def with_client(
    store: SnapshotStore, embedder: QueryEmbedder, body: Callable[[Client], Awaitable[None]]
) -> None:
    async def run() -> None:
        async with Client(create_mcp_server(store.require, embedder)) as client:
            await body(client)

    anyio.run(run)


def _object(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


def test_the_nine_tools_are_read_only_and_documented(
    store: SnapshotStore, embedder: QueryEmbedder
) -> None:
    async def body(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for name, tool in tools.items():
            assert tool.description == DESCRIPTIONS[name]
            assert tool.description.startswith(ABOUT[name]) or name in {
                "get_theme",
                "get_entity_profile",
            }
            # an MCP client sends arguments, not a path: no URL-encoding, routes or statuses
            for rest_only in ("URL-encoded", "/v1/", "404"):
                assert rest_only not in tool.description, (name, rest_only)
            properties = tool.input_schema["properties"]
            if name in COMPACT:
                assert properties["full"]["default"] is False, name
                assert "full=true" in tool.description
            else:
                assert "full" not in properties, name
            assert tool.title
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.destructive_hint is False
            for parameter in tool.input_schema["properties"].values():
                assert "description" in parameter or "enum" in str(parameter), (name, parameter)
        limit = tools["list_entities"].input_schema["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 50, 25)
        search_limit = tools["search"].input_schema["properties"]["limit"]
        assert (search_limit["maximum"], search_limit["default"]) == (100, 10)
        assert tools["get_trending_entities"].input_schema["required"] == ["mode"]

    with_client(store, embedder, body)


def test_tools_return_what_the_routes_return(
    store: SnapshotStore, embedder: QueryEmbedder, rest: TestClient
) -> None:
    entity_id = rest.get("/v1/entities", params={"limit": 1}).json()["entities"][0]["entity_id"]
    signal_id = rest.get("/v1/signals", params={"limit": 1}).json()["signals"][0]["signal_id"]
    story_id = rest.get("/v1/stories", params={"limit": 1}).json()["stories"][0]["story_id"]
    cases: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
        ("get_themes", {}, "/v1/themes", {}),
        ("get_themes", {"axis": "market_force"}, "/v1/themes", {"axis": "market_force"}),
        (
            "get_theme",
            {"axis": "value_chain", "label": "semiconductors & hardware"},
            "/v1/themes/value_chain/" + quote("semiconductors & hardware", safe=""),
            {},
        ),
        (
            "list_entities",
            {"limit": 5, "sort": "trend"},
            "/v1/entities",
            {"limit": 5, "sort": "trend"},
        ),
        ("list_entities", {"type": "person"}, "/v1/entities", {"type": "person"}),
        (
            "get_entity_profile",
            {"name_or_id": entity_id},
            f"/v1/entities/{quote(entity_id, safe='')}",
            {},
        ),
        ("get_signal", {"signal_id": signal_id}, f"/v1/signals/{signal_id}", {}),
        ("list_signals", {"limit": 3, "window": "2w"}, "/v1/signals", {"limit": 3, "window": "2w"}),
        (
            "list_stories",
            {"limit": 3, "min_sources": 2},
            "/v1/stories",
            {"limit": 3, "min_sources": 2},
        ),
        ("get_story", {"story_id": story_id}, f"/v1/stories/{story_id}", {}),
        (
            "list_signals",
            {"sort": "changed", "limit": 4},
            "/v1/signals",
            {"sort": "changed", "limit": 4},
        ),
        (
            "search",
            {"q": "data center funding", "role": "claim"},
            "/v1/search",
            {"q": "data center funding", "role": "claim"},
        ),
    ]
    cases += [
        ("get_trending_entities", {"mode": mode}, "/v1/entities/trending", {"mode": mode})
        for mode in ("rising", "hot", "consistent", "new")
    ]

    async def body(client: Client) -> None:
        for tool, arguments, path, params in cases:
            expected = rest.get(path, params=params)
            assert expected.status_code == 200, (path, expected.text)
            if tool in COMPACT:
                arguments = {**arguments, "full": True}
            assert _object(await client.call_tool(tool, arguments)) == expected.json(), tool
        # paging: the tool's cursor is the route's, compact or not
        first = _object(await client.call_tool("list_entities", {"limit": 2}))
        second = _object(
            await client.call_tool(
                "list_entities", {"limit": 2, "cursor": first["next_cursor"], "full": True}
            )
        )
        routed = rest.get("/v1/entities", params={"limit": 2, "cursor": first["next_cursor"]})
        assert second == routed.json()
        unit_id = first_unit = _object(
            await client.call_tool("search", {"q": "funding round", "limit": 1})
        )["results"][0]["unit"]["id"]
        similar = _object(await client.call_tool("search", {"similar_to": unit_id, "full": True}))
        assert similar == rest.get("/v1/search", params={"similar_to": unit_id}).json()
        assert first_unit not in {r["unit"]["id"] for r in similar["results"]}

    with_client(store, embedder, body)


def _cut_from(compact: Any, full: Any) -> bool:
    """Whether ``compact`` is ``full`` with keys left out and long strings shortened."""
    if isinstance(compact, dict):
        return (
            isinstance(full, dict)
            and set(compact) <= set(full)
            and all(_cut_from(value, full[key]) for key, value in compact.items())
        )
    if isinstance(compact, list):
        return (
            isinstance(full, list)
            and len(compact) == len(full)
            and all(_cut_from(c, f) for c, f in zip(compact, full, strict=True))
        )
    if isinstance(compact, str) and compact != full:
        return (
            isinstance(full, str)
            and compact.endswith("…")
            and len(compact) <= SHORT_TEXT
            and full.startswith(compact[:-1])
        )
    return bool(compact == full)


def test_list_tools_are_compact_unless_asked_for_everything(
    store: SnapshotStore, embedder: QueryEmbedder
) -> None:
    """By default a list tool returns a cut of the route's body an agent can choose from (every
    item keeps its id, name or title and date, long texts shortened) at a fraction of its size;
    ``full=true`` returns the body itself."""
    calls: list[tuple[str, dict[str, Any], str, dict[str, str]]] = [
        ("get_themes", {}, "themes", {"name": "label"}),
        ("list_entities", {}, "entities", {"id": "entity_id", "name": "name", "date": "last_seen"}),
        (
            "get_trending_entities",
            {"mode": "hot"},
            "data",
            {"id": "entity_id", "name": "display_name", "date": "last_seen"},
        ),
        (
            "list_signals",
            {},
            "signals",
            {"id": "signal_id", "name": "title", "date": "published_at"},
        ),
        (
            "list_signals",
            {"sort": "changed", "limit": 50},
            "signals",
            {"id": "signal_id", "name": "title", "date": "published_at"},
        ),
        (
            "list_changes",
            {"from_start": True, "limit": 50},
            "signals",
            {"id": "signal_id", "name": "title", "date": "published_at"},
        ),
        ("search", {"q": "data center funding", "limit": 25}, "results", {}),
    ]

    async def body(client: Client) -> None:
        ratios = {}
        for tool, arguments, items, needed in calls:
            full = _object(await client.call_tool(tool, {**arguments, "full": True}))
            compact = _object(await client.call_tool(tool, arguments))
            assert compact[items], tool
            assert _cut_from(compact, full), tool
            for item in compact[items]:
                assert all(item.get(key) for key in needed.values()), (tool, item)
            if tool == "search":
                for hit in compact[items]:
                    assert hit["unit"]["id"] and hit["unit"]["text"]
                    assert hit["citation"]["signal_id"] and hit["citation"]["title"]
            if "has_more" in full:
                assert (compact["has_more"], compact["next_cursor"]) == (
                    full["has_more"],
                    full["next_cursor"],
                )
            ratios[tool] = len(orjson.dumps(compact)) / len(orjson.dumps(full))
        # measured on the demo corpus (JSON bytes, compact / full, 2026-11-28, with issue 31's
        # story_id, story_count and corroboration count kept): themes 0.32, entities 0.20,
        # trending 0.21, the change feed's 50 signals 0.66 (a card is mostly its title, short
        # text and entities, all kept), search 0.59
        assert ratios["get_themes"] < 0.35
        assert ratios["list_entities"] < 0.25
        assert ratios["get_trending_entities"] < 0.3
        assert ratios["list_signals"] < 0.75
        assert ratios["search"] < 0.7

    with_client(store, embedder, body)


def test_list_changes_gives_a_watcher_what_changed_since_its_cursor(
    store: SnapshotStore, embedder: QueryEmbedder, rest: TestClient
) -> None:
    """An agent starts watching with no cursor (no signals, the cursor of the feed's head),
    then calls again with the cursor it kept; from any cursor the tool answers what the REST
    change feed answers, with the snapshot's id."""
    snapshot_id = rest.get("/v1/health").json()["snapshot"]["id"]
    first = rest.get("/v1/signals", params={"sort": "changed", "limit": 50}).json()
    middle = first["next_cursor"]

    async def body(client: Client) -> None:
        start = _object(await client.call_tool("list_changes", {}))
        assert start["signals"] == [] and start["has_more"] is False
        assert start["snapshot_id"] == snapshot_id
        # the head: nothing changed after it, on the REST feed either
        after = rest.get("/v1/signals", params={"sort": "changed", "cursor": start["next_cursor"]})
        assert after.json()["signals"] == [] and after.json()["next_cursor"] is None
        # where the REST feed says null (keep your cursor), the tool gives the cursor back: a
        # watcher that keeps what it is given never falls back to the head
        again = _object(await client.call_tool("list_changes", {"cursor": start["next_cursor"]}))
        assert again["signals"] == [] and again["next_cursor"] == start["next_cursor"]
        # from a cursor: the REST feed's page, whole with full=true
        since = _object(
            await client.call_tool("list_changes", {"cursor": middle, "limit": 50, "full": True})
        )
        page = rest.get(
            "/v1/signals", params={"sort": "changed", "cursor": middle, "limit": 50}
        ).json()
        assert since == {**page, "snapshot_id": snapshot_id}
        assert since["signals"]
        # from the start, filtered like the feed
        theme = "Regulatory & Legal"
        from_start = _object(
            await client.call_tool(
                "list_changes", {"from_start": True, "theme": theme, "limit": 10, "full": True}
            )
        )
        filtered = rest.get(
            "/v1/signals", params={"sort": "changed", "theme": theme, "limit": 10}
        ).json()
        assert from_start == {**filtered, "snapshot_id": snapshot_id}
        unknown = await client.call_tool("list_changes", {"entity": "Nobody At All"})
        assert unknown.is_error and "not_found (404)" in str(unknown.content)

    with_client(store, embedder, body)


def test_projection_keeps_the_named_keys_and_shortens_long_text() -> None:
    full = {
        "signals": [
            {"signal_id": "a", "thesis": "x" * 500, "url": "u", "entities": [{"entity_id": "e"}]},
            {"signal_id": "b", "synopsis": "short"},
        ],
        "has_more": False,
    }
    shape = {
        "signals": {"signal_id": None, "thesis": 10, "synopsis": 10, "entities": {"name": None}},
        "has_more": None,
        "next_cursor": None,
    }
    assert project(full, shape) == {
        "signals": [
            {"signal_id": "a", "thesis": "x" * 9 + "…", "entities": [{}]},
            {"signal_id": "b", "synopsis": "short"},
        ],
        "has_more": False,
    }


@pytest.mark.parametrize(
    ("tool", "arguments", "path", "params"),
    [
        (
            "get_entity_profile",
            {"name_or_id": "nobody we know"},
            "/v1/entities/nobody%20we%20know",
            {},
        ),
        ("get_entity_profile", {"name_or_id": "company:acme"}, "/v1/entities/company:acme", {}),
        (
            "get_theme",
            {"axis": "market_force", "label": "C&I"},
            "/v1/themes/market_force/C%26I",
            {},
        ),
        ("list_signals", {"entity": "nobody we know"}, "/v1/signals", {"entity": "nobody we know"}),
        ("list_signals", {"cursor": "not-a-cursor"}, "/v1/signals", {"cursor": "not-a-cursor"}),
        (
            "list_signals",
            {"window": "2w", "published_after": "2026-01-01"},
            "/v1/signals",
            {"window": "2w", "published_after": "2026-01-01"},
        ),
        ("search", {}, "/v1/search", {}),
        ("search", {"similar_to": "u_nope"}, "/v1/search", {"similar_to": "u_nope"}),
        ("get_signal", {"signal_id": "nope"}, "/v1/signals/nope", {}),
    ],
)
def test_errors_carry_the_rest_message(
    store: SnapshotStore,
    embedder: QueryEmbedder,
    rest: TestClient,
    tool: str,
    arguments: dict[str, Any],
    path: str,
    params: dict[str, Any],
) -> None:
    error = rest.get(path, params=params).json()["error"]

    async def body(client: Client) -> None:
        result = await client.call_tool(tool, arguments)
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert f"{error['code']} ({error['status']}): {error['message']}" in text

    with_client(store, embedder, body)


def test_arguments_out_of_bounds_are_tool_errors(
    store: SnapshotStore, embedder: QueryEmbedder
) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("list_entities", {"limit": 51}),
        ("list_entities", {"limit": 0}),
        ("list_signals", {"window": "7y"}),
        ("search", {"q": "x", "recency_boost": 2}),
        ("get_trending_entities", {"mode": "sideways"}),
        ("get_theme", {"axis": "value_chain"}),
    ]

    async def body(client: Client) -> None:
        for tool, arguments in cases:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)

    with_client(store, embedder, body)


def test_no_snapshot_is_the_unavailable_error(tmp_path: Path, embedder: QueryEmbedder) -> None:
    empty = SnapshotStore(DataDir(tmp_path), poll_seconds=3600)

    async def body(client: Client) -> None:
        result = await client.call_tool("get_themes", {})
        assert result.is_error
        assert "unavailable (503): no snapshot is loaded yet" in result.content[0].text  # type: ignore[union-attr]

    with_client(empty, embedder, body)


def test_an_unknown_argument_is_refused_naming_the_one_meant(
    tmp_path: Path, embedder: QueryEmbedder
) -> None:
    """Issue 46: `search` given `query` dropped it and failed asking for `q` or `similar_to`;
    every tool now refuses an argument it does not take, before anything runs."""
    empty = SnapshotStore(DataDir(tmp_path), poll_seconds=3600)
    cases = [
        ("search", {"query": "chips"}, "unknown argument `query`; did you mean `q`?"),
        ("list_signals", {"query": "chips"}, "unknown argument `query`; did you mean `keyword`?"),
        ("list_signals", {"limt": 5}, "unknown argument `limt`; did you mean `limit`?"),
        ("get_signal", {"signal_id": "sig_x", "verbose": True}, "the arguments are `signal_id`"),
    ]

    async def body(client: Client) -> None:
        for tool, arguments, message in cases:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            assert text.startswith("invalid_parameters (400): unknown argument"), text
            assert message in text, text
        # a known argument goes on to the tool (here: no snapshot yet)
        known = await client.call_tool("search", {"q": "chips"})
        assert "unavailable (503)" in known.content[0].text  # type: ignore[union-attr]

    with_client(empty, embedder, body)


@asynccontextmanager
async def _http_app(data: DataDir) -> AsyncIterator[Any]:
    app = create_app(make_settings(data.root))
    async with app.router.lifespan_context(app):
        yield app


def test_streamable_http_needs_the_key_and_counts_requests(demo_data_dir: DataDir) -> None:
    async def run() -> None:
        async with _http_app(demo_data_dir) as app:
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://aimi") as raw:
                refused = await raw.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
                assert refused.status_code == 401
                assert refused.json()["error"]["code"] == "unauthorized"
                assert "x-request-id" in refused.headers
            headers = {"X-API-Key": DEV_KEY}
            async with httpx2.AsyncClient(
                transport=transport, base_url="http://aimi", headers=headers
            ) as keyed:
                seen: list[httpx2.Response] = []

                async def keep(response: httpx2.Response) -> None:
                    seen.append(response)

                keyed.event_hooks["response"] = [keep]
                stream = streamable_http_client("http://aimi/mcp", http_client=keyed)
                async with Client(stream) as client:
                    tools = await client.list_tools()
                    assert {tool.name for tool in tools.tools} == TOOLS
                    themes = _object(await client.call_tool("get_themes", {}))
                    assert len(themes["themes"]) == 12
                assert seen and all(r.status_code < 400 for r in seen)
                assert all("x-ratelimit-remaining-minute" in r.headers for r in seen)

    anyio.run(run)


@pytest.mark.timeout(240)
def test_stdio_server_in_a_real_process(demo_data_dir: DataDir) -> None:
    aimi = str(Path(sys.executable).parent / "aimi")
    parameters = StdioServerParameters(
        command=aimi,
        args=["mcp", "--data-dir", str(demo_data_dir.root)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )

    async def run() -> None:
        async with Client(parameters, read_timeout_seconds=120) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            page = _object(await client.call_tool("list_entities", {"limit": 1}))
            entity_id = page["entities"][0]["entity_id"]
            profile = _object(
                await client.call_tool("get_entity_profile", {"name_or_id": entity_id})
            )
            assert profile["entity_id"] == entity_id
            found = _object(await client.call_tool("search", {"q": "chip export rules"}))
            assert found["query"] == "chip export rules" and found["results"]

    anyio.run(run)
