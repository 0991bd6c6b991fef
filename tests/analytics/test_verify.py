"""The verifier gate: each rule fires exactly when it should, extractive and abstractive units."""

from __future__ import annotations

import pytest

from analytics.embedding import Embedder
from analytics.verify import (
    RULES,
    Snippet,
    UnitDraft,
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
        # in the source, but its evidence points elsewhere: it locates another passage
        (unit(VALID.text, "Chief executive Jensen Huang"), "unsupported"),
        # its evidence is fine, but the text is not in the source and no embedder is given
        (unit("The company guided to $70 billion.", "The company guided"), "unsupported"),
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
        "Nvidia's CEO said Blackwell demand is extremely strong and cloud GPUs are sold out.",
        "Chief executive Jensen Huang said sales of",
    )
    wrong_number = unit(
        "Nvidia's third-quarter sales reached $60 billion, 62% more than a year before.",
        "Nvidia reported third-quarter revenue of $57",
    )
    drift = unit(
        "AMD launched a new GPU to compete with Blackwell.",
        "Chief executive Jensen Huang said sales of",
    )
    drafts = [paraphrase, ceo, wrong_number, drift]
    accepted, rejected = verify_units(drafts, SOURCE, minilm)
    assert accepted == [paraphrase, ceo]
    assert [(r.unit, r.rule) for r in rejected] == [
        (wrong_number, "unsupported"),
        (drift, "unsupported"),
    ]
    # without an embedder nothing abstractive passes
    accepted, rejected = verify_units(drafts, SOURCE)
    assert accepted == [] and {r.rule for r in rejected} == {"unsupported"}


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
