"""The list filters (``serving.filters``) as each transport takes them: the REST parameters,
the MCP tool arguments and the fast path's readers are the declarations' own bounds."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from serving.fastpath import QUERY_ROUTES
from serving.filters import (
    ENTITY_FILTERS,
    SEARCH_FILTERS,
    SIGNAL_FILTERS,
    STORY_FILTERS,
    Declined,
    ListFilter,
)
from serving.mcp import create_mcp_server
from tests.serving.conftest import make_settings

_BOUNDS = {"max_length": "maxLength", "pattern": "pattern", "ge": "minimum", "le": "maximum"}


def _schema_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """The bounds in a parameter's JSON schema (an ``anyOf`` of the type and null, or the type)."""
    found: dict[str, Any] = {}
    for part in [schema, *schema.get("anyOf", [])]:
        found.update({key: part[key] for key in _BOUNDS.values() if key in part})
    return found


def _declared_bounds(declared: ListFilter) -> dict[str, Any]:
    return {_BOUNDS[name]: value for name, value in declared.bounds().items()}


def _rest_parameters(path: str, tmp_path: Path) -> dict[str, dict[str, Any]]:
    from serving.app import create_app

    document = create_app(make_settings(tmp_path)).openapi()
    parameters = document["paths"][path]["get"]["parameters"]
    return {p["name"]: p for p in parameters if p["in"] == "query"}


def _mcp_arguments() -> dict[str, dict[str, Any]]:
    def no_snapshot() -> Any:
        raise AssertionError("not called")

    server = create_mcp_server(no_snapshot, lambda _: None)
    tools = asyncio.run(server.list_tools())
    return {tool.name: tool.input_schema["properties"] for tool in tools}


@pytest.mark.parametrize(
    ("path", "tool", "declared"),
    [
        ("/v1/signals", "list_signals", SIGNAL_FILTERS),
        ("/v1/search", "search", {name: SIGNAL_FILTERS[name] for name in SEARCH_FILTERS}),
        ("/v1/entities", "list_entities", ENTITY_FILTERS),
    ],
)
def test_rest_and_mcp_take_each_filter_as_declared(
    path: str, tool: str, declared: dict[str, ListFilter], tmp_path: Path
) -> None:
    rest = _rest_parameters(path, tmp_path)
    mcp = _mcp_arguments()[tool]
    for name, one in declared.items():
        assert rest[name]["description"] == one.rest, name
        assert _schema_bounds(rest[name]["schema"]) == _declared_bounds(one), name
        assert mcp[name].get("description") == one.mcp, name
        assert _schema_bounds(mcp[name]) == _declared_bounds(one), name


def test_the_fast_path_reads_the_filters_as_declared() -> None:
    signals = QUERY_ROUTES["/v1/signals"].parameters
    for name, declared in SIGNAL_FILTERS.items():
        assert signals[name] == declared.read, name
    stories = QUERY_ROUTES["/v1/stories"].parameters
    for name, declared in STORY_FILTERS.items():
        assert stories[name] == declared.read, name
    assert (
        QUERY_ROUTES["/v1/search"].parameters["content_type"] == SIGNAL_FILTERS["content_type"].read
    )
    window = SIGNAL_FILTERS["window"]
    assert window.read("2w") == "2w"
    for refused in ("0d", "2y", "12345d", " 2w"):
        with pytest.raises(Declined):
            window.read(refused)
    entity = SIGNAL_FILTERS["entity"]
    assert entity.max_length is not None
    assert entity.read("x" * entity.max_length) == "x" * entity.max_length
    with pytest.raises(Declined):
        entity.read("x" * (entity.max_length + 1))


# what one transport takes and the other does not: REST's deprecated `q` (renamed `keyword`),
# and MCP's `full` (the whole answer rather than its compact form)
REST_ONLY = {"/v1/signals": ["q"], "/v1/entities": ["q"]}
MCP_ONLY = ["full"]


@pytest.mark.parametrize(
    ("path", "tool", "declared"),
    [
        ("/v1/signals", "list_signals", SIGNAL_FILTERS),
        ("/v1/search", "search", {name: SIGNAL_FILTERS[name] for name in SEARCH_FILTERS}),
        ("/v1/entities", "list_entities", ENTITY_FILTERS),
        ("/v1/stories", "list_stories", STORY_FILTERS),
        ("/v1/entities/trending", "get_trending_entities", {}),
    ],
)
def test_a_list_route_and_its_mcp_tool_take_the_same_parameters_in_one_order(
    path: str, tool: str, declared: dict[str, ListFilter], tmp_path: Path
) -> None:
    rest = [
        name for name in _rest_parameters(path, tmp_path) if name not in REST_ONLY.get(path, [])
    ]
    mcp = [name for name in _mcp_arguments()[tool] if name not in MCP_ONLY]
    assert rest == mcp
    assert set(declared) <= set(rest)
