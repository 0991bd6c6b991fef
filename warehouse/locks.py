"""Inter-process locks on the data dir, so two builds never interleave their publishes."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager

from warehouse.paths import DataDir


@contextmanager
def publish_lock(data: DataDir) -> Iterator[None]:
    """Held while a build numbers changes and publishes a snapshot; a second build waits."""
    data.root.mkdir(parents=True, exist_ok=True)
    with (data.root / ".publish.lock").open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
