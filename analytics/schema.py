"""Table schemas shared by the warehouse and the snapshot: column names and Polars dtypes."""

from __future__ import annotations

from typing import Literal, get_args

import polars as pl

UTC_TIME = pl.Datetime("us", "UTC")


def _schema(columns: dict[str, pl.DataType | type[pl.DataType]]) -> pl.Schema:
    return pl.Schema(columns)


SOURCE_KINDS = ("article", "essay", "memo", "social", "paper", "news", "podcast")
# The enums of the interface spec, once: the Literals type the API models, the tuples serve
# runtime checks and loops.
ContentType = Literal["analysis", "event"]
UnitRole = Literal["thesis", "synopsis", "argument", "claim"]
CONTENT_TYPES: tuple[str, ...] = get_args(ContentType)
UNIT_ROLES: tuple[str, ...] = get_args(UnitRole)

SEGMENT = pl.Struct(
    {"start_s": pl.Int64, "end_s": pl.Int64, "chapter": pl.String, "text": pl.String}
)
SNIPPET = pl.Struct({"text": pl.String, "truncated": pl.Boolean})

# One row per source (per canonical URL): the latest version of what was ingested.
SOURCES = _schema(
    {
        "source_id": pl.String,
        "kind": pl.String,
        "title": pl.String,
        "url": pl.String,
        "canonical_url": pl.String,
        "domain": pl.String,
        "published_at": UTC_TIME,
        "author": pl.String,
        "text": pl.String,
        "segments": pl.List(SEGMENT),
        "extra": pl.String,
        "content_hash": pl.String,
        "origin": pl.String,
        "first_ingested_at": UTC_TIME,
        "ingested_at": UTC_TIME,
    }
)

# Records that failed validation, with where they came from and why.
QUARANTINE = _schema(
    {
        "file": pl.String,
        "line": pl.Int64,
        "field": pl.String,
        "reason": pl.String,
        "raw": pl.String,
        "quarantined_at": UTC_TIME,
    }
)

# Files already read, so an unchanged inbox file is not read twice.
INGEST_LOG = _schema(
    {
        "path": pl.String,
        "sha256": pl.String,
        "records": pl.Int64,
        "quarantined": pl.Int64,
        "ingested_at": UTC_TIME,
    }
)

# Every version of every source ever ingested (warehouse.versions): what tells an older version,
# read again from a file, from a newer one, so it never replaces it.
SOURCE_VERSIONS = _schema(
    {
        "source_id": pl.String,
        "content_hash": pl.String,
        "published_at": UTC_TIME,
        "first_seen_at": UTC_TIME,
    }
)

# One row per signal: a source, or one segment of a podcast episode.
SIGNALS = _schema(
    {
        "signal_id": pl.String,
        "source_id": pl.String,
        "kind": pl.String,
        "content_type": pl.String,
        "title": pl.String,
        "url": pl.String,
        "domain": pl.String,
        "published_at": UTC_TIME,
        "author": pl.String,
        "text": pl.String,
        "segment_start_s": pl.Int64,
        "segment_end_s": pl.Int64,
        "content_hash": pl.String,
        "source_hash": pl.String,
        "first_ingested_at": UTC_TIME,
    }
)

# One row per unit that passed verification, in served order within its signal.
UNITS = _schema(
    {
        "unit_id": pl.String,
        "signal_id": pl.String,
        "position": pl.Int64,
        "role": pl.String,
        "text": pl.String,
        "argument_id": pl.String,
        "evidence": pl.List(SNIPPET),
        "entities": pl.List(pl.String),
        "human_reviewed": pl.Boolean,
        "start_char": pl.Int64,
        "end_char": pl.Int64,
    }
)

# Human review decisions, as appended to <data dir>/reviews.jsonl; the latest per unit counts.
ReviewDecision = Literal["approve", "reject"]
REVIEW_DECISIONS: tuple[str, ...] = get_args(ReviewDecision)
REVIEWS = _schema(
    {
        "unit_id": pl.String,
        "decision": pl.String,
        "reviewer": pl.String,
        "reviewed_at": UTC_TIME,
        "note": pl.String,
    }
)

