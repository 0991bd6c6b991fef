"""``aimi build`` and ``python -m pipelines build``: one set of options with one help text, the
same checks refusing the same mistakes before anything runs, and the LLM decomposer chosen by
the option or the setting."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import cli.build
import pipelines.__main__
from cli.app import app
from pipelines.options import BuildRequest
from tests.pipelines.test_llm import MODEL

ROOT = Path(__file__).resolve().parent.parent.parent


def _options(typer_app: typer.Typer, *path: str) -> dict[str, tuple[Any, ...]]:
    command: Any = typer.main.get_command(typer_app)
    for name in path:
        command = command.commands[name]
    return {
        param.name: (
            tuple(param.opts),
            param.help,
            param.default,
            param.show_default,
            param.type_descriptor.annotation,
        )
        for param in command.params
    }


def test_both_entry_points_take_the_same_build_options() -> None:
    aimi = _options(app, "build")
    module = _options(pipelines.__main__.app, "build")
    assert aimi.pop("demo")[0] == ("--demo",)  # the one option of aimi's own
    assert aimi == module
    assert set(module) == {
        "as_of",
        "wall_clock",
        "reextract",
        "decomposer",
        "processes",
        "data_dir",
    }


def test_the_build_options_are_declared_once() -> None:
    """Each build option is one ``typer.Option(...)`` call, in ``pipelines.options``: a second
    declaration in ``cli`` or ``pipelines`` fails here."""
    declared: dict[str, list[str]] = {}
    for package in ("cli", "pipelines"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "Option"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    where = str(path.relative_to(ROOT))
                    declared.setdefault(str(node.args[0].value), []).append(where)
    for flag in ("--wall-clock", "--reextract", "--decomposer", "--processes", "--data-dir"):
        assert declared[flag] == ["pipelines/options.py"], flag
    # `refresh` takes a clock of its own, which no data dir remembers
    assert sorted(declared["--as-of"]) == ["pipelines/__main__.py", "pipelines/options.py"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--as-of", "soon"], "not an ISO 8601 date or date-time (e.g. 2026"),
        (["--as-of", "2026-01-01", "--wall-clock"], "give only one of them"),
        (["--decomposer", "gpt"], "'gpt' is not one of"),
    ],
)
def test_both_entry_points_refuse_the_same_mistakes(
    options: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cli.build, "run_build", _never)
    monkeypatch.setattr(pipelines.__main__, "run_build", _never)
    args = ["build", *options, "--data-dir", str(tmp_path)]
    refused = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert refused.exit_code == 2
    assert message in " ".join(refused.output.replace("│", " ").split())
    monkeypatch.setenv("COLUMNS", "400")
    assert pipelines.__main__.main(args) == 2
    assert message in " ".join(capsys.readouterr().err.replace("│", " ").split())


def test_a_fixed_clock_in_the_environment_refuses_the_wall_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli.build, "run_build", _never)
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    monkeypatch.setenv("COLUMNS", "400")
    refused = CliRunner().invoke(app, ["build", "--wall-clock", "--data-dir", str(tmp_path)])
    assert refused.exit_code == 2
    assert "AIMI_AS_OF is set" in refused.output


def _never(*_: object) -> int:
    raise AssertionError("a refused build must not start")


def test_demo_fixes_the_demo_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from demo import DEMO_AS_OF

    monkeypatch.delenv("AIMI_AS_OF", raising=False)
    requests: list[BuildRequest] = []
    monkeypatch.setattr(cli.build, "run_build", lambda _, r: requests.append(r) or 0)
    assert CliRunner().invoke(app, ["build", "--demo", "--data-dir", str(tmp_path)]).exit_code == 0
    assert requests == [BuildRequest(as_of=DEMO_AS_OF)]


def test_aimi_build_takes_the_decomposer_and_fails_early_without_an_endpoint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    requests: list[BuildRequest] = []
    monkeypatch.setattr(cli.build, "run_build", lambda _, r: requests.append(r) or 0)
    monkeypatch.chdir(tmp_path)  # no .env with LLM settings
    for name in ("AIMI_LLM_BASE_URL", "AIMI_LLM_MODEL", "AIMI_DECOMPOSER"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()

    def aimi_build(*options: str) -> Any:
        return runner.invoke(app, ["build", *options, "--data-dir", str(tmp_path)])

    assert "--decomposer" in runner.invoke(app, ["build", "--help"]).output
    # the LLM chosen by the option or by AIMI_DECOMPOSER, and no endpoint: nothing starts
    failed = aimi_build("--decomposer", "llm")
    assert failed.exit_code == 2 and requests == []
    assert "AIMI_LLM_BASE_URL" in failed.output and "AIMI_LLM_MODEL" in failed.output
    monkeypatch.setenv("AIMI_DECOMPOSER", "llm")
    assert aimi_build().exit_code == 2 and requests == []
    # the option wins over the setting
    assert aimi_build("--decomposer", "deterministic").exit_code == 0
    assert requests.pop().decomposer == "deterministic"
    monkeypatch.setenv("AIMI_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AIMI_LLM_MODEL", MODEL)
    assert aimi_build("--decomposer", "llm").exit_code == 0
    assert requests.pop().decomposer == "llm"
    # without the option the build reads AIMI_DECOMPOSER itself
    assert aimi_build().exit_code == 0
    assert requests.pop().decomposer is None
