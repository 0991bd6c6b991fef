"""Search at scale: our hybrid executor against LanceDB's hybrid search and a bare tantivy +
FAISS + RRF loop, on perturbed copies of a real snapshot's units (bench/search/speed/corpus.py).

Usage (LanceDB is not a project dependency: install it into a scratch folder, e.g.
``.venv/bin/uv pip install --python .venv/bin/python --target /tmp/lancedb-pkgs lancedb``):

    PYTHONPATH=/tmp/lancedb-pkgs .venv/bin/python -m bench.search.speed.run all \
        --source /tmp/ainews-full --size 100000 --work /tmp/aimi-search-bench
    .venv/bin/python -m bench.search.speed.run report --work /tmp/aimi-search-bench --size 100000

``all`` runs, each step in its own process (so memory is per engine): ``prepare`` (corpus and
our snapshot, timed build), ``exact`` (the reference rankings), ``time`` for ours and the bare
loop, ``lance-build`` and ``time`` for every LanceDB index in ``--lance``. ``time`` warms up on
``WARMUP`` queries, then runs every query ``PASSES`` times per filter set, sequentially, one
thread of ours; it records each call's latency, the first pass's rows, the dense leg's rows
(for vector recall) and the resident memory. ``ours`` (and the exact reference) compute the
race's function, unit-text BM25 + dense, RRF (``engines.FAIR_LEGS``); ``ours-shipped`` is the
executor as served (title field, title-match leg and source legs), timed for its cost only;
``ours-sources`` the race's function with the source legs beside it (``engines.SOURCE_LEGS``),
its recall counted against an exact reference of that function (issue 30). ``prepare`` gives
the synthetic signals whole sources (``corpus.perturbed_sources``). ``report``
also picks each engine's fastest config with R@10 ≥ ``MATCHED_RECALL`` and gives R@10 with
near-duplicates counted once. Ours and the bare loop run with one BLAS thread,
as ``aimi serve`` does; a suffix ``@npN`` sets their nprobe instead of the manifest's (e.g.
``bare@np24``), to trade recall for time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from bench.search.speed.corpus import (
    FilterSpec,
    FilterValues,
    FloatMatrix,
    choose_filter_values,
    embed_queries,
    filter_specs,
    load_source,
    perturbed_corpus,
    perturbed_sources,
    query_texts,
    save_json,
)

os.environ.setdefault("LANCEDB_LOG", "error")  # lance warns on every query otherwise
WARMUP = 20
PASSES = 2
MATCHED_RECALL = 0.95  # R@10 against the exact fused ranking, over all filter sets
_PAGE = os.sysconf("SC_PAGE_SIZE")
_MODULE = "bench.search.speed.run"  # each step in a process of its own


# -- helpers ---------------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _memory() -> dict[str, float]:
    return {"rss_mib": _status_kib("VmRSS") / 1024, "hwm_mib": _status_kib("VmHWM") / 1024}


def _size_dir(work: Path, size: int) -> Path:
    return work / str(size)


def _snapshot_dir(work: Path, size: int) -> Path:
    ours = _size_dir(work, size) / "ours" / "snapshots"
    return ours / (ours / "CURRENT").read_text().strip()


def _queries(work: Path) -> tuple[list[str], FloatMatrix]:
    texts: list[str] = json.loads((work / "queries.json").read_text())
    return texts, np.load(work / "query_vectors.npy")


def _specs(work: Path, size: int) -> list[FilterSpec]:
    meta = json.loads((_size_dir(work, size) / "meta.json").read_text())
    return filter_specs(FilterValues(**meta["filter_values"]))


# -- prepare ---------------------------------------------------------------------------------


def prepare(source_dir: Path, work: Path, size: int) -> None:
    from retrieval.index import build_search_files
    from warehouse.paths import DataDir
    from warehouse.snapshot import publish_snapshot

    work.mkdir(parents=True, exist_ok=True)
    source = load_source(source_dir)
    print(f"source: {source.units.height} units from {source_dir}")
    if not (work / "queries.json").is_file():
        texts = query_texts(source)
        started = time.perf_counter()
        vectors = embed_queries(texts)
        print(f"embedded {len(texts)} queries in {time.perf_counter() - started:.1f} s")
        np.save(work / "query_vectors.npy", vectors)
        (work / "queries.json").write_text(json.dumps(texts) + "\n")
    folder = _size_dir(work, size)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    corpus_vectors = np.lib.format.open_memmap(
        folder / "corpus_vectors.npy", mode="w+", dtype=np.float32, shape=(size, 384)
    )
    frame = perturbed_corpus(source, size, corpus_vectors)
    whole = perturbed_sources(source, frame)
    generated = time.perf_counter() - started
    print(f"generated {size} units in {generated:.1f} s")
    values = choose_filter_values(source)
    timings: dict[str, float] = {}

    def write_files(path: Path) -> Mapping[str, Any]:
        begun = time.perf_counter()
        params = build_search_files(
            path,
            frame,
            corpus_vectors,
            sources=None if whole is None else whole.sources,
            unit_spans=None if whole is None else whole.unit_spans,
        )
        timings["search_files_s"] = time.perf_counter() - begun
        return {"search": params}

    started = time.perf_counter()
    opened = publish_snapshot(
        DataDir(folder / "ours"),
        {"search_units": frame},
        as_of=source.as_of,
        write_files=write_files,
    )
    timings["publish_s"] = time.perf_counter() - started
    (folder / "corpus_vectors.npy").unlink()  # the snapshot holds its own copy
    print(f"published {opened.path} in {timings['publish_s']:.1f} s")
    save_json(
        folder / "meta.json",
        {
            "size": size,
            "source_units": source.units.height,
            "as_of": source.as_of,
            "generate_s": generated,
            **timings,
            "search_params": opened.manifest.metadata["search"],
            "filter_values": values,
        },
    )


# -- timing ----------------------------------------------------------------------------------


def _open_engine(work: Path, size: int, engine: str) -> tuple[Any, dict[str, float]]:
    """The engine and its open time; imports happen before the memory baseline."""

    from bench.search.speed.engines import (
        FAIR_LEGS,
        LANCE_CONFIGS,
        SOURCE_LEGS,
        BareLoop,
        Lance,
        Ours,
        lance_dir,
    )
    from retrieval.engine import SearchIndex
    from warehouse.snapshot import open_snapshot

    folder = _snapshot_dir(work, size)
    if engine.startswith("lance:"):
        import lancedb  # noqa: F401  (import before the baseline)
    engine, _, variant = engine.partition("@")
    nprobe = int(variant[2:]) if variant.startswith("np") and variant[2:].isdigit() else None
    if variant and nprobe is None:
        raise SystemExit(f"unknown variant {variant}")
    if not engine.startswith("lance:"):
        # ours and the bare loop run as `aimi serve` does: one BLAS thread (FAISS searches one
        # query on one thread anyway); LanceDB keeps its own thread pool
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
    baseline = _memory()
    started = time.perf_counter()
    opened_engine: Any
    if engine in ("ours", "ours-nocap", "ours-shipped", "ours-sources"):
        opened = open_snapshot(folder)
        index = SearchIndex(opened, opened.manifest.as_of)
        if nprobe is not None and index.ivf is not None:
            index.nprobe = index.ivf.nprobe = nprobe
        opened_engine = Ours(
            index,
            diversity_cap=10 if engine == "ours-nocap" else 2,
            shipped=engine == "ours-shipped",
            legs=SOURCE_LEGS if engine == "ours-sources" else FAIR_LEGS,
        )
    elif engine == "bare":
        units = pl.read_parquet(
            folder / "search_units.parquet",
            columns=["role", "published_at", "themes", "entity_ids"],
        )
        meta = json.loads((_size_dir(work, size) / "meta.json").read_text())
        opened_engine = BareLoop(
            folder,
            units["role"].to_list(),
            units["published_at"].dt.epoch("us").to_numpy(),
            units["themes"].to_list(),
            units["entity_ids"].to_list(),
            nprobe=nprobe or int(meta["search_params"]["nprobe"]),
        )
    elif engine.startswith("lance:"):
        config = LANCE_CONFIGS[engine[6:]]
        opened_engine = Lance(_size_dir(work, size) / lance_dir(config), config)
    else:
        raise SystemExit(f"unknown engine {engine}")
    info = {"open_s": time.perf_counter() - started, "baseline_rss_mib": baseline["rss_mib"]}
    info |= {f"open_{k}": v for k, v in _memory().items()}
    return opened_engine, info


def time_engine(work: Path, size: int, engine: str, passes: int = PASSES) -> None:
    texts, vectors = _queries(work)
    specs = _specs(work, size)
    opened, info = _open_engine(work, size, engine)
    results: dict[str, Any] = {
        "engine": engine,
        "size": size,
        "passes": passes,
        "load_before": os.getloadavg()[0],
        **info,
        "filters": {},
    }
    for spec in specs:
        prepared = opened.prepare(spec)
        for i in range(WARMUP):
            opened.search(texts[i], vectors[i], prepared)
        latencies: list[float] = []
        rows: list[list[int]] = []
        for _ in range(passes):
            for i, text in enumerate(texts):
                started = time.perf_counter()
                found = opened.search(text, vectors[i], prepared)
                latencies.append((time.perf_counter() - started) * 1000)
                if len(rows) < len(texts):
                    rows.append(found)
        results["filters"][spec.name] = {"ms": latencies, "rows": rows}
        print(
            f"{engine} {size} {spec.name}: p50 {statistics.median(latencies):.2f} ms, "
            f"p99 {_p99(latencies):.2f} ms",
            flush=True,
        )
    results |= {f"after_{k}": v for k, v in _memory().items()}
    results["load_after"] = os.getloadavg()[0]
    for spec in specs:  # vector recall, untimed
        prepared = opened.prepare(spec)
        results["filters"][spec.name]["dense_rows"] = [
            _dense(opened, vectors[i], prepared) for i in range(len(texts))
        ]
    out = _size_dir(work, size) / "results"
    out.mkdir(exist_ok=True)
    (out / f"{engine.replace(':', '_')}.json").write_text(json.dumps(results) + "\n")


def _dense(opened: Any, vector: FloatMatrix, prepared: Any) -> list[int]:
    from bench.search.speed.engines import DEPTH, BareLoop, Lance, Ours

    if isinstance(opened, Ours):
        index = opened.index
        return index.dense_leg(vector, index.mask(prepared), DEPTH)[0]
    if isinstance(opened, Lance):
        return opened.dense(vector, prepared)
    assert isinstance(opened, BareLoop)
    return opened.dense(vector, prepared)


def _p99(values: list[float]) -> float:
    return float(np.percentile(values, 99))


# -- exact reference -------------------------------------------------------------------------


def exact(work: Path, size: int) -> None:
    from bench.search.speed.engines import (
        API_DIVERSITY_CAP,
        DEPTH,
        FAIR_LEGS,
        LIMIT,
        NO_CAP,
        SOURCE_LEGS,
        ExactIndex,
        search_filters,
    )
    from retrieval.engine import SearchRequest, Variant
    from warehouse.snapshot import open_snapshot

    texts, vectors = _queries(work)
    opened = open_snapshot(_snapshot_dir(work, size))
    index = ExactIndex(opened, opened.manifest.as_of)
    started = time.perf_counter()
    reference: dict[str, Any] = {}
    for spec in _specs(work, size):
        filters = search_filters(spec)
        mask = index.mask(filters)
        entry: dict[str, Any] = {
            "allowed": size if mask is None else int(mask.sum()),
            "cap": [],
            "nocap": [],
            "cap-sources": [],
            "dense": [],
        }
        runs = (
            ("cap", API_DIVERSITY_CAP, FAIR_LEGS),
            ("nocap", NO_CAP, FAIR_LEGS),
            ("cap-sources", API_DIVERSITY_CAP, SOURCE_LEGS),
        )
        for text, vector in zip(texts, vectors, strict=True):
            index.forget()
            for key, cap, legs in runs:
                request = SearchRequest(vector, text, filters, limit=LIMIT, diversity_cap=cap)
                found = index.search(request, Variant(legs=legs))
                entry[key].append([hit.row for hit in found])
            entry["dense"].append(index.dense_leg(vector, mask, DEPTH)[0])
        reference[spec.name] = entry
        print(f"exact {size} {spec.name}: {entry['allowed']} allowed", flush=True)
    print(f"exact reference in {time.perf_counter() - started:.1f} s")
    out = _size_dir(work, size) / "results"
    out.mkdir(exist_ok=True)
    (out / "exact.json").write_text(json.dumps(reference) + "\n")


# -- LanceDB ---------------------------------------------------------------------------------


def lance_build(work: Path, size: int, config_name: str | None) -> None:
    """Without ``config_name``: the table, its FTS index and scalar indexes. With it: a copy of
    that table with the config's vector index (configs that differ only in query parameters
    share it)."""
    import shutil

    import lancedb
    import pyarrow as pa

    from bench.search.speed.engines import LANCE_CONFIGS, LANCE_TABLE, lance_dir

    folder = _size_dir(work, size)
    db_dir = folder / "lance"
    timings_file = folder / "lance_build.json"
    timings: dict[str, Any] = json.loads(timings_file.read_text()) if timings_file.is_file() else {}
    if config_name is None:
        shutil.rmtree(db_dir, ignore_errors=True)
        timings = {}
        snapshot = _snapshot_dir(work, size)
        units = pl.read_parquet(
            snapshot / "search_units.parquet",
            columns=["role", "content_type", "published_at", "themes", "entity_ids", "text"],
        )
        vectors = np.load(snapshot / "vectors.npy", mmap_mode="r")
        schema = pa.schema(
            [
                ("row", pa.int64()),
                ("role", pa.string()),
                ("content_type", pa.string()),
                ("published_at", pa.timestamp("us", tz="UTC")),
                ("themes", pa.list_(pa.string())),
                ("entity_ids", pa.list_(pa.string())),
                ("text", pa.string()),
                ("vector", pa.list_(pa.float32(), 384)),
            ]
        )
        step = 100_000

        def batches() -> Any:
            for start in range(0, units.height, step):
                part = units.slice(start, step).to_arrow()
                block = np.ascontiguousarray(vectors[start : start + step]).ravel()
                columns = [pa.array(np.arange(start, start + part.num_rows))]
                columns += [part.column(name).combine_chunks() for name in schema.names[1:-1]]
                columns.append(pa.FixedSizeListArray.from_arrays(pa.array(block), 384))
                yield pa.RecordBatch.from_arrays(columns, schema=schema)

        started = time.perf_counter()
        table = lancedb.connect(str(db_dir)).create_table(LANCE_TABLE, batches(), schema=schema)
        timings["table_s"] = time.perf_counter() - started
        started = time.perf_counter()
        # the same analysis as our tantivy en_stem: simple split, ≤ 40-char tokens, lower case,
        # English stemming, no stop words removed, no ASCII folding
        table.create_fts_index(
            "text", stem=True, remove_stop_words=False, ascii_folding=False, max_token_length=40
        )
        timings["fts_s"] = time.perf_counter() - started
        started = time.perf_counter()
        table.create_scalar_index("role", index_type="BITMAP")
        table.create_scalar_index("published_at", index_type="BTREE")
        table.create_scalar_index("themes", index_type="LABEL_LIST")
        table.create_scalar_index("entity_ids", index_type="LABEL_LIST")
        timings["scalar_s"] = time.perf_counter() - started
    else:
        config = LANCE_CONFIGS[config_name]
        target = folder / lance_dir(config)
        key = f"vector:{target.name}"
        if key not in timings or not target.is_dir():
            # each vector index on its own copy of the table, so any config can be timed later
            if target != db_dir:
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(db_dir, target)
            table = lancedb.connect(str(target)).open_table(LANCE_TABLE)
            started = time.perf_counter()
            if config.index_type is not None:
                table.create_index(
                    metric="cosine",
                    vector_column_name="vector",
                    index_type=config.index_type,
                    **dict(config.index_args),
                )
            timings[key] = time.perf_counter() - started
    timings_file.write_text(json.dumps(timings, indent=1) + "\n")
    print(f"lance build {size} {config_name or 'table'}: {timings}", flush=True)


# -- orchestration ---------------------------------------------------------------------------


def _step(args: list[str]) -> None:
    print("$", " ".join(args[2:]), flush=True)
    subprocess.run([sys.executable, "-m", _MODULE, *args[2:]], check=True)


def run_all(args: argparse.Namespace) -> None:
    common = ["--work", str(args.work), "--size", str(args.size)]
    skip = set(args.skip.split(","))
    if "prepare" not in skip:
        _step(["", "", "prepare", "--source", str(args.source), *common])
    if "exact" not in skip:
        _step(["", "", "exact", *common])
    for engine in [e for e in args.engines.split(",") if e]:
        _step(["", "", "time", "--engine", engine, "--passes", str(args.passes), *common])
    lance = [c for c in args.lance.split(",") if c]
    if lance:
        if "lance-table" not in skip:
            _step(["", "", "lance-build", *common])
        for name in lance:
            _step(["", "", "lance-build", "--config", name, *common])
            _step(
                ["", "", "time", "--engine", f"lance:{name}", "--passes", str(args.passes), *common]
            )


# -- report ----------------------------------------------------------------------------------


def _recall(found: list[list[int]], reference: list[list[int]]) -> float:
    hits = sum(len(set(f) & set(r)) for f, r in zip(found, reference, strict=True))
    total = sum(len(r) for r in reference)
    return hits / total if total else 1.0


def _reference_key(name: str) -> str:
    """Ours is compared with the capped reference (cap 2, as the API), ``ours-sources`` with
    the capped reference of its own function (the source legs too), the others (and
    ``ours-nocap``) with the uncapped one."""
    engine = name.split("@")[0]
    if engine == "ours-sources":
        return "cap-sources"
    return "cap" if engine in ("ours", "ours-shipped") else "nocap"


def _family(name: str) -> str:
    if name.startswith("lance_"):
        return "LanceDB"
    if name.startswith("ours-sources"):
        return "ours-sources"
    return "ours" if name.startswith("ours") else "bare"


def _matched(summary: dict[str, dict[str, float]]) -> None:
    """Each engine's fastest config (pooled filtered p50) with R@10 ≥ 0.95 over all sets, and
    ours ÷ LanceDB at matched recall and at LanceDB's defaults."""
    best: dict[str, str] = {}
    for name, row in summary.items():
        family = _family(name)
        if row["r_all"] >= MATCHED_RECALL and (
            family not in best or row["p50_filtered"] < summary[best[family]]["p50_filtered"]
        ):
            best[family] = name
    print(f"\nAt matched recall (fastest config with R@10 ≥ {MATCHED_RECALL} over all sets):\n")
    print("| engine | config | R@10 all sets | R@10 no filter | p50 no filter | p50 filtered |")
    print("|---|---|---|---|---|---|")
    for family in ("ours", "ours-sources", "bare", "LanceDB"):
        if family in best:
            row = summary[best[family]]
            print(
                f"| {family} | {best[family]} | {row['r_all']:.3f} | {row['r_none']:.3f} "
                f"| {row['p50_none']:.2f} | {row['p50_filtered']:.2f} |"
            )
        else:
            print(f"| {family} | none reached {MATCHED_RECALL} | | | | |")
    pairs = []
    for family in ("ours", "ours-sources"):
        if family in best and "LanceDB" in best:
            pairs.append(("matched recall", best[family], best["LanceDB"]))
    for family in ("ours", "ours-sources"):
        if family in best and "lance_ivf_pq-default" in summary:
            pairs.append(("LanceDB default (IVF_PQ)", best[family], "lance_ivf_pq-default"))
    for label, ours, lance in pairs:
        a, b = summary[ours], summary[lance]
        print(
            f"\n{label}: {ours} ÷ {lance}: filtered p50 {a['p50_filtered']:.2f} / "
            f"{b['p50_filtered']:.2f} ms = {a['p50_filtered'] / b['p50_filtered']:.2f}×; "
            f"unfiltered p50 {a['p50_none']:.2f} / {b['p50_none']:.2f} ms = "
            f"{a['p50_none'] / b['p50_none']:.2f}×"
        )


