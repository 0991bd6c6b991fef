"""The LLM decomposer against a local OpenAI-compatible test server over real HTTP
(``tests.llm_server``, a test double for the external endpoint): the requests it sends, retries,
timeouts, bounded concurrency, the answer cache, the verifier refusing exactly the flawed units
rule by rule, and the fallback to the deterministic extractor for every kind of failure."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from typing import Any

import polars as pl
import pytest
from pydantic import SecretStr

import pipelines.llm
from analytics.decompose import CURRENT_EXTRACTION_VERSION, EXTRACTION_VERSION
from analytics.embedding import Embedder
from analytics.llm_units import LlmDecomposer, LlmReport, LlmRequest, extraction_version
from analytics.records import validate_record
from analytics.schema import LLM_ANSWERS
from analytics.signals import extract_units, signals_from_sources
from pipelines.llm import (
    CachedLlm,
    LlmCallFailed,
    LlmEndpoint,
    LlmNotConfigured,
    ask,
    llm_for_run,
)
from tests.llm_server import Reply, answer, llm_server, refused_url
from warehouse.ingest import sources_frame
from warehouse.settings import Settings

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MODEL = "test-model"
SOURCE = (
    "Cloud providers are spending more on data centers than ever, and power is now the binding "
    "constraint. Microsoft, Alphabet, Amazon and Meta guided to more than $300 billion of capital "
    "expenditure this year, most of it for accelerators.\n\n"
    "New campuses ask utilities for a gigawatt or more. Grid interconnection queues in Texas and "
    "Virginia now run past four years, so sites with power already connected sell at a premium.\n\n"
    "Nvidia still sells most of the accelerators, but custom chips are gaining share. Google "
    "trains its Gemini models on its own TPUs, and Amazon offers Trainium to its cloud customers."
)
ESSAY = {
    "kind": "essay",
    "title": "Power is the constraint",
    "url": "https://essays.example.org/power",
    "published_at": "2026-05-20T08:00:00Z",
    "text": SOURCE,
}
CENTRAL = {
    "text": "Cloud providers spend more on data centers than ever, and power has become the "
    "binding constraint.",
    "evidence": [
        "Cloud providers are spending more on data",
        "power is now the binding constraint",
    ],
}
GOOD_ARGUMENT = {
    "id": "a1",
    "text": "Sites that already have a grid connection sell at a premium because interconnection "
    "queues in Texas and Virginia run past four years.",
    "evidence": ["Grid interconnection queues in Texas and"],
}
GOOD_CLAIMS = [
    # copied from the source: extractive
    {"text": "New campuses ask utilities for a gigawatt or more.", "evidence": ["New campuses"]},
    # in other words: abstractive, and supported
    {
        "text": "Custom chips are gaining share from Nvidia's accelerators.",
        "evidence": ["Nvidia still sells most of the accelerators, but"],
    },
]
# each deliberately flawed unit, and the rule that must refuse it
FLAWED: list[tuple[dict[str, Any], str]] = [
    (
        {
            "text": "Microsoft, Alphabet, Amazon and Meta guided to more than $500 billion of "
            "capital expenditure.",
            "evidence": ["Microsoft, Alphabet, Amazon and Meta guided to"],
        },
        "number_not_in_evidence",
    ),
    (
        {
            "text": "Google trains its Gemini models on Nvidia GPUs, and Amazon offers Trainium to "
            "its cloud customers.",
            "evidence": ["Google trains its Gemini models on its own TPUs"],
        },
        "entity_not_in_evidence",
    ),
    (
        {
            "text": "New campuses need no more than a few megawatts from utilities.",
            "evidence": ["New campuses ask utilities for a gigawatt or"],
        },
        "contradicts_evidence",
    ),
    (
        {
            "text": "Cloud providers will cut their data center budgets next year.",
            "evidence": ["Cloud providers are spending more on data"],
        },
        "unsupported",
    ),
    (
        {
            "text": "Amazon offers Trainium to its cloud customers.",
            "evidence": ["Amazon rents Trainium chips to customers"],
        },
        "snippet_not_verbatim",
    ),
    (
        {
            "text": "Google trains Gemini on its own TPUs.",
            "evidence": ["Google trains its Gemini models on its own TPUs, and Amazon"],
        },
        "snippet_too_long",
    ),
    ({"text": "Power is the binding constraint.", "evidence": []}, "no_evidence"),
]
FLAWED_ARGUMENT = (
    {"id": "", "text": "Power is now the binding constraint.", "evidence": ["power is now the"]},
    "orphan_argument",
)
GOOD_ANSWER = {"central": CENTRAL, "arguments": [GOOD_ARGUMENT], "claims": GOOD_CLAIMS}
FLAWED_ANSWER = {
    "central": CENTRAL,
    "arguments": [GOOD_ARGUMENT, FLAWED_ARGUMENT[0]],
    "claims": GOOD_CLAIMS + [unit for unit, _ in FLAWED],
}


@pytest.fixture(scope="module")
def minilm(build_minilm: Embedder) -> Embedder:
    return build_minilm


def signals(*records: dict[str, Any], now: datetime = NOW) -> pl.DataFrame:
    return signals_from_sources(
        sources_frame([(validate_record(r), "inline:1") for r in records], now=now)
    )


def endpoint(base_url: str, **limits: Any) -> LlmEndpoint:
    return LlmEndpoint(
        base_url,
        MODEL,
        api_key="test-key",
        timeout_seconds=limits.pop("timeout_seconds", 5.0),
        retries=limits.pop("retries", 2),
        backoff_seconds=0.01,
        **limits,
    )


def llm(responder: CachedLlm, kinds: frozenset[str] = frozenset()) -> LlmDecomposer:
    return LlmDecomposer(MODEL, responder, kinds)


def no_cache() -> pl.DataFrame:
    return pl.DataFrame(schema=LLM_ANSWERS)


def sequence(*replies: Reply) -> Any:
    """A respond function that answers with ``replies`` in turn, repeating the last."""
    queue = iter(replies)
    last = replies[-1]
    return lambda _: next(queue, last)


REQUEST = LlmRequest("hash-1", "analysis", ESSAY["title"], SOURCE)


def test_the_request_is_a_chat_completion_with_the_answer_schema() -> None:
    with llm_server(lambda _: answer(GOOD_ANSWER)) as server:
        content = ask(endpoint(server.base_url), REQUEST)
    assert json.loads(content) == GOOD_ANSWER
    (received,) = server.received
    assert received.path == "/v1/chat/completions"
    assert received.headers["Authorization"] == "Bearer test-key"
    body = received.body
    assert body["model"] == MODEL and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == [
        "central",
        "arguments",
        "claims",
    ]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert SOURCE in received.source_text()


@pytest.mark.parametrize(
    "first",
    [Reply(status=500), Reply(status=503), Reply(status=429, headers={"Retry-After": "0"})],
)
def test_overload_and_server_errors_are_retried(first: Reply) -> None:
    with llm_server(sequence(first, answer(GOOD_ANSWER))) as server:
        assert json.loads(ask(endpoint(server.base_url), REQUEST)) == GOOD_ANSWER
    assert len(server.received) == 2


@pytest.mark.parametrize(
    ("reply", "reason", "requests"),
    [
        (Reply(status=500), "http_error", 3),  # the first try and two retries
        (Reply(status=400), "http_error", 1),  # a bad request is not asked again
        (Reply(status=401), "http_error", 1),
        (Reply(raw=b"<html>busy</html>"), "http_error", 1),  # 200, but no chat completion
        (Reply(content=None, raw=b'{"choices": []}'), "http_error", 1),
        (Reply(content="{}", delay=1.0), "timeout", 3),  # slower than the client's 0.2 s
    ],
)
def test_failures_end_with_their_reason(reply: Reply, reason: str, requests: int) -> None:
    with llm_server(lambda _: reply) as server, pytest.raises(LlmCallFailed) as failed:
        ask(endpoint(server.base_url, timeout_seconds=0.2), REQUEST)
    assert failed.value.reason == reason
    assert len(server.received) == requests


def test_the_run_takes_its_endpoint_and_kinds_from_the_settings() -> None:
    settings = Settings(
        llm_base_url="http://llm.internal:8000/v1/",
        llm_model=MODEL,
        llm_api_key=SecretStr("secret"),
        llm_kinds=("podcast",),
        llm_max_concurrency=3,
    )
    decomposer, responder = llm_for_run(settings, no_cache(), now=NOW)
    assert responder.endpoint.url == "http://llm.internal:8000/v1/chat/completions"
    assert responder.endpoint.api_key == "secret" and responder.endpoint.max_concurrency == 3
    assert decomposer.version == extraction_version(MODEL) and decomposer.respond is responder
    assert decomposer.decomposes("podcast") and not decomposer.decomposes("essay")
    with pytest.raises(LlmNotConfigured, match="AIMI_LLM_BASE_URL"):
        llm_for_run(Settings(llm_base_url=None, llm_model=MODEL), no_cache(), now=NOW)


def test_a_refused_connection_is_unreachable() -> None:
    with pytest.raises(LlmCallFailed) as failed:
        ask(endpoint(refused_url()), REQUEST)
    assert failed.value.reason == "unreachable"


def test_concurrency_is_bounded_and_answers_are_cached() -> None:
    requests = [LlmRequest(f"hash-{i}", "analysis", "t", f"{SOURCE} ({i})") for i in range(6)]
    with llm_server(lambda _: Reply(content=json.dumps(GOOD_ANSWER), delay=0.05)) as server:
        responder = CachedLlm(endpoint(server.base_url, max_concurrency=2), no_cache(), now=NOW)
        replies = responder(requests)
        assert len(server.received) == 6 and server.peak_in_flight == 2
        assert all(r.content is not None and not r.cached for r in replies.values())
        cache = responder.answers()
        assert cache.height == 6 and set(cache["model"]) == {MODEL}
        # the next run reads the same content's answers from the cache: no new request
        again = CachedLlm(endpoint(server.base_url), cache, now=NOW)(requests)
        assert len(server.received) == 6
        assert all(reply.cached for reply in again.values())
        # another model has answered nothing yet
        other = CachedLlm(
            LlmEndpoint(server.base_url, "other-model", backoff_seconds=0.01), cache, now=NOW
        )
        other(requests[:1])
        assert len(server.received) == 7


def test_failed_requests_are_not_cached() -> None:
    with llm_server(sequence(Reply(status=500), answer(GOOD_ANSWER))) as server:
        responder = CachedLlm(endpoint(server.base_url, retries=0), no_cache(), now=NOW)
        (failed,) = responder([REQUEST]).values()
        assert failed.failure == "http_error" and responder.answers().is_empty()
        (answered,) = responder([REQUEST]).values()
        assert answered.content is not None and responder.answers().height == 1


def test_an_unreachable_endpoint_is_not_asked_again_in_the_same_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    attempts = itertools.count()
    post = pipelines.llm._post

    def counted(*args: Any) -> Any:
        next(attempts)
        return post(*args)

    monkeypatch.setattr(pipelines.llm, "_post", counted)
    requests = [LlmRequest(f"hash-{i}", "analysis", "t", SOURCE) for i in range(5)]
    responder = CachedLlm(endpoint(refused_url(), max_concurrency=1), no_cache(), now=NOW)
    replies = responder(requests)
    assert {reply.failure for reply in replies.values()} == {"unreachable"}
    assert next(attempts) == 3  # one request's try and two retries; the others never tried


# --- the extraction over the test server: verified units, rejections, fallbacks ---------


def test_the_verifier_refuses_exactly_the_flawed_units(minilm: Embedder) -> None:
    frame = signals(ESSAY)
    with llm_server(lambda _: answer(FLAWED_ANSWER)) as server:
        responder = CachedLlm(endpoint(server.base_url), no_cache(), now=NOW)
        extraction = extract_units(frame, embed=minilm, llm=llm(responder))
    assert extraction.llm.decomposed == 1 and extraction.llm.fallbacks == ()
    assert extraction.extractions["extraction_version"].to_list() == [extraction_version(MODEL)]
    units = extraction.units.sort("position")
    assert units["text"].to_list() == [
        CENTRAL["text"],
        GOOD_ARGUMENT["text"],
        *(claim["text"] for claim in GOOD_CLAIMS),
    ]
    assert units["role"].to_list() == ["thesis", "argument", "claim", "claim"]
    refused = dict(extraction.rejections.select("text", "rule").iter_rows())
    expected = {unit["text"]: rule for unit, rule in [*FLAWED, FLAWED_ARGUMENT]}
    assert refused == expected
    # the served evidence is the model's verbatim snippets
    assert units["evidence"][0].to_list() == [
        {"text": snippet, "truncated": True} for snippet in CENTRAL["evidence"]
    ]


@pytest.fixture(scope="module")
def deterministic(minilm: Embedder) -> pl.DataFrame:
    """The essay's units from the deterministic extractor alone."""
    return extract_units(signals(ESSAY), embed=minilm).units


