"""The entity registry file (``registry/entities.yaml``): loading with a full schema check, and
writing it back in one stable, reviewable layout.

The file is edited by analysts, so the check reports every problem at once, each with the
entry's index, name and field, instead of stopping at the first one.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from analytics.entities import ENTITY_TYPES, PUBLIC_ID_PREFIX, Alias, CaseRule, Entity

DEFAULT_REGISTRY = Path(__file__).resolve().parent.parent / "registry" / "entities.yaml"

# The C implementations are ten times faster on a registry of ~1,000 entries.
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAML_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


PUBLIC_ID_RE = re.compile(r"^ent:/[a-z2-7]{10}$")
KEY_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")
WIKIPEDIA_URL_RE = re.compile(r"^https://en\.wikipedia\.org/wiki/[^\s#?]+$")
# Surface forms this short match too much text by accident unless their case is pinned.
MAX_SHORT_FORM = 4
MIN_FORM = 2
# ``shared_aliases`` has no field on ``Entity``; it travels in ``extra`` under this key.
SHARED_KEY = "shared_aliases"
SHARED_SEP = "|"

# English words that are also AI-economy names. Matching them in any case would tag ordinary
# prose ("an apple", "a cursor", "perplexity"), so as surface forms they must be ``exact``.
COMMON_WORDS = frozenset(
    """
    adobe agent amazon anthropic apple arm atlas bard blackwell bolt brain canvas character
    claude cognition cohere command composer copilot cortex crusoe cursor dojo dolly echo
    edge etched falcon firefly flash gemini genie glean gopher grace grok haiku harvey hopper
    inflection instinct intel jasper jupiter lambda liquid llama magic maia meta mistral
    mosaic nova opus oracle orca orion perplexity phi photon pro pulse reflection rubin
    runway scale sonnet sora spark stability strawberry surge swift titan ultra vertex
    vision whisper windsurf writer operator collision bedrock codex ascend
    comet devin
    """.split()
)

FIELD_ORDER = (
    "id",
    "key",
    "name",
    "type",
    "case",
    "aliases",
    "exact_aliases",
    "shared_aliases",
    "family",
    "wikipedia_url",
    "reviewed",
    "extra",
)
REQUIRED_FIELDS = ("id", "key", "name", "type")

HEADER = """\
# AIMI entity registry: every organization, person, model, hardware, location, event,
# regulation/policy and other entity (product, framework, benchmark) that mention linking knows.
#
# Edit by hand or re-seed (see registry/README.md):
#   - name: display name; case: exact if the name only counts in exactly this case.
#   - aliases: other surface forms, matched in any case; exact_aliases: matched case-exactly
#     (short forms and English words such as Meta, Apple or Gemini must be exact).
#   - shared_aliases: forms deliberately claimed by several entries (each must list them).
#   - family: the parent's id (Claude Opus 4 -> Claude).
# Ids (ent:/ + 10 base32 characters) are assigned once and are never changed or reused, even
# when an entry is renamed or removed. Check the file with
#   python -m warehouse.registry_seed --check
#
# Partly derived from Epoch AI data (entries with extra.source = epoch, and epoch_name):
# Epoch AI, 'Data on AI Models', 'Data on Machine Learning Hardware', 'Data on AI Companies',
# epoch.ai, licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).
"""


class RegistryError(ValueError):
    """The registry file is malformed; ``problems`` lists every problem found."""

    def __init__(self, path: Path | str, problems: Sequence[str]) -> None:
        self.path = str(path)
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in registry {self.path}:\n{lines}")


def registry_path() -> Path:
    """The registry to use now: the settings' ``registry`` (``AIMI_REGISTRY``) if set, else the
    repository's file."""
    from warehouse.settings import load_settings

    return load_settings().registry or DEFAULT_REGISTRY


def is_public_id(value: str) -> bool:
    return bool(PUBLIC_ID_RE.match(value))


def shared_aliases(entity: Entity) -> tuple[str, ...]:
    """Surface forms the entity deliberately shares with other entries."""
    raw = entity.extra.get(SHARED_KEY, "")
    return tuple(s for s in raw.split(SHARED_SEP) if s)


