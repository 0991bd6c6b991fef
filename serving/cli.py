"""The ``aimi`` command line: ingest, build, serve, MCP, demo data, API keys, review, the
query encoder's export and the static site's export."""

from __future__ import annotations

import copy
import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from analytics.schema import UnitRole
from serving.cli_common import DataDirOption, data_dir_of, echo, reviewer
from serving.cli_entities import entities_app
from serving.cli_site import site_app
from serving.cli_snapshots import snapshots_app
from serving.cli_status import status
from warehouse.onnx_encoder import Precision
from warehouse.paths import DataDir
from warehouse.settings import DecomposerChoice, parse_as_of

app = typer.Typer(
    help="aimi: verified market intelligence about the AI economy.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
keys_app = typer.Typer(
    help="Create, list and revoke API keys (stored hashed).", no_args_is_help=True
)
app.add_typer(keys_app, name="keys")
review_app = typer.Typer(
    help="Human review of units: list pending, approve, reject (applied at the next build).",
    no_args_is_help=True,
)
app.add_typer(review_app, name="review")
encoder_app = typer.Typer(
    help="The search query encoder: MiniLM exported to ONNX and run by ONNX Runtime "
    "(AIMI_QUERY_ENCODER selects it, AIMI_MODEL_CACHE says where the file lives).",
    no_args_is_help=True,
)
app.add_typer(encoder_app, name="encoder")

app.add_typer(entities_app, name="entities")
app.add_typer(site_app, name="site")
app.command()(status)
app.add_typer(snapshots_app, name="snapshots")


def markdown_help(typer_app: typer.Typer) -> None:
    """Render ``typer_app``'s help texts and its subcommands' as Markdown, so a paragraph wraps
    to the terminal whatever its line breaks in the source (Typer's default markup keeps them
    in every paragraph but a command's first, and in the list of commands)."""
    typer_app.rich_markup_mode = "markdown"
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            markdown_help(group.typer_instance)


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders of: JSON Lines (.jsonl, .ndjson), Markdown (.md, .markdown), "
            "web pages (.html, .htm), RSS or Atom feeds (.xml, .rss, .atom), PDF (.pdf), "
            "transcripts (.vtt, .srt)."
        ),
    ],
    data_dir: DataDirOption = None,
) -> None:
    """Read source files into the warehouse; bad records are quarantined, the rest goes on.

    Exit status: 0 all ingested, 3 some quarantined, 1 none could be ingested.
    """
    from warehouse.ingest import ingest_paths

    # pypdf logs every oddity of a damaged PDF; the quarantine report already says what failed
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    report = ingest_paths(data_dir_of(data_dir), paths)
    echo(report.summary())
    if report.quarantined:
        echo(f"quarantined {len(report.quarantined)}:", err=True)
        for item in report.quarantined[:25]:
            where = f"{item.file}:{item.line}" if item.line else item.file
            field = f" [{item.field}]" if item.field else ""
            echo(f"  {where}{field} {item.reason}", err=True)
        if len(report.quarantined) > 25:
            echo(f"  ... {len(report.quarantined) - 25} more", err=True)
        echo("  (all of them: the `quarantine` table in the catalog)", err=True)
        raise typer.Exit(1 if report.accepted == 0 else 3)


