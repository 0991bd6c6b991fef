"""``aimi watch``: watchlists whose new and changed signals are POSTed, signed, to a webhook after
each publish (``publishing.watch`` stores them, ``publishing.webhooks`` delivers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from cli.common import DataDirOption, data_dir_of, echo

if TYPE_CHECKING:
    from readmodel.store import LoadedSnapshot
    from warehouse.paths import DataDir

# publishing.watch's BODY_FORMATS and DIGEST_PERIODS, as the options' choices (typer refuses others)
BodyFormatChoice = Literal["aimi", "slack"]
DigestChoice = Literal["daily", "weekly"]

watch_app = typer.Typer(
    help="Watchlists: new and changed signals matching an entity, theme or query, POSTed as "
    "signed JSON batches to a webhook after each publish.",
    no_args_is_help=True,
)


@contextmanager
def _refused(command: str, code: int = 1) -> Iterator[None]:
    """A watchlist refused inside (``WatchError``): its reason after ``watch <command>:`` on
    stderr, and exit status ``code``."""
    from publishing.watch import WatchError

    try:
        yield
    except WatchError as exc:
        echo(f"watch {command}: {exc}", err=True)
        raise typer.Exit(code) from None


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
    body_format: Annotated[
        BodyFormatChoice,
        typer.Option(
            "--format",
            help="The body: `aimi` (the batch as JSON) or `slack` (`text` + `blocks`, for a "
            "Slack, Mattermost or Teams incoming webhook).",
        ),
    ] = "aimi",
    digest: Annotated[
        DigestChoice | None,
        typer.Option(
            "--digest",
            help="`daily` or `weekly`: one batch per day or week (what changed since the last "
            "one) instead of one per publish.",
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Add a watchlist. A signal matches when it names any `--entity`, carries any `--theme`
    and contains the `--query` (each part left out matches everything). From the next
    publish on (or once a day or week with `--digest`), its new and changed matching signals
    are POSTed as one signed batch."""
    from publishing.watch import Watchlist, WatchStore, new_secret
    from publishing.webhooks import head_seq

    data = data_dir_of(data_dir)
    snapshot, entities, names, labels = _matchers(data, name, url, entity, theme, query)
    _check_secret(secret)
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
        body_format=body_format,
        digest=digest,
        digest_due_at=_digest_due(digest),
    )
    with _refused("add"):
        WatchStore(data).add(item)
    if secret is None:  # generated: shown this once
        echo(chosen)
        echo("the signing secret above is not shown again", err=True)
    echo(f"watch {name}: {_matches(item)} → {url}", err=True)


def _matchers(
    data: DataDir,
    name: str,
    url: str,
    entity: list[str] | None,
    theme: list[str] | None,
    query: str | None,
) -> tuple[LoadedSnapshot | None, list[str], list[str], list[str]]:
    """A new watchlist's name and URL checked, and what it matches resolved against the
    current snapshot: ``(snapshot, entity ids, entity names, theme labels)``; exit 2 with the
    reason when any of it is wrong."""
    from publishing.watch import WatchError, check_name, check_url
    from readmodel.errors import ApiError
    from readmodel.service import canonical_theme, resolve_filters
    from readmodel.store import LoadedSnapshot
    from warehouse.snapshot import SnapshotError, open_current

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
    return snapshot, entities, names, labels


def _check_secret(secret: str | None) -> None:
    from publishing.watch import MIN_SECRET_CHARS

    if secret is not None and len(secret) < MIN_SECRET_CHARS:
        echo(
            f"watch add: --secret must be at least {MIN_SECRET_CHARS} characters; leave it out "
            "for a generated one",
            err=True,
        )
        raise typer.Exit(2)


def _now() -> str:
    from publishing.watch import now_text

    return now_text()


def _digest_due(digest: str | None) -> str | None:
    """A digest's first batch: one period after the watchlist is added."""
    if digest is None:
        return None
    from datetime import UTC, datetime

    from analytics.records import iso_utc
    from publishing.watch import DIGEST_PERIODS

    return iso_utc(datetime.now(UTC) + DIGEST_PERIODS[digest])


def letter_lines(item: object) -> list[str]:
    """A watchlist's dead letter or waiting batch, and its options, in lines (what
    `aimi watch list` and `aimi status` print)."""
    from publishing.watch import Watchlist

    assert isinstance(item, Watchlist)
    lines = []
    if item.dead is not None:
        lines.append(
            f"dead letter: batch {item.dead.batch_id} ({item.dead.signals} signals) after "
            f"{item.dead.attempts} attempts: {item.dead.error}; "
            f"`aimi watch retry {item.name}` sends it again"
        )
    elif item.pending is not None and item.pending.next_attempt_at:
        lines.append(
            f"waiting: batch {item.pending.batch_id} ({item.pending.signals} signals), "
            f"{item.pending.attempts} attempts, last error: {item.pending.error}; next attempt "
            f"{item.pending.next_attempt_at} (`aimi watch retry {item.name}` sends it now)"
        )
    if item.body_format != "aimi" or item.digest:
        digest = f", {item.digest} digest due {item.digest_due_at}" if item.digest else ""
        lines.append(f"format {item.body_format}{digest}")
    return lines


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
    from publishing.watch import WatchStore, delivery_line

    with _refused("list"):
        items = WatchStore(data_dir_of(data_dir)).list()
    if as_json:
        echo(json.dumps([item.public() for item in items], indent=2))
        return
    for item in items:
        echo(f"{item.name}\t{item.state}\t{_matches(item)}\t{item.url}")
        last = item.last_delivery
        echo(f"  {delivery_line(None if last is None else last.to_json())}")
        for line in letter_lines(item):
            echo(f"  {line}")


