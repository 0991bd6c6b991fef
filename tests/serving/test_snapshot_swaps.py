"""The served snapshot follows the ``CURRENT`` pointer: first publish, a swap between pages, a
corrupted publish that is refused, and the polling thread itself."""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pipelines.publishing import SearchInput, publish_served, stage_served
from readmodel.models import ErrorBody, Health, SignalList
from readmodel.store import RETRY_AFTER_SECONDS, SnapshotStore, release_freed_memory
from retrieval.index import PASSAGES_DIR, SOURCES_DIR, SPANS_FILE
from serving.app import create_app
from serving.site import mount_site
from tests.serving.conftest import AS_OF, DEV_KEY, Corpus, make_settings, publish, search_input
from warehouse.paths import DataDir
from warehouse.snapshot import add_files, switch_current

SPECIAL = ("signals", "units", "search_units")


def store_of(client: TestClient) -> SnapshotStore:
    store = client.app.state.store  # type: ignore[attr-defined]
    assert isinstance(store, SnapshotStore)
    return store


def test_no_snapshot_is_503_until_the_first_publish(tmp_path: Path, corpus: Corpus) -> None:
    app = create_app(make_settings(tmp_path))
    with TestClient(app, headers={"X-API-Key": DEV_KEY}) as client:
        health = client.get("/v1/health")
        assert health.status_code == 200
        assert Health.model_validate_json(health.content).status == "starting"
        assert health.json()["snapshot"] is None
        for path in ("/v1/signals", "/v1/signals/anything"):
            response = client.get(path)
            assert response.status_code == 503
            error = ErrorBody.model_validate_json(response.content).error
            assert error.code == "unavailable"
            assert error.retry_after == RETRY_AFTER_SECONDS
            assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
            assert error.request_id == response.headers["X-Request-Id"]

        snapshot_id = publish(tmp_path, corpus.tables)
        store_of(client).refresh()
        response = client.get("/v1/signals")
        assert response.status_code == 200
        assert len(SignalList.model_validate_json(response.content).signals) == 20
        assert client.get("/v1/health").json()["snapshot"]["id"] == snapshot_id


def test_a_swap_between_pages_neither_skips_nor_repeats(
    fresh_client: TestClient, fresh_root: Path, corpus: Corpus
) -> None:
    original = corpus.served["signal_id"].to_list()
    first = fresh_client.get("/v1/signals?limit=3").json()
    seen = [c["signal_id"] for c in first["signals"]]
    old_id = store_of(fresh_client).current.snapshot_id  # type: ignore[union-attr]

    new_id = publish(fresh_root, corpus.extended)
    assert store_of(fresh_client).refresh() is not None
    assert fresh_client.get("/v1/health").json()["snapshot"]["id"] == new_id != old_id

    cursor = first["next_cursor"]
    while cursor:
        body = fresh_client.get("/v1/signals", params={"limit": 3, "cursor": cursor}).json()
        seen.extend(c["signal_id"] for c in body["signals"])
        cursor = body["next_cursor"]
    assert sorted(s for s in seen if s in original) == sorted(original)
    assert len(seen) == len(set(seen))
    extended = corpus.extended["signals"]
    titles = dict(zip(extended["signal_id"], extended["title"], strict=True))
    # The newer signal sorts before the first page's cursor, the backdated one after it.
    assert "Report newest" not in {titles[s] for s in seen}
    assert "Essay backdated" in {titles[s] for s in seen}


def _refused_once(
    store: SnapshotStore, old: object, caplog: pytest.LogCaptureFixture, refreshes: int
) -> str:
    """Refresh ``store`` ``refreshes`` times: it keeps ``old`` each time and logs one refusal,
    whose line is returned."""
    with caplog.at_level(logging.INFO, logger="aimi.serving"):
        for _ in range(refreshes):
            assert store.refresh() is old
    refusals = [
        r for r in caplog.records if r.name == "aimi.serving" and r.levelno >= logging.ERROR
    ]
    assert len(refusals) == 1
    return refusals[0].getMessage()


