"""`/openapi.json` against the spec: every route of §4 documents its response model (the
spec's top-level fields) and, with a schema, each error status of §7 it can return."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.contract.helpers import Json

DATA = {401, 429, 503}  # every data route: the key (§5), the rate limit (§8), no snapshot yet
# Per operation: the error statuses it can return and the top-level fields of its 200 body.
OPERATIONS: dict[tuple[str, str], tuple[set[int], tuple[str, ...]]] = {
    ("get", "/v1/health"): (set(), ("status", "version")),
    ("get", "/v1/search"): (DATA | {400, 404, 422}, ("results", "query", "similar_to")),
    ("get", "/v1/signals"): (DATA | {400, 404, 422}, ("signals", "has_more", "next_cursor")),
    ("get", "/v1/signals/{signal_id}"): (DATA | {404}, ("signal_id", "title", "units")),
    ("get", "/v1/entities"): (DATA | {400, 404, 422}, ("entities", "has_more", "next_cursor")),
    ("get", "/v1/entities/trending"): (DATA | {404, 422}, ("data",)),
    ("get", "/v1/entities/{name_or_id}"): (
        DATA | {400, 404, 422},
        ("entity_id", "name", "trend", "related_entities"),
    ),
    ("get", "/v1/themes"): (DATA | {422}, ("themes",)),
    ("get", "/v1/themes/{axis}/{label}"): (
        DATA | {404, 422},
        ("axis", "label", "trend", "related_themes"),
    ),
    ("post", "/v1/admin/refresh"): (
        {401, 503},
        ("status", "materialized_views", "embeddings"),
    ),
}


def _cases() -> list[Any]:
    cases = []
    for (method, path), (statuses, _) in OPERATIONS.items():
        for status in sorted(statuses):
            cases.append(pytest.param(method, path, status, id=f"{path}-{status}"))
    return cases


@pytest.fixture(scope="module")
def document(bare: TestClient) -> Json:
    response = bare.get("/openapi.json")
    assert response.status_code == 200
    found: Json = response.json()
    return found


def resolve(document: Json, schema: Json) -> Json:
    """``schema`` with its ``$ref`` followed (components only)."""
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        schema = document["components"]["schemas"][name]
    return schema


def json_schema(document: Json, operation: Json, status: int) -> Json:
    response = operation["responses"].get(str(status))
    assert response is not None, f"status {status} is not documented"
    schema = response["content"]["application/json"]["schema"]
    return resolve(document, schema)


# Routes the spec does not name, added without changing any route it names, each recorded in
# docs/changelog.md as §9 asks of a change: the changelog itself, and the stories of issue 31.
ADDITIVE_ROUTES = {
    ("get", "/v1/changelog"),
    ("get", "/v1/stories"),
    ("get", "/v1/stories/{story_id}"),
}


def test_every_route_is_in_the_document(document: Json) -> None:
    """§4 every endpoint (and, beside the additive routes, nothing else) is documented, under
    `/v1` (§9)."""
    found = {
        (method, path) for path, operations in document["paths"].items() for method in operations
    }
    assert found == set(OPERATIONS) | ADDITIVE_ROUTES


def test_the_changelog_route_documents_markdown_and_its_404(document: Json) -> None:
    """§9 the changelog (where deprecation links point) is Markdown; 404 when not installed."""
    operation = document["paths"]["/v1/changelog"]["get"]
    assert "text/markdown" in operation["responses"]["200"]["content"]
    assert json_schema(document, operation, 404)["required"] == ["error"]


@pytest.mark.parametrize(("method", "path"), list(OPERATIONS), ids=lambda v: str(v))
def test_every_route_documents_its_response_model(document: Json, method: str, path: str) -> None:
    """§4 each route's 200 body: a schema with the spec's top-level fields."""
    schema = json_schema(document, document["paths"][path][method], 200)
    assert set(OPERATIONS[(method, path)][1]) <= set(schema.get("properties", {})), path


@pytest.mark.parametrize(("method", "path", "status"), _cases())
def test_every_route_documents_its_error_statuses(
    document: Json, method: str, path: str, status: int
) -> None:
    """§7 each error status a route can return is documented with its body: the error object
    for all but 422, `{detail: [{loc, msg, type}]}` for 422."""
    schema = json_schema(document, document["paths"][path][method], status)
    if status == 422:
        items = resolve(document, schema["properties"]["detail"]["items"])
        assert {"loc", "msg", "type"} <= set(items["required"])
    else:
        assert schema["required"] == ["error"]
        error = resolve(document, schema["properties"]["error"])
        assert {"code", "message", "status"} <= set(error["required"])
        assert {"field", "request_id", "retry_after", "reset"} <= set(error["properties"])
