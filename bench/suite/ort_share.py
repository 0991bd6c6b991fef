"""Sum what ``bench/suite/sitecustomize.py`` recorded: the CPU of every process of a run and the
part of it spent in ONNX Runtime inference, by model file (issue 28)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def main(path: str) -> None:
    lines = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    cpu = sum(line["cpu_s"] for line in lines)
    ort: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for line in lines:
        ort.update(line["ort_s"])
        calls.update(line["ort_calls"])
    print(f"{len(lines)} processes, {cpu:.1f} s of CPU between them")
    for model, seconds in ort.most_common():
        print(f"  {model}: {seconds:.1f} s in {calls[model]} runs ({seconds / cpu:.1%})")
    print(f"  ONNX Runtime in all: {sum(ort.values()):.1f} s ({sum(ort.values()) / cpu:.1%})")


if __name__ == "__main__":
    main(sys.argv[1])
