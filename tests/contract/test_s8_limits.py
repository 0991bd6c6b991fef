"""§8 Limits: every bound tested at both edges (below the minimum → 422, the minimum, the
maximum, above it → 422) and every default; the evidence snippet cap, the 8-signal threshold
of the labels, and the rate-limit headers on authenticated responses. The trend window and
`related_entities` top 25 are checked against the served signals in test_s2_5_trends.py; 429
itself in tests/serving/test_ratelimit.py."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.contract import spec
from tests.contract.helpers import Json, validation_errors, walk

QUERY = "AI chip supply and data center investment"


def hits(api: TestClient, **params: Any) -> list[Json]:
    response = api.get("/v1/search", params=params)
    assert response.status_code == 200, response.text
    found: list[Json] = response.json()["results"]
    return found


def items(api: TestClient, path: str, **params: Any) -> list[Json]:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    key = {"/v1/search": "results", "/v1/entities/trending": "data"}.get(path, path[4:])
    found: list[Json] = body[key]
    return found


# (path, fixed params, parameter, below min, min, max, above max)
BOUNDS: dict[str, tuple[str, Json, str, float, float, float, float]] = {
    "search limit 1-100": ("/v1/search", {"q": QUERY}, "limit", 0, 1, 100, 101),
    "search diversity_cap 1-100": ("/v1/search", {"q": QUERY}, "diversity_cap", 0, 1, 100, 101),
    "search recency_boost 0-1": ("/v1/search", {"q": QUERY}, "recency_boost", -0.01, 0, 1, 1.01),
    "signals limit 1-50": ("/v1/signals", {}, "limit", 0, 1, 50, 51),
    "entities limit 1-50": ("/v1/entities", {}, "limit", 0, 1, 50, 51),
    "trending limit 1-50": ("/v1/entities/trending", {"mode": "hot"}, "limit", 0, 1, 50, 51),
}


@pytest.mark.parametrize("name", list(BOUNDS))
def test_s8_bounds_at_both_edges(api: TestClient, name: str) -> None:
    """§8 Search `limit` 1–100, `diversity_cap` 1–100, `recency_boost` 0–1; list page size
    `limit` 1–50 (signals, entities, trending): min-1 → 422, min OK, max OK, max+1 → 422."""
    path, fixed, param, below, low, high, above = BOUNDS[name]
    for value in (below, above):
        validation_errors(api.get(path, params={**fixed, param: value}), ("query", param))
    for value in (low, high):
        found = items(api, path, **{**fixed, param: value})
        if param == "limit":
            assert len(found) <= value
            assert len(found) == value or path == "/v1/entities/trending", (name, len(found))
        else:
            assert found


def test_s8_trending_limit_50_returns_what_the_mode_holds(api: TestClient) -> None:
    """§8 trending `limit` max 50: more than the default when the mode holds more."""
    assert len(items(api, "/v1/entities/trending", mode="hot", limit=50)) > 25


@pytest.mark.parametrize(("length", "status"), [(0, 422), (1, 200), (2000, 200), (2001, 422)])
def test_s8_search_q_length_1_to_2000(api: TestClient, length: int, status: int) -> None:
    """§8 Search `q` length 1–2000 characters."""
    q = ("data center chips " * 200)[:length]
    assert len(q) == length
    response = api.get("/v1/search", params={"q": q, "limit": 3})
    if status == 422:
        validation_errors(response, ("query", "q"))
    else:
        assert response.status_code == 200, response.text
        assert response.json()["query"] == q


def test_s8_search_limit_default_10(api: TestClient) -> None:
    """§8 Search `limit` default 10."""
    default = hits(api, q=QUERY)
    assert len(default) == 10 and default == hits(api, q=QUERY, limit=10)


def test_s8_diversity_cap_default_2(api: TestClient, details: dict[str, Json]) -> None:
    """§8 / §4.2 `diversity_cap` 1–100, default 2: maximum units per source article."""

    def per_signal(found: list[Json]) -> int:
        return max(Counter(h["citation"]["signal_id"] for h in found).values())

    # a query made of a rich signal's own units, for which the cap binds: many demo sentences
    # recur across signals and collapse onto their earliest copy, so not every rich signal's
    # units come back under it
    richest = sorted(details.values(), key=lambda d: (-len(d["units"]), d["signal_id"]))[:20]
    queries = (" ".join(u["text"] for u in d["units"][:3])[:1000] for d in richest)
    q = next(
        (q for q in queries if per_signal(hits(api, q=q, limit=50, diversity_cap=100)) > 2),
        None,
    )
    assert q is not None, "the cap must bind for one of the 20 richest signals"
    default = hits(api, q=q, limit=50)
    assert per_signal(default) == 2
    assert default == hits(api, q=q, limit=50, diversity_cap=2)
    assert per_signal(hits(api, q=q, limit=50, diversity_cap=1)) == 1


def test_s8_recency_boost_default_0(api: TestClient) -> None:
    """§8 / §4.2 `recency_boost` 0–1, default 0 (no preference for newer signals)."""
    default = hits(api, q=QUERY, limit=20)
    assert default == hits(api, q=QUERY, limit=20, recency_boost=0)
    assert default != hits(api, q=QUERY, limit=20, recency_boost=1)


@pytest.mark.parametrize(
    ("path", "params"),
    [("/v1/signals", {}), ("/v1/entities", {}), ("/v1/entities/trending", {"mode": "hot"})],
)
def test_s8_list_page_size_default_25(api: TestClient, path: str, params: Json) -> None:
    """§8 list page size `limit` default 25 (signals, entities, trending)."""
    default = api.get(path, params=params).json()
    assert default == api.get(path, params={**params, "limit": 25}).json()
    assert len(items(api, path, **params)) == 25


def test_s8_min_signals_at_least_1_default_2(api: TestClient) -> None:
    """§8 `min_signals` integer ≥ 1, default 2 (§4.5: the default leaves out single-signal
    entities; 1 includes them)."""
    validation_errors(api.get("/v1/entities", params={"min_signals": 0}), ("query", "min_signals"))
    validation_errors(api.get("/v1/entities", params={"min_signals": -3}), ("query", "min_signals"))
    default = walk(api, "/v1/entities", "entities", limit=50)
    assert default == walk(api, "/v1/entities", "entities", limit=50, min_signals=2)
    assert min(e["signal_count"] for e in default) == 2
    single = walk(api, "/v1/entities", "entities", limit=50, min_signals=1)
    assert min(e["signal_count"] for e in single) == 1
    assert items(api, "/v1/entities", min_signals=10**6) == []


def test_s8_evidence_snippets_are_at_most_50_characters(details: dict[str, Json]) -> None:
    """§8 evidence snippet length 50 characters; §2.1 `evidence_preview` snippets capped at
    50 characters, `truncated` saying whether the locator was cut."""
    snippets = [
        snippet
        for detail in details.values()
        for unit in detail["units"]
        for snippet in unit.get("evidence_preview", {}).get("snippets", [])
    ]
    assert snippets
    too_long = [s["text"] for s in snippets if len(s["text"]) > spec.SNIPPET_MAX_CHARS]
    assert not too_long, (len(too_long), too_long[:3])
    assert any(s["truncated"] for s in snippets), "the cap binds on some snippets"


def test_s8_labels_are_null_below_8_signals(all_entities: list[Json], themes: list[Json]) -> None:
    """§8 minimum signals for `direction`, `confidence`, `stability`, `notability`: 8
    (§2.5: null below 8; `scale` is `Small` below 8)."""
    rated = unrated = 0
    for resource in [*all_entities, *themes]:
        labels = [resource[field] for field in spec.LABEL_FIELDS]
        if resource["signal_count"] < spec.MIN_LABELLED:
            assert labels == [None] * 4, resource
            assert resource.get("scale", "Small") == "Small", resource
            unrated += 1
        else:
            assert None not in labels, resource
            rated += 1
    assert rated and unrated


def test_s2_5_scale_is_ranked_over_entities_with_8_signals(all_entities: list[Json]) -> None:
    """§2.5 `scale`: ranked over entities with 8 or more signals, about 10% `Large`, 25%
    `Medium`, the rest `Small`."""
    rated = [e for e in all_entities if e["signal_count"] >= spec.MIN_LABELLED]
    assert len(rated) >= 20
    share = {s: n / len(rated) for s, n in Counter(e["scale"] for e in rated).items()}
    assert abs(share.get("Large", 0) - 0.10) <= 0.05, share
    assert abs(share.get("Medium", 0) - 0.25) <= 0.05, share


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/signals", 200),
        ("/v1/signals?cursor=nonsense", 400),
        ("/v1/signals/no-such-signal", 404),
        ("/v1/signals?limit=0", 422),
    ],
)
def test_s8_every_authenticated_response_carries_rate_limit_headers(
    api: TestClient, path: str, status: int
) -> None:
    """§8 every authenticated response carries `X-RateLimit-*` headers, including
    `X-RateLimit-Reset-Minute` and `X-RateLimit-Reset-Monthly` (unix epoch seconds)."""
    now = time.time()
    response = api.get(path)
    assert response.status_code == status
    minute, month = (int(response.headers[h]) for h in spec.RATE_LIMIT_RESET_HEADERS)
    assert now < minute <= now + 61
    assert now < month <= now + 32 * 86_400
    assert any(h.lower().startswith("x-ratelimit-limit") for h in response.headers)
    assert any(h.lower().startswith("x-ratelimit-remaining") for h in response.headers)
