"""The verifier gate: each rule fires exactly when it should, extractive and abstractive units."""

from __future__ import annotations

import pytest

from analytics.embedding import Embedder
from analytics.entities import Alias, Entity
from analytics.linking import Linker
from analytics.verify import (
    RULES,
    Snippet,
    UnitDraft,
    names_missing,
    numbers_missing,
    rejection_counts,
    verify_units,
)

SOURCE = (
    "Nvidia reported third-quarter revenue of $57 billion on Wednesday, up 62% from a year "
    "earlier.\n\nThe company guided to revenue of $65 billion for the fourth quarter, above the "
    "$62 billion analysts had expected. Chief executive Jensen Huang said sales of Blackwell "
    'systems were "off the charts" and that cloud GPUs were sold out.\n\n'
    "Subscribe to our newsletter for more."
)
LEAD = "Nvidia reported third-quarter revenue of $57 billion on Wednesday, up 62% from a year"


def unit(
    text: str,
    *snippets: str,
    role: str = "claim",
    argument_id: str | None = None,
) -> UnitDraft:
    evidence = tuple(Snippet(s, len(s) < len(text)) for s in snippets)
    return UnitDraft(role, text, 0, len(text), evidence, argument_id)


GUIDED = "The company guided to revenue of $65 billion"
VALID = unit(
    "The company guided to revenue of $65 billion for the fourth quarter, above the "
    "$62 billion analysts had expected.",
    "The company guided to revenue of $65 billion",
)


@pytest.mark.parametrize(
    ("draft", "rule"),
    [
        (unit("Nvidia reported revenue of $57 billion."), "no_evidence"),
        (unit(VALID.text, "The company guided", " \n "), "empty_snippet"),
        (unit(VALID.text, VALID.text[:51]), "snippet_too_long"),
        (unit(VALID.text, "The company guided to revenue of $66"), "snippet_not_verbatim"),
        (unit("company guided", "company guided"), "too_short"),
        (unit("Subscribe to our newsletter for more.", "Subscribe to our"), "boilerplate"),
        # abstractive (not in the source): a figure the located passage does not have
        (unit("The company guided to revenue of $70 billion.", GUIDED), "number_not_in_evidence"),
        # ... a name it does not have
        (unit("AMD guided to revenue of $65 billion.", GUIDED), "entity_not_in_evidence"),
        # ... a negation it does not make
        (
            unit("The company did not guide to revenue of $65 billion.", GUIDED),
            "contradicts_evidence",
        ),
        # in the source, but its evidence points elsewhere: it locates another passage
        (unit("that cloud GPUs were sold out.", "The company guided to revenue"), "unsupported"),
        # its evidence is fine, but the text is not in the source and no embedder is given
        (unit("The company raised its outlook for the coming quarter.", GUIDED), "unsupported"),
    ],
)
def test_each_rule_fires_alone(draft: UnitDraft, rule: str) -> None:
    accepted, rejected = verify_units([draft, VALID], SOURCE)
    assert accepted == [VALID]
    assert [(r.unit, r.rule) for r in rejected] == [(draft, rule)]
    counts = rejection_counts(rejected)
    assert counts[rule] == 1 and sum(counts.values()) == 1 and set(counts) == set(RULES)


def test_snippet_of_exactly_50_chars_and_whitespace_variants_pass() -> None:
    fifty = VALID.text[:50]
    assert len(fifty) == 50
    spaced = unit(VALID.text.replace(" ", "  "), "The company  guided\nto revenue")
    accepted, rejected = verify_units([unit(VALID.text, fifty), spaced], SOURCE)
    assert rejected == [] and len(accepted) == 2


def test_arguments_need_a_thesis_and_an_argument_id() -> None:
    thesis = unit(LEAD, LEAD[:40], role="thesis")
    argument = unit(VALID.text, VALID.evidence[0].text, role="argument", argument_id="a1")
    unlabelled = unit(VALID.text, VALID.evidence[0].text, role="argument")
    accepted, rejected = verify_units([thesis, argument, unlabelled], SOURCE)
    assert accepted == [thesis, argument]
    assert [(r.unit, r.rule) for r in rejected] == [(unlabelled, "orphan_argument")]

    # the thesis fails, so its arguments have nothing to support
    bad_thesis = unit("Nvidia is doomed by its margins.", "Nvidia reported", role="thesis")
    accepted, rejected = verify_units([bad_thesis, argument], SOURCE)
    assert accepted == []
    assert [r.rule for r in rejected] == ["unsupported", "orphan_argument"]

    # an event's synopsis does not make an argument any less of an orphan
    synopsis = unit(LEAD, LEAD[:40], role="synopsis")
    _, rejected = verify_units([synopsis, argument], SOURCE)
    assert [r.rule for r in rejected] == ["orphan_argument"]


