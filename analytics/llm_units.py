"""The LLM decomposer's pure half (docs/design.md §5): the versioned prompt, the JSON
schema the answer must follow, and the reading of an answer into ``UnitDraft``s for the verifier.

Calling an endpoint is ``pipelines.llm``'s job; ``analytics.signals.extract_units`` puts the two
together and falls back to the deterministic extractor for any signal whose answer is missing,
malformed or leaves no verified central statement. Nothing here trusts the model: an answer is
only a proposal, and every unit still goes through ``analytics.verify``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analytics.text import SNIPPET_MAX_CHARS, normalize_ws
from analytics.verify import Snippet, UnitDraft

# Bump with any change to the prompt, the schema or how an answer is read: extraction versions
# and cached answers are keyed by it, so a bump re-decomposes every LLM signal once.
PROMPT_VERSION = "u1"
# The source text sent, at most (about 7,500 tokens): within the context of small local models.
MAX_SOURCE_CHARS = 30_000
MAX_ANSWER_TOKENS = 4_096
MAX_ARGUMENTS = 6
MAX_CLAIMS = 12
MAX_EVIDENCE = 3

# Why a signal fell back to the deterministic extractor, in the order a build reports them.
FALLBACK_REASONS = (
    "unreachable",  # connection refused, no such host: after retries
    "timeout",  # no answer within the timeout, after retries
    "http_error",  # an error status (after retries for 429 and 5xx), or a reply that is no chat
    "invalid_json",  # the answer is not a JSON object
    "schema_mismatch",  # a JSON object without the fields and types of RESPONSE_SCHEMA
    "no_central_statement",  # the verifier refused the central statement
)

SYSTEM_PROMPT = f"""\
You decompose one source text into units for market analysts, who read its central statement \
first. Answer with one JSON object only, following the given schema:

- "central": the source's central statement. For an analysis: its thesis, the position the \
author or guest argues. For an event: its synopsis, what happened, who did it, when. One \
declarative sentence that stands on its own: no question, no leading "So", "And", "But", \
"Well" or "Yeah", no pronoun whose referent is in another sentence. In a conversation, the \
guest's point, never the host's question, an introduction, a sponsor read or a call to action.
- "arguments": for an analysis long enough to argue, 3 to {MAX_ARGUMENTS} distinct reasons the \
source gives for its thesis, with ids "a1", "a2", …; none for an event or a short text.
- "claims": up to {MAX_CLAIMS} atomic facts the source states (numbers, amounts, dates, named \
actors doing something), one fact each.

Every unit has "text", in your words but faithful to the source, and "evidence": 1 to \
{MAX_EVIDENCE} snippets copied character for character from the source, each at most \
{SNIPPET_MAX_CHARS} characters, where the source says it. Every number and every name in a \
unit's text must appear in the sentences its evidence points to. Never add a fact, a number or \
a name the source does not give, never reverse what it says, and never name a speaker the \
source does not name. Write in the language of the source."""

_CONTENT_TYPES = {"analysis": "an analysis (an argued position)", "event": "an event (a report)"}

_UNIT_FIELDS: dict[str, Any] = {
    "text": {"type": "string"},
    "evidence": {"type": "array", "items": {"type": "string"}},
}
_UNIT = {
    "type": "object",
    "properties": _UNIT_FIELDS,
    "required": ["text", "evidence"],
    "additionalProperties": False,
}
# Only what every OpenAI-compatible server's structured output accepts (vLLM, llama.cpp server,
# Ollama, OpenAI's strict mode): no length limits, which the prompt states and the verifier
# enforces.
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "central": _UNIT,
        "arguments": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, **_UNIT_FIELDS},
                "required": ["id", "text", "evidence"],
                "additionalProperties": False,
            },
        },
        "claims": {"type": "array", "items": _UNIT},
    },
    "required": ["central", "arguments", "claims"],
    "additionalProperties": False,
}

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


class LlmAnswerError(ValueError):
    """An answer this module cannot use; ``reason`` is one of ``FALLBACK_REASONS``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class LlmRequest:
    """One signal's question to the model; answers are cached under ``key`` (its content hash)."""

    key: str
    content_type: str
    title: str
    text: str


@dataclass(frozen=True)
class LlmReply:
    """The message content the endpoint answered, or why there is none (``failure``, one of
    ``FALLBACK_REASONS``); ``cached`` when it was read from the answer cache, not asked."""

    content: str | None
    failure: str | None = None
    cached: bool = False

    def __post_init__(self) -> None:
        if (self.content is None) == (self.failure is None):
            raise ValueError("a reply has either content or a failure, not both nor neither")
        if self.failure is not None and self.failure not in FALLBACK_REASONS:
            raise ValueError(f"unknown failure {self.failure!r}; one of {FALLBACK_REASONS}")


# Answers every request it is given (asking only what it has not cached), keyed by request key.
Responder = Callable[[Sequence[LlmRequest]], Mapping[str, LlmReply]]


@dataclass(frozen=True)
class LlmDecomposer:
    """The LLM-backed extractor: ``model`` behind ``respond``, for signals of ``kinds`` (every
    kind when empty)."""

    model: str
    respond: Responder
    kinds: frozenset[str] = frozenset()

    @property
    def version(self) -> str:
        return extraction_version(self.model)

    def decomposes(self, kind: str) -> bool:
        return not self.kinds or kind in self.kinds


