"""``/docs`` (Swagger UI) and ``/redoc`` in a real browser: the system Chromium
(``scripts/ensure-chromium``) driven by Playwright, over the API served by uvicorn on loopback.
Both pages render with every asset from the service (no external or failed request, no console
error), Swagger UI shows every operation, and "Try it out" with the API key returns 200."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from serving.app import create_app
from tests.serving.browser import needs_chromium, watched_page
from tests.serving.conftest import DEV_KEY, make_settings

pytestmark = [needs_chromium, pytest.mark.slow]  # a browser process and a real server
# every operation of the committed OpenAPI document (tests/clients checks it is the app's)
OPERATIONS = sum(
    len(path)
    for path in json.loads((Path(__file__).parents[2] / "clients" / "openapi.json").read_text())[
        "paths"
    ].values()
)


@pytest.fixture(scope="module")
def base(shared_root: Path) -> Iterator[str]:
    """The API over the shared test snapshot, served by uvicorn on a free loopback port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(make_settings(shared_root)), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


def _watched_page(browser: object, base: str, problems: list[str]) -> object:
    # ReDoc's worker runs from a blob of this page
    return watched_page(browser, (base, f"blob:{base}", "data:"), problems)


def test_swagger_ui_renders_every_operation_and_try_it_out_works(
    browser: object, base: str
) -> None:
    problems: list[str] = []
    page = _watched_page(browser, base, problems)
    page.goto(f"{base}/docs", wait_until="networkidle")  # type: ignore[attr-defined]
    blocks = page.locator(".opblock")  # type: ignore[attr-defined]
    blocks.first.wait_for()
    assert blocks.count() == OPERATIONS
    assert page.locator("#operations-signals-listSignals").count() == 1  # type: ignore[attr-defined]

    page.locator("button.authorize").first.click()  # type: ignore[attr-defined]
    dialog = page.locator(".auth-container").filter(has_text="X-API-Key")  # type: ignore[attr-defined]
    dialog.locator("input").fill(DEV_KEY)
    dialog.locator("button.authorize").click()
    page.locator("button.btn-done").first.click()  # type: ignore[attr-defined]

    operation = page.locator("#operations-themes-listThemes")  # type: ignore[attr-defined]
    operation.locator(".opblock-summary").click()
    operation.locator("button.try-out__btn").click()
    operation.locator("button.execute").click()
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip().startswith("200")
    page.close()  # type: ignore[attr-defined]
    assert problems == [], problems


def test_redoc_renders_from_local_assets(browser: object, base: str) -> None:
    problems: list[str] = []
    page = _watched_page(browser, base, problems)
    page.goto(f"{base}/redoc", wait_until="networkidle")  # type: ignore[attr-defined]
    headings = page.locator("h2")  # type: ignore[attr-defined]
    headings.filter(has_text="List signals, newest first").wait_for()
    for summary in ("Search verified units", "One entity profile with related entities"):
        assert headings.filter(has_text=summary).count() == 1, summary
    page.close()  # type: ignore[attr-defined]
    assert problems == [], problems
