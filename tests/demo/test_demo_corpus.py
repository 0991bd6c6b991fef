"""Tests of the synthetic demo corpus: shape, invariants and the planted ground truth.

The planted labels are recomputed here from the generated text with a small, independent
whole-word counter, using the analytics definitions (12-week window, last 4 vs previous 8
weeks), so a template change that leaks a planted name or breaks the schedule fails here.
"""

from __future__ import annotations

import ast
import json
import re
import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from demo import DEMO_AS_OF, DEMO_SEED, DemoCorpus, generate_demo_corpus

KINDS = {"article", "essay", "memo", "social", "paper", "news", "podcast"}
LONGFORM = {"article", "essay", "memo"}
FIRST_MONDAY = datetime(2026, 3, 30, tzinfo=UTC)
LAST_INSTANT = datetime(2026, 10, 25, 23, 59, 59, tzinfo=UTC)
N_WEEKS = 30
WINDOW = range(18, 30)  # W-11..W0
RECENT = range(26, 30)  # W-3..W0
BEFORE = range(18, 26)  # W-11..W-4
TURN_LINE = re.compile(r"^([A-Z][\w.\-]*(?: [A-Z][\w.\-]*)+) \((\d{2}):(\d{2}):(\d{2})\): \S")
# Keyword proxies for the two themes; a signal counts when it uses two distinct terms.
REGULATORY_TERMS = re.compile(
    r"\b(regulat\w*|lawsuits?|courts?|antitrust|export controls?|ai act|copyright\w*|"
    r"compliance|enforcement|litigation|judges?|plaintiffs?|injunctions?|lawmakers|"
    r"legislation|sued|fined|fines)\b",
    re.IGNORECASE,
)
CAPITAL_TERMS = re.compile(
    r"\b(valuations?|valuing|funding|raised?|raises|raising|capex|capital expenditure|"
    r"capital spending|investors?|debt|lenders?|loans?|acquires?|acquisition|financing|"
    r"credit|fund)\b",
    re.IGNORECASE,
)


class Signal:
    """One unit of counting: a record, a Markdown document or a podcast segment."""

    def __init__(self, kind: str, published_at: str, text: str, source: str) -> None:
        self.kind = kind
        self.ts = parse_ts(published_at)
        self.week = (self.ts - FIRST_MONDAY).days // 7
        self.text = text
        self.lower = text.lower()  # for a cheap substring pre-filter before the regex
        self.source = source  # "record", "markdown" or "segment"


def parse_ts(value: str) -> datetime:
    assert value.endswith("Z") or value.endswith("+00:00"), value
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def split_markdown(doc: str) -> tuple[dict[str, Any], str]:
    assert doc.startswith("---\n")
    front, sep, body = doc[4:].partition("\n---\n\n")
    assert sep, "front matter must be closed by --- and a blank line"
    meta = yaml.safe_load(front)
    assert isinstance(meta, dict)
    return meta, body


def canonical(url: str) -> str:
    scheme, _, rest = url.partition("://")
    assert scheme in ("http", "https"), url
    host, _, path = rest.partition("/")
    host = host.lower().removeprefix("www.")
    path = path.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    return f"{host}/{path}"


@pytest.fixture(scope="module")
def corpus() -> DemoCorpus:
    return generate_demo_corpus()


@pytest.fixture(scope="module")
def signals(corpus: DemoCorpus) -> list[Signal]:
    out: list[Signal] = []
    for rec in corpus.records:
        if rec["kind"] == "podcast":
            for seg in rec["segments"]:
                text = f"{rec['title']}\n{seg['text']}"
                out.append(Signal("podcast", rec["published_at"], text, "segment"))
        else:
            text = f"{rec['title']}\n{rec['text']}"
            out.append(Signal(rec["kind"], rec["published_at"], text, "record"))
    for _, doc in corpus.markdown_documents:
        meta, body = split_markdown(doc)
        text = f"{meta['title']}\n{body}"
        out.append(Signal(meta["kind"], meta["published_at"], text, "markdown"))
    return out


@pytest.fixture(scope="module")
def weekly_totals(signals: list[Signal]) -> list[int]:
    totals = [0] * N_WEEKS
    for s in signals:
        totals[s.week] += 1
    return totals


def weekly_mentions(signals: list[Signal], name: str, flags: int = 0) -> list[int]:
    pattern = re.compile(rf"\b{re.escape(name)}\b", flags)
    needle = name.lower()
    counts = [0] * N_WEEKS
    for s in signals:
        if needle in s.lower and pattern.search(s.text):
            counts[s.week] += 1
    return counts


