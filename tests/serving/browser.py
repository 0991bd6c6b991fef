"""What the browser tests share: the system Chromium (``scripts/ensure-chromium``; Playwright's
own browser download is not reachable) and a page that records every sign of trouble. The
``browser`` fixture is in ``tests/serving/conftest.py``."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed and could not be (make test runs "
    "scripts/ensure-chromium, which needs root)",
)


def watched_page(browser: object, local: tuple[str, ...], problems: list[str]) -> Any:
    """A new page that appends to ``problems`` each console error, page error, failed request
    and request to a URL starting with none of ``local``."""
    page = browser.new_page()  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on(
        "request",
        lambda r: r.url.startswith(local) or problems.append(f"external request: {r.url}"),
    )
    return page
