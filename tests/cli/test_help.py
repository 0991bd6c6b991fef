"""``aimi`` help and option checks that need no data: every help text shows whole and unbroken
(the ingest help names every format it reads), enum options refuse unknown values before
anything runs, and errors name the fix."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from cli.app import app
from warehouse.readers import SUPPORTED_SUFFIXES


def test_ingest_help_names_every_format_it_reads() -> None:
    shown = CliRunner().invoke(app, ["ingest", "--help"], terminal_width=200)
    assert shown.exit_code == 0
    assert [s for s in SUPPORTED_SUFFIXES if s not in shown.output] == []


def test_review_list_refuses_an_unknown_role(tmp_path: Path) -> None:
    refused = CliRunner().invoke(
        app,
        ["review", "list", "--role", "nonsense", "--data-dir", str(tmp_path)],
        terminal_width=200,
    )
    assert refused.exit_code == 2
    flat = " ".join(refused.output.replace("│", " ").split())  # the error box wraps it
    assert "'nonsense' is not one of 'thesis', 'synopsis', 'argument', 'claim'" in flat


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group under ``command``, with the words that invoke it."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app)))


def _help(path: tuple[str, ...], columns: int) -> str:
    shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert shown.exit_code == 0, shown.output
    return shown.output


def _plain(text: str) -> str:
    """``text`` as Markdown shows it, one space between words: no code marks."""
    return " ".join(inspect.cleandoc(text).replace("`", "").split())


def _lines(output: str) -> list[str]:
    return [" ".join(line.replace("│", " ").split()) for line in output.splitlines()]


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_shows_every_paragraph_whole_and_unbroken(path: tuple[str, ...], command: Any) -> None:
    """On a wide terminal each paragraph of a command's help, each option's help and each
    subcommand's summary is one line of the output: nothing the source wraps is broken there,
    and nothing Markdown would swallow (such as ``<data dir>``) is lost. On an 80-column one no
    word is cut short."""
    wide = _lines(_help(path, 2000))
    texts = [_plain(p) for p in (command.help or "").split("\n\n") if p.strip()]
    texts += [_plain(param.help) for param in command.params if getattr(param, "help", None)]
    texts += [
        _plain((sub.help or "").split("\n\n")[0])
        for sub in getattr(command, "commands", {}).values()
    ]
    for text in texts:
        assert any(text in line for line in wide), (path, text)
    narrow = _help(path, 80)
    assert "…" not in narrow.replace("ent:/…", "").replace("json/v1/…", ""), narrow


def test_enum_options_refuse_unknown_values_before_anything_runs(tmp_path: Path) -> None:
    """Each option with a fixed set of values names them when refusing one, before it reads
    the (here empty) data dir or starts anything."""
    cases = [
        (["encoder", "export", "--precision", "int4"], "'int4' is not one of 'fp32', 'int8'"),
        (
            [
                "entities",
                "review",
                "approve",
                "Foo",
                "--type",
                "robot",
                "--data-dir",
                str(tmp_path),
            ],
            "'robot' is not one of 'organization', 'person', 'model', 'hardware'",
        ),
        (["build", "--decomposer", "gpt", "--data-dir", str(tmp_path)], "'gpt' is not one of"),
        (
            ["watch", "add", "x", "--url", "http://127.0.0.1/", "--format", "teams"],
            "'teams' is not one of 'aimi', 'slack'",
        ),
        (
            ["watch", "add", "x", "--url", "http://127.0.0.1/", "--digest", "hourly"],
            "'hourly' is not one of 'daily', 'weekly'",
        ),
        (["serve", "--port", "70000", "--data-dir", str(tmp_path)], "less than or equal to 65535"),
    ]
    for args, message in cases:
        refused = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
        assert refused.exit_code == 2, (args, refused.output)
        assert message in " ".join(refused.output.replace("│", " ").split()), refused.output


def test_errors_name_the_fix(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path)]
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cases = [
        (["keys", "revoke", "0123456789ab", *data], 1, "`aimi keys list` shows them"),
        (["keys", "create", "--name", " ", *data], 1, "a key name must be 1–"),
        (["build", "--as-of", "soon", *data], 2, "not an ISO 8601 date or date-time (e.g. 2026"),
        (["build", "--as-of", "2026-01-01", "--demo", *data], 2, "give only one of them"),
        (
            ["demo-data", "--out", str(blocker / "demo"), *data],
            1,
            "give --out a folder you can write",
        ),
    ]
    for args, status, message in cases:
        result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
        assert result.exit_code == status, (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert message in " ".join(result.output.replace("│", " ").split()), result.output
    assert not (tmp_path / "snapshots").exists()  # the refused build never started
