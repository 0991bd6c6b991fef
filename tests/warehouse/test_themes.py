"""The theme taxonomy file: the committed file loads into the 12 canonical labels, and every
kind of mistake an editor can make is reported with the file and the entry."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from analytics.themes import AXES, THEME_LABELS, ThemeTaxonomy, keyword_evidence
from warehouse.themes import DEFAULT_THEMES, ThemeTaxonomyError, load_theme_taxonomy

Raw = dict[str, Any]


@pytest.fixture(scope="module")
def raw() -> Raw:
    loaded: Raw = yaml.safe_load(DEFAULT_THEMES.read_text(encoding="utf-8"))
    return loaded


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "themes.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _problems(tmp_path: Path, raw: Raw, edit: Callable[[Raw], None]) -> list[str]:
    data = copy.deepcopy(raw)
    edit(data)
    path = _write(tmp_path, data)
    with pytest.raises(ThemeTaxonomyError) as caught:
        load_theme_taxonomy(path)
    assert caught.value.path == str(path)
    assert str(path) in str(caught.value)
    return caught.value.problems


# --- the committed file --------------------------------------------------------------------------


def test_default_path_is_beside_the_entity_registry() -> None:
    assert DEFAULT_THEMES.name == "themes.yaml"
    assert (DEFAULT_THEMES.parent / "entities.yaml").exists()


def test_committed_taxonomy_has_the_canonical_labels_in_order() -> None:
    taxonomy = load_theme_taxonomy()
    assert isinstance(taxonomy, ThemeTaxonomy)
    assert [(t.axis, t.label) for t in taxonomy.themes] == [
        (axis, label) for axis in AXES for label in THEME_LABELS[axis]
    ]
    assert load_theme_taxonomy(DEFAULT_THEMES) == taxonomy
    for theme in taxonomy.themes:
        assert theme.description and theme.keywords
        assert {weight for _, weight in theme.keywords} <= {1.0, 0.6, 0.3}


def test_keywords_keep_their_weight_groups_and_file_order(raw: Raw) -> None:
    taxonomy = load_theme_taxonomy()
    weights = raw["weights"]
    for theme, entry in zip(taxonomy.themes, raw["themes"], strict=True):
        expected = [
            (term, float(weights[group]))
            for group, terms in entry["keywords"].items()
            for term in terms
        ]
        assert list(theme.keywords) == expected
    semis = taxonomy.themes[0]
    assert semis.keywords[:2] == (("gpus?", 1.0), ("semiconductors?", 1.0))
    assert ("hbm\\d?e?", 1.0) in semis.keywords  # single quotes keep the backslash
    assert keyword_evidence("HBM3e supply", taxonomy)[0] == 1.0


# --- every problem is reported, naming the entry -------------------------------------------------


def test_a_reordered_label_is_reported(tmp_path: Path, raw: Raw) -> None:
    def swap(data: Raw) -> None:
        data["themes"][0], data["themes"][1] = data["themes"][1], data["themes"][0]

    problems = _problems(tmp_path, raw, swap)
    assert len(problems) == 2
    assert problems[0].startswith("entry 0 (Infrastructure): expected axis 'value_chain' and ")
    assert "'Semiconductors & Hardware'" in problems[0]
    assert problems[1].startswith("entry 1 (Semiconductors & Hardware): ")


def test_a_renamed_or_shorthand_label_is_reported(tmp_path: Path, raw: Raw) -> None:
    def rename(data: Raw) -> None:
        data["themes"][7]["label"] = "C&I"

    problems = _problems(tmp_path, raw, rename)
    assert problems[0].startswith("entry 7 (C&I): expected axis 'market_force' and label ")
    assert "themes: label 'Capital & Investment' (market_force) is missing" in problems


def test_a_label_on_the_wrong_axis_is_reported(tmp_path: Path, raw: Raw) -> None:
    def move(data: Raw) -> None:
        data["themes"][2]["axis"] = "market_force"

    assert _problems(tmp_path, raw, move) == [
        "entry 2 (Data): expected axis 'value_chain' and label 'Data' here (got "
        "'market_force', 'Data'); the 12 canonical labels are fixed and come in canonical order"
    ]


def test_a_missing_or_extra_entry_is_reported(tmp_path: Path, raw: Raw) -> None:
    def drop(data: Raw) -> None:
        del data["themes"][-1]

    problems = _problems(tmp_path, raw, drop)
    assert "themes: expected exactly 12 entries, one per canonical label, got 11" in problems
    assert "themes: label 'Adoption & Demand' (market_force) is missing" in problems

    def extra(data: Raw) -> None:
        data["themes"].append(copy.deepcopy(data["themes"][0]))

    assert "themes: expected exactly 12 entries, one per canonical label, got 13" in (
        _problems(tmp_path, raw, extra)
    )


@pytest.mark.parametrize("description", [[], None, "One sentence, not a list.", ["ok", " "]])
def test_an_empty_description_is_reported(tmp_path: Path, raw: Raw, description: Any) -> None:
    def blank(data: Raw) -> None:
        data["themes"][3]["description"] = description

    assert _problems(tmp_path, raw, blank) == [
        "entry 3 (Foundation Models): description: expected a non-empty list of non-empty sentences"
    ]


def test_an_invalid_regular_expression_is_reported(tmp_path: Path, raw: Raw) -> None:
    def broken(data: Raw) -> None:
        data["themes"][4]["keywords"]["medium"].append("sdks?(")
        data["themes"][9]["keywords"]["weak"].append("(?P<k1>jobs)")

    problems = _problems(tmp_path, raw, broken)
    assert len(problems) == 2
    assert problems[0].startswith(
        "entry 4 (Tooling & Platforms): keywords.medium: 'sdks?(' is not a valid regular "
        "expression: missing ), unterminated subpattern"
    )
    assert problems[1] == (
        "entry 9 (Talent & Labor): keywords.weak: '(?P<k1>jobs)' has a named group, which is "
        "not allowed"
    )


def test_fragments_that_only_fail_together_are_reported(tmp_path: Path, raw: Raw) -> None:
    def flag(data: Raw) -> None:
        data["themes"][5]["keywords"]["weak"].append("(?i)apps?")

    problems = _problems(tmp_path, raw, flag)
    assert len(problems) == 1
    assert problems[0].startswith("the keywords do not combine into one pattern: ")


def test_keyword_shapes_and_duplicates_are_reported(tmp_path: Path, raw: Raw) -> None:
    def mess(data: Raw) -> None:
        keywords = data["themes"][1]["keywords"]
        keywords["strong"].append(keywords["strong"][0])
        keywords["medium"].append("")
        keywords["weak"] = []
        keywords["huge"] = ["terawatts?"]

    assert _problems(tmp_path, raw, mess) == [
        "entry 1 (Infrastructure): keywords.strong: 'data ?cent(?:er|re)s?' is listed twice",
        "entry 1 (Infrastructure): keywords.medium: expected a non-empty string, got ''",
        "entry 1 (Infrastructure): keywords.weak: expected a non-empty list of terms",
        "entry 1 (Infrastructure): keywords.huge: unknown weight; weights are strong, medium, weak",
    ]


@pytest.mark.parametrize("weight", [0, -0.3, "high", True, float("inf")])
def test_weights_must_be_positive_numbers(tmp_path: Path, raw: Raw, weight: Any) -> None:
    def reweigh(data: Raw) -> None:
        data["weights"]["weak"] = weight

    problems = _problems(tmp_path, raw, reweigh)
    assert problems[0] == f"weights.weak: expected a positive number, got {weight!r}"
    # every entry's weak terms then name an unknown weight
    assert all(
        "keywords.weak: unknown weight; weights are strong, medium" in p for p in problems[1:]
    )
    assert len(problems) == 13


def test_unknown_and_missing_fields_are_reported(tmp_path: Path, raw: Raw) -> None:
    def fields(data: Raw) -> None:
        data["themes"][6]["colour"] = "red"
        del data["themes"][8]["keywords"]
        data["version"] = 2

    assert _problems(tmp_path, raw, fields) == [
        "unknown top-level field 'version'",
        "entry 6 (Competitive Dynamics): unknown field 'colour'",
        "entry 8 (Regulatory & Legal): missing field 'keywords'",
        "entry 8 (Regulatory & Legal): keywords: expected a mapping of weight names to term lists",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- just\n- a list\n", "expected a mapping with 'weights' and 'themes'"),
        ("weights: {strong: 1.0}\nthemes: {}\n", "themes: expected a list of entries"),
        ("weights: [1.0]\nthemes: []\n", "weights: expected a mapping of weight names to "),
    ],
)
def test_wrong_top_level_shapes_are_reported(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "themes.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ThemeTaxonomyError) as caught:
        load_theme_taxonomy(path)
    assert caught.value.problems[0].startswith(problem)


def test_unreadable_and_invalid_yaml_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ThemeTaxonomyError, match=r"theme taxonomy .*nope\.yaml"):
        load_theme_taxonomy(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("weights: [unclosed\n", encoding="utf-8")
    with pytest.raises(ThemeTaxonomyError) as caught:
        load_theme_taxonomy(bad)
    assert caught.value.problems[0].startswith("not valid YAML: ")
