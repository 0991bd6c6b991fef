"""The notebooks run top to bottom against the session's demo snapshot (one kernel each, the
project's own interpreter), show what they claim to show, and are committed without outputs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode

from warehouse.paths import DataDir
from warehouse.tables import open_catalog

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = (
    "01_explore_warehouse.ipynb",
    "02_entity_trends.ipynb",
    "03_search_playground.ipynb",
    "04_themes.ipynb",
)
# Per cell; the slowest is 03's setup (MiniLM load and the snapshot's checksums), a few seconds.
CELL_TIMEOUT_S = 60
PROBE = "probe"


def run(
    name: str, data_dir: DataDir, monkeypatch: pytest.MonkeyPatch, probe: str | None = None
) -> dict[str, NotebookNode]:
    """Execute a notebook with ``AIMI_DATA_DIR`` pointing at ``data_dir``; its code cells by id.

    ``probe`` is a cell appended to the in-memory copy that prints JSON about the notebook's
    variables. Fails on an error or anything written to stderr (a warning included).
    """
    monkeypatch.setenv("AIMI_DATA_DIR", str(data_dir.root))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # nbformat has no annotations on these two
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)  # type: ignore[no-untyped-call]
    if probe is not None:
        cell = nbformat.v4.new_code_cell(probe)  # type: ignore[no-untyped-call]
        cell["id"] = PROBE
        notebook.cells.append(cell)
    NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},  # the working dir Jupyter gives it
    ).execute()
    cells = {cell["id"]: cell for cell in notebook.cells if cell.cell_type == "code"}
    problems = [
        (cell_id, output.get("ename") or output.get("text"))
        for cell_id, cell in cells.items()
        for output in cell.outputs
        if output.output_type == "error"
        or (output.output_type == "stream" and output.name == "stderr")
    ]
    assert problems == []
    return cells


def shown(cell: NotebookNode, mime: str = "text/plain") -> list[str]:
    return [out.data[mime] for out in cell.outputs if mime in out.get("data", {})]


def probed(cells: dict[str, NotebookNode]) -> Any:
    text = "".join(out.text for out in cells[PROBE].outputs if out.output_type == "stream")
    return json.loads(text)


def query(data_dir: DataDir, sql: str) -> list[tuple[Any, ...]]:
    with open_catalog(data_dir) as con:
        return con.sql(sql).fetchall()


def test_explore_warehouse(demo_data_dir: DataDir, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = run("01_explore_warehouse.ipynb", demo_data_dir, monkeypatch)
    [overview] = shown(cells["overview"])
    for table in ("signals", "units"):
        [(expected,)] = query(demo_data_dir, f"SELECT count(*) FROM {table}")
        found = re.search(rf"│ {table}\s+┆ (\d+)\s+│", overview)
        assert found is not None, overview
        assert int(found.group(1)) == expected > 0
    assert len(shown(cells["weekly-plot"], "image/png")) == 1


def test_entity_trends(demo_data_dir: DataDir, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = run(
        "02_entity_trends.ipynb",
        demo_data_dir,
        monkeypatch,
        probe='import json; print(json.dumps({"rising": rising["key"].to_list(), '
        '"neighbours": neighbours["key"].to_list()}))',
    )
    [(top_name,)] = query(
        demo_data_dir,
        "SELECT name FROM entity_profiles WHERE reviewed "
        "ORDER BY signal_count DESC, entity_id LIMIT 1",
    )
    assert top_name in shown(cells["entity"])[0]
    assert len(shown(cells["share-of-voice"], "image/png")) == 1
    state = probed(cells)
    assert state["neighbours"]
    # the same list as the API's mode=rising, and the same entities as the rule in plain SQL
    served = query(
        demo_data_dir,
        "SELECT entity_id FROM entity_profiles WHERE rank_rising IS NOT NULL ORDER BY rank_rising",
    )
    assert state["rising"] == [entity_id for (entity_id,) in served]
    by_rule = query(
        demo_data_dir,
        "SELECT t.key FROM entity_trends t JOIN entities e ON e.entity_id = t.key "
        "WHERE e.reviewed AND t.signal_count >= 2 AND t.current_week >= 2 "
        # the share rule of the direction label, cross-multiplied: r >= 5/4, or new
        "AND t.recent_mentions > 0 AND t.recent_total > 0 AND (t.prior_mentions = 0 "
        "OR t.prior_total = 0 OR 4 * t.recent_mentions * t.prior_total "
        ">= 5 * t.prior_mentions * t.recent_total)",
    )
    assert sorted(state["rising"]) == sorted(key for (key,) in by_rule) != []


def test_search_playground(demo_data_dir: DataDir, monkeypatch: pytest.MonkeyPatch) -> None:
    probe = """
