"""A model's same-event judgment against the hand-judged event pairs (issue 31): what a story
method that asks an LLM "do these two posts report one event?" would score, before anyone
builds it.

Usage (an OpenAI-compatible endpoint: vLLM, llama.cpp server, Ollama, a hosted API):
    .venv/bin/python -m bench.stories.llm_judge --warehouse DIR/warehouse --title-text F \
        --base-url http://127.0.0.1:8080/v1 --model NAME [--api-key K] [--limit N] [--seed S] \
        [--judged bench/stories/event_pairs_judged.json] [--boot 2000] [--json OUT]

The endpoint and model default to the build's settings (``AIMI_LLM_BASE_URL``,
``AIMI_LLM_MODEL``, ``AIMI_LLM_API_KEY``). Each judged pair's two posts — what the hand reader
saw of them: date, title and up to ``MAX_TEXT`` characters of text — go to the model with the
judging rule of docs/journal/2026-11-28.md ("Against hand-judged events", "immediate reception"
read as within about three days, as the session-18 readings did), at temperature 0, asking for
``{"same_event": bool}``; the posts are shown in a seeded random order so the pair's order in
the file says nothing. The first request is sent alone: if it fails, the run stops. ``--limit
N`` judges a seeded uniform sample of N judged pairs (uniform within each stratum too).

Scored per year on the judged pool of ``events.py`` (same build, same strata cut by year): each
judged pair weighs its stratum's size over its stratum's judged pairs, so the model's verdicts
estimate the precision and recall it would have if it judged *every* pair of the pool
(Horvitz-Thompson; 95 % bootstrap intervals within strata), comparable with
``ceiling.py``'s pair classifiers and the shipped clustering. Also printed: the unweighted
agreement with the hand verdicts (``ceiling.agreement``). A pair the model failed to answer
(after the client's retries) or answered with no verdict is counted by reason and left out; a
stratum left with no answered pair is named (it drops out of recall); no verdict at all exits
non-zero.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench.stories.ceiling import agreement, judged_weights
from bench.stories.events import (
    JUDGED,
    YEARS,
    by_year,
    f1,
    interval,
    load,
    load_judged,
    resamples,
    strata,
    strata_of,
    yearly,
)
from pipelines.llm import LlmCallFailed, LlmEndpoint, complete
from warehouse.settings import load_settings

PROMPT_VERSION = "same-event-2"
# what the hand reader saw of each post (events.py --draw): its date, title and 700 characters
MAX_TEXT = 700
MAX_ANSWER_TOKENS = 200
RULE = (
    "You judge whether two short posts about AI report the same event or development. "
    "Same: one launch, paper, funding round, incident or announcement, discussed by several "
    "people, including its release-day availability and its immediate reception (within "
    "about three days of it). Not the same: posts that share only a topic, a company or a "
    "model: two different releases, two separate community projects on one model, a later "
    'result or incident about a model. Answer with JSON only: {"same_event": true} or '
    '{"same_event": false}.'
)
# what a pair without a verdict got instead
NO_VERDICT = "no verdict"


def messages(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages asking about one pair of posts."""

    def post(n: int, p: Mapping[str, Any]) -> str:
        text = (p.get("text") or "")[:MAX_TEXT]
        return f"Post {n} ({p['date']}): {p['title']}\n{text}"

    return [
        {"role": "system", "content": RULE},
        {"role": "user", "content": f"{post(1, first)}\n\n{post(2, second)}"},
    ]


def request(
    endpoint: LlmEndpoint, first: Mapping[str, Any], second: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "model": endpoint.model,
        "messages": messages(first, second),
        "temperature": 0,
        "max_tokens": MAX_ANSWER_TOKENS,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "same_event",
                "schema": {
                    "type": "object",
                    "properties": {"same_event": {"type": "boolean"}},
                    "required": ["same_event"],
                },
            },
        },
    }