def make_entity(
    *,
    entity_id: str,
    key: str,
    name: str,
    type: str,
    case: CaseRule = "insensitive",
    aliases: Iterable[str] = (),
    exact_aliases: Iterable[str] = (),
    shared: Iterable[str] = (),
    family: str | None = None,
    wikipedia_url: str | None = None,
    reviewed: bool = True,
    extra: Mapping[str, str] | None = None,
) -> Entity:
    """An ``Entity`` in the canonical alias order the loader produces, so that writing and
    loading round-trip to equal objects: the name (only when exact), then the any-case
    aliases, then the exact ones; forms equal to one already present are dropped."""
    forms: list[Alias] = []
    if case == "exact":
        forms.append(Alias(name, "exact"))
    seen_exact = {name} if case == "exact" else set()
    seen_folded = {name.casefold()} if case == "insensitive" else set()
    for text in aliases:
        if text.casefold() in seen_folded or text == name:
            continue
        seen_folded.add(text.casefold())
        forms.append(Alias(text, "insensitive"))
    for text in exact_aliases:
        if text in seen_exact or text.casefold() in seen_folded:
            continue
        seen_exact.add(text)
        forms.append(Alias(text, "exact"))
    extra_out = {k: v for k, v in (extra or {}).items() if k != SHARED_KEY}
    shared_list = sorted(set(shared))
    if shared_list:
        extra_out[SHARED_KEY] = SHARED_SEP.join(shared_list)
    return Entity(
        entity_id=entity_id,
        key=key,
        name=name,
        type=type,
        aliases=tuple(forms),
        family=family,
        wikipedia_url=wikipedia_url,
        reviewed=reviewed,
        extra=dict(sorted(extra_out.items())),
    )


def name_case(entity: Entity) -> CaseRule:
    return next((a.case for a in entity.aliases if a.text == entity.name), "insensitive")


# --- loading -------------------------------------------------------------------------------


# Parsed registries by (path, size, mtime): a process that builds several times (a test session,
# a long-lived Dagster code server) parses and checks an unchanged file once; an edit is seen
# at once.
_parsed: dict[tuple[str, int, int], tuple[Entity, ...]] = {}
_parsed_lock = threading.Lock()


def load_registry(path: Path) -> list[Entity]:
    """Load and check the registry; raises ``RegistryError`` listing every problem."""
    try:
        stat = Path(path).stat()
    except OSError as exc:
        raise RegistryError(path, [f"cannot read the file: {exc}"]) from exc
    signature = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)
    with _parsed_lock:
        cached = _parsed.get(signature)
    if cached is None:
        cached = tuple(_parse_registry(path))
        with _parsed_lock:
            _parsed.clear()  # one registry at a time is what a process uses
            _parsed[signature] = cached
    return list(cached)


def _parse_registry(path: Path) -> list[Entity]:
    try:
        raw = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=YAML_LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise RegistryError(path, [f"cannot read the file: {exc}"]) from exc
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise RegistryError(path, ["the file must be a YAML list of entries"])
    entities, problems = parse_entries(raw)
    problems.extend(check_entities(entities))
    if problems:
        raise RegistryError(path, problems)
    return [entity for entity, _ in entities]


def _where(index: int, entry: Mapping[str, Any] | None) -> str:
    name = entry.get("name") if entry is not None else None
    return f"entry {index} ({name})" if isinstance(name, str) and name else f"entry {index}"


