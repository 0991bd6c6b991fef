"""The machine a run happened on, in one line: the suite prints it under its summary, so a CI
log states the CPU's vector instructions beside the suite's time (issue 28: ONNX Runtime picks
its kernels from them, and int8 inference is about twice as fast with AVX-512 VNNI)."""

from __future__ import annotations

import os
from pathlib import Path

# the flags that decide which kernels ONNX Runtime and NumPy run, in the order they are printed
VECTOR_FLAGS = (
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx512dq",
    "avx512vl",
    "avx512_vnni",
    "avx_vnni",
    "amx_int8",
)


def machine_line(cpuinfo: str, cores: int | None) -> str:
    """``cores`` cores, the CPU's model name and which of ``VECTOR_FLAGS`` it has, from the text
    of ``/proc/cpuinfo`` (its first processor)."""
    model, flags = "unknown CPU", set[str]()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown CPU":
            model = value.strip()
        elif key == "flags":
            flags = set(value.split())
            break
    present = [flag for flag in VECTOR_FLAGS if flag in flags]
    missing = [flag for flag in ("avx512f", "avx512_vnni") if flag not in flags]
    line = f"machine: {cores or '?'} cores, {model}; vector flags: {' '.join(present) or 'none'}"
    return line + (f" (no {', '.join(missing)})" if missing else "")


def this_machine() -> str:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = ""
    return machine_line(cpuinfo, os.cpu_count())
