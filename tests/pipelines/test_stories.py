"""The ``stories`` asset on real records: the AINews ``issue`` and ``section`` fields (the
editors' grouping, evaluation labels only) never change a story, and the asset's check holds."""

from __future__ import annotations

import json
import shutil
from itertools import islice
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipelines.defs.analytics.checks import story_problems
from tests.background import REAL_AS_OF, REAL_RECORDS
from warehouse.paths import DataDir

# what decomposition and embedding cached: copied so the second build only re-does what the
# sources decide (ingest, signals, entities, themes, stories), not the MiniLM passes over units
CACHES = ("extractions", "extracted_units", "unit_embeddings")
LABELS = ("issue", "section")


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.timeout(900)
def test_stories_are_the_same_without_the_editors_labels(
    real_data_dir: tuple[DataDir, dict[str, int]], shared_data: Path, tmp_path: Path
) -> None:
    from pipelines.build import build
    from warehouse.ingest import ingest_paths
    from warehouse.settings import parse_as_of

    labelled, _ = real_data_dir
    stories = pl.read_parquet(labelled.table_path("stories"))
    assert story_problems(stories) == []
    assert stories.filter(pl.col("signal_count") > 1).height > 0

    with (shared_data / "ainews" / "ainews-2025.jsonl").open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in islice((x for x in fh if x.strip()), REAL_RECORDS)]
    assert any(all(label in r for label in LABELS) for r in records)
    stripped = tmp_path / "unlabelled.jsonl"  # a copy of corpus text, in the test's tmp dir only
    stripped.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k not in LABELS}) + "\n" for r in records
        ),
        encoding="utf-8",
    )
    data = DataDir(tmp_path / "data")
    data.warehouse.mkdir(parents=True)
    for table in CACHES:
        shutil.copy2(labelled.table_path(table), data.table_path(table))
    ingest_paths(data, [stripped], progress=False)
    extras = pl.read_parquet(data.table_path("sources"))["extra"].to_list()
    assert not any(label in json.loads(extra or "{}") for extra in extras for label in LABELS)
    build(data, as_of=parse_as_of(REAL_AS_OF), persistent=False)

    again = pl.read_parquet(data.table_path("stories"))
    # no previous stories table in the new data dir: every id was derived afresh, so equal ids
    # and members mean the same clustering, not ids carried over
    assert_frame_equal(again, stories)
