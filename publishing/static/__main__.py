"""``python -m publishing.static SNAPSHOT_FOLDER [PREVIOUS_FOLDER]``: write the snapshot's static
JSON tree and site, linking unchanged files from the previous snapshot's, and print the report
as one JSON line. The ``static_site`` Dagster asset runs this in a child
interpreter, since the pipelines never import the serving package (docs/design.md §2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from publishing.static.build import StaticSiteError, write_static
from warehouse.snapshot import SnapshotError


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        sys.stderr.write("usage: python -m publishing.static SNAPSHOT_FOLDER [PREVIOUS_FOLDER]\n")
        return 2
    try:
        report = write_static(Path(argv[0]), Path(argv[1]) if len(argv) == 2 else None)
    except (StaticSiteError, SnapshotError) as exc:
        sys.stderr.write(f"static site: {exc}\n")
        return 1
    sys.stdout.write(json.dumps(report.to_json()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
