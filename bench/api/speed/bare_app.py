"""The yardstick for ``bench/api``: a bare FastAPI app with one ``async def`` endpoint that
serializes a dict with orjson, no auth, no rate limit, no snapshot. ``AIMI_BENCH_PAYLOAD`` names
a JSON file whose object ``/bare`` returns (the bench passes a real entity profile, so both
bodies have the same size), or a folder: then ``/bare/{name}`` returns ``<folder>/<name>.json``
(``bench/api/speed/signals.py`` passes one body per signal-list request).

Run: uvicorn --factory bench.api.speed.bare_app:create_app (the bench does it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.responses import Response


def create_app() -> FastAPI:
    source = Path(os.environ["AIMI_BENCH_PAYLOAD"])
    app = FastAPI()
    if source.is_dir():
        payloads: dict[str, Any] = {
            path.stem: orjson.loads(path.read_bytes()) for path in source.glob("*.json")
        }

        @app.get("/bare/{name}")
        async def bare_named(name: str) -> Response:
            return Response(orjson.dumps(payloads[name]), media_type="application/json")

        return app
    payload: Any = orjson.loads(source.read_bytes())

    @app.get("/bare")
    async def bare() -> Response:
        return Response(orjson.dumps(payload), media_type="application/json")

    return app
