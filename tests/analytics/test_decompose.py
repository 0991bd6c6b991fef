from __future__ import annotations

import pytest

from analytics.decompose import (
    LexicalDecomposer,
    Snippet,
    UnitDraft,
    classify_content_type,
    is_boilerplate,
    unit_id_for,
    verify_units,
)

ESSAY = (
    "The market keeps pricing AI labs as software companies. That is a mistake. "
    "Training frontier models is a capital-intensive business closer to chip fabrication "
    "than to SaaS, and the capital intensity of frontier AI labs will decide who survives. "
    "OpenAI committed $1.4 trillion to compute over eight years. "
    "Anthropic signed for one million TPU chips in October 2025. "
    "Should investors care? Only if they want to understand margins."
)
NEWS = (
    "Nvidia reported third-quarter revenue of $57 billion on Wednesday, up 62% from a year "
    "earlier. The company guided to $65 billion for the next quarter. "
    "Subscribe to our newsletter for more."
)


@pytest.mark.parametrize(
    ("kind", "title", "text", "expected"),
    [
        ("news", "x", "I think this is wrong.", "event"),
        ("essay", "x", "Nvidia announced a chip on Monday.", "analysis"),
        ("podcast", "x", "Anything.", "analysis"),
        (
            "social",
            "Hot take",
            "I think the scaling debate is overrated and we should move on.",
            "analysis",
        ),
        (
            "social",
            "Launch",
            "Mistral released Magistral on Tuesday, according to the blog.",
            "event",
        ),
        (
            "article",
            "Deal",
            "Microsoft signed a $10 billion deal; the company announced it on Monday.",
            "event",
        ),
    ],
)
def test_content_type(kind: str, title: str, text: str, expected: str) -> None:
    assert classify_content_type(kind, title, text) == expected


def test_event_gets_its_lead_as_synopsis_and_factual_claims() -> None:
    units = LexicalDecomposer().decompose("event", NEWS)
    assert units[0].role == "synopsis"
    assert units[0].text.startswith("Nvidia reported third-quarter revenue")
    assert [u.role for u in units[1:]] == ["claim"]
    assert "Subscribe" not in " ".join(u.text for u in units)


def test_analysis_thesis_is_the_most_central_sentence_not_a_question() -> None:
    units = LexicalDecomposer().decompose("analysis", ESSAY)
    assert units[0].role == "thesis"
    assert "capital intensity of frontier AI labs" in units[0].text
    claims = [u.text for u in units if u.role == "claim"]
    assert any("$1.4 trillion" in c for c in claims)
    assert all(not c.endswith("?") for c in claims)


def test_units_carry_verbatim_snippets_of_at_most_50_chars() -> None:
    for unit in LexicalDecomposer().decompose("analysis", ESSAY):
        assert unit.evidence
        for item in unit.evidence:
            assert len(item.text) <= 50 and item.text in ESSAY
        assert ESSAY[unit.start_char : unit.end_char] == unit.text


def _draft(text: str, snippet: str) -> UnitDraft:
    return UnitDraft("claim", text, 0, len(text), (Snippet(snippet, True),))


@pytest.mark.parametrize(
    ("draft", "rule"),
    [
        (UnitDraft("claim", "Nvidia reported revenue.", 0, 1, ()), "no_evidence"),
        (_draft("Nvidia reported third-quarter revenue", "x" * 51), "snippet_too_long"),
        (_draft("Nvidia reported third-quarter revenue", "Nvidia made"), "snippet_not_verbatim"),
        (_draft("Nvidia reported", "Nvidia reported"), "too_short"),
        (_draft("Subscribe to our newsletter for more.", "Subscribe to"), "boilerplate"),
        (_draft("Nvidia reported revenue of $60 billion", "Nvidia reported"), "unsupported"),
    ],
)
def test_verifier_rejects_with_the_rule(draft: UnitDraft, rule: str) -> None:
    accepted, rejected = verify_units([draft], NEWS)
    assert accepted == []
    assert [r.rule for r in rejected] == [rule]


def test_verifier_accepts_whitespace_variants() -> None:
    draft = _draft(
        "The company guided to $65 billion  for the next quarter.", "The company  guided"
    )
    accepted, rejected = verify_units([draft], NEWS)
    assert accepted == [draft] and rejected == []


def test_boilerplate_is_furniture_not_a_mention() -> None:
    assert is_boilerplate("Subscribe now for updates")
    assert is_boilerplate("Privacy policy | Terms of service")
    assert not is_boilerplate(
        "Google requested removal of the free provider, citing a Terms of Service violation "
        "due to unexpectedly high usage."
    )
    assert not is_boilerplate("Students may subscribe to ChatGPT Plus to avoid the limits.")


def test_unit_ids_are_stable_and_whitespace_insensitive() -> None:
    assert unit_id_for("sig_1", "claim", "A  b c") == unit_id_for("sig_1", "claim", "a b c")
    assert unit_id_for("sig_1", "claim", "a b c") != unit_id_for("sig_2", "claim", "a b c")
    assert unit_id_for("sig_1", "claim", "a b c") != unit_id_for("sig_1", "thesis", "a b c")
