"""``aimi watch``: watchlists whose new and changed signals are POSTed, signed, to a webhook after
each publish (``publishing.watch`` stores them, ``publishing.webhooks`` delivers)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo

watch_app = typer.Typer(
    help="Watchlists: new and changed signals matching an entity, theme or query, POSTed as "
    "signed JSON batches to a webhook after each publish.",
    no_args_is_help=True,
)


@watch_app.command("add")
def watch_add(
    name: Annotated[str, typer.Argument(help="A short name: lower-case letters, digits, - _.")],
    url: Annotated[
        str,
        typer.Option("--url", help="Where batches are POSTed: https://, or http:// to localhost."),
    ],
    entity: Annotated[
        list[str] | None,
        typer.Option("--entity", help="An entity id or name (its family too); repeat for any of."),
    ] = None,
    theme: Annotated[
        list[str] | None, typer.Option("--theme", help="A theme label; repeat for any of.")
    ] = None,
    query: Annotated[
        str | None,
        typer.Option("--query", help="A literal word or phrase in a title or unit (`keyword`)."),
    ] = None,
    secret: Annotated[
        str | None,
        typer.Option("--secret", help="The signing secret (default: a new one, printed once)."),
    ] = None,
    from_start: Annotated[
        bool,
        typer.Option(
            "--from-start",
            help="Deliver every matching signal already published, not only later ones.",
        ),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Add a watchlist. A signal matches when it names any `--entity`, carries any `--theme`
    and contains the `--query` (each part left out matches everything). From the next
    publish on, its new and changed matching signals are POSTed as one signed JSON batch."""
    from publishing.watch import (
        MIN_SECRET_CHARS,
        WatchError,
        Watchlist,
        WatchStore,
        check_name,
        check_url,
        new_secret,
    )
    from publishing.webhooks import head_seq
    from readmodel.errors import ApiError
    from readmodel.service import canonical_theme, resolve_filters
    from readmodel.store import LoadedSnapshot
    from warehouse.snapshot import SnapshotError, open_current

    data = data_dir_of(data_dir)
    try:
        check_name(name)
        check_url(url)
        opened = open_current(data, verify=False)
    except (WatchError, SnapshotError) as exc:
        echo(f"watch add: {exc}", err=True)
        raise typer.Exit(2) from None
    snapshot = LoadedSnapshot.from_opened(opened) if opened is not None else None
    entities: list[str] = []
    names: list[str] = []
    try:
        labels = [canonical_theme(label) or label for label in theme or []]
        if entity and snapshot is None:
            echo("watch add: --entity needs a published snapshot: run `aimi build`", err=True)
            raise typer.Exit(2)
        for value in entity or []:
            assert snapshot is not None
            found = snapshot.entity_index.resolve(value)
            if found is None:
                echo(f"watch add: entity {value!r} not found", err=True)
                raise typer.Exit(2)
            entities.append(found.entity_id)
            names.append(found.name)
        if query is not None and snapshot is not None:
            resolve_filters(snapshot, entity=None, theme=None, keyword=query)
    except ApiError as exc:
        echo(f"watch add: {exc.message}", err=True)
        raise typer.Exit(2) from None
    if query is not None and not query.strip():
        echo("watch add: --query is empty; give a word or phrase", err=True)
        raise typer.Exit(2)
    if secret is not None and len(secret) < MIN_SECRET_CHARS:
        echo(
            f"watch add: --secret must be at least {MIN_SECRET_CHARS} characters; leave it out "
            "for a generated one",
            err=True,
        )
        raise typer.Exit(2)
    chosen = secret or new_secret()
    item = Watchlist(
        name=name,
        url=url,
        secret=chosen,
        created_at=_now(),
        entities=tuple(entities),
        entity_names=tuple(names),
        themes=tuple(labels),
        query=" ".join(query.split()) if query else None,
        after_seq=0 if from_start or snapshot is None else head_seq(snapshot),
    )
    try:
        WatchStore(data).add(item)
    except WatchError as exc:
        echo(f"watch add: {exc}", err=True)
        raise typer.Exit(1) from None
    if secret is None:  # generated: shown this once
        echo(chosen)
        echo("the signing secret above is not shown again", err=True)
    echo(f"watch {name}: {_matches(item)} → {url}", err=True)


def _now() -> str:
    from publishing.watch import now_text

    return now_text()


