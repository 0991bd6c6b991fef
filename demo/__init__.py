"""Deterministic synthetic demo corpus about the AI economy, with planted ground truth.

``generate_demo_corpus(seed)`` returns source records (written as JSONL by the caller),
Markdown documents with YAML front matter and a ground-truth dict describing the entity
trends and theme shift the analytics are expected to recover. Generation is pure (no I/O,
stdlib only); ``demo.files`` writes a corpus to disk in the formats the ingest adapters read,
and ``demo.site`` publishes it as a website (pages, feeds, sitemaps, podcast transcripts) and
serves it on loopback, for the fetcher's tests and benchmark.
"""

from __future__ import annotations

from demo.generator import DEMO_AS_OF, DEMO_SEED, DemoCorpus, generate_demo_corpus

__all__ = ["DEMO_AS_OF", "DEMO_SEED", "DemoCorpus", "generate_demo_corpus"]
