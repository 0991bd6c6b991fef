"""Corroboration (docs/design.md §7, issues 31 and 45): for each claim unit, the claims of other,
independent publishers that state the same fact, counted by publisher, and the claims that
contradict it.

Two claim units of different publishers (``analytics.stories.publisher_key``: author, else
domain) and different copy groups (``analytics.copies``: a reprint restates, it does not
corroborate) are *linked* when

1. they name the same entities: the same non-empty set of unit-level entity mentions;
2. they were published at most ``window_days`` apart;
3. their MiniLM vectors (the build's unit vectors) have cosine at least ``similarity``;
4. their numbers agree: one claim's standalone numbers are all among the other's ("49 %" and
   "a record" agree, "405B" and "8B" do not) — or they state one amount, share or date each
   for the same thing and the two differ (below: that contests).

and neither *derives* from the other (issue 45): a digest (``analytics.roundups``: at least
three items naming players of their own, found from its text, ``DIGEST_PARAMS``) summarises the
posts of its days, so a digest's claim and any claim published within ``DERIVED_DAYS`` of it are
not independent; near-verbatim text
(``verbatim``) or a shared link (the same source URL, or one citing the other's) is derivation
too.

A linked pair *contests* when the verifier's reversal cues (``analytics.polarity``) find one
claim reversing the other — a negation the other lacks, or the opposite of one of its words —
or when the two state incompatible figures: a different amount of money, a different share, or
a different calendar date for the same thing (``incompatible``); it *corroborates* otherwise.
The cues are read from the shorter claim, and from the longer one only when it adds at most
three words (a denial: "has not"): a longer claim's extra clauses carry negations of their own
("failing to see that shoes are not fruit") that reverse nothing the shorter one says.

Scaling: pairs are only formed inside a block (one entity set, one ``window_days`` bucket and
its neighbours), never over all units; the thresholds were chosen on AINews 2024 and judged on
both years in docs/quality.md ("Corroboration").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import polars as pl

from analytics.copies import copy_of
from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from analytics.polarity import OPPOSITES, reversal_cues, words
from analytics.render import served_signals
from analytics.roundups import RoundupParams, roundup_items
from analytics.schema import CLAIM_LINKS
from analytics.stories import publisher_key, publisher_name

# The unit roles that state something a reader could check elsewhere: arguments are reasoning
# steps and are left out.
CLAIM_ROLES = ("thesis", "synopsis", "claim")
CORROBORATES = "corroborates"
CONTESTS = "contests"
# claims listed per unit in the served object (the count covers all)
MAX_LISTED = 5
# candidate pairs scored per numpy batch: bounds the gathered vectors' memory
_BATCH = 200_000

# at most this many more words, and the longer claim's cues are read too (``contest_cues``)
_DENIAL_WORDS = 3
# A number standing on its own: not the digits of a name ("GPT-4", "V3", "o1", "FP8").
_NUMBER = re.compile(r"(?<![\w.\-])\d+(?:[.,]\d+)*")
# a roundup's claims and the claims published this many days either side derive from one another
DERIVED_DAYS = 1
# a digest, for derivation: a signal of at least three items, most of them naming a player of
# their own, however close in meaning (stories split only the broad ones, ``RoundupParams``; a
# digest of one day's news about a few related launches summarises its sources all the same)
DIGEST_PARAMS = RoundupParams(breadth=1.0)
# two claims sharing at least this share of the shorter one's word trigrams are one text
VERBATIM = 0.6
# amounts and shares a claim states: "$6.6 billion", "$40B", "49%", "49 percent"
_MONEY = re.compile(
    r"\$\s?(\d+(?:[.,]\d+)*)\s?(billion|million|thousand|trillion|bn|[bmkt])?\b", re.IGNORECASE
)
_SHARE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.IGNORECASE)
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_DATE = re.compile(
    r"\b(" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
_MONTH_INDEX = {m[:3]: i for i, m in enumerate(_MONTHS)}
# two numbers joined as a range: "30-40", "$30 to $40", "33–50%"
_RANGE = re.compile(r"\d\s?(?:-|–|to)\s?\$?\d")
# amounts and shares within this share of the larger one agree (a rounding: $97.4B, $97B)
FIGURE_TOLERANCE = 0.05
_URL = re.compile(r"https?://[^\s)\]>\"']+")


@dataclass(frozen=True)
class CorroborationParams:
    """The method's two parameters (docs/quality.md, "Corroboration": chosen on AINews 2024)."""

    # cosine of the two claims' MiniLM vectors
    similarity: float = 0.8
    # at most this many days between the two claims
    window_days: int = 7