def _str_list(value: Any) -> list[str] | None:
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def parse_entries(raw: list[Any]) -> tuple[list[tuple[Entity, int]], list[str]]:
    """Entries → entities (with their index), plus the per-entry problems found on the way."""
    problems: list[str] = []
    out: list[tuple[Entity, int]] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            problems.append(f"entry {index}: must be a mapping of fields, got {entry!r}")
            continue
        where = _where(index, entry)
        before = len(problems)
        problems.extend(_identity_problems(where, entry))
        etype, key, eid, name = (entry.get(f) for f in ("type", "key", "id", "name"))
        options = _entry_options(where, entry, problems)
        problems.extend(_alias_problems(where, str(name or ""), options))
        if len(problems) > before:
            continue
        entity = make_entity(
            entity_id=str(eid),
            key=str(key),
            name=str(name),
            type=str(etype),
            case=options.case,
            aliases=options.aliases,
            exact_aliases=options.exact_aliases,
            shared=options.shared_aliases,
            family=options.family,
            wikipedia_url=options.wikipedia_url,
            reviewed=options.reviewed,
            extra=options.extra,
        )
        out.append((entity, index))
    return out, problems


def _identity_problems(where: str, entry: Mapping[str, Any]) -> list[str]:
    """What is wrong with an entry's fields as a whole and with its type, id and key."""
    problems: list[str] = []
    unknown = sorted(str(k) for k in entry if k not in FIELD_ORDER)
    if unknown:
        problems.append(
            f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(FIELD_ORDER)}"
        )
    for required in REQUIRED_FIELDS:
        value = entry.get(required)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{where}: field '{required}' is missing or empty")
    etype, key, eid = (entry.get(f) for f in ("type", "key", "id"))
    if isinstance(etype, str) and etype and etype not in ENTITY_TYPES:
        problems.append(
            f"{where}: field 'type': unknown type {etype!r}; use one of {', '.join(ENTITY_TYPES)}"
        )
    if isinstance(eid, str) and eid and not is_public_id(eid):
        problems.append(
            f"{where}: field 'id': {eid!r} is not {PUBLIC_ID_PREFIX} followed by 10 "
            "lowercase base32 characters (a-z, 2-7)"
        )
    if isinstance(key, str) and key:
        prefix, _, slug = key.partition(":")
        if prefix != etype or not KEY_SLUG_RE.match(slug):
            problems.append(
                f"{where}: field 'key': {key!r} must be '<type>:<slug>' with the entry's "
                "type and a lowercase slug"
            )
    return problems


@dataclass(frozen=True)
class _Options:
    """An entry's optional fields, each at its default where it was invalid."""

    case: CaseRule
    aliases: list[str]
    exact_aliases: list[str]
    shared_aliases: list[str]
    family: str | None
    wikipedia_url: str | None
    reviewed: bool
    extra: dict[str, str]


def _entry_options(where: str, entry: Mapping[str, Any], problems: list[str]) -> _Options:
    """An entry's optional fields; what is wrong with them is appended to ``problems``."""
    case = entry.get("case", "insensitive")
    if case not in ("exact", "insensitive"):
        problems.append(f"{where}: field 'case': must be 'exact' or 'insensitive'")
        case = "insensitive"
    lists: dict[str, list[str]] = {}
    for field_name in ("aliases", "exact_aliases", "shared_aliases"):
        values = _str_list(entry.get(field_name))
        if values is None:
            problems.append(f"{where}: field '{field_name}': must be a list of strings")
            values = []
        lists[field_name] = values
    family = entry.get("family")
    if family is not None and not isinstance(family, str):
        problems.append(f"{where}: field 'family': must be an entity id")
        family = None
    url = entry.get("wikipedia_url")
    if url is not None and (not isinstance(url, str) or not WIKIPEDIA_URL_RE.match(url)):
        problems.append(
            f"{where}: field 'wikipedia_url': {url!r} is not an English Wikipedia article "
            "URL (https://en.wikipedia.org/wiki/<Title>)"
        )
        url = None
    reviewed = entry.get("reviewed", True)
    if not isinstance(reviewed, bool):
        problems.append(f"{where}: field 'reviewed': must be true or false")
        reviewed = True
    extra = entry.get("extra") or {}
    if not isinstance(extra, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in extra.items()
    ):
        problems.append(f"{where}: field 'extra': must map text to text")
        extra = {}
    if SHARED_KEY in extra:
        problems.append(f"{where}: field 'extra': use the shared_aliases field instead")
    return _Options(
        case=case,
        aliases=lists["aliases"],
        exact_aliases=lists["exact_aliases"],
        shared_aliases=lists["shared_aliases"],
        family=family,
        wikipedia_url=url,
        reviewed=reviewed,
        extra=extra,
    )


