"""The API's answers on the demo snapshot, written to a folder, so a refactor can be shown to
change no answer byte for byte (`diff -r before/ after/`).

    .venv/bin/python -m bench.api.answers OUT_DIR [--data-dir DIR]

Builds the demo snapshot with its pinned clock into DIR (a temporary folder by default) unless
DIR already has one, then requests every theme, every entity profile, every signal detail, the
entity and signal lists with each filter, every trending mode, the change feed, a set of
searches, the story lists (and the first stories of each page), and writes each body to
``OUT_DIR/<n>.json`` with ``OUT_DIR/index.tsv`` mapping files to requests; then the OpenAPI
document (``openapi.json``) and the MCP tools' names, texts and schemas (``mcp-tools.json``).
What differs between two builds by design (the snapshot id and ``built_at`` in the health
answer) is left out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from urllib.parse import quote, urlencode

import orjson
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

KEY = "bench-answers-key"
SEARCHES = (
    "inference chip supply",
    "export controls on GPUs",
    "funding round for a foundation model lab",
    "data center power",
    "open weights model release",
)


def _requests(client: TestClient) -> list[str]:
    urls = ["/v1/themes", "/v1/themes?axis=value_chain", "/v1/themes?axis=market_force"]
    for theme in client.get("/v1/themes").json()["themes"]:
        urls.append(f"/v1/themes/{theme['axis']}/{quote(theme['label'], safe='')}")
    for mode in ("rising", "hot", "consistent", "new"):
        urls.append(f"/v1/entities/trending?mode={mode}&limit=50")
    entity_ids: list[str] = []
    for min_signals in (1, 2):
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": 50, "min_signals": min_signals}
            if cursor:
                params["cursor"] = cursor
            url = f"/v1/entities?{urlencode(params)}"
            urls.append(url)
            page = client.get(url).json()
            if min_signals == 1:
                entity_ids.extend(item["entity_id"] for item in page["entities"])
            cursor = page.get("next_cursor")
            if not cursor:
                break
    urls.extend(f"/v1/entities/{quote(eid, safe='')}" for eid in entity_ids)
    for sort in ("first_seen", "trend"):
        urls.append(f"/v1/entities?sort={sort}&limit=50")
    signal_ids: list[str] = []
    cursor = None
    while True:
        url = "/v1/signals?limit=50" + (f"&cursor={cursor}" if cursor else "")
        urls.append(url)
        page = client.get(url).json()
        signal_ids.extend(item["signal_id"] for item in page["signals"])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    urls.extend(f"/v1/signals/{sid}" for sid in signal_ids)
    urls.append("/v1/signals?sort=changed&limit=50")
    urls.append("/v1/signals?content_type=event&window=2w&limit=50")
    urls.append("/v1/signals?entity=Nvidia&limit=50")
    urls.append("/v1/signals?theme=Capital%20%26%20Investment&limit=50")
    urls.append("/v1/signals?keyword=export%20controls&limit=50")
    for q in SEARCHES:
        urls.append(f"/v1/search?{urlencode({'q': q, 'limit': 20})}")
        urls.append(f"/v1/search?{urlencode({'q': q, 'role': 'claim', 'recency_boost': 0.5})}")
    urls.extend(_story_requests(client))
    return urls


def _story_requests(client: TestClient) -> list[str]:
    urls = [
        "/v1/stories?min_sources=2&limit=50",
        "/v1/stories?entity=Nvidia&limit=50",
        "/v1/stories?theme=Capital%20%26%20Investment&window=4w&limit=50",
    ]
    cursor: str | None = None
    while True:
        url = "/v1/stories?limit=50" + (f"&cursor={cursor}" if cursor else "")
        urls.append(url)
        page = client.get(url).json()
        urls.extend(f"/v1/stories/{story['story_id']}" for story in page["stories"][:5])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return urls


def _mcp_tools(app: FastAPI) -> bytes:
    """The MCP server's tool list (names, descriptions, input and output schemas) as JSON."""
    from serving.mcp import create_mcp_server

    server = create_mcp_server(app.state.store.require, app.state.query_embedder)
    tools = asyncio.run(server.list_tools())
    return orjson.dumps(
        [tool.model_dump(mode="json") for tool in tools], option=orjson.OPT_INDENT_2
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args()

    from serving.app import create_app
    from warehouse.settings import Settings

    root = args.data_dir or Path(tempfile.mkdtemp(prefix="aimi-answers-")) / "data"
    if not (root / "snapshots" / "CURRENT").exists():
        from demo import DEMO_AS_OF, generate_demo_corpus
        from demo.files import write_demo_corpus
        from pipelines.build import build
        from warehouse.paths import DataDir

        data = DataDir(root.resolve())
        write_demo_corpus(generate_demo_corpus(), data.inbox / "demo")
        build(data, as_of=DEMO_AS_OF, persistent=False)
    settings = Settings(data_dir=root, dev_api_key=SecretStr(KEY))
    args.out.mkdir(parents=True, exist_ok=True)
    app = create_app(settings)
    with TestClient(app, headers={"X-API-Key": KEY}) as client:
        urls = _requests(client)
        index = []
        for n, url in enumerate(urls):
            response = client.get(url)
            (args.out / f"{n:05d}.json").write_bytes(response.content)
            index.append(f"{n:05d}\t{response.status_code}\t{url}")
        (args.out / "openapi.json").write_bytes(client.get("/openapi.json").content)
        (args.out / "mcp-tools.json").write_bytes(_mcp_tools(app))
        health = client.get("/v1/health").json()
        health.pop("snapshot", None)
        (args.out / "health.json").write_text(json.dumps(health, sort_keys=True))
    (args.out / "index.tsv").write_text("\n".join(index) + "\n")
    print(f"{len(urls)} answers in {args.out} (data dir {root})")


if __name__ == "__main__":
    main()
