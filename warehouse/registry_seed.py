"""Seeding the entity registry: hand-curated entries (``registry/curated.yaml``) merged with
entities derived from Epoch AI's public data (CC BY 4.0), keeping every id already assigned.

Run ``python -m warehouse.registry_seed --epoch ../shared/data/epoch`` to re-seed; without
``--epoch`` it rewrites the curated and existing entries only. Running it twice gives the
identical file.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from analytics.entities import ENTITY_TYPES, CaseRule, Entity, public_id_for, slugify
from warehouse.given_names import load_given_names
from warehouse.places import GazetteerMissing, countries, major_cities, us_states
from warehouse.registry import (
    COMMON_WORDS,
    DEFAULT_REGISTRY,
    MAX_SHORT_FORM,
    MIN_FORM,
    YAML_LOADER,
    RegistryError,
    check_entities,
    entity_to_entry,
    load_registry,
    make_entity,
    name_case,
    parse_entries,
    shared_aliases,
    sort_entities,
    write_registry,
)

DEFAULT_CURATED = DEFAULT_REGISTRY.parent / "curated.yaml"
WIKIPEDIA_PREFIX = "https://en.wikipedia.org/wiki/"
CURATED_FIELDS = frozenset(
    {
        "name",
        "type",
        "key",
        "case",
        "aliases",
        "exact_aliases",
        "shared_aliases",
        "family",
        "wikipedia",
        "wikipedia_url",
        "epoch_names",
        "reviewed",
        "extra",
    }
)

# Selection of Epoch entries. Epoch lists 2,228 models, most of them academic one-offs nobody
# names in market news; these thresholds keep the frontier and the widely used ones.
RECENT_MODEL_DATE = "2023-01-01"
HISTORIC_MODEL_DATE = "2012-01-01"
NOTABLE_RECENT = ("Significant use", "Training cost", "Historical significance")
FRONTIER_COMPUTE_FLOP = 1e24
MIN_MODELS_PER_ORG = 8
HARDWARE_SINCE = "2020-01-01"
HARDWARE_SKIP_WORDS = ("Quadro", "RTX A", "Radeon RX", "GeForce RTX 30", "GeForce RTX 407")
# Model names made of a family name and a generic description rather than a product name.
GENERIC_MODEL_RE = re.compile(r"\b(model|agent|robot)$", re.IGNORECASE)

# Families of models and hardware by name, first match wins; a rule applies only when the
# family entry exists and is not the entry itself (so "GPT-4" falls through to "GPT").
MODEL_FAMILY_RULES: tuple[tuple[str, str], ...] = (
    (r"^gpt-oss", "model:gpt-oss"),
    (r"^gpt-4", "model:gpt-4"),
    (r"^gpt-5", "model:gpt-5"),
    (r"^(gpt|chatgpt)", "model:gpt"),
    (r"^o[134](\b|-)", "model:openai-o-series"),
    (r"^(dall·e|dall-e)", "model:dall-e"),
    (r"^sora", "model:sora"),
    (r"^claude", "model:claude"),
    (r"^gemini", "model:gemini"),
    (r"^gemma", "model:gemma"),
    (r"^(imagen)", "model:imagen"),
    (r"^veo", "model:veo"),
    (r"nemotron", "model:nemotron"),
    (r"^(llama|code llama|codellama)", "model:llama"),
    (r"^(qwen|qwq)", "model:qwen"),
    (r"^grok", "model:grok"),
    (r"^deepseek-r", "model:deepseek-r1"),
    (r"^deepseek-v", "model:deepseek-v3"),
    (r"^phi-", "model:phi"),
    (r"^mistral large", "model:mistral-large"),
    (r"^(mistral|mixtral|ministral|codestral|pixtral|magistral|devstral)", "model:mistral"),
    (r"^(cohere )?command", "model:cohere-command"),
    (r"^(stable diffusion|sdxl)", "model:stable-diffusion"),
    (r"^flux", "model:flux"),
    (r"^ernie", "model:ernie"),
    (r"^kimi", "model:kimi"),
    (r"^(chat)?glm", "model:glm"),
    (r"^doubao", "model:doubao"),
    (r"^hunyuan", "model:hunyuan"),
    (r"^falcon", "model:falcon"),
    (r"^jamba", "model:jamba"),
    (r"^(amazon )?nova", "model:amazon-nova"),
    (r"^(amazon )?titan", "model:amazon-titan"),
    (r"^yi-", "model:yi"),
    (r"^(alphafold)", "model:alphafold"),
    (r"^(pangu|pangu)", "model:pangu"),
    (r"^inflection-", "model:inflection"),
    (r"^minimax|^abab", "model:minimax-models"),
)
HARDWARE_FAMILY_RULES: tuple[tuple[str, str], ...] = (
    (r"gb200", "hardware:nvidia-gb200"),
    (r"gb300", "hardware:nvidia-gb300"),
    (r"\bh100\b", "hardware:nvidia-h100"),
    (r"\bh200\b", "hardware:nvidia-h200"),
    (r"\bb200\b", "hardware:nvidia-b200"),
    (r"\b(h800|h20|gh100|gh200)\b", "hardware:nvidia-hopper"),
    (r"\b(b100|b300)\b", "hardware:nvidia-blackwell"),
    (r"\brubin\b", "hardware:nvidia-rubin"),
    (r"\b(a100|a800)\b", "hardware:nvidia-a100"),
    (r"\b(a10g?|a40|a30)\b", "hardware:nvidia-ampere"),
    (r"(?<!-)\bv100s?\b", "hardware:nvidia-v100"),
    (r"\b(l4|l40|l40s|l20|l2)\b", "hardware:nvidia-ada-lovelace"),
    (r"geforce rtx 40", "hardware:nvidia-ada-lovelace"),
    (r"\btpu\b", "hardware:google-tpu"),
    (r"trainium", "hardware:aws-trainium"),
    (r"inferentia", "hardware:aws-inferentia"),
    (r"\bmi3\d\d", "hardware:amd-instinct"),
    (r"instinct", "hardware:amd-instinct"),
    (r"ascend", "hardware:huawei-ascend"),
    (r"gaudi", "hardware:intel-gaudi"),
    (r"\bmtia\b", "hardware:meta-mtia"),
    (r"\bmaia\b", "hardware:microsoft-maia"),
    (r"kunlun", "hardware:baidu-kunlun"),
    (r"cambricon", "hardware:cambricon-mlu"),
    (r"\bwse", "hardware:cerebras-wse"),
    (r"\bdojo\b", "hardware:tesla-dojo"),
    (r"\blpu\b", "hardware:groq-lpu"),
)


class SeedError(ValueError):
    """The curated file or the Epoch data cannot be turned into a registry."""


@dataclass
class Draft:
    """An entry before ids are settled: curated, Epoch-derived or both."""

    name: str
    type: str
    key: str
    case: CaseRule = "insensitive"
    aliases: list[str] = field(default_factory=list)
    exact_aliases: list[str] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)
    family_ref: str | None = None  # a key, name or id; resolved at the end
    wikipedia_url: str | None = None
    reviewed: bool = True
    extra: dict[str, str] = field(default_factory=dict)
    epoch_names: list[str] = field(default_factory=list)
    explicit_family: bool = False

    def forms(self) -> Iterator[tuple[str, CaseRule]]:
        yield self.name, self.case
        for alias in self.aliases:
            yield alias, "insensitive"
        for alias in self.exact_aliases:
            yield alias, "exact"


def auto_case(text: str) -> CaseRule:
    """The case rule for a derived surface form: any case only for distinctive forms (longer
    than four characters with a space, digit, hyphen or inner capital such as ``ByteDance``),
    exact for short forms, English words and single plain words (``Florence``, ``NAVER``)."""
    if len(text) <= MAX_SHORT_FORM or text.casefold() in COMMON_WORDS:
        return "exact"
    if not text.isalpha():
        return "insensitive"
    if not text.isupper() and any(c.isupper() for c in text[1:]):
        return "insensitive"
    return "exact"


# --- curated ----------------------------------------------------------------------------


def load_curated(path: Path) -> tuple[list[Draft], dict[str, list[str]]]:
    """The curated drafts and the Epoch skip lists, with every problem reported at once."""
    try:
        raw = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=YAML_LOADER) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise RegistryError(path, [f"cannot read the file: {exc}"]) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("entities"), list):
        raise RegistryError(path, ["expected a mapping with an 'entities' list"])
    problems: list[str] = []
    drafts: list[Draft] = []
    for index, entry in enumerate(raw["entities"]):
        where = f"entry {index} ({entry.get('name') if isinstance(entry, dict) else entry})"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be a mapping")
            continue
        unknown = sorted(str(k) for k in entry if k not in CURATED_FIELDS)
        if unknown:
            problems.append(f"{where}: unknown field(s) {', '.join(unknown)}")
        name, etype = entry.get("name"), entry.get("type")
        if not isinstance(name, str) or not name.strip():
            problems.append(f"{where}: field 'name' is missing")
            continue
        if etype not in ENTITY_TYPES:
            problems.append(f"{where}: field 'type': unknown type {etype!r}")
            continue
        url = entry.get("wikipedia_url")
        if url is None and entry.get("wikipedia"):
            url = WIKIPEDIA_PREFIX + str(entry["wikipedia"]).replace(" ", "_")
        family = entry.get("family")
        drafts.append(
            Draft(
                name=name,
                type=str(etype),
                key=str(entry.get("key") or f"{etype}:{slugify(name)}"),
                case="exact" if entry.get("case") == "exact" else "insensitive",
                aliases=[str(a) for a in entry.get("aliases") or []],
                exact_aliases=[str(a) for a in entry.get("exact_aliases") or []],
                shared=[str(a) for a in entry.get("shared_aliases") or []],
                family_ref=str(family) if family else None,
                explicit_family="family" in entry,
                wikipedia_url=url,
                reviewed=bool(entry.get("reviewed", True)),
                extra={str(k): str(v) for k, v in (entry.get("extra") or {}).items()},
                epoch_names=[str(a) for a in entry.get("epoch_names") or []],
            )
        )
    keys = Counter(d.key for d in drafts)
    problems.extend(f"duplicate key {k} in curated entries" for k, n in keys.items() if n > 1)
    if problems:
        raise RegistryError(path, problems)
    skips = raw.get("epoch_skip") or {}
    return drafts, {str(k): [str(x) for x in v or []] for k, v in skips.items()}


# --- Epoch -------------------------------------------------------------------------------


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def clean_org_name(raw: str) -> tuple[str, list[str]] | None:
    """Epoch's organization spelling → display name and aliases, or None when unusable
    (``Carnegie Mellon University (CMU)`` → ``Carnegie Mellon University`` + ``CMU``)."""
    text = raw.strip()
    if not text or "´" in text or "“" in text:
        return None
    aliases: list[str] = []
    match = re.match(r"^(.*?)\s*\(([^()]*)\)$", text)
    if match:
        text, inner = match.group(1).strip(), match.group(2).strip()
        if " " not in inner and len(inner) <= 12:
            aliases.append(inner)
    if " / " in text:
        first, _, second = text.partition(" / ")
        text = first.strip()
        aliases.append(second.strip())
    if " - " in text:
        first, _, second = text.partition(" - ")
        text = first.strip()
    return text, aliases


def model_variants(name: str) -> list[str]:
    """Written variants of a model name: ``Llama 3.1-405B`` → ``Llama 3.1 405B``,
    ``llama-3.1-405b``."""
    out: list[str] = []
    if "(" in name or "  " in name or " -" in name or "- " in name:
        return out
    for variant in (name.replace("-", " "), name.replace(" ", "-")):
        if variant != name and variant not in out:
            out.append(variant)
    return out


def _split_orgs(value: str) -> list[str]:
    return [_tidy(o) for o in value.split(",") if o.strip()]


def _tidy(text: str) -> str:
    """Epoch cells sometimes wrap a name over two lines (``Cosmos-1.0-\nDiffusion``)."""
    return " ".join(re.sub(r"(?<=\S)-\s*\n\s*", "-", text).split())


def epoch_drafts(epoch_dir: Path, skips: dict[str, list[str]]) -> list[Draft]:
    """Organizations, models and hardware chosen from the Epoch CSVs (see module constants)."""
    models = _read_csv(epoch_dir / "all_ai_models.csv")
    kept_models = _kept_models(models, set(skips.get("models", [])))
    skip_orgs = set(skips.get("organizations", []))

    org_counts = Counter(o for row in models for o in _split_orgs(row["Organization"]))
    wanted_orgs = {o for o, n in org_counts.items() if n >= MIN_MODELS_PER_ORG}
    for row in kept_models:
        wanted_orgs.update(_split_orgs(row["Organization"])[:1])
    for row in _read_csv(epoch_dir / "ai_companies.csv"):
        wanted_orgs.add(row["Name"].strip())

    drafts: list[Draft] = []
    for raw in sorted(wanted_orgs - skip_orgs):
        cleaned = clean_org_name(raw)
        if cleaned is None:
            continue
        name, aliases = cleaned
        drafts.append(_derived(name, "organization", raw, aliases))
    for row in sorted(kept_models, key=lambda r: (r["Model"], r["Publication date"])):
        name = _tidy(row["Model"])
        draft = _derived(name, "model", name, model_variants(name))
        org = _split_orgs(row["Organization"])[:1]
        if org:
            draft.extra["organization"] = org[0]
        if row["Publication date"]:
            draft.extra["published"] = row["Publication date"]
        drafts.append(draft)
    drafts.extend(
        _hardware_drafts(_read_csv(epoch_dir / "ml_hardware.csv"), set(skips.get("hardware", [])))
    )
    return drafts


def _kept_models(models: list[dict[str, str]], skip_models: set[str]) -> list[dict[str, str]]:
    """The model rows worth an entity: recent notable or frontier ones, historic landmarks."""
    kept_models: list[dict[str, str]] = []
    for row in models:
        name = _tidy(row["Model"])
        date = row["Publication date"]
        notability = row["Notability criteria"]
        if not name or name in skip_models or GENERIC_MODEL_RE.search(name):
            continue
        try:
            compute = float(row["Training compute (FLOP)"] or 0)
        except ValueError:
            compute = 0.0
        if date >= RECENT_MODEL_DATE:
            keep = (
                any(n in notability for n in NOTABLE_RECENT)
                or compute >= FRONTIER_COMPUTE_FLOP
                or (row["Model accessibility"] == "API access" and bool(notability))
            )
        else:
            keep = date >= HISTORIC_MODEL_DATE and "Historical significance" in notability
        if keep:
            kept_models.append(row)
    return kept_models


def _hardware_drafts(rows: list[dict[str, str]], skip_hardware: set[str]) -> list[Draft]:
    """The accelerators released since ``HARDWARE_SINCE``, named as people write them."""
    drafts: list[Draft] = []
    for row in rows:
        raw = _tidy(row["Hardware name"])
        release = row["Release date"]
        if (
            not raw
            or raw in skip_hardware
            or (release and release < HARDWARE_SINCE)
            or any(w in raw for w in HARDWARE_SKIP_WORDS)
            or re.search(r"\((v\d|\d+W)\)", raw)
        ):
            continue
        name = re.sub(r"^NVIDIA\b", "Nvidia", raw)
        maker = row["Manufacturer"].strip()
        aliases = [raw] if raw != name else []
        for prefix in (maker, "NVIDIA", "AMD", "Google", "Huawei", "Intel", "Amazon", "Meta"):
            if prefix and raw.startswith(prefix + " "):
                aliases.append(raw[len(prefix) + 1 :])
                break
        draft = _derived(name, "hardware", raw, aliases)
        if maker:
            draft.extra["manufacturer"] = maker
        if release:
            draft.extra["released"] = release
        drafts.append(draft)
    return drafts


def _derived(name: str, etype: str, epoch_name: str, aliases: Iterable[str]) -> Draft:
    draft = Draft(
        name=name,
        type=etype,
        key=f"{etype}:{slugify(name)}",
        case=auto_case(name),
        extra={"source": "epoch", "epoch_name": epoch_name},
        epoch_names=[epoch_name],
    )
    for alias in aliases:
        if len(alias) < MIN_FORM or alias == name:
            continue
        if auto_case(alias) == "exact":
            draft.exact_aliases.append(alias)
        else:
            draft.aliases.append(alias)
    return draft


# --- merging -------------------------------------------------------------------------------


class _Claims:
    """Which draft claims each surface form, by the same overlap rule as the schema check."""

    def __init__(self) -> None:
        self.exact: dict[str, Draft] = {}
        self.folded: dict[str, Draft] = {}

    def owner(self, text: str, case: CaseRule) -> Draft | None:
        if case == "exact":
            return self.exact.get(text) or self.folded.get(text.casefold())
        folded = text.casefold()
        hit = self.folded.get(folded)
        if hit is not None:
            return hit
        return next((d for t, d in sorted(self.exact.items()) if t.casefold() == folded), None)

    def add(self, draft: Draft) -> None:
        for text, case in draft.forms():
            if case == "exact":
                self.exact.setdefault(text, draft)
            else:
                self.folded.setdefault(text.casefold(), draft)


def _draft_of(entity: Entity) -> Draft:
    case = name_case(entity)
    return Draft(
        name=entity.name,
        type=entity.type,
        key=entity.key,
        case=case,
        aliases=[a.text for a in entity.aliases if a.case == "insensitive"],
        exact_aliases=[
            a.text for a in entity.aliases if a.case == "exact" and a.text != entity.name
        ],
        shared=list(shared_aliases(entity)),
        family_ref=entity.family,
        explicit_family=True,
        wikipedia_url=entity.wikipedia_url,
        reviewed=entity.reviewed,
        extra={k: v for k, v in entity.extra.items() if k != "shared_aliases"},
    )


def _merge_epoch(curated: list[Draft], kept: list[Draft], derived: list[Draft]) -> list[Draft]:
    """Fold each Epoch draft into the curated entry it names (by key, Epoch spelling, name or
    alias of the same type); the rest become entries of their own, minus any surface form
    another entry (curated, kept or derived earlier) already claims."""
    by_key = {d.key: d for d in curated}
    by_epoch_name = {(d.type, n.casefold()): d for d in curated for n in d.epoch_names}
    curated_ids = {id(d) for d in curated}
    claims = _Claims()
    for draft in [*curated, *kept]:
        claims.add(draft)
    out: list[Draft] = []
    for draft in derived:
        target = by_key.get(draft.key) or by_epoch_name.get(
            (draft.type, draft.epoch_names[0].casefold())
        )
        if target is None:
            owner = claims.owner(draft.name, draft.case)
            if owner is not None and owner.type == draft.type and id(owner) in curated_ids:
                target = owner
            elif owner is not None:
                continue  # the name belongs to another entry: not worth an ambiguous twin
        if target is not None:
            if target.extra.get("source") != "epoch":
                target.extra.setdefault("epoch_name", draft.epoch_names[0])
            continue
        draft.aliases = [a for a in draft.aliases if claims.owner(a, "insensitive") is None]
        draft.exact_aliases = [a for a in draft.exact_aliases if claims.owner(a, "exact") is None]
        claims.add(draft)
        out.append(draft)
    return out


def _merge_places(drafts: list[Draft]) -> list[Draft]:
    """Fold the gazetteers' places (``warehouse.places``) into the location entries they name
    (their missing names, demonyms and GeoNames id added), and draft the rest: a place whose
    name another entry claims is left out, and so is any alias or demonym another entry
    claims."""
    claims = _Claims()
    for draft in drafts:
        claims.add(draft)
    nations = countries()
    # a new place must not be named like a person, a US state or an English word
    ambiguous = {n.casefold() for n in load_given_names() | COMMON_WORDS | set(us_states())}
    blocked = {form for n in nations for form in (n.name, *n.aliases, *n.exact_aliases)}
    out: list[Draft] = []
    for place in [*nations, *major_cities(blocked | ambiguous)]:
        target = next(
            (
                owner
                for form in (place.name, *place.aliases)
                for owner in [claims.owner(form, "insensitive")]
                if owner is not None
            ),
            None,
        )
        if target is not None and target.type != "location":
            continue  # "Jordan", "Georgia": the name is someone else's
        if target is None:
            if place.name.casefold() in ambiguous:
                continue
            target = Draft(
                name=place.name,
                type="location",
                key=f"location:{slugify(place.name)}",
                case=auto_case(place.name),
                extra={"source": "geonames"},
            )
            out.append(target)
        elif target.name != place.name and claims.owner(place.name, "insensitive") is None:
            target.aliases.append(place.name)
        target.extra.setdefault("geonames_id", str(place.geonames_id))
        target.extra.setdefault("iso3166", place.code)
        forms = {f.casefold() for f, _ in target.forms()}
        for alias in place.aliases:
            if alias.casefold() not in forms and claims.owner(alias, "insensitive") is None:
                target.aliases.append(alias)
                forms.add(alias.casefold())
        for demonym in place.exact_aliases:
            if demonym.casefold() not in forms and claims.owner(demonym, "exact") is None:
                target.exact_aliases.append(demonym)
                forms.add(demonym.casefold())
        claims.add(target)
    return out


def _add_model_variants(drafts: list[Draft]) -> None:
    """Give curated models their hyphen/space spellings (``Grok 3`` → ``Grok-3``) unless
    another entry already claims them."""
    claims = _Claims()
    for draft in drafts:
        claims.add(draft)
    for draft in drafts:
        if draft.type != "model":
            continue
        for variant in model_variants(draft.name):
            case = auto_case(variant)
            if claims.owner(variant, case) is not None:
                continue
            (draft.exact_aliases if case == "exact" else draft.aliases).append(variant)
            if case == "exact":
                claims.exact.setdefault(variant, draft)
            else:
                claims.folded.setdefault(variant.casefold(), draft)


def _family_key(draft: Draft, keys: set[str]) -> str | None:
    rules = {"model": MODEL_FAMILY_RULES, "hardware": HARDWARE_FAMILY_RULES}.get(draft.type, ())
    name = draft.name.casefold()
    for pattern, key in rules:
        if key != draft.key and key in keys and re.search(pattern, name):
            return key
    return None


def seed_registry(
    epoch_dir: Path | None, curated: Path, existing: Path, *, places: bool = True
) -> list[Entity]:
    """The seeded registry: curated entries, Epoch-derived ones (when ``epoch_dir`` is
    given), the gazetteers' countries and major cities (``places``; ``warehouse.places``) and
    every other entry of ``existing``; ids of existing entries are kept (matched by key, then
    by type and name), new entries get ``public_id_for(key)``."""
    curated_drafts, skips = load_curated(curated)
    _add_model_variants(curated_drafts)
    old = load_registry(existing) if Path(existing).exists() else []
    derived = epoch_drafts(Path(epoch_dir), skips) if epoch_dir is not None else []
    if epoch_dir is None:
        # Without the data, keep the Epoch provenance a previous seeding recorded.
        old_by_key = {e.key: e for e in old}
        old_by_name = {(e.type, e.name.casefold()): e for e in old}
        for draft in curated_drafts:
            match = old_by_key.get(draft.key) or old_by_name.get(
                (draft.type, draft.name.casefold())
            )
            if match is not None and "epoch_name" in match.extra:
                draft.extra.setdefault("epoch_name", match.extra["epoch_name"])
    # Existing entries the seed does not produce (added by hand, or Epoch-derived while no
    # --epoch is given) stay as they are; a curated entry whose key changed but whose name
    # did not replaces its old self and inherits the id below.
    regenerated = {d.key for d in [*curated_drafts, *derived]}
    curated_names = {(d.type, d.name.casefold()) for d in curated_drafts}
    kept = [
        _draft_of(e)
        for e in old
        if e.key not in regenerated and (e.type, e.name.casefold()) not in curated_names
    ]
    drafts = [*curated_drafts, *kept, *_merge_epoch(curated_drafts, kept, derived)]
    if places:
        drafts.extend(_merge_places(drafts))
    return _finalize(drafts, old, curated)


def _finalize(drafts: list[Draft], old: list[Entity], curated: Path) -> list[Entity]:
    old_by_key = {e.key: e for e in old}
    old_by_name = {(e.type, e.name.casefold()): e for e in old}
    used: set[str] = set()
    ids: dict[str, str] = {}
    for draft in drafts:
        match = old_by_key.get(draft.key)
        if match is None or match.entity_id in used:
            match = old_by_name.get((draft.type, draft.name.casefold()))
        if match is not None and match.entity_id not in used:
            ids[draft.key] = match.entity_id
            used.add(match.entity_id)
    for draft in drafts:
        if draft.key in ids:
            continue
        new_id = public_id_for(draft.key)
        if new_id in used:
            raise SeedError(f"new id {new_id} for {draft.key} collides with an existing id")
        ids[draft.key] = new_id
        used.add(new_id)

    keys = {d.key for d in drafts}
    by_name: dict[str, list[Draft]] = {}
    for draft in drafts:
        by_name.setdefault(draft.name.casefold(), []).append(draft)
    known_ids = set(ids.values())
    problems: list[str] = []
    entities: list[Entity] = []
    for draft in drafts:
        family: str | None = None
        ref = draft.family_ref
        if ref:
            if ref in known_ids:
                family = ref
            elif ref in keys:
                family = ids[ref]
            elif len(by_name.get(ref.casefold(), [])) == 1:
                family = ids[by_name[ref.casefold()][0].key]
            else:
                problems.append(f"{draft.name}: family {ref!r} matches no single entry")
        elif not draft.explicit_family:
            family_key = _family_key(draft, keys)
            family = ids[family_key] if family_key else None
        entities.append(
            make_entity(
                entity_id=ids[draft.key],
                key=draft.key,
                name=draft.name,
                type=draft.type,
                case=draft.case,
                aliases=draft.aliases,
                exact_aliases=draft.exact_aliases,
                shared=draft.shared,
                family=family,
                wikipedia_url=draft.wikipedia_url,
                reviewed=draft.reviewed,
                extra=draft.extra,
            )
        )
    # The same checks load_registry runs, so a seeded file always loads.
    parsed, entry_problems = parse_entries([entity_to_entry(e) for e in sort_entities(entities)])
    problems.extend(entry_problems)
    problems.extend(check_entities(parsed))
    if problems:
        raise RegistryError(curated, problems)
    return entities


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m warehouse.registry_seed",
        description="Re-seed registry/entities.yaml from registry/curated.yaml and Epoch AI data.",
    )
    parser.add_argument("--epoch", type=Path, help="folder with Epoch AI's CSVs (optional)")
    parser.add_argument("--curated", type=Path, default=DEFAULT_CURATED)
    parser.add_argument(
        "--no-places",
        dest="places",
        action="store_false",
        help="leave out the gazetteers' countries and major cities (warehouse/places.py)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_REGISTRY, help="registry to update (ids kept)"
    )
    parser.add_argument(
        "--check", action="store_true", help="only check the registry at --out and exit"
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            entities = load_registry(args.out)
        else:
            entities = seed_registry(args.epoch, args.curated, args.out, places=args.places)
            write_registry(args.out, entities)
    except (RegistryError, SeedError, GazetteerMissing, OSError) as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    counts = Counter(e.type for e in entities)
    summary = ", ".join(f"{t} {counts.get(t, 0)}" for t in ENTITY_TYPES)
    sys.stdout.write(f"{args.out}: {len(entities)} entities ({summary})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
