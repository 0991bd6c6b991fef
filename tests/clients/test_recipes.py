"""The API recipes of docs/api.md (section "11. Recipes"), run as a reader would against a real
server: the curl ones in bash, the Python one with the generated client. Paging returns every signal
once in order, the change feed returns everything and then nothing new, and a 429 is waited
out for its ``Retry-After`` and retried."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.conftest import Server

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
needs_curl_and_jq = pytest.mark.skipif(
    shutil.which("curl") is None or shutil.which("jq") is None,
    reason="the curl recipes need curl and jq on PATH",
)
# seconds between the quota running out and its minute's end: time for the requests that use
# the quota up, on a busy machine, and the wait the retry must sit out
BEFORE_RESET = 5.0


def _recipes() -> tuple[list[str], str]:
    text = API_DOC.read_text(encoding="utf-8")
    start = text.index("\n## 11. Recipes")
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end
    blocks = re.findall(r"```(\w+)\n(.*?)```", text[start:end], re.DOTALL)
    bash = [code for language, code in blocks if language == "bash"]
    python = [code for language, code in blocks if language == "python"]
    assert len(bash) == 3 and len(python) == 1, "the tests below run each recipe by its place"
    return bash, python[0]


def _signal_ids(server: Server, params: dict[str, Any], limit: int) -> list[str]:
    """The ids `GET /v1/signals` lists for ``params``, in pages of ``limit``, read raw."""
    ids: list[str] = []
    cursor = ""
    with httpx.Client(base_url=server.url, headers={"X-API-Key": server.dev_key}) as raw:
        while True:
            page = raw.get("/v1/signals", params={**params, "limit": limit, "cursor": cursor})
            ids += [card["signal_id"] for card in page.json()["signals"]]
            if not page.json()["has_more"]:
                return ids
            cursor = page.json()["next_cursor"]


def _use_up_the_minute(server: Server, key: str) -> None:
    """Move the limiter's clock to ``BEFORE_RESET`` seconds before a minute ends, and spend that
    minute's quota of ``key``'s tier."""
    server.move_clock_to(BEFORE_RESET)
    with httpx.Client(base_url=server.url, headers={"X-API-Key": key}) as raw:
        statuses = [raw.get("/v1/themes").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def _bash(code: str, server: Server, key: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AIMI_URL": server.url, "AIMI_KEY": key}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@needs_curl_and_jq
def test_curl_recipes_page_follow_the_feed_and_wait_out_a_429(
    server: Server, tmp_path: Path
) -> None:
    paging, feed, retry = _recipes()[0]
    paged = _bash(paging, server, server.dev_key, tmp_path)
    assert paged.returncode == 0, paged.stderr
    expected = _signal_ids(server, {"window": "2w"}, 7)
    assert len(expected) > 50, "the recipe should read more than one page"
    assert [line.split("\t")[1] for line in paged.stdout.splitlines()] == expected

    first = _bash(feed, server, server.dev_key, tmp_path)
    assert first.returncode == 0, first.stderr
    every = _signal_ids(server, {}, 50)
    assert sorted(line.split("\t")[0] for line in first.stdout.splitlines()) == sorted(every)
    cursor = (tmp_path / "feed.cursor").read_text()
    assert cursor.strip()
    again = _bash(feed, server, server.dev_key, tmp_path)
    assert again.returncode == 0 and again.stdout == "", again.stderr
    assert (tmp_path / "feed.cursor").read_text() == cursor  # nothing new: the cursor kept

    _use_up_the_minute(server, server.tiny_key)
    started = time.monotonic()
    retried = _bash(retry, server, server.tiny_key, tmp_path)
    assert retried.returncode == 0, retried.stderr
    assert time.monotonic() - started >= 1  # it waited for the next minute
    assert len(httpx.Response(200, content=retried.stdout).json()["themes"]) == 6


def test_python_recipe_pages_follows_the_feed_reads_an_entity_and_retries(
    server: Server, client_project: Path
) -> None:
    del client_project  # on sys.path
    from aimi_client import AuthenticatedClient
    from aimi_client.api.entities import get_entity, list_entities
    from aimi_client.api.themes import list_themes
    from aimi_client.models import EntityList, EntityProfileDetail, ThemeList

    recipe: dict[str, Any] = {"__name__": "api_doc_recipe"}  # not "__main__": no polling loop
    exec(compile(_recipes()[1], str(API_DOC), "exec"), recipe)

    def client(key: str) -> AuthenticatedClient:
        return AuthenticatedClient(
            base_url=server.url, token=key, auth_header_name="X-API-Key", prefix=""
        )

    with client(server.dev_key) as dev:
        paged = [card.signal_id for card in recipe["all_signals"](dev, window="2w")]
        assert len(paged) > 50 and paged == _signal_ids(server, {"window": "2w"}, 7)

        changed, cursor = recipe["changes_since"](dev, None)
        assert sorted(card.signal_id for card in changed) == sorted(_signal_ids(server, {}, 50))
        assert cursor
        assert recipe["changes_since"](dev, cursor) == ([], cursor)

        listed = list_entities.sync(client=dev, limit=1)
        assert isinstance(listed, EntityList)
        entity = get_entity.sync(listed.entities[0].entity_id, client=dev)
        assert isinstance(entity, EntityProfileDetail)
        assert entity.related_entities and entity.name == listed.entities[0].name

    statuses: list[int] = []
    with client(server.tiny_key) as tiny:

        def themes() -> Any:
            response = list_themes.sync_detailed(client=tiny)
            statuses.append(response.status_code)
            return response

        _use_up_the_minute(server, server.tiny_key)
        started = time.monotonic()
        response = recipe["with_retries"](themes)
        assert time.monotonic() - started >= 1
    assert statuses == [429, 200]
    assert isinstance(response.parsed, ThemeList) and len(response.parsed.themes) == 12
