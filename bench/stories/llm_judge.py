"""A model's same-event judgment against the hand-judged event pairs (issue 31): what a story
method that asks an LLM "do these two posts report one event?" would score, before anyone
builds it.

Usage (an OpenAI-compatible endpoint: vLLM, llama.cpp server, Ollama, a hosted API):
    .venv/bin/python bench/stories/llm_judge.py --warehouse DIR/warehouse --title-text F \
        --base-url http://127.0.0.1:8080/v1 --model NAME [--api-key K] [--limit N] \
        [--judged bench/stories/event_pairs_judged.json] [--boot 2000] [--json OUT]

The endpoint and model default to the build's settings (``AIMI_LLM_BASE_URL``,
``AIMI_LLM_MODEL``, ``AIMI_LLM_API_KEY``). Each judged pair's two posts (date, author, title,
text up to ``MAX_TEXT`` characters) go to the model with the judging rule of docs/quality.md
("Against hand-judged events"), at temperature 0, asking for ``{"same_event": bool}``; the
posts are shown in a seeded random order so the pair's order in the file says nothing.

Scored per year on the judged pool of ``events.py`` (same build, same strata cut by year): each
judged pair weighs its stratum's size over its stratum's judged pairs, so the model's verdicts
estimate the precision and recall it would have if it judged *every* pair of the pool
(Horvitz-Thompson; 95 % bootstrap intervals within strata), comparable with
``ceiling.py``'s pair classifiers and the shipped clustering. Also printed: the unweighted
agreement with the hand verdicts (``ceiling.agreement``). A pair the model failed to answer
(after the client's retries) or answered with no verdict is counted and left out.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from ceiling import agreement, judged_weights
from events import JUDGED, YEARS, by_year, interval, load, load_judged, resamples, strata, yearly
from tqdm import tqdm

from pipelines.llm import LlmCallFailed, LlmEndpoint, complete
from warehouse.settings import load_settings

PROMPT_VERSION = "same-event-1"
MAX_TEXT = 1500
MAX_ANSWER_TOKENS = 200
RULE = (
    "You judge whether two short posts about AI report the same event or development. "
    "Same: one launch, paper, funding round, incident or announcement, discussed by several "
    "people, including its release-day availability and its immediate reception. Not the "
    "same: posts that share only a topic, a company or a model: two different releases, two "
    "separate community projects on one model, a later incident about a model. Answer with "
    'JSON only: {"same_event": true} or {"same_event": false}.'
)


def messages(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages asking about one pair of posts."""

    def post(n: int, p: Mapping[str, Any]) -> str:
        text = (p.get("text") or "")[:MAX_TEXT]
        return f"Post {n} ({p['date']}, {p.get('author') or 'unknown'}): {p['title']}\n{text}"

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
) -> list[bool | None]:
    """The model's verdict per pair (None: no answer or no verdict), asked with at most
    ``endpoint.max_concurrency`` requests at once, each pair's posts in a seeded random
    order."""
    rng = random.Random(seed)
    ordered = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in pairs]

    def one(pair: tuple[Mapping[str, Any], Mapping[str, Any]]) -> bool | None:
        try:
            return verdict(ask(endpoint, request(endpoint, *pair)))
        except LlmCallFailed:
            return None

    with ThreadPoolExecutor(max_workers=endpoint.max_concurrency) as pool:
        return list(tqdm(pool.map(one, ordered), total=len(ordered), desc="pairs judged"))


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
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument("--title-text", type=Path, required=True, help="from embed_cache.py")
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--base-url", help="the endpoint (default: AIMI_LLM_BASE_URL)")
    parser.add_argument("--model", help="the model (default: AIMI_LLM_MODEL)")
    parser.add_argument("--api-key", help="default: AIMI_LLM_API_KEY")
    parser.add_argument("--limit", type=int, help="judge only the first N pairs (a trial run)")
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
    judged = judged[: args.limit] if args.limit else judged
    social = data["social"]
    posts = {
        r["signal_id"]: {**r, "date": r["published_at"].date().isoformat()}
        for r in social.select("signal_id", "title", "text", "author", "published_at").iter_rows(
            named=True
        )
    }
    said = judge(endpoint, [(posts[r["a"]], posts[r["b"]]) for r in judged])
    failed = sum(v is None for v in said)
    print(f"{len(said)} pairs asked, {failed} without a verdict (left out)")
    rows = [{**r, "model": v} for r, v in zip(judged, said, strict=True) if v is not None]
    report: dict[str, Any] = {"prompt": PROMPT_VERSION, "model": model, "failed": failed}
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
