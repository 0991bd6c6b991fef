"""Publishing to the object store and serving from it (``AIMI_SNAPSHOT_STORE``), against a real
local S3 server: a publish uploads before anything points at the snapshot, a server over an
empty data dir pulls, verifies and serves it, and swaps to the next publish at its next poll;
an upload that fails publishes nowhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from serving.app import create_app
from tests.s3_server import S3Server, moto_server
from tests.serving.conftest import DEV_KEY, Corpus, make_settings, publish
from warehouse.object_store import ObjectStore
from warehouse.paths import DataDir
from warehouse.s3 import ObjectStoreError
from warehouse.snapshot import current_snapshot_id


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with moto_server() as server:
        yield server


@pytest.fixture
def s3_env(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    return s3


def test_a_replica_serves_what_the_builder_publishes(
    tmp_path: Path, s3_env: S3Server, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"s3://{s3_env.bucket}/publish"
    monkeypatch.setenv("AIMI_SNAPSHOT_STORE", url)
    store = ObjectStore(url)
    first = publish(tmp_path / "builder", corpus.tables)  # the pipeline's publish_served
    assert store.current_id() == first

    replica = tmp_path / "replica"  # empty: everything comes from the store
    settings = make_settings(replica).model_copy(update={"snapshot_store": url})
    with TestClient(create_app(settings), headers={"X-API-Key": DEV_KEY}) as client:
        assert client.get("/v1/health").json()["snapshot"]["id"] == first
        assert client.get("/v1/signals", params={"limit": 50}).json()["signals"]
        second = publish(tmp_path / "builder", corpus.extended)
        assert store.current_id() == second
        assert current_snapshot_id(DataDir(replica)) == first  # nothing moves before a poll
        client.app.state.store.poll()  # type: ignore[attr-defined]
        assert client.get("/v1/health").json()["snapshot"]["id"] == second
        served = client.get("/v1/signals", params={"limit": 50}).json()["signals"]
        assert {s["title"] for s in served} >= {"Report newest"}
    assert current_snapshot_id(DataDir(replica)) == second


@pytest.mark.usefixtures("s3_env")
def test_a_failed_upload_publishes_nowhere(
    tmp_path: Path, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder = tmp_path / "builder"
    first = publish(builder, corpus.tables)  # no store yet
    # a bucket that does not exist: the upload fails after the snapshot was staged
    monkeypatch.setenv("AIMI_SNAPSHOT_STORE", "s3://no-such-bucket/p")
    with pytest.raises(ObjectStoreError, match="no-such-bucket"):
        publish(builder, corpus.extended)
    assert current_snapshot_id(DataDir(builder)) == first


def test_snapshots_push_uploads_the_current_snapshot_and_says_what_it_sent(
    tmp_path: Path, s3_env: S3Server, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    builder = tmp_path / "builder"
    first = publish(builder, corpus.tables)  # published before the store was configured
    runner = CliRunner()
    unset = runner.invoke(app, ["snapshots", "push", "--data-dir", str(builder)])
    assert unset.exit_code == 1 and "set AIMI_SNAPSHOT_STORE" in unset.output
    url = f"s3://{s3_env.bucket}/push"
    monkeypatch.setenv("AIMI_SNAPSHOT_STORE", url)
    pushed = runner.invoke(app, ["snapshots", "push", "--data-dir", str(builder)])
    assert pushed.exit_code == 0, pushed.output
    assert f"{url}: CURRENT → {first} (" in pushed.output
    assert ObjectStore(url).current_id() == first
    again = runner.invoke(app, ["snapshots", "push", "--data-dir", str(builder)])
    assert "(0 files, 0.0 MB sent" in again.output  # already there: only the pointer moves
    empty = runner.invoke(app, ["snapshots", "push", "--data-dir", str(tmp_path / "empty")])
    assert empty.exit_code == 1 and "nothing is published yet" in empty.output


def test_a_rollback_moves_the_store_too(
    tmp_path: Path, s3_env: S3Server, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Else a server following the store would undo it at its next poll."""
    from typer.testing import CliRunner

    from cli.app import app

    url = f"s3://{s3_env.bucket}/rollback"
    monkeypatch.setenv("AIMI_SNAPSHOT_STORE", url)
    builder = tmp_path / "builder"
    first = publish(builder, corpus.tables)
    second = publish(builder, corpus.extended)
    store = ObjectStore(url)
    assert store.current_id() == second
    rolled = CliRunner().invoke(app, ["snapshots", "rollback", first, "--data-dir", str(builder)])
    assert rolled.exit_code == 0, rolled.output
    assert f"{url}: CURRENT → {first}" in rolled.output
    assert store.current_id() == current_snapshot_id(DataDir(builder)) == first
    # a store that cannot take it: no pointer moves, the local one included
    monkeypatch.setenv("AIMI_SNAPSHOT_STORE", "s3://no-such-bucket/p")
    refused = CliRunner().invoke(app, ["snapshots", "rollback", second, "--data-dir", str(builder)])
    assert refused.exit_code == 1
    assert "not rolled back" in refused.output and "no-such-bucket" in refused.output
    assert store.current_id() == current_snapshot_id(DataDir(builder)) == first