def _alias_problems(where: str, name: str, options: _Options) -> list[str]:
    """What is wrong with an entry's name and aliases taken together."""
    problems = _form_problems(where, name, options.case, options.aliases, options.exact_aliases)
    forms = {name, *options.aliases, *options.exact_aliases}
    for text in options.shared_aliases:
        if text not in forms:
            problems.append(
                f"{where}: field 'shared_aliases': {text!r} is not the name or an alias "
                "of this entry"
            )
    return problems


def _form_problems(
    where: str, name: str, case: str, aliases: list[str], exact: list[str]
) -> list[str]:
    problems: list[str] = []
    forms = [(name, case, "name")]
    forms += [(a, "insensitive", "aliases") for a in aliases]
    forms += [(a, "exact", "exact_aliases") for a in exact]
    seen: dict[str, str] = {}
    for text, rule, field_name in forms:
        if not text:
            continue
        if text != text.strip() or "\n" in text:
            problems.append(f"{where}: field '{field_name}': {text!r} has stray whitespace")
        if len(text) < MIN_FORM:
            problems.append(
                f"{where}: field '{field_name}': {text!r} is shorter than {MIN_FORM} characters"
            )
            continue
        if rule == "insensitive" and len(text) <= MAX_SHORT_FORM:
            problems.append(
                f"{where}: field '{field_name}': {text!r} is {MAX_SHORT_FORM} characters or "
                "fewer, so it must be case-exact (exact_aliases, or case: exact for the name)"
            )
        elif rule == "insensitive" and text.casefold() in COMMON_WORDS:
            problems.append(
                f"{where}: field '{field_name}': {text!r} is an English word, so it must be "
                "case-exact (exact_aliases, or case: exact for the name)"
            )
        token = text if rule == "exact" else text.casefold()
        if token in seen and field_name != "name":
            problems.append(
                f"{where}: field '{field_name}': {text!r} repeats a form already given in "
                f"'{seen[token]}'"
            )
        seen.setdefault(token, field_name)
    return problems


def check_entities(entities: Sequence[tuple[Entity, int]]) -> list[str]:
    """Cross-entry checks: unique ids and keys, families, surface forms claimed twice."""
    problems: list[str] = []
    by_id: dict[str, tuple[Entity, int]] = {}
    by_key: dict[str, tuple[Entity, int]] = {}
    for entity, index in entities:
        where = f"entry {index} ({entity.name})"
        if entity.entity_id in by_id:
            other, other_index = by_id[entity.entity_id]
            problems.append(
                f"{where}: field 'id': duplicate id {entity.entity_id}, already used by "
                f"entry {other_index} ({other.name})"
            )
        else:
            by_id[entity.entity_id] = (entity, index)
        if entity.key in by_key:
            other, other_index = by_key[entity.key]
            problems.append(
                f"{where}: field 'key': duplicate key {entity.key}, already used by "
                f"entry {other_index} ({other.name})"
            )
        else:
            by_key[entity.key] = (entity, index)
    for entity, index in entities:
        where = f"entry {index} ({entity.name})"
        if entity.family is None:
            continue
        if entity.family == entity.entity_id:
            problems.append(f"{where}: field 'family': points at the entry itself")
        elif entity.family not in by_id:
            problems.append(f"{where}: field 'family': unknown id {entity.family}")
        else:
            chain = [entity.entity_id]
            parent: str | None = entity.family
            while parent is not None and parent in by_id:
                if parent in chain:
                    names = " -> ".join(by_id[i][0].name for i in [*chain, parent])
                    problems.append(f"{where}: field 'family': forms a cycle ({names})")
                    break
                chain.append(parent)
                parent = by_id[parent][0].family
    problems.extend(_collisions(entities))
    return problems


