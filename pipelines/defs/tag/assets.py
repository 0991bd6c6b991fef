"""The tag group: who and what each signal is about. The ``entity_mentions`` step materializes
the three tables it writes (``entities``, ``signal_entities``, ``unit_entities``);
``signal_themes`` labels signals with the 12 themes."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from collections import Counter
from collections.abc import Iterator, Mapping

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.discovery import discover
from analytics.entities import Entity
from analytics.entity_review import (
    ACCEPTED,
    APPROVED,
    CANDIDATE,
    REGISTRY,
    EntityReviewError,
    Known,
    apply_decisions,
    reviewed_set,
    with_aliases,
)
from analytics.linking import EntityIndex, Linker
from analytics.schema import (
    ENTITIES,
    SIGNAL_ENTITIES,
    SIGNAL_THEMES,
    SIGNALS,
    UNIT_ENTITIES,
    UNITS,
)
from analytics.themes import DEFAULT_PARAMS, signal_text, tag_themes
from pipelines.chunks import Chunk, chunked_pass, fan_out, in_order
from pipelines.defs.decompose.assets import UNITS_TABLE, signals
from pipelines.metadata import (
    column_schema,
    native_table,
    table_metadata,
    warehouse_table,
)
from pipelines.resources import AimiResource, LazyEmbedder
from warehouse.entity_reviews import read_entity_reviews
from warehouse.given_names import load_given_names
from warehouse.paths import DataDir
from warehouse.registry import load_registry, registry_path
from warehouse.reviews import ReviewFileError
from warehouse.tables import drop_parts, read_part, read_table, write_part, write_table
from warehouse.themes import load_theme_taxonomy


def entities_frame(entities: list[Entity], status: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The ENTITIES table; ``status`` per entity id (registry entries and unknown ids:
    ``registry`` when reviewed, else ``candidate``)."""
    status = status or {}
    return pl.DataFrame(
        [
            {
                "entity_id": e.entity_id,
                "key": e.key,
                "name": e.name,
                "type": e.type,
                "aliases": [{"text": a.text, "case": a.case} for a in e.aliases],
                "family": e.family,
                "wikipedia_url": e.wikipedia_url,
                "reviewed": e.reviewed,
                "status": status.get(e.entity_id, REGISTRY if e.reviewed else CANDIDATE),
            }
            for e in entities
        ],
        schema=ENTITIES,
        orient="row",
    ).sort("entity_id")


_TEAM = "team:data-engineering"

ENTITIES_TABLE = warehouse_table(
    "entities",
    schema=ENTITIES,
    deps=(signals, UNITS_TABLE),
    group_name="tag",
    owner=_TEAM,
    description=(
        "Entities: the registry (`registry/entities.yaml`, or `AIMI_REGISTRY`) with the "
        "decisions of `aimi entities review` applied (approved names, merged aliases, rejected "
        "names), plus names discovered in the corpus — cleaned, typed, attached to their "
        "family; those seen in ≥ 3 signals on ≥ 2 days from ≥ 2 domains join the reviewed set."
    ),
)
SIGNAL_ENTITIES_TABLE = warehouse_table(
    "signal_entities",
    schema=SIGNAL_ENTITIES,
    deps=(signals, UNITS_TABLE),
    group_name="tag",
    owner=_TEAM,
    description=(
        "Entity mentions per signal (title and text): what the cards, the entity profiles and "
        "the trend analytics count."
    ),
)
UNIT_ENTITIES_TABLE = warehouse_table(
    "unit_entities",
    schema=UNIT_ENTITIES,
    deps=(signals, UNITS_TABLE),
    group_name="tag",
    owner=_TEAM,
    description=(
        "Entity mentions per unit (the unit's own text): `Unit.entities` and the search "
        "filter `entity_ids`."
    ),
)


