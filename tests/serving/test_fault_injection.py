"""The fault-injection matrix (scripts/fault_test.py, `make fault-test`, docs/deployment.md), its
two fastest cases on the small corpus, as `make test` runs it: Redis killed -9 for 10 s under
load (503 with Retry-After, never a 500 or a 502; the quota exact again after), and a snapshot
tampered with on the store (every replica refuses it and keeps serving); then the secrets scan
of every answer and log line. The script checks; this test reads its lines.

Skips only when nginx or redis-server is not installed (`make test` installs both first)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from scripts.fault_test import find_secrets, holds_secret, served_ids, took_over_gone
from tests.serving.conftest import Corpus, publish

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fault_test.py"


def test_the_secrets_scan_finds_a_secret_in_any_line() -> None:
    texts = [
        ("replica-a.log", "INFO serving x\nERROR redis://:hunter2@127.0.0.1:6379/0 failed"),
        ("cli output", "nothing here"),
        ("nginx", "a\nb\nc key=k-123 and hunter2"),
    ]
    lines, found = find_secrets(texts, ("hunter2", "k-123"))
    assert lines == 6
    assert found == {"replica-a.log": 1, "nginx": 1}
    assert find_secrets(texts, ("absent",))[1] == {}


def test_an_attack_s_answer_is_scanned_in_its_body_and_headers() -> None:
    secrets = ("admin-secret-abc", "redis-pw-xyz")
    refused = httpx.Response(401, json={"error": {"message": "invalid admin secret"}})
    assert not holds_secret(refused, secrets)
    assert holds_secret(httpx.Response(401, text="wrong: admin-secret-abc"), secrets)
    assert holds_secret(httpx.Response(503, headers={"X-Why": "redis-pw-xyz"}), secrets)


def test_a_replica_that_missed_a_health_answer_is_still_described() -> None:
    # a health request that got no id (None) beside one that did: `min()` over the set raised
    # TypeError here before, failing the replica case on a line's wording
    one = "20261201-20261201T192600123456-abcdef012345"
    other = "20261201-20261201T192700123456-abcdef012345"
    assert served_ids({one, None}) == "20261201T192600/none"
    assert served_ids({other, one}) == "20261201T192600/20261201T192700"
    assert served_ids({None}) == "none"
    assert served_ids(set()) == "none"


def test_the_publish_kill_case_tells_a_gone_holder_s_takeover_from_a_wait() -> None:
    where = "s3://aimi-snapshots/aimi/build.lease"
    gone = (
        f"took over the build lease {where} of host h1, pid 4242 (held since "
        "2026-12-01T19:42:00+00:00, its process on this host is gone)"
    )
    expired = (
        f"took over the build lease {where} of host h1, pid 4242 (held since "
        "2026-12-01T19:42:00+00:00, expired 2026-12-01T19:43:00+00:00)"
    )
    assert took_over_gone(f"verifying\n{gone}\nrolled back", 4242)
    assert not took_over_gone(gone, 424)  # another process's lease
    assert not took_over_gone(expired, 4242)  # waited out, not taken at once
    assert not took_over_gone("rolled back to 20261201-x-y", 4242)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_redis_outage_and_tampered_snapshots_under_load(tmp_path: Path, corpus: Corpus) -> None:
    for tool in ("nginx", "redis-server"):
        if shutil.which(tool, path=f"{os.environ.get('PATH', '')}:/usr/sbin") is None:
            pytest.skip(f"{tool} is not installed (scripts/ensure-{tool.split('-')[0]})")
    builder = tmp_path / "builder"
    publish(builder, corpus.tables)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--builder", str(builder), "--cases", "redis,tamper"]
        + ["--workers", "1", "--work", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and len(lines) == 4, done.stdout + done.stderr[-4000:]
    redis, tamper, secrets, total = lines
    assert redis.startswith("fault-test redis: ok | "), redis
    # the outage was seen (503s), nothing else went wrong (no 500, no 502, no lost connection)
    assert re.search(r"non-2xx: \d+ x 503, 0 socket errors", redis), redis
    assert "quota 500/min after: 500 admitted, 100 x 429 of 600" in redis
    assert tamper.startswith("fault-test tamper: ok | "), tamper
    assert "non-2xx: none, 0 socket errors" in tamper
    assert "file refused by every replica" in tamper and "manifest refused" in tamper
    assert secrets.startswith("fault-test secrets: ok | "), secrets
    assert "0 answers, lines found: none" in secrets
    assert total.startswith("fault-test: ok | 3 cases"), total
    assert not list((tmp_path / "work").glob("run-*")), "a passing run leaves no folder behind"