def _matches(item: object) -> str:
    from publishing.watch import Watchlist

    assert isinstance(item, Watchlist)
    parts = []
    if item.entity_names:
        parts.append("entity " + " or ".join(item.entity_names))
    if item.themes:
        parts.append("theme " + " or ".join(item.themes))
    if item.query:
        parts.append(f"query {item.query!r}")
    return ", ".join(parts) or "every signal"


@watch_app.command("list")
def watch_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print the watchlists as JSON.")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """List watchlists: what each matches, its URL, its state (`ok`, `pending` while a batch
    is being retried, `dead` once a batch failed its last attempt) and its last delivery.
    Secrets are never shown."""
    from publishing.watch import WatchError, WatchStore, delivery_line

    try:
        items = WatchStore(data_dir_of(data_dir)).list()
    except WatchError as exc:
        echo(f"watch list: {exc}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        echo(json.dumps([item.public() for item in items], indent=2))
        return
    for item in items:
        echo(f"{item.name}\t{item.state}\t{_matches(item)}\t{item.url}")
        last = item.last_delivery
        echo(f"  {delivery_line(None if last is None else last.to_json())}")
        if item.dead is not None:
            echo(
                f"  dead letter: batch {item.dead.batch_id} ({item.dead.signals} signals) after "
                f"{item.dead.attempts} attempts: {item.dead.error}; "
                f"`aimi watch retry {item.name}` sends it again"
            )


@watch_app.command("remove")
def watch_remove(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    data_dir: DataDirOption = None,
) -> None:
    """Remove a watchlist with its delivery state and any batch waiting in its outbox."""
    from publishing.watch import WatchError, WatchStore

    try:
        WatchStore(data_dir_of(data_dir)).remove(name)
    except WatchError as exc:
        echo(f"watch remove: {exc}", err=True)
        raise typer.Exit(1) from None
    echo(f"removed {name}")


@watch_app.command("test")
def watch_test(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    data_dir: DataDirOption = None,
) -> None:
    """POST a signed `ping` event (no signals; nothing is recorded) and show the answer.
    Exit status 1 when the receiver does not answer 2xx."""
    from publishing.watch import WatchError, WatchStore
    from publishing.webhooks import Policy, ping

    try:
        item = WatchStore(data_dir_of(data_dir)).get(name)
    except WatchError as exc:
        echo(f"watch test: {exc}", err=True)
        raise typer.Exit(1) from None
    ping_id, attempt = ping(item, timeout=Policy.from_settings().timeout_seconds)
    if attempt.ok:
        echo(f"{name}: {item.url} answered HTTP {attempt.status} in {attempt.seconds:.3f} s")
        return
    echo(f"watch test: {item.url} failed ({ping_id}): {attempt.error}", err=True)
    raise typer.Exit(1)


@watch_app.command("deliver")
def watch_deliver(
    name: Annotated[
        list[str] | None, typer.Argument(help="Watchlists to deliver (default: every one).")
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Deliver now what each watchlist has not been sent (what runs after every publish),
    with retries; waits for a delivery run already going. Exit status 1 when a batch is
    left pending or dead."""
    from publishing.watch import WatchError
    from publishing.webhooks import deliver

    try:
        report = deliver(data_dir_of(data_dir), names=name or None)
    except WatchError as exc:
        echo(f"watch deliver: {exc}", err=True)
        raise typer.Exit(1) from None
    for item in report.watchlists:
        tail = f": {item.error}" if item.error and item.state != "ok" else ""
        echo(
            f"{item.name}\t{item.state}\t{item.delivered} batches, {item.signals} signals, "
            f"{item.attempts} attempts{tail}"
        )
    if any(item.state != "ok" for item in report.watchlists):
        raise typer.Exit(1)


@watch_app.command("retry")
def watch_retry(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    data_dir: DataDirOption = None,
) -> None:
    """Send a dead-lettered batch again (same batch id and bytes), then what followed it."""
    from publishing.watch import WatchError
    from publishing.webhooks import deliver, retry_dead

    data = data_dir_of(data_dir)
    try:
        retry_dead(data, name)
        report = deliver(data, names=[name])
    except WatchError as exc:
        echo(f"watch retry: {exc}", err=True)
        raise typer.Exit(1) from None
    item = report.watchlists[0]
    echo(f"{name}\t{item.state}\t{item.delivered} batches, {item.signals} signals")
    if item.state != "ok":
        raise typer.Exit(1)
