"""From sources to signals and their verified units: pure frame-in, frame-out steps."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import polars as pl

from analytics.decompose import (
    Decomposer,
    EmbeddingDecomposer,
    LexicalDecomposer,
    classify_content_type,
    decomposer_for,
    unit_id_for,
    verify_units,
)
from analytics.embedding import EMBEDDING_DIM, Embedder, FloatMatrix
from analytics.llm_units import LlmAnswerError, LlmDecomposer, LlmReport, LlmRequest, parse_answer
from analytics.schema import EXTRACTIONS, SIGNALS, UNIT_REJECTIONS, UNITS
from analytics.urls import signal_id_for, with_segment
from analytics.verify import CENTRAL_ROLES, NameFinder, Rejection, UnitDraft

EPISODE_CHAPTER_SEPARATOR = " — "


class SegmentLike(Protocol):
    @property
    def start_s(self) -> int: ...
    @property
    def end_s(self) -> int: ...
    @property
    def chapter(self) -> str: ...
    @property
    def text(self) -> str: ...


# (transcript text, episode duration in seconds or None) -> the high-signal topic segments
Segmenter = Callable[[str, int | None], Sequence[SegmentLike]]


def _segment_hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _duration(extra: str | None) -> int | None:
    try:
        value = json.loads(extra or "{}").get("duration_s")
    except (ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, int | float) and value > 0 else None


def _segment_row(
    src: dict[str, Any], start_s: int, end_s: int, chapter: str, text: str
) -> dict[str, Any]:
    chapter = chapter.strip()
    title = f"{src['title']}{EPISODE_CHAPTER_SEPARATOR}{chapter}" if chapter else src["title"]
    return {
        "signal_id": signal_id_for(src["canonical_url"], start_s, end_s),
        "source_id": src["source_id"],
        "kind": src["kind"],
        "content_type": classify_content_type(src["kind"], title, text),
        "title": title,
        "url": with_segment(src["url"], start_s, end_s),
        "domain": src["domain"],
        "published_at": src["published_at"],
        "author": src["author"],
        "text": text,
        "segment_start_s": start_s,
        "segment_end_s": end_s,
        "content_hash": _segment_hash(src["content_hash"], start_s, end_s, text),
        "source_hash": src["content_hash"],
        "first_ingested_at": src["first_ingested_at"],
    }


def _whole_row(src: dict[str, Any]) -> dict[str, Any]:
    return {
        "signal_id": signal_id_for(src["canonical_url"]),
        "source_id": src["source_id"],
        "kind": src["kind"],
        "content_type": classify_content_type(src["kind"], src["title"], src["text"]),
        "title": src["title"],
        "url": src["url"],
        "domain": src["domain"],
        "published_at": src["published_at"],
        "author": src["author"],
        "text": src["text"],
        "segment_start_s": None,
        "segment_end_s": None,
        "content_hash": src["content_hash"],
        "source_hash": src["content_hash"],
        "first_ingested_at": src["first_ingested_at"],
    }


def signals_from_sources(
    sources: pl.DataFrame,
    *,
    as_of: datetime | None = None,
    segment: Segmenter | None = None,
    previous: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One signal per source; a podcast becomes one signal per chapter or topic segment.

    Podcasts with ``segments`` (chapters known) are cut there. A transcript without chapters is
    cut by ``segment`` (topic segmentation, high-signal segments only) — unless ``previous``
    signals already hold the segmentation of the very same source content, which is reused.
    With no segmenter, or when no segment is kept, the episode is one signal with its
    episode-level URL. Sources published after ``as_of`` are left out.
    """
    if as_of is not None:
        sources = sources.filter(pl.col("published_at") <= as_of)
    reusable: dict[str, list[dict[str, Any]]] = {}
    if previous is not None and segment is not None:
        earlier = previous.filter(
            (pl.col("kind") == "podcast") & pl.col("segment_start_s").is_not_null()
        )
        for row in earlier.iter_rows(named=True):
            reusable.setdefault(row["source_id"], []).append(row)
    rows: list[dict[str, Any]] = []
    for src in sources.iter_rows(named=True):
        chapters = src["segments"] or []
        if src["kind"] == "podcast" and chapters:
            rows.extend(
                _segment_row(src, c["start_s"], c["end_s"], c["chapter"] or "", c["text"])
                for c in chapters
            )
            continue
        if src["kind"] == "podcast" and segment is not None:
            cached = reusable.get(src["source_id"], [])
            if cached and all(r["source_hash"] == src["content_hash"] for r in cached):
                rows.extend({**r, "first_ingested_at": src["first_ingested_at"]} for r in cached)
                continue
            topics = segment(src["text"], _duration(src["extra"]))
            if topics:
                rows.extend(
                    _segment_row(src, t.start_s, t.end_s, t.chapter, t.text) for t in topics
                )
                continue
        rows.append(_whole_row(src))
    return pl.DataFrame(rows, schema=SIGNALS, orient="row").sort("signal_id")