@app.command()
def build(
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help="Fix the clock: ISO 8601 date or date-time (UTC). The data dir remembers it: "
            "every later run (a build, a Dagster UI run, the schedule, the sensor, an admin "
            "refresh) keeps it until --as-of or --wall-clock changes it.",
        ),
    ] = None,
    demo: Annotated[
        bool,
        typer.Option("--demo", help="Fix the clock at the demo corpus's as_of (remembered)."),
    ] = False,
    wall_clock: Annotated[
        bool,
        typer.Option(
            "--wall-clock", help="Forget the fixed clock: this and later runs use the wall clock."
        ),
    ] = False,
    reextract: Annotated[
        bool,
        typer.Option(
            "--reextract",
            help="Decompose every signal with the current extractor, also sources ingested "
            "before 2026-04-28 (which otherwise keep their earlier extraction).",
        ),
    ] = False,
    decomposer: Annotated[
        DecomposerChoice | None,
        typer.Option(
            "--decomposer",
            help="llm: decompose with the OpenAI-compatible endpoint of AIMI_LLM_BASE_URL and "
            "AIMI_LLM_MODEL (the kinds in AIMI_LLM_KINDS, every kind when unset); a signal "
            "whose answer fails or does not verify falls back to the deterministic extractor.",
            show_default="AIMI_DECOMPOSER, else deterministic",
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Materialize every Dagster asset in-process and publish a snapshot."""
    if sum((demo, as_of is not None, wall_clock)) > 1:
        raise typer.BadParameter(
            "--as-of, --demo and --wall-clock each set the clock: give only one of them"
        )
    if as_of is not None:
        try:
            parse_as_of(as_of)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--as-of") from None
    from warehouse.settings import llm_not_configured, load_settings

    settings = load_settings()
    if (decomposer or settings.decomposer) == "llm":
        problem = llm_not_configured(settings)
        if problem is not None:
            raise typer.BadParameter(problem, param_hint="--decomposer / AIMI_DECOMPOSER")
    if demo:
        from demo import DEMO_AS_OF

        as_of = DEMO_AS_OF.isoformat()
    # Dagster runs in a child interpreter: the serving package never imports the pipelines.
    command = [
        sys.executable,
        "-m",
        "pipelines",
        "build",
        "--data-dir",
        str(data_dir_of(data_dir).root),
    ]
    if as_of:
        command += ["--as-of", as_of]
    if wall_clock:
        command.append("--wall-clock")
    if reextract:
        command.append("--reextract")
    if decomposer:
        command += ["--decomposer", decomposer]
    raise typer.Exit(subprocess.call(command))


@app.command("demo-data")
def demo_data(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder to write to (default: inbox/demo in the data dir).",
            show_default=False,
        ),
    ] = None,
    if_absent: Annotated[
        bool,
        typer.Option("--if-absent", help="Do nothing when the data dir already has sources."),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Write the generated demo corpus (deterministic) and its planted ground truth."""
    from demo import generate_demo_corpus
    from demo.files import GROUND_TRUTH_FILE, write_demo_corpus

    data = data_dir_of(data_dir)
    target = out or data.inbox / "demo"
    if if_absent and (data.table_path("sources").exists() or (target / GROUND_TRUTH_FILE).exists()):
        echo(f"demo data: {data.root} already has data; nothing written")
        return
    try:
        counts = write_demo_corpus(generate_demo_corpus(), target)
    except OSError as exc:
        echo(
            f"demo data: cannot write to {target} ({exc.strerror}); give --out a folder you "
            "can write",
            err=True,
        )
        raise typer.Exit(1) from None
    echo(
        f"demo data: {counts['records']} records and {counts['markdown']} Markdown documents "
        f"in {target} (ground truth: {target / GROUND_TRUTH_FILE})"
    )


def _dev_key(data: DataDir) -> str:
    """AIMI_DEV_API_KEY, else the key kept in the data dir, else a new one kept there."""
    from warehouse.settings import load_settings

    configured = load_settings().dev_api_key
    if configured is not None and configured.get_secret_value():
        return configured.get_secret_value()
    if data.dev_key_file.exists():
        return data.dev_key_file.read_text().strip()
    key = "aimi_dev_" + secrets.token_urlsafe(24)
    data.root.mkdir(parents=True, exist_ok=True)
    data.dev_key_file.write_text(key + "\n")
    data.dev_key_file.chmod(0o600)
    return key


WORKER_HEALTHCHECK_SECONDS = 60


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to bind.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    access_log: Annotated[
        bool,
        typer.Option(
            help="Log one line per request (uvicorn's access log). It halves the requests/s "
            "of a pre-rendered resource: turn it off behind a proxy that logs.",
        ),
    ] = True,
    dev: Annotated[
        bool, typer.Option("--dev", help="Accept a development key and print it with examples.")
    ] = False,
    site: Annotated[
        bool,
        typer.Option(
            "--site",
            help="Also serve the snapshot's market-pulse site and JSON tree under /site/, "
            "without an API key (off by default: it publishes the data to anyone who can "
            "reach the port).",
        ),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Serve /v1 from the current snapshot; new snapshots are picked up without a restart."""
    import uvicorn
    from threadpoolctl import threadpool_limits

    # One BLAS thread per server process: with MiniLM and numpy each spreading over the cores,
    # a search took 95–113 ms instead of 22–28 ms on 2 cores (docs/benchmarks.md). The
    # environment variable reaches worker processes, the call this one.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    threadpool_limits(1, user_api="blas")

    data = data_dir_of(data_dir)
    os.environ["AIMI_DATA_DIR"] = str(data.root)
    if dev:
        key = _dev_key(data)
        os.environ["AIMI_DEV_API_KEY"] = key
        base = f"http://{host}:{port}"
        echo(f"\n  aimi API on {base}   development key: {key}\n")
        echo(f"  curl {base}/v1/health")
        echo(f'  curl -H "X-API-Key: {key}" "{base}/v1/signals?limit=5"')
        echo(f'  curl -H "X-API-Key: {key}" "{base}/v1/signals?content_type=event&window=2w"\n')
    if site:
        echo(f"  market-pulse site: http://{host}:{port}/site/\n")
    uvicorn.run(
        "serving.static.mount:create_app_with_site" if site else "serving.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        log_config=_log_config(),
        access_log=access_log,
        # uvicorn kills a worker that does not answer its supervisor's ping within 5 s; a
        # worker importing torch or loading a snapshot holds the interpreter lock for longer
        # on a busy 2-core machine, and with --workers 2 one of them was killed and restarted
        # over and over (11 times in a minute at load average 13, docs/deployment.md)
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
    )


@app.command()
def mcp(data_dir: DataDirOption = None) -> None:
    """The MCP server over stdio, for a local MCP client: the tools /mcp serves, over the
    current snapshot (followed like `aimi serve` does), without an API key."""
    from threadpoolctl import threadpool_limits

    from serving.mcp import create_mcp_server
    from serving.query_embedder import QueryEmbedder
    from serving.store import SnapshotStore
    from warehouse.settings import load_settings

    # stdout is the protocol: everything else (logs, warnings) goes to stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    threadpool_limits(1, user_api="blas")
    data = data_dir_of(data_dir)
    store = SnapshotStore(data, poll_seconds=load_settings().snapshot_poll_seconds)
    store.start()
    embedder = QueryEmbedder()
    embedder.warm()
    try:
        create_mcp_server(store.require, embedder).run("stdio")
    finally:
        store.stop()


@encoder_app.command("export")
def encoder_export(
    force: Annotated[
        bool, typer.Option("--force", help="Export even when the file is current.")
    ] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="Model cache folder (default: AIMI_MODEL_CACHE or ~/.cache/aimi).",
            show_default=False,
        ),
    ] = None,
    precision: Annotated[
        Precision | None,
        typer.Option(
            "--precision",
            help="Weights of the exported file (default: the one AIMI_QUERY_ENCODER serves; "
            "int8 when it is torch).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Export the query encoder to ONNX in the model cache, unless it is current there.

    MiniLM is exported from the packaged weights and optimized for ONNX Runtime (int8 weights
    for the default `onnx-int8` encoder); a file made from the same weights with the same torch,
    onnx and onnxruntime is kept. `make setup` runs this; otherwise a server exports when it
    starts (a few seconds of CPU), and searches with the torch encoder if it cannot. Exit
    status 1 when the export fails, 2 for an unknown precision.
    """
    from warehouse.onnx_encoder import export_onnx, onnx_model_path
    from warehouse.settings import load_settings

    settings = load_settings()
    chosen: Precision = precision or ("fp32" if settings.query_encoder == "onnx" else "int8")
    dest = onnx_model_path(cache_dir or settings.model_cache, chosen)
    try:
        outcome = export_onnx(dest, precision=chosen, force=force)
    # any failure is reported as one line: search still works, on the torch encoder
    except Exception as exc:
        echo(f"encoder: export to {dest} failed ({type(exc).__name__}: {exc})", err=True)
        raise typer.Exit(1) from exc
    sha = outcome.record.source_sha256[:12]
    if outcome.exported:
        echo(f"encoder: exported {dest} in {outcome.seconds:.1f} s (weights sha256 {sha}…)")
    else:
        echo(f"encoder: {dest} is current (weights sha256 {sha}…); nothing to do")


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, plus our ``aimi.*`` loggers (snapshot swaps and refusals) at INFO."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["aimi"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option("--name", help="Who or what the key is for.")],
    tier: Annotated[
        str,
        typer.Option(
            "--tier",
            help="Quota tier: free, pro, enterprise or dev, or one AIMI_RATE_LIMIT_TIERS adds.",
        ),
    ] = "free",
    data_dir: DataDirOption = None,
) -> None:
    """Create an API key and print it once; only its hash is stored."""
    from serving.keys import KeyStore, KeyStoreError
    from warehouse.settings import load_settings

    tiers = load_settings().rate_limit_tiers
    if tier not in tiers:
        raise typer.BadParameter(
            f"tier {tier!r} is not configured; configured tiers: {', '.join(sorted(tiers))}",
            param_hint="--tier",
        )
    try:
        record, plaintext = KeyStore(data_dir_of(data_dir).keys_file).create(name, tier)
    except KeyStoreError as exc:
        echo(f"keys create: {exc}", err=True)
        raise typer.Exit(1) from None
    echo(plaintext)
    echo(
        f"key_id {record.key_id} ({record.name}, tier {record.tier}); it is not shown again",
        err=True,
    )


@keys_app.command("list")
def keys_list(data_dir: DataDirOption = None) -> None:
    """List keys (ids, names, tiers, state); secrets are never shown."""
    from serving.keys import KeyStore

    for record in KeyStore(data_dir_of(data_dir).keys_file).list():
        state = f"revoked {record.revoked_at}" if record.revoked_at else "active"
        echo(f"{record.key_id}\t{record.name}\t{record.tier}\t{record.created_at}\t{state}")


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key_id shown by `aimi keys list`.")],
    data_dir: DataDirOption = None,
) -> None:
    """Revoke a key; requests with it get 401 from then on."""
    from serving.keys import KeyStore, KeyStoreError

    try:
        KeyStore(data_dir_of(data_dir).keys_file).revoke(key_id)
    except KeyStoreError as exc:
        echo(f"keys revoke: {exc}", err=True)
        raise typer.Exit(1) from None
    echo(f"revoked {key_id}")


@review_app.command("list")
def review_list(
    limit: Annotated[int, typer.Option(min=1, help="How many to show.")] = 20,
    signal: Annotated[str | None, typer.Option(help="Only units of this signal_id.")] = None,
    role: Annotated[UnitRole | None, typer.Option(help="Only units of this role.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Units no one has reviewed yet, newest signals first."""
    import polars as pl

    from analytics.review import latest_decisions
    from analytics.schema import SIGNALS, UNITS
    from warehouse.reviews import read_reviews
    from warehouse.tables import read_table

    data = data_dir_of(data_dir)
    units = read_table(data, "units", UNITS)
    if units.is_empty():
        echo("no units yet: ingest sources and run `aimi build` first", err=True)
        raise typer.Exit(1)
    decided = latest_decisions(read_reviews(data)).select("unit_id")
    pending = units.join(decided, on="unit_id", how="anti").join(
        read_table(data, "signals", SIGNALS).select("signal_id", "title", "published_at"),
        on="signal_id",
    )
    if signal:
        pending = pending.filter(pl.col("signal_id") == signal)
    if role:
        pending = pending.filter(pl.col("role") == role)
    pending = pending.sort(
        ["published_at", "signal_id", "position"], descending=[True, True, False]
    )
    echo(f"{pending.height} unit(s) pending review", err=True)
    for row in pending.head(limit).iter_rows(named=True):
        snippets = " | ".join(e["text"] for e in row["evidence"])
        echo(f"{row['unit_id']}  {row['role']:<8} {row['title']}")
        echo(f"    {row['text']}")
        echo(f"    evidence: {snippets}")


def _review(unit_ids: list[str], decision: str, note: str | None, data_dir: Path | None) -> None:
    from analytics.schema import UNITS
    from warehouse.reviews import append_reviews
    from warehouse.tables import read_table

    data = data_dir_of(data_dir)
    known = set(read_table(data, "units", UNITS)["unit_id"].to_list())
    unknown = [u for u in unit_ids if u not in known]
    if unknown:
        echo(f"unknown unit id(s): {', '.join(unknown)} (see `aimi review list`)", err=True)
        raise typer.Exit(1)
    count = append_reviews(data, unit_ids, decision, reviewer=reviewer(), note=note)
    verb = "approved" if decision == "approve" else "rejected"
    echo(f"{verb} {count} unit(s); the next `aimi build` publishes it")


@review_app.command("approve")
def review_approve(
    unit_ids: Annotated[list[str], typer.Argument(help="Unit ids (from `aimi review list`).")],
    note: Annotated[str | None, typer.Option(help="Why, for the record.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Approve units: they are served with `verification: {human_reviewed: true}`."""
    _review(unit_ids, "approve", note, data_dir)


@review_app.command("reject")
def review_reject(
    unit_ids: Annotated[list[str], typer.Argument(help="Unit ids (from `aimi review list`).")],
    note: Annotated[str | None, typer.Option(help="Why, for the record.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Reject units: they are never served (a rejected central statement hides its signal)."""
    _review(unit_ids, "reject", note, data_dir)


markdown_help(app)


def main() -> None:
    app()
