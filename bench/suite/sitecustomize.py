"""Count the CPU that ONNX Runtime inference takes in every Python process of a run (issue 28:
how much of the suite's time depends on the CPU's vector instructions).

Put this folder first on ``PYTHONPATH`` and name an output file; every interpreter started with
that environment (the test session, its xdist workers, the builds and servers it starts)
appends one JSON line at exit: its pid, its own CPU seconds, and the CPU seconds spent inside
``InferenceSession.run`` by model file::

    ORT_SHARE_OUT=/tmp/ort.jsonl PYTHONPATH=bench/suite .venv/bin/python -m pytest -n auto
    .venv/bin/python -m bench.suite.ort_share /tmp/ort.jsonl

onnxruntime is not imported here: the counter is installed when a process imports it. A
process that ends with ``os._exit`` or a kill writes no line (it is counted as missing work,
never invented).
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.util
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_OUT = os.environ.get("ORT_SHARE_OUT")
_by_model: defaultdict[str, float] = defaultdict(float)
_calls: defaultdict[str, int] = defaultdict(int)


def _install(module: Any) -> None:
    session = module.InferenceSession
    init, run = session.__init__, session.run

    def counted_init(self: Any, path: Any, *args: Any, **kwargs: Any) -> None:
        self._ort_share_model = Path(str(path)).name
        init(self, path, *args, **kwargs)

    def counted_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return run(self, *args, **kwargs)
        finally:
            model = getattr(self, "_ort_share_model", "?")
            _by_model[model] += time.process_time() - start
            _calls[model] += 1

    session.__init__, session.run = counted_init, counted_run


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:  # noqa: ARG002
        if name != "onnxruntime":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute = loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            _install(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _write() -> None:
    assert _OUT is not None
    times = os.times()
    line = {
        "pid": os.getpid(),
        "argv": " ".join(sys.argv)[:200],
        "cpu_s": round(times.user + times.system, 3),
        "ort_s": {m: round(s, 3) for m, s in _by_model.items()},
        "ort_calls": dict(_calls),
    }
    with open(_OUT, "a", encoding="utf-8") as fh:  # one short line: appends do not interleave
        fh.write(json.dumps(line) + "\n")


if _OUT:
    sys.meta_path.insert(0, _Finder())
    atexit.register(_write)
