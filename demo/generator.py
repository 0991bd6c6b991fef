"""Assembly of the demo corpus: weekly quotas, kinds, themes, timestamps, URLs, ground truth.

Each of the 30 weeks gets a near-constant signal budget. The budget is split by market force
(with Regulatory & Legal rising and Capital & Investment falling in the last four weeks), the
planted entity mentions are placed first, podcast chapters next, and the rest is filled with
background news, posts, analyses and papers. The ground truth is then recounted from the text
that was actually produced.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from demo import vocabulary as v
from demo.context import make_context, render, sentence_case_title
from demo.longform import longform_text
from demo.news import background, chain_for, news_text, quote_paragraph
from demo.papers import paper_text
from demo.planted import (
    LABELS,
    N_WEEKS,
    PLANTED,
    RECENT_START,
    Planted,
    choose_frame,
    longform_insert,
    news_body,
    planted_context,
    social_post,
    weekly_plan,
)
from demo.podcasts import episode_title, segment
from demo.social import social_text

DEMO_SEED: int = 7
DEMO_AS_OF: datetime = datetime(2026, 10, 28, tzinfo=UTC)
FIRST_MONDAY = datetime(2026, 3, 30, tzinfo=UTC)
W0_START = FIRST_MONDAY + timedelta(weeks=N_WEEKS - 1)

WEEKLY_SIGNALS = 66
N_EPISODES = 40
MARKDOWN_PER_WEEK = 5
SOCIAL_PER_WEEK = 16
LONGFORM_PER_WEEK = 12  # essays, memos and articles, markdown included
PAPERS_PER_WEEK = 5

# Market-force shares of the weekly budget: the last four weeks shift from capital to legal.
EARLY_SHARES = {v.REGULATORY: 0.08, v.CAPITAL: 0.19}
RECENT_SHARES = {v.REGULATORY: 0.27, v.CAPITAL: 0.06}
OTHER_WEIGHTS = {v.COMPETITION: 0.20, v.TALENT: 0.12, v.TECHNOLOGY: 0.25, v.ADOPTION: 0.23}
LONGFORM_KINDS = ("essay", "memo", "article")
SECTIONS = {
    v.CAPITAL: "markets",
    v.REGULATORY: "policy",
    v.COMPETITION: "business",
    v.TALENT: "work",
    v.TECHNOLOGY: "tech",
    v.ADOPTION: "enterprise",
}
# Hours of publication: trade press publishes mostly during the US and European working day.
HOUR_WEIGHTS = [1, 1, 1, 1, 2, 3, 5, 7, 9, 10, 10, 9, 9, 10, 11, 11, 10, 8, 6, 5, 4, 3, 2, 1]
DAY_WEIGHTS = [12, 12, 12, 12, 11, 5, 4]


@dataclass(frozen=True)
class DemoCorpus:
    """The generated corpus: JSONL records, Markdown files and the planted ground truth."""

    records: list[dict[str, Any]]
    markdown_documents: list[tuple[str, str]]
    ground_truth: dict[str, Any]


@dataclass
class _Slot:
    """A signal to be written: when, which kind and force, and planted entities if any."""

    week: int
    kind: str
    force: str
    planted: Planted | None = None
    also: Planted | None = None
    markdown: bool = False


def _iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def _timestamp(rng: random.Random, week: int) -> datetime:
    day = rng.choices(range(7), weights=DAY_WEIGHTS)[0]
    hour = rng.choices(range(24), weights=HOUR_WEIGHTS)[0]
    return FIRST_MONDAY + timedelta(
        weeks=week, days=day, hours=hour, minutes=rng.randrange(60), seconds=rng.randrange(60)
    )


def title_slug(text: str, limit: int = 72) -> str:
    """Lower-case words joined by hyphens, at most ``limit`` characters (whole words)."""
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > limit:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug or "untitled"


def canonical(url: str) -> str:
    """The brief's canonical form: lowercase host without www., no query/fragment/slash."""
    scheme_rest = url.split("://", 1)[1]
    host, _, path = scheme_rest.partition("/")
    host = host.lower().removeprefix("www.")
    path = path.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    return f"{host}/{path}" if path else host


