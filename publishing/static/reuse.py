"""Incremental publishing: a file of the new snapshot's site whose bytes are those of the same
file in the previous snapshot is hard-linked from there instead of written, and a page whose
inputs did not change is not rendered again.

Snapshots are immutable folders, so two of them may share a file, and a hard link outlives the
pruning of the older one. A previous file is linked only once its bytes are checked (against
the new body, or against the previous manifest's XXH3-128 for a page that was not rendered), so
a damaged file is written afresh instead of being carried into the new manifest. The inputs of
every page are recorded in ``<snapshot>/site-inputs.json`` (beside ``site/``, so not exported),
for the next build to compare with.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import xxhash

from warehouse.snapshot import SITE_DIR, SITE_INPUTS_FILE, SnapshotError, open_snapshot

if TYPE_CHECKING:
    from jinja2 import Environment

PAGEFIND_DIR = "pagefind"
INDEXED_MARK = b"data-pagefind-body"  # the pages Pagefind indexes carry it


def digest(body: bytes) -> str:
    """XXH3-128 of ``body``, as the manifest writes it."""
    return xxhash.xxh3_128_hexdigest(body)


def renderer_digest() -> str:
    """What every page's bytes depend on besides its data: this package's code, templates and
    style sheet, and the template engine's version. A change to any of them renders every page
    again."""
    package = Path(__file__).parent
    hashed = xxhash.xxh3_128()
    for name in ("jinja2", "markupsafe"):
        hashed.update(f"{name}=={importlib.metadata.version(name)}\n".encode())
    for file in sorted(package.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            hashed.update(file.relative_to(package).as_posix().encode() + b"\0")
            hashed.update(file.read_bytes())
    return hashed.hexdigest()


class PageKeys:
    """The key of a page: a digest of the renderer, of the values every template is given
    (``env``'s plain globals: figures such as the significance level come from outside this
    package) and of everything its template is given. Equal keys render equal bytes."""

    def __init__(self, env: Environment) -> None:
        values = {name: v for name, v in env.globals.items() if not callable(v)}
        shared = orjson.dumps(values, option=orjson.OPT_SORT_KEYS, default=str)
        self.renderer = digest(renderer_digest().encode() + b"\0" + shared)
        self._sets: dict[int, tuple[object, list[Any]]] = {}

    def key(self, template: str, context: Mapping[str, Any]) -> str:
        body = orjson.dumps(context, default=self._plain, option=orjson.OPT_PASSTHROUGH_DATACLASS)
        return digest(f"{self.renderer}\0{template}\0".encode() + body)

    def _plain(self, value: object) -> object:
        if isinstance(value, set | frozenset):
            # the same set (the entities with a page) is in every page: sort it once
            held = self._sets.get(id(value))
            if held is None or held[0] is not value:
                held = self._sets[id(value)] = (value, sorted(value))
            return held[1]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return repr(value)  # every field, floats as repr (orjson would write NaN as null)
        raise TypeError(f"a page's context holds a {type(value).__name__}, which has no key")


@dataclasses.dataclass(frozen=True)
class PreviousSite:
    """The site of the snapshot published before: where it is, the XXH3-128 of each of its
    files by site-relative path (from its manifest), its pages' keys and its Pagefind key."""

    root: Path
    checksums: dict[str, str]
    page_keys: dict[str, str]
    pagefind_key: str

    @classmethod
    def load(cls, folder: Path | None) -> PreviousSite | None:
        """The site in snapshot ``folder``; None when there is none to reuse (no folder, an
        older format, no site, no XXH3 in its manifest)."""
        if folder is None or not folder.is_dir():
            return None
        try:
            manifest = open_snapshot(folder, verify=False).manifest
        except SnapshotError:
            return None
        prefix = f"{SITE_DIR}/"
        checksums = {
            name.removeprefix(prefix): entry.xxh3
            for name, entry in manifest.files.items()
            if name.startswith(prefix) and entry.xxh3
        }
        if not checksums:
            return None
        inputs: dict[str, Any] = {}
        record = folder / SITE_INPUTS_FILE
        sealed = manifest.files.get(SITE_INPUTS_FILE)
        if sealed is not None and record.is_file():
            body = record.read_bytes()
            if digest(body) == sealed.xxh3:
                inputs = json.loads(body)
        pages, pagefind = inputs.get("pages", {}), inputs.get("pagefind", "")
        return cls(folder / SITE_DIR, checksums, pages, pagefind)

    def intact(self, path: str) -> bytes | None:
        """The bytes of the previous ``path`` when they are what its manifest sealed."""
        expected = self.checksums.get(path)
        if expected is None:
            return None
        try:
            with open(os.path.join(self.root, path), "rb") as file:
                body = file.read()
        except OSError:
            return None
        return body if digest(body) == expected else None


