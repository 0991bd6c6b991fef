"""``python -m pipelines build [--as-of ISO | --wall-clock] [--data-dir DIR] [--reextract]
[--decomposer deterministic|llm]``: what `aimi build` runs;
``python -m pipelines refresh [--as-of ISO] [--data-dir DIR]``: what ``POST /v1/admin/refresh``
runs, printing its report as one JSON line (exit status 75 when another build is running).

The API process never imports Dagster: the CLI starts this module as a child process, so the
module boundaries of docs/design.md §2 hold for `serving` too.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from datetime import datetime

from pipelines.build import BuildBusy, BuildError, build, refresh
from warehouse.paths import DataDir
from warehouse.settings import DECOMPOSERS, llm_not_configured, load_settings, parse_as_of


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("build", help="materialize every asset and publish a snapshot")
    run.add_argument(
        "--as-of",
        help="fix the build clock (ISO 8601 date or date-time, UTC); the data dir remembers it "
        "for every later run",
    )
    run.add_argument(
        "--wall-clock",
        action="store_true",
        help="forget the data dir's fixed clock: this and later runs use the wall clock",
    )
    run.add_argument("--data-dir", help="data dir (default: AIMI_DATA_DIR or ./data)")
    run.add_argument(
        "--reextract",
        action="store_true",
        help="give every signal the current extractor, also sources ingested before 2026-04-28",
    )
    run.add_argument(
        "--decomposer",
        choices=DECOMPOSERS,
        help="llm: decompose with the OpenAI-compatible endpoint of AIMI_LLM_BASE_URL and "
        "AIMI_LLM_MODEL (the kinds in AIMI_LLM_KINDS, every kind when unset), falling back to "
        "the deterministic extractor per signal (default: AIMI_DECOMPOSER, else deterministic)",
    )
    again = sub.add_parser(
        "refresh", help="re-materialize the derived views and new embeddings, then publish"
    )
    again.add_argument("--as-of", help="fix the build clock (ISO 8601 date or date-time, UTC)")
    again.add_argument("--data-dir", help="data dir (default: AIMI_DATA_DIR or ./data)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        as_of = parse_as_of(args.as_of) if args.as_of else None
    except ValueError as exc:
        parser.error(str(exc))
    if args.command == "refresh":
        return _refresh(DataDir.from_env(args.data_dir), as_of)
    if args.wall_clock and as_of is not None:
        parser.error("give --as-of or --wall-clock, not both")
    fixed = load_settings().as_of
    if args.wall_clock and fixed is not None:
        parser.error(
            f"AIMI_AS_OF is set ({fixed.isoformat()}) and overrides any clock: unset it to "
            "build on the wall clock"
        )
    settings = load_settings()
    if (args.decomposer or settings.decomposer) == "llm":
        problem = llm_not_configured(settings)
        if problem is not None:
            parser.error(problem)
    try:
        opened = build(
            DataDir.from_env(args.data_dir),
            as_of=as_of,
            log_level="INFO",
            force_reextract=args.reextract,
            decomposer=args.decomposer,
            wall_clock=args.wall_clock,
        )
    except BuildError as exc:
        sys.stderr.write(f"aimi build: {exc}\n")
        return 1
    counts = ", ".join(f"{name} {e.rows:,}" for name, e in opened.manifest.tables.items())
    sys.stdout.write(
        f"published snapshot {opened.snapshot_id} (as_of {opened.manifest.as_of:%Y-%m-%d %H:%M}Z): "
        f"{counts}\n"
    )
    return 0


def _refresh(data: DataDir, as_of: datetime | None) -> int:
    try:
        report = refresh(data, as_of=as_of)
    except BuildBusy as exc:
        sys.stderr.write(f"aimi refresh: {exc}\n")
        return os.EX_TEMPFAIL
    except BuildError as exc:
        sys.stderr.write(f"aimi refresh: {exc}\n")
        return 1
    snapshot = report.snapshot
    line = {
        "views": list(report.views),
        "units_embedded": report.units_embedded,
        "snapshot": {
            "id": snapshot.snapshot_id,
            "as_of": snapshot.manifest.as_of.isoformat(),
            "built_at": snapshot.manifest.built_at.isoformat(),
        },
    }
    sys.stdout.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