class _UrlBook:
    """Hands out URLs and guarantees that no two share a canonical form."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._arxiv_next: dict[str, int] = {}

    def claim(self, url: str) -> str:
        base, n = url, 2
        while canonical(url) in self._seen:
            url = f"{base}-{n}"
            n += 1
        self._seen.add(canonical(url))
        return url

    def article(
        self, rng: random.Random, outlet: v.Outlet, title: str, ts: datetime, force: str
    ) -> str:
        slug = title_slug(title)
        if outlet.path_style == "dated":
            url = f"https://{outlet.host}/{ts:%Y/%m/%d}/{slug}"
        elif outlet.path_style == "section":
            url = f"https://{outlet.host}/{SECTIONS[force]}/{slug}-{rng.randrange(10**5, 10**6)}"
        elif outlet.path_style == "substack":
            url = f"https://{outlet.host}/p/{slug}"
        else:
            url = f"https://{outlet.host}/{slug}"
        return self.claim(url)

    def arxiv(self, rng: random.Random, ts: datetime) -> str:
        prefix = f"{ts:%y%m}"
        nxt = self._arxiv_next.get(prefix, rng.randrange(1_000, 4_000))
        self._arxiv_next[prefix] = nxt + rng.randrange(3, 140)
        return self.claim(f"https://arxiv.org/abs/{prefix}.{nxt:05d}")

    def status(self, rng: random.Random, handle: str, ts: datetime) -> str:
        # Snowflake-style ids encode the posting time, as real status URLs do.
        ms = int(ts.timestamp() * 1000) + rng.randrange(1000)
        status_id = ((ms - 1_288_834_974_657) << 22) + rng.randrange(1 << 22)
        return self.claim(f"https://x.com/{handle}/status/{status_id}")


def _force_quota(rng: random.Random, week: int, total: int) -> dict[str, int]:
    shares = RECENT_SHARES if week >= RECENT_START else EARLY_SHARES
    quota = {f: round(shares[f] * total + rng.uniform(-0.7, 0.7)) for f in shares}
    rest = total - sum(quota.values())
    weight_sum = sum(OTHER_WEIGHTS.values())
    raw = {f: rest * w / weight_sum for f, w in OTHER_WEIGHTS.items()}
    floors = {f: int(x) for f, x in raw.items()}
    leftover = rest - sum(floors.values())
    for f in sorted(raw, key=lambda f: (floors[f] - raw[f], f))[:leftover]:
        floors[f] += 1
    quota.update(floors)
    return quota


def _take_force(quota: dict[str, int], preferred: str) -> None:
    """Charge one signal of ``preferred`` to the week's quota.

    When that force is used up, the most plentiful other non-planted force pays instead; the
    regulatory and capital quotas are never borrowed, so the planted theme shift stays exact.
    """
    if quota.get(preferred, 0) > 0:
        quota[preferred] -= 1
        return
    donors = [f for f in OTHER_WEIGHTS if quota[f] > 0]
    if donors:
        quota[max(donors, key=lambda f: (quota[f], f))] -= 1


def _planted_slots(
    rng: random.Random, week: int, plan: dict[str, list[int]], quota: dict[str, int]
) -> list[tuple[_Slot, Any]]:
    """Signals carrying planted mentions, some naming two entities of the same domain."""
    by_name = {p.name: p for p in PLANTED}
    slots: list[tuple[_Slot, Any]] = []
    for domain in ("chip", "lab", "supplier"):
        mentions = [
            p.name for p in PLANTED if p.domain == domain for _ in range(plan[p.name][week])
        ]
        rng.shuffle(mentions)
        while mentions:
            first = by_name[mentions.pop()]
            also: Planted | None = None
            partner = next((m for m in mentions if m != first.name), None)
            if partner is not None and rng.random() < 0.3:
                mentions.remove(partner)
                also = by_name[partner]
            frame = choose_frame(rng, first)
            _take_force(quota, frame.force)
            roll = rng.random()
            kind = (
                "news" if roll < 0.55 else "social" if roll < 0.85 else rng.choice(LONGFORM_KINDS)
            )
            slots.append((_Slot(week, kind, frame.force, first, also), frame))
    return slots


def _episode_weeks(rng: random.Random) -> list[int]:
    weeks = list(range(N_WEEKS)) + rng.sample(range(N_WEEKS), N_EPISODES - N_WEEKS)
    return sorted(weeks)


def _text_of(signal_title: str, body: str) -> str:
    return f"{signal_title}\n{body}"


def _count_mentions(records: list[dict[str, Any]], docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Weekly planted-entity counts recounted from the produced text (one per signal)."""
    patterns = {p.name: re.compile(rf"\b{re.escape(p.name)}\b") for p in PLANTED}
    week_keys = [(FIRST_MONDAY + timedelta(weeks=w)).date().isoformat() for w in range(N_WEEKS)]
    counts = {p.name: dict.fromkeys(week_keys, 0) for p in PLANTED}
    for rec in [*records, *docs]:
        ts = datetime.fromisoformat(rec["published_at"].replace("Z", "+00:00"))
        week = (ts - FIRST_MONDAY).days // 7
        key = week_keys[week]
        texts = (
            [_text_of(rec["title"], s["text"]) for s in rec["segments"]]
            if rec["kind"] == "podcast"
            else [_text_of(rec["title"], rec["text"])]
        )
        for text in texts:
            for name, pattern in patterns.items():
                # The substring test is a cheap pre-filter; the regex decides whole words.
                if name in text and pattern.search(text):
                    counts[name][key] += 1
    return counts


