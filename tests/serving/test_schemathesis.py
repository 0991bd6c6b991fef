"""Property-based API fuzzing with schemathesis over ``/openapi.json`` on the demo snapshot:
generated requests (valid and invalid) never give a 5xx, and every response matches the status
codes, content types and schemas the OpenAPI document declares. Bounded: ``MAX_EXAMPLES`` per
operation, so the run stays around a minute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from serving.app import create_app
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir
from warehouse.settings import Settings

MAX_EXAMPLES = 20
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _operations() -> list[tuple[str, str]]:
    """(method, path) of every documented operation; the document needs no snapshot."""
    app = create_app(Settings(_env_file=None, data_dir=Path("/nonexistent")))
    return [
        (method.upper(), path)
        for path, item in app.openapi()["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]


@pytest.fixture(scope="module")
def api_schema(demo_data_dir: DataDir) -> Iterator[Any]:
    app = create_app(make_settings(demo_data_dir.root))
    with TestClient(app):  # the lifespan loads the snapshot
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.mark.parametrize(("method", "path"), _operations())
def test_no_5xx_and_every_response_matches_the_openapi_document(
    api_schema: Any, method: str, path: str
) -> None:
    operation = api_schema.find_operation_by_label(f"{method} {path}")

    @given(case=operation.as_strategy())
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,  # the same examples every run: a failure reproduces
        database=None,
    )
    def check(case: Any) -> None:
        case.call_and_validate(headers={"X-API-Key": DEV_KEY}, checks=CHECKS)

    check()
