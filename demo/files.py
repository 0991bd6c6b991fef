"""Writing the generated demo corpus to disk, in the formats the ingest adapters read."""

from __future__ import annotations

import json
from pathlib import Path

from demo.generator import DemoCorpus

RECORDS_FILE = "records.jsonl"
MARKDOWN_DIR = "markdown"
GROUND_TRUTH_FILE = "ground_truth.json"


def write_demo_corpus(corpus: DemoCorpus, out: Path) -> dict[str, int]:
    """Write records as JSONL, documents as Markdown files and the planted ground truth beside
    them; return how many of each were written."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / RECORDS_FILE).open("w", encoding="utf-8") as fh:
        for record in corpus.records:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    markdown = out / MARKDOWN_DIR
    markdown.mkdir(exist_ok=True)
    for name, text in corpus.markdown_documents:
        (markdown / name).write_text(text, encoding="utf-8")
    (out / GROUND_TRUTH_FILE).write_text(
        json.dumps(corpus.ground_truth, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return {"records": len(corpus.records), "markdown": len(corpus.markdown_documents)}
