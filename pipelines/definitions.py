"""The one Dagster entry point: every stage's assets, checks and resources."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.analytics.assets import (
    entity_profiles,
    entity_trends,
    theme_profiles,
    theme_trends,
)
from pipelines.defs.analytics.checks import entity_trends_hold, theme_trends_hold
from pipelines.defs.automation.jobs import daily_refresh, inbox_sensor, refresh_job
from pipelines.defs.decompose.assets import signals, units
from pipelines.defs.ingest.assets import sources
from pipelines.defs.publish.assets import snapshot, static_site
from pipelines.defs.publish.checks import (
    profiles_agree_with_cards,
    served_signals_are_complete,
    snapshot_verifies,
)
from pipelines.defs.search.assets import unit_embeddings
from pipelines.defs.tag.assets import entity_mentions, signal_themes
from pipelines.resources import AimiResource

ASSETS = [
    sources,
    signals,
    units,
    entity_mentions,
    signal_themes,
    entity_trends,
    theme_trends,
    entity_profiles,
    theme_profiles,
    unit_embeddings,
    snapshot,
    static_site,
]
CHECKS = [
    snapshot_verifies,
    served_signals_are_complete,
    profiles_agree_with_cards,
    entity_trends_hold,
    theme_trends_hold,
]

defs = dg.Definitions(
    assets=ASSETS,
    # One process per run, as `aimi build` runs: a step in its own process re-imports this
    # module and reloads MiniLM, which made a UI run of the empty graph take minutes instead of
    # seconds; two cores gain nothing from running the few independent steps side by side.
    executor=dg.in_process_executor,
    asset_checks=CHECKS,
    jobs=[refresh_job],
    schedules=[daily_refresh],
    sensors=[inbox_sensor],
    resources={"aimi": AimiResource()},
)