def _by_text(folder: Path, exact_ref: dict[str, Any], results: dict[str, Any]) -> None:
    """R@10 with near-duplicates as one: every row replaced by its text's group
    (``copy_of``) on both sides. Our executor (and so the reference) shows each text once;
    the bare loop and LanceDB may return several copies of one text, which costs them recall
    against the collapsed reference without being a retrieval miss."""
    key = pl.read_parquet(_snapshot_dir_of(folder) / "search_units.parquet", columns=["copy_of"])
    group = key["copy_of"].to_list()
    sizes = key.group_by("copy_of").len()
    in_groups = int(sizes.filter(pl.col("len") > 1)["len"].sum())
    print(
        f"\nNear-duplicates: {in_groups:,} rows share their normalized text with another row "
        f"({sizes.filter(pl.col('len') > 1).height:,} texts). R@10 with each text as one hit:\n"
    )
    print("| engine | R@10 no filter | R@10 filtered | R@10 all sets |")
    print("|---|---|---|---|")
    for name, result in results.items():
        if name.startswith("ours-shipped"):
            continue
        ref_key = _reference_key(name)
        filters = result["filters"]
        cells = []
        for specs in (["none"], list(filters)[1:], list(filters)):
            hits = total = 0
            for spec in specs:
                for found, ref in zip(filters[spec]["rows"], exact_ref[spec][ref_key], strict=True):
                    wanted = {group[r] for r in ref}
                    hits += len(wanted & {group[r] for r in found})
                    total += len(wanted)
            cells.append(f"{hits / total:.3f}" if total else "–")
        print(f"| {name} | {' | '.join(cells)} |")


