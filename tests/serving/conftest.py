"""A small real snapshot built through the pipeline's own steps, and API clients over it."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from analytics.profiles import profile_tables
from analytics.records import validate_record
from analytics.render import render_search_units, render_served_signals, served_signals
from analytics.schema import ENTITIES, SIGNAL_ENTITIES, SIGNAL_THEMES
from analytics.signals import extract_units, signals_from_sources
from analytics.trends import Clock
from pipelines.publishing import SearchInput, publish_served
from serving.app import create_app
from serving.keys import KeyStore
from tests.serving.browser import CHROMIUM
from warehouse.embeddings import load_minilm
from warehouse.ingest import sources_frame
from warehouse.paths import DataDir
from warehouse.settings import Settings

DEV_KEY = "dev-key-for-tests"
AS_OF = datetime(2026, 5, 1, 12, tzinfo=UTC)
BUILT_AT = datetime(2026, 5, 1, 13, tzinfo=UTC)
_BASE = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)

_COMPANIES = ["Acme AI", "Borealis Labs", "Cobalt Compute", "Dune Robotics", "Ember Cloud"]
_PLACES = ["Ohio", "Texas", "Oregon", "Quebec", "Bavaria"]


def _news(i: int) -> str:
    company, place = _COMPANIES[i % 5], _PLACES[(i + 2) % 5]
    return (
        f"{company} announced a ${i + 2} billion funding round on Monday led by Example "
        f"Capital. The company said it will build {i + 3} new data centers in {place} by 2027. "
        f"Its revenue grew {10 + i} percent in 2025, according to regulatory filings."
    )


def _essay(i: int) -> str:
    company = _COMPANIES[i % 5]
    return (
        f"I think the market for inference chips is overrated and investors in {company} "
        "should be careful. Supply will catch up within two years as three new fabs open in "
        f"2027. The real question is whether demand keeps growing at {20 + i} percent a year. "
        "Margins in the hardware business usually fall when competition arrives."
    )


def _records() -> list[dict[str, Any]]:
    records = []
    for i in range(20):
        is_news = i % 2 == 1
        # Record 8 shares record 7's timestamp, so the signal_id tie-break is exercised; with
        # limit=3 the two land on either side of a page boundary.
        slot = 7 if i == 8 else i
        published = _BASE + timedelta(days=3 * slot, hours=slot % 3)
        records.append(
            {
                "kind": "news" if is_news else "essay",
                "title": f"{'Report' if is_news else 'Essay'} number {i}",
                "url": f"https://www.site{i % 4}.example.com/posts/{i}",
                "published_at": published.isoformat(),
                "text": _news(i) if is_news else _essay(i),
                "author": f"Author {i % 3}",
            }
        )
    return records


RECORDS = _records()
# Added by the tests that republish: one newer than everything, one older than the first page.
EXTRA_RECORDS = [
    {
        "kind": "news",
        "title": "Report newest",
        "url": "https://news.example.org/newest",
        "published_at": "2026-04-30T08:00:00Z",
        "text": _news(40),
        "author": "Author X",
    },
    {
        "kind": "essay",
        "title": "Essay backdated",
        "url": "https://essays.example.org/backdated",
        "published_at": "2026-03-03T08:00:00Z",
        "text": _essay(41),
        "author": "Author Y",
    },
]


def build_tables(records: list[dict[str, Any]]) -> dict[str, pl.DataFrame]:
    """The snapshot tables, through the same steps the pipeline runs."""
    validated = [(validate_record(r), f"inline:{n}") for n, r in enumerate(records, start=1)]
    sources = sources_frame(validated, now=AS_OF)
    signals = signals_from_sources(sources, as_of=AS_OF)
    units = extract_units(signals).units
    profiles = profile_tables(
        signals=served_signals(signals, units),
        signal_entities=SIGNAL_ENTITIES.to_frame(),
        signal_themes=SIGNAL_THEMES.to_frame(),
        entities=ENTITIES.to_frame(),
        clock=Clock(AS_OF),
    )
    rendered = render_served_signals(signals, units)
    return {
        "signals": rendered,
        "units": units,
        "search_units": render_search_units(rendered, signals, units),
        **profiles,
    }


def search_input(
    search_units: pl.DataFrame,
    signals: pl.DataFrame | None = None,
    units: pl.DataFrame | None = None,
) -> SearchInput:
    """The search rows with their MiniLM vectors (the model is loaded once per session), and
    with ``signals`` and ``units`` (SIGNALS, UNITS) each signal's text and each unit's span in
    it; without them the units' texts stand for their signal's."""
    return SearchInput(
        search_units,
        load_minilm()(search_units["text"].to_list()),
        None if signals is None else signals.select("signal_id", "text"),
        None if units is None else units.select("unit_id", "start_char", "end_char"),
    )


def publish(root: Path, tables: dict[str, pl.DataFrame]) -> str:
    special = ("signals", "units", "search_units")
    extra = {name: frame for name, frame in tables.items() if name not in special}
    published = publish_served(
        DataDir(root),
        tables["signals"],
        tables["units"],
        extra_tables=extra,
        as_of=AS_OF,
        built_at=datetime.now(UTC),
        search=search_input(tables["search_units"]),
    )
    return published.snapshot.snapshot_id


@dataclass(frozen=True)
class Corpus:
    tables: dict[str, pl.DataFrame]
    extended: dict[str, pl.DataFrame]

    @property
    def served(self) -> pl.DataFrame:
        return self.tables["signals"]


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    tables = build_tables(RECORDS)
    assert tables["signals"].height == len(RECORDS), "every inline record should be served"
    return Corpus(tables=tables, extended=build_tables(RECORDS + EXTRA_RECORDS))


def make_settings(root: Path, *, poll_seconds: float = 3600.0) -> Settings:
    # A long poll interval: tests call store.refresh() themselves instead of sleeping.
    return Settings(
        _env_file=None,
        data_dir=root,
        dev_api_key=SecretStr(DEV_KEY),
        snapshot_poll_seconds=poll_seconds,
    )


@pytest.fixture(scope="session")
def shared_root(tmp_path_factory: pytest.TempPathFactory, corpus: Corpus) -> Path:
    """A data dir with the base snapshot that no test changes."""
    root = tmp_path_factory.mktemp("shared-data")
    publish(root, corpus.tables)
    return root


@pytest.fixture(scope="session")
def client(shared_root: Path) -> Iterator[TestClient]:
    """A read-only client over the shared snapshot, authenticated with the dev key."""
    with TestClient(create_app(make_settings(shared_root)), headers={"X-API-Key": DEV_KEY}) as c:
        yield c


@pytest.fixture
def fresh_root(tmp_path: Path, corpus: Corpus) -> Path:
    """A data dir of this test's own, holding the base snapshot."""
    publish(tmp_path, corpus.tables)
    return tmp_path


@pytest.fixture
def fresh_client(fresh_root: Path) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(fresh_root)), headers={"X-API-Key": DEV_KEY}) as c:
        yield c


@pytest.fixture
def key_store(shared_root: Path) -> KeyStore:
    return KeyStore(DataDir(shared_root).keys_file)


def free_port() -> int:
    """A loopback port nothing listens on right now (for tests that start a real server)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def stop_process(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """The system Chromium driven by Playwright (``tests.serving.browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()
