"""Not a benchmark: embeds every social signal's title and text with the build's MiniLM (the
naive baseline's vectors, issue 31) into ``--out`` (an ``.npz`` of signal ids and vectors,
outside the repository: it is derived from corpus text).

Usage:
    .venv/bin/python -m bench.stories.embed_cache --warehouse /tmp/ainews-full/warehouse \
        --out /tmp/stories/title_text.npz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import polars as pl

from warehouse.build_encoder import load_build_encoder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    signals = pl.read_parquet(args.warehouse / "signals.parquet").filter(pl.col("kind") == "social")
    texts = [f"{t}. {x}" for t, x in zip(signals["title"], signals["text"], strict=True)]
    encoder = load_build_encoder()
    started = time.perf_counter()
    vectors = encoder(texts, progress=True, label="title+text")
    print(f"{len(texts)} texts embedded in {time.perf_counter() - started:.1f} s")
    np.savez(args.out, signal_id=np.asarray(signals["signal_id"].to_list()), vector=vectors)


if __name__ == "__main__":
    main()
