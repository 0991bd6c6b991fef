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
    numbers,
    numbers_agree,
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
    corpus.add("a", "Acme raised $40 billion.", author="alice", vector=_vector(1))
    corpus.add("b", "Acme raised $30 billion.", author="bob", vector=_vector(1, 0, 0.1))
    assert corpus.links().height == 0


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