def _markdown(meta: dict[str, Any], body: str) -> str:
    # JSON strings are valid YAML scalars, which keeps colons in titles safe.
    lines = [f"{key}: {json.dumps(meta[key], ensure_ascii=False)}" for key in meta]
    return "---\n" + "\n".join(lines) + "\n---\n\n" + body + "\n"


def generate_demo_corpus(seed: int = DEMO_SEED) -> DemoCorpus:
    """The demo corpus for ``seed``: byte-identical for the same seed, no I/O."""
    rng = random.Random(seed)
    plan = weekly_plan(random.Random(seed * 7919 + 1))
    urls = _UrlBook()
    episode_weeks = _episode_weeks(rng)
    show_numbers = {show[0]: show[3] for show in v.PODCAST_SHOWS}
    records: list[dict[str, Any]] = []
    markdown_meta: list[tuple[dict[str, Any], str]] = []

    for week in range(N_WEEKS):
        total = WEEKLY_SIGNALS + rng.randint(-2, 2)
        quota = _force_quota(rng, week, total)
        planted = _planted_slots(rng, week, plan, quota)

        # Podcasts first: their chapter count varies, the written kinds absorb the difference.
        for _ in range(episode_weeks.count(week)):
            records.append(_podcast(rng, week, quota, urls, show_numbers))

        kind_counts = {"social": SOCIAL_PER_WEEK, "paper": PAPERS_PER_WEEK}
        for slot, _ in planted:
            if slot.kind in kind_counts:
                kind_counts[slot.kind] = max(0, kind_counts[slot.kind] - 1)
        planted_longform = sum(1 for slot, _ in planted if slot.kind in LONGFORM_KINDS)
        n_longform = max(MARKDOWN_PER_WEEK, LONGFORM_PER_WEEK - planted_longform)
        used = len(planted) + sum(len(r["segments"]) for r in records if r["_week"] == week)
        remaining = total - used
        forces = [f for f in sorted(quota) for _ in range(quota[f])]
        rng.shuffle(forces)
        kinds = (
            ["markdown"] * MARKDOWN_PER_WEEK
            + [rng.choice(LONGFORM_KINDS) for _ in range(n_longform - MARKDOWN_PER_WEEK)]
            + ["social"] * kind_counts["social"]
            + ["paper"] * kind_counts["paper"]
        )
        kinds += ["news"] * (remaining - len(kinds))
        kinds = kinds[:remaining]
        for kind, force in zip(kinds, forces, strict=False):
            if kind == "markdown":
                slot = _Slot(week, rng.choice(("essay", "article", "essay")), force, markdown=True)
            else:
                slot = _Slot(week, kind, force)
            built = _background_signal(rng, slot, urls)
            if slot.markdown:
                markdown_meta.append(built)
            else:
                records.append(built[0])
        for slot, frame in planted:
            records.append(_planted_signal(rng, slot, frame, urls))

    for rec in records:
        rec.pop("_week", None)
    for meta, _ in markdown_meta:
        meta.pop("_week", None)
    records.sort(key=lambda r: (r["published_at"], r["url"]))
    markdown_meta.sort(key=lambda m: (m[0]["published_at"], m[0]["url"]))

    docs = _markdown_documents(markdown_meta)
    doc_records = [dict(meta, text=body) for meta, body in markdown_meta]
    counts = _count_mentions(records, doc_records)
    n_signals = sum(len(r["segments"]) if r["kind"] == "podcast" else 1 for r in records) + len(
        docs
    )
    ground_truth = _ground_truth(seed, counts, n_signals, len(records) + len(docs))
    return DemoCorpus(records=records, markdown_documents=docs, ground_truth=ground_truth)