@dataclass(frozen=True)
class Extraction:
    """Verified units (before human review), the verifier's rejections, and per signal the
    extraction that produced them; what the LLM decomposer did, when a build chose it."""

    units: pl.DataFrame  # UNITS
    rejections: pl.DataFrame  # UNIT_REJECTIONS
    extractions: pl.DataFrame  # EXTRACTIONS
    extracted: int  # signals decomposed in this run
    reused: int  # signals whose earlier units were kept
    llm: LlmReport = LlmReport()


@dataclass(frozen=True)
class _Todo:
    """A signal to decompose, with the deterministic extractor it gets (its LLM fallback)."""

    signal_id: str
    content_type: str
    title: str
    text: str
    content_hash: str
    deterministic: Decomposer
    by_llm: bool


def _empty_extraction() -> Extraction:
    return Extraction(
        pl.DataFrame(schema=UNITS),
        pl.DataFrame(schema=UNIT_REJECTIONS),
        pl.DataFrame(schema=EXTRACTIONS),
        0,
        0,
    )


class PrecomputedEmbedder:
    """Vectors computed ahead for known texts; anything else goes to ``fallback``."""

    def __init__(self, texts: Sequence[str], vectors: FloatMatrix, *, fallback: Embedder) -> None:
        self._rows = {text: row for row, text in enumerate(texts)}
        self._vectors = vectors
        self._fallback = fallback

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        rows = [self._rows.get(text) for text in texts]
        if any(row is None for row in rows):
            return self._fallback(texts)
        return self._vectors[[row for row in rows if row is not None]]


@dataclass(frozen=True)
class ExtractionPlan:
    """Which signals keep their earlier units (``keep``) and which are decomposed (``todo``, in
    the signals' order), as ``extract_units`` decides it: deterministic for the same tables, so
    every chunk of a split build (``pipelines.defs.decompose``) computes the same plan and
    decomposes its own slice of ``todo``."""

    keep: tuple[str, ...]
    todo: tuple[_Todo, ...]
    planner: EmbeddingDecomposer | None

    def weights(self) -> list[int]:
        """The work of each ``todo`` signal, for cutting it into chunks: its text's length."""
        return [len(t.text) + len(t.title) for t in self.todo]


@dataclass(frozen=True)
class ExtractedRows:
    """The rows a decomposition of some ``todo`` signals produced (``UNITS``,
    ``UNIT_REJECTIONS``, ``EXTRACTIONS``) and what the LLM decomposer did for them."""

    units: pl.DataFrame
    rejections: pl.DataFrame
    extractions: pl.DataFrame
    llm: LlmReport = LlmReport()


def plan_extraction(
    signals: pl.DataFrame,
    *,
    embed: Embedder | None = None,
    previous: Extraction | None = None,
    force: bool = False,
    llm: LlmDecomposer | None = None,
) -> ExtractionPlan:
    """``extract_units``'s first half: each signal's extractor, and whether its ``previous``
    units still hold."""
    earlier = LexicalDecomposer()
    previous = previous or _empty_extraction()
    done = {
        row[0]: (row[1], row[2])
        for row in previous.extractions.select(
            "signal_id", "content_hash", "extraction_version"
        ).iter_rows()
    }
    keep: list[str] = []
    todo: list[_Todo] = []
    planner = EmbeddingDecomposer(embed) if embed is not None else None
    current: Decomposer = planner if planner is not None else earlier
    for (
        signal_id,
        kind,
        content_type,
        title,
        text,
        content_hash,
        first_ingested_at,
    ) in signals.select(
        "signal_id",
        "kind",
        "content_type",
        "title",
        "text",
        "content_hash",
        "first_ingested_at",
    ).iter_rows():
        chosen = (
            current
            if force
            else decomposer_for(first_ingested_at, current=current, earlier=earlier)
        )
        by_llm = llm is not None and chosen is current and llm.decomposes(kind)
        version = llm.version if llm is not None and by_llm else chosen.version
        if done.get(signal_id) == (content_hash, version):
            keep.append(signal_id)
        else:
            todo.append(_Todo(signal_id, content_type, title, text, content_hash, chosen, by_llm))
    return ExtractionPlan(tuple(keep), tuple(todo), planner)


