"""``aimi entities review``: the discovered names waiting for a person, and the decisions on
them (approve with a type and family, merge into an existing entity as an alias, reject for
good). Decisions go to the data dir's entity reviews file and take effect at the next build
(``analytics.entity_review``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer

from analytics.entities import EntityType
from cli.common import DataDirOption, echo, reviewer
from cli.common import data_dir_of as _data
from warehouse.paths import DataDir

if TYPE_CHECKING:
    import polars as pl

    from analytics.entities import Entity

entities_app = typer.Typer(
    help="Entities: review the names discovery found in the corpus.", no_args_is_help=True
)
review_app = typer.Typer(
    help="Discovered names: list them, approve, merge into an entity, reject (applied at the "
    "next build).",
    no_args_is_help=True,
)
entities_app.add_typer(review_app, name="review")

NameArgument = Annotated[
    str, typer.Argument(help="The discovered name, as `aimi entities review list` shows it.")
]
NoteOption = Annotated[str | None, typer.Option(help="Why, for the record.")]
CONTEXT_CHARS = 70


def _entities(data: DataDir) -> pl.DataFrame:
    from analytics.schema import ENTITIES
    from warehouse.tables import read_table

    entities = read_table(data, "entities", ENTITIES)
    if entities.is_empty():
        echo("no entities yet: ingest sources and run `aimi build` first", err=True)
        raise typer.Exit(1)
    return entities


def _discovered(entities: pl.DataFrame, name: str) -> dict[str, object]:
    """The discovered (candidate or accepted) entity named ``name`` in the last build."""
    import polars as pl

    from analytics.entities import fold_name
    from analytics.entity_review import ACCEPTED, CANDIDATE

    match = entities.filter(
        pl.col("status").is_in([CANDIDATE, ACCEPTED])
        & (pl.col("name").map_elements(fold_name, return_dtype=pl.String) == fold_name(name))
    )
    if match.is_empty():
        echo(
            f"{name!r} is no discovered name of the last build (see `aimi entities review "
            "list --all`)",
            err=True,
        )
        raise typer.Exit(1)
    return match.row(0, named=True)


def _resolve(entities: pl.DataFrame, query: str, what: str) -> Entity:
    """A registry or approved entity by id, name or alias."""
    import polars as pl

    from analytics.entities import entity_from_row
    from analytics.entity_review import APPROVED, REGISTRY
    from analytics.linking import EntityIndex

    known = [
        entity_from_row(row)
        for row in entities.filter(pl.col("status").is_in([REGISTRY, APPROVED])).iter_rows(
            named=True
        )
    ]
    found = EntityIndex(known).resolve(query)
    if found is None:
        echo(f"{what} {query!r} is no registry or approved entity", err=True)
        raise typer.Exit(1)
    return found


def _contexts(data: DataDir, name: str, limit: int) -> list[str]:
    """Up to ``limit`` passages of the signals that mention ``name``."""
    from analytics.linking import normalize_text
    from analytics.schema import SIGNALS
    from warehouse.tables import read_table

    pattern = re.compile(r"(?<![\w@#])" + re.escape(name) + r"(?!\w)")
    found: list[str] = []
    signals = read_table(data, "signals", SIGNALS).sort("published_at", descending=True)
    for text in signals["text"]:
        body = normalize_text(text or "")
        match = pattern.search(body)
        if match is None:
            continue
        start, end = max(0, match.start() - CONTEXT_CHARS), match.end() + CONTEXT_CHARS
        passage = " ".join(body[start:end].split())
        found.append(("…" if start else "") + passage + ("…" if end < len(body) else ""))
        if len(found) >= limit:
            break
    return found


@review_app.command("list")
def review_list(
    limit: Annotated[int, typer.Option(min=1, help="How many to show.")] = 20,
    include_accepted: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the names the acceptance bar let into the reviewed set (a person may "
            "still approve, merge or reject them).",
        ),
    ] = False,
    contexts: Annotated[int, typer.Option(min=0, help="Example passages per name.")] = 2,
    data_dir: DataDirOption = None,
) -> None:
    """Discovered names no one has decided on, most signals first, with example passages."""
    import polars as pl

    from analytics.entities import fold_name
    from analytics.entity_review import ACCEPTED, CANDIDATE
    from analytics.schema import SIGNAL_ENTITIES
    from warehouse.entity_reviews import read_entity_reviews
    from warehouse.tables import read_table

    data = _data(data_dir)
    entities = _entities(data)
    decided = {d.folded for d in read_entity_reviews(data)}
    statuses = [CANDIDATE, ACCEPTED] if include_accepted else [CANDIDATE]
    counts = read_table(data, "signal_entities", SIGNAL_ENTITIES).group_by("entity_id").len()
    pending = (
        entities.filter(pl.col("status").is_in(statuses))
        .filter(
            ~pl.col("name").map_elements(fold_name, return_dtype=pl.String).is_in(list(decided))
        )
        .join(counts, on="entity_id", how="left")
        .with_columns(pl.col("len").fill_null(0).alias("signals"))
        .sort(["signals", "name"], descending=[True, False])
    )
    echo(f"{pending.height} name(s) pending review", err=True)
    for row in pending.head(limit).iter_rows(named=True):
        family = f", family {row['family']}" if row["family"] else ""
        echo(
            f"{row['name']}  ({row['type']}{family}; {row['signals']} signal(s); "
            f"{row['status']}; {row['entity_id']})"
        )
        for passage in _contexts(data, row["name"], contexts):
            echo(f"    {passage}")


@review_app.command("approve")
def review_approve(
    name: NameArgument,
    entity_type: Annotated[
        EntityType | None,
        typer.Option(
            "--type", help="Its type (default: the type discovery gave it).", show_default=False
        ),
    ] = None,
    family: Annotated[
        str | None,
        typer.Option(
            help="The family it belongs to: an entity id, name or alias (default: the family "
            "discovery attached).",
            show_default=False,
        ),
    ] = None,
    note: NoteOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Approve a discovered name: an entity of the reviewed set from the next build on.

    It keeps its id; the type and family are the ones given, else discovery's."""
    from warehouse.entity_reviews import append_entity_review

    data = _data(data_dir)
    entities = _entities(data)
    found = _discovered(entities, name)
    kind = entity_type or str(found["type"])
    family_id = _resolve(entities, family, "family").entity_id if family else found["family"]
    append_entity_review(
        data,
        str(found["name"]),
        "approve",
        reviewer=reviewer(),
        type=kind,
        family=str(family_id) if family_id else None,
        entity_id=str(found["entity_id"]),
        note=note,
    )
    echo(
        f"approved {found['name']} ({kind}) as {found['entity_id']}; the next `aimi build` "
        "publishes it"
    )


