"""The record of the last build or refresh of a data dir (``<data dir>/last_build.json``).

``pipelines.build`` writes it when a build or refresh ends, failed or not; ``aimi status``
reads it. It is plain JSON in the warehouse layer so the serving package can show it without
importing Dagster (docs/design.md §2).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from warehouse.files import atomic_write_text
from warehouse.paths import DataDir


@dataclass(frozen=True)
class CheckOutcome:
    """One asset check of the run: its name, the asset it watches and whether it passed."""

    name: str
    asset: str
    passed: bool


@dataclass(frozen=True)
class BuildRecord:
    kind: str  # "build" or "refresh"
    run_id: str
    started_at: str  # ISO 8601, UTC
    finished_at: str
    as_of: str
    success: bool
    snapshot_id: str | None = None  # the snapshot it published, if any
    error: str | None = None
    checks: list[CheckOutcome] = field(default_factory=list)

    @property
    def failed_checks(self) -> list[CheckOutcome]:
        return [check for check in self.checks if not check.passed]


def write_build_record(data: DataDir, record: BuildRecord) -> None:
    data.root.mkdir(parents=True, exist_ok=True)
    atomic_write_text(data.build_record, json.dumps(asdict(record), indent=2) + "\n")


def read_build_record(data: DataDir) -> BuildRecord | None:
    """The last record, or None when none was written or it cannot be read (status is a
    report: a damaged record shows as missing, it never stops anything)."""
    try:
        raw: dict[str, Any] = json.loads(data.build_record.read_text(encoding="utf-8"))
        checks = [CheckOutcome(**check) for check in raw.pop("checks", [])]
        return BuildRecord(**raw, checks=checks)
    except (OSError, ValueError, TypeError):
        return None
