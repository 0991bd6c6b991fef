"""Recount check over HTTP: every entity profile's ``signal_count`` and every
``related_entities[].co_occurrence_count`` against a recount over the served signal cards.

Usage: .venv/bin/python -m bench.entities.quality.profile_recount /path/to/data-dir

Pages through ``/v1/signals`` and ``/v1/entities?min_signals=1`` of the data dir's current
snapshot (in-process, FastAPI's test client), fetches every profile with at least one signal,
and prints the counts compared and any mismatch; exits 1 on a mismatch.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr

from analytics.profiles import recount
from serving.app import create_app
from warehouse.settings import Settings

KEY = "recount"


def page(client: TestClient, path: str, key: str, **params: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, "limit": 50, **({"cursor": cursor} if cursor else {})}
        response = client.get(path, params=query)
        response.raise_for_status()
        body = response.json()
        found += body[key]
        if not body["has_more"]:
            return found
        cursor = body["next_cursor"]


def main(data_dir: Path) -> int:
    started = time.perf_counter()
    settings = Settings(data_dir=data_dir, dev_api_key=SecretStr(KEY), snapshot_poll_seconds=3600)
    with TestClient(create_app(settings), headers={"X-API-Key": KEY}) as client:
        snapshot = client.get("/v1/health").json()["snapshot"]
        cards = page(client, "/v1/signals", "signals")
        counts, pairs = recount(cards)
        listed = page(client, "/v1/entities", "entities", min_signals=1)
        problems: list[str] = []
        if {e["entity_id"]: e["signal_count"] for e in listed} != counts:
            problems.append("the entity list's signal counts differ from the cards' recount")
        related_checked = 0
        for entity in listed:
            profile = client.get(f"/v1/entities/{entity['entity_id']}").json()
            if profile["signal_count"] != counts.get(entity["entity_id"], 0):
                problems.append(f"{entity['entity_id']}: signal_count")
            for other in profile["related_entities"]:
                a, b = sorted((entity["entity_id"], other["entity_id"]))
                related_checked += 1
                if other["co_occurrence_count"] != pairs.get((a, b)):
                    problems.append(f"{entity['entity_id']} ~ {other['entity_id']}")
    print(
        f"snapshot {snapshot['id']} (as_of {snapshot['as_of']}): {len(cards):,} cards, "
        f"{len(listed):,} entities with signals, {related_checked:,} related counts checked, "
        f"{len(problems)} mismatches, {time.perf_counter() - started:.1f} s"
    )
    for problem in problems[:20]:
        print("  mismatch:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