@dg.multi_asset(
    name="entity_mentions",
    specs=[ENTITIES_TABLE, SIGNAL_ENTITIES_TABLE, UNIT_ENTITIES_TABLE],
    description="Discover and link entities: the entity table and their mentions.",
)
def entity_mentions(
    context: AssetExecutionContext, aimi: AimiResource
) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    data = aimi.data()
    signal_frame = read_table(data, "signals", SIGNALS)
    # a person's decisions first: merged names are aliases, approved names entities, and
    # neither is discovered again
    known = _reviewed_registry(data)
    found = discover(
        signal_frame,
        Linker(known.entities),
        given_names=load_given_names(),
        index=EntityIndex(known.entities),
        settled=known.rejected | frozenset(known.merged),
    )
    # a known entity written short ("Haiku 4.5") is that entity, not a new one
    known = with_aliases(known, found.aliases)
    everything, status = reviewed_set(known, found.candidates)
    discovered = everything[len(known.entities) :]
    linker = Linker(everything)
    signal_entities = linker.link_signals(signal_frame)
    unit_entities = linker.link_units(
        read_table(data, "units", UNITS), signal_mentions=signal_entities
    )
    entity_table = entities_frame(everything, status)
    write_table(data, "entities", entity_table)
    write_table(data, "signal_entities", signal_entities)
    write_table(data, "unit_entities", unit_entities)
    counts = Counter(status.values())
    context.log.info(
        "entities: %d in the registry, %d approved, %d discovered (%d accepted into the "
        "reviewed set); %d signal mentions, %d unit mentions",
        counts[REGISTRY],
        counts[APPROVED],
        len(discovered),
        counts[ACCEPTED],
        signal_entities.height,
        unit_entities.height,
    )
    top = _top_entities(signal_entities, everything)
    yield dg.MaterializeResult(
        asset_key=ENTITIES_TABLE.key,
        metadata={
            **table_metadata(entity_table),
            "registry_entities": counts[REGISTRY],
            "approved_entities": counts[APPROVED],
            "discovered_entities": len(discovered),
            "accepted_entities": counts[ACCEPTED],
            "merged_names": len(known.merged),
            "short_forms": sum(len(forms) for forms in found.aliases.values()),
            "rejected_names": len(known.rejected),
            "by_status_and_type": native_table(
                entity_table.group_by("status", "type").len("entities").sort("status", "type")
            ),
        },
    )
    yield dg.MaterializeResult(
        asset_key=SIGNAL_ENTITIES_TABLE.key,
        metadata={
            **table_metadata(signal_entities),
            "signals_with_an_entity": signal_entities["signal_id"].n_unique(),
            "top_entities": native_table(top),
        },
    )
    yield dg.MaterializeResult(
        asset_key=UNIT_ENTITIES_TABLE.key,
        metadata={
            **table_metadata(unit_entities),
            "units_with_an_entity": unit_entities["unit_id"].n_unique(),
        },
    )


def _reviewed_registry(data: DataDir) -> Known:
    """The registry with the reviewers' decisions applied; a file that cannot be applied fails
    the run, saying how to fix it."""
    registry = load_registry(registry_path())
    try:
        return apply_decisions(registry, read_entity_reviews(data))
    except (ReviewFileError, EntityReviewError) as exc:
        raise dg.Failure(
            f"the entity reviews file cannot be applied: {exc}. Fix or remove the line "
            f"({data.entity_reviews_file}); `aimi entities review` writes valid ones."
        ) from exc


def _top_entities(signal_entities: pl.DataFrame, everything: list[Entity]) -> pl.DataFrame:
    """The 15 entities in the most signals, with their names."""
    names = {e.entity_id: e.name for e in everything}
    return (
        signal_entities.group_by("entity_id")
        .len("signals")
        .sort("signals", "entity_id", descending=[True, False])
        .head(15)
        .with_columns(pl.col("entity_id").replace_strict(names).alias("name"))
        .select("name", "entity_id", "signals")
    )


_THEMES_STEP = "signal_themes"

SIGNAL_THEMES_TABLE = dg.AssetSpec(
    "signal_themes",
    description=(
        "Theme labels per signal on both axes (the 12 canonical labels only): MiniLM "
        "similarity to each label's description plus keyword evidence (both in "
        "`registry/themes.yaml`). Signals whose content did not change keep their labels."
    ),
    group_name="tag",
    owners=["team:data-engineering"],
    kinds={"polars", "parquet"},
    metadata={"dagster/column_schema": column_schema(SIGNAL_THEMES)},
)


