"""Analytics benchmark: our Polars trend stage against a straightforward pandas reference.

Usage: .venv/bin/python -m bench.analytics.speed.run --signals 1000000 [--no-pandas] [--repeat 1]
[--shuffle] [--floor]

Generates the synthetic corpus in memory (bench/analytics/speed/generate.py), times the "full
analytics stage" of ``analytics.trends`` and ``analytics.cooccurrence`` (entity
``trend_metrics`` + entity ``co_occurrence`` + theme ``trend_metrics``) and the same three
computations in pandas (bench/analytics/speed/pandas_reference.py) on the same data, checks that the
results are identical (every column of the three tables: same keys; integer fields equal; floats
equal after rounding to 12 significant digits; labels and reasoning equal; a column on one side
only is a difference; any difference exits with status 1), and prints a Markdown table of best
wall and CPU seconds per part. Peak RSS is sampled every 5 ms from /proc/self/statm. ``--floor``
adds the lower bound: a trivial group-by over the same mentions and a sort of as many pair
codes as the corpus has pair occurrences. pandas is not a project dependency: install it
anywhere on the path (e.g. ``pip install --target /tmp/pd pandas`` and ``PYTHONPATH=/tmp/pd``).

The generated mentions come grouped by signal, as a pipeline writes them; ``--shuffle`` puts
the mention rows in random order first (same data), the slow case for the per-run signal lookup
of ``analytics.trends``.
"""

from __future__ import annotations

import argparse
import os
import platform
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from analytics import cooccurrence, trends
from bench.analytics.speed.generate import Corpus, generate

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


