"""The entity model shared by the registry, mention linking and analytics."""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

EntityType = Literal[
    "organization",
    "person",
    "model",
    "hardware",
    "location",
    "event",
    "regulation_policy",
    "other",
]
ENTITY_TYPES: tuple[str, ...] = get_args(EntityType)
PUBLIC_ID_PREFIX = "ent:/"
CaseRule = Literal["exact", "insensitive"]
_NOT_SLUG = re.compile(r"[^a-z0-9.+]+")


def fold_name(name: str) -> str:
    """How a name is matched in any case: runs of whitespace made one space, trimmed, case-folded
    (``"  Kimi   K2 "`` → ``"kimi k2"``). The one definition: review decisions and discovered
    names, the API's ``name`` filter and the names it filters all fold with it."""
    return " ".join(name.split()).casefold()


def slugify(text: str) -> str:
    """``Claude 3.5 Sonnet`` → ``claude-3.5-sonnet``: the slug half of an internal
    ``<type>:<slug>`` key, for registry entries and discovered names alike. Accents are folded
    to ASCII; dots and pluses stay, so ``GPT-4.5`` and ``GPT-4-5`` stay apart."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _NOT_SLUG.sub("-", folded.lower()).strip("-.") or "x"


@dataclass(frozen=True)
class Alias:
    """A surface form and how its case must match (``AI21`` exact, ``openai`` any case)."""

    text: str
    case: CaseRule = "insensitive"


@dataclass(frozen=True)
class Entity:
    """One registry entry. ``entity_id`` is the public id (``ent:/…``), assigned once and never
    reused; ``key`` is the internal prefix-encoded key (``organization:openai``); ``family`` is
    the parent's ``entity_id`` (``Claude Opus 4`` → ``Claude``)."""

    entity_id: str
    key: str
    name: str
    type: str
    aliases: tuple[Alias, ...] = ()
    family: str | None = None
    wikipedia_url: str | None = None
    reviewed: bool = True
    extra: dict[str, str] = field(default_factory=dict)

    def surface_forms(self) -> tuple[Alias, ...]:
        """The display name (case rule of an alias with the same text, else insensitive)
        followed by the aliases."""
        rules = {alias.text: alias for alias in self.aliases}
        name = rules.get(self.name, Alias(self.name))
        return (name, *(a for a in self.aliases if a.text != self.name))


def public_id_for(key: str) -> str:
    """A new public id for a new entry: ``ent:/`` + 10 base32 characters of the key's hash.

    Only used when an entry is first added; afterwards the id is stored and never recomputed,
    so renaming an entry keeps its id.
    """
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return PUBLIC_ID_PREFIX + base64.b32encode(digest).decode("ascii")[:10].lower()


def is_internal_key(value: str) -> bool:
    """``organization:openai``-style keys: the entity path rejects them (docs/api.md §4.6)."""
    prefix, sep, rest = value.partition(":")
    return bool(sep) and prefix in ENTITY_TYPES and bool(rest) and not value.startswith("ent:")


def entity_from_row(row: Mapping[str, Any]) -> Entity:
    """An ``Entity`` from a row of the ENTITIES table (``analytics.schema``), as a build writes
    it and a snapshot holds it."""
    return Entity(
        entity_id=row["entity_id"],
        key=row["key"],
        name=row["name"],
        type=row["type"],
        aliases=tuple(Alias(a["text"], a["case"]) for a in row["aliases"] or []),
        family=row["family"],
        wikipedia_url=row["wikipedia_url"],
        reviewed=bool(row["reviewed"]),
    )
