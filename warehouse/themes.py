"""The theme taxonomy file (``registry/themes.yaml``): the descriptions and weighted keywords
theme tagging matches the 12 canonical labels on, loaded into an
``analytics.themes.ThemeTaxonomy`` and checked on load.

The file is edited by hand, so the check reports every problem at once, each naming the file
and the entry (index and label), instead of stopping at the first one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from analytics.themes import AXES, THEME_LABELS, Theme, ThemeTaxonomy

DEFAULT_THEMES = Path(__file__).resolve().parent.parent / "registry" / "themes.yaml"

# The C loader when PyYAML has it; both read the same values.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ENTRY_FIELDS = ("axis", "label", "description", "keywords")
# (axis, label) of entry i, in canonical order.
CANONICAL = tuple((axis, label) for axis in AXES for label in THEME_LABELS[axis])


class ThemeTaxonomyError(ValueError):
    """The taxonomy file is malformed; ``problems`` lists every problem found."""

    def __init__(self, path: Path | str, problems: Sequence[str]) -> None:
        self.path = str(path)
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in theme taxonomy {self.path}:\n{lines}")


def load_theme_taxonomy(path: Path | None = None) -> ThemeTaxonomy:
    """Load and check the theme taxonomy (default ``registry/themes.yaml``); raises
    ``ThemeTaxonomyError`` listing every problem. The keyword pattern is compiled here, so a
    taxonomy that loads can tag."""
    path = DEFAULT_THEMES if path is None else Path(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except OSError as exc:
        raise ThemeTaxonomyError(path, [f"cannot read the file: {exc}"]) from exc
    except yaml.YAMLError as exc:
        raise ThemeTaxonomyError(path, [f"not valid YAML: {exc}"]) from exc
    themes, problems = parse_taxonomy(raw)
    if problems:
        raise ThemeTaxonomyError(path, problems)
    taxonomy = ThemeTaxonomy(tuple(themes))
    try:
        _ = taxonomy.keyword_index  # compiles the combined pattern, cached on the taxonomy
    except re.error as exc:
        problem = f"the keywords do not combine into one pattern: {exc}"
        raise ThemeTaxonomyError(path, [problem]) from exc
    return taxonomy


def _where(index: int, entry: Any) -> str:
    label = entry.get("label") if isinstance(entry, Mapping) else None
    return f"entry {index}" + (f" ({label})" if isinstance(label, str) else "")


def _weights(raw: Any) -> tuple[dict[str, float], list[str]]:
    if not isinstance(raw, Mapping) or not raw:
        return {}, ["weights: expected a mapping of weight names to positive numbers"]
    weights: dict[str, float] = {}
    problems = []
    for name, value in raw.items():
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or value <= 0
        ):
            problems.append(f"weights.{name}: expected a positive number, got {value!r}")
        else:
            weights[str(name)] = float(value)
    return weights, problems


def _keyword_problems(where: str, group: str, term: Any) -> list[str]:
    if not isinstance(term, str) or not term:
        return [f"{where}: keywords.{group}: expected a non-empty string, got {term!r}"]
    try:
        compiled = re.compile(term)
    except re.error as exc:
        return [f"{where}: keywords.{group}: {term!r} is not a valid regular expression: {exc}"]
    if compiled.groupindex:
        return [f"{where}: keywords.{group}: {term!r} has a named group, which is not allowed"]
    return []


def _theme(index: int, entry: Any, weights: Mapping[str, float]) -> tuple[Theme | None, list[str]]:
    where = _where(index, entry)
    if not isinstance(entry, Mapping):
        return None, [f"{where}: expected a mapping with {', '.join(ENTRY_FIELDS)}"]
    problems = [f"{where}: unknown field {key!r}" for key in entry if key not in ENTRY_FIELDS]
    problems += [f"{where}: missing field {key!r}" for key in ENTRY_FIELDS if key not in entry]
    if index < len(CANONICAL):
        axis, label = CANONICAL[index]
        if (entry.get("axis"), entry.get("label")) != (axis, label):
            problems.append(
                f"{where}: expected axis {axis!r} and label {label!r} here "
                f"(got {entry.get('axis')!r}, {entry.get('label')!r}); the 12 canonical labels "
                "are fixed and come in canonical order"
            )

    description = entry.get("description")
    sentences: tuple[str, ...] = ()
    if (
        isinstance(description, list)
        and description
        and all(isinstance(s, str) and s.strip() for s in description)
    ):
        sentences = tuple(description)
    else:
        problems.append(f"{where}: description: expected a non-empty list of non-empty sentences")

    # (term, weight) in file order: the order of the alternation, which decides ties
    keywords: list[tuple[str, float]] = []
    seen: set[str] = set()
    groups = entry.get("keywords")
    if not isinstance(groups, Mapping):
        problems.append(f"{where}: keywords: expected a mapping of weight names to term lists")
        groups = {}
    for group, terms in groups.items():
        if group not in weights:
            problems.append(
                f"{where}: keywords.{group}: unknown weight; weights are {', '.join(weights)}"
            )
        if not isinstance(terms, list) or not terms:
            problems.append(f"{where}: keywords.{group}: expected a non-empty list of terms")
            continue
        for term in terms:
            term_problems = _keyword_problems(where, group, term)
            if not term_problems and term in seen:
                # it would count twice towards the label
                term_problems = [f"{where}: keywords.{group}: {term!r} is listed twice"]
            problems += term_problems
            if not term_problems and group in weights:
                seen.add(term)
                keywords.append((term, weights[group]))

    if problems:
        return None, problems
    return Theme(entry["axis"], entry["label"], sentences, tuple(keywords)), []


def parse_taxonomy(raw: Any) -> tuple[list[Theme], list[str]]:
    """The themes of a parsed taxonomy file and every problem found (themes are only complete
    when there are no problems)."""
    if not isinstance(raw, Mapping):
        return [], ["expected a mapping with 'weights' and 'themes'"]
    problems = [
        f"unknown top-level field {key!r}" for key in raw if key not in ("weights", "themes")
    ]
    weights, weight_problems = _weights(raw.get("weights"))
    problems += weight_problems
    entries = raw.get("themes")
    if not isinstance(entries, list):
        return [], [*problems, "themes: expected a list of entries"]
    if len(entries) != len(CANONICAL):
        problems.append(
            f"themes: expected exactly {len(CANONICAL)} entries, one per canonical label, "
            f"got {len(entries)}"
        )
    themes: list[Theme] = []
    for index, entry in enumerate(entries):
        theme, entry_problems = _theme(index, entry, weights)
        problems += entry_problems
        if theme is not None:
            themes.append(theme)
    present = [e.get("label") for e in entries if isinstance(e, Mapping)]
    problems += [
        f"themes: label {label!r} ({axis}) is missing"
        for axis, label in CANONICAL
        if label not in present
    ]
    return themes, problems