def _markdown_documents(markdown_meta: list[tuple[dict[str, Any], str]]) -> list[tuple[str, str]]:
    """Each Markdown document's file name (its date and title, numbered when taken) and text."""
    docs: list[tuple[str, str]] = []
    names_seen: set[str] = set()
    for meta, body in markdown_meta:
        name = f"{meta['published_at'][:10]}-{title_slug(meta['title'], 60)}.md"
        n = 2
        while name in names_seen:
            name = f"{meta['published_at'][:10]}-{title_slug(meta['title'], 60)}-{n}.md"
            n += 1
        names_seen.add(name)
        docs.append((name, _markdown(meta, body)))
    return docs


def _ground_truth(
    seed: int, counts: dict[str, Any], n_signals: int, n_records: int
) -> dict[str, Any]:
    """What the corpus plants, for the tests and the docs."""
    return {
        "seed": seed,
        "as_of": DEMO_AS_OF.isoformat(),
        "weeks": {
            "first": FIRST_MONDAY.date().isoformat(),
            "last": (FIRST_MONDAY + timedelta(weeks=N_WEEKS, days=-1)).date().isoformat(),
            "w0_start": W0_START.date().isoformat(),
        },
        "entities": {label: [p.name for p in PLANTED if p.label == label] for label in LABELS},
        "themes": {
            "rising": [{"axis": "market_force", "label": v.REGULATORY}],
            "declining": [{"axis": "market_force", "label": v.CAPITAL}],
        },
        "weekly_counts": counts,
        "signals": n_signals,
        "records": n_records,
        "note": (
            "Synthetic corpus: every event, figure and quote is invented. Quotes are attributed "
            "only to fictional people at fictional firms; real people appear only in neutral "
            "statements. Planted entities are mentioned only in non-podcast records; "
            "Regulatory & Legal rises from about 8% to about 27% of weekly signals in the last "
            "four weeks while Capital & Investment falls from about 19% to about 6%. "
            "'records' counts JSONL records plus Markdown documents."
        ),
    }


_OUTLETS_BY_KIND: dict[str, tuple[list[v.Outlet], list[int]]] = {
    kind: (
        [o for o in v.OUTLETS if any(k == kind for k, _ in o.kinds)],
        [w for o in v.OUTLETS for k, w in o.kinds if k == kind],
    )
    for kind in ("news", "article", "essay", "memo")
}


def _outlet_for(rng: random.Random, kind: str) -> v.Outlet:
    outlets, weights = _OUTLETS_BY_KIND[kind]
    return rng.choices(outlets, weights=weights)[0]


def _written_record(
    rng: random.Random,
    slot: _Slot,
    title: str,
    text: str,
    urls: _UrlBook,
    ts: datetime,
) -> dict[str, Any]:
    if slot.kind == "social":
        handle, _ = v.SOCIAL_HANDLES[rng.randrange(len(v.SOCIAL_HANDLES))]
        return {
            "kind": "social",
            "title": title,
            "url": urls.status(rng, handle, ts),
            "published_at": _iso(ts),
            "text": text,
            "author": f"@{handle}",
            "_week": slot.week,
        }
    outlet = _outlet_for(rng, slot.kind)
    return {
        "kind": slot.kind,
        "title": title,
        "url": urls.article(rng, outlet, title, ts, slot.force),
        "published_at": _iso(ts),
        "text": text,
        "author": v.pick(rng, outlet.authors),
        "_week": slot.week,
    }


def _social_title(text: str) -> str:
    first = text.split(". ")[0].rstrip(".")
    if len(first) > 80:
        first = first[:77].rsplit(" ", 1)[0] + "…"
    return first