def _collisions(entities: Sequence[tuple[Entity, int]]) -> list[str]:
    """Surface forms two entries would both match on the same text.

    Two any-case forms collide when they fold to the same text; an exact form collides with
    an identical exact form, or with an any-case form folding to it (both match that text).
    """
    problems: list[str] = []
    insensitive: dict[str, list[tuple[Entity, int, str]]] = {}
    exact: dict[str, list[tuple[Entity, int, str]]] = {}
    for entity, index in entities:
        for alias in entity.surface_forms():
            table = exact if alias.case == "exact" else insensitive
            token = alias.text if alias.case == "exact" else alias.text.casefold()
            claims = table.setdefault(token, [])
            if all(c[0].entity_id != entity.entity_id for c in claims):
                claims.append((entity, index, alias.text))
    reported: set[tuple[str, str, str]] = set()

    def report(text: str, a: tuple[Entity, int, str], b: tuple[Entity, int, str]) -> None:
        (ea, ia, ta), (eb, ib, tb) = a, b
        if ea.entity_id == eb.entity_id:
            return
        if ta in shared_aliases(ea) and tb in shared_aliases(eb):
            return
        pair = tuple(sorted((ea.entity_id, eb.entity_id)))
        if (pair[0], pair[1], text.casefold()) in reported:
            return
        reported.add((pair[0], pair[1], text.casefold()))
        problems.append(
            f"entry {ib} ({eb.name}): surface form {tb!r} is also claimed by entry {ia} "
            f"({ea.name}) as {ta!r}; remove one, or list it under shared_aliases in both"
        )

    for token, claims in sorted(insensitive.items()):
        for i, first in enumerate(claims):
            for second in claims[i + 1 :]:
                report(token, first, second)
    for token, claims in sorted(exact.items()):
        for i, first in enumerate(claims):
            for second in claims[i + 1 :]:
                report(token, first, second)
            for other in insensitive.get(token.casefold(), []):
                report(token, other, first)
    return problems


# --- writing -------------------------------------------------------------------------------


def entity_to_entry(entity: Entity) -> dict[str, Any]:
    """The YAML mapping for one entity, fields in ``FIELD_ORDER``, empty fields left out."""
    case = name_case(entity)
    aliases = [a.text for a in entity.aliases if a.case == "insensitive" and a.text != entity.name]
    exact = [a.text for a in entity.aliases if a.case == "exact" and a.text != entity.name]
    extra = {k: v for k, v in entity.extra.items() if k != SHARED_KEY}
    values: dict[str, Any] = {
        "id": entity.entity_id,
        "key": entity.key,
        "name": entity.name,
        "type": entity.type,
        "case": "exact" if case == "exact" else None,
        "aliases": aliases or None,
        "exact_aliases": exact or None,
        "shared_aliases": list(shared_aliases(entity)) or None,
        "family": entity.family,
        "wikipedia_url": entity.wikipedia_url,
        "reviewed": entity.reviewed,
        "extra": dict(sorted(extra.items())) or None,
    }
    return {k: values[k] for k in FIELD_ORDER if values[k] is not None}


def sort_entities(entities: Iterable[Entity]) -> list[Entity]:
    """Registry order: by type (in ``ENTITY_TYPES`` order), then name, then key."""
    rank = {t: i for i, t in enumerate(ENTITY_TYPES)}
    return sorted(
        entities, key=lambda e: (rank.get(e.type, len(rank)), e.name.casefold(), e.name, e.key)
    )


def dump_registry(entities: Iterable[Entity]) -> str:
    """The registry text: the header comment, then one block per entry separated by a blank
    line, in ``sort_entities`` order."""
    text: str = yaml.dump(
        [entity_to_entry(entity) for entity in sort_entities(entities)],
        Dumper=YAML_DUMPER,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    # Entries start at column 0 ("- id: ..."); a blank line between them eases review.
    return HEADER + "\n" + text.replace("\n- id: ", "\n\n- id: ")


def write_registry(path: Path, entities: Iterable[Entity]) -> None:
    """Write the registry atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dump_registry(entities), encoding="utf-8")
    tmp.replace(path)