def _snapshot_dir_of(folder: Path) -> Path:
    ours = folder / "ours" / "snapshots"
    return ours / (ours / "CURRENT").read_text().strip()


def report(work: Path, size: int, columns: list[str]) -> None:
    """Markdown tables. ``columns`` (result names, e.g. ``ours``, ``bare``,
    ``lance_ivf_pq-default``) picks the engines of the per-filter table; with three, the
    first's p50 is also given as a ratio to the third's and the second's."""
    from bench.search.speed.engines import LANCE_CONFIGS, lance_dir

    folder = _size_dir(work, size)
    meta = json.loads((folder / "meta.json").read_text())
    exact_ref: dict[str, Any] = json.loads((folder / "results" / "exact.json").read_text())
    lance_build_times: dict[str, Any] = (
        json.loads((folder / "lance_build.json").read_text())
        if (folder / "lance_build.json").is_file()
        else {}
    )
    results = {
        path.stem: json.loads(path.read_text())
        for path in sorted((folder / "results").glob("*.json"))
        if path.stem != "exact"
    }
    print(f"\n### {size:,} units (machine load at report time: {os.getloadavg()[0]:.2f})\n")
    shown = [name for name in columns if name in results] if columns else list(results)
    ours, bare, lance = (shown + [""] * 3)[:3] if columns else ("", "", "")
    ratios = bool(ours and bare and lance)
    header = [f"{name}: p50 / p99 ms, R@10" for name in shown]
    if ratios:
        header += [f"{ours} ÷ {lance} (p50)", f"{ours} ÷ {bare} (p50)"]
    print("| filter | allowed |", " | ".join(header), "|")
    print("|---|---|" + "---|" * len(header))
    for spec, ref in exact_ref.items():
        cells = []
        for name in shown:
            entry = results[name]["filters"][spec]
            key = _reference_key(name)
            cells.append(
                f"{statistics.median(entry['ms']):.2f} / {_p99(entry['ms']):.2f}, "
                f"{_recall(entry['rows'], ref[key]):.3f}"
            )
        if ratios:
            p50 = {
                n: statistics.median(results[n]["filters"][spec]["ms"]) for n in (ours, bare, lance)
            }
            cells += [f"{p50[ours] / p50[lance]:.2f}", f"{p50[ours] / p50[bare]:.2f}"]
        print(f"| {spec} | {ref['allowed']:,} |", " | ".join(cells), "|")
    print(
        "\n| engine | p50 / p99 no filter | p50 / p99 filtered (pooled) | R@10 no filter "
        "| R@10 filtered | R@10 all sets | dense R@100 | open s | RSS MiB (open → after) "
        "| build s | load before → after |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    summary: dict[str, dict[str, float]] = {}
    for name, result in results.items():
        filters = result["filters"]
        unfiltered = filters["none"]["ms"]
        filtered = [ms for spec, e in filters.items() if spec != "none" for ms in e["ms"]]
        key = _reference_key(name)

        def recall(
            specs: list[str],
            field: str = "rows",
            ref_key: str = key,
            filters: dict[str, Any] = filters,
        ) -> float:
            return _recall(
                [r for spec in specs for r in filters[spec][field]],
                [r for spec in specs for r in exact_ref[spec][ref_key]],
            )

        every = list(filters)
        r_none, r_filtered, r_all = recall(["none"]), recall(every[1:]), recall(every)
        dense = recall(every, "dense_rows", "dense")
        if name.startswith("lance_"):
            config = LANCE_CONFIGS[name[6:]]
            target = lance_dir(config)
            build = (
                lance_build_times.get(f"vector:{target.name}", float("nan"))
                if config.index_type is not None
                else 0.0  # no vector index: an exact scan
            )
            shared = sum(lance_build_times[k] for k in ("table_s", "fts_s", "scalar_s"))
            build_text = f"{shared:.0f} + {build:.0f}"
        else:
            build_text = f"{meta['publish_s']:.0f} ({meta['search_files_s']:.0f} index files)"
        base = result["baseline_rss_mib"]
        # ours as shipped computes another function (title field, title leg): its recall
        # against the text-only reference means nothing
        shown_recall = (
            ["–", "–", "–"]
            if name.startswith("ours-shipped")
            else [f"{r_none:.3f}", f"{r_filtered:.3f}", f"{r_all:.3f}"]
        )
        print(
            f"| {name} | {statistics.median(unfiltered):.2f} / {_p99(unfiltered):.2f} "
            f"| {statistics.median(filtered):.2f} / {_p99(filtered):.2f} "
            f"| {' | '.join(shown_recall)} | {dense:.3f} "
            f"| {result['open_s']:.1f} "
            f"| {result['open_rss_mib'] - base:.0f} → {result['after_rss_mib'] - base:.0f} "
            f"| {build_text} | {result.get('load_before', float('nan')):.2f} → "
            f"{result.get('load_after', float('nan')):.2f} |"
        )
        if not name.startswith("ours-shipped"):
            summary[name] = {
                "p50_none": statistics.median(unfiltered),
                "p50_filtered": statistics.median(filtered),
                "r_all": r_all,
                "r_none": r_none,
            }
    _matched(summary)
    _by_text(folder, exact_ref, results)
    details = {k: v for k, v in meta.items() if k != "filter_values"}
    print(f"\nbuild details: {json.dumps(details, default=str)}")
    print(f"lance build: {json.dumps(lance_build_times)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "step", choices=["all", "prepare", "exact", "time", "lance-build", "report"]
    )
    parser.add_argument("--source", type=Path, default=Path("/tmp/ainews-full"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-search-bench"))
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--engine", default="ours")
    parser.add_argument("--config", default=None, help="lance-build: a vector index config")
    parser.add_argument("--columns", default="", help="report: engines of the per-filter table")
    parser.add_argument("--passes", type=int, default=PASSES, help="time: passes over the queries")
    parser.add_argument(
        "--lance",
        default="flat,ivf_pq-default,ivf_pq-np32-rf10,ivf_flat-np24,ivf_hnsw_sq-ef150",
        help="all: LanceDB configs to build and time, comma-separated ('' for none)",
    )
    parser.add_argument(
        "--engines",
        default="ours,ours-sources,ours-shipped,ours-nocap,bare",
        help="all: our and bare-loop variants to time, comma-separated",
    )
    parser.add_argument(
        "--skip", default="", help="all: steps already done (prepare, exact, lance-table)"
    )
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    steps: dict[str, Callable[[], None]] = {
        "all": lambda: run_all(args),
        "prepare": lambda: prepare(args.source, args.work, args.size),
        "exact": lambda: exact(args.work, args.size),
        "time": lambda: time_engine(args.work, args.size, args.engine, args.passes),
        "lance-build": lambda: lance_build(args.work, args.size, args.config),
        "report": lambda: report(args.work, args.size, [c for c in args.columns.split(",") if c]),
    }
    steps[args.step]()


if __name__ == "__main__":
    main()
