"""The build lock as a lease on the S3-compatible store, seen from the build (issue 33): a
refresh refused by another machine's lease says who holds it, and a step of a multiprocess run
whose launcher lost the lease runs nothing. Against a real local S3 server (moto's), as
tests/warehouse/test_lease.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.s3_server import S3Server, module_server, warehouse_on
from tests.warehouse.test_lease import builder, wait_until_expired
from warehouse.paths import DataDir

_prefixes = iter(range(10_000))


s3 = module_server("aimi-build-lease")


@pytest.fixture
def warehouse_on_s3(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``AIMI_WAREHOUSE_URL`` on a prefix of this test's own (the build lease lives there),
    and boto3's variables pointed at the server."""
    with warehouse_on(s3, monkeypatch, f"build-{next(_prefixes)}") as url:
        yield url


def test_a_refresh_refused_by_the_lease_says_who_holds_it(
    tmp_path: Path, s3: S3Server, warehouse_on_s3: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipelines.__main__ import main

    # held (and renewed) by a build elsewhere for as long as the refresh takes
    with builder(s3, warehouse_on_s3, ttl=60).hold("a build elsewhere"):
        code = main(["refresh", "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == os.EX_TEMPFAIL
    assert f"another build holds the lease {warehouse_on_s3}/build.lease since" in err
    assert "expires" in err and "Traceback" not in err


@pytest.mark.slow  # two Dagster runs of the ingest step
def test_a_step_whose_launcher_lost_the_lease_runs_nothing(
    tmp_path: Path, s3: S3Server, warehouse_on_s3: str
) -> None:
    import dagster as dg

    from pipelines.definitions import ASSETS, CHECKS
    from pipelines.resources import AimiResource
    from tests.pipelines.test_incremental import news, write
    from warehouse.tables import table_exists

    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    write(data.inbox / "batch.jsonl", [news(0)])

    def ingest(token: str) -> dg.ExecuteInProcessResult:
        """The ingest step as a step of a multiprocess run whose launcher took ``token``."""
        return dg.materialize(
            [*ASSETS, *CHECKS],
            selection=["sources", "quarantine", "ingest_log"],
            resources={"aimi": AimiResource(data_dir=str(data.root), lock_token=token)},
            raise_on_error=False,
        )

    launcher = builder(s3, warehouse_on_s3, ttl=1.0)
    launcher.try_acquire("launcher")  # stops renewing: paused, or cut off from the store
    wait_until_expired(launcher)
    with builder(s3, warehouse_on_s3, ttl=60).hold("taker"):  # renewed while the runs last
        lost = ingest("launcher")
        assert not lost.success
        # in-process, the step's resource refuses it (a step of a multiprocess run, its own
        # process, fails at the same place)
        assert any(
            "no longer holds the build lock" in str(event.event_specific_data)
            for event in lost.all_events
        )
        assert not table_exists(data, "sources")  # ran nothing
        # the same step under the token that holds the lease runs
        held = ingest("taker")
        assert held.success and table_exists(data, "sources")