def _theme_work(data: DataDir) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The signals whose labels are kept (content unchanged), and those to tag."""
    signal_frame = read_table(data, "signals", SIGNALS)
    previous = read_table(data, "signal_themes", SIGNAL_THEMES)
    kept = previous.join(
        signal_frame.select("signal_id", "content_hash"),
        on=["signal_id", "content_hash"],
        how="semi",
    )
    todo = signal_frame.join(kept.select("signal_id"), on="signal_id", how="anti")
    return kept, todo


@dg.op(ins={"signals": dg.In(dg.Nothing)}, out=dg.DynamicOut(Chunk))
def plan_themes(
    context: dg.OpExecutionContext, aimi: AimiResource
) -> Iterator[dg.DynamicOutput[Chunk]]:
    """The signals to tag, cut into chunks of about equal text (what tagging embeds)."""
    _, todo = _theme_work(aimi.data())
    lead = DEFAULT_PARAMS.lead_chars
    weights = [
        len(signal_text(title, text, lead))
        for title, text in todo.select("title", "text").iter_rows()
    ]
    yield from fan_out(context, "theme tagging", weights, aimi.chunks)


@dg.op
def tag_chunk(context: dg.OpExecutionContext, aimi: AimiResource, chunk: Chunk) -> Chunk:
    """Tag one chunk of the signals to tag; its rows are written as a part."""
    data = aimi.data()
    _, todo = _theme_work(data)
    todo = todo.slice(chunk.start, chunk.end - chunk.start)
    fresh = pl.DataFrame(schema=SIGNAL_THEMES)
    if todo.height:
        embed = LazyEmbedder("theme tagging", threads=aimi.encoder_threads(), themes=True)
        tagged = tag_themes(todo, embed, load_theme_taxonomy())
        fresh = tagged.join(todo.select("signal_id", "content_hash"), on="signal_id").select(
            SIGNAL_THEMES.names()
        )
    write_part(data, context.run_id, _THEMES_STEP, chunk.position, "signal_themes", fresh)
    return chunk


@dg.op(out=dg.Out(dg.Nothing))
def collect_themes(
    context: dg.OpExecutionContext, aimi: AimiResource, done: list[Chunk]
) -> dg.Output[None]:
    """The kept labels and the chunks' in one table."""
    data = aimi.data()
    kept, _ = _theme_work(data)
    parts = []
    for chunk in in_order(done):
        part = read_part(
            data, context.run_id, _THEMES_STEP, chunk.position, "signal_themes", SIGNAL_THEMES
        )
        if part is None:
            raise dg.Failure(f"chunk {chunk.position} of the theme tagging wrote no rows")
        parts.append(part)
    fresh = pl.concat(parts)
    table = pl.concat([kept, fresh]).sort("signal_id")
    write_table(data, "signal_themes", table)
    drop_parts(data, context.run_id, _THEMES_STEP)
    context.log.info("themes: %d signals tagged, %d unchanged and kept", fresh.height, kept.height)
    counts = (
        pl.concat(
            [
                table.select(
                    pl.lit("value_chain").alias("axis"), pl.col("value_chain").alias("label")
                ),
                table.select(
                    pl.lit("market_force").alias("axis"), pl.col("market_force").alias("label")
                ),
            ]
        )
        .explode("label")
        .drop_nulls("label")
        .group_by("axis", "label")
        .len("signals")
    )
    return dg.Output(
        None,
        metadata={
            **table_metadata(table),
            "tagged": fresh.height,
            "kept": kept.height,
            "chunks": len(done),
            "labels": native_table(counts.sort("axis", "label"), max_rows=30),
        },
    )


signal_themes = chunked_pass(
    name="signal_themes",
    group_name="tag",
    outs=[SIGNAL_THEMES_TABLE],
    after=signals.key,
    plan=plan_themes,
    chunk=tag_chunk,
    collect=collect_themes,
    description="Label signals with the 12 themes, in chunks.",
)