def _background_signal(
    rng: random.Random, slot: _Slot, urls: _UrlBook
) -> tuple[dict[str, Any], str]:
    """A signal without planted entities; returns (record or front matter, body)."""
    ts = _timestamp(rng, slot.week)
    chain = chain_for(rng, slot.force)
    ctx = make_context(rng, chain, slot.force, ts)
    if slot.kind == "paper":
        title, text, authors = paper_text(rng, slot.force, ctx)
        rec = {
            "kind": "paper",
            "title": title,
            "url": urls.arxiv(rng, ts),
            "published_at": _iso(ts),
            "text": text,
            "author": authors,
            "_week": slot.week,
        }
        return rec, text
    if slot.kind == "news":
        title, text = news_text(rng, slot.force, ctx)
    elif slot.kind == "social":
        text = social_text(rng, slot.force, ctx)
        title = _social_title(text)
    else:
        title, text = longform_text(rng, slot.force, slot.kind, ctx)
    rec = _written_record(rng, slot, title, text, urls, ts)
    if slot.markdown:
        meta = {k: rec[k] for k in ("kind", "title", "url", "published_at", "author")}
        meta["_week"] = slot.week
        return meta, text
    return rec, text


def _planted_signal(rng: random.Random, slot: _Slot, frame: Any, urls: _UrlBook) -> dict[str, Any]:
    """A signal naming one planted entity (two when ``slot.also`` is set)."""
    assert slot.planted is not None
    p = slot.planted
    ts = _timestamp(rng, slot.week)
    chain = {"chip": v.HARDWARE, "lab": v.MODELS, "supplier": v.INFRA}[p.domain]
    ctx = make_context(rng, chain, slot.force, ts)
    if slot.kind == "news":
        title, paragraphs = news_body(rng, p, frame, ctx, slot.also)
        paragraphs.append(quote_paragraph(rng, slot.force, ctx))
        if rng.random() < 0.6:
            paragraphs.append(background(rng, slot.force, ctx, rng.randint(1, 2)))
        text = "\n\n".join(paragraphs)
    elif slot.kind == "social":
        text = social_post(rng, p, ctx, slot.also)
        title = _social_title(text)
    else:
        insert = longform_insert(rng, p, ctx, slot.also)
        title, text = longform_text(rng, slot.force, slot.kind, ctx, insert)
        if rng.random() < 0.5:
            title = sentence_case_title(render(frame.headline, planted_context(p, ctx)))
    return _written_record(rng, slot, title, text, urls, ts)


def _podcast(
    rng: random.Random,
    week: int,
    quota: dict[str, int],
    urls: _UrlBook,
    show_numbers: dict[str, int],
) -> dict[str, Any]:
    """One episode; each chapter consumes one unit of the week's force quota."""
    show, host_name, hosts, _ = v.PODCAST_SHOWS[rng.randrange(len(v.PODCAST_SHOWS))]
    number = show_numbers[show]
    show_numbers[show] = number + 1
    n_chapters = rng.randint(3, 6)
    pool = [f for f in sorted(quota) for _ in range(quota[f])]
    forces: list[str] = []
    for _ in range(n_chapters):
        force = pool[rng.randrange(len(pool))]
        pool.remove(force)
        quota[force] -= 1
        forces.append(force)
    ts = _timestamp(rng, week).replace(hour=rng.choice((5, 6, 10, 11)), minute=0, second=0)
    guest_first, guest_last = v.pick(rng, v.FIRST_NAMES), v.pick(rng, v.LAST_NAMES)
    guest = f"{guest_first} {guest_last}"
    segments: list[dict[str, Any]] = []
    start = 0
    for i, force in enumerate(forces):
        ctx = make_context(rng, chain_for(rng, force), force, ts)
        used = tuple(str(done["chapter"]) for done in segments)
        seg = segment(rng, force, start, hosts, guest, ctx, used)
        text = seg.text
        if i == 0:
            affiliation = v.voice(rng, force).split(", ", 1)[1]
            host_line, _, rest = text.partition("): ")
            text = (
                f"{host_line}): Welcome to {show}. My guest today is {guest}, {affiliation}. {rest}"
            )
        segments.append(
            {"start_s": seg.start_s, "end_s": seg.end_s, "chapter": seg.chapter, "text": text}
        )
        start = seg.end_s
    title = episode_title(rng, show, number, forces)
    slug = title_slug(title.split(": ", 1)[1], 60)
    return {
        "kind": "podcast",
        "title": title,
        "url": urls.claim(f"https://podcasts.{host_name}.fm/episodes/{number}-{slug}"),
        "published_at": _iso(ts),
        "author": " and ".join(hosts),
        "segments": segments,
        "_week": week,
    }


__all__ = ["DEMO_AS_OF", "DEMO_SEED", "DemoCorpus", "generate_demo_corpus"]
