"""``aimi entities review`` end to end: list the demo's discovered names, approve one with a type,
merge one into a registry entity, reject one, rebuild, and find each decision in the warehouse,
the entity list and the change feed."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analytics.entity_review import ACCEPTED, APPROVED, CANDIDATE, REGISTRY
from analytics.schema import ENTITIES, SIGNAL_ENTITIES
from cli.app import app
from demo import DEMO_AS_OF
from pipelines.build import build
from warehouse.entity_reviews import read_entity_reviews
from warehouse.paths import DataDir
from warehouse.snapshot import open_current
from warehouse.tables import read_table

pytestmark = pytest.mark.snapshot
runner = CliRunner()


def aimi(data: DataDir, *args: str) -> str:
    result = runner.invoke(app, [*args, "--data-dir", str(data.root)])
    assert result.exit_code == 0, result.output
    return result.stdout


def entities(data: DataDir) -> pl.DataFrame:
    return read_table(data, "entities", ENTITIES)


def linked(data: DataDir, entity_id: str) -> set[str]:
    mentions = read_table(data, "signal_entities", SIGNAL_ENTITIES)
    return set(mentions.filter(pl.col("entity_id") == entity_id)["signal_id"])


def served(data: DataDir) -> pl.DataFrame:
    snapshot = open_current(data)
    assert snapshot is not None
    return snapshot.read_table("signals")


@pytest.fixture(scope="module")
def data(demo_data_dir: DataDir, tmp_path_factory: pytest.TempPathFactory) -> DataDir:
    copy = DataDir(tmp_path_factory.mktemp("entity-review") / "data")
    shutil.copytree(demo_data_dir.root, copy.root, ignore=shutil.ignore_patterns("dagster"))
    return copy


def test_list_shows_candidates_most_signals_first_with_passages(data: DataDir) -> None:
    out = aimi(data, "entities", "review", "list", "--limit", "5", "--all")
    lines = [line for line in out.splitlines() if not line.startswith("    ")]
    assert len(lines) == 5
    counts = [int(line.split("; ")[1].split()[0]) for line in lines]
    assert counts == sorted(counts, reverse=True)
    assert out.count("\n    ") >= 5  # example passages under the names
    shown = {line.split("  (")[0] for line in lines}
    discovered = entities(data).filter(pl.col("status").is_in([CANDIDATE, ACCEPTED]))
    assert shown <= set(discovered["name"])


def test_decisions_apply_at_the_next_build(data: DataDir) -> None:
    before = entities(data)
    found = before.filter(pl.col("status") == CANDIDATE).sort("name")
    assert found.height >= 2, "the demo corpus should leave unaccepted candidates"
    approve = before.filter(pl.col("status") == ACCEPTED).sort("name").row(0, named=True)
    reject = found.row(0, named=True)
    merge = found.row(1, named=True)
    target = before.filter(pl.col("status") == REGISTRY).sort("name").row(0, named=True)
    seq_before = served(data)["change_seq"].max()
    assert isinstance(seq_before, int)
    linked_before = linked(data, target["entity_id"])

    kind = "event" if approve["type"] != "event" else "other"
    assert "approved" in aimi(
        data, "entities", "review", "approve", approve["name"], "--type", kind
    )
    assert "merged" in aimi(
        data, "entities", "review", "merge", merge["name"].upper(), "--into", target["entity_id"]
    )
    assert "rejected" in aimi(data, "entities", "review", "reject", reject["name"])
    assert [d.decision for d in read_entity_reviews(data)] == ["approve", "merge", "reject"]
    # decided names leave the list of pending ones
    pending = aimi(data, "entities", "review", "list", "--limit", "100000", "--all")
    for row in (approve, merge, reject):
        assert f"\n{row['name']}  (" not in "\n" + pending

    build(data, as_of=DEMO_AS_OF, persistent=False)
    after = entities(data)
    by_id = {row["entity_id"]: row for row in after.iter_rows(named=True)}
    approved = by_id[approve["entity_id"]]  # the id is kept
    assert (approved["status"], approved["type"], approved["reviewed"]) == (APPROVED, kind, True)
    assert reject["name"] not in set(after["name"])  # never proposed again
    assert merge["name"] not in set(after["name"])
    merged_into = by_id[target["entity_id"]]
    assert merge["name"] in {a["text"] for a in merged_into["aliases"]}
    # the merged name's signals now count for the target, and their cards changed in the feed
    gained = linked(data, target["entity_id"]) - linked_before
    assert gained
    changed = set(served(data).filter(pl.col("change_seq") > seq_before)["signal_id"])
    assert gained <= changed


def test_bad_decisions_are_refused(data: DataDir) -> None:
    def refused(*args: str) -> str:
        result = runner.invoke(app, [*args, "--data-dir", str(data.root)])
        assert result.exit_code != 0, result.output
        return result.output

    assert "no discovered name" in refused("entities", "review", "reject", "Nobody Anywhere")
    name = entities(data).filter(pl.col("status") == CANDIDATE).row(0, named=True)["name"]
    assert "gadget" in refused("entities", "review", "approve", name, "--type", "gadget")
    assert "no registry or approved entity" in refused(
        "entities", "review", "merge", name, "--into", "ent:/nothing"
    )


def test_a_hand_edited_reviews_file_that_cannot_apply_fails_the_build(
    data: DataDir, tmp_path: Path
) -> None:
    broken = DataDir(tmp_path / "data")
    shutil.copytree(data.root, broken.root, ignore=shutil.ignore_patterns("dagster"))
    with broken.entity_reviews_file.open("a", encoding="utf-8") as fh:
        fh.write(
            '{"name": "X", "decision": "merge", "into": "ent:/nothing", '
            '"reviewed_at": "2026-11-25T00:00:00Z"}\n'
        )
    with pytest.raises(Exception, match="entity reviews file"):
        build(broken, as_of=DEMO_AS_OF, persistent=False)
