"""Checks on what ingest wrote: the quarantine rate of the latest batch. A warning, not a
block: the quarantined records are already kept out of ``sources``, and the good ones of the
same batch should still be published; the warning says a feed or adapter needs a look."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from typing import NamedTuple

import dagster as dg
import polars as pl

from analytics.schema import INGEST_LOG
from pipelines.defs.ingest.assets import QUARANTINE_TABLE
from pipelines.resources import AimiResource
from warehouse.tables import read_table

# Measured (docs/dagster.md): 0 of 1,837 demo records; the threshold leaves room for the odd
# malformed record in a real feed and trips when a batch's format breaks.
MAX_QUARANTINE_RATE = 0.05


class QuarantineRate(NamedTuple):
    """Records read and quarantined in the latest batch (the files read at the latest
    ``ingested_at``), and over every file ever read."""

    batch_records: int
    batch_quarantined: int
    all_records: int
    all_quarantined: int

    @property
    def batch_rate(self) -> float:
        return self.batch_quarantined / self.batch_records if self.batch_records else 0.0

    @property
    def overall_rate(self) -> float:
        return self.all_quarantined / self.all_records if self.all_records else 0.0


def quarantine_rate(log: pl.DataFrame) -> QuarantineRate:
    """The rates of an ``ingest_log`` table. A file that failed as a whole counts as one
    quarantined record even when no record was read from it."""
    read = log.with_columns(pl.max_horizontal("records", "quarantined").alias("records"))
    latest = read.filter(pl.col("ingested_at") == pl.col("ingested_at").max())
    return QuarantineRate(
        int(latest["records"].sum()),
        int(latest["quarantined"].sum()),
        int(read["records"].sum()),
        int(read["quarantined"].sum()),
    )


@dg.asset_check(
    asset=QUARANTINE_TABLE.key,
    description=(
        f"The latest ingested batch quarantined at most {MAX_QUARANTINE_RATE:.0%} of its "
        "records. A warning: the batch's valid records are published all the same."
    ),
)
def quarantine_rate_is_low(aimi: AimiResource) -> dg.AssetCheckResult:
    rate = quarantine_rate(read_table(aimi.data(), "ingest_log", INGEST_LOG))
    return dg.AssetCheckResult(
        passed=rate.batch_rate <= MAX_QUARANTINE_RATE,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "batch_rate": round(rate.batch_rate, 4),
            "batch_records": rate.batch_records,
            "batch_quarantined": rate.batch_quarantined,
            "overall_rate": round(rate.overall_rate, 4),
            "threshold": MAX_QUARANTINE_RATE,
        },
    )