@watch_app.command("remove")
def watch_remove(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    data_dir: DataDirOption = None,
) -> None:
    """Remove a watchlist with its delivery state and any batch waiting in its outbox."""
    from publishing.watch import WatchStore

    with _refused("remove"):
        WatchStore(data_dir_of(data_dir)).remove(name)
    echo(f"removed {name}")


@watch_app.command("test")
def watch_test(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    data_dir: DataDirOption = None,
) -> None:
    """POST a signed `ping` event (no signals; nothing is recorded) and show the answer.
    Exit status 1 when the receiver does not answer 2xx."""
    from publishing.watch import WatchStore
    from publishing.webhooks import Policy, ping

    with _refused("test"):
        item = WatchStore(data_dir_of(data_dir)).get(name)
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
    from publishing.webhooks import deliver

    with _refused("deliver"):
        report = deliver(data_dir_of(data_dir), names=name or None)
    _print_report(report)
    if any(item.state != "ok" for item in report.watchlists):
        raise typer.Exit(1)


def _print_report(report: object) -> None:
    """A delivery run's report: one line per watchlist, then each failed attempt's error."""
    from publishing.webhooks import DeliveryReport

    assert isinstance(report, DeliveryReport)
    for item in report.watchlists:
        tail = f": {item.error}" if item.error and item.state != "ok" else ""
        due = f"; next attempt {item.next_attempt_at}" if item.state == "pending" else ""
        echo(
            f"{item.name}\t{item.state}\t{item.delivered} batches, {item.signals} signals, "
            f"{item.attempts} attempts{tail}{due}"
        )
        for error in item.errors:
            echo(f"  {error}")


@watch_app.command("retry")
def watch_retry(
    name: Annotated[
        list[str] | None, typer.Argument(help="Watchlists to retry (or --all).")
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every watchlist with a dead or waiting batch.")
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Send a dead-lettered or waiting batch now (same batch id and bytes, a fresh count of
    attempts and retry window), then what followed it; prints each attempt's error as
    `watch deliver` does. Exit status 1 when a batch is left pending or dead."""
    from publishing.watch_ops import retry, retry_all
    from publishing.webhooks import deliver

    data = data_dir_of(data_dir)
    if every == bool(name):
        echo("watch retry: give watchlist names or --all, not both", err=True)
        raise typer.Exit(2)
    with _refused("retry"):
        names = retry_all(data) if every else [retry(data, n).name for n in name or []]
        if not names:
            echo("nothing to retry: no watchlist has a dead or waiting batch")
            return
        report = deliver(data, names=names)
    _print_report(report)
    if any(item.state != "ok" for item in report.watchlists):
        raise typer.Exit(1)


@watch_app.command("redeliver")
def watch_redeliver(
    batch_id: Annotated[str, typer.Argument(help="A delivered batch's id (its X-Aimi-Batch-Id).")],
    data_dir: DataDirOption = None,
) -> None:
    """Send a delivered batch again, byte for byte with its id (signed afresh), once; the
    watchlist's position and state do not change. Delivered bodies are kept
    AIMI_WEBHOOK_KEEP_DAYS (30). Exit status 1 unless the receiver answers 2xx."""
    from publishing.watch_ops import redeliver

    with _refused("redeliver"):
        done = redeliver(data_dir_of(data_dir), batch_id)
    if done.attempt.ok:
        echo(f"{done.watchlist}\t{batch_id}\tHTTP {done.attempt.status}")
        return
    echo(f"watch redeliver: {done.watchlist} {batch_id}: {done.attempt.error}", err=True)
    raise typer.Exit(1)


@watch_app.command("rewind")
def watch_rewind(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    since: Annotated[
        str,
        typer.Option(
            "--since",
            help="A date or date-time, UTC (2026-11-28, 2026-11-28T09:00:00Z), or a "
            "change-feed cursor (a batch's `after_cursor`).",
        ),
    ],
    data_dir: DataDirOption = None,
) -> None:
    """Move a watchlist back in the change feed: the next delivery sends again every
    matching signal that changed from there on (a batch in flight or dead is dropped: the
    new position covers it)."""
    from publishing.watch_ops import rewind

    with _refused("rewind", code=2):
        item = rewind(data_dir_of(data_dir), name, since)
    echo(f"{name}: rewound to change-feed position {item.after_seq}; `aimi watch deliver {name}`")


@watch_app.command("rotate-secret")
def watch_rotate_secret(
    name: Annotated[str, typer.Argument(help="The watchlist's name.")],
    secret: Annotated[
        str | None,
        typer.Option("--secret", help="The new secret (default: a new one, printed once)."),
    ] = None,
    overlap_hours: Annotated[
        float,
        typer.Option(
            "--overlap-hours",
            min=0,
            help="How long the old secret still signs beside the new one (a second v1).",
        ),
    ] = 24.0,
    data_dir: DataDirOption = None,
) -> None:
    """Give a watchlist a new signing secret. For `--overlap-hours` every request carries
    both signatures (`v1=<new>,v1=<old>`), so the receiver can switch secrets at any time in
    that window without refusing a request."""
    from publishing.watch import MIN_SECRET_CHARS
    from publishing.watch_ops import rotate_secret

    if secret is not None and len(secret) < MIN_SECRET_CHARS:
        echo(
            f"watch rotate-secret: --secret must be at least {MIN_SECRET_CHARS} characters",
            err=True,
        )
        raise typer.Exit(2)
    with _refused("rotate-secret"):
        item, chosen = rotate_secret(
            data_dir_of(data_dir), name, secret=secret, overlap_hours=overlap_hours
        )
    if secret is None:
        echo(chosen)
        echo("the signing secret above is not shown again", err=True)
    until = item.previous_secret_until or "now"
    echo(f"{name}: the old secret signs beside the new one until {until}", err=True)
