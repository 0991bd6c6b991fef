"""One settings object reads every ``AIMI_*`` variable, from the environment or a ``.env`` in the
working directory, and every entry point goes through it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from pipelines.resources import AimiResource
from warehouse.paths import DataDir
from warehouse.registry import DEFAULT_REGISTRY, registry_path
from warehouse.settings import DEFAULT_TIERS, Settings, llm_not_configured, load_settings

ROOT = Path(__file__).resolve().parents[2]
READS_AIMI = re.compile(
    r"""(?:environ\.get|getenv)\(\s*["']AIMI_|environ\[\s*["']AIMI_\w*["']\s*\](?!\s*=[^=])"""
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("AIMI_DATA_DIR", "AIMI_AS_OF", "AIMI_REGISTRY", "AIMI_DEV_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults_without_environment_or_env_file(clean_env: Path) -> None:
    settings = load_settings()
    assert settings.data_dir == Path("data") and settings.as_of is None
    assert settings.registry is None and settings.rate_limit_tiers == DEFAULT_TIERS
    assert DataDir.from_env().root == clean_env / "data"
    assert registry_path() == DEFAULT_REGISTRY


def test_a_dot_env_in_the_working_directory_reaches_every_reader(clean_env: Path) -> None:
    (clean_env / ".env").write_text(
        "AIMI_DATA_DIR=elsewhere\nAIMI_AS_OF=2026-01-05\nAIMI_REGISTRY=/tmp/r.yaml\n"
        "AIMI_SNAPSHOT_POLL_SECONDS=0.5\n"
    )
    assert DataDir.from_env().root == clean_env / "elsewhere"  # warehouse
    assert registry_path() == Path("/tmp/r.yaml")  # the registry a build links with
    assert AimiResource().clock() == datetime(2026, 1, 5, tzinfo=UTC)  # Dagster runs
    assert load_settings().snapshot_poll_seconds == 0.5  # the server and `aimi mcp`


def test_the_environment_wins_over_the_env_file(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean_env / ".env").write_text("AIMI_DATA_DIR=from-file\n")
    monkeypatch.setenv("AIMI_DATA_DIR", str(clean_env / "from-env"))
    assert DataDir.from_env().root == clean_env / "from-env"


@pytest.mark.usefixtures("clean_env")
def test_as_of_is_utc_and_a_bad_one_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMI_AS_OF", "2025-06-30T12:00:00+02:00")
    assert load_settings().as_of == datetime(2025, 6, 30, 10, tzinfo=UTC)
    monkeypatch.setenv("AIMI_AS_OF", "")
    assert load_settings().as_of is None  # empty, as in a .env template
    monkeypatch.setenv("AIMI_AS_OF", "last tuesday")
    with pytest.raises(ValidationError, match="as_of 'last tuesday' is not an ISO 8601"):
        Settings()


@pytest.mark.usefixtures("clean_env")
def test_the_query_encoder_and_its_model_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("AIMI_QUERY_ENCODER", "AIMI_MODEL_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert settings.query_encoder == "onnx-int8"
    # a user cache, never inside the data dir that `make clean-data` deletes
    assert settings.model_cache == Path.home() / ".cache" / "aimi"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert load_settings().model_cache == tmp_path / "xdg" / "aimi"
    monkeypatch.setenv("AIMI_MODEL_CACHE", "~/models")
    assert load_settings().model_cache == Path.home() / "models"
    monkeypatch.setenv("AIMI_MODEL_CACHE", "")  # as in a .env template: unset
    assert load_settings().model_cache == tmp_path / "xdg" / "aimi"
    for encoder in ("torch", "onnx"):
        monkeypatch.setenv("AIMI_QUERY_ENCODER", encoder)
        assert load_settings().query_encoder == encoder
    monkeypatch.setenv("AIMI_QUERY_ENCODER", "int8")
    with pytest.raises(ValidationError, match="query_encoder"):
        load_settings()


def test_nothing_but_the_settings_module_reads_an_aimi_variable() -> None:
    readers = [
        f"{path.relative_to(ROOT)}:{n}"
        for package in (
            "analytics",
            "warehouse",
            "retrieval",
            "readmodel",
            "publishing",
            "pipelines",
            "serving",
            "demo",
        )
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "warehouse" / "settings.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if READS_AIMI.search(line)
    ]
    assert readers == []
    # the pattern finds reads and leaves writes (passing settings on to child processes)
    assert READS_AIMI.search('x = os.environ.get("AIMI_AS_OF")')
    assert READS_AIMI.search('os.environ["AIMI_DATA_DIR"]')
    assert not READS_AIMI.search('os.environ["AIMI_DATA_DIR"] = str(root)')


@pytest.mark.usefixtures("clean_env")
def test_decomposer_and_llm_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AIMI_LLM_BASE_URL", "AIMI_LLM_MODEL", "AIMI_LLM_KINDS", "AIMI_DECOMPOSER"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert settings.llm_kinds == () and settings.llm_base_url is None
    assert settings.decomposer == "deterministic"
    monkeypatch.setenv("AIMI_DECOMPOSER", "llm")
    assert load_settings().decomposer == "llm"
    monkeypatch.setenv("AIMI_DECOMPOSER", "")
    assert load_settings().decomposer == "deterministic"
    monkeypatch.setenv("AIMI_DECOMPOSER", "gpt")
    with pytest.raises(ValidationError, match="decomposer"):
        load_settings()
    monkeypatch.delenv("AIMI_DECOMPOSER")
    problem = llm_not_configured(settings)
    assert problem is not None and "AIMI_LLM_BASE_URL and AIMI_LLM_MODEL" in problem
    # empty values, as in a .env template, are unset
    monkeypatch.setenv("AIMI_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("AIMI_LLM_MODEL", " ")
    problem = llm_not_configured(load_settings())
    assert problem is not None and problem.startswith("the LLM decomposer needs AIMI_LLM_MODEL:")
    monkeypatch.setenv("AIMI_LLM_MODEL", "qwen2.5-7b-instruct")
    monkeypatch.setenv("AIMI_LLM_KINDS", " podcast, Essay ,")
    settings = load_settings()
    assert llm_not_configured(settings) is None and settings.llm_kinds == ("podcast", "essay")
    monkeypatch.setenv("AIMI_LLM_KINDS", "podcast,blog")
    with pytest.raises(ValidationError, match="unknown source kinds \\['blog'\\]"):
        load_settings()