def verdict(content: str) -> bool | None:
    """The answer's ``same_event``, or None when the answer holds none."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except ValueError:
        return None
    answer = value.get("same_event") if isinstance(value, dict) else None
    return answer if isinstance(answer, bool) else None


def judge(
    endpoint: LlmEndpoint,
    pairs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
    seed: int = 20261202,
    ask: Callable[[LlmEndpoint, Mapping[str, Any]], str] = complete,
) -> list[tuple[bool | None, str]]:
    """The model's verdict per pair and, when there is none, why (``NO_VERDICT``, or the
    client's failure reason: ``unreachable``, ``timeout``, ``http_error``); each pair's posts
    in a seeded random order. The first pair is asked alone: when it fails the endpoint is
    not answering, and the run stops (``SystemExit``) instead of waiting through every pair's
    retries; the rest go with at most ``endpoint.max_concurrency`` requests at once."""
    rng = random.Random(seed)
    ordered = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in pairs]

    def one(pair: tuple[Mapping[str, Any], Mapping[str, Any]]) -> tuple[bool | None, str]:
        try:
            said = verdict(ask(endpoint, request(endpoint, *pair)))
        except LlmCallFailed as failure:
            return None, failure.reason
        return said, "" if said is not None else NO_VERDICT

    if not ordered:
        return []
    first = one(ordered[0])
    if first[0] is None and first[1] != NO_VERDICT:
        raise SystemExit(f"{endpoint.url}: the first request failed ({first[1]}): stopping")
    with ThreadPoolExecutor(max_workers=endpoint.max_concurrency) as pool:
        rest = list(tqdm(pool.map(one, ordered[1:]), total=len(ordered) - 1, desc="pairs judged"))
    return [first, *rest]


def weighted_figures(
    hand: Sequence[bool], model: Sequence[bool], weights: Sequence[float]
) -> dict[str, float]:
    """Precision, recall and F1 of the model's yes verdicts against the hand's, each pair
    weighed by ``weights``."""
    h, m, w = (np.asarray(v, dtype=float) for v in (hand, model, weights))
    both = float((w * h * m).sum())
    said, true = float((w * m).sum()), float((w * h).sum())
    p = both / said if said else 0.0
    r = both / true if true else 0.0
    figures = {"precision": p, "recall": r}
    return {**figures, "f1": f1(figures)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument("--title-text", type=Path, required=True, help="from embed_cache.py")
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--base-url", help="the endpoint (default: AIMI_LLM_BASE_URL)")
    parser.add_argument("--model", help="the model (default: AIMI_LLM_MODEL)")
    parser.add_argument("--api-key", help="default: AIMI_LLM_API_KEY")
    parser.add_argument(
        "--limit", type=int, help="judge a seeded uniform sample of N judged pairs (a trial)"
    )
    parser.add_argument("--seed", type=int, default=20261202, help="posts' order, --limit")
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap rounds")
    parser.add_argument("--json", type=Path, help="write the verdicts and figures here")
    args = parser.parse_args()
    settings = load_settings()
    base_url = args.base_url or settings.llm_base_url
    model = args.model or settings.llm_model
    if not base_url or not model:
        parser.error("name the endpoint and model (--base-url, --model or AIMI_LLM_*)")
    key = args.api_key or (
        settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    )
    endpoint = LlmEndpoint(
        base_url=base_url,
        model=model,
        api_key=key,
        timeout_seconds=settings.llm_timeout_seconds,
        max_concurrency=settings.llm_max_concurrency,
        retries=settings.llm_retries,
    )
    data = load(args.warehouse, args.title_text)
    pools = strata(data)
    judged, pools = yearly(data, load_judged(data, args.judged, pools), pools)
    if args.limit:
        # a uniform sample of the judged pairs is a uniform sample within each stratum
        judged = random.Random(args.seed).sample(judged, min(args.limit, len(judged)))
    social = data["social"]
    posts = {
        r["signal_id"]: {**r, "date": r["published_at"].date().isoformat()}
        for r in social.select("signal_id", "title", "text", "published_at").iter_rows(named=True)
    }
    said = judge(endpoint, [(posts[r["a"]], posts[r["b"]]) for r in judged], args.seed)
    reasons = Counter(reason for _, reason in said if reason)
    print(f"{len(said)} pairs asked; without a verdict (left out): {dict(reasons) or 0}")
    rows = [{**r, "model": v} for r, (v, _) in zip(judged, said, strict=True) if v is not None]
    if not rows:
        raise SystemExit("no pair got a verdict: nothing to score")
    answered = {r["stratum"] for r in rows}
    empty = sorted(n for n in strata_of(pools) if pools[n] and n not in answered)
    if empty:
        print(f"strata with pairs but no answered judged pair (left out of recall): {empty}")
    report: dict[str, Any] = {"prompt": PROMPT_VERSION, "model": model, "failed": dict(reasons)}
    for year in (*YEARS, None):
        j, p, _ = by_year(data, rows, pools, {}, year)
        if not j:
            continue
        weights = judged_weights(j, p)
        hand = [bool(r["same_event"]) for r in j]
        model_says = [bool(r["model"]) for r in j]
        point = weighted_figures(hand, model_says, weights)
        samples = [
            weighted_figures([hand[i] for i in b], [model_says[i] for i in b], weights[b])
            for b in resamples(j, args.boot)
        ]
        out: dict[str, Any] = {
            k: [round(point[k], 3), *interval([s[k] for s in samples])]
            for k in ("precision", "recall", "f1")
        }
        out["agreement"] = agreement(hand, model_says)
        report[str(year or "both")] = out
        print(f"{year or 'both years'}: {out}")
    if args.json:
        verdicts = [{"a": r["a"], "b": r["b"], "same_event": r["model"]} for r in rows]
        args.json.write_text(json.dumps({**report, "verdicts": verdicts}, indent=1))


if __name__ == "__main__":
    main()
