"""The fetch runs' resource: where the data dir is, and nothing else.

Not ``AimiResource``, on purpose: that one holds the data dir's build lock for the whole run,
and a fetch writes only the inbox and the fetcher's own state and archive, never a table or a
snapshot. A run of ``fetched_items`` alone needs only this resource, so Dagster never starts
``AimiResource`` for it: a slow site never delays a build, and a build never delays a fetch.
The ``refresh`` run the inbox sensor then starts ingests the files under the lock."""

from __future__ import annotations

import dagster as dg

from warehouse.paths import DataDir


class FetchResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """The data dir of the sources to fetch: ``data_dir``, else ``AIMI_DATA_DIR``, else
    ``./data``. The fetcher's settings (``AIMI_FETCH_*``) come from the environment."""

    data_dir: str = ""

    def data(self) -> DataDir:
        return DataDir.from_env(self.data_dir or None)
