"""§4.11 Pagination of `/v1/signals` and `/v1/entities`: no cursor first, `has_more` and
`next_cursor` beside the list under its resource key, `next_cursor` passed back until `has_more`
is false; keyset paging, so no skipped or duplicated results, also when a snapshot is published
between two pages (and §4.3: the change feed then carries the new and reprocessed signals)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import orjson
import polars as pl
import pytest
from fastapi.testclient import TestClient

from pipelines.publishing import SearchInput, publish_served
from readmodel.store import SnapshotStore
from retrieval.index import VECTORS_FILE
from serving.app import create_app
from tests.contract.conftest import API_KEY
from tests.contract.helpers import Json, Walk, entity_ids, iso, parse_time, signal_ids, walk
from tests.serving.conftest import make_settings
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

ENTITY_SORTS = ("signal_count", "first_seen", "trend")


@pytest.mark.parametrize("limit", [1, 13])
def test_s4_11_signal_pages_join_into_the_one_list(
    api: TestClient, cards: list[Json], limit: int
) -> None:
    """§4.11 steps 1–3 on `/v1/signals`: small pages chained by their cursors give the same
    list as large ones, each signal once."""
    walker = Walk(api, "/v1/signals", "signals", {}, limit)
    if limit == 1:  # the first pages are enough to see the chaining; the whole list is long
        for _ in range(40):
            walker.step()
        assert signal_ids(walker.items) == signal_ids(cards[:40])
    else:
        assert signal_ids(walker.finish()) == signal_ids(cards)


@pytest.mark.parametrize("sort", ENTITY_SORTS)
@pytest.mark.parametrize("min_signals", [1, 2])
def test_s4_11_entity_pages_join_into_the_one_list(
    api: TestClient, sort: str, min_signals: int
) -> None:
    """§4.11 steps 1–3 on `/v1/entities`, for each `sort`: pages of 7 and of 50 give the same
    list, each entity once."""
    small = entity_ids(
        walk(api, "/v1/entities", "entities", limit=7, sort=sort, min_signals=min_signals)
    )
    large = entity_ids(
        walk(api, "/v1/entities", "entities", limit=50, sort=sort, min_signals=min_signals)
    )
    assert small == large and len(small) == len(set(small)) > 50


def test_s4_11_filtered_pages_join_into_the_one_list(api: TestClient) -> None:
    """§4.11 paging with filters set: the cursor continues the filtered list."""
    params: dict[str, Any] = {"theme": "Applications", "content_type": "analysis"}
    small = signal_ids(walk(api, "/v1/signals", "signals", limit=9, **params))
    assert small and small == signal_ids(walk(api, "/v1/signals", "signals", limit=50, **params))


# -- a publish between pages -----------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """What the second snapshot changes, in ids."""

    removed_signals: frozenset[str]
    reprocessed: str
    newest: str
    backdated: str
    removed_entities: frozenset[str]


def _revised(row: dict[str, Any], signal_id: str, published: datetime, title: str) -> Json:
    """``row`` of the snapshot's signal table as another signal (or the same, changed)."""
    card, detail = orjson.loads(row["card_json"]), orjson.loads(row["detail_json"])
    for obj in (card, detail):
        obj.update(signal_id=signal_id, published_at=iso(published), title=title)
    return {
        **row,
        "signal_id": signal_id,
        "published_at": published,
        "title": title,
        "card_json": orjson.dumps(card),
        "detail_json": orjson.dumps(detail),
    }


def publish_edited(data: DataDir, edit: Edit, template: str) -> None:
    """Publish a snapshot like the current one with ``edit`` applied, through the publishing
    step the pipeline uses (so the change feed numbers what is new or changed)."""
    opened = open_current(data)
    assert opened is not None
    tables = {name: opened.read_table(name) for name in opened.manifest.tables}
    signals = tables.pop("signals")
    rows = {row["signal_id"]: row for row in signals.iter_rows(named=True)}
    stamps = [row["published_at"] for row in rows.values()]
    kept = [row for signal_id, row in rows.items() if signal_id not in edit.removed_signals]
    changed = rows[edit.reprocessed]
    kept = [
        _revised(row, edit.reprocessed, row["published_at"], row["title"] + " (revised)")
        if row is changed
        else row
        for row in kept
    ]
    added = [
        _revised(rows[template], edit.newest, max(stamps) + timedelta(seconds=1), "Newest"),
        _revised(rows[template], edit.backdated, min(stamps) - timedelta(days=1), "Backdated"),
    ]
    edited = pl.from_dicts(kept + added, schema=signals.schema)
    tables["entity_profiles"] = tables["entity_profiles"].filter(
        ~pl.col("entity_id").is_in(sorted(edit.removed_entities))
    )
    search = SearchInput(tables.pop("search_units"), np.load(opened.path / VECTORS_FILE))
    publish_served(
        data,
        edited,
        tables.pop("units"),
        as_of=opened.manifest.as_of,
        built_at=datetime.now(UTC),
        extra_tables=tables,
        search=search,
    )


