"""The small published snapshot of the serving tests (``tests/serving/conftest.py``), for the
read model's tests that load one."""

from __future__ import annotations

from tests.serving.conftest import corpus, shared_root

__all__ = ["corpus", "shared_root"]
