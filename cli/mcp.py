"""``aimi mcp``: the MCP server (``serving.mcp``) over stdio, for a local MCP client."""

from __future__ import annotations

import logging
import sys

from cli.common import DataDirOption, data_dir_of


def mcp(data_dir: DataDirOption = None) -> None:
    """The MCP server over stdio, for a local MCP client: the tools /mcp serves, over the
    current snapshot (followed like `aimi serve` does), without an API key."""
    from threadpoolctl import threadpool_limits

    from readmodel.store import SnapshotStore
    from retrieval.query_embedder import QueryEmbedder
    from serving.mcp import create_mcp_server
    from warehouse.settings import load_settings

    # stdout is the protocol: everything else (logs, warnings) goes to stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    threadpool_limits(1, user_api="blas")
    data = data_dir_of(data_dir)
    store = SnapshotStore(data, poll_seconds=load_settings().snapshot_poll_seconds)
    store.start()
    embedder = QueryEmbedder()
    embedder.warm()
    try:
        create_mcp_server(store.require, embedder).run("stdio")
    finally:
        store.stop()
