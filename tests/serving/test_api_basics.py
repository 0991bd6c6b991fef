"""Health, authentication, error bodies, request ids and the OpenAPI document."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from readmodel.models import ErrorBody, ErrorDetail, Health, SignalList
from serving.app import create_app
from serving.keys import KeyStore
from tests.serving.conftest import AS_OF, DEV_KEY, make_settings

HEX_ID = re.compile(r"[0-9a-f]{32}")


def error_of(response_json: object) -> dict[str, object]:
    """The error object after checking the body is exactly the spec's error body."""
    body = ErrorBody.model_validate(response_json)
    assert isinstance(response_json, dict) and set(response_json) == {"error"}
    assert set(response_json["error"]) == set(ErrorDetail.model_fields)
    return body.error.model_dump()


def test_health_needs_no_key_and_reports_the_snapshot(client: TestClient) -> None:
    bare = TestClient(client.app)  # no default key header
    response = bare.get("/v1/health")
    assert response.status_code == 200
    health = Health.model_validate_json(response.content)
    assert health.status == "ok"
    assert health.version == "0.1.0"
    assert health.snapshot is not None
    assert health.snapshot.as_of == AS_OF
    assert response.json()["snapshot"]["as_of"] == "2026-05-01T12:00:00Z"
    assert response.headers["X-Request-Id"]


@pytest.mark.parametrize("key", [DEV_KEY, "not-a-key"])
def test_health_accepts_any_key_header(client: TestClient, key: str) -> None:
    response = client.get("/v1/health", headers={"X-API-Key": key})
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


@pytest.mark.parametrize(
    ("headers", "fragment"),
    [({}, "missing API key"), ({"X-API-Key": "wrong"}, "invalid or revoked")],
)
def test_data_routes_need_a_valid_key(
    client: TestClient, headers: dict[str, str], fragment: str
) -> None:
    bare = TestClient(client.app)
    for path in ("/v1/signals", "/v1/signals/whatever"):
        response = bare.get(path, headers=headers)
        assert response.status_code == 401
        error = error_of(response.json())
        assert error["code"] == "unauthorized"
        assert error["status"] == 401
        assert fragment in str(error["message"])
        assert error["request_id"] == response.headers["X-Request-Id"]


def test_auth_is_checked_before_parameters(client: TestClient) -> None:
    response = TestClient(client.app).get("/v1/signals?limit=0")
    assert response.status_code == 401


def test_stored_keys_work_until_revoked(client: TestClient, key_store: KeyStore) -> None:
    bare = TestClient(client.app)
    # Created after the app started: the store re-reads the file when it changes.
    record, plaintext = key_store.create("integration test", tier="pro")
    assert plaintext.startswith(f"aimi_{record.key_id}_")
    assert bare.get("/v1/signals", headers={"X-API-Key": plaintext}).status_code == 200
    assert bare.get("/v1/signals", headers={"X-API-Key": plaintext + "x"}).status_code == 401
    key_store.revoke(record.key_id)
    response = bare.get("/v1/signals", headers={"X-API-Key": plaintext})
    assert response.status_code == 401
    assert error_of(response.json())["code"] == "unauthorized"


def test_dev_key_is_accepted(client: TestClient) -> None:
    response = TestClient(client.app).get("/v1/signals", headers={"X-API-Key": DEV_KEY})
    assert response.status_code == 200
    SignalList.model_validate_json(response.content)


def test_unknown_route_gives_the_error_body(client: TestClient) -> None:
    response = client.get("/v2/signals")
    assert response.status_code == 404
    error = error_of(response.json())
    assert error["code"] == "not_found"
    assert error["request_id"] == response.headers["X-Request-Id"]


def test_wrong_method_gives_method_not_allowed(client: TestClient) -> None:
    response = client.post("/v1/health")
    assert response.status_code == 405
    assert error_of(response.json())["code"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_validation_errors_keep_the_detail_body(client: TestClient) -> None:
    for query in (
        "limit=0",
        "limit=51",
        "content_type=opinion",
        "window=7x",
        "published_after=20260301",
        "sort=oldest",
    ):
        response = client.get(f"/v1/signals?{query}")
        assert response.status_code == 422, query
        body = response.json()
        assert set(body) == {"detail"}, query
        assert body["detail"] and {"loc", "msg", "type"} <= set(body["detail"][0]), query
        assert HEX_ID.fullmatch(response.headers["X-Request-Id"])


def test_request_id_is_honoured_when_well_formed(client: TestClient) -> None:
    good = "req-1.A_b"
    response = client.get("/v1/signals/nope", headers={"X-Request-Id": good})
    assert response.headers["X-Request-Id"] == good
    assert error_of(response.json())["request_id"] == good
    for bad in ("has space", "x" * 129, "semi;colon", ""):
        response = client.get("/v1/health", headers={"X-Request-Id": bad})
        assert HEX_ID.fullmatch(response.headers["X-Request-Id"]), bad
    assert (
        client.get("/v1/health", headers={"X-Request-Id": "y" * 128}).headers["X-Request-Id"]
        == "y" * 128
    )


def test_unhandled_errors_are_a_500_body_without_the_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(make_settings(tmp_path))

    async def boom() -> None:
        raise RuntimeError("secret internals")

    app.add_api_route("/v1/boom", boom)
    with TestClient(app) as c, caplog.at_level(logging.ERROR, logger="aimi.serving"):
        response = c.get("/v1/boom", headers={"X-Request-Id": "trace-me"})
    assert response.status_code == 500
    error = error_of(response.json())
    assert error["code"] == "internal_error"
    assert error["request_id"] == "trace-me"
    assert response.headers["X-Request-Id"] == "trace-me"
    assert "secret internals" not in response.text
    logged = [r for r in caplog.records if r.name == "aimi.serving" and r.exc_info]
    assert logged and "trace-me" in logged[0].getMessage()


def test_openapi_documents_models_and_errors(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    listing = spec["paths"]["/v1/signals"]["get"]
    for status in ("400", "401", "503"):
        ref = listing["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorBody")
    assert "422" in listing["responses"]
    ok = listing["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ok.endswith("/SignalList")
    params = {p["name"]: p for p in listing["parameters"]}
    assert {
        "entity",
        "theme",
        "keyword",
        "content_type",
        "published_after",
        "published_before",
        "window",
        "sort",
        "cursor",
        "limit",
        "q",
    } <= set(params)
    assert params["q"]["deprecated"] is True
    detail = spec["paths"]["/v1/signals/{signal_id}"]["get"]["responses"]
    assert detail["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/SignalDetail")
    assert "404" in detail
    schemas = spec["components"]["schemas"]
    card = schemas["SignalCard"]
    # Omitted-not-null fields: optional and never typed as null.
    assert "thesis" not in card["required"] and "synopsis" not in card["required"]
    assert card["properties"]["thesis"].get("type") == "string"
    unit = schemas["Unit"]
    assert unit["properties"]["argument_id"].get("type") == "string"
    assert set(unit["required"]) == {"id", "role", "text"}
    assert "APIKeyHeader" in spec["components"]["securitySchemes"]
    assert "security" not in spec["paths"]["/v1/health"]["get"]
