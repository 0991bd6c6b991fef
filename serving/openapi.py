"""What the OpenAPI document (``/openapi.json``) says beyond the routes and models: the tags and
their descriptions, the example responses (``serving/examples/<operationId>.json``, taken from
the demo corpus by ``scripts/openapi_examples.py``) and descriptions of FastAPI's own 422 body;
and the two pages that render it, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), whose assets
are served from ``serving/docs_assets/`` (vendored at pinned versions with their licences) so
they open on a host without internet access. ``tests/serving/test_openapi.py`` holds the
document's invariants."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from analytics.themes import AXES, THEME_LABELS

EXAMPLES = Path(__file__).resolve().parent / "examples"
# npm's swagger-ui-dist and redoc (bundles/redoc.standalone.js), copied by
# scripts/vendor_docs_assets.sh (verbatim but for ReDoc's CDN logo, left out); bump them here.
DOCS_ASSETS = Path(__file__).resolve().parent / "docs_assets"
DOCS_ASSETS_URL = "/docs-assets"
SWAGGER_UI_VERSION = "5.35.0"
REDOC_VERSION = "2.5.2"

# In document order; every tag a route uses is here.
OPENAPI_TAGS: list[dict[str, Any]] = [
    {
        "name": "signals",
        "description": "Signals: one curated source each (an analysis or an event), decomposed "
        "into verified units. The list is cursor-paginated and doubles as the change feed "
        "(`sort=changed`).",
    },
    {
        "name": "search",
        "description": "Relevance-ranked search over verified units, by free text or by "
        "similarity to a known unit. Not paginated.",
    },
    {
        "name": "entities",
        "description": "Named organizations, people, models and more, with stable public ids "
        "(`ent:/…`), trend numbers and labels over 12 complete weeks, and related entities.",
    },
    {
        "name": "themes",
        "description": "The 12 canonical themes, six on each axis (`value_chain`, "
        "`market_force`), with the same trend numbers and labels as entities.",
    },
    {
        "name": "stories",
        "description": "Stories: signals about the same event or development, grouped within a "
        "rolling window of days, with their independent sources. Cursor-paginated, newest "
        "activity first.",
    },
    {
        "name": "health",
        "description": "Liveness, version and the API changelog. No API key needed.",
    },
    {
        "name": "admin",
        "description": "Operator endpoints behind the `X-Admin-Secret` header; an API key is "
        "not enough.",
    },
]

# Every canonical theme label, value chain first: the enum of the `theme` parameters.
ALL_THEME_LABELS: list[str] = [label for axis in AXES for label in THEME_LABELS[axis]]
THEME_MATCHING = (
    "Matched in any case (`regulatory & legal` works); URL-encode it in a query or path. "
    "Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one."
)


def theme_enum(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a theme parameter: its string schema lists the 12 labels. Only
    the schema: the route still reads the value as a string, so any case works and an unknown
    label stays a 404."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string":
            branch["enum"] = ALL_THEME_LABELS


# FastAPI's own 422 schemas carry no descriptions; these fill them in.
_VALIDATION_DESCRIPTIONS = {
    "HTTPValidationError": {"detail": "One entry per parameter that failed validation."},
    "ValidationError": {
        "loc": 'Where the value sits, e.g. `["query", "limit"]`.',
        "msg": "What is wrong with it.",
        "type": "Machine-readable error type, e.g. `less_than_equal`.",
        "input": "The value as received.",
        "ctx": 'The rule it broke, e.g. `{"le": 50}`.',
    },
}


@cache
def example(operation_id: str) -> Any:
    """The example 200 body of ``operation_id``, as committed under ``serving/examples/``; None
    while there is none (the script that writes them imports the app), which the OpenAPI test
    does not let pass."""
    path = EXAMPLES / f"{operation_id}.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def document(app: FastAPI) -> None:
    """Give ``app``'s OpenAPI document the tags above and describe FastAPI's 422 schemas;
    serve ``/docs`` and ``/redoc`` from the vendored assets (the app is created without
    FastAPI's own, which load them from a CDN)."""
    app.openapi_tags = OPENAPI_TAGS
    _add_docs_pages(app)
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        first = app.openapi_schema is None
        schema = generate()  # FastAPI keeps it in app.openapi_schema: patched once
        if first:
            schemas = schema.get("components", {}).get("schemas", {})
            for name, properties in _VALIDATION_DESCRIPTIONS.items():
                for prop, text in properties.items():
                    found = schemas.get(name, {}).get("properties", {}).get(prop)
                    if found is not None:
                        found.setdefault("description", text)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _add_docs_pages(app: FastAPI) -> None:
    app.mount(DOCS_ASSETS_URL, StaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    title = f"{app.title} API reference"

    def assets(request: Request) -> str:
        return str(request.scope.get("root_path", "")) + DOCS_ASSETS_URL

    def openapi_url(request: Request) -> str:
        return str(request.scope.get("root_path", "")) + (app.openapi_url or "/openapi.json")

    async def swagger_ui(request: Request) -> HTMLResponse:
        base = assets(request)
        return get_swagger_ui_html(
            openapi_url=openapi_url(request),
            title=title,
            swagger_js_url=f"{base}/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url=f"{base}/swagger-ui/swagger-ui.css",
            swagger_favicon_url=f"{base}/swagger-ui/favicon-32x32.png",
            # no badge fetched from the public validator
            swagger_ui_parameters={"validatorUrl": None},
        )

    async def redoc(request: Request) -> HTMLResponse:
        base = assets(request)
        return get_redoc_html(
            openapi_url=openapi_url(request),
            title=title,
            redoc_js_url=f"{base}/redoc/redoc.standalone.js",
            redoc_favicon_url=f"{base}/swagger-ui/favicon-32x32.png",
            with_google_fonts=False,
        )

    app.add_api_route("/docs", swagger_ui, methods=["GET"], include_in_schema=False)
    app.add_api_route("/redoc", redoc, methods=["GET"], include_in_schema=False)