@pytest.mark.parametrize(
    ("respond", "reason"),
    [
        (lambda _: Reply(status=500), "http_error"),
        (lambda _: Reply(content="{}", delay=1.0), "timeout"),
        (None, "unreachable"),
        (lambda _: answer("Sure! The thesis is that power is the constraint."), "invalid_json"),
        (lambda _: answer({"thesis": CENTRAL["text"]}), "schema_mismatch"),
        (
            lambda _: answer({"central": FLAWED[3][0], "arguments": [], "claims": GOOD_CLAIMS}),
            "no_central_statement",
        ),
    ],
)
def test_any_failure_falls_back_to_the_deterministic_extractor(
    minilm: Embedder, deterministic: pl.DataFrame, respond: Any, reason: str
) -> None:
    frame = signals(ESSAY)
    if respond is None:
        responder = CachedLlm(endpoint(refused_url(), retries=0), no_cache(), now=NOW)
        extraction = extract_units(frame, embed=minilm, llm=llm(responder))
    else:
        with llm_server(respond) as server:
            responder = CachedLlm(
                endpoint(server.base_url, timeout_seconds=0.2, retries=0), no_cache(), now=NOW
            )
            extraction = extract_units(frame, embed=minilm, llm=llm(responder))
    (signal_id,) = frame["signal_id"].to_list()
    assert extraction.llm.fallbacks == ((signal_id, reason),)
    assert extraction.llm.decomposed == 0
    assert extraction.extractions["extraction_version"].to_list() == [CURRENT_EXTRACTION_VERSION]
    assert extraction.units.equals(deterministic)
    refused = extraction.rejections.select("text", "rule").rows()
    if reason == "no_central_statement":
        # what the verifier refused of the answer stays on record
        assert (FLAWED[3][0]["text"], "unsupported") in refused
    else:
        assert refused == []


