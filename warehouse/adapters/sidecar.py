"""Sidecar metadata: ``<file>.meta.yaml`` / ``<file>.meta.json`` (or ``<stem>.meta.yaml``) beside a
source file supplies or overrides its record fields (kind, title, url, published_at, author,
chapters, any extra field); fields under ``defaults:`` are used only where the file itself gives
none (the fetcher writes a feed entry's title, date and link there). Sidecars are never inputs
themselves."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from warehouse.adapters.base import apply_aliases, jsonable

SIDECAR_SUFFIXES = (".meta.yaml", ".meta.yml", ".meta.json")


@dataclass(frozen=True)
class Sidecar:
    """The fields a sidecar supplies (empty when there is none) or why it could not be read."""

    fields: dict[str, Any] = field(default_factory=dict)
    # used only where the file gives no value of its own
    defaults: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    error: str | None = None


def is_sidecar(path: Path) -> bool:
    return path.name.lower().endswith(SIDECAR_SUFFIXES)


def sidecar_candidates(path: Path) -> list[Path]:
    """Where a sidecar for ``path`` may be, in order of preference."""
    by_name = [path.with_name(path.name + suffix) for suffix in SIDECAR_SUFFIXES]
    by_stem = [path.with_name(path.stem + suffix) for suffix in SIDECAR_SUFFIXES]
    return by_name + by_stem


def sidecar_hint(path: Path) -> str:
    """How to supply a missing field, for error messages."""
    return f"supply it in a sidecar file {path.name}.meta.yaml beside the file"


def load_sidecar(path: Path) -> Sidecar:
    """The first sidecar found for ``path``, with field aliases (``date``, ``link``…) applied."""
    for candidate in sidecar_candidates(path):
        if candidate.is_file():
            return _read(candidate)
    return Sidecar()


def _read(sidecar: Path) -> Sidecar:
    try:
        text = sidecar.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return Sidecar(path=sidecar, error=f"sidecar {sidecar.name} cannot be read: {exc}")
    try:
        if sidecar.suffix.lower() == ".json":
            loaded = json.loads(text) if text.strip() else {}
        else:
            loaded = yaml.safe_load(text) or {}
    except json.JSONDecodeError as exc:
        return Sidecar(
            path=sidecar,
            error=f"sidecar {sidecar.name} is not valid JSON: {exc.msg} at line {exc.lineno}",
        )
    except yaml.YAMLError as exc:
        return Sidecar(path=sidecar, error=f"sidecar {sidecar.name} is not valid YAML: {exc}")
    if not isinstance(loaded, dict):
        return Sidecar(
            path=sidecar, error=f"sidecar {sidecar.name} must be a mapping of field: value"
        )
    defaults = loaded.pop("defaults", None) or {}
    if not isinstance(defaults, dict):
        return Sidecar(
            path=sidecar,
            error=f"sidecar {sidecar.name}: defaults must be a mapping of field: value",
        )
    return Sidecar(
        fields=apply_aliases(jsonable(loaded)),
        defaults=apply_aliases(jsonable(defaults)),
        path=sidecar,
    )
