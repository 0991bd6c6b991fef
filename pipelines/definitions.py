"""The one Dagster entry point: every stage's assets, checks and resources."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.analytics.assets import (
    claim_links_table,
    entity_profiles,
    entity_trends,
    stories,
    theme_profiles,
    theme_trends,
)
from pipelines.defs.analytics.checks import entity_trends_hold, stories_hold, theme_trends_hold
from pipelines.defs.automation.jobs import daily_refresh, inbox_sensor, refresh_job
from pipelines.defs.automation.sources import fetch_job, sources_sensor
from pipelines.defs.decompose.assets import signals, units
from pipelines.defs.decompose.checks import unit_rejection_rate_is_low
from pipelines.defs.ingest.assets import ingest
from pipelines.defs.ingest.checks import quarantine_rate_is_low
from pipelines.defs.notify.assets import (
    deliver_job,
    publish_sensor,
    retry_sensor,
    webhook_deliveries,
)
from pipelines.defs.publish.assets import snapshot, static_site
from pipelines.defs.publish.checks import (
    profiles_agree_with_cards,
    served_signals_are_complete,
    snapshot_verifies,
)
from pipelines.defs.search.assets import unit_embeddings
from pipelines.defs.sources.assets import fetched_items
from pipelines.defs.sources.resource import FetchResource
from pipelines.defs.tag.assets import entity_mentions, signal_themes
from pipelines.resources import AimiResource

# Every warehouse table is an asset (docs/warehouse.md lists them); a step that writes several
# tables is one multi-asset, so the graph never computes a table twice: `sources` (with
# quarantine and ingest_log), `units` (with extracted_units, extractions, unit_rejections and
# llm_answers), `entity_mentions` (entities, signal_entities, unit_entities), `entity_trends`
# and `theme_trends` (with their weekly counts and co-occurrence, and entity_tag_mix), and
# `snapshot` (with change_state).
ASSETS = [
    ingest,
    signals,
    units,
    entity_mentions,
    signal_themes,
    entity_trends,
    theme_trends,
    entity_profiles,
    theme_profiles,
    unit_embeddings,
    stories,
    claim_links_table,
    snapshot,
    static_site,
]
CHECKS = [
    quarantine_rate_is_low,
    unit_rejection_rate_is_low,
    snapshot_verifies,
    served_signals_are_complete,
    profiles_agree_with_cards,
    entity_trends_hold,
    theme_trends_hold,
    stories_hold,
]

# Run after a publish, in their own job: never part of a build or a refresh
NOTIFY_ASSETS = [webhook_deliveries]
# One partition per followed source, fetched into the inbox when due (`sources_sensor`); the
# inbox sensor's refresh ingests what they fetched, so they are never part of a build either
SOURCE_ASSETS = [fetched_items]

defs = dg.Definitions(
    assets=[*ASSETS, *NOTIFY_ASSETS, *SOURCE_ASSETS],
    # One process per run, as `aimi build` runs: a step in its own process re-imports this
    # module and reloads MiniLM, which made a UI run of the empty graph take minutes instead of
    # seconds; two cores gain nothing from running the few independent steps side by side.
    executor=dg.in_process_executor,
    asset_checks=CHECKS,
    jobs=[refresh_job, deliver_job, fetch_job],
    schedules=[daily_refresh],
    sensors=[inbox_sensor, publish_sensor, retry_sensor, sources_sensor],
    resources={"aimi": AimiResource(), "fetch": FetchResource()},
)
