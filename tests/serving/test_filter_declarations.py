"""The list resources' arguments (``serving.arguments``, ``serving.filters``) as each transport
takes them: the REST parameters, the MCP tool arguments and the fast path's readers are the
declarations' own, in the declared order."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest

from serving.arguments import (
    ENTITIES,
    REQUIRED,
    SEARCH,
    SIGNAL_FILTERS,
    SIGNALS,
    STORIES,
    STORY_FILTERS,
    TRENDING,
    Arg,
    Arguments,
)
from serving.fastpath import QUERY_ROUTES
from serving.filters import CONTENT_TYPE, ENTITY, ENTITY_TYPE, LIMIT, WINDOW, Declined, ListFilter
from serving.mcp import create_mcp_server
from tests.serving.conftest import make_settings

_BOUNDS = {
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
    "ge": "minimum",
    "le": "maximum",
}


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


LISTS = [
    ("/v1/signals", "list_signals", SIGNALS),
    ("/v1/search", "search", SEARCH),
    ("/v1/entities", "list_entities", ENTITIES),
    ("/v1/entities/trending", "get_trending_entities", TRENDING),
    ("/v1/stories", "list_stories", STORIES),
]


@pytest.mark.parametrize(("path", "tool", "declared"), LISTS)
def test_rest_and_mcp_take_each_argument_as_declared(
    path: str, tool: str, declared: Arguments, tmp_path: Path
) -> None:
    rest = _rest_parameters(path, tmp_path)
    mcp = _mcp_arguments()[tool]
    for arg in declared.args:
        one = arg.declared
        assert rest[arg.name]["description"] == one.rest, arg.name
        assert _schema_bounds(rest[arg.name]["schema"]) == _declared_bounds(one), arg.name
        assert mcp[arg.name].get("description") == one.mcp, arg.name
        assert _schema_bounds(mcp[arg.name]) == _declared_bounds(one), arg.name
        required = arg.default is REQUIRED
        assert rest[arg.name]["required"] is required, arg.name
        assert ("default" not in mcp[arg.name]) is required, arg.name


def test_the_fast_path_reads_the_filters_as_declared() -> None:
    signals = QUERY_ROUTES["/v1/signals"].parameters
    for arg in SIGNAL_FILTERS:
        assert signals[arg.name] == arg.declared.read, arg.name
    stories = QUERY_ROUTES["/v1/stories"].parameters
    for arg in STORY_FILTERS:
        assert stories[arg.name] == arg.declared.read, arg.name
    assert QUERY_ROUTES["/v1/search"].parameters["content_type"] == CONTENT_TYPE.read
    window = WINDOW
    assert window.read("2w") == "2w"
    for refused in ("0d", "2y", "12345d", " 2w"):
        with pytest.raises(Declined):
            window.read(refused)
    entity = ENTITY
    assert entity.max_length is not None
    assert entity.read("x" * entity.max_length) == "x" * entity.max_length
    with pytest.raises(Declined):
        entity.read("x" * (entity.max_length + 1))


# what one transport takes and the other does not: REST's deprecated `q` (renamed `keyword`),
# and MCP's `full` (the whole answer rather than its compact form)
REST_ONLY = {"/v1/signals": ["q"], "/v1/entities": ["q"]}
MCP_ONLY = ["full"]


@pytest.mark.parametrize(("path", "tool", "declared"), LISTS)
def test_a_list_route_and_its_mcp_tool_take_the_declared_arguments_in_order(
    path: str, tool: str, declared: Arguments, tmp_path: Path
) -> None:
    rest = [
        name for name in _rest_parameters(path, tmp_path) if name not in REST_ONLY.get(path, [])
    ]
    mcp = [name for name in _mcp_arguments()[tool] if name not in MCP_ONLY]
    assert rest == mcp == declared.names()


def test_the_declared_arguments_go_between_a_functions_own() -> None:
    async def route(dependency: int, *, own: str = "", **given: Any) -> None:
        del dependency, own, given

    declared = Arguments(Arg("type", ENTITY_TYPE, keyword="entity_type"), Arg("limit", LIMIT, 5))
    names = list(inspect.signature(declared.route(route)).parameters)
    assert names == ["dependency", "type", "limit", "own"]
    assert declared.forward({"type": "person", "limit": 3}) == {
        "entity_type": "person",
        "limit": 3,
    }


def test_a_function_without_given_or_declaring_an_argument_itself_is_refused() -> None:
    async def no_given(dependency: int) -> None:
        del dependency

    async def clash(limit: int, **given: Any) -> None:
        del limit, given

    declared = Arguments(Arg("limit", LIMIT, 5))
    with pytest.raises(TypeError, match="no \\*\\*given"):
        declared.tool(no_given)
    with pytest.raises(TypeError, match="limit"):
        declared.tool(clash)
