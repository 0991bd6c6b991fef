"""Write the example responses the OpenAPI document shows (``serving/examples/<operationId>.json``)
from a demo build: ``python scripts/openapi_examples.py DATA_DIR`` after ``aimi build --demo``
(or ``python -m tests.background demo DATA_DIR``).

Each example is a real answer of the routes over the demo snapshot, cut short so the document
stays readable: one item per list (``limit=1`` where the endpoint pages, so ``has_more`` and
``next_cursor`` are real), the signal with the fewest units, two related entities and themes,
a story's first two entities and signals.
The refresh example is the report a refresh right after the build gives: the refreshed views,
nothing new to embed and the snapshot served.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr

from pipelines.build import REFRESHED_VIEWS
from serving.app import create_app
from serving.openapi import EXAMPLES
from warehouse.settings import Settings

KEY = "openapi-examples"
RELATED_SHOWN = 2


def _get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    response.raise_for_status()
    return response.json()


def examples(client: TestClient) -> dict[str, Any]:
    """Every operation's example body, by operationId."""
    found: dict[str, Any] = {}
    found["getHealth"] = _get(client, "/v1/health")
    found["listSignals"] = _get(client, "/v1/signals", limit=1)
    cards = _get(client, "/v1/signals", limit=50)["signals"]
    smallest = min(
        (c for c in cards if c["verified_unit_count"] >= 3),
        key=lambda c: (c["verified_unit_count"], c["signal_id"]),
    )
    found["getSignal"] = _get(client, f"/v1/signals/{smallest['signal_id']}")
    found["searchUnits"] = _get(client, "/v1/search", q="GPU supply constraints", limit=1)
    found["listEntities"] = _get(client, "/v1/entities", limit=1)
    top = found["listEntities"]["entities"][0]["entity_id"]
    entity = _get(client, f"/v1/entities/{top}")
    entity["related_entities"] = entity["related_entities"][:RELATED_SHOWN]
    found["getEntity"] = entity
    trending = _get(client, "/v1/entities/trending", mode="rising", limit=1)
    if not trending["data"]:
        trending = _get(client, "/v1/entities/trending", mode="hot", limit=1)
    found["getTrendingEntities"] = trending
    themes = _get(client, "/v1/themes")
    found["listThemes"] = {"themes": themes["themes"][:1]}
    theme = _get(client, "/v1/themes/market_force/Regulatory & Legal")
    theme["related_themes"] = theme["related_themes"][:RELATED_SHOWN]
    found["getTheme"] = theme
    stories = _get(client, "/v1/stories", limit=1, min_sources=2)
    story = _get(client, f"/v1/stories/{stories['stories'][0]['story_id']}")
    for item in (stories["stories"][0], story):
        item["entities"] = item["entities"][:RELATED_SHOWN]
    story["signals"] = story["signals"][:RELATED_SHOWN]
    found["listStories"] = stories
    found["getStory"] = story
    found["refreshSnapshot"] = {
        "status": "ok",
        "materialized_views": {
            "views_refreshed": len(REFRESHED_VIEWS),
            "views": list(REFRESHED_VIEWS),
        },
        "embeddings": {"units_embedded": 0},
        "snapshot": found["getHealth"]["snapshot"],
    }
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python scripts/openapi_examples.py DATA_DIR\n")
        return 2
    settings = Settings(_env_file=None, data_dir=Path(argv[0]), dev_api_key=SecretStr(KEY))
    with TestClient(create_app(settings), headers={"X-API-Key": KEY}) as client:
        found = examples(client)
    EXAMPLES.mkdir(exist_ok=True)
    for operation_id, body in found.items():
        text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
        (EXAMPLES / f"{operation_id}.json").write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {len(found)} examples to {EXAMPLES}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