@review_app.command("merge")
def review_merge(
    name: NameArgument,
    into: Annotated[
        str,
        typer.Option(help="The entity it names: an id, name or alias.", show_default=False),
    ],
    note: NoteOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Merge a discovered name into an existing entity as an alias.

    The alias matches in exactly this case; its mentions count for that entity from the next
    build on."""
    from warehouse.entity_reviews import append_entity_review

    data = _data(data_dir)
    entities = _entities(data)
    found = _discovered(entities, name)
    target = _resolve(entities, into, "entity")
    append_entity_review(
        data,
        str(found["name"]),
        "merge",
        reviewer=reviewer(),
        into=target.entity_id,
        note=note,
    )
    echo(
        f"merged {found['name']} into {target.name} ({target.entity_id}); the next `aimi build` "
        "links its mentions there"
    )


@review_app.command("reject")
def review_reject(
    name: NameArgument, note: NoteOption = None, data_dir: DataDirOption = None
) -> None:
    """Reject a discovered name: removed at the next build, never proposed again."""
    from warehouse.entity_reviews import append_entity_review

    data = _data(data_dir)
    found = _discovered(_entities(data), name)
    append_entity_review(data, str(found["name"]), "reject", reviewer=reviewer(), note=note)
    echo(f"rejected {found['name']}; the next `aimi build` removes it")