@dataclass(frozen=True)
class LlmReport:
    """What the LLM did in one extraction: signals whose units it produced, answers read from
    the cache or asked for, and each signal that fell back, with the reason."""

    decomposed: int = 0
    cache_hits: int = 0
    asked: int = 0
    fallbacks: tuple[tuple[str, str], ...] = ()

    def fallback_counts(self) -> dict[str, int]:
        """Fallbacks per reason, every reason present (zero when it never happened)."""
        counts = Counter(reason for _, reason in self.fallbacks)
        return {reason: counts.get(reason, 0) for reason in FALLBACK_REASONS}

    @classmethod
    def combined(cls, reports: Sequence[LlmReport]) -> LlmReport:
        """The report of the extractions ``reports`` describe (chunks of one), summed."""
        return cls(
            decomposed=sum(r.decomposed for r in reports),
            cache_hits=sum(r.cache_hits for r in reports),
            asked=sum(r.asked for r in reports),
            fallbacks=tuple(f for r in reports for f in r.fallbacks),
        )


def extraction_version(model: str) -> str:
    """``llm-<prompt version>:<model>``: a signal is decomposed again when either changes."""
    return f"llm-{PROMPT_VERSION}:{model}"


def messages_for(request: LlmRequest) -> list[dict[str, str]]:
    """The chat messages of one request: the instructions, then the source."""
    kind = _CONTENT_TYPES.get(request.content_type, request.content_type)
    source = request.text[:MAX_SOURCE_CHARS]
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {
            "role": "user",
            "content": f"The source is {kind}.\nTitle: {request.title}\n\nSource text:\n{source}",
        },
    ]


def response_format() -> dict[str, Any]:
    """The ``response_format`` of a chat-completions request: the answer's JSON schema."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "units", "strict": True, "schema": RESPONSE_SCHEMA},
    }


def parse_answer(content: str, content_type: str, source_text: str) -> list[UnitDraft]:
    """The drafts an answer proposes, central statement first, for the verifier to judge.

    Defensive about the wrapping, strict about the content: a JSON object alone, in a Markdown
    code fence, or with prose around it is read (servers that ignore ``response_format`` do
    that); anything else raises ``LlmAnswerError`` (``invalid_json``), and so does an object
    without the schema's fields and types (``schema_mismatch``). Fields the schema does not
    name are ignored. At most ``MAX_ARGUMENTS`` argument ids and ``MAX_CLAIMS`` claims are
    kept, the extractor's own limits. Snippets are kept as written, so that the verifier
    refuses what is not verbatim or too long rather than this function mending it.
    """
    answer = _json_object(content)
    central = _unit(answer.get("central"), "central")
    arguments = _list(answer.get("arguments"), "arguments")
    claims = _list(answer.get("claims"), "claims")
    role = "synopsis" if content_type == "event" else "thesis"
    drafts = [_draft(role, *central, source_text)]
    argument_ids: list[str] = []
    for index, item in enumerate(arguments):
        text, evidence = _unit(item, f"arguments[{index}]")
        argument_id = item.get("id")
        if not isinstance(argument_id, str):
            raise LlmAnswerError("schema_mismatch", f"arguments[{index}].id is not a string")
        argument_id = argument_id.strip()
        if argument_id not in argument_ids:
            if len(argument_ids) == MAX_ARGUMENTS:
                continue
            argument_ids.append(argument_id)
        # an empty id stays empty: the verifier refuses it as an orphan argument
        drafts.append(_draft("argument", text, evidence, source_text, argument_id or None))
    for index, item in enumerate(claims[:MAX_CLAIMS]):
        drafts.append(_draft("claim", *_unit(item, f"claims[{index}]"), source_text))
    return drafts


def _json_object(content: str) -> dict[str, Any]:
    """The answer's JSON object: the whole content, a fenced block, or the outermost braces."""
    candidates = [content.strip()]
    candidates += [block.strip() for block in _FENCE.findall(content)]
    first, last = content.find("{"), content.rfind("}")
    if 0 <= first < last:
        candidates.append(content[first : last + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise LlmAnswerError("invalid_json", "the answer holds no JSON object")


def _list(value: object, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise LlmAnswerError("schema_mismatch", f"{where} is not a list of objects")
    return value


def _unit(value: object, where: str) -> tuple[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise LlmAnswerError("schema_mismatch", f"{where} is not an object")
    text, evidence = value.get("text"), value.get("evidence")
    if not isinstance(text, str) or not text.strip():
        raise LlmAnswerError("schema_mismatch", f"{where}.text is not a non-empty string")
    if not isinstance(evidence, list) or not all(isinstance(s, str) for s in evidence):
        raise LlmAnswerError("schema_mismatch", f"{where}.evidence is not a list of strings")
    return text.strip(), tuple(evidence[:MAX_EVIDENCE])


def _draft(
    role: str,
    text: str,
    evidence: tuple[str, ...],
    source_text: str,
    argument_id: str | None = None,
) -> UnitDraft:
    start, end = _span(text, evidence, source_text)
    normalized = normalize_ws(text)
    snippets = tuple(Snippet(s, normalize_ws(s) != normalized) for s in evidence)
    return UnitDraft(role, text, start, end, snippets, argument_id)


def _span(text: str, evidence: tuple[str, ...], source_text: str) -> tuple[int, int]:
    """Where the unit sits in the source: its own text when the model copied a sentence, else
    its first snippet that is in the source; (0, 0) when none is (the verifier refuses it)."""
    for phrase in (text, *evidence):
        words = phrase.split()
        if not words:
            continue
        found = re.search(r"\s+".join(re.escape(word) for word in words), source_text)
        if found is not None:
            return found.start(), found.end()
    return 0, 0
