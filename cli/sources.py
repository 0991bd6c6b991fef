"""``aimi sources`` (the followed feeds, sites and sitemaps in ``<data dir>/sources.yaml``) and
``aimi fetch`` (fetch what is due into the inbox and ingest it), docs/sources.md."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import typer

if TYPE_CHECKING:
    from fetch.run import FetchReport

from cli.common import DataDirOption, data_dir_of, echo

sources_app = typer.Typer(
    help="The sources aimi follows: feeds (RSS, Atom, JSON Feed), sites (their feed found on "
    "the home page), sitemaps and podcast transcripts, kept in `<data dir>/sources.yaml`.",
    no_args_is_help=True,
)

MAX_PRINTED_FAILURES = 25


@sources_app.command("add")
def sources_add(
    url: Annotated[str, typer.Argument(help="A feed, a site's home page, or a sitemap.")],
    name: Annotated[
        str | None,
        typer.Option("--name", help="A short id (lower case, digits, . _ -); default: the host."),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="The signal kind of its items: article, essay, memo, social, paper, news, "
            "podcast (default: podcast for an audio feed, else article).",
        ),
    ] = None,
    backfill: Annotated[
        bool,
        typer.Option("--backfill", help="Also take older pages from the site's sitemaps."),
    ] = False,
    every: Annotated[
        str, typer.Option("--every", help="How often it is due: 30m, 6h, 1d, 1w.")
    ] = "1d",
    data_dir: DataDirOption = None,
) -> None:
    """Follow a source. The URL is fetched (robots.txt obeyed) to find its feed: a feed URL is
    taken as it is, a home page's `<link rel="alternate">` feed is found, a sitemap is read
    page by page. Exit status 2, with the reason, when nothing can be followed there."""
    from analytics.schema import SOURCE_KINDS
    from fetch.discover import DiscoveryError, discover
    from fetch.http import FetchPolicy, PoliteClient
    from fetch.sources import (
        Source,
        SourceListError,
        add_source,
        check_name,
        load_sources,
        parse_every,
    )
    from warehouse.settings import load_settings

    data = data_dir_of(data_dir)
    try:
        parse_every(every)
        if kind is not None and kind not in SOURCE_KINDS:
            raise SourceListError(f"--kind {kind!r} is not one of {', '.join(SOURCE_KINDS)}")
        host = (urlsplit(url).hostname or "").removeprefix("www.")
        chosen = check_name(name or host or "source")
        if load_sources(data).get(chosen) is not None:
            raise SourceListError(
                f"a source named {chosen!r} exists already; choose another with --name"
            )
        with PoliteClient(FetchPolicy.from_settings(load_settings())) as client:
            found = discover(client, url, backfill=backfill)
        source = add_source(
            data,
            Source(
                name=chosen,
                url=url,
                feed=found.feed,
                sitemaps=found.sitemaps,
                kind=kind or found.kind,
                every=every,
                backfill=backfill,
            ),
        )
    except (SourceListError, DiscoveryError) as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    what = f"feed {source.feed}" if source.feed else "sitemap"
    extra = f", {len(source.sitemaps)} sitemap(s)" if source.sitemaps and source.feed else ""
    echo(f"added {source.name}: {what}{extra}, kind {source.kind}, every {source.every}")
    echo(f"  fetch it now: aimi fetch {source.name}")


@sources_app.command("list")
def sources_list(data_dir: DataDirOption = None) -> None:
    """Each source with its kind, last fetch, items, new, failed and when it is next due."""
    from fetch.run import next_due
    from fetch.sources import SourceListError, load_sources
    from fetch.state import FetchState

    data = data_dir_of(data_dir)
    try:
        sources = load_sources(data)
    except SourceListError as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if not sources.sources:
        echo("no sources; add one with `aimi sources add URL`")
        return
    header = f"{'name':<20} {'kind':<8} {'last fetch':<17} {'items':>6} {'new':>5} "
    echo(header + f"{'failed':>6}  next due")
    with FetchState(data) as state:
        for source in sources.sources:
            last = state.last_run(source.name)
            due = next_due(source, last)
            fetched = _when(last.started_at if last else None)
            echo(
                f"{source.name:<20} {source.kind:<8} {fetched:<17} "
                f"{state.item_count(source.name):>6} {last.new if last else 0:>5} "
                f"{last.failed + (1 if last.error else 0) if last else 0:>6}  "
                f"{_when(due) if due and due > datetime.now(UTC) else 'now'}"
            )


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else "never"


@sources_app.command("remove")
def sources_remove(
    name: Annotated[str, typer.Argument(help="The source's name (`aimi sources list`).")],
    data_dir: DataDirOption = None,
) -> None:
    """Stop following a source. Its signals stay, as do its files in the inbox."""
    from fetch.sources import SourceListError, remove_source

    try:
        remove_source(data_dir_of(data_dir), name)
    except SourceListError as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    echo(f"removed {name}; its signals stay")


def fetch(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Sources to fetch now (default: every source that is due)."),
    ] = None,
    no_ingest: Annotated[
        bool,
        typer.Option("--no-ingest", help="Only write the inbox files; the next build ingests."),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Fetch the sources that are due (or the named ones, now) into `<data dir>/inbox/fetched/`
    and ingest what changed; `aimi build` then builds it.

    Exit status: 0 all fetched, 3 some items failed (each printed with its URL and reason),
    2 an unknown source name or an invalid sources.yaml.
    """
    from fetch.run import FetchRun, is_due
    from fetch.sources import SourceListError, load_sources
    from fetch.state import FetchState

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    data = data_dir_of(data_dir)
    try:
        listed = load_sources(data)
    except SourceListError as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if names:
        unknown = [n for n in names if listed.get(n) is None]
        if unknown:
            known = ", ".join(listed.names()) or "none"
            echo(f"error: no source named {', '.join(unknown)} (sources: {known})", err=True)
            raise typer.Exit(2)
        chosen = [s for s in listed.sources if s.name in names]
    else:
        now = datetime.now(UTC)
        with FetchState(data) as state:
            chosen = [s for s in listed.sources if is_due(s, state.last_run(s.name), now)]
    if not chosen:
        echo("nothing is due" if listed.sources else "no sources; add one with `aimi sources add`")
        return
    report = FetchRun(data).run(chosen, ingest=not no_ingest)
    _print_report(report)


def _print_report(report: FetchReport) -> None:
    echo(report.summary())
    for source in report.sources:
        echo(
            f"  {source.name}: {source.items} item(s), {source.new} new, {source.updated} "
            f"updated, {source.unchanged} unchanged, {len(source.failed)} failed"
        )
    if report.ingest is not None:
        echo(f"ingest: {report.ingest.summary()}")
    failures = report.failures
    quarantined = report.ingest.quarantined if report.ingest else []
    if failures or quarantined:
        echo(f"failed {len(failures) + len(quarantined)}:", err=True)
        for failure in failures[:MAX_PRINTED_FAILURES]:
            echo(f"  {failure.url} {failure.reason}", err=True)
        for item in quarantined[:MAX_PRINTED_FAILURES]:
            echo(f"  {item.file}:{item.line} {item.reason}", err=True)
        hidden = len(failures) + len(quarantined) - 2 * MAX_PRINTED_FAILURES
        if hidden > 0:
            echo(f"  ... and more ({len(failures)} fetch, {len(quarantined)} ingest)", err=True)
        raise typer.Exit(3)