def decompose_planned(
    plan: ExtractionPlan,
    todo: Sequence[_Todo],
    *,
    embed: Embedder | None = None,
    llm: LlmDecomposer | None = None,
    names: NameFinder | None = None,
) -> ExtractedRows:
    """Decompose ``todo`` (the plan's, or a slice of it) into verified units; the rows of a
    slice depend on that slice alone, so slices concatenated in order make the rows of the
    whole."""
    planner = plan.planner
    rows = _Rows()
    report = LlmReport()
    refused: dict[str, list[Rejection]] = {}
    if llm is not None:
        report, refused = _decompose_by_llm([t for t in todo if t.by_llm], llm, embed, names, rows)
    deterministic = [t for t in todo if not t.by_llm or t.signal_id in refused]
    if planner is not None and embed is not None and deterministic:
        # One batched pass over every sentence the current extractor will embed: far cheaper
        # than one small call per document.
        wanted = sorted(
            {
                sentence
                for t in deterministic
                if t.deterministic is planner
                for sentence in planner.texts_to_embed(t.content_type, t.text)
            }
        )
        vectors = embed(wanted) if wanted else np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        batched = EmbeddingDecomposer(PrecomputedEmbedder(wanted, vectors, fallback=embed))
        deterministic = [
            replace(t, deterministic=batched) if t.deterministic is planner else t
            for t in deterministic
        ]
    for t in deterministic:
        drafts = t.deterministic.decompose(t.content_type, t.text)
        accepted, rejected = verify_units(drafts, t.text, embed, names)
        rows.add(t, t.deterministic.version, accepted, refused.get(t.signal_id, []) + rejected)
    return ExtractedRows(
        pl.DataFrame(rows.units, schema=UNITS, orient="row"),
        pl.DataFrame(rows.rejections, schema=UNIT_REJECTIONS, orient="row"),
        pl.DataFrame(rows.extractions, schema=EXTRACTIONS, orient="row"),
        report,
    )


def assemble_extraction(
    plan: ExtractionPlan, previous: Extraction | None, parts: Sequence[ExtractedRows]
) -> Extraction:
    """``extract_units``'s last step: the kept signals' ``previous`` rows and the rows of
    ``parts`` (the decomposed slices of the plan's ``todo``, in order)."""
    previous = previous or _empty_extraction()
    kept = pl.DataFrame({"signal_id": list(plan.keep)}, schema={"signal_id": pl.String})
    units = pl.concat(
        [previous.units.join(kept, on="signal_id", how="semi"), *(p.units for p in parts)]
    )
    rejections = pl.concat(
        [
            previous.rejections.join(kept, on="signal_id", how="semi"),
            *(p.rejections for p in parts),
        ]
    )
    extractions = pl.concat(
        [
            previous.extractions.join(kept, on="signal_id", how="semi"),
            *(p.extractions for p in parts),
        ]
    ).sort("signal_id")
    reports = [p.llm for p in parts]
    return Extraction(
        units.sort("signal_id", "position"),
        rejections,
        extractions,
        extracted=sum(p.extractions.height for p in parts),
        reused=len(plan.keep),
        llm=reports[0] if len(reports) == 1 else LlmReport.combined(reports),
    )


def extract_units(
    signals: pl.DataFrame,
    *,
    embed: Embedder | None = None,
    previous: Extraction | None = None,
    force: bool = False,
    llm: LlmDecomposer | None = None,
    names: NameFinder | None = None,
) -> Extraction:
    """Decompose signals into verified units, reusing earlier work where it still holds.

    Each signal gets the current extractor (``embed-5``, which needs ``embed``) if its source
    was first ingested on or after 2026-04-28, the earlier one (``lexical-1``) otherwise
    (docs/api.md §2.3); ``force`` gives every signal the current one. Without an embedder, every
    signal gets ``lexical-1``. With ``llm``, the LLM decomposer takes the current extractor's
    place for the kinds it decomposes; a signal whose answer is missing or unusable, or whose
    central statement the verifier refuses, falls back to the deterministic extractor (counted
    per reason in ``Extraction.llm``). ``names`` (the registry's mentions) serves the
    verifier's name rule. A signal whose content and chosen extractor are those of its
    ``previous`` extraction keeps its units without being decomposed again.

    The three steps (``plan_extraction``, ``decompose_planned``, ``assemble_extraction``) are
    public for a build that decomposes the plan's ``todo`` in chunks.
    """
    plan = plan_extraction(signals, embed=embed, previous=previous, force=force, llm=llm)
    rows = decompose_planned(plan, plan.todo, embed=embed, llm=llm, names=names)
    return assemble_extraction(plan, previous, [rows])


