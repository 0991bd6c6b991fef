"""``aimi`` help and option checks that need no data: the help names every format ingest reads,
and enum options refuse unknown values before anything runs."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from serving.cli import app
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
