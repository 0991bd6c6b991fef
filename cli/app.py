"""The ``aimi`` command line: the root Typer app and its commands, each from its module
(``cli.ingest``, ``cli.build``, ``cli.serve`` …); the console script calls ``main``."""

from __future__ import annotations

import typer

from cli.build import build
from cli.demo import demo_data
from cli.encoder import encoder_app
from cli.entities import entities_app
from cli.export import export
from cli.ingest import ingest
from cli.keys import keys_app
from cli.mcp import mcp
from cli.review import review_app
from cli.serve import serve
from cli.site import site_app
from cli.snapshots import snapshots_app
from cli.sources import fetch, sources_app
from cli.status import status
from cli.watch import watch_app

app = typer.Typer(
    help="aimi: verified market intelligence about the AI economy.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# the order `aimi --help` lists them in
for name, group in (
    ("keys", keys_app),
    ("review", review_app),
    ("encoder", encoder_app),
    ("entities", entities_app),
    ("site", site_app),
    ("snapshots", snapshots_app),
    ("sources", sources_app),
    ("watch", watch_app),
):
    app.add_typer(group, name=name)
app.command()(status)
app.command()(ingest)
app.command()(fetch)
app.command()(build)
app.command("demo-data")(demo_data)
app.command()(serve)
app.command()(mcp)
app.command()(export)


def markdown_help(typer_app: typer.Typer) -> None:
    """Render ``typer_app``'s help texts and its subcommands' as Markdown, so a paragraph wraps
    to the terminal whatever its line breaks in the source (Typer's default markup keeps them
    in every paragraph but a command's first, and in the list of commands)."""
    typer_app.rich_markup_mode = "markdown"
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            markdown_help(group.typer_instance)


markdown_help(app)


def main() -> None:
    app()