def share(counts: list[int], totals: list[int], weeks: range) -> float:
    return sum(counts[w] for w in weeks) / sum(totals[w] for w in weeks)


def ratio(counts: list[int], totals: list[int]) -> float:
    before = share(counts, totals, BEFORE)
    recent = share(counts, totals, RECENT)
    return float("inf") if before == 0 else recent / before


def weekly_cv(counts: list[int], totals: list[int]) -> float:
    shares = [counts[w] / totals[w] for w in WINDOW]
    mean = statistics.fmean(shares)
    return statistics.pstdev(shares) / mean if mean else float("inf")


# --- determinism, purity, speed -------------------------------------------------------------


def dump(c: DemoCorpus) -> str:
    return json.dumps(
        [c.records, c.markdown_documents, c.ground_truth], sort_keys=True, ensure_ascii=False
    )


def test_same_seed_gives_identical_output(corpus: DemoCorpus) -> None:
    assert dump(generate_demo_corpus(DEMO_SEED)) == dump(corpus)


def test_other_seed_gives_other_text_but_same_truth_shape() -> None:
    other = generate_demo_corpus(DEMO_SEED + 1)
    assert dump(other) != dump(generate_demo_corpus(DEMO_SEED))
    assert other.ground_truth["entities"] == generate_demo_corpus().ground_truth["entities"]


def test_public_constants() -> None:
    assert DEMO_SEED == 7
    assert DEMO_AS_OF.isoformat() == "2026-10-28T00:00:00+00:00"
    assert DEMO_AS_OF.weekday() == 2


def test_module_imports_only_stdlib_and_itself() -> None:
    package = Path(__file__).resolve().parents[2] / "demo"
    allowed = set(sys.stdlib_module_names) | {"demo"}
    files = sorted(package.glob("*.py"))
    assert len(files) >= 2
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                roots = [node.module.split(".")[0]]
            else:
                continue
            for root in roots:
                assert root in allowed, (path.name, root)


def test_output_is_json_serialisable(corpus: DemoCorpus) -> None:
    json.dumps(corpus.records)
    json.dumps(corpus.ground_truth)


# --- volume and time ---------------------------------------------------------------------------