def _decompose_by_llm(
    todo: list[_Todo],
    llm: LlmDecomposer,
    embed: Embedder | None,
    names: NameFinder | None,
    rows: _Rows,
) -> tuple[LlmReport, dict[str, list[Rejection]]]:
    """The LLM's verified units for ``todo``, added to ``rows``; the report, and for each
    signal that falls back the rejections of the LLM's drafts (empty when it had none)."""
    replies = (
        llm.respond([LlmRequest(t.content_hash, t.content_type, t.title, t.text) for t in todo])
        if todo
        else {}
    )
    refused: dict[str, list[Rejection]] = {}
    fallbacks: list[tuple[str, str]] = []
    for t in todo:
        reply = replies[t.content_hash]
        if reply.content is None:
            fallbacks.append((t.signal_id, str(reply.failure)))
            refused[t.signal_id] = []
            continue
        try:
            drafts = parse_answer(reply.content, t.content_type, t.text)
        except LlmAnswerError as exc:
            fallbacks.append((t.signal_id, exc.reason))
            refused[t.signal_id] = []
            continue
        accepted, rejected = verify_units(drafts, t.text, embed, names)
        if not any(unit.role in CENTRAL_ROLES for unit in accepted):
            fallbacks.append((t.signal_id, "no_central_statement"))
            refused[t.signal_id] = rejected
            continue
        rows.add(t, llm.version, accepted, rejected)
    hits = sum(reply.cached for reply in replies.values())
    report = LlmReport(
        decomposed=len(todo) - len(fallbacks),
        cache_hits=hits,
        asked=len(replies) - hits,
        fallbacks=tuple(fallbacks),
    )
    return report, refused


class _Rows:
    """The rows of the units, rejections and extractions tables a run produces."""

    ROLE_RANK = {"thesis": 0, "synopsis": 0, "argument": 1, "claim": 2}

    def __init__(self) -> None:
        self.units: list[dict[str, Any]] = []
        self.rejections: list[dict[str, Any]] = []
        self.extractions: list[dict[str, Any]] = []

    def add(
        self,
        todo: _Todo,
        version: str,
        accepted: list[UnitDraft],
        rejected: list[Rejection],
    ) -> None:
        signal_id = todo.signal_id
        seen: set[str] = set()
        # the extractor returns served order; a stable sort on the role alone keeps an
        # argument's sentences together even when they interleave in the document
        ordered = sorted(accepted, key=lambda u: self.ROLE_RANK[u.role])
        position = 0
        for unit in ordered:
            uid = unit_id_for(signal_id, unit.role, unit.text)
            if uid in seen:  # the same sentence twice in one source is one unit
                continue
            seen.add(uid)
            self.units.append(
                {
                    "unit_id": uid,
                    "signal_id": signal_id,
                    "position": position,
                    "role": unit.role,
                    "text": unit.text,
                    "argument_id": unit.argument_id,
                    "evidence": [{"text": s.text, "truncated": s.truncated} for s in unit.evidence],
                    "entities": [],
                    "human_reviewed": False,
                    "start_char": unit.start_char,
                    "end_char": unit.end_char,
                }
            )
            position += 1
        for rejection in rejected:
            self.rejections.append(
                {
                    "unit_id": unit_id_for(signal_id, rejection.unit.role, rejection.unit.text),
                    "signal_id": signal_id,
                    "role": rejection.unit.role,
                    "text": rejection.unit.text,
                    "rule": rejection.rule,
                }
            )
        self.extractions.append(
            {
                "signal_id": signal_id,
                "content_hash": todo.content_hash,
                "extraction_version": version,
                "units": position,
                "rejected": len(rejected),
            }
        )