# Per signal: which extractor produced its units from which content, so an unchanged signal
# keeps its units (and an early source its earlier extraction) instead of being decomposed again.
EXTRACTIONS = _schema(
    {
        "signal_id": pl.String,
        "content_hash": pl.String,
        "extraction_version": pl.String,
        "units": pl.Int64,
        "rejected": pl.Int64,
    }
)

# The LLM decomposer's answers, one per (content hash, model, prompt version): a build asks the
# endpoint only for content it has no answer for (analytics.llm_units, pipelines.llm).
LLM_ANSWERS = _schema(
    {
        "content_hash": pl.String,
        "model": pl.String,
        "prompt_version": pl.String,
        "answer": pl.String,  # the message content as the endpoint returned it
        "answered_at": UTC_TIME,
    }
)

# Entities known to a build: the registry, names a person approved, and discovered names;
# ``reviewed`` is the reviewed set (registry, approved, and discovered names that pass the
# acceptance bar), ``status`` says which (analytics.entity_review.STATUSES).
ENTITIES = _schema(
    {
        "entity_id": pl.String,
        "key": pl.String,
        "name": pl.String,
        "type": pl.String,
        "aliases": pl.List(pl.Struct({"text": pl.String, "case": pl.String})),
        "family": pl.String,
        "wikipedia_url": pl.String,
        "reviewed": pl.Boolean,
        "status": pl.String,
    }
)

# Signal-level mentions (title and text) and unit-level mentions (the unit's own text).
SIGNAL_ENTITIES = _schema({"signal_id": pl.String, "entity_id": pl.String})
UNIT_ENTITIES = _schema({"unit_id": pl.String, "entity_id": pl.String})

# Theme labels per signal, per axis, strongest first.
SIGNAL_THEMES = _schema(
    {
        "signal_id": pl.String,
        "content_hash": pl.String,
        "value_chain": pl.List(pl.String),
        "market_force": pl.List(pl.String),
    }
)

# Units the verifier refused, with the rule that refused them.
UNIT_REJECTIONS = _schema(
    {
        "unit_id": pl.String,
        "signal_id": pl.String,
        "role": pl.String,
        "text": pl.String,
        "rule": pl.String,
    }
)

# The served signal table inside a snapshot: keys for ordering and filtering plus the
# pre-rendered JSON of the card and of the detail, returned as they are.
SERVED_SIGNALS = _schema(
    {
        "signal_id": pl.String,
        "published_at": UTC_TIME,
        "content_type": pl.String,
        "domain": pl.String,
        "title": pl.String,
        "change_seq": pl.Int64,
        "changed_at": UTC_TIME,
        "entity_ids": pl.List(pl.String),
        "value_chain": pl.List(pl.String),
        "market_force": pl.List(pl.String),
        "search_text": pl.String,
        "card_json": pl.Binary,
        "detail_json": pl.Binary,
    }
)

# One MiniLM vector per unit id (unit ids change with their text), embedded once and kept.
UNIT_EMBEDDINGS = _schema({"unit_id": pl.String, "vector": pl.Array(pl.Float32, 384)})

# The snapshot's search rows: one per served unit, row i ↔ vector i ↔ lexical doc i. Filter
# fields, and the unit and citation JSON exactly as a search hit carries them.
SEARCH_UNITS = _schema(
    {
        "unit_id": pl.String,
        "signal_id": pl.String,
        "role": pl.String,
        "content_type": pl.String,
        "published_at": UTC_TIME,
        "entity_ids": pl.List(pl.String),  # unit-level mentions: the unit text names them
        "themes": pl.List(pl.String),  # the signal's labels, both axes
        "text": pl.String,
        "title": pl.String,  # the signal's: indexed as the unit's context, never returned
        # the earliest-published unit with the same normalized text (analytics.copies): a
        # result list shows each text once
        "copy_of": pl.String,
        "unit_json": pl.Binary,
        "citation_json": pl.Binary,
    }
)

