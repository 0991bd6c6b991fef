"""The OpenAPI document documents itself: invariants over ``/openapi.json`` (operation ids,
summaries, examples, descriptions, theme enums, tags, no pointers at files a consumer cannot
see), the examples match the response models, and the contract edges the document states
(theme labels in any case, an empty ``cursor``) hold on the routes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from analytics.themes import AXES, THEME_LABELS
from readmodel import models
from serving.app import create_app
from serving.openapi import DOCS_ASSETS, DOCS_ASSETS_URL, EXAMPLES, OPENAPI_TAGS
from tests.serving.conftest import Corpus
from warehouse.settings import Settings

OPERATION_IDS = {
    "listSignals",
    "getSignal",
    "searchUnits",
    "listEntities",
    "getEntity",
    "getTrendingEntities",
    "listThemes",
    "getTheme",
    "getHealth",
    "getChangelog",
    "refreshSnapshot",
    "listStories",
    "getStory",
}
CAMEL_CASE = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)+")
# Text a consumer of the document cannot follow: internal specs, design notes, repository files.
HIDDEN_POINTERS = ("§", "DESIGN", ".md", "docs/")
ALL_LABELS = [label for axis in AXES for label in THEME_LABELS[axis]]
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    """``/openapi.json`` as a client fetches it; the document needs no snapshot."""
    app = create_app(Settings(_env_file=None, data_dir=Path("/nonexistent")))
    response = TestClient(app).get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method, path, operation


def _strings(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield where, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(key, where)
            yield from _strings(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{where}/{i}")


def _properties(schema: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, prop in schema.get("properties", {}).items():
        yield f"{where}.{name}", prop
        yield from _properties(prop, f"{where}.{name}")


def test_operation_ids_are_the_named_camel_case_ones(spec: dict[str, Any]) -> None:
    ids = [operation.get("operationId") for _, _, operation in _operations(spec)]
    assert len(ids) == len(set(ids)), ids
    assert set(ids) == OPERATION_IDS
    for operation_id in ids:
        assert isinstance(operation_id, str) and CAMEL_CASE.fullmatch(operation_id), operation_id


def test_every_operation_has_a_summary_a_described_tag_and_an_example(
    spec: dict[str, Any],
) -> None:
    described = {tag["name"] for tag in spec["tags"] if tag.get("description")}
    for method, path, operation in _operations(spec):
        label = f"{method.upper()} {path}"
        assert operation.get("summary"), label
        assert operation.get("description"), label
        assert operation.get("tags") and set(operation["tags"]) <= described, label
        content = operation["responses"]["200"]["content"]
        assert any(media.get("example") for media in content.values()), label


def test_every_parameter_and_property_is_described(spec: dict[str, Any]) -> None:
    missing = [
        f"{method.upper()} {path} {parameter['name']}"
        for method, path, operation in _operations(spec)
        for parameter in operation.get("parameters", [])
        if not parameter.get("description", "").strip()
    ]
    for name, schema in spec["components"]["schemas"].items():
        missing += [
            where for where, prop in _properties(schema, name) if not prop.get("description")
        ]
    assert not missing, missing


def test_theme_parameters_list_the_12_labels(spec: dict[str, Any]) -> None:
    seen = []
    for method, path, operation in _operations(spec):
        for parameter in operation.get("parameters", []):
            if parameter["name"] not in {"theme", "label"}:
                continue
            seen.append(f"{method} {path} {parameter['name']}")
            schema = parameter["schema"]
            strings = [b for b in schema.get("anyOf", [schema]) if b.get("type") == "string"]
            assert len(strings) == 1, parameter
            assert strings[0]["enum"] == ALL_LABELS, parameter
            # the routes read labels in any case: the document says so
            assert "any case" in parameter["description"], parameter
    assert len(seen) == 6, seen  # signals, search, entities, trending, the theme path, stories


def test_no_text_points_at_files_a_consumer_cannot_see(spec: dict[str, Any]) -> None:
    found = [
        (where, text)
        for where, text in _strings(spec)
        for pointer in HIDDEN_POINTERS
        if pointer in text
    ]
    assert not found, found


def test_the_400_rules_are_stated(spec: dict[str, Any]) -> None:
    operations = {op["operationId"]: op for _, _, op in _operations(spec)}
    for operation_id in ("listSignals", "listEntities", "searchUnits", "getEntity"):
        assert "Here:" in operations[operation_id]["responses"]["400"]["description"]
    cursor = next(p for p in operations["listSignals"]["parameters"] if p["name"] == "cursor")
    assert "empty" in cursor["description"]


def _model_of(operation: dict[str, Any]) -> type[BaseModel]:
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    model = getattr(models, ref.rsplit("/", 1)[1])
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model


def test_examples_are_valid_responses_and_short(spec: dict[str, Any]) -> None:
    committed = {path.stem for path in EXAMPLES.glob("*.json")}
    assert committed == OPERATION_IDS - {"getChangelog"}  # Markdown, shown inline
    for _, _, operation in _operations(spec):
        if operation["operationId"] == "getChangelog":
            continue
        example = operation["responses"]["200"]["content"]["application/json"]["example"]
        _model_of(operation).model_validate(example, strict=False)
        # short: one item per list, two related entities or themes, a signal with few units
        cap = 6 if operation["operationId"] == "getSignal" else 2
        for value in example.values():
            if isinstance(value, list):
                assert len(value) <= cap or not isinstance(value[0], dict), operation


def test_tags_are_the_documented_ones(spec: dict[str, Any]) -> None:
    assert spec["tags"] == OPENAPI_TAGS


@pytest.mark.parametrize(
    "query",
    [
        "theme=regulatory%20%26%20legal",
        "theme=REGULATORY+%26+LEGAL",
        "theme=Regulatory%20%26%20Legal",
    ],
)
def test_theme_labels_outside_the_enum_spelling_still_work(client: TestClient, query: str) -> None:
    assert client.get(f"/v1/signals?{query}").status_code == 200
    assert client.get(f"/v1/entities?{query}&min_signals=1").status_code == 200
    assert client.get("/v1/themes/market_force/regulatory%20%26%20legal").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/v1/signals?limit=3",
        "/v1/signals?limit=3&sort=changed",
        "/v1/entities?limit=3&min_signals=1",
        "/v1/entities?limit=3&min_signals=1&sort=first_seen",
    ],
)
def test_an_empty_cursor_is_no_cursor(client: TestClient, path: str) -> None:
    first = client.get(path)
    empty = client.get(f"{path}&cursor=")
    assert first.status_code == empty.status_code == 200
    assert empty.content == first.content
    # a real cursor still pages on, and a bad one is still 400
    assert client.get(f"{path}&cursor=%20").status_code == 400


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_every_asset_from_the_service(page: str) -> None:
    """No CDN: every script, stylesheet and icon the page names is served here, and the page
    names no other origin (so it renders on a host without internet access)."""
    bare = TestClient(create_app(Settings(_env_file=None, data_dir=Path("/nonexistent"))))
    html = bare.get(page)
    assert html.status_code == 200 and "text/html" in html.headers["content-type"]
    assert "://" not in html.text, re.findall(r"\w+://[^\s\"'<>]+", html.text)
    assets = re.findall(r"""(?:src|href|spec-url)\s*=\s*['"]([^'"]+)['"]""", html.text)
    assets += re.findall(r"""url:\s*['"]([^'"]+)['"]""", html.text)  # the document itself
    assert "/openapi.json" in assets
    assert sum(a.startswith(f"{DOCS_ASSETS_URL}/") for a in assets) >= (3 if page == "/docs" else 2)
    for asset in assets:
        response = bare.get(asset)
        assert response.status_code == 200 and response.content, asset


def test_vendored_docs_assets_carry_their_licences() -> None:
    for ui in ("swagger-ui", "redoc"):
        assert (DOCS_ASSETS / ui / "LICENSE").read_text(encoding="utf-8").strip()
    assert "Apache License" in (DOCS_ASSETS / "swagger-ui" / "LICENSE").read_text(encoding="utf-8")
    assert "MIT" in (DOCS_ASSETS / "redoc" / "LICENSE").read_text(encoding="utf-8")


def test_search_documents_phrases_in_double_quotes(spec: dict[str, Any]) -> None:
    (q,) = [p for p in spec["paths"]["/v1/search"]["get"]["parameters"] if p["name"] == "q"]
    assert "double quotes are a phrase" in q["description"]


def test_a_quoted_phrase_over_http_answers_only_signals_holding_it(
    client: TestClient, corpus: Corpus
) -> None:
    """The same words in a title's order, quoted, find that title's signal; reversed and
    quoted, no signal holds them and nothing answers, though unquoted they still rank."""
    titles = dict(corpus.served.select("signal_id", "title").iter_rows())
    signal_id, title = next((s, t) for s, t in titles.items() if len(t.split()) >= 3)
    words = title.split()[:3]
    forward = client.get("/v1/search", params={"q": '"' + " ".join(words) + '"', "limit": 20})
    assert forward.status_code == 200
    found = {hit["citation"]["signal_id"] for hit in forward.json()["results"]}
    assert found == {signal_id}  # no other signal holds those words in that order
    backward = " ".join(reversed(words))
    assert client.get("/v1/search", params={"q": f'"{backward}"'}).json()["results"] == []
    assert client.get("/v1/search", params={"q": backward}).json()["results"]
