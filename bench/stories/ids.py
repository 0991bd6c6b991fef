"""Story ids across rebuilds (issue 31): the stories of a built data dir made again with this
checkout's ``analytics.stories`` (``StoryParams()``), the previous build's ``stories`` table
as the previous snapshot; then made once more with nothing new. Counts the ids kept, the new
ids, the merges and the splits of each, and the clustering's CPU time.

Usage:
    .venv/bin/python -m bench.stories.ids --warehouse DIR/warehouse \
        [--previous-params FIELD=VALUE,...]

With ``--previous-params`` the previous snapshot is the build's stories made again with those
parameters first (``quality.py --params``' form: the other fields at their shipped values),
so the counts are those of a rebuild from the parameters shipped before to this checkout's.

``DIR`` is a data dir after ``aimi build`` (its ``stories`` table is the previous build's:
built with the parameters of that build's code). The inputs are read as the ``stories`` asset
reads them, at ``as_of`` 2026-01-01.
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from analytics.stories import StoryParams, build_stories, story_inputs

AS_OF = datetime(2026, 1, 1, tzinfo=UTC)


def members(stories: pl.DataFrame) -> pl.DataFrame:
    """(signal_id, story_id) of a ``stories`` table."""
    return stories.select("story_id", pl.col("signal_ids").alias("signal_id")).explode("signal_id")


def compare(label: str, before: pl.DataFrame, after: pl.DataFrame) -> None:
    old = set(before["story_id"].to_list())
    ids = after["story_id"].to_list()
    kept = sum(i in old for i in ids)
    moved = (
        members(before)
        .join(members(after), on="signal_id", suffix="_after")
        .filter(pl.col("story_id") != pl.col("story_id_after"))
        .height
    )
    print(
        f"{label}: {before.height} stories before, {after.height} after; {kept} ids kept, "
        f"{len(ids) - kept} new; {int((after['merged_from'].list.len() > 0).sum())} record a "
        f"merge, {int(after['split_from'].is_not_null().sum())} a split; {moved} signals "
        "changed story"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument("--previous-params", help="make the previous snapshot with these first")
    args = parser.parse_args()
    w = args.warehouse
    served, vectors = story_inputs(
        pl.read_parquet(w / "signals.parquet"),
        pl.read_parquet(w / "units.parquet"),
        pl.read_parquet(w / "unit_embeddings.parquet"),
        AS_OF,
    )
    entities = pl.read_parquet(w / "signal_entities.parquet")
    themes = pl.read_parquet(w / "signal_themes.parquet")
    previous = pl.read_parquet(w / "stories.parquet")
    if args.previous_params:
        from bench.stories.quality import parse_params

        before = parse_params(args.previous_params)
        print(f"previous snapshot made again with {before}")
        previous, _ = build_stories(served, vectors, entities, themes, members(previous), before)
    print(f"{served.height} served signals; parameters {StoryParams()}")
    started = time.process_time()
    now, now_members = build_stories(served, vectors, entities, themes, members(previous))
    print(f"stories built in {time.process_time() - started:.2f} s CPU")
    compare("the build's stories -> this checkout's", previous, now)
    again, _ = build_stories(served, vectors, entities, themes, now_members)
    compare("this checkout's, rebuilt with nothing new", now, again)


if __name__ == "__main__":
    main()
