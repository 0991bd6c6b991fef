"""The static JSON tree: one file per entity profile, theme, theme list, trending list and
signal detail, each byte for byte what the API answers for the same request.

Paths, relative to the site's root (``<snapshot>/site/``), with ids encoded by
``serving.static.paths``:

| file | the API request it answers |
|---|---|
| ``json/v1/themes.json`` | ``GET /v1/themes`` |
| ``json/v1/themes/<axis>.json`` | ``GET /v1/themes?axis=<axis>`` |
| ``json/v1/themes/<axis>/<label>.json`` | ``GET /v1/themes/<axis>/<label>`` |
| ``json/v1/entities/trending/<mode>.json`` | ``GET /v1/entities/trending?mode=<mode>`` (limit 25) |
| ``json/v1/entities/trending/<mode>.limit-50.json`` | the same with ``limit=50`` |
| ``json/v1/entities/<entity_id>.json`` | ``GET /v1/entities/<entity_id>`` |
| ``json/v1/signals/<signal_id>.json`` | ``GET /v1/signals/<signal_id>`` |

Every body comes from the service function the route calls (``serving.service``), over the
snapshot's pre-rendered bytes, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from analytics.themes import AXES, THEME_LABELS
from analytics.trends import MODES
from serving import service
from serving.static.paths import JSON_ROOT, encode_segment
from serving.static.reuse import SiteWriter
from serving.store import LoadedSnapshot


@dataclass(frozen=True)
class TreeFile:
    path: str  # relative to the site root, "/"-separated
    body: bytes


def tree_files(snapshot: LoadedSnapshot) -> Iterator[TreeFile]:
    """Every file of the tree, in a stable order: theme lists, themes, trending, entities,
    signals."""
    yield TreeFile(f"{JSON_ROOT}/themes.json", service.list_themes(snapshot, None))
    for axis in AXES:
        yield TreeFile(f"{JSON_ROOT}/themes/{axis}.json", service.list_themes(snapshot, axis))
    for axis in AXES:
        for label in THEME_LABELS[axis]:
            yield TreeFile(theme_json_path(axis, label), service.get_theme(snapshot, axis, label))
    for mode in MODES:
        for limit, suffix in ((service.DEFAULT_LIMIT, ""), (service.MAX_LIMIT, ".limit-50")):
            yield TreeFile(
                f"{JSON_ROOT}/entities/trending/{mode}{suffix}.json",
                service.trending_entities(snapshot, mode, limit=limit),
            )
    for entity_id in snapshot.entities.entity_ids:
        yield TreeFile(entity_json_path(entity_id), service.entity_profile(snapshot, entity_id))
    for signal_id in snapshot.signal_ids:
        yield TreeFile(signal_json_path(signal_id), service.get_signal(snapshot, signal_id))


def entity_json_path(entity_id: str) -> str:
    return f"{JSON_ROOT}/entities/{encode_segment(entity_id)}.json"


def signal_json_path(signal_id: str) -> str:
    return f"{JSON_ROOT}/signals/{encode_segment(signal_id)}.json"


def theme_json_path(axis: str, label: str) -> str:
    return f"{JSON_ROOT}/themes/{axis}/{encode_segment(label)}.json"


def write_tree(snapshot: LoadedSnapshot, writer: SiteWriter) -> int:
    """Put every ``tree_files`` file through ``writer`` (written, or linked when unchanged);
    returns how many there were."""
    files = 0
    for item in tree_files(snapshot):
        writer.put(item.path, item.body)
        files += 1
    return files
