"""Screenshots of each page kind of a built market-pulse site, for docs/site/ and the README.

    .venv/bin/python scripts/site_screenshots.py SITE_DIR [OUT_DIR]

SITE_DIR is a snapshot's ``site/`` folder or an ``aimi site export`` copy; it is served over
loopback HTTP and opened in the system Chromium (``scripts/ensure-chromium``) through
Playwright. OUT_DIR defaults to docs/site/.
"""

from __future__ import annotations

import functools
import shutil
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGES = {
    "overview": "index.html",
    "entity": "entities/{entity}.html",
    "theme": "themes/value_chain/Semiconductors~20~26~20Hardware.html",
    "signal": "signals/{signal}.html",
    "method": "method.html",
    "search": "search.html",
}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """No request log on the console."""


def first(folder: Path) -> str:
    return sorted(p.stem for p in folder.glob("*.html") if p.stem != "index")[0]


def main(site: Path, out: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("no chromium on PATH: run scripts/ensure-chromium")
    handler = functools.partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    entity = (site / "entities").glob("*.html")
    names = {
        "entity": next(p.stem for p in sorted(entity) if '">Cerebras</h1>' in p.read_text()),
        "signal": first(site / "signals"),
    }
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for kind, path in PAGES.items():
            page.goto(base + path.format(**names))
            if kind == "search":
                page.fill("input", "Cerebras")
                page.wait_for_selector(".pagefind-ui__result")
            page.screenshot(path=str(out / f"{kind}.png"))
            print(f"{out / kind}.png")  # noqa: T201
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else Path("docs/site"))
