"""The LLM decomposer's I/O half: asking an OpenAI-compatible chat-completions endpoint (vLLM,
llama.cpp server, Ollama, a hosted API) for each signal's units, with bounded concurrency,
timeouts, retries with backoff and a progress bar, through the answer cache (``llm_answers``).

What to ask and how to read the answer is ``analytics.llm_units``; a failure here is never an
error of the build: the signal gets a reply with the reason, and the extraction falls back to the
deterministic extractor. HTTP is the standard library's: one POST per signal needs no more, and
httpx is only a development dependency.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from email.message import Message
from typing import Any

import polars as pl
from tqdm import tqdm

from analytics.llm_units import (
    MAX_ANSWER_TOKENS,
    PROMPT_VERSION,
    LlmDecomposer,
    LlmReply,
    LlmRequest,
    messages_for,
    response_format,
)
from analytics.schema import LLM_ANSWERS
from warehouse.settings import Settings, llm_not_configured

log = logging.getLogger(__name__)

# Statuses worth asking again: rate limited, or the server failing or overloaded.
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_BACKOFF_SECONDS = 60.0


class LlmNotConfigured(ValueError):
    """The build chose the LLM decomposer but the settings name no endpoint or model."""


class LlmCallFailed(RuntimeError):
    """One request failed; ``reason`` is a fallback reason, ``retry_after`` the seconds the
    server asked us to wait before trying again."""

    def __init__(self, reason: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class LlmEndpoint:
    """Where and how to ask: the endpoint, the model, and the client's limits."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)  # never in a log or a traceback
    timeout_seconds: float = 120.0
    max_concurrency: int = 4
    retries: int = 3
    backoff_seconds: float = 1.0  # the first retry's wait, doubled for each next one

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmEndpoint:
        problem = llm_not_configured(settings)
        if problem is not None or settings.llm_base_url is None or settings.llm_model is None:
            raise LlmNotConfigured(problem)
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        return cls(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=key or None,
            timeout_seconds=settings.llm_timeout_seconds,
            max_concurrency=settings.llm_max_concurrency,
            retries=settings.llm_retries,
        )

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def request_body(endpoint: LlmEndpoint, request: LlmRequest) -> dict[str, Any]:
    """The chat-completions request for one signal: deterministic sampling, the answer's JSON
    schema as ``response_format``."""
    return {
        "model": endpoint.model,
        "messages": messages_for(request),
        "temperature": 0,
        "max_tokens": MAX_ANSWER_TOKENS,
        "response_format": response_format(),
    }


def ask(endpoint: LlmEndpoint, request: LlmRequest) -> str:
    """The message content the endpoint answers for ``request`` (``complete``)."""
    return complete(endpoint, request_body(endpoint, request))


def complete(endpoint: LlmEndpoint, request: Mapping[str, Any]) -> str:
    """The message content the endpoint answers for the chat-completions ``request`` body.

    408, 429 and 5xx statuses, timeouts, refused and dropped connections are tried again, up to
    ``endpoint.retries`` times, after ``backoff_seconds`` doubled each time (or the server's
    ``Retry-After``, capped at a minute). Raises ``LlmCallFailed`` with the last failure's
    reason: ``unreachable`` (no connection), ``timeout`` or ``http_error``.
    """
    body = json.dumps(request).encode("utf-8")
    failure = LlmCallFailed("unreachable", "never asked")
    for attempt in range(endpoint.retries + 1):
        if attempt:
            time.sleep(_wait(endpoint, attempt, failure))
        try:
            status, payload, headers = _post(endpoint, body)
        except TimeoutError:
            failure = LlmCallFailed("timeout", f"no answer within {endpoint.timeout_seconds} s")
            continue
        except urllib.error.URLError as exc:
            kind = "timeout" if isinstance(exc.reason, TimeoutError) else "unreachable"
            failure = LlmCallFailed(kind, f"{endpoint.url}: {exc.reason}")
            continue
        except (OSError, http.client.HTTPException) as exc:
            failure = LlmCallFailed("http_error", f"{endpoint.url}: {exc!r}")
            continue
        if status == 200:
            return _content(payload)
        failure = LlmCallFailed(
            "http_error", f"{endpoint.url} answered {status}", _retry_after(headers)
        )
        if status not in RETRIED_STATUSES:
            break
    raise failure