import json
print(json.dumps({
    name: frame.select("unit_id", "role", "verbatim").to_dicts()
    for name, frame in {"hits": hits, "claims": claims, "similar": similar}.items()
} | {"first": first}))
"""
    cells = run("03_search_playground.ipynb", demo_data_dir, monkeypatch, probe=probe)
    for plot in ("scores-plot", "timeline-plot"):
        assert len(shown(cells[plot], "image/png")) == 1, plot
    state = probed(cells)
    for name in ("hits", "claims", "similar"):
        assert state[name], name
        assert all(hit["verbatim"] for hit in state[name]), name
    assert {hit["role"] for hit in state["claims"]} == {"claim"}
    claim_ids = ", ".join(f"'{hit['unit_id']}'" for hit in state["claims"])
    themes = query(
        demo_data_dir, f"SELECT themes FROM served_search_units WHERE unit_id IN ({claim_ids})"
    )
    assert len(themes) == len(state["claims"])
    assert all("Regulatory & Legal" in labels for (labels,) in themes)
    assert state["first"] == state["hits"][0]["unit_id"]
    assert state["first"] not in {hit["unit_id"] for hit in state["similar"]}


def test_themes_on_a_copied_data_dir(
    demo_data_dir: DataDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The themes notebook shows the demo's planted shift (Regulatory & Legal up, Capital &
    Investment down, DESIGN's demo corpus) and the co-occurrence the warehouse holds; it runs on
    a copy of the data dir somewhere else, whose catalog was never rebuilt: its views' paths are
    relative to the data dir."""
    copy = DataDir(tmp_path / "copied" / "data")
    shutil.copytree(
        demo_data_dir.root, copy.root, ignore=shutil.ignore_patterns("inbox", "dagster", "*.lock")
    )
    # nothing in the copy's catalog leads back to the original
    views = query(copy, "SELECT sql FROM duckdb_views() WHERE NOT internal")
    assert views and not any(str(demo_data_dir.root) in sql for (sql,) in views)
    probe = """
import json
print(json.dumps({"movers": movers["theme"].to_list(), "change": movers["change_pp"].to_list(),
                  "labels": labels, "matrix": matrix, "theme": THEME}))
"""
    cells = run("04_themes.ipynb", copy, monkeypatch, probe=probe)
    for plot in ("weekly-plot", "movers", "rise", "heatmap"):
        assert len(shown(cells[plot], "image/png")) == 1, plot
    state = probed(cells)
    assert state["theme"] == "Regulatory & Legal"
    assert state["movers"][0] == "Regulatory & Legal" and state["change"][0] > 10
    assert state["movers"][-1] == "Capital & Investment" and state["change"][-1] < -10
    [(direction,)] = query(
        copy, "SELECT direction FROM theme_trends WHERE key = 'Regulatory & Legal'"
    )
    assert direction == "Rising"
    # the heatmap is the co-occurrence table, symmetric, with each theme's count on the diagonal
    labels, matrix = state["labels"], state["matrix"]
    assert len(labels) == 12 and all(
        matrix[i][j] == matrix[j][i] for i in range(12) for j in range(12)
    )
    for a, b, count in query(copy, "SELECT key_a, key_b, count FROM theme_cooccurrence"):
        assert matrix[labels.index(a)][labels.index(b)] == count
    for key, count in query(copy, "SELECT key, signal_count FROM theme_trends"):
        assert matrix[labels.index(key)][labels.index(key)] == count


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs(name: str) -> None:
    notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    assert set(notebook["metadata"]) <= {"kernelspec", "language_info"}
    for cell in notebook["cells"]:
        assert set(cell["metadata"]) <= {"tags"}, cell["id"]
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [], cell["id"]
            assert cell["execution_count"] is None, cell["id"]
