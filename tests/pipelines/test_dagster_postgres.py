"""Dagster on PostgreSQL (docs/design.md §11, docs/deployment.md): a real materialization of the
first stages with run, event-log and schedule storage in a throwaway PostgreSQL cluster, configured
by the committed deploy/dagster-postgres.yaml. Skips when PostgreSQL is not installed
(scripts/ensure-postgres installs it) or cannot start here."""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

from pipelines.definitions import ASSETS
from pipelines.resources import AimiResource
from tests.s3_server import free_port
from warehouse.paths import DataDir

ROOT = Path(__file__).resolve().parents[2]
INSTANCE_FILE = ROOT / "deploy" / "dagster-postgres.yaml"
USER = "aimi"
DATABASE = "dagster"


def _run(command: list[str | Path], as_user: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*as_user, *map(str, command)], capture_output=True, text=True, check=False, timeout=120
    )


@pytest.fixture(scope="module")
def postgres_port() -> Iterator[int]:
    """A PostgreSQL cluster of its own on a free loopback port (trust authentication, no
    fsync), stopped and deleted afterwards."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("PostgreSQL is not installed (scripts/ensure-postgres installs it)")
    bindir = Path(found[-1]).parent
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="aimi-postgres-"))
    if os.geteuid() == 0:  # initdb refuses root: run the cluster as Debian's postgres user
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root)
            pytest.skip("running as root and there is no postgres user to run PostgreSQL as")
        os.chown(root, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = root / "data"
    port = free_port()
    try:
        done = _run(
            [bindir / "initdb", "-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
            as_user,
        )
        if done.returncode != 0:
            pytest.skip(f"initdb failed: {done.stderr.strip()[-300:]}")
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        started = _run(
            [bindir / "pg_ctl", "-D", data, "-l", root / "log", "-w", "-o", options, "start"],
            as_user,
        )
        if started.returncode != 0:
            log = (
                (root / "log").read_text(errors="replace")[-300:] if (root / "log").exists() else ""
            )
            pytest.skip(f"PostgreSQL could not start: {started.stderr.strip()[-300:]} {log}")
        try:
            created = _run(
                [bindir / "createdb", "-h", "127.0.0.1", "-p", port, "-U", USER, DATABASE],
                as_user,
            )
            assert created.returncode == 0, created.stderr
            yield port
        finally:
            _run([bindir / "pg_ctl", "-D", data, "-m", "fast", "stop"], as_user)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_a_materialization_keeps_its_run_and_events_in_postgres(
    postgres_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg2

    for name, value in {
        "DAGSTER_PG_USERNAME": USER,
        "DAGSTER_PG_PASSWORD": "unused-with-trust-authentication",
        "DAGSTER_PG_HOST": "127.0.0.1",
        "DAGSTER_PG_DB": DATABASE,
        "DAGSTER_PG_PORT": str(postgres_port),
    }.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "dagster-home"
    home.mkdir()
    shutil.copy(INSTANCE_FILE, home / "dagster.yaml")
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    now = datetime.now(UTC)
    records = [
        {
            "kind": "news",
            "title": f"Deal {i}",
            "url": f"https://example.com/deal/{i}",
            "published_at": (now - timedelta(days=i + 1)).isoformat(),
            "text": f"Acme signed a ${i + 1} billion compute deal with Beta Cloud on Monday.",
        }
        for i in range(5)
    ]
    (data.inbox / "batch.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    first_stages = [
        asset
        for asset in ASSETS
        if {k.to_user_string() for k in asset.keys} & {"sources", "signals"}
    ]

    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        result = dg.materialize(
            first_stages,
            resources={"aimi": AimiResource(data_dir=str(data.root))},
            instance=instance,
        )
        assert result.success
    assert (data.warehouse / "signals.parquet").is_file()

    # a new instance over the same database: the run and its materializations were stored there
    with dg.DagsterInstance.from_config(str(home)) as again:
        run = again.get_run_by_id(result.run_id)
        assert run is not None and run.is_success
        for key in ("sources", "signals"):
            event = again.get_latest_materialization_event(dg.AssetKey(key))
            assert event is not None and event.run_id == result.run_id
    assert not list(home.rglob("*.db"))  # no SQLite storage beside it
    with (
        psycopg2.connect(
            host="127.0.0.1", port=postgres_port, user=USER, dbname=DATABASE
        ) as connection,
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT run_id, status FROM runs")
        assert cursor.fetchall() == [(result.run_id, "SUCCESS")]
        cursor.execute(
            "SELECT count(*) FROM event_logs WHERE run_id = %s AND dagster_event_type = "
            "'ASSET_MATERIALIZATION'",
            (result.run_id,),
        )
        count = cursor.fetchone()
        assert count is not None and count[0] >= 2