def _corrupt(table: Path) -> None:
    data = bytearray(table.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = bytes(b ^ 0xFF for b in data[middle : middle + 8])
    table.write_bytes(bytes(data))


def test_a_corrupted_snapshot_is_refused_once_and_the_old_one_keeps_serving(
    fresh_client: TestClient,
    fresh_root: Path,
    corpus: Corpus,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = store_of(fresh_client)
    old = store.current
    assert old is not None
    before = fresh_client.get("/v1/signals?limit=50").content

    bad_id = publish(fresh_root, corpus.extended)
    _corrupt(DataDir(fresh_root).snapshots / bad_id / "signals.parquet")
    line = _refused_once(store, old, caplog, refreshes=3)
    assert bad_id in line and "checksum" in line and old.snapshot_id in line
    assert fresh_client.get("/v1/health").json()["snapshot"]["id"] == old.snapshot_id
    assert fresh_client.get("/v1/signals?limit=50").content == before

    # The next good publish is taken up as usual.
    good_id = publish(fresh_root, corpus.extended)
    assert store.refresh() is not old
    assert fresh_client.get("/v1/health").json()["snapshot"]["id"] == good_id
    assert len(fresh_client.get("/v1/signals?limit=50").json()["signals"]) == 22


@dataclass(frozen=True)
class SearchBeforeWholeSources(SearchInput):
    """The search files as a snapshot published before issue 30 has them: no index of whole
    sources (``sources/``, ``passages/``, ``spans.npy``) and no ``sources`` in the manifest."""

    def write(self, folder: Path) -> dict[str, Any]:
        written = super().write(folder)
        for name in (SOURCES_DIR, PASSAGES_DIR):
            shutil.rmtree(folder / name)
        (folder / SPANS_FILE).unlink()
        del written["search"]["sources"]
        return written

    def in_unit_id_order(self) -> SearchInput:
        ordered = super().in_unit_id_order()
        return SearchBeforeWholeSources(
            ordered.units, ordered.vectors, ordered.sources, ordered.unit_spans
        )


def test_a_snapshot_without_the_whole_source_index_is_refused_with_how_to_rebuild(
    fresh_client: TestClient,
    fresh_root: Path,
    corpus: Corpus,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An older build's snapshot (its search files lack the index of whole sources) is not
    served: the API logs once why and what to run, and keeps the snapshot it serves, search
    included."""
    store = store_of(fresh_client)
    old = store.current
    assert old is not None
    query = "/v1/search?q=" + corpus.tables["signals"]["title"][0]
    before = fresh_client.get(query)
    assert before.status_code == 200 and before.json()["results"]

    tables = corpus.extended
    plain = search_input(tables["search_units"])
    stale = publish_served(
        DataDir(fresh_root),
        tables["signals"],
        tables["units"],
        extra_tables={n: f for n, f in tables.items() if n not in SPECIAL},
        as_of=AS_OF,
        built_at=datetime.now(UTC),
        search=SearchBeforeWholeSources(plain.units, plain.vectors),
    ).snapshot.snapshot_id
    assert not (DataDir(fresh_root).snapshots / stale / SOURCES_DIR).exists()
    line = _refused_once(store, old, caplog, refreshes=2)
    assert stale in line and old.snapshot_id in line
    assert "no index of whole sources" in line and "`aimi build`" in line
    assert fresh_client.get("/v1/health").json()["snapshot"]["id"] == old.snapshot_id
    assert fresh_client.get(query).json()["results"] == before.json()["results"]

    # a rebuild (a publish with the index) is taken up as usual
    good = publish(fresh_root, tables)
    assert store.refresh() is not old
    assert fresh_client.get("/v1/health").json()["snapshot"]["id"] == good


def test_the_api_verifies_the_site_only_when_it_serves_it(tmp_path: Path, corpus: Corpus) -> None:
    """A damaged site file does not keep the API from swapping (it never reads one: half a
    million of them at a million units); ``aimi serve --site`` serves them, so it refuses."""
    data = DataDir(tmp_path)
    tables = corpus.extended
    staged = stage_served(  # what the conftest's publish does, without the switch
        data,
        tables["signals"],
        tables["units"],
        as_of=AS_OF,
        built_at=datetime.now(UTC),
        extra_tables={
            n: f for n, f in tables.items() if n not in ("signals", "units", "search_units")
        },
        search=search_input(tables["search_units"]),
    ).snapshot

    def site(folder: Path) -> dict[str, int]:  # as the static_site asset adds its files
        (folder / "site").mkdir()
        (folder / "site" / "index.html").write_text("<p>ok</p>")
        return {}

    sealed = add_files(data, staged, site)
    (sealed.path / "site" / "index.html").write_text("<p>no</p>")
    switch_current(data, sealed)
    api = SnapshotStore(data, poll_seconds=3600)
    assert api.refresh() is not None and api.require().snapshot_id == sealed.snapshot_id
    with_site = mount_site(create_app(make_settings(tmp_path))).state.store  # aimi serve --site
    assert isinstance(with_site, SnapshotStore) and with_site.verify_site
    assert with_site.refresh() is None  # refused: nothing to serve


def test_the_poll_after_a_swap_gives_the_freed_memory_back(
    fresh_root: Path, corpus: Corpus
) -> None:
    store = SnapshotStore(DataDir(fresh_root), poll_seconds=3600)
    store.refresh()
    assert not store._release_pending  # a first load frees nothing
    publish(fresh_root, corpus.extended)
    store.refresh()
    assert store._release_pending
    store.poll()
    assert not store._release_pending
    assert release_freed_memory()  # glibc on the machines we run on


def test_a_request_keeps_the_snapshot_it_started_with(
    fresh_client: TestClient, fresh_root: Path, corpus: Corpus
) -> None:
    store = store_of(fresh_client)
    held = store.require()
    publish(fresh_root, corpus.extended)
    store.refresh()
    assert store.require() is not held
    # The reference a request holds is untouched by the swap.
    assert len(held) == 20 and len(store.require()) == 22


def test_the_poller_picks_up_a_publish_without_being_asked(tmp_path: Path, corpus: Corpus) -> None:
    app = create_app(make_settings(tmp_path, poll_seconds=0.02))
    with TestClient(app) as client:
        assert client.get("/v1/health").json()["status"] == "starting"
        snapshot_id = publish(tmp_path, corpus.tables)
        deadline = time.monotonic() + 10
        while client.get("/v1/health").json()["status"] != "ok":
            assert time.monotonic() < deadline, "the poller never swapped"
            time.sleep(0.02)
        assert client.get("/v1/health").json()["snapshot"]["id"] == snapshot_id
    poller = store_of(client)._thread
    assert poller is None