def test_volume_and_weeks(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    assert len(signals) >= 1_700
    assert corpus.ground_truth["signals"] == len(signals)
    assert corpus.ground_truth["records"] == len(corpus.records) + len(corpus.markdown_documents)
    assert all(FIRST_MONDAY <= s.ts <= LAST_INSTANT for s in signals)
    mean = statistics.fmean(weekly_totals)
    assert all(abs(t - mean) <= 0.2 * mean for t in weekly_totals), weekly_totals
    assert corpus.ground_truth["weeks"] == {
        "first": "2026-03-30",
        "last": "2026-10-25",
        "w0_start": "2026-10-19",
    }


def test_times_spread_within_days(signals: list[Signal]) -> None:
    hours = {s.ts.hour for s in signals}
    minutes = {s.ts.minute for s in signals}
    weekdays = {s.ts.weekday() for s in signals}
    assert len(hours) >= 18 and len(minutes) >= 50 and weekdays == set(range(7))


def test_every_kind_present_and_news_most_common(corpus: DemoCorpus, signals: list[Signal]) -> None:
    counts = {k: sum(1 for s in signals if s.kind == k) for k in KINDS}
    assert all(counts[k] >= 40 for k in KINDS), counts
    assert max(counts, key=lambda k: counts[k]) == "news"
    episodes = [r for r in corpus.records if r["kind"] == "podcast"]
    assert 35 <= len(episodes) <= 45


def test_required_fields(corpus: DemoCorpus) -> None:
    for rec in corpus.records:
        assert rec["kind"] in KINDS
        for field in ("title", "url", "published_at"):
            assert isinstance(rec[field], str) and rec[field]
        parse_ts(rec["published_at"])
        if rec["kind"] == "podcast":
            assert "text" not in rec and rec["segments"]
        else:
            assert isinstance(rec["text"], str) and rec["text"].strip()
            assert "segments" not in rec
        assert isinstance(rec.get("author", ""), str)


# --- per-kind shape ---------------------------------------------------------------------------


def test_longform_has_six_or_more_paragraphs(signals: list[Signal]) -> None:
    longform = [s for s in signals if s.kind in LONGFORM]
    assert len(longform) >= 200
    for s in longform:
        body = s.text.split("\n", 1)[1]
        paragraphs = [p for p in body.strip().split("\n\n") if p.strip()]
        assert len(paragraphs) >= 6, s.text[:200]
        numbers = re.findall(r"\d[\d.,]*", body)
        assert len(numbers) >= 4, f"analyses must carry concrete numbers: {s.text[:120]}"


def test_news_and_papers_are_multi_paragraph(corpus: DemoCorpus) -> None:
    for rec in corpus.records:
        if rec["kind"] == "news":
            assert len(rec["text"].split("\n\n")) >= 3
        if rec["kind"] == "paper":
            parts = rec["text"].split("\n\n")
            assert [p.split(".")[0] for p in parts] == ["Abstract", "Method", "Results"]
            assert "arxiv.org/abs/" in rec["url"]


def test_social_posts_are_short(corpus: DemoCorpus) -> None:
    posts = [r for r in corpus.records if r["kind"] == "social"]
    for rec in posts:
        text = rec["text"]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
        assert len(sentences) <= 4 and len(text) <= 320, text
        assert "\n\n" not in text
        assert re.fullmatch(r"https://x\.com/\w+/status/\d{15,20}", rec["url"]), rec["url"]


def test_podcast_segment_invariants(corpus: DemoCorpus) -> None:
    episodes = [r for r in corpus.records if r["kind"] == "podcast"]
    for ep in episodes:
        assert re.match(r"^.+ #\d+: \S", ep["title"]), ep["title"]
        segments = ep["segments"]
        assert 3 <= len(segments) <= 6
        assert segments[0]["start_s"] == 0
        for prev, nxt in zip(segments, segments[1:], strict=False):
            assert prev["end_s"] == nxt["start_s"], "chapters must be contiguous"
        for seg in segments:
            assert isinstance(seg["start_s"], int) and isinstance(seg["end_s"], int)
            assert seg["start_s"] < seg["end_s"]
            assert isinstance(seg["chapter"], str) and seg["chapter"]
            lines = seg["text"].split("\n")
            assert len(lines) >= 3
            stamps = []
            for line in lines:
                m = TURN_LINE.match(line)
                assert m, line
                h, mi, sec = (int(g) for g in m.groups()[1:])
                stamps.append(h * 3600 + mi * 60 + sec)
            assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
            assert seg["start_s"] <= stamps[0] and stamps[-1] <= seg["end_s"]


def test_urls_unique_after_canonicalisation(corpus: DemoCorpus) -> None:
    urls = [r["url"] for r in corpus.records]
    urls += [split_markdown(doc)[0]["url"] for _, doc in corpus.markdown_documents]
    canon = [canonical(u) for u in urls]
    assert len(set(canon)) == len(canon)
    assert not any("?" in u or "#" in u for u in urls)
    podcast_hosts = {
        canonical(r["url"]).split("/")[0] for r in corpus.records if r["kind"] == "podcast"
    }
    assert all(h.startswith("podcasts.") and h.endswith(".fm") for h in podcast_hosts)
    hosts = {canonical(u).split("/")[0] for u in urls}
    assert any(h.endswith(".co.uk") for h in hosts) and any(h.endswith(".com.au") for h in hosts)


def test_markdown_front_matter(corpus: DemoCorpus) -> None:
    docs = corpus.markdown_documents
    assert 120 <= len(docs) <= 180
    names = [name for name, _ in docs]
    assert len(set(names)) == len(names) and all(n.endswith(".md") for n in names)
    record_urls = {canonical(r["url"]) for r in corpus.records}
    for _, doc in docs:
        meta, body = split_markdown(doc)
        assert set(meta) >= {"kind", "title", "url", "published_at", "author"}
        assert meta["kind"] in {"essay", "article"}
        assert all(isinstance(meta[k], str) for k in ("title", "url", "published_at", "author"))
        parse_ts(meta["published_at"])
        assert canonical(meta["url"]) not in record_urls
        assert len(body.strip().split("\n\n")) >= 6


def test_no_placeholder_text(signals: list[Signal]) -> None:
    for s in signals:
        assert "{" not in s.text and "}" not in s.text, s.text[:200]
        assert "lorem" not in s.text.lower()


def test_real_people_are_never_quoted(signals: list[Signal]) -> None:
    real = [
        "Sam Altman",
        "Dario Amodei",
        "Demis Hassabis",
        "Jensen Huang",
        "Satya Nadella",
        "Lisa Su",
        "Mark Zuckerberg",
        "Sundar Pichai",
    ]
    for s in signals:
        for name in real:
            if name not in s.text:
                continue
            assert not re.search(rf"(said {name}\b|{name}[^.”]{{0,60}} said\b|{name} \()", s.text)
            assert not re.search(rf"”[^“\n]{{0,15}}{name}", s.text)


# --- planted ground truth ---------------------------------------------------------------------


def planted_names(corpus: DemoCorpus) -> dict[str, list[str]]:
    entities = corpus.ground_truth["entities"]
    assert set(entities) == {"rising", "declining", "new", "steady"}
    assert all(len(names) == 3 for names in entities.values())
    return {label: list(names) for label, names in entities.items()}


def test_planted_names_are_distinct_and_only_in_written_records(
    corpus: DemoCorpus, signals: list[Signal]
) -> None:
    names = [n for group in planted_names(corpus).values() for n in group]
    for a in names:
        assert not any(a != b and a.lower() in b.lower() for b in names)
        exact = weekly_mentions(signals, a)
        loose = weekly_mentions(signals, a, re.IGNORECASE)
        assert exact == loose, f"{a} also occurs in another casing"
        assert not any(s.source == "segment" and a.lower() in s.lower for s in signals)


def test_ground_truth_weekly_counts_match_text(corpus: DemoCorpus, signals: list[Signal]) -> None:
    recorded = corpus.ground_truth["weekly_counts"]
    week_keys = [(FIRST_MONDAY + timedelta(weeks=w)).date().isoformat() for w in range(N_WEEKS)]
    for group in planted_names(corpus).values():
        for name in group:
            counts = weekly_mentions(signals, name)
            assert [recorded[name].get(k, 0) for k in week_keys] == counts


def test_rising_entities(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    for name in planted_names(corpus)["rising"]:
        counts = weekly_mentions(signals, name)
        assert sum(counts) >= 8
        first = next(w for w in range(N_WEEKS) if counts[w])
        assert first < 10, "present from early on"
        assert all(counts[w] >= 1 for w in BEFORE), "present throughout the window"
        assert ratio(counts, weekly_totals) >= 3.0, name


def test_declining_entities(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    for name in planted_names(corpus)["declining"]:
        counts = weekly_mentions(signals, name)
        assert sum(counts) >= 8
        assert next(w for w in range(N_WEEKS) if counts[w]) < RECENT.start
        assert ratio(counts, weekly_totals) <= 0.4, name


def test_new_entities(corpus: DemoCorpus, signals: list[Signal]) -> None:
    w3_start = datetime(2026, 9, 28, tzinfo=UTC)
    for name in planted_names(corpus)["new"]:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        hits = [s for s in signals if pattern.search(s.text)]
        assert len(hits) >= 12
        assert min(s.ts for s in hits) >= w3_start


def test_steady_entities(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    for name in planted_names(corpus)["steady"]:
        counts = weekly_mentions(signals, name)
        assert all(counts[w] >= 3 for w in WINDOW), counts
        assert 0.9 <= ratio(counts, weekly_totals) <= 1.1, name
        assert weekly_cv(counts, weekly_totals) <= 0.3, name


def test_labels_follow_the_analytics_rules(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    """The four labels, computed exactly as the analytics define them, match the plan."""
    w3_start = datetime(2026, 9, 28, tzinfo=UTC)
    for label, names in planted_names(corpus).items():
        for name in names:
            counts = weekly_mentions(signals, name)
            assert sum(counts) >= 8
            first_week = next(w for w in range(N_WEEKS) if counts[w])
            first_seen = FIRST_MONDAY + timedelta(weeks=first_week)
            r = ratio(counts, weekly_totals)
            if first_seen >= w3_start:
                got = "new"
            elif r >= 1.25:
                got = "rising"
            elif r <= 0.8:
                got = "declining"
            else:
                got = "stable"
            assert got == ("stable" if label == "steady" else label), (name, r)
            if label == "steady":
                assert weekly_cv(counts, weekly_totals) <= 0.5


def theme_shares(signals: list[Signal], totals: list[int], terms: re.Pattern[str]) -> list[float]:
    hits = [0] * N_WEEKS
    for s in signals:
        if len({m.group(0).lower() for m in terms.finditer(s.text)}) >= 2:
            hits[s.week] += 1
    return [
        share(hits, totals, BEFORE),
        share(hits, totals, RECENT),
    ]


def test_regulatory_theme_rises(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    assert corpus.ground_truth["themes"]["rising"] == [
        {"axis": "market_force", "label": "Regulatory & Legal"}
    ]
    before, recent = theme_shares(signals, weekly_totals, REGULATORY_TERMS)
    assert 0.04 <= before <= 0.12, before
    assert recent >= 0.20, recent


def test_capital_theme_declines(
    corpus: DemoCorpus, signals: list[Signal], weekly_totals: list[int]
) -> None:
    assert corpus.ground_truth["themes"]["declining"] == [
        {"axis": "market_force", "label": "Capital & Investment"}
    ]
    before, recent = theme_shares(signals, weekly_totals, CAPITAL_TERMS)
    assert before >= 0.10, before
    assert recent <= 0.6 * before, (before, recent)