@pytest.fixture(scope="module")
def swap_client(
    demo_data_dir: DataDir, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """An API over a copy of the demo data dir, which the test may publish into."""
    root = tmp_path_factory.mktemp("contract-swap") / "data"
    shutil.copytree(demo_data_dir.root, root, ignore=shutil.ignore_patterns("dagster"))
    with TestClient(create_app(make_settings(root)), headers={"X-API-Key": API_KEY}) as client:
        yield client


def _walks(client: TestClient) -> dict[str, Walk]:
    walks = {
        "signals published": Walk(client, "/v1/signals", "signals", {}, 40),
        "signals changed": Walk(
            client, "/v1/signals", "signals", {"sort": "changed"}, 40, feed=True
        ),
        "entities default": Walk(client, "/v1/entities", "entities", {}, 20),
    }
    for sort in ENTITY_SORTS:
        walks[f"entities {sort}"] = Walk(
            client, "/v1/entities", "entities", {"sort": sort, "min_signals": 1}, 20
        )
    return walks


def _ids(walker: Walk) -> list[str]:
    return signal_ids(walker.items) if walker.key == "signals" else entity_ids(walker.items)


def _everything(client: TestClient) -> dict[str, list[str]]:
    """Each list in full, as a reader starting now would see it."""
    found: dict[str, list[str]] = {}
    for name, walker in _walks(client).items():
        walker.finish()
        found[name] = _ids(walker)
    return found


def test_s4_11_a_publish_between_pages_neither_skips_nor_repeats(swap_client: TestClient) -> None:
    """§4.11 (4) keyset paging: no skipped or duplicated results when data changes between
    pages, on `/v1/signals` (`sort=published` and `sort=changed`) and on `/v1/entities` (each
    sort); §4.3 the change feed then carries the newly published and reprocessed signals
    after what it had delivered, and a reprocessed signal reappears once."""
    store = swap_client.app.state.store  # type: ignore[attr-defined]
    assert isinstance(store, SnapshotStore)
    before = _everything(swap_client)
    walks = _walks(swap_client)
    for walker in walks.values():
        walker.step()
        walker.step()
        assert not walker.done
    seen_before = {name: _ids(walker) for name, walker in walks.items()}

    # one signal neither signal walk has reached, one the newest-first walk has passed; a
    # signal the feed delivered gets reprocessed; one signal newer than everything, one older
    order = before["signals published"]
    middle = order[len(order) // 2]
    assert middle not in {*seen_before["signals published"], *seen_before["signals changed"]}
    entities_seen = {e for n, ids in seen_before.items() if n.startswith("entities") for e in ids}
    unseen = [e for e in before["entities signal_count"] if e not in entities_seen]
    edit = Edit(
        removed_signals=frozenset({middle, order[0]}),
        reprocessed=seen_before["signals changed"][0],
        newest="sig_contract_newest",
        backdated="sig_contract_backdated",
        removed_entities=frozenset({unseen[len(unseen) // 2], seen_before["entities trend"][0]}),
    )
    old_id = store.require().snapshot_id
    publish_edited(DataDir(store.data_dir.root), edit, template=order[1])
    assert store.refresh() is not None
    assert swap_client.get("/v1/health").json()["snapshot"]["id"] != old_id

    after = _everything(swap_client)
    assert {edit.newest, edit.backdated} <= set(after["signals published"])
    assert not edit.removed_entities & set(after["entities trend"])
    for name, walker in walks.items():
        walker.finish()
        ids = _ids(walker)
        removed = edit.removed_signals if walker.key == "signals" else edit.removed_entities
        counts = Counter(ids)
        in_both = set(before[name]) & set(after[name])
        if name == "signals changed":
            # the reprocessed signal comes again, after everything it had delivered
            assert counts.pop(edit.reprocessed) == 2
            assert set(ids[-3:]) == {edit.reprocessed, edit.newest, edit.backdated}, ids[-3:]
        assert max(counts.values()) == 1, (name, [i for i, n in counts.items() if n > 1][:5])
        assert in_both <= set(ids), (name, "skipped", sorted(in_both - set(ids))[:5])
        assert not removed & set(ids[len(seen_before[name]) :]), (name, "served a removed row")
        assert set(ids) <= set(before[name]) | set(after[name]), name
    published = walks["signals published"].items
    stamps = [parse_time(card["published_at"]) for card in published]
    assert stamps == sorted(stamps, reverse=True), "newest published first across the swap"
    assert edit.backdated in signal_ids(published)