def numbers(text: str) -> frozenset[str]:
    """The standalone numbers of ``text``, thousands separators removed ("1,000" → "1000")."""
    return frozenset(
        match.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", match) else match
        for match in _NUMBER.findall(text)
    )


def numbers_agree(a: str, b: str) -> bool:
    """Whether one text's standalone numbers are all among the other's."""
    mine, theirs = numbers(a), numbers(b)
    return mine <= theirs or theirs <= mine


def _amounts(text: str) -> dict[str, dict[str, float]]:
    """The amounts of money and shares ``text`` states (shown form → value) and its dates (shown
    form → day of the year, roughly), by kind. A kind stated as a range ("$30-40 billion",
    "33-50%") is left out: a range agrees with a figure inside it."""
    scale = {"bn": "billion", "b": "billion", "m": "million", "k": "thousand", "t": "trillion"}
    factor = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
    money: dict[str, float] = {}
    for value, unit in _MONEY.findall(text):
        word = scale.get(unit.lower(), unit.lower())
        number = float(value.replace(",", ""))
        money[f"${value.replace(',', '')} {word}".strip()] = number * factor[word]
    shares = {f"{value}%": float(value) for value in _SHARE.findall(text)}
    dates = {
        f"{month[:3].title()} {int(day)}": 31.0 * _MONTH_INDEX[month[:3].lower()] + int(day)
        for month, day in _DATE.findall(text)
    }
    ranged = _RANGE.search(text) is not None
    return {
        "money": {} if ranged else money,
        "share": {} if ranged else shares,
        "date": dates,
    }


def incompatible(a: str, b: str) -> list[str]:
    """The figures two claims about one thing state differently: for each kind (money, share,
    date) of which each claim states exactly one, and the two differ (amounts and shares by
    more than ``FIGURE_TOLERANCE`` of the larger: "$97.4B" and "$97 billion" agree), a cue
    "X vs Y". The other numbers of the two must agree (one's all among the other's), or they
    are about different things and nothing is said."""
    mine, theirs = _amounts(a), _amounts(b)
    cues = []
    for kind in ("money", "share", "date"):
        if len(mine[kind]) != 1 or len(theirs[kind]) != 1:
            continue
        (shown_a, x), (shown_b, y) = (
            next(iter(mine[kind].items())),
            next(iter(theirs[kind].items())),
        )
        tolerance = 0.0 if kind == "date" else FIGURE_TOLERANCE * max(abs(x), abs(y))
        if abs(x - y) > tolerance:
            cues.append(f"{shown_a} vs {shown_b}")
    if not cues:
        return []
    stated = {n for kind in mine.values() for x in kind for n in numbers(x)}
    stated |= {n for kind in theirs.values() for x in kind for n in numbers(x)}
    rest_a, rest_b = numbers(a) - stated, numbers(b) - stated
    return cues if rest_a <= rest_b or rest_b <= rest_a else []


def _trigrams(text: str) -> set[tuple[str, ...]]:
    w = re.findall(r"\w+", text.lower())
    return {tuple(w[i : i + 3]) for i in range(max(len(w) - 2, 1))}


def verbatim(a: str, b: str) -> bool:
    """Whether two texts are near-verbatim: they share at least ``VERBATIM`` of the shorter
    one's word trigrams."""
    ta, tb = _trigrams(a), _trigrams(b)
    return bool(ta and tb) and len(ta & tb) >= VERBATIM * min(len(ta), len(tb))


