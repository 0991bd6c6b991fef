"""``aimi serve --site``: the current snapshot's static site under ``/site/``, following the
snapshot pointer as the API does, with no API key (it publishes what the site shows)."""

from __future__ import annotations

import os

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from readmodel.store import SnapshotStore
from serving.app import create_app
from warehouse.snapshot import SITE_DIR

SITE_PREFIX = "/site"


class SnapshotSite(StaticFiles):
    """Static files from ``<current snapshot>/site/``, looked up per request: a request keeps
    the snapshot it started with, and a swap needs no remount. 503 while no snapshot is
    loaded, as the API answers."""

    def __init__(self, store: SnapshotStore) -> None:
        super().__init__(html=True, check_dir=False)
        self.store = store

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if path.startswith(("/", "\\")):
            return "", None
        directory = os.path.realpath(self.store.require().path / SITE_DIR)
        full_path = os.path.realpath(os.path.join(directory, path))
        # a path that leaves the site folder ("../manifest.json") is not found
        if os.path.commonpath([full_path, directory]) != directory:
            return "", None
        try:
            return full_path, os.stat(full_path)
        except (FileNotFoundError, NotADirectoryError):
            return "", None


def mount_site(app: FastAPI) -> FastAPI:
    """``app`` with the site mounted at ``/site``; its snapshots' site files are verified
    before each swap, as the API's tables are."""
    app.state.store.verify_site = True
    app.mount(SITE_PREFIX, SnapshotSite(app.state.store), name="site")
    return app


def create_app_with_site() -> FastAPI:
    """The uvicorn factory ``aimi serve --site`` runs: the API plus the site."""
    return mount_site(create_app())
