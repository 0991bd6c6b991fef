"""The version of the /v1 contract that ``/v1/health`` and the MCP server report (docs/api.md §9),
not the package version."""

from __future__ import annotations

API_VERSION = "0.1.0"