def link_key(url: str | None) -> str:
    """A URL as compared for a shared link: no scheme, ``www.``, query, fragment or trailing
    slash, lower case."""
    if not url:
        return ""
    bare = re.sub(r"^https?://(www\.)?", "", url.strip().lower())
    return re.split(r"[?#]", bare, maxsplit=1)[0].rstrip("/")


def contest_cues(a: str, b: str) -> list[str]:
    """The reversal cues between two claims (``analytics.polarity.reversal_cues``), read from
    the shorter one against the longer, and from the longer one too when it is at most
    ``_DENIAL_WORDS`` words longer: a denial adds a word or two ("has not"), an elaboration adds
    clauses whose negations reverse nothing ("failing to see that shoes are not fruit")."""
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    found = _unopposed(shorter, longer)
    if len(longer.split()) - len(shorter.split()) <= _DENIAL_WORDS:
        found += [cue for cue in _unopposed(longer, shorter) if cue not in found]
    return found


def _unopposed(text: str, other: str) -> list[str]:
    mine = words(text)
    # a word whose opposite the same claim uses as well reverses nothing ("an open model
    # outperforming proprietary systems" against "an open model")
    both = {w for one, two in OPPOSITES if mine & one and mine & two for w in mine & (one | two)}
    return [cue for cue in reversal_cues(text, other) if cue not in both]


def claim_inputs(
    signals: pl.DataFrame,
    units: pl.DataFrame,
    unit_entities: pl.DataFrame,
    unit_embeddings: pl.DataFrame,
    as_of: datetime,
) -> tuple[pl.DataFrame, FloatMatrix]:
    """The claims corroboration compares and their vectors, row-aligned: the claim units
    (``CLAIM_ROLES``) of the served signals published up to ``as_of`` that mention at least one
    entity, with ``signal_id``, ``text``, ``published_at``, ``voice`` (the publisher),
    ``copy_of``, ``entity_key`` (the sorted entity ids, joined), ``roundup`` (whether the
    signal is a digest, ``DIGEST_PARAMS``), ``link`` (its URL, ``link_key``) and
    ``cites`` (the URLs its text cites)."""
    served = served_signals(signals, units).filter(pl.col("published_at") <= as_of)
    keys = unit_entities.group_by("unit_id").agg(
        pl.col("entity_id").unique().sort().str.join("|").alias("entity_key")
    )
    vectors_by_unit = dict(
        zip(
            unit_embeddings["unit_id"].to_list(),
            unit_embeddings["vector"].to_numpy().astype(np.float32).reshape(-1, EMBEDDING_DIM),
            strict=True,
        )
    )
    roundups = {
        i.signal_id
        for i in roundup_items(served, units, vectors_by_unit, unit_entities, DIGEST_PARAMS)
    }
    texts = served["text"].fill_null("").to_list()
    signal_side = served.select(
        "signal_id",
        "published_at",
        publisher_key().alias("voice"),
        pl.col("signal_id").is_in(sorted(roundups)).alias("roundup"),
        pl.Series("link", [link_key(u) for u in served["url"].to_list()], dtype=pl.String),
        pl.Series(
            "cites",
            [sorted({link_key(u) for u in _URL.findall(t)}) for t in texts],
            dtype=pl.List(pl.String),
        ),
    )
    claims = (
        units.filter(pl.col("role").is_in(CLAIM_ROLES))
        .select("unit_id", "signal_id", "text")
        .join(signal_side, on="signal_id")
        .join(keys, on="unit_id")
        .join(unit_embeddings.select("unit_id", "vector"), on="unit_id")
        .sort("published_at", "unit_id")
    )
    claims = claims.with_columns(copy_of(claims))
    vectors = claims["vector"].to_numpy().astype(np.float32).reshape(-1, EMBEDDING_DIM)
    return claims.drop("vector"), vectors


