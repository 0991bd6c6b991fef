"""The scale-out test (docs/design.md §11) end to end, as `make scale-test` runs it, on the small
corpus: moto's S3 server, redis-server, two `aimi serve` replicas of two workers behind nginx, a new
snapshot published under load. tests/harness/scale_out.py does the checks (no failed request, both
replicas on the new snapshot within 10 s, exactly 500 of a 500-per-minute key admitted across
the replicas) and prints one summary line; this test runs it and reads that line.

Skips only when nginx or redis-server is not installed (`make test` installs both first:
scripts/ensure-nginx, scripts/ensure-redis)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serving.conftest import Corpus, publish

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "harness" / "scale_out.py"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_replicas_behind_nginx_converge_and_share_one_quota(
    tmp_path: Path, corpus: Corpus
) -> None:
    for tool in ("nginx", "redis-server"):
        if shutil.which(tool, path=f"{os.environ.get('PATH', '')}:/usr/sbin") is None:
            pytest.skip(f"{tool} is not installed (scripts/ensure-{tool.split('-')[0]})")
    builder = tmp_path / "builder"
    publish(builder, corpus.tables)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--builder", str(builder), "--publish", "copy"]
        + ["--work", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and len(lines) == 1, done.stdout + done.stderr[-4000:]
    summary = lines[0]
    assert summary.startswith("scale-test: ok | "), summary
    assert re.search(r"requests through nginx in \d+ s, 0 failed", summary), summary
    converged = [float(s) for s in re.findall(r"\b[ab] (\d+\.\d) s", summary)]
    assert len(converged) == 2 and max(converged) <= 10.0, summary
    assert re.search(r"quota 500/min: 500 admitted \(\d+\+\d+ by replica\), 100 refused", summary)
    assert not list((tmp_path / "work").glob("run-*")), "a passing run leaves no folder behind"
