"""The demo build in-process against the multiprocess executor (issue 33): for each
``--processes`` value, a fresh data dir with the demo corpus, then ``python -m pipelines build
--as-of <demo as_of> --processes N`` (what ``aimi build --demo --processes N`` runs) in a child
process, rounds interleaved. Reports wall seconds and the CPU seconds (user + sys) of the
build's whole process tree (the executor's fork server and every step process included),
sampled from /proc every 0.2 s; then compares every warehouse table and every snapshot table of
each build with the first configuration's, row for row, naming the columns that differ (the
run's own instant, e.g. ``first_ingested_at``, differs by design between two runs).

    .venv/bin/python -m bench.build.speed.executors [--processes 1 2] [--rounds 1] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _children() -> dict[int, list[tuple[int, int]]]:
    """Every process's children and their CPU ticks so far (user + sys)."""
    kids: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        kids.setdefault(int(fields[1]), []).append((int(entry), int(fields[11]) + int(fields[12])))
    return kids


def run_tree(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Run ``command``; its wall seconds, its tree's CPU seconds and how many processes."""
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    seen: dict[int, int] = {}
    while process.poll() is None:
        kids = _children()
        stack = [process.pid]
        while stack:
            for pid, ticks in kids.get(stack.pop(), []):
                seen[pid] = max(seen.get(pid, 0), ticks)
                stack.append(pid)
        try:
            stat = Path(f"/proc/{process.pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            seen[process.pid] = int(fields[11]) + int(fields[12])
        except OSError:
            pass
        time.sleep(0.2)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed with {process.returncode}")
    return time.monotonic() - start, sum(seen.values()) / CLOCK_TICKS, len(seen)


def differences(a: Path, b: Path) -> list[str]:
    """Per Parquet file of folder ``a``: the columns whose values differ in ``b``."""
    found = []
    for path in sorted(a.glob("*.parquet")):
        other = b / path.name
        if not other.exists():
            found.append(f"{path.name}: missing")
            continue
        left, right = pl.read_parquet(path), pl.read_parquet(other)
        if left.schema != right.schema or left.height != right.height:
            found.append(f"{path.name}: schema or rows differ")
            continue
        columns = [c for c in left.columns if not left[c].equals(right[c])]
        if columns:
            found.append(f"{path.name}: {', '.join(columns)}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-executor-bench"))
    args = parser.parse_args()
    from demo import DEMO_AS_OF, generate_demo_corpus
    from demo.files import write_demo_corpus

    corpus = generate_demo_corpus()
    rows = []
    built: dict[int, Path] = {}
    for round_ in range(args.rounds):
        for processes in args.processes:
            data = args.work / f"p{processes}-r{round_}"
            shutil.rmtree(data, ignore_errors=True)
            write_demo_corpus(corpus, data / "inbox" / "demo")
            load = os.getloadavg()[0]
            command = [sys.executable, "-m", "pipelines", "build", "--as-of"]
            command += [DEMO_AS_OF.isoformat(), "--processes", str(processes)]
            command += ["--data-dir", str(data)]
            wall, cpu, count = run_tree(command, dict(os.environ))
            rows.append((round_, processes, load, wall, cpu, count))
            built.setdefault(processes, data)
            print(
                f"round {round_} processes {processes}: {wall:.1f} s wall, {cpu:.1f} s CPU "
                f"over {count} processes (load {load:.1f})",
                file=sys.stderr,
            )
    print("| round | processes | load (1 min) | wall (s) | CPU (s) | processes seen |")
    print("|---:|---:|---:|---:|---:|---:|")
    for round_, processes, load, wall, cpu, count in rows:
        print(f"| {round_} | {processes} | {load:.1f} | {wall:.1f} | {cpu:.1f} | {count} |")
    first, *others = args.processes
    for processes in others:
        a, b = built[first], built[processes]
        snapshot_a = next(p for p in (a / "snapshots").iterdir() if p.is_dir())
        snapshot_b = next(p for p in (b / "snapshots").iterdir() if p.is_dir())
        print(f"\n{processes} processes against {first}:")
        for folder, (x, y) in {
            "warehouse": (a / "warehouse", b / "warehouse"),
            "snapshot": (snapshot_a, snapshot_b),
        }.items():
            diff = differences(x, y)
            print(f"- {folder}: " + ("; ".join(diff) if diff else "every table identical"))


if __name__ == "__main__":
    main()
