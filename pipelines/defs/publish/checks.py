"""Checks on the published snapshot: the invariants the API promises its readers."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import orjson

from pipelines.defs.publish.assets import snapshot
from pipelines.resources import AimiResource
from warehouse.snapshot import open_current

SNIPPET_LIMIT = 50


@dg.asset_check(asset=snapshot, description="Manifest checksums and row counts verify.")
def snapshot_verifies(aimi: AimiResource) -> dg.AssetCheckResult:
    opened = open_current(aimi.data(), verify=True)
    return dg.AssetCheckResult(
        passed=opened is not None,
        metadata={"snapshot_id": opened.snapshot_id if opened else ""},
    )


@dg.asset_check(
    asset=snapshot,
    description=(
        "Every served signal has one central statement first, `verified_unit_count` equals "
        "the number of units, and every evidence snippet is at most 50 characters."
    ),
)
def served_signals_are_complete(aimi: AimiResource) -> dg.AssetCheckResult:
    opened = open_current(aimi.data(), verify=False)
    if opened is None:
        return dg.AssetCheckResult(passed=False, metadata={"reason": "no snapshot"})
    problems: list[str] = []
    for signal_id, detail_json in (
        opened.read_table("signals").select("signal_id", "detail_json").iter_rows()
    ):
        detail = orjson.loads(detail_json)
        units = detail["units"]
        if detail["verified_unit_count"] != len(units):
            problems.append(f"{signal_id}: verified_unit_count != len(units)")
        if not units or units[0]["role"] not in ("thesis", "synopsis"):
            problems.append(f"{signal_id}: no central statement first")
        for unit in units:
            for item in unit["evidence_preview"]["snippets"]:
                if len(item["text"]) > SNIPPET_LIMIT:
                    problems.append(f"{signal_id}: snippet over {SNIPPET_LIMIT} characters")
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5])},
    )
