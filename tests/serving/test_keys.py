"""The API key store: hashed at rest, verified in constant time, re-read when the file changes."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from serving.keys import KeyStore, KeyStoreError, parse_key_id
from warehouse.settings import Settings


def test_create_verify_and_store_only_the_hash(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.json")
    record, plaintext = store.create("analyst laptop", tier="pro")
    assert plaintext.startswith(f"aimi_{record.key_id}_") and len(plaintext) > 40
    assert parse_key_id(plaintext) == record.key_id
    assert store.verify(plaintext) == record
    assert record.tier == "pro" and record.active
    text = (tmp_path / "keys.json").read_text()
    assert plaintext not in text and plaintext.split("_", 2)[2] not in text
    assert json.loads(text)["keys"][0]["sha256"] == record.sha256
    assert not list(tmp_path.glob(".keys.json-*")), "no temp files left behind"


@pytest.mark.parametrize(
    "transform",
    [
        str.upper,
        lambda k: k[:-1],
        lambda k: k + "a",
        lambda k: k.replace("aimi_", "mai_", 1),
        lambda _k: "",
    ],
)
def test_wrong_keys_do_not_verify(tmp_path: Path, transform: Callable[[str], str]) -> None:
    store = KeyStore(tmp_path / "keys.json")
    _record, plaintext = store.create("x")
    assert store.verify(transform(plaintext)) is None


def test_revoke_and_list(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.json")
    first, first_key = store.create("one")
    second, second_key = store.create("two", tier="free")
    revoked = store.revoke(first.key_id)
    assert revoked.revoked_at is not None and not revoked.active
    assert store.verify(first_key) is None
    assert store.verify(second_key) == second
    assert [r.key_id for r in store.list()] == [first.key_id, second.key_id]
    assert store.revoke(first.key_id).revoked_at == revoked.revoked_at  # idempotent
    with pytest.raises(KeyStoreError, match="no key with id"):
        store.revoke("000000000000")


def test_another_process_sees_new_and_revoked_keys(tmp_path: Path) -> None:
    server = KeyStore(tmp_path / "keys.json")
    assert server.list() == []
    cli = KeyStore(tmp_path / "keys.json")
    record, plaintext = cli.create("made by the CLI")
    assert server.verify(plaintext) == record
    cli.revoke(record.key_id)
    assert server.verify(plaintext) is None


def test_a_malformed_file_keeps_the_last_good_keys(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "keys.json"
    server = KeyStore(path)
    record, plaintext = KeyStore(path).create("kept")
    assert server.verify(plaintext) == record
    path.write_text('{"keys": [ this is not json')
    with caplog.at_level(logging.ERROR, logger="aimi.serving"):
        for _ in range(3):
            assert server.verify(plaintext) == record
    assert len([r for r in caplog.records if "keys file refused" in r.getMessage()]) == 1
    with pytest.raises(KeyStoreError, match="cannot read keys file"):
        KeyStore(path).create("would clobber")
    assert "this is not json" in path.read_text()


@pytest.mark.parametrize(("name", "tier"), [("", "free"), ("  ", "free"), ("ok", "Pro Tier")])
def test_create_validates_name_and_tier(tmp_path: Path, name: str, tier: str) -> None:
    with pytest.raises(KeyStoreError):
        KeyStore(tmp_path / "keys.json").create(name, tier=tier)


def test_settings_read_the_aimi_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIMI_DEV_API_KEY", "s3cret")
    monkeypatch.setenv("AIMI_AS_OF", "2026-05-01T00:00:00Z")
    monkeypatch.setenv("AIMI_SNAPSHOT_POLL_SECONDS", "0.5")
    settings = Settings(_env_file=None)
    assert settings.data_dir == tmp_path
    assert settings.dev_api_key is not None and settings.dev_api_key.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(settings)
    assert settings.as_of is not None and settings.as_of.year == 2026
    assert settings.snapshot_poll_seconds == 0.5
    assert settings.rate_limit_storage == "embedded" and settings.admin_secret is None


def test_the_keys_commands_create_list_and_revoke(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    runner = CliRunner()
    data = ["--data-dir", str(tmp_path)]
    created = runner.invoke(
        app, ["keys", "create", "--name", "reporting job", "--tier", "pro", *data]
    )
    assert created.exit_code == 0, created.output
    plaintext = created.stdout.strip().splitlines()[0]
    record = KeyStore(tmp_path / "keys.json").verify(plaintext)
    assert record is not None and record.tier == "pro" and record.name == "reporting job"
    listed = runner.invoke(app, ["keys", "list", *data])
    assert f"{record.key_id}\treporting job\tpro" in listed.stdout and "active" in listed.stdout
    assert plaintext not in listed.stdout and record.sha256 not in listed.stdout
    assert runner.invoke(app, ["keys", "revoke", record.key_id, *data]).exit_code == 0
    assert KeyStore(tmp_path / "keys.json").verify(plaintext) is None
    assert "revoked" in runner.invoke(app, ["keys", "list", *data]).stdout
    assert runner.invoke(app, ["keys", "revoke", "0123456789ab", *data]).exit_code == 1


def test_a_key_needs_a_configured_tier(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    result = CliRunner().invoke(
        app, ["keys", "create", "--name", "x", "--tier", "gold", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "tier 'gold' is not configured" in result.output
    assert not (tmp_path / "keys.json").exists()
