"""The sources group: ``fetched_items``, one dynamic partition per source of
``<data dir>/sources.yaml``. Materializing a partition fetches that source now (``fetch.run``):
its new and changed items land in ``<data dir>/inbox/fetched/<source>/`` and the inbox sensor
starts ``refresh``, which ingests them (the ``sources`` table keeps one writer). The partition's
materialization records the fetch's counts and a table of the items that failed; a source whose
feed cannot be read at all fails its partition (docs/dagster.md, "The sources group")."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from datetime import UTC, datetime
from urllib.parse import urlsplit

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from fetch.run import FetchReport, FetchRun, SourceReport, next_due, source_folder
from fetch.sources import Source, SourceListError, load_sources
from fetch.state import FetchState
from pipelines.defs.sources.resource import FetchResource
from pipelines.metadata import native_table
from warehouse.paths import DataDir
from warehouse.settings import load_settings

SOURCES_GROUP = "sources"
FETCH_ASSET = "fetched_items"
FETCH_JOB = "fetch_sources"
# One partition per source name; `sources_sensor` keeps the set equal to sources.yaml's.
SOURCE_PARTITIONS_NAME = "sources"
SOURCE_PARTITIONS = dg.DynamicPartitionsDefinition(name=SOURCE_PARTITIONS_NAME)
# the failures a materialization lists (all of them are counted; the run log has the first ones)
MAX_FAILURE_ROWS = 100
MAX_LOGGED_FAILURES = 20


class UnknownSourceError(dg.Failure):
    """A partition whose source is no longer in sources.yaml (removed since the run was
    requested): nothing to fetch."""


def fetch_host(source: Source) -> str:
    """The host a source's requests go to first (its feed, else its first sitemap): the
    ``aimi/fetch_host`` tag its runs carry, which the run queue limits to one at a time."""
    return urlsplit(source.feed or (source.sitemaps or (source.url,))[0]).hostname or "unknown"


def unreadable(source: Source, report: SourceReport) -> str | None:
    """Why nothing of the source could be listed, or ``None``: its feed could not be read, or
    (a source without a feed) none of its sitemaps could. Items that fail are not this."""
    if report.error:
        return report.error
    failed = {f.url: f.reason for f in report.failed}
    if not source.feed and source.sitemaps and all(s in failed for s in source.sitemaps):
        return "; ".join(f"sitemap {s}: {failed[s]}" for s in source.sitemaps)
    return None


def failures_table(report: SourceReport) -> dg.TableMetadataValue:
    """The items that failed, URL and reason (``transient``: a timeout or a server error,
    tried again on the next fetch; otherwise tried again only when the feed says the item
    changed)."""
    frame = pl.DataFrame(
        {
            "url": [f.url for f in report.failed],
            "reason": [f.reason for f in report.failed],
            "transient": [f.transient for f in report.failed],
        },
        schema={"url": pl.String, "reason": pl.String, "transient": pl.Boolean},
    )
    return native_table(frame, max_rows=MAX_FAILURE_ROWS)


def source_metadata(
    data: DataDir, source: Source, report: SourceReport, run: FetchReport
) -> "dict[str, dg.RawMetadataValue]":
    """What a partition's materialization shows: the source, when it was fetched and when it is
    due next, the counts of this fetch, and the failures."""
    with FetchState(data) as state:
        last = state.last_run(source.name)
        held = state.item_count(source.name)
    due = next_due(source, last)
    metadata: dict[str, dg.RawMetadataValue] = {
        # items of this source fetched and kept over all its fetches (`aimi sources list`)
        "dagster/row_count": held,
        "url": dg.MetadataValue.url(source.url),
        "feed": source.feed or "",
        "sitemaps": len(source.sitemaps),
        "kind": source.kind,
        "every": source.every,
        "fetched_at": dg.MetadataValue.timestamp(last.started_at if last else datetime.now(UTC)),
        "next_due": dg.MetadataValue.timestamp(due) if due else "now",
        "items": report.items,
        "new": report.new,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "failed": len(report.failed),
        "error": unreadable(source, report) or "",
        "failures": failures_table(report),
        "inbox": dg.MetadataValue.path(str(source_folder(data, source.name))),
    }
    if len(run.sources) == 1:
        # the run's HTTP figures are this source's when it fetched nothing else
        metadata |= {
            "requests": run.requests,
            "not_modified": run.not_modified,
            "bytes": run.bytes,
            "seconds": round(run.seconds, 2),
        }
    if run.archive is not None:
        metadata["archive"] = dg.MetadataValue.path(str(run.archive))
    return metadata


@dg.asset(
    name=FETCH_ASSET,
    group_name=SOURCES_GROUP,
    partitions_def=SOURCE_PARTITIONS,
    description=(
        "The items of one followed source (a partition per entry of `<data dir>/sources.yaml`: "
        "`aimi sources add|remove`), fetched politely into `<data dir>/inbox/fetched/<source>/` "
        "(robots.txt obeyed, one request at a time per host, conditional GET; every kept "
        "response archived as WARC). Materializing a partition fetches its source now; "
        "`sources_sensor` materializes each source when it is due. The files are ingested by "
        "the `refresh` run the inbox sensor then starts. Each materialization shows the "
        "fetch's counts (items, new, updated, unchanged, failed) and a table of the failed "
        "items; a source whose feed cannot be read fails its partition."
    ),
    owners=["team:data-engineering"],
    kinds={"python", "warc"},
)
def fetched_items(context: AssetExecutionContext, fetch: FetchResource) -> None:
    data = fetch.data()
    keys = context.partition_keys
    try:
        listed = load_sources(data)
    except SourceListError as exc:
        raise dg.Failure(f"sources.yaml cannot be read: {exc}") from None
    missing = [key for key in keys if listed.get(key) is None]
    if missing:
        raise UnknownSourceError(
            f"no source named {', '.join(missing)} in {data.root / 'sources.yaml'} (removed "
            f"since the run was requested?); sources: {', '.join(listed.names()) or 'none'}"
        )
    chosen = [s for s in listed.sources if s.name in keys]
    # ingest=False: the files land in the inbox and the inbox sensor's refresh ingests them,
    # so `sources` keeps one writer and a fetch never waits for (or delays) a build
    report = FetchRun(data, settings=load_settings(), progress=False).run(chosen, ingest=False)
    context.log.info("%s", report.summary())
    dead: list[str] = []
    failed_metadata: dict[str, dg.RawMetadataValue] = {}
    for source, part in zip(chosen, report.sources, strict=True):
        context.log.info(
            "%s: %d item(s), %d new, %d updated, %d unchanged, %d failed",
            source.name,
            part.items,
            part.new,
            part.updated,
            part.unchanged,
            len(part.failed),
        )
        for failure in part.failed[:MAX_LOGGED_FAILURES]:
            context.log.warning("%s: %s %s", source.name, failure.url, failure.reason)
        if len(part.failed) > MAX_LOGGED_FAILURES:
            context.log.warning(
                "%s: ... and %d more failures (the `failures` table lists up to %d)",
                source.name,
                len(part.failed) - MAX_LOGGED_FAILURES,
                MAX_FAILURE_ROWS,
            )
        metadata = source_metadata(data, source, part, report)
        why = unreadable(source, part)
        if why:
            dead.append(f"{source.name}: {why}")
            context.log.error("%s: %s", source.name, why)
            failed_metadata = metadata
        context.add_asset_metadata(metadata, partition_key=source.name)
    if dead:
        # the partition fails (red in the UI, the run failed); its last good materialization
        # stays, and the source is due again one interval after this attempt
        raise dg.Failure(
            description="the source could not be read: " + "; ".join(dead),
            # one source's run (the sensor's, a partition materialized by hand): its counts
            # and failures, shown on the failed step
            metadata={
                **(failed_metadata if len(dead) == 1 else {}),
                "error": "; ".join(dead),
            },
            allow_retries=False,
        )