@dataclass
class _PeakRss:
    """Samples the resident set every 5 ms while active; ``peak`` in bytes."""

    peak: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _loop(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, _rss())

    @contextmanager
    def watch(self) -> Iterator[None]:
        self.peak = _rss()
        self._stop.clear()
        thread = threading.Thread(target=self._loop, daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()
            self.peak = max(self.peak, _rss())


PARTS = ("entities", "co_occurrence", "themes")
Stage = dict[str, Callable[[], Any]]


@dataclass
class Timing:
    """Per-part best wall seconds and best CPU seconds (this process, every thread), and the
    peak RSS (bytes) over the whole stage."""

    seconds: dict[str, float]
    cpu: dict[str, float]
    peak_rss: int

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    @property
    def total_cpu(self) -> float:
        return sum(self.cpu.values())


def _timed(stage: Stage, repeat: int) -> tuple[dict[str, Any], Timing]:
    """Run each part ``repeat`` times; keep the last results and each part's best wall and CPU
    time (on a loaded machine the CPU time is the fairer figure: it leaves out waiting)."""
    sampler = _PeakRss()
    results: dict[str, Any] = {}
    best = dict.fromkeys(stage, float("inf"))
    best_cpu = dict.fromkeys(stage, float("inf"))
    with sampler.watch():
        for _ in range(repeat):
            for part, fn in stage.items():
                # the previous run's result is dropped first: the peak is the stage's own,
                # not two copies of one part's output
                results.pop(part, None)
                started, cpu = time.perf_counter(), time.process_time()
                results[part] = fn()
                best_cpu[part] = min(best_cpu[part], time.process_time() - cpu)
                best[part] = min(best[part], time.perf_counter() - started)
    return results, Timing(best, best_cpu, sampler.peak)


def ours(corpus: Corpus) -> Stage:
    """The full analytics stage in ``analytics.trends`` and ``analytics.cooccurrence``."""
    mentions, signals, clock = corpus.mentions, corpus.signals, corpus.clock
    return {
        "entities": lambda: trends.trend_metrics(mentions, signals, clock, kind="entity"),
        "co_occurrence": lambda: cooccurrence.co_occurrence(mentions),
        "themes": lambda: trends.trend_metrics(corpus.themes, signals, clock, kind="theme"),
    }


def reference(corpus: Corpus) -> Stage:
    """The same stage in pandas, on pandas copies of the same frames (copying is not timed)."""
    from bench.analytics.speed import pandas_reference as ref

    signals, mentions = corpus.signals.to_pandas(), corpus.mentions.to_pandas()
    themes, as_of = corpus.themes.to_pandas(), corpus.clock.as_of
    return {
        "entities": lambda: ref.trend_metrics(mentions, signals, as_of, "entity"),
        "co_occurrence": lambda: ref.co_occurrence(mentions),
        "themes": lambda: ref.trend_metrics(themes, signals, as_of, "theme"),
    }


def _normalise(frame: pl.DataFrame) -> pl.DataFrame:
    """Integers as Int64, floats rounded to 12 significant digits, times as µs UTC."""
    out = []
    for name, dtype in frame.schema.items():
        col = pl.col(name)
        if dtype.is_integer() or (dtype.is_float() and name == "notability_points"):
            out.append(col.cast(pl.Int64))
        elif dtype.is_float():
            out.append(col.round_sig_figs(trends.SIG_DIGITS))
        elif isinstance(dtype, pl.List):
            out.append(col.list.eval(pl.element().round_sig_figs(trends.SIG_DIGITS)))
        elif isinstance(dtype, pl.Datetime):
            out.append(col.cast(pl.Datetime("us", "UTC")))
        elif dtype == pl.Null:
            out.append(col.cast(pl.String))
        else:
            out.append(col)
    return frame.select(out)


def _show(value: Any) -> str:
    return repr(value.to_list() if isinstance(value, pl.Series) else value)


def compare(mine: pl.DataFrame, theirs: Any, name: str) -> list[str]:
    """Differences between our frame and the pandas one (or a Polars frame), column by column
    (empty = identical). A column on one side only is a difference, whichever side: a field
    added to the stage must be added to the reference too, or the check means nothing."""
    other = theirs if isinstance(theirs, pl.DataFrame) else pl.from_pandas(theirs)
    columns = [c for c in mine.columns if c in other.columns]
    problems = [
        f"{name}: columns only in {side}: {only}"
        for side, only in (
            ("ours (missing in pandas)", sorted(set(mine.columns) - set(other.columns))),
            ("pandas (missing in ours)", sorted(set(other.columns) - set(mine.columns))),
        )
        if only
    ]
    sort_by = [c for c in ("key", "key_a", "key_b") if c in columns]
    a = _normalise(mine.select(columns)).sort(sort_by)
    b = _normalise(other.select(columns)).sort(sort_by)
    if a.height != b.height:
        return [*problems, f"{name}: {a.height} rows vs {b.height}"]
    for column in columns:
        same = a[column].eq_missing(b[column].cast(a[column].dtype))
        if not same.all():
            bad = (~same).sum()
            first = int((~same).arg_max() or 0)
            problems.append(
                f"{name}.{column}: {bad} rows differ, e.g. {a[sort_by][first].row(0)}: "
                f"{_show(a[column][first])} vs {_show(b[column][first])}"
            )
    return problems


def _best(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    """Best (wall, CPU) seconds of ``repeat`` calls, and the last call's result."""
    best = (float("inf"), float("inf"))
    result = None
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, (time.perf_counter() - started, time.process_time() - cpu))
    return best[0], best[1], result


def floor(corpus: Corpus) -> str:
    """What any implementation must at least do, timed on the same data (a Markdown table): read
    the mentions and hash-aggregate them by key (the trend metrics' group-by), and count the
    pair occurrences inside signals (co-occurrence's work: one sort of as many int64 codes).
    The sizes are counted, not estimated. Then the pair count alone, on the same distinct
    (signal, key) integer codes, three ways: a self-join on signal id with a group-by in DuckDB,
    a sparse product in scipy, and the packed codes and one sort of ``analytics.cooccurrence``."""
    import duckdb
    import numpy as np
    import scipy.sparse as sp

    from analytics.codes import code_bits, heads
    from analytics.cooccurrence import _pair_codes

    mentions = corpus.mentions
    coded = (
        mentions.select(
            pl.col("signal_id").rank("dense").cast(pl.Int64).alias("s") - 1,
            pl.col("key").rank("dense").cast(pl.Int64).alias("k") - 1,
        )
        .unique()
        .sort("s", "k")
    )
    signal, key = coded["s"].to_numpy(), coded["k"].to_numpy()
    per_signal = np.bincount(signal)
    occurrences = int((per_signal * (per_signal - 1) // 2).sum())
    codes = np.random.default_rng(0).integers(0, 2**40, occurrences)
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.register("mentions", mentions.to_arrow())
    con.register("coded", coded.to_arrow())

    def duckdb_pairs() -> Any:
        return con.execute(
            "SELECT a.k, b.k, count(*) FROM coded a JOIN coded b USING (s) "
            "WHERE a.k <> b.k GROUP BY ALL"
        ).fetchnumpy()

    def scipy_pairs() -> Any:
        indptr = np.concatenate(([0], np.cumsum(per_signal)))
        m = sp.csr_matrix(
            (np.ones(len(key), dtype=np.int32), key, indptr), shape=(len(per_signal), key.max() + 1)
        )
        product = (m.T.tocsr() @ m).tocoo()
        off = product.row != product.col
        return product.row[off], product.col[off], product.data[off]

    def packed_pairs() -> Any:
        bits = code_bits(int(key.max()) + 1)
        starts = heads(signal)
        pair = _pair_codes(starts, np.diff(starts, append=len(signal)), key, bits)
        pair.sort()
        firsts = heads(pair)
        return pair[firsts], np.diff(firsts, append=len(pair))

    lines = [
        f"\n#### Floor: {mentions.height:,} mentions "
        f"({mentions.estimated_size() / 2**20:,.0f} MiB as Polars holds them), "
        f"{len(signal):,} distinct (signal, key), {occurrences:,} pair occurrences inside "
        "signals\n",
        "| operation | wall (s) | CPU (s) |",
        "|---|---:|---:|",
    ]
    ops: list[tuple[str, Callable[[], Any], int]] = [
        (
            "Polars `group_by(key).len()` over the mentions",
            lambda: mentions.group_by("key").len(),
            3,
        ),
        (
            "DuckDB (1 thread) `SELECT key, count(*) … GROUP BY key` over the same Arrow table",
            lambda: con.execute("SELECT key, count(*) FROM mentions GROUP BY key").fetchall(),
            3,
        ),
        (f"numpy sort of {occurrences:,} int64 pair codes", lambda: np.sort(codes), 3),
        ("pairs on integer codes: DuckDB (1 thread) self-join + GROUP BY", duckdb_pairs, 1),
        ("pairs on integer codes: scipy sparse product MᵀM", scipy_pairs, 1),
        ("pairs on integer codes: packed codes + one sort (ours)", packed_pairs, 3),
    ]
    counted = {}
    for label, fn, repeat in ops:
        wall, cpu, counted[label] = _best(fn, repeat)
        lines.append(f"| {label} | {wall:.2f} | {cpu:.2f} |")
    # the three pair counts must agree: ordered pairs (both directions) and their total count
    duck, sparse, packed = (counted[label] for label, _, _ in ops[3:])
    totals = {
        "DuckDB": (len(duck["count_star()"]), int(duck["count_star()"].sum())),
        "scipy": (len(sparse[2]), int(sparse[2].sum())),
        "packed": (2 * len(packed[0]), 2 * int(packed[1].sum())),
    }
    if len(set(totals.values())) != 1:
        raise SystemExit(f"analytics benchmark: the pair counts disagree: {totals}")
    lines.append(f"\n(the three pair counts agree: {totals['packed'][0]:,} ordered pairs)")
    return "\n".join(lines)


def _cpu_model() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main(argv: list[str] | None = None) -> None:
    """Print the benchmark's table; exit with a message (status 1) when the results differ."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--signals", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs (ours)")
    parser.add_argument("--no-pandas", action="store_true", help="time ours only")
    parser.add_argument("--shuffle", action="store_true", help="mention rows in random order")
    parser.add_argument(
        "--floor", action="store_true", help="also time the lower-bound operations (floor())"
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    corpus = generate(args.signals)
    if args.shuffle:
        corpus = replace(
            corpus,
            mentions=corpus.mentions.sample(fraction=1.0, shuffle=True, seed=1),
            themes=corpus.themes.sample(fraction=1.0, shuffle=True, seed=2),
        )
    generated = time.perf_counter() - started
    size = (
        f"{corpus.signals.height:,} signals, {corpus.mentions.height:,} entity mentions "
        f"({corpus.mentions['key'].n_unique():,} entities), "
        f"{corpus.themes.height:,} theme mentions ({corpus.themes['key'].n_unique()} themes)"
    )
    # Warm-up on a tiny corpus (imports, Polars/scipy first-call costs), not timed.
    tiny = generate(2_000, seed=1)
    _timed(ours(tiny), 1)
    mine, mine_t = _timed(ours(corpus), args.repeat)
    rows = [("Polars (`analytics.trends`)", mine_t)]
    identity = "not checked (--no-pandas)"
    problems: list[str] = []
    if not args.no_pandas:
        theirs, theirs_t = _timed(reference(corpus), 1)
        rows.append(("pandas reference", theirs_t))
        problems = [p for part in PARTS for p in compare(mine[part], theirs[part], part)]
        identity = "identical" if not problems else "DIFFERENT:\n  " + "\n  ".join(problems)

    print(f"\n### Analytics stage, {args.signals:,} signals\n")
    print(f"- machine: {_cpu_model()}, nproc {os.cpu_count()}, python {platform.python_version()}")
    order = "shuffled" if args.shuffle else "grouped by signal"
    print(f"- data: {size}; mentions {order}; generated in {generated:.1f} s")
    print(
        f"- stage: entity trend_metrics + co_occurrence ({mine['co_occurrence'].height:,} "
        f"ordered pairs) + theme trend_metrics; ours best of {args.repeat}, pandas 1 run"
    )
    print(f"- results: {identity}\n")
    print(
        "| implementation | entities (s) | co_occurrence (s) | themes (s) | total wall (s) "
        "| total CPU (s) | peak RSS | speed-up wall / CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, timing in rows:
        parts = " | ".join(f"{timing.seconds[p]:.2f} / {timing.cpu[p]:.2f}" for p in PARTS)
        base = rows[-1][1]
        speedup = (
            f"{base.total / timing.total:.1f}× / {base.total_cpu / timing.total_cpu:.1f}×"
            if len(rows) > 1
            else "n/a"
        )
        print(
            f"| {label} | {parts} | {timing.total:.2f} | {timing.total_cpu:.2f} "
            f"| {_mib(timing.peak_rss)} | {speedup} |"
        )
    print("\n(per part: best wall / best CPU seconds; CPU is this process's, every thread)")
    if args.floor:
        print(floor(corpus))
    if problems:
        # the table is printed first, but a benchmark whose outputs differ is no result
        raise SystemExit(
            f"analytics benchmark: {len(problems)} differences from the pandas reference "
            "(listed under results above)"
        )


if __name__ == "__main__":
    main()