def test_kinds_the_cutover_and_unchanged_signals_ask_nothing(minilm: Embedder) -> None:
    news = {
        "kind": "news",
        "title": "Acme raises",
        "url": "https://news.example.com/acme",
        "published_at": "2026-05-21T08:00:00Z",
        "text": "Acme raised $2 billion on Monday. The round was led by Beta Capital.",
    }
    early = signals(
        {**ESSAY, "url": "https://essays.example.org/early"}, now=datetime(2026, 1, 1, tzinfo=UTC)
    )
    frame = pl.concat([signals(ESSAY, news), early])
    with llm_server(lambda _: answer(GOOD_ANSWER)) as server:
        responder = CachedLlm(endpoint(server.base_url), no_cache(), now=NOW)
        essays = llm(responder, frozenset({"essay"}))
        first = extract_units(frame, embed=minilm, llm=essays)
        # the essay only: the news is not of the kinds, the early essay keeps lexical-1
        assert len(server.received) == 1
        versions = dict(
            first.extractions.join(frame.select("signal_id", "url"), on="signal_id")
            .select("url", "extraction_version")
            .iter_rows()
        )
        assert versions == {
            ESSAY["url"]: extraction_version(MODEL),
            news["url"]: CURRENT_EXTRACTION_VERSION,
            "https://essays.example.org/early": EXTRACTION_VERSION,
        }
        # unchanged signals keep their units: not even the cache is read
        again = extract_units(frame, embed=minilm, previous=first, llm=essays)
        assert len(server.received) == 1
        assert again.reused == 3 and again.llm == LlmReport()
