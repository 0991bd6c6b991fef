"""Checks on what decomposition wrote: the share of drafted units the verifier (or a person)
refused. A warning, not a block: refused units are already kept out of ``units``; a rate far
above the usual says an extractor or the verifier changed behaviour."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg

from analytics.schema import UNIT_REJECTIONS, UNITS
from pipelines.defs.decompose.assets import UNIT_REJECTIONS_TABLE, rejection_rate
from pipelines.resources import AimiResource
from warehouse.tables import read_table

# Measured (docs/dagster.md) on the demo corpus and on AINews; the threshold sits above both
# with room, and trips when the verifier suddenly refuses a much larger share.
MAX_REJECTION_RATE = 0.25


@dg.asset_check(
    asset=UNIT_REJECTIONS_TABLE.key,
    description=(
        f"At most {MAX_REJECTION_RATE:.0%} of the units drafted were refused (by a verifier "
        "rule or a person). A warning: the verified units are published all the same."
    ),
)
def unit_rejection_rate_is_low(aimi: AimiResource) -> dg.AssetCheckResult:
    data = aimi.data()
    accepted = read_table(data, "units", UNITS).height
    rejections = read_table(data, "unit_rejections", UNIT_REJECTIONS)
    rate = rejection_rate(accepted, rejections.height)
    worst = rejections.group_by("rule").len("units").sort("units", "rule", descending=[True, False])
    return dg.AssetCheckResult(
        passed=rate <= MAX_REJECTION_RATE,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "rejection_rate": round(rate, 4),
            "units": accepted,
            "rejected": rejections.height,
            "threshold": MAX_REJECTION_RATE,
            "top_rule": worst["rule"][0] if worst.height else "none",
        },
    )
