"""The fault-injection matrix (tests/harness/fault_matrix.py, `make fault-test`,
docs/deployment.md), its two fastest cases on the small corpus, as `make test` runs it: Redis killed
-9 for 10 s under load (503 with Retry-After, never a 500 or a 502; the quota exact again after),
and a snapshot tampered with on the store (every replica refuses it and keeps serving); then the
secrets scan of every answer and log line. The script checks; this test reads its lines.

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

from tests.harness.arrangement import unsafe_in_answer
from tests.harness.fault_matrix import (
    Held,
    _store_point,
    after_checks,
    answer_leaks,
    find_secrets,
    served_ids,
    took_over_gone,
)
from tests.s3_server import moto_server
from tests.serving.conftest import Corpus, publish
from warehouse.object_store import ObjectStore

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "harness" / "fault_matrix.py"


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
    assert answer_leaks(refused, secrets) == []
    assert answer_leaks(httpx.Response(401, text="wrong: admin-secret-abc"), secrets)
    assert answer_leaks(httpx.Response(503, headers={"X-Why": "redis-pw-xyz"}), secrets)
    # a secret in a 200 is found too
    assert answer_leaks(httpx.Response(200, text="redis-pw-xyz"), secrets)


# the API's own error bodies (serving/errors.py's shape) and nginx's, as the cases get them
LEGITIMATE = [
    (
        503,
        '{"error": {"code": "unavailable", "message": "rate limiting is unavailable on the '
        'server; retry later", "retry_after": 5}}',
    ),
    (
        401,
        '{"error": {"code": "unauthorized", "message": "invalid or missing API key: send it '
        'in X-API-Key"}}',
    ),
    (401, '{"error": {"code": "unauthorized", "message": "invalid admin secret"}}'),
    (
        429,
        '{"error": {"code": "rate_limited", "message": "quota of 500 requests per minute '
        'spent", "retry_after": 12}}',
    ),
    (
        404,
        '{"error": {"code": "not_found", "message": "no signal sig_0042 at '
        '/v1/signals/sig_0042; see /v1/themes and /v1/entities/openai"}}',
    ),
    (
        400,
        "<html><head><title>400 Request Header Or Cookie Too Large</title></head><body>"
        "<center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>",
    ),
    (414, "<html><head><title>414 Request-URI Too Large</title></head></html>"),
]

UNSAFE = [
    ("rate-limit storage redis://:pw@10.0.0.5:6379/0 failed", "a Redis URL"),
    ("not rolled back: s3://aimi-snapshots/aimi: denied", "an s3:// URL"),
    ("Could not connect to the endpoint URL: http://127.0.0.1:40123/aimi", "a loopback address"),
    ("connection to localhost:6379 refused", "a loopback address"),
    ("[Errno 28] No space left on device: '/tmp/aimi-fault-test/run-x/b/snapshots'", "a file path"),
    ("cannot read /work/shared/data/x.json", "a file path"),
    ("FileNotFoundError: /var/lib/aimi/keys.json", "a file path"),
    ("the key aimi_k42_" + "A" * 43 + " is revoked", "an API key"),
    ("webhook whsec_" + "b" * 43 + " refused", "a webhook secret"),
    ("signed with AKIAIOSFODNN7EXAMPLE", "an S3 access key id"),
    ("login failed: password=hunter2", "a credential written out"),
    ("X-Admin-Secret: s3cr3t expected", "a credential written out"),
]


@pytest.mark.parametrize(("status", "body"), LEGITIMATE)
def test_legitimate_error_bodies_pass_the_scan(status: int, body: str) -> None:
    assert unsafe_in_answer(status, body, secrets=("hunter2",), paths=("/tmp/run-1",)) == []


@pytest.mark.parametrize(("body", "kind"), UNSAFE)
def test_an_error_body_naming_a_url_path_or_key_is_caught(body: str, kind: str) -> None:
    for status in (400, 401, 429, 500, 503):
        assert kind in unsafe_in_answer(status, body), (status, body)
    # a 2xx body is not scanned for the patterns (a snapshot may hold any text), only secrets
    assert unsafe_in_answer(200, body) == []


def test_the_run_s_own_folders_are_caught_in_an_error_body() -> None:
    paths = ("/srv/aimi/run-7/b",)
    found = unsafe_in_answer(500, "pull failed under /srv/aimi/run-7/b/snapshots", paths=paths)
    assert "a path of the run's data dirs" in found
    assert unsafe_in_answer(500, "pull failed", paths=paths) == []


def _held(**dirs: tuple[str | None, int, list[str]]) -> Held:
    return Held(dict(dirs))


def test_a_case_s_after_is_asserted() -> None:
    one = "20261201-20261201T192600123456-abcdef012345"
    two = "20261201-20261201T192700123456-abcdef012345"
    before = _held(builder=(one, 3, []), a=(one, 2, []), b=(one, 2, []), store=(one, 4, []))
    same = _held(builder=(two, 4, []), a=(two, 3, []), b=(two, 3, []), store=(two, 5, []))
    assert after_checks("store", before, same) == []  # one publish: one snapshot more
    assert after_checks("redis", before, same) == ["after: the store holds 1 snapshots more, not 0"]
    assert after_checks("tamper", before, same, skipped=False)  # 2 expected, 1 added
    split = _held(builder=(two, 4, []), a=(two, 3, []), b=(one, 3, []), store=(two, 5, []))
    assert any("not one snapshot everywhere" in f for f in after_checks("store", before, split))
    left = _held(
        builder=(two, 4, [".staging-x"]), a=(two, 3, []), b=(two, 3, []), store=(two, 5, [])
    )
    assert after_checks("store", before, left) == [
        "after: builder holds temporary folders ['.staging-x']"
    ]
    # a skipped case must leave the store as it was
    assert after_checks("disk", before, before, skipped=True) == []
    assert after_checks("disk", before, same, skipped=True)
    assert "builder 20261201T192700 (4 snapshots)" in same.text()
    assert same.text().endswith("; store 20261201T192700 (5 snapshots)")


def test_the_store_kill_points_are_told_apart_on_a_real_s3_server() -> None:
    # moto's S3 server (the arrangement's store): the upload (objects, no manifest), then the
    # pointer move (manifest stored, CURRENT elsewhere), then neither (CURRENT moved)
    staged = "20261201-20261201T192700123456-abcdef012345"
    with moto_server() as server:
        client = server.client()
        store = ObjectStore(f"s3://{server.bucket}/aimi", client=client)
        key = store.url.key

        def put(name: str, body: bytes) -> None:
            client.put_object(Bucket=server.bucket, Key=name, Body=body)

        assert _store_point(store, staged, "upload") is None  # nothing yet
        put(key("CURRENT"), b"20261201-old-x\n")
        put(key("snapshots", staged, "pack.bin"), b"x")
        assert _store_point(store, staged, "upload") == (
            "1 objects of 20261201T192700 on the store, no manifest"
        )
        assert _store_point(store, staged, "pointer") is None
        put(key("snapshots", staged, "manifest.json"), b"{}")
        assert _store_point(store, staged, "upload") is None
        assert _store_point(store, staged, "pointer") == (
            "manifest of 20261201T192700 stored, the store's CURRENT not yet moved"
        )
        put(key("CURRENT"), (staged + "\n").encode())
        assert _store_point(store, staged, "pointer") is None


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


def test_the_named_groups_cover_every_case_once() -> None:
    """Issue 46: the matrix is split into groups that each fit 10 minutes on 2 cores;
    `--cases serving` runs a group's cases in order, names and groups mix."""
    from tests.harness.fault_matrix import CASES, GROUPS, _named_cases

    grouped = [case for cases in GROUPS.values() for case in cases]
    assert sorted(grouped) == sorted(CASES) and len(set(grouped)) == len(grouped)
    assert _named_cases("serving") == list(GROUPS["serving"])
    assert _named_cases("build-store, redis") == ["build-kill-store", "redis"]
    # the whole build-kill case is its two halves
    assert _named_cases("build-kill") == ["build-kill-local", "build-kill-store"]
