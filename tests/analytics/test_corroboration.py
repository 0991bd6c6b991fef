"""Corroboration (analytics.corroboration): which claims of other voices state the same fact,
counted by independent source, and which contest it. Small inline frames; the vectors are
built by hand (a direction per fact, a small tilt per wording), so each test says exactly how
similar its claims are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl

from analytics.corroboration import (
    CONTESTS,
    CORROBORATES,
    CorroborationParams,
    claim_inputs,
    claim_links,
    contest_cues,
    corroboration_objects,
    incompatible,
    numbers,
    numbers_agree,
    verbatim,
)
from analytics.embedding import EMBEDDING_DIM
from analytics.schema import SIGNALS, UNIT_EMBEDDINGS, UNIT_ENTITIES, UNITS

DAY = datetime(2025, 3, 3, 9, tzinfo=UTC)


def _vector(fact: int, tilt: int = 0, amount: float = 0.0) -> list[float]:
    """Unit length: mostly axis ``fact``, ``amount`` of axis ``100 + tilt``."""
    v = np.zeros(EMBEDDING_DIM, dtype=np.float32)
    v[fact] = 1.0
    v[100 + tilt] = amount
    return (v / np.linalg.norm(v)).tolist()


class Corpus:
    """Signals of one claim each (plus the thesis that makes them served)."""

    def __init__(self) -> None:
        self.signals: list[dict[str, object]] = []
        self.units: list[dict[str, object]] = []
        self.mentions: list[tuple[str, str]] = []
        self.vectors: list[tuple[str, list[float]]] = []

    def add(
        self,
        name: str,
        text: str,
        *,
        author: str,
        domain: str = "x.com",
        at: datetime = DAY,
        entities: tuple[str, ...] = ("ent:/acme",),
        vector: list[float],
    ) -> str:
        signal_id = f"s_{name}"
        self.signals.append(
            {
                "signal_id": signal_id,
                "title": name,
                "url": f"https://{domain}/{name}",
                "domain": domain,
                "published_at": at,
                "author": author,
                "content_type": "event",
            }
        )
        for position, (role, unit_text) in enumerate(
            (("synopsis", f"About {name}."), ("claim", text))
        ):
            self.units.append(
                {
                    "unit_id": f"u_{name}_{role}",
                    "signal_id": signal_id,
                    "position": position,
                    "role": role,
                    "text": unit_text,
                    "evidence": [{"text": f"evidence of {name}", "truncated": False}],
                }
            )
        unit_id = f"u_{name}_claim"
        self.mentions += [(unit_id, e) for e in entities]
        self.vectors.append((unit_id, vector))
        return unit_id

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        signals = pl.DataFrame(self.signals).with_columns(
            [pl.lit(None).alias(c) for c in SIGNALS.names() if c not in self.signals[0]]
        )
        units = pl.DataFrame(self.units).with_columns(
            [pl.lit(None).alias(c) for c in UNITS.names() if c not in self.units[0]]
        )
        return (
            signals.select(SIGNALS.names()).cast(SIGNALS),
            units.select(UNITS.names()).cast(UNITS),
            pl.DataFrame(self.mentions, schema=UNIT_ENTITIES, orient="row"),
            pl.DataFrame(self.vectors, schema=UNIT_EMBEDDINGS, orient="row"),
        )

    def links(self, params: CorroborationParams | None = None) -> pl.DataFrame:
        claims, vectors = claim_inputs(*self.frames(), DAY + timedelta(days=30))
        return claim_links(claims, vectors, params)


def _pairs(links: pl.DataFrame) -> set[tuple[str, str, str]]:
    return set(links.select("unit_id", "other_unit_id", "relation").iter_rows())


def test_a_reprint_of_a_corroborating_claim_is_listed_once_and_counted_once() -> None:
    corpus = Corpus()
    original = corpus.add(
        "a", "Acme released Rocket to all users.", author="alice", vector=_vector(1)
    )
    other = corpus.add(
        "b",
        "Acme has released Rocket for every user.",
        author="bob",
        vector=_vector(1, 0, 0.3),
    )
    # bob's text again, under another name and outlet, a day later: a reprint
    reprint = corpus.add(
        "c",
        "ACME has released “Rocket” for every   user.",
        author="carol",
        domain="news.example",
        at=DAY + timedelta(days=1),
        vector=_vector(1, 0, 0.3),
    )
    links = corpus.links()
    assert (original, other, CORROBORATES) in _pairs(links)
    assert (original, reprint, CORROBORATES) in _pairs(links)
    # a reprint restates its original: it does not corroborate it
    assert not links.filter(
        (pl.col("unit_id") == other) & (pl.col("other_unit_id") == reprint)
    ).height
    signals, units, _, _ = corpus.frames()
    objects = corroboration_objects(links, units, signals)
    mine = objects[original]
    assert mine["count"] == 1  # bob and his reprint: one independent source
    assert mine["sources"] == ["bob"]
    assert [c["unit_id"] for c in mine["claims"]] == [other]
    assert mine["claims"][0]["evidence"] == {"text": "evidence of b", "truncated": False}
    assert mine["contested"] == []


def test_two_independent_sources_count_two() -> None:
    corpus = Corpus()
    first = corpus.add("a", "Acme released Rocket.", author="alice", vector=_vector(1))
    corpus.add("b", "Acme shipped Rocket.", author="bob", vector=_vector(1, 0, 0.3))
    corpus.add(
        "c", "Rocket is out from Acme.", author="", domain="blog.example", vector=_vector(1, 1, 0.3)
    )
    signals, units, _, _ = corpus.frames()
    objects = corroboration_objects(corpus.links(), units, signals)
    assert objects[first]["count"] == 2
    assert objects[first]["sources"] == ["blog.example", "bob"]


def test_a_negated_claim_is_contested_with_both_snippets() -> None:
    corpus = Corpus()
    said = corpus.add("a", "Acme released Rocket to all users.", author="alice", vector=_vector(1))
    denied = corpus.add(
        "b", "Acme has not released Rocket to all users.", author="bob", vector=_vector(1, 0, 0.2)
    )
    links = corpus.links()
    assert _pairs(links) == {(said, denied, CONTESTS), (denied, said, CONTESTS)}
    assert links["cues"].to_list() == [["not"], ["not"]]
    signals, units, _, _ = corpus.frames()
    objects = corroboration_objects(links, units, signals)
    assert objects[said]["count"] == 0
    contested = objects[said]["contested"]
    assert [c["unit_id"] for c in contested] == [denied]
    # the other claim's snippet here; the unit's own is its evidence_preview
    assert contested[0]["evidence"] == {"text": "evidence of b", "truncated": False}
    assert contested[0]["cues"] == ["not"]
    assert objects[denied]["contested"][0]["evidence"]["text"] == "evidence of a"


def test_different_numbers_do_not_corroborate() -> None:
    corpus = Corpus()
    corpus.add("a", "Acme's 405B model tops the board.", author="alice", vector=_vector(1))
    corpus.add("b", "Acme's 8B model tops the board.", author="bob", vector=_vector(1, 0, 0.1))
    assert corpus.links().height == 0


def test_incompatible_amounts_shares_and_dates_between_independent_sources_contest() -> None:
    corpus = Corpus()
    forty = corpus.add("a", "Acme raised $40 billion.", author="alice", vector=_vector(1))
    thirty = corpus.add("b", "Acme raised $30B.", author="bob", vector=_vector(1, 0, 0.1))
    links = corpus.links()
    assert _pairs(links) == {(forty, thirty, CONTESTS), (thirty, forty, CONTESTS)}
    assert links["cues"].to_list() == [
        ["$40 billion vs $30 billion"],
        ["$30 billion vs $40 billion"],
    ]
    signals, units, _, _ = corpus.frames()
    objects = corroboration_objects(links, units, signals)
    assert objects[forty]["count"] == 0 and objects[forty]["contested"][0]["unit_id"] == thirty

    dates = Corpus()
    fifth = dates.add("a", "Acme ships Rocket on March 5.", author="alice", vector=_vector(2))
    seventh = dates.add(
        "b", "Acme ships Rocket on Mar 7th.", author="bob", vector=_vector(2, 0, 0.1)
    )
    assert _pairs(dates.links()) == {(fifth, seventh, CONTESTS), (seventh, fifth, CONTESTS)}

    shares = Corpus()
    shares.add("a", "Rocket scores 49% on SWE-bench.", author="alice", vector=_vector(3))
    shares.add(
        "b", "Rocket scores 45 percent on SWE-bench.", author="bob", vector=_vector(3, 0, 0.1)
    )
    assert set(shares.links()["relation"].to_list()) == {CONTESTS}


def test_the_same_figures_in_other_words_corroborate() -> None:
    corpus = Corpus()
    a = corpus.add("a", "Acme raised $40 billion in March.", author="alice", vector=_vector(1))
    b = corpus.add(
        "b", "In March Acme closed a $40B round.", author="bob", vector=_vector(1, 0, 0.1)
    )
    assert _pairs(corpus.links()) == {(a, b, CORROBORATES), (b, a, CORROBORATES)}


def test_a_roundup_and_the_posts_of_its_days_do_not_corroborate_each_other() -> None:
    corpus = Corpus()
    post = corpus.add("post", "Acme released Rocket.", author="alice", vector=_vector(1))
    # a digest of three unrelated items, the first restating the post, a few hours later
    digest = corpus.add(
        "digest",
        "Acme shipped Rocket to everyone.",
        author="AINews",
        domain="news.example",
        at=DAY + timedelta(hours=5),
        vector=_vector(1, 0, 0.3),
    )
    signals, units, mentions, vectors = corpus.frames()
    extra = pl.DataFrame(
        {
            "unit_id": ["u_digest_x", "u_digest_y"],
            "signal_id": ["s_digest"] * 2,
            "position": [2, 3],
            "role": ["claim"] * 2,
            "text": ["Bolt hires a chief scientist.", "Rain in the valley."],
        }
    )
    units = pl.concat([units, extra], how="diagonal_relaxed").cast(UNITS)
    # the digest's units laid end to end on its text: three items far apart in meaning
    units = units.with_columns(
        pl.when(pl.col("signal_id") == "s_digest")
        .then(pl.col("position") * 40)
        .otherwise(None)
        .alias("start_char"),
        pl.when(pl.col("signal_id") == "s_digest")
        .then(pl.col("position") * 40 + 30)
        .otherwise(None)
        .alias("end_char"),
    ).filter(~((pl.col("signal_id") == "s_digest") & (pl.col("role") == "synopsis")))
    more = pl.DataFrame(
        [("u_digest_x", _vector(7)), ("u_digest_y", _vector(8))],
        schema=UNIT_EMBEDDINGS,
        orient="row",
    )
    vectors = pl.concat([vectors, more])
    # each item of the digest names a player of its own
    mentions = pl.concat(
        [
            mentions,
            pl.DataFrame(
                [("u_digest_x", "ent:/bolt"), ("u_digest_y", "ent:/valley")],
                schema=UNIT_ENTITIES,
                orient="row",
            ),
        ]
    )
    summary = pl.DataFrame(
        [
            {
                "unit_id": "u_digest_synopsis",
                "signal_id": "s_digest",
                "position": 0,
                "role": "synopsis",
                "text": "Three items.",
            }
        ]
    )
    units = pl.concat([units, summary], how="diagonal_relaxed").cast(UNITS)
    claims, claim_vectors = claim_inputs(signals, units, mentions, vectors, DAY + timedelta(days=9))
    assert claims.filter(pl.col("unit_id") == digest)["roundup"].to_list() == [True]
    assert claim_links(claims, claim_vectors).height == 0
    # the same digest a week later is no longer of the post's days: independent
    later = signals.with_columns(
        pl.when(pl.col("signal_id") == "s_digest")
        .then(pl.lit(DAY + timedelta(days=3)))
        .otherwise(pl.col("published_at"))
        .alias("published_at")
    )
    claims, claim_vectors = claim_inputs(later, units, mentions, vectors, DAY + timedelta(days=9))
    assert _pairs(claim_links(claims, claim_vectors)) == {
        (post, digest, CORROBORATES),
        (digest, post, CORROBORATES),
    }


def test_near_verbatim_text_and_shared_links_are_derivation() -> None:
    corpus = Corpus()
    corpus.add(
        "a", "Acme released Rocket to all of its users today.", author="alice", vector=_vector(1)
    )
    corpus.add(
        "b",
        "Acme released Rocket to all of its users today, they say.",
        author="bob",
        vector=_vector(1, 0, 0.1),
    )
    assert corpus.links().height == 0
    linked = Corpus()
    linked.add("a", "Acme released Rocket.", author="alice", vector=_vector(1))
    linked.add("b", "Acme shipped Rocket.", author="bob", vector=_vector(1, 0, 0.3))
    signals, units, mentions, vectors = linked.frames()
    # bob's post cites alice's
    signals = signals.with_columns(
        pl.when(pl.col("signal_id") == "s_b")
        .then(pl.lit("Via https://www.x.com/a/ — big news"))
        .otherwise(pl.col("text"))
        .alias("text")
    )
    claims, claim_vectors = claim_inputs(signals, units, mentions, vectors, DAY + timedelta(days=9))
    assert claim_links(claims, claim_vectors).height == 0
    assert verbatim("one two three four five", "one two three four five six")
    assert not verbatim("one two three four", "five six seven eight")


def test_sources_are_named_by_publisher_never_by_link_text() -> None:
    corpus = Corpus()
    first = corpus.add("a", "Acme released Rocket.", author="alice", vector=_vector(1))
    corpus.add(
        "b",
        "Acme shipped Rocket.",
        author="see the thread here: acme.com/rocket, and replies",
        domain="www.blog.example",
        vector=_vector(1, 0, 0.3),
    )
    signals, units, _, _ = corpus.frames()
    objects = corroboration_objects(corpus.links(), units, signals)
    assert objects[first]["sources"] == ["blog.example"]


def test_no_link_across_voices_entities_time_or_similarity_bars() -> None:
    corpus = Corpus()
    corpus.add("a", "Acme released Rocket.", author="alice", vector=_vector(1))
    # the same voice again
    corpus.add("b", "Acme shipped Rocket.", author="Alice ", vector=_vector(1, 0, 0.3))
    # other entities
    corpus.add(
        "c",
        "Acme and Bolt released Rocket.",
        author="carl",
        entities=("ent:/acme", "ent:/bolt"),
        vector=_vector(1, 1, 0.3),
    )
    # eight days later
    corpus.add(
        "d",
        "Acme released Rocket.",
        author="dora",
        at=DAY + timedelta(days=8),
        vector=_vector(1, 2, 0.3),
    )
    # another fact about the same entity
    corpus.add("e", "Acme hired a chief scientist.", author="erin", vector=_vector(2))
    assert corpus.links().height == 0
    # within the window the late claim links, and a looser window links it to the first
    wide = corpus.links(CorroborationParams(window_days=10))
    assert wide.height == 2


def test_numbers_and_cues() -> None:
    assert numbers("GPT-4 and V3 in FP8 on o1") == frozenset()
    assert numbers("1,000,000 models, 49% on 3.5") == frozenset({"1000000", "49", "3.5"})
    assert numbers_agree("set a record on SWE-bench", "scored 49% against 45%")
    assert not numbers_agree("the 405B model", "the 8B model")
    assert incompatible("raised $6.6B at 40%", "raised $6.6 billion at 45%") == ["40% vs 45%"]
    # a rounding, or a range holding the other figure, is no contradiction
    assert incompatible("Musk offers $97.4B for OpenAI", "Musk bids $97 billion for OpenAI") == []
    assert incompatible("a valuation of $30-40 billion", "a valuation up to $40 billion") == []
    assert incompatible("33-50% lower prices", "100% reliable outputs") == []
    # other numbers differ too: about different things, nothing said
    assert incompatible("$5M for 3 chips", "$7M for 9 chips") == []
    assert incompatible("the 405B model", "the 8B model") == []
    # extra clauses of the longer claim reverse nothing the shorter one says
    elaborated = "Acme made mistakes on a riddle, failing to see that shoes are not fruit."
    assert contest_cues("Acme made mistakes on a riddle.", elaborated) == []
    # a denial adds a word or two: read from the longer claim as well
    assert contest_cues("Acme shipped Rocket.", "Acme has not shipped Rocket.") == ["not"]
    # a word whose opposite the shorter claim uses too is no reversal
    assert (
        contest_cues("An open model beats proprietary ones.", "An open model was released.") == []
    )
    assert contest_cues("Rocket is faster.", "Rocket is slower than before.") == [
        "faster",
        "slower",
    ]
