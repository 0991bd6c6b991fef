"""The project's product packages, lowest layer first (docs/design.md §2): the one list the
structure tests walk."""

from __future__ import annotations

PRODUCT_PACKAGES = (
    "analytics",
    "warehouse",
    "retrieval",
    "fetch",
    "readmodel",
    "publishing",
    "pipelines",
    "serving",
    "demo",
    "cli",
)