def test_abstractive_units_are_checked_against_the_located_passage(minilm: Embedder) -> None:
    paraphrase = unit(
        "Nvidia's third-quarter sales reached $57 billion, 62% more than a year before.",
        "Nvidia reported third-quarter revenue of $57",
    )
    ceo = unit(
        "Jensen Huang said Blackwell sales were off the charts and cloud GPUs were sold out.",
        "Chief executive Jensen Huang said sales of",
    )
    wrong_number = unit(
        "Nvidia's third-quarter sales reached $60 billion, 62% more than a year before.",
        "Nvidia reported third-quarter revenue of $57",
    )
    swapped = unit(
        "Nvidia's third-quarter sales reached $57 billion, 62% more than AMD's.",
        "Nvidia reported third-quarter revenue of $57",
    )
    reversed_claim = unit(
        "Jensen Huang said sales of Blackwell systems were slow and cloud GPUs were not sold out.",
        "Chief executive Jensen Huang said sales of",
    )
    drift = unit(
        "Jensen Huang warned that chip export rules could hurt future data center demand.",
        "Chief executive Jensen Huang said sales of",
    )
    drafts = [paraphrase, ceo, wrong_number, swapped, reversed_claim, drift]
    accepted, rejected = verify_units(drafts, SOURCE, minilm)
    assert accepted == [paraphrase, ceo]
    assert [(r.unit, r.rule) for r in rejected] == [
        (wrong_number, "number_not_in_evidence"),
        (swapped, "entity_not_in_evidence"),
        (reversed_claim, "contradicts_evidence"),
        (drift, "unsupported"),
    ]
    # without an embedder the lexical rules still name what they see; nothing else passes
    accepted, rejected = verify_units(drafts, SOURCE)
    assert accepted == []
    assert [r.rule for r in rejected] == [
        "unsupported",
        "unsupported",
        "number_not_in_evidence",
        "entity_not_in_evidence",
        "contradicts_evidence",
        "unsupported",
    ]


REGISTRY = [
    Entity(
        "ent:/nvidia",
        "organization:nvidia",
        "Nvidia",
        "organization",
        (Alias("Nvidia Corporation"),),
    ),
    Entity("ent:/intel", "organization:intel", "Intel", "organization"),
]


def test_registry_mentions_count_as_names_by_any_alias(minilm: Embedder) -> None:
    linker = Linker(REGISTRY)
    by_alias = unit(
        "Nvidia Corporation reported third-quarter revenue of $57 billion, up 62% on the year.",
        "Nvidia reported third-quarter revenue of $57",
    )
    # a plain capitalized word opening a sentence is a name only as a registry mention
    intel = unit(
        "Intel reported third-quarter revenue of $57 billion, up 62% from a year earlier.",
        "Nvidia reported third-quarter revenue of $57",
    )
    accepted, rejected = verify_units([by_alias, intel], SOURCE, minilm, linker)
    assert accepted == [by_alias]
    assert [(r.unit, r.rule) for r in rejected] == [(intel, "entity_not_in_evidence")]
    # without the registry "Corporation" is an unknown name, and Intel passes the name rule:
    # only the cosine (0.70 here) refuses it
    accepted, rejected = verify_units([by_alias, intel], SOURCE, minilm)
    assert accepted == []
    assert [(r.unit, r.rule) for r in rejected] == [
        (by_alias, "entity_not_in_evidence"),
        (intel, "unsupported"),
    ]


@pytest.mark.parametrize(
    ("text", "passage", "missing"),
    [
        # any case, possessives, separators; generic acronyms, periods and titles are no names
        ("Revenue at OpenAI's unit rose in Q3, its CEO said.", "openai revenue rose", []),
        ("GPT-4o beat Llama on most tasks.", "gpt 4o beat llama", []),
        # a common word opening a sentence is no name; a capitalized word inside one is
        ("Sales rose at Acme.", "Revenue rose at Acme.", []),
        ("Revenue rose at Globex.", "Revenue rose at Acme.", ["Globex"]),
        # names by their shape, wherever they are: digits, inner capitals, all capitals
        ("DeepSeek-R1 topped it.", "DeepSeek V3 topped it.", ["DeepSeek-R1"]),
        ("MENA buyers and xAI joined.", "buyers joined", ["MENA", "xAI"]),
        # a whole word: "Meta" is not in "metadata"
        ("The metadata came from Meta.", "the metadata came", ["Meta"]),
    ],
)
def test_names_missing(text: str, passage: str, missing: list[str]) -> None:
    assert names_missing(text, passage) == missing


def test_numbers_are_compared_whole_and_without_thousands_separators() -> None:
    assert numbers_missing("Revenue grew 5%.", "Revenue grew 57%.") == ["5"]
    assert numbers_missing("a team of 3500 people", "a team of 3,500 people") == []
    assert numbers_missing("a team of 3,500 people", "a team of 3500 people") == []
    assert numbers_missing("GPT-4.1 and 2.5 Pro", "GPT-4.1 beat Gemini 2.5 Pro") == []


def test_rejection_counts_cover_every_rule() -> None:
    assert rejection_counts([]) == dict.fromkeys(RULES, 0)


def test_a_statement_that_dropped_its_marker_is_still_extractive() -> None:
    source = "Intro line here. So, the bottleneck is power for every new campus."
    dropped = UnitDraft(
        "thesis",
        "The bottleneck is power for every new campus.",
        21,
        66,
        (Snippet("the bottleneck is power for every", False),),
    )
    accepted, rejected = verify_units([dropped], source)
    assert accepted == [dropped] and not rejected
    # only the first letter may differ: another change is no longer the source's words
    changed = UnitDraft(
        "thesis",
        "The Bottleneck is power for every new campus.",
        21,
        66,
        (Snippet("the bottleneck is power for every", False),),
    )
    assert [r.rule for r in verify_units([changed], source)[1]] == ["unsupported"]