class SiteWriter:
    """Writes the files of a new site under ``root``, linking each one from ``previous``
    whose bytes are the same; counts what it linked and rendered, and records page keys."""

    def __init__(self, root: Path, previous: PreviousSite | None) -> None:
        self.root = root
        self.previous = previous
        self.linked = 0
        self.rendered = 0
        self.page_keys: dict[str, str] = {}
        self.indexed: dict[str, str] = {}  # the pages Pagefind reads: path -> digest
        self._folders: set[str] = set()

    def put(self, path: str, body: bytes) -> None:
        """Write ``body`` at ``path``, or link the previous file when it holds these bytes."""
        previous = self.previous
        value = None if previous is None else digest(body)
        if previous is not None and previous.checksums.get(path) == value:
            try:
                with open(os.path.join(previous.root, path), "rb") as file:
                    same = file.read() == body
            except OSError:
                same = False
            if same and self._link(path):
                self._note(path, body, value)
                return
        with open(self._target(path), "wb") as file:
            file.write(body)
        self._note(path, body, value)

    def page(self, path: str, key: str, render: Callable[[], bytes]) -> None:
        """The page at ``path``: linked when the previous one had the same key (and is intact),
        else rendered by ``render`` and ``put``."""
        self.page_keys[path] = key
        previous = self.previous
        if previous is not None and previous.page_keys.get(path) == key:
            body = previous.intact(path)
            if body is not None and self._link(path):
                self._note(path, body, previous.checksums[path])  # intact: its sealed digest
                return
        self.rendered += 1
        self.put(path, render())

    def pagefind_key(self) -> str:
        """What Pagefind's index depends on: its version and the indexed pages' bytes."""
        listed = "\n".join(f"{path} {value}" for path, value in sorted(self.indexed.items()))
        version = importlib.metadata.version("pagefind")
        return digest(f"pagefind=={version}\n{listed}".encode())

    def link_pagefind(self, key: str) -> bool:
        """Link the previous Pagefind index when it was built from the same pages, every file
        of it intact; False (nothing linked) otherwise."""
        previous = self.previous
        if previous is None or previous.pagefind_key != key:
            return False
        prefix = f"{PAGEFIND_DIR}/"
        files = [path for path in previous.checksums if path.startswith(prefix)]
        if not files or any(previous.intact(path) is None for path in files):
            return False
        linked = [path for path in files if self._link(path)]
        if len(linked) != len(files):
            for path in linked:
                os.unlink(os.path.join(self.root, path))
            self.linked -= len(linked)
            return False
        return True

    def record(self, folder: Path, pagefind_key: str) -> None:
        """Write the page keys and the Pagefind key beside the site, for the next build."""
        body = {"pages": dict(sorted(self.page_keys.items())), "pagefind": pagefind_key}
        (folder / SITE_INPUTS_FILE).write_bytes(orjson.dumps(body) + b"\n")

    def _note(self, path: str, body: bytes, value: str | None) -> None:
        """Record an indexed page's digest (``value`` when the caller has it already)."""
        if path.endswith(".html") and INDEXED_MARK in body:
            self.indexed[path] = digest(body) if value is None else value

    def _target(self, path: str) -> str:
        """The new file's path as a string (pathlib costs more than the write itself)."""
        folder, _, _ = path.rpartition("/")
        if folder not in self._folders:
            os.makedirs(os.path.join(self.root, folder), exist_ok=True)
            self._folders.add(folder)
        return os.path.join(self.root, path)

    def _link(self, path: str) -> bool:
        """Hard-link the previous ``path`` into the new site; False when the file system
        refuses (another device, too many links), and the caller writes it instead."""
        assert self.previous is not None
        try:
            os.link(os.path.join(self.previous.root, path), self._target(path))
        except OSError:
            return False
        self.linked += 1
        return True
