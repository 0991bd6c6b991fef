"""§5 Authentication: `X-API-Key` on every data endpoint (missing or invalid → 401, §7), the
health endpoint open with or without a key (§4.1), and the admin endpoint behind
`X-Admin-Secret` only (§4.10), also as the OpenAPI document declares it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.contract.conftest import API_KEY
from tests.contract.helpers import DATA_ENDPOINTS, error_of

KEY_HEADERS = {
    "missing": {},
    "empty": {"X-API-Key": ""},
    "invalid": {"X-API-Key": "not-a-key"},
    "almost": {"X-API-Key": API_KEY + "x"},
    "admin secret instead": {"X-Admin-Secret": API_KEY},
}


@pytest.mark.parametrize("headers", list(KEY_HEADERS.values()), ids=list(KEY_HEADERS))
@pytest.mark.parametrize("path", DATA_ENDPOINTS)
def test_s5_every_data_endpoint_needs_a_valid_key(
    bare: TestClient, path: str, headers: dict[str, str]
) -> None:
    """§5 every data endpoint requires `X-API-Key`; §5/§7 401: invalid or missing API key."""
    error = error_of(bare.get(path, headers=headers), 401)
    assert error["code"] == "unauthorized"


@pytest.mark.parametrize("path", DATA_ENDPOINTS)
def test_s5_the_same_requests_pass_with_the_key(api: TestClient, path: str) -> None:
    """§5 with `X-API-Key: <API_KEY>` the data endpoints answer (401 was only the key)."""
    assert api.get(path).status_code in (200, 404)


@pytest.mark.parametrize(
    "headers",
    [{}, {"X-API-Key": API_KEY}, {"X-API-Key": "not-a-key"}],
    ids=["no key", "valid key", "unknown key"],
)
def test_s5_health_needs_no_key_and_accepts_one(bare: TestClient, headers: dict[str, str]) -> None:
    """§4.1 / §5 the health endpoint does not require a key; a client may send one."""
    response = bare.get("/v1/health", headers=headers)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


@pytest.mark.parametrize(
    "headers",
    [
        {"X-API-Key": API_KEY},
        {"X-API-Key": API_KEY, "X-Admin-Secret": API_KEY},
        {"X-API-Key": API_KEY, "X-Admin-Secret": ""},
    ],
    ids=["api key only", "api key as secret", "empty secret"],
)
def test_s5_admin_refresh_is_not_reachable_with_an_api_key(
    bare: TestClient, headers: dict[str, str]
) -> None:
    """§4.10 / §5 the admin endpoint requires `X-Admin-Secret`; not available to regular
    API-key holders (401, docs/design.md §9)."""
    error = error_of(bare.post("/v1/admin/refresh", headers=headers), 401)
    assert error["code"] == "unauthorized"


def test_s5_openapi_declares_the_key_on_data_routes_only(bare: TestClient) -> None:
    """§5 in the OpenAPI document: `X-API-Key` on every data operation, none on health (nor
    the changelog), the
    admin secret (not the API key) on the admin operation."""
    document = bare.get("/openapi.json").json()
    schemes = document["components"]["securitySchemes"]
    header_of = {name: s["name"] for name, s in schemes.items() if s.get("in") == "header"}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            headers = {header_of[n] for req in operation.get("security", []) for n in req}
            expected: set[str]
            if path in ("/v1/health", "/v1/changelog"):
                expected = set()
            elif path.startswith("/v1/admin/"):
                expected = {"X-Admin-Secret"}
            else:
                expected = {"X-API-Key"}
            assert headers == expected, (method, path, headers)
