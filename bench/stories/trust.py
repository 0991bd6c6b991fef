"""Stories a reader can trust (issue 45): the stories and claim links of the shipped method
against those of the method before it, on the AINews 2024 + 2025 build, and the hand-judged
samples that say whether stories are one event, whether event singletons were missed, and
whether corroboration is independent.

Usage:
    # the method before (issue 31) from a checkout of it (``git worktree add DIR COMMIT``):
    # writes its stories and claim links next to --out
    PYTHONPATH=DIR .venv/bin/python -m bench.stories.trust --warehouse W --before-out B.parquet
    # the figures: mechanical ones (titles, publishers, roundups, derivation, contested, CPU)
    # and, with --judged, the judged ones with Wilson 95 % intervals
    .venv/bin/python -m bench.stories.trust --warehouse W --before B.parquet \
        [--judged bench/stories/trust_judged.json] [--json OUT]
    # samples to judge, printed blind (never committed: corpus text): pairs of one story's
    # members, multi-signal stories (every member against the central one), event singletons
    # (with their nearest posts of the 3 days either side), corroborating links
    .venv/bin/python -m bench.stories.trust --warehouse W --before B.parquet \
        --draw pairs|stories|singletons|links --year Y --n N --seed S [--which before|after] \
        --out SKELETON.json

What is mechanical is counted exactly; what needs reading is sampled uniformly (seeded) and
judged by the rule of docs/journal/2026-12-07.md ("Stories a reader can trust") before any
figure of the sample is computed. The
corpus's record ``kind`` (an AINews ``memo`` is the newsletter's daily digest) is read here for
evaluation only, never by the pipeline.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

AS_OF = datetime(2026, 1, 1, tzinfo=UTC)
YEARS = (2024, 2025)
JUDGED = Path(__file__).with_name("trust_judged.json")


def read(warehouse: Path, name: str) -> pl.DataFrame:
    return pl.read_parquet(warehouse / f"{name}.parquet")


def build(warehouse: Path) -> dict[str, pl.DataFrame]:
    """The stories and claim links of the code the interpreter imports (this checkout, or the method
    before it), with the CPU the stories took: inputs read, stories built as the asset does."""
    from analytics import stories as st
    from analytics.corroboration import claim_inputs, claim_links

    signals, units = read(warehouse, "signals"), read(warehouse, "units")
    embeddings = read(warehouse, "unit_embeddings")
    signal_entities = read(warehouse, "signal_entities")
    unit_entities = read(warehouse, "unit_entities")
    started = time.process_time()
    served, vectors = st.story_inputs(signals, units, embeddings, AS_OF)
    items = getattr(st, "story_items", None)
    if items is not None:
        served, vectors = items(served, vectors, units, embeddings, unit_entities, signal_entities)
    stories, _ = st.build_stories(
        served, vectors, signal_entities, read(warehouse, "signal_themes")
    )
    cpu = time.process_time() - started
    claims, claim_vectors = claim_inputs(signals, units, unit_entities, embeddings, AS_OF)
    links = claim_links(claims, claim_vectors)
    print(f"stories: {stories.height} in {cpu:.1f} s CPU; claim links: {links.height}")
    return {"stories": stories, "links": links, "cpu": pl.DataFrame({"cpu_s": [cpu]})}


def wilson(yes: int, n: int) -> dict[str, float]:
    """The share and its Wilson 95 % interval."""
    if n == 0:
        return {"share": math.nan, "low": math.nan, "high": math.nan, "n": 0}
    z, p = 1.96, yes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"share": p, "low": centre - half, "high": centre + half, "n": n, "yes": yes}


def mechanical(
    warehouse: Path, stories: pl.DataFrame, links: pl.DataFrame, label: str
) -> dict[str, Any]:
    """Per year of a story's first signal: multi-signal stories, those titled by a title used
    on 3+ days, those of one publisher, roundup parts; per year of publication, the signals
    split as roundups (and how many of them are memos, the newsletter's digests); the
    corroborating and contested links and the share of corroborating links between a memo (the
    digest) and a claim within a day."""
    from analytics.stories import generic_titles, title_key

    signals = read(warehouse, "signals")
    generic = generic_titles(signals.filter(pl.col("published_at") <= AS_OF))
    kind = dict(signals.select("signal_id", "kind").iter_rows())
    at = dict(signals.select("signal_id", "published_at").iter_rows())
    units = read(warehouse, "units").select("unit_id", "signal_id")
    out: dict[str, Any] = {}
    for year in YEARS:
        mine = stories.filter(pl.col("first_seen").dt.year() == year)
        multi = mine.filter(pl.col("signal_count") > 1)
        titles = [title_key(t) in generic for t in multi["title"].to_list()]
        parts = multi["parts"].list.len().sum() if "parts" in multi.columns else 0
        out[str(year)] = {
            "stories": mine.height,
            "multi_signal": multi.height,
            "multi_titled_generic": int(sum(titles)),
            "multi_one_publisher": int((multi["independent_sources"] == 1).sum()),
            "largest": multi.sort("signal_count", descending=True)
            .head(5)
            .select("title", "signal_count", "independent_sources")
            .rows(),
            "roundup_parts_in_multi": int(parts or 0),
        }
    split: list[str] = []
    if "parts" in stories.columns:
        exploded = stories.select(pl.col("parts").explode().struct.field("signal_id"))
        split = exploded.drop_nulls().unique()["signal_id"].to_list()
    for year in YEARS:
        mine_split = [s for s in split if at[s].year == year]
        out[str(year)] |= {
            "roundup_signals": len(mine_split),
            "roundup_memos": sum(kind[s] == "memo" for s in mine_split),
        }
    side = links.join(units, on="unit_id").rename({"signal_id": "a"})
    rows = side.select("a", pl.col("other_signal_id").alias("b"), "relation").rows()
    for year in YEARS:
        corr = [(a, b) for a, b, r in rows if r == "corroborates" and at[a].year == year]
        contested = sum(1 for a, _, r in rows if r == "contests" and at[a].year == year)
        memo_day = sum(
            1
            for a, b in corr
            if "memo" in (kind[a], kind[b]) and abs((at[a] - at[b]).total_seconds()) <= 86400
        )
        out[str(year)] |= {
            "corroborating_links": len(corr),
            "contested_links": contested,
            "corroborating_memo_within_a_day": memo_day,
        }
    print(label, json.dumps(out, indent=1, default=str))
    return out


def _texts(warehouse: Path) -> dict[str, tuple[str, str, datetime, str]]:
    signals = read(warehouse, "signals")
    return {
        sid: (t, x or "", p, a or d)
        for sid, t, x, p, a, d in signals.select(
            "signal_id", "title", "text", "published_at", "author", "domain"
        ).iter_rows()
    }


def draw_stories(
    warehouse: Path, stories: pl.DataFrame, year: int, n: int, seed: int
) -> list[dict[str, Any]]:
    """``n`` multi-signal stories of ``year``, uniformly: each member (a roundup: its part's
    units) printed under the central one, to judge whether every member reports its event."""
    texts = _texts(warehouse)
    unit_text = dict(read(warehouse, "units").select("unit_id", "text").iter_rows())
    multi = stories.filter(
        (pl.col("signal_count") > 1) & (pl.col("first_seen").dt.year() == year)
    ).sort("story_id")
    rows = random.Random(seed).sample(multi.rows(named=True), min(n, multi.height))
    out = []
    for k, story in enumerate(rows):
        parts = {p["signal_id"]: p["unit_ids"] for p in story.get("parts") or []}
        print(f"\n=== story {k} {story['story_id']} ({story['signal_count']} signals)")
        central = story["title_signal_id"]
        for sid in [central, *(s for s in story["signal_ids"] if s != central)]:
            title, body, published, who = texts[sid]
            shown = " ".join(unit_text[u] for u in parts[sid]) if sid in parts else body[:500]
            mark = "CENTRAL" if sid == central else "member"
            print(f"- {mark} {sid} {published:%Y-%m-%d} {who}: {title!r}: {shown!r}")
        out.append({"story_id": story["story_id"], "one_event": None, "note": ""})
    return out


def draw_pairs(
    warehouse: Path, stories: pl.DataFrame, year: int, n: int, seed: int
) -> list[dict[str, Any]]:
    """``n`` pairs of members of one story of ``year`` (every pair of every multi-signal story,
    uniformly: a roundup member shown by its part's units), each printed in a random order, to
    judge whether the two report the same event: the pair precision of the grouping."""
    texts = _texts(warehouse)
    unit_text = dict(read(warehouse, "units").select("unit_id", "text").iter_rows())
    pool: list[tuple[str, str, str]] = []
    shown: dict[tuple[str, str], str] = {}
    for story in stories.filter(
        (pl.col("signal_count") > 1) & (pl.col("first_seen").dt.year() == year)
    ).iter_rows(named=True):
        parts = {p["signal_id"]: p["unit_ids"] for p in story.get("parts") or []}
        members = sorted(story["signal_ids"])
        for sid in members:
            body = texts[sid][1][:500]
            if sid in parts:
                body = " ".join(unit_text[u] for u in parts[sid])
            shown[(story["story_id"], sid)] = body
        pool += [(story["story_id"], a, b) for i, a in enumerate(members) for b in members[i + 1 :]]
    rng = random.Random(seed)
    out = []
    print(f"{len(pool)} pairs in the multi-signal stories of {year}")
    for k, (story_id, a, b) in enumerate(sorted(rng.sample(sorted(pool), min(n, len(pool))))):
        print(f"\n=== pair {k} {story_id}")
        for sid in rng.sample([a, b], 2):
            title, _, published, who = texts[sid]
            print(f"- {sid} {published:%Y-%m-%d} {who}: {title!r}: {shown[(story_id, sid)]!r}")
        out.append({"story_id": story_id, "a": a, "b": b, "same_event": None, "note": ""})
    return out


def draw_singletons(
    warehouse: Path, stories: pl.DataFrame, year: int, n: int, seed: int
) -> list[dict[str, Any]]:
    """``n`` social posts of ``year`` alone in their story, uniformly, each with the 5 posts
    nearest it (cosine of the stories' own signal vectors: the mean of their units' MiniLM
    vectors) among those published within 3 days of it, to judge whether it reports a specific
    event and whether one of them reports the same one (a missed grouping)."""
    from analytics.stories import story_inputs

    texts = _texts(warehouse)
    signals = read(warehouse, "signals")
    served, vectors = story_inputs(
        signals, read(warehouse, "units"), read(warehouse, "unit_embeddings"), AS_OF
    )
    ids = served["signal_id"].to_list()
    row = {s: i for i, s in enumerate(ids)}
    social = set(signals.filter(pl.col("kind") == "social")["signal_id"].to_list())
    alone = stories.filter(
        (pl.col("signal_count") == 1)
        & (pl.col("first_seen").dt.year() == year)
        & (pl.col("parts").list.len() == 0)
    )
    candidates = sorted(s[0] for s in alone["signal_ids"].to_list() if s[0] in social)
    day = np.asarray([texts[s][2].timestamp() for s in ids])
    out = []
    for k, sid in enumerate(random.Random(seed).sample(candidates, min(n, len(candidates)))):
        near = np.flatnonzero(np.abs(day - texts[sid][2].timestamp()) <= 3 * 86400)
        near = near[near != row[sid]]
        order = near[np.argsort(-(vectors[near] @ vectors[row[sid]]))][:5]
        title, body, published, who = texts[sid]
        print(f"\n=== singleton {k} {sid} {published:%Y-%m-%d} {who}: {title!r}: {body[:500]!r}")
        for j in order:
            t, x, p, w = texts[ids[j]]
            print(f"  ~ {ids[j]} {p:%Y-%m-%d} {w}: {t!r}: {x[:300]!r}")
        out.append({"signal_id": sid, "event": None, "missed": None, "note": ""})
    return out


def draw_links(
    warehouse: Path, links: pl.DataFrame, year: int, n: int, seed: int
) -> list[dict[str, Any]]:
    """``n`` counted corroborating links of ``year``, uniformly: the claim, the other claim and
    the publisher name served for it, to judge independence, the claim stated, and the name."""
    texts = _texts(warehouse)
    units = read(warehouse, "units").select("unit_id", "signal_id", "text")
    unit = {u: (s, t) for u, s, t in units.iter_rows()}
    from analytics.stories import publisher_name

    rows = links.filter((pl.col("relation") == "corroborates") & pl.col("counted")).sort(
        "unit_id", "other_unit_id"
    )
    rows = rows.filter(
        pl.col("unit_id").map_elements(lambda u: texts[unit[u][0]][2].year, pl.Int64) == year
    )
    out = []
    for k, link in enumerate(
        random.Random(seed).sample(rows.rows(named=True), min(n, rows.height))
    ):
        a_sid, a_text = unit[link["unit_id"]]
        b_sid, b_text = unit[link["other_unit_id"]]
        print(f"\n=== link {k} {link['unit_id']} -> {link['other_unit_id']}")
        for sid, claim in ((a_sid, a_text), (b_sid, b_text)):
            title, body, published, who = texts[sid]
            print(f"- {published:%Y-%m-%d %H:%M} {who}: {title!r}\n  claim: {claim!r}")
            print(f"  text: {body[:400]!r}")
        print(f"  source named: {publisher_name(link['other_voice'])!r}")
        out.append(
            {
                "unit_id": link["unit_id"],
                "other_unit_id": link["other_unit_id"],
                "independent": None,
                "states_claim": None,
                "name_right": None,
                "note": "",
            }
        )
    return out


def judged_figures(judged: dict[str, Any]) -> dict[str, Any]:
    """Per sample of the judged file: the shares and their Wilson intervals."""
    out: dict[str, Any] = {}
    for name, sample in judged["samples"].items():
        rows = sample["rows"]
        if sample["kind"] == "pairs":
            out[name] = {"same_event": wilson(sum(r["same_event"] for r in rows), len(rows))}
        elif sample["kind"] == "stories":
            out[name] = {"one_event": wilson(sum(r["one_event"] for r in rows), len(rows))}
        elif sample["kind"] == "singletons":
            events = [r for r in rows if r["event"]]
            out[name] = {
                "event_singletons": len(events),
                "missed": wilson(sum(r["missed"] for r in events), len(events)),
            }
        else:
            out[name] = {
                key: wilson(sum(r[key] for r in rows), len(rows))
                for key in ("independent", "states_claim", "name_right")
            }
    print(json.dumps(out, indent=1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--before-out", type=Path, help="write the method's tables here")
    parser.add_argument("--before", type=Path, help="the method before's tables (stories)")
    parser.add_argument("--draw", choices=("pairs", "stories", "singletons", "links"))
    parser.add_argument("--which", choices=("before", "after"), default="after")
    parser.add_argument("--year", type=int, default=2024)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--out", type=Path, help="with --draw: the skeleton to fill in")
    parser.add_argument("--judged", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.before_out is not None:
        built = build(args.warehouse)
        for name, frame in built.items():
            frame.write_parquet(args.before_out.with_name(f"{args.before_out.stem}.{name}.parquet"))
        return
    if args.before is None:
        parser.error("--before: the method before's tables (from --before-out)")
    before = {
        name: pl.read_parquet(args.before.with_name(f"{args.before.stem}.{name}.parquet"))
        for name in ("stories", "links", "cpu")
    }
    after = build(args.warehouse)
    chosen = after if args.which == "after" else before
    if args.draw is not None:
        if args.out is None:
            parser.error("--draw needs --out")
        if args.draw == "pairs":
            rows = draw_pairs(args.warehouse, chosen["stories"], args.year, args.n, args.seed)
        elif args.draw == "stories":
            rows = draw_stories(args.warehouse, chosen["stories"], args.year, args.n, args.seed)
        elif args.draw == "singletons":
            rows = draw_singletons(args.warehouse, chosen["stories"], args.year, args.n, args.seed)
        else:
            rows = draw_links(args.warehouse, chosen["links"], args.year, args.n, args.seed)
        args.out.write_text(json.dumps(rows, indent=1))
        return
    report = {
        "before": mechanical(args.warehouse, before["stories"], before["links"], "before"),
        "after": mechanical(args.warehouse, after["stories"], after["links"], "after"),
        "cpu_s": {"before": before["cpu"]["cpu_s"][0], "after": after["cpu"]["cpu_s"][0]},
    }
    if args.judged is not None:
        report["judged"] = judged_figures(json.loads(args.judged.read_text()))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
