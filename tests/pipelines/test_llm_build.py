"""`aimi build --decomposer llm` end to end, against a local OpenAI-compatible test server
(``tests.llm_server``, a test double for the external endpoint): the LLM's units are served, a
signal whose request fails gets the deterministic extractor's without failing the build, and a
later build asks the endpoint nothing it has answered before."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dagster as dg
import orjson
import polars as pl
import pytest

from analytics.decompose import CURRENT_EXTRACTION_VERSION
from analytics.llm_units import extraction_version
from pipelines.__main__ import main as pipelines_main
from pipelines.defs.decompose.assets import units
from pipelines.resources import AimiResource
from tests.llm_server import LlmTestServer, Received, Reply, answer, llm_server
from tests.pipelines.test_llm import CENTRAL, ESSAY, GOOD_ANSWER, MODEL, SOURCE
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
NEWS = {
    "kind": "news",
    "title": "Acme raises",
    "url": "https://news.example.com/acme",
    "published_at": "2026-05-21T08:00:00Z",
    "text": "Acme raised $2 billion on Monday. The round was led by Beta Capital.",
}


def respond(received: Received) -> Reply:
    """The essay's answer; for the news, a server error."""
    return answer(GOOD_ANSWER) if SOURCE in received.source_text() else Reply(status=500)


def asked(server: LlmTestServer) -> list[str]:
    """The titles of the sources the server was asked about, in order."""
    return [r.source_text().split("\n")[1].removeprefix("Title: ") for r in server.received]


def units_metadata(data: DataDir) -> dict[str, Any]:
    """The metadata of the last materialization of ``units`` in the data dir's Dagster home."""
    with dg.DagsterInstance.from_config(str(data.dagster_home)) as instance:
        event = instance.get_latest_materialization_event(dg.AssetKey("units"))
    assert event is not None and event.asset_materialization is not None
    return {key: value.value for key, value in event.asset_materialization.metadata.items()}


def build(data: DataDir, *extra: str) -> None:
    args = ["build", "--data-dir", str(data.root), "--as-of", AS_OF.isoformat(), *extra]
    assert pipelines_main(args) == 0


def versions(data: DataDir) -> dict[str, str]:
    signals = pl.read_parquet(data.table_path("signals")).select("signal_id", "kind")
    extractions = pl.read_parquet(data.table_path("extractions"))
    return dict(
        extractions.join(signals, on="signal_id").select("kind", "extraction_version").rows()
    )


def served_thesis(data: DataDir) -> str:
    opened = open_current(data)
    assert opened is not None
    essay = opened.read_table("signals").filter(pl.col("title") == ESSAY["title"])
    detail: dict[str, Any] = orjson.loads(essay["detail_json"][0])
    return next(u["text"] for u in detail["units"] if u["role"] == "thesis")


def inbox(root: Path) -> DataDir:
    data = DataDir(root)
    data.inbox.mkdir(parents=True)
    (data.inbox / "batch.jsonl").write_text("\n".join(json.dumps(r) for r in (ESSAY, NEWS)) + "\n")
    return data


@pytest.mark.slow
def test_build_with_the_llm_then_from_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m pipelines build` keeps its Dagster home in the data dir and says so in
    # DAGSTER_HOME: restored after the test
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    first = inbox(tmp_path / "first")
    with llm_server(respond) as server:
        monkeypatch.setenv("AIMI_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("AIMI_LLM_MODEL", MODEL)
        monkeypatch.setenv("AIMI_LLM_RETRIES", "0")
        build(first, "--decomposer", "llm")
        assert sorted(asked(server)) == [NEWS["title"], ESSAY["title"]]
        # the news' request failed: the deterministic extractor's units, and a build that passed
        assert versions(first) == {
            "essay": extraction_version(MODEL),
            "news": CURRENT_EXTRACTION_VERSION,
        }
        assert served_thesis(first) == CENTRAL["text"]
        metadata = units_metadata(first)
        assert metadata["llm/signals_decomposed"] == 1 and metadata["llm/requests"] == 2
        assert metadata["llm/fallback/http_error"] == 1 and metadata["llm/cache_hits"] == 0
        assert metadata["rejected/contradicts_evidence"] == 0  # every rule shows, zeros too

        # a warehouse that has the answers but none of the units (rebuilt from its sources):
        # every signal is decomposed again, the essay's answer comes from the cache, and the
        # news, whose request failed, is asked again
        second = inbox(tmp_path / "second")
        answers = pl.read_parquet(first.table_path("llm_answers"))
        assert answers.height == 1
        second.table_path("llm_answers").parent.mkdir(parents=True)
        answers.write_parquet(second.table_path("llm_answers"))
        monkeypatch.setenv("AIMI_DECOMPOSER", "llm")  # the setting, this time
        build(second)
        assert asked(server)[2:] == [NEWS["title"]]
        assert versions(second)["essay"] == extraction_version(MODEL)
        assert served_thesis(second) == CENTRAL["text"]
        metadata = units_metadata(second)
        assert metadata["llm/cache_hits"] == 1 and metadata["llm/requests"] == 1


def test_a_ui_run_that_chooses_the_llm_without_an_endpoint_fails_saying_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("AIMI_LLM_BASE_URL", "AIMI_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    resource = AimiResource(data_dir=str(tmp_path / "data"), decomposer="llm")
    result = dg.materialize([units], resources={"aimi": resource}, raise_on_error=False)
    assert not result.success
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    assert failure.step_failure_data is not None
    assert failure.step_failure_data.user_failure_data is not None
    description = failure.step_failure_data.user_failure_data.description or ""
    assert "AIMI_LLM_BASE_URL and AIMI_LLM_MODEL" in description