def _candidate_pairs(claims: pl.DataFrame, params: CorroborationParams) -> pl.DataFrame:
    """(``row``, ``row_b``) of claims in one block (entity set, time bucket and its neighbours)
    of different publishers and copy groups, at most ``window_days`` apart, neither a roundup's
    claim within ``DERIVED_DAYS`` of the other."""
    bucket_days = max(params.window_days, 1)
    rows = claims.select(
        pl.int_range(pl.len()).alias("row"),
        "entity_key",
        "voice",
        "copy_of",
        "published_at",
        "roundup",
        (pl.col("published_at").dt.epoch("d") // bucket_days).alias("bucket"),
    )
    # each row meets the rows of its own bucket and both neighbours: every pair at most
    # window_days apart shares a block, and no pair from farther buckets is formed
    other = rows.with_columns(
        pl.concat_list(pl.col("bucket") - 1, pl.col("bucket"), pl.col("bucket") + 1)
    ).explode("bucket")
    apart = (pl.col("published_at") - pl.col("published_at_b")).abs()
    derived = (pl.col("roundup") | pl.col("roundup_b")) & (apart <= pl.duration(days=DERIVED_DAYS))
    return (
        rows.join(other, on=["entity_key", "bucket"], suffix="_b")
        .filter(
            (pl.col("row") != pl.col("row_b"))
            & (pl.col("voice") != pl.col("voice_b"))
            & (pl.col("copy_of") != pl.col("copy_of_b"))
            & (apart <= pl.duration(days=params.window_days))
            & ~derived
        )
        .select("row", "row_b")
    )


def _linked(
    claims: pl.DataFrame, vectors: FloatMatrix, pairs: pl.DataFrame, params: CorroborationParams
) -> list[tuple[int, int, float, list[str]]]:
    """The candidate pairs that link: similar enough, not derived (a shared link; for a pair that
    would corroborate, near-verbatim text), with numbers that agree (cues: the reversal cues) or
    figures that differ (cues: the figures)."""
    left = pairs["row"].to_numpy()
    right = pairs["row_b"].to_numpy()
    similarity = np.empty(len(left), dtype=np.float32)
    for start in range(0, len(left), _BATCH):
        stop = start + _BATCH
        similarity[start:stop] = np.einsum(
            "ij,ij->i", vectors[left[start:stop]], vectors[right[start:stop]]
        )
    keep = similarity >= params.similarity
    texts = claims["text"].to_list()
    links = claims["link"].to_list()
    cites = claims["cites"].to_list()
    found: list[tuple[int, int, float, list[str]]] = []
    for a, b, score in zip(left[keep], right[keep], similarity[keep], strict=True):
        x, y = int(a), int(b)
        if (links[x] and links[x] == links[y]) or links[y] in cites[x] or links[x] in cites[y]:
            continue
        if numbers_agree(texts[x], texts[y]):
            cues = contest_cues(texts[x], texts[y])
        elif not (cues := incompatible(texts[x], texts[y])):
            continue
        # a near-verbatim restatement is a copy, not a second voice; a near-verbatim denial
        # ("has not released") still contests
        if cues or not verbatim(texts[x], texts[y]):
            found.append((x, y, float(score), cues))
    return found


def claim_links(
    claims: pl.DataFrame, vectors: FloatMatrix, params: CorroborationParams | None = None
) -> pl.DataFrame:
    """The links between ``claims`` (``claim_inputs``), both directions (``CLAIM_LINKS``).

    ``counted`` marks the links a unit's count is made of: per copy group of the other side,
    its earliest member (a reprint of a corroborating claim is listed once, not counted twice).
    """
    params = params or CorroborationParams()
    if claims.height < 2:
        return pl.DataFrame(schema=CLAIM_LINKS)
    found = _linked(claims, vectors, _candidate_pairs(claims, params), params)
    ids = claims["unit_id"].to_list()
    signal_ids = claims["signal_id"].to_list()
    links = pl.DataFrame(
        {
            "unit_id": [ids[a] for a, _, _, _ in found],
            "other_unit_id": [ids[b] for _, b, _, _ in found],
            "other_signal_id": [signal_ids[b] for _, b, _, _ in found],
            "relation": [CONTESTS if cues else CORROBORATES for _, _, _, cues in found],
            "similarity": [score for _, _, score, _ in found],
            "cues": [cues for _, _, _, cues in found],
            "_b": [b for _, b, _, _ in found],
        },
        schema={
            "unit_id": pl.String,
            "other_unit_id": pl.String,
            "other_signal_id": pl.String,
            "relation": pl.String,
            "similarity": pl.Float32,
            "cues": pl.List(pl.String),
            "_b": pl.Int64,
        },
    )
    side = claims.select(
        pl.int_range(pl.len()).alias("_b"),
        pl.col("voice").alias("other_voice"),
        pl.col("copy_of").alias("_copy"),
        pl.col("published_at").alias("_at"),
    )
    links = links.join(side, on="_b", how="left")
    first = pl.struct("_at", "other_unit_id").rank("ordinal").over("unit_id", "relation", "_copy")
    return (
        links.with_columns((first == 1).alias("counted"))
        .select(CLAIM_LINKS.names())
        .cast(CLAIM_LINKS)
        .sort(
            "unit_id",
            "relation",
            "similarity",
            "other_unit_id",
            descending=[False, False, True, False],
        )
    )


def corroboration_objects(
    links: pl.DataFrame, units: pl.DataFrame, signals: pl.DataFrame
) -> dict[str, dict[str, Any]]:
    """Per unit with at least one link, its ``corroboration`` object as served (docs/api.md
    §2.1): ``count`` (independent sources that state the same fact), ``sources`` (their names),
    ``claims`` and ``contested`` (at most ``MAX_LISTED`` each, most similar first: the other
    claim's unit and signal ids, domain, text and first evidence snippet; a contested one also
    its ``cues``). ``units``: (``unit_id``, ``text``, ``evidence``); ``signals``:
    (``signal_id``, ``domain``)."""
    if links.height == 0:
        return {}
    other = units.select(
        pl.col("unit_id").alias("other_unit_id"),
        pl.col("text").alias("other_text"),
        pl.col("evidence").list.first().alias("other_evidence"),
    )
    domains = signals.select(pl.col("signal_id").alias("other_signal_id"), "domain")
    rows = (
        links.join(other, on="other_unit_id", how="left")
        .join(domains, on="other_signal_id", how="left")
        .sort("unit_id", "similarity", "other_unit_id", descending=[False, True, False])
    )
    out: dict[str, dict[str, Any]] = {}
    voices: dict[str, set[str]] = {}
    for row in rows.iter_rows(named=True):
        obj = out.setdefault(
            row["unit_id"], {"count": 0, "sources": [], "claims": [], "contested": []}
        )
        heard = voices.setdefault(row["unit_id"], set())
        item: dict[str, Any] = {
            "unit_id": row["other_unit_id"],
            "signal_id": row["other_signal_id"],
            "domain": row["domain"],
            "text": row["other_text"],
        }
        snippet: Mapping[str, Any] | None = row["other_evidence"]
        if snippet is not None:
            item["evidence"] = {"text": snippet["text"], "truncated": snippet["truncated"]}
        if row["relation"] == CONTESTS:
            if len(obj["contested"]) < MAX_LISTED:
                obj["contested"].append({**item, "cues": list(row["cues"])})
            continue
        if not row["counted"]:
            continue
        if row["other_voice"] not in heard:
            heard.add(row["other_voice"])
            obj["sources"].append(publisher_name(row["other_voice"]))
        if len(obj["claims"]) < MAX_LISTED:
            obj["claims"].append(item)
    for unit_id, obj in out.items():
        obj["count"] = len(voices[unit_id])
        obj["sources"] = sorted(obj["sources"])
    return out
