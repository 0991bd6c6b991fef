"""The checks that watch the data: the quarantine rate of the latest ingested batch and the
share of drafted units refused, each a warning past its threshold."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl

from analytics.schema import INGEST_LOG, UNIT_REJECTIONS, UNITS
from pipelines.defs.decompose.assets import rejection_rate
from pipelines.defs.decompose.checks import MAX_REJECTION_RATE, unit_rejection_rate_is_low
from pipelines.defs.ingest.checks import (
    MAX_QUARANTINE_RATE,
    quarantine_rate,
    quarantine_rate_is_low,
)
from pipelines.resources import AimiResource
from warehouse.paths import DataDir
from warehouse.tables import write_table

MONDAY = datetime(2026, 5, 4, tzinfo=UTC)
TUESDAY = datetime(2026, 5, 5, tzinfo=UTC)


def log(*files: tuple[str, int, int, datetime]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"path": p, "sha256": p, "records": r, "quarantined": q, "ingested_at": at}
            for p, r, q, at in files
        ],
        schema=INGEST_LOG,
    )


def test_the_quarantine_rate_is_the_latest_batchs() -> None:
    rate = quarantine_rate(
        log(
            ("/old.jsonl", 100, 50, MONDAY),  # a bad day, since fixed
            ("/a.jsonl", 90, 1, TUESDAY),
            ("/broken.pdf", 0, 1, TUESDAY),  # a file that failed as a whole: one record
        )
    )
    assert (rate.batch_records, rate.batch_quarantined) == (91, 2)
    assert (rate.all_records, rate.all_quarantined) == (191, 52)
    assert rate.batch_rate == 2 / 91 and rate.overall_rate == 52 / 191
    assert quarantine_rate(log()).batch_rate == 0.0


def test_rejection_rate_is_the_share_of_drafted_units_refused() -> None:
    assert rejection_rate(75, 25) == 0.25
    assert rejection_rate(0, 0) == 0.0


def evaluate(check: dg.AssetChecksDefinition, data: DataDir) -> dg.AssetCheckResult:
    result = check(AimiResource(data_dir=str(data.root)))
    assert isinstance(result, dg.AssetCheckResult)
    return result


def test_the_quarantine_check_warns_past_its_threshold(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    write_table(data, "ingest_log", log(("/a.jsonl", 100, 5, MONDAY)))
    at_threshold = evaluate(quarantine_rate_is_low, data)
    assert MAX_QUARANTINE_RATE == 0.05 and at_threshold.passed
    write_table(data, "ingest_log", log(("/a.jsonl", 100, 6, MONDAY)))
    over = evaluate(quarantine_rate_is_low, data)
    assert not over.passed and over.severity == dg.AssetCheckSeverity.WARN
    assert over.metadata["batch_rate"] == dg.FloatMetadataValue(0.06)


def test_the_rejection_check_warns_past_its_threshold(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    # a warehouse never decomposed: nothing drafted, nothing refused
    assert evaluate(unit_rejection_rate_is_low, data).passed

    def units(accepted: int, refused: int, rule: str) -> None:
        write_table(
            data,
            "units",
            pl.DataFrame({"unit_id": [f"u{i}" for i in range(accepted)]}).with_columns(
                *(pl.lit(None, dtype).alias(c) for c, dtype in UNITS.items() if c != "unit_id")
            ),
        )
        write_table(
            data,
            "unit_rejections",
            pl.DataFrame({"rule": [rule] * refused}).with_columns(
                *(
                    pl.lit(None, dtype).alias(c)
                    for c, dtype in UNIT_REJECTIONS.items()
                    if c != "rule"
                )
            ),
        )

    units(3, 1, "unsupported")  # 1 of 4 drafted: at the threshold
    assert MAX_REJECTION_RATE == 0.25 and evaluate(unit_rejection_rate_is_low, data).passed
    units(2, 1, "unsupported")  # 1 of 3
    over = evaluate(unit_rejection_rate_is_low, data)
    assert not over.passed and over.severity == dg.AssetCheckSeverity.WARN
    assert over.metadata["top_rule"] == dg.TextMetadataValue("unsupported")