# The snapshot's entity table (docs/design.md §10): per entity, the keys the list endpoint filters
# and sorts on, and the pre-rendered JSON of its list form, its full profile and its trending item.
ENTITY_PROFILES = _schema(
    {
        "entity_id": pl.String,
        "name": pl.String,
        "type": pl.String,
        "type_primary": pl.String,
        "reviewed": pl.Boolean,
        "signal_count": pl.Int64,
        "first_seen": UTC_TIME,
        "recent_mentions": pl.Int64,  # Σc W-3…W0: orders exactly as share_of_voice does
        "direction": pl.String,
        "confidence": pl.String,
        "stability": pl.String,
        "scale": pl.String,
        "notability": pl.String,
        "themes": pl.List(pl.String),  # labels on at least one of its signals, both axes
        "rank_rising": pl.Int64,  # position in each trending mode's full list, 1-based
        "rank_hot": pl.Int64,
        "rank_consistent": pl.Int64,
        "rank_new": pl.Int64,
        "list_json": pl.Binary,
        "profile_json": pl.Binary,
        "trending_json": pl.Binary,
    }
)

# The snapshot's theme table: the 12 labels in canonical order, list form and full form.
THEME_PROFILES = _schema(
    {
        "axis": pl.String,
        "label": pl.String,
        "position": pl.Int64,
        "list_json": pl.Binary,
        "theme_json": pl.Binary,
    }
)

# The change feed's memory across snapshots: per signal, what was last served and under which
# sequence number. A signal whose served bytes change gets the next number.
CHANGE_STATE = _schema(
    {
        "signal_id": pl.String,
        "served_hash": pl.String,
        "change_seq": pl.Int64,
        "changed_at": UTC_TIME,
        "served": pl.Boolean,
    }
)


# Stories (analytics.stories): one row per story, as the warehouse and the snapshot store it.
STORIES = _schema(
    {
        "story_id": pl.String,
        "title": pl.String,
        "title_signal_id": pl.String,
        "first_seen": UTC_TIME,
        "last_seen": UTC_TIME,
        "signal_ids": pl.List(pl.String),
        "signal_count": pl.Int64,
        "entity_ids": pl.List(pl.String),
        "value_chain": pl.List(pl.String),
        "market_force": pl.List(pl.String),
        "domains": pl.List(pl.String),
        "authors": pl.List(pl.String),
        # distinct publishers (author, else domain) once copies of an earlier signal are dropped
        "independent_sources": pl.Int64,
        "merged_from": pl.List(pl.String),
        "split_from": pl.String,
        # the units of a roundup's items in the story (analytics.roundups), per roundup signal
        "parts": pl.List(pl.Struct({"signal_id": pl.String, "unit_ids": pl.List(pl.String)})),
    }
)
# One row per signal in a story (a roundup is in the story of each of its items).
STORY_SIGNALS = _schema({"signal_id": pl.String, "story_id": pl.String})


# Corroboration (analytics.corroboration): one row per link from a claim unit to another
# voice's claim stating the same fact (``corroborates``) or reversing it (``contests``), both
# directions. ``counted``: the earliest of the other side's copy group, what the count is of.
CLAIM_LINKS = _schema(
    {
        "unit_id": pl.String,
        "other_unit_id": pl.String,
        "other_signal_id": pl.String,
        "other_voice": pl.String,
        "relation": pl.String,
        "similarity": pl.Float32,
        "cues": pl.List(pl.String),
        "counted": pl.Boolean,
    }
)


# The snapshot's story table: keys the list endpoint filters and sorts on, and the
# pre-rendered JSON of a story's list form and its detail.
SERVED_STORIES = _schema(
    {
        "story_id": pl.String,
        "last_seen": UTC_TIME,
        "independent_sources": pl.Int64,
        "entity_ids": pl.List(pl.String),
        "themes": pl.List(pl.String),
        "list_json": pl.Binary,
        "detail_json": pl.Binary,
    }
)


def empty(schema: pl.Schema) -> pl.DataFrame:
    """An empty frame with the schema's columns and dtypes."""
    return pl.DataFrame(schema=schema)
