"""The LLM decomposer's pure half: the request it sends, and how an answer becomes drafts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analytics.llm_units import (
    FALLBACK_REASONS,
    MAX_ARGUMENTS,
    MAX_CLAIMS,
    MAX_SOURCE_CHARS,
    PROMPT_VERSION,
    RESPONSE_SCHEMA,
    LlmAnswerError,
    LlmReply,
    LlmReport,
    LlmRequest,
    extraction_version,
    messages_for,
    parse_answer,
    response_format,
)
from analytics.verify import Snippet

SOURCE = (
    "Acme raised $2 billion on Monday. The round was led by Beta Capital.\n\n"
    "Acme says inference demand doubles every year, so it is building its own chips."
)
ANSWER: dict[str, Any] = {
    "central": {
        "text": "Acme raised $2 billion in a round led by Beta Capital.",
        "evidence": ["Acme raised $2 billion on Monday.", "The round was led by Beta Capital."],
    },
    "arguments": [
        {
            "id": "a1",
            "text": "Inference demand doubles every year.",
            "evidence": ["inference demand doubles every year"],
        }
    ],
    "claims": [
        {"text": "The round was led by Beta Capital.", "evidence": ["The round was led by"]}
    ],
}


def test_an_answer_becomes_drafts_located_in_the_source() -> None:
    central, argument, claim = parse_answer(json.dumps(ANSWER), "analysis", SOURCE)
    assert (central.role, argument.role, claim.role) == ("thesis", "argument", "claim")
    assert argument.argument_id == "a1" and central.argument_id is None
    # an abstractive unit sits where its first snippet is
    assert (central.start_char, central.end_char) == (0, len("Acme raised $2 billion on Monday."))
    assert central.evidence == (
        Snippet("Acme raised $2 billion on Monday.", True),
        Snippet("The round was led by Beta Capital.", True),
    )
    # a unit the model copied from the source sits where its own text is
    assert SOURCE[claim.start_char : claim.end_char] == claim.text
    assert claim.evidence == (Snippet("The round was led by", True),)
    # an event's central statement is its synopsis
    assert parse_answer(json.dumps(ANSWER), "event", SOURCE)[0].role == "synopsis"


def test_the_schema_sent_accepts_what_the_parser_reads() -> None:
    # imported here: jsonschema builds its URI grammars on import (~2.3 s of CPU), which every
    # pytest-xdist worker would pay while collecting
    import jsonschema

    jsonschema.validate(ANSWER, RESPONSE_SCHEMA)
    missing = {key: value for key, value in ANSWER.items() if key != "claims"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(missing, RESPONSE_SCHEMA)
    with pytest.raises(LlmAnswerError):
        parse_answer(json.dumps(missing), "analysis", SOURCE)
    assert response_format()["json_schema"]["schema"] is RESPONSE_SCHEMA


@pytest.mark.parametrize(
    "wrapped",
    [
        "```json\n" + json.dumps(ANSWER) + "\n```",
        "```\n" + json.dumps(ANSWER, indent=2) + "\n```",
        "Here are the units:\n" + json.dumps(ANSWER) + "\nHope this helps.",
    ],
)
def test_an_answer_outside_structured_output_is_still_read(wrapped: str) -> None:
    assert parse_answer(wrapped, "analysis", SOURCE) == parse_answer(
        json.dumps(ANSWER), "analysis", SOURCE
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("The central statement is that Acme raised money.", "invalid_json"),
        ('{"central": {"text": "Acme raised', "invalid_json"),
        ("[1, 2, 3]", "invalid_json"),
        (json.dumps({"arguments": [], "claims": []}), "schema_mismatch"),
        (json.dumps({**ANSWER, "central": "Acme raised $2 billion."}), "schema_mismatch"),
        (json.dumps({**ANSWER, "central": {"text": " ", "evidence": []}}), "schema_mismatch"),
        (
            json.dumps({**ANSWER, "central": {"text": "Acme raised.", "evidence": "Acme"}}),
            "schema_mismatch",
        ),
        (json.dumps({**ANSWER, "claims": {"text": "x"}}), "schema_mismatch"),
        (
            json.dumps({**ANSWER, "arguments": [{"text": "A reason.", "evidence": ["Acme"]}]}),
            "schema_mismatch",
        ),
    ],
)
def test_malformed_answers_fail_with_their_reason(content: str, reason: str) -> None:
    with pytest.raises(LlmAnswerError) as failed:
        parse_answer(content, "analysis", SOURCE)
    assert failed.value.reason == reason


def test_snippets_are_kept_as_written_for_the_verifier_to_judge() -> None:
    long = "Acme says inference demand doubles every year, so it is building"
    answer = {
        **ANSWER,
        "claims": [
            {"text": "Acme builds its own chips.", "evidence": [long]},
            {"text": "Acme builds chips.", "evidence": ["Acme makes chips"]},
        ],
    }
    _, _, too_long, invented = parse_answer(json.dumps(answer), "analysis", SOURCE)
    assert too_long.evidence[0].text == long
    assert invented.evidence[0].text == "Acme makes chips"
    assert (invented.start_char, invented.end_char) == (0, 0)  # nowhere in the source


def test_the_extractors_limits_hold() -> None:
    answer = {
        **ANSWER,
        "arguments": [
            {"id": f"a{i}", "text": f"Reason {i} holds.", "evidence": ["Acme"]}
            for i in range(1, 10)
        ]
        + [{"id": "a1", "text": "More of reason 1.", "evidence": ["Acme"]}],
        "claims": [{"text": f"Fact {i} holds.", "evidence": ["Acme"]} for i in range(20)],
    }
    drafts = parse_answer(json.dumps(answer), "analysis", SOURCE)
    ids = [d.argument_id for d in drafts if d.role == "argument"]
    assert len(set(ids)) == MAX_ARGUMENTS and ids.count("a1") == 2
    assert len([d for d in drafts if d.role == "claim"]) == MAX_CLAIMS


def test_the_request_names_the_content_type_title_and_source() -> None:
    request = LlmRequest("h1", "event", "Acme raises", "x" * (MAX_SOURCE_CHARS + 10))
    system, user = messages_for(request)
    assert system["role"] == "system" and "50 characters" in system["content"]
    assert user["content"].startswith("The source is an event (a report).\nTitle: Acme raises\n")
    assert user["content"].endswith("x" * MAX_SOURCE_CHARS)
    assert "x" * (MAX_SOURCE_CHARS + 1) not in user["content"]


def test_versions_and_replies() -> None:
    assert extraction_version("qwen2.5-7b") == f"llm-{PROMPT_VERSION}:qwen2.5-7b"
    with pytest.raises(ValueError, match="either content or a failure"):
        LlmReply(None)
    with pytest.raises(ValueError, match="either content or a failure"):
        LlmReply("{}", "timeout")
    with pytest.raises(ValueError, match="unknown failure"):
        LlmReply(None, "gone fishing")
    report = LlmReport(fallbacks=(("s1", "timeout"), ("s2", "timeout"), ("s3", "invalid_json")))
    counts = report.fallback_counts()
    assert list(counts) == list(FALLBACK_REASONS)
    assert counts["timeout"] == 2 and counts["invalid_json"] == 1 and sum(counts.values()) == 3