def _post(endpoint: LlmEndpoint, body: bytes) -> tuple[int, bytes, Message]:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    http_request = urllib.request.Request(endpoint.url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(http_request, timeout=endpoint.timeout_seconds) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read(), exc.headers


def _content(payload: bytes) -> str:
    """The first choice's message content of a chat-completions reply."""
    try:
        reply = json.loads(payload)
        content = reply["choices"][0]["message"]["content"]
    except (ValueError, LookupError, TypeError) as exc:
        raise LlmCallFailed("http_error", f"the reply is no chat completion: {exc}") from None
    if not isinstance(content, str):
        raise LlmCallFailed("http_error", "the reply's message has no text content")
    return content


def _retry_after(headers: Message) -> float | None:
    value = headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _wait(endpoint: LlmEndpoint, attempt: int, failure: LlmCallFailed) -> float:
    if failure.retry_after is not None:
        return min(failure.retry_after, MAX_BACKOFF_SECONDS)
    return min(endpoint.backoff_seconds * 2.0 ** (attempt - 1), MAX_BACKOFF_SECONDS)


class CachedLlm:
    """The ``Responder`` a build hands to the extraction: answers from ``llm_answers`` when the
    same content was answered by the same model under the same prompt version, else from the
    endpoint. ``answers()`` is the cache with this run's new answers, for the warehouse.

    Every answer the endpoint returned is kept, even one that turns out unusable: at
    temperature 0 asking again would pay for the same answer (delete its row, or bump the prompt
    version, to ask again). Failed requests are not kept: the next build asks again. Once a
    request finds the endpoint unreachable after its retries, the rest of the run does not try:
    each would wait through its own retries for the same refused connection.
    """

    def __init__(
        self,
        endpoint: LlmEndpoint,
        cache: pl.DataFrame,
        *,
        now: datetime,
    ) -> None:
        self.endpoint = endpoint
        self._cache = cache
        self._now = now
        self._known = {
            row[0]: row[1]
            for row in cache.filter(
                (pl.col("model") == endpoint.model) & (pl.col("prompt_version") == PROMPT_VERSION)
            )
            .select("content_hash", "answer")
            .iter_rows()
        }
        self._new: dict[str, str] = {}
        self._down = threading.Event()

    def __call__(self, requests: Sequence[LlmRequest]) -> Mapping[str, LlmReply]:
        replies: dict[str, LlmReply] = {}
        todo: dict[str, LlmRequest] = {}
        for request in requests:
            known = self._known.get(request.key)
            if known is not None:
                replies[request.key] = LlmReply(known, cached=True)
            else:
                todo.setdefault(request.key, request)
        if not todo:
            return replies
        workers = min(self.endpoint.max_concurrency, len(todo))
        # disable=None: the bar shows on a terminal (`aimi build`), not in a Dagster run's log
        with (
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm") as pool,
            tqdm(total=len(todo), desc="LLM units", unit="signal", disable=None) as bar,
        ):
            futures = {pool.submit(self._reply, request): key for key, request in todo.items()}
            for future in as_completed(futures):
                key = futures[future]
                reply = replies[key] = future.result()
                if reply.content is not None:
                    self._new[key] = reply.content
                bar.update()
        self._known.update(self._new)
        return replies

    def answers(self) -> pl.DataFrame:
        """The ``llm_answers`` table: the cache as read, plus this run's answers."""
        fresh = pl.DataFrame(
            [
                {
                    "content_hash": key,
                    "model": self.endpoint.model,
                    "prompt_version": PROMPT_VERSION,
                    "answer": answer,
                    "answered_at": self._now,
                }
                for key, answer in self._new.items()
            ],
            schema=LLM_ANSWERS,
            orient="row",
        )
        return pl.concat([self._cache, fresh]).unique(
            ["content_hash", "model", "prompt_version"], keep="last", maintain_order=True
        )

    def _reply(self, request: LlmRequest) -> LlmReply:
        if self._down.is_set():
            return LlmReply(None, "unreachable")
        try:
            return LlmReply(ask(self.endpoint, request))
        except LlmCallFailed as exc:
            if exc.reason == "unreachable":
                self._down.set()
            log.warning("LLM units for content %s: %s (%s)", request.key[:12], exc.reason, exc)
            return LlmReply(None, exc.reason)


def llm_for_run(
    settings: Settings, cache: pl.DataFrame, *, now: datetime
) -> tuple[LlmDecomposer, CachedLlm]:
    """The extraction's LLM decomposer for the endpoint and kinds the settings name, and its
    cached responder (whose ``answers()`` the build writes back). ``LlmNotConfigured`` when the
    settings name no endpoint or model."""
    responder = CachedLlm(LlmEndpoint.from_settings(settings), cache, now=now)
    decomposer = LlmDecomposer(responder.endpoint.model, responder, frozenset(settings.llm_kinds))
    return decomposer, responder
