"""``aimi serve``: the /v1 API (and optionally the static site) under uvicorn, from the data
dir's current snapshot."""

from __future__ import annotations

import copy
import os
import secrets
from typing import Annotated, Any

import typer

from cli.common import DataDirOption, data_dir_of, echo
from warehouse.paths import DataDir

# uvicorn kills a worker that does not answer its supervisor's ping within 5 s; a worker
# importing torch or loading a snapshot holds the interpreter lock for longer on a busy 2-core
# machine, and with --workers 2 one of them was killed and restarted over and over (11 times
# in a minute at load average 13, docs/deployment.md)
WORKER_HEALTHCHECK_SECONDS = 60


def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to bind.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    access_log: Annotated[
        bool,
        typer.Option(
            help="Log one line per request (uvicorn's access log). It halves the requests/s "
            "of a pre-rendered resource: turn it off behind a proxy that logs.",
        ),
    ] = True,
    dev: Annotated[
        bool, typer.Option("--dev", help="Accept a development key and print it with examples.")
    ] = False,
    site: Annotated[
        bool,
        typer.Option(
            "--site",
            help="Also serve the snapshot's market-pulse site and JSON tree under /site/, "
            "without an API key (off by default: it publishes the data to anyone who can "
            "reach the port).",
        ),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Serve /v1 from the current snapshot; new snapshots are picked up without a restart."""
    import uvicorn
    from threadpoolctl import threadpool_limits

    # One BLAS thread per server process: with MiniLM and numpy each spreading over the cores,
    # a search took 95–113 ms instead of 22–28 ms on 2 cores (docs/journal/2026-11-21.md). The
    # environment variable reaches worker processes, the call this one.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    threadpool_limits(1, user_api="blas")

    data = data_dir_of(data_dir)
    os.environ["AIMI_DATA_DIR"] = str(data.root)
    if dev:
        key = _dev_key(data)
        os.environ["AIMI_DEV_API_KEY"] = key
        base = f"http://{host}:{port}"
        echo(f"\n  aimi API on {base}   development key: {key}\n")
        echo(f"  curl {base}/v1/health")
        echo(f'  curl -H "X-API-Key: {key}" "{base}/v1/signals?limit=5"')
        echo(f'  curl -H "X-API-Key: {key}" "{base}/v1/signals?content_type=event&window=2w"\n')
    if site:
        echo(f"  market-pulse site: http://{host}:{port}/site/\n")
    uvicorn.run(
        "serving.site:create_app_with_site" if site else "serving.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        log_config=_log_config(),
        access_log=access_log,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
    )


def _dev_key(data: DataDir) -> str:
    """AIMI_DEV_API_KEY, else the key kept in the data dir, else a new one kept there."""
    from warehouse.settings import load_settings

    configured = load_settings().dev_api_key
    if configured is not None and configured.get_secret_value():
        return configured.get_secret_value()
    if data.dev_key_file.exists():
        return data.dev_key_file.read_text().strip()
    key = "aimi_dev_" + secrets.token_urlsafe(24)
    data.root.mkdir(parents=True, exist_ok=True)
    data.dev_key_file.write_text(key + "\n")
    data.dev_key_file.chmod(0o600)
    return key


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, plus our ``aimi.*`` loggers (snapshot swaps and refusals) at INFO."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["aimi"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config
