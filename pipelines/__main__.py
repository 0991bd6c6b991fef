"""``python -m pipelines build [--as-of ISO] [--data-dir DIR]``: what `aimi build` runs.

The API process never imports Dagster: the CLI starts this module as a child process, so the
module boundaries of DESIGN §2 hold for `serving` too.
"""

from __future__ import annotations

import argparse
import logging
import sys

from pipelines.build import BuildError, build
from pipelines.resources import parse_as_of
from warehouse.paths import DataDir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("build", help="materialize every asset and publish a snapshot")
    run.add_argument("--as-of", help="fix the build clock (ISO 8601 date or date-time, UTC)")
    run.add_argument("--data-dir", help="data dir (default: AIMI_DATA_DIR or ./data)")
    run.add_argument(
        "--reextract",
        action="store_true",
        help="give every signal the current extractor, also sources ingested before 2026-04-28",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        as_of = parse_as_of(args.as_of) if args.as_of else None
    except ValueError as exc:
        parser.error(str(exc))
    try:
        opened = build(
            DataDir.from_env(args.data_dir),
            as_of=as_of,
            log_level="INFO",
            force_reextract=args.reextract,
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


if __name__ == "__main__":
    sys.exit(main())
