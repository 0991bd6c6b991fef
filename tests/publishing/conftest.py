"""The small published snapshot of the serving tests (``tests/serving/conftest.py``), for the
publishing tests that read one."""

from __future__ import annotations

from tests.serving.conftest import corpus, fresh_root

__all__ = ["corpus", "fresh_root"]
