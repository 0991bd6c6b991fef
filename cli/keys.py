"""``aimi keys``: create, list and revoke API keys (``serving.keys``, stored hashed)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo

keys_app = typer.Typer(
    help="Create, list and revoke API keys (stored hashed).", no_args_is_help=True
)


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
