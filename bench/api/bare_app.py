"""The yardstick for ``bench/api``: a bare FastAPI app with one ``async def`` endpoint that
serializes a dict with orjson, no auth, no rate limit, no snapshot. ``AIMI_BENCH_PAYLOAD`` names
a JSON file whose object it returns (the bench passes a real entity profile, so both bodies have
the same size).

Run: uvicorn --factory bench.api.bare_app:create_app (the bench does it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.responses import Response


def create_app() -> FastAPI:
    payload: Any = orjson.loads(Path(os.environ["AIMI_BENCH_PAYLOAD"]).read_bytes())
    app = FastAPI()

    @app.get("/bare")
    async def bare() -> Response:
        return Response(orjson.dumps(payload), media_type="application/json")

    return app
