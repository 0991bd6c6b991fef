"""The static JSON tree: one file per entity profile, theme, theme list, trending list, signal
detail, story and page of the story list, each byte for byte what the API answers for the same
request.

Paths, relative to the site's root (``<snapshot>/site/``), with ids encoded by
``publishing.static.paths``:

| file | the API request it answers |
|---|---|
| ``json/v1/themes.json`` | ``GET /v1/themes`` |
| ``json/v1/themes/<axis>.json`` | ``GET /v1/themes?axis=<axis>`` |
| ``json/v1/themes/<axis>/<label>.json`` | ``GET /v1/themes/<axis>/<label>`` |
| ``json/v1/entities/trending/<mode>.json`` | ``GET /v1/entities/trending?mode=<mode>`` (limit 25) |
| ``json/v1/entities/trending/<mode>.limit-50.json`` | the same with ``limit=50`` |
| ``json/v1/entities/<entity_id>.json`` | ``GET /v1/entities/<entity_id>`` |
| ``json/v1/signals/<signal_id>.json`` | ``GET /v1/signals/<signal_id>`` |
| ``json/v1/stories.json`` | ``GET /v1/stories`` (limit 25) |
| ``json/v1/stories/pages/<n>.json`` | page ``n`` of ``GET /v1/stories?limit=50`` (below) |
| ``json/v1/stories/<story_id>.json`` | ``GET /v1/stories/<story_id>`` |

Page 1 of the story list is asked for without a cursor, page ``n + 1`` with page ``n``'s
``next_cursor``, so a static reader pages by file number and an API client by the cursor.

Every body comes from the service function the route calls (``readmodel.service``), over the
snapshot's pre-rendered bytes, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import orjson

from analytics.themes import AXES, THEME_LABELS
from analytics.trends import MODES
from publishing.static.paths import JSON_ROOT, encode_segment
from publishing.static.reuse import SiteWriter
from readmodel import service
from readmodel.store import LoadedSnapshot


@dataclass(frozen=True)
class TreeFile:
    path: str  # relative to the site root, "/"-separated
    body: bytes


def tree_files(snapshot: LoadedSnapshot) -> Iterator[TreeFile]:
    """Every file of the tree, in a stable order: theme lists, themes, trending, entities,
    signals, story lists, stories."""
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
    yield TreeFile(f"{JSON_ROOT}/stories.json", service.list_stories(snapshot))
    yield from story_pages(snapshot)
    for story_id in snapshot.stories.story_ids:
        yield TreeFile(story_json_path(story_id), service.get_story(snapshot, story_id))


def story_pages(snapshot: LoadedSnapshot) -> Iterator[TreeFile]:
    """Every page of ``GET /v1/stories?limit=50``, followed by its cursors, as
    ``stories/pages/<n>.json`` (n from 1; a snapshot without stories has page 1, empty)."""
    cursor: str | None = None
    number = 1
    while True:
        body = service.list_stories(snapshot, cursor=cursor, limit=service.MAX_LIMIT)
        yield TreeFile(story_list_page_path(number), body)
        cursor = orjson.loads(body)["next_cursor"]
        if cursor is None:
            return
        number += 1


def story_list_page_path(number: int) -> str:
    return f"{JSON_ROOT}/stories/pages/{number}.json"


def story_json_path(story_id: str) -> str:
    return f"{JSON_ROOT}/stories/{encode_segment(story_id)}.json"


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
