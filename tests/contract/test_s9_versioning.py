"""§9 Versioning: the `/v1` prefix, the version the health endpoint reports, the renamed `q`
(ignored on `/v1/signals` and `/v1/entities`, flagged with `Deprecation: true` and a `Link`
`rel="deprecation"`, docs/design.md §9), and the changelog kept in the spec's form."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import httpx2 as httpx  # what starlette.testclient returns
import pytest
from fastapi.testclient import TestClient

from tests.contract import spec

CHANGELOG = Path(__file__).resolve().parents[2] / "docs" / "changelog.md"
# The spec's changelog entries (§9), by date.
SPEC_ENTRIES = (
    "2026-04-28",
    "2026-06-12",
    "2026-06-14",
    "2026-06-18",
    "2026-08-11",
    "2026-08-13",
    "2026-08-15",
    "2026-09-12",
    "2026-10-10",
)
STATUSES = ("Announcement", "Deprecated", "Shipped", "Sunset")
_LINK = re.compile(r"<([^>]*)>\s*;([^,]*)")


def deprecation_links(response: httpx.Response) -> list[str]:
    """The targets of the response's `Link` entries with `rel="deprecation"`."""
    return [
        target
        for value in response.headers.get_list("Link")
        for target, params in _LINK.findall(value)
        if re.search(r'rel="?deprecation"?', params)
    ]


def test_s9_health_reports_version_0_1_0(bare: TestClient) -> None:
    """§9 the health response reports the API version string (0.1.0 in the reference);
    §4.1 body `{status, version}`."""
    assert bare.get("/v1/health").json()["version"] == spec.API_VERSION


def test_s9_every_path_has_the_v1_prefix(bare: TestClient) -> None:
    """§9 the path prefix is `/v1`."""
    paths = bare.get("/openapi.json").json()["paths"]
    assert paths and all(path.startswith("/v1/") for path in paths)


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/signals", {}),
        ("/v1/signals", {"keyword": "chips", "sort": "changed"}),
        ("/v1/entities", {}),
        ("/v1/entities", {"name": "ai", "min_signals": 1}),
    ],
)
def test_s9_renamed_q_is_ignored_and_flagged_deprecated(
    api: TestClient, path: str, params: dict[str, str | int]
) -> None:
    """§9 / §4.5 2026-06-12: `q` on `/v1/signals` (now `keyword`) and on `/v1/entities`
    (now `name`) is ignored; docs/design.md §9: the answer is the one without `q`, plus
    `Deprecation: true` and a `Link` with `rel="deprecation"`."""
    plain = api.get(path, params={**params, "limit": 10})
    assert plain.status_code == 200, plain.text
    assert "Deprecation" not in plain.headers and not deprecation_links(plain)
    for q in ("openai", "", "zzqqxx"):
        with_q = api.get(path, params={**params, "limit": 10, "q": q})
        assert with_q.status_code == 200, with_q.text
        assert with_q.json() == plain.json(), q
        assert with_q.headers["Deprecation"] == "true"
        assert len(deprecation_links(with_q)) == 1


def test_s9_search_q_is_current_not_deprecated(api: TestClient) -> None:
    """§9 the rename concerns `/v1/signals` and `/v1/entities`; search's `q` is current."""
    response = api.get("/v1/search", params={"q": "chips", "limit": 2})
    assert response.status_code == 200
    assert "Deprecation" not in response.headers and not deprecation_links(response)


def test_s9_deprecation_link_leads_to_the_changelog(api: TestClient) -> None:
    """docs/design.md §9: the `Link` (`rel="deprecation"`) leads to the changelog."""
    response = api.get("/v1/signals", params={"q": "openai", "limit": 1})
    (target,) = deprecation_links(response)
    page = api.get(urljoin(str(response.url), target))
    assert page.status_code == 200
    assert "2026-06-12" in page.text and "keyword" in page.text


def test_s9_changelog_keeps_the_spec_entries_in_the_spec_form() -> None:
    """§9 changelog entries carry a date, a status (`Announcement`, `Deprecated`, `Shipped`,
    `Sunset`), the affected item and a migration note; docs/design.md §9 `docs/changelog.md` starts
    from the spec's own entries."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in CHANGELOG.read_text(encoding="utf-8").splitlines()
        if re.match(r"\|\s*\d{4}-\d{2}-\d{2}\s*\|", line)
    ]
    assert rows
    for row in rows:
        assert len(row) == 4 and row[1] in STATUSES and row[2] and row[3], row
    assert set(SPEC_ENTRIES) <= {row[0] for row in rows}
