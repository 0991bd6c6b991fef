"""Every run takes the data dir's build lock (issue 19): a run started as the Dagster UI, the
schedule or the sensor start one waits while `aimi build` holds the data dir, and runs after."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import dagster as dg

from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource
from tests.warehouse.test_locks import HeldElsewhere
from warehouse.paths import DataDir

WAITING = "waiting for the build running on"


def _said_waiting(instance: dg.DagsterInstance, timeout: float) -> bool:
    """Whether the instance's run logged that it waits for the build lock, within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for run in instance.get_runs():
            if any(
                WAITING in (entry.user_message or "") for entry in instance.all_logs(run.run_id)
            ):
                return True
        time.sleep(0.05)
    return False


def test_a_ui_run_waits_for_the_build_that_holds_the_data_dir(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    record = {
        "kind": "news",
        "title": "Acme raises $1 billion",
        "url": "https://example.com/acme",
        "published_at": "2026-11-20T09:00:00Z",
        "text": "Acme raised $1 billion from Beta Capital on Thursday to build data centers.",
    }
    (data.inbox / "batch.jsonl").write_text(json.dumps(record) + "\n")
    seen_while_held: list[bool] = []
    # SQLite files, not the ephemeral instance's one in-memory connection: the thread below
    # reads the run's logs while the run writes them (the in-memory one, shared by two threads,
    # lost its tables under load: "no such table: runs")
    (tmp_path / "dagster").mkdir()
    with (
        dg.DagsterInstance.local_temp(tempdir=str(tmp_path / "dagster")) as instance,
        HeldElsewhere(data) as build,
    ):

        def finish_the_build() -> None:
            # the run says it waits; only when the build (`aimi build`, elsewhere) is done may
            # it go on
            seen_while_held.append(_said_waiting(instance, timeout=60))
            seen_while_held.append(data.table_path("sources").exists())
            build.release()

        threading.Thread(target=finish_the_build).start()
        result = dg.materialize(  # what "Materialize" in the UI runs
            [*ASSETS, *CHECKS],
            selection=["sources", "quarantine", "ingest_log"],  # the ingest step
            resources={"aimi": AimiResource(data_dir=str(data.root))},
            instance=instance,
        )
        done = time.monotonic()
    assert result.success
    assert seen_while_held == [True, False]  # it waited, and had not ingested meanwhile
    assert data.table_path("sources").exists()
    assert done > build.released_at > 0
