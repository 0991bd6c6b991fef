"""Theme labels, their lookup and multi-label tagging with the real MiniLM encoder and the real
taxonomy file (its loader's checks are in tests/warehouse/test_themes.py)."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from analytics.embedding import Embedder
from analytics.themes import (
    AXES,
    SHORTHANDS,
    THEME_LABELS,
    THEME_TAGS,
    KeywordIndex,
    TaggingParams,
    Theme,
    ThemeScores,
    ThemeTaxonomy,
    UnknownTheme,
    first_chars,
    keyword_evidence,
    labels_from_scores,
    resolve_theme,
    tag_themes,
)
from warehouse.paths import DataDir
from warehouse.themes import load_theme_taxonomy

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"
CANONICAL = {
    "value_chain": (
        "Semiconductors & Hardware",
        "Infrastructure",
        "Data",
        "Foundation Models",
        "Tooling & Platforms",
        "Applications",
    ),
    "market_force": (
        "Competitive Dynamics",
        "Capital & Investment",
        "Regulatory & Legal",
        "Talent & Labor",
        "Technology & Scientific Innovation",
        "Adoption & Demand",
    ),
}
ALL_LABELS = {label for labels in CANONICAL.values() for label in labels}


@pytest.fixture(scope="module")
def taxonomy() -> ThemeTaxonomy:
    return load_theme_taxonomy()


def _signals(*items: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "signal_id": [f"s{i}" for i in range(len(items))],
            "title": [title for title, _ in items],
            "text": [text for _, text in items],
        }
    )


# --- the labels ---------------------------------------------------------------------------------


def test_exactly_the_twelve_canonical_labels_in_canonical_order(taxonomy: ThemeTaxonomy) -> None:
    assert THEME_LABELS == CANONICAL
    themes = taxonomy.themes
    assert len(themes) == 12
    assert [t.axis for t in themes] == ["value_chain"] * 6 + ["market_force"] * 6
    assert [t.label for t in themes] == [*CANONICAL["value_chain"], *CANONICAL["market_force"]]
    assert all(t.description and t.keywords for t in themes)


def test_labels_are_spelled_as_in_design() -> None:
    section = DESIGN.read_text(encoding="utf-8").split("## 6.", 1)[1].split("## 7.", 1)[0]
    for axis, labels in CANONICAL.items():
        line = re.search(rf"`{axis}`:(.+?)(?=\n  - |\n  Shorthands)", section, re.S)
        assert line is not None
        assert tuple(x.strip() for x in " ".join(line.group(1).split()).split("·")) == labels


def test_every_keyword_pattern_compiles_and_no_label_leaks(taxonomy: ThemeTaxonomy) -> None:
    for theme in taxonomy.themes:
        for pattern, weight in theme.keywords:
            re.compile(pattern)
            assert 0 < weight <= 1
    assert set(SHORTHANDS.values()) <= ALL_LABELS


# --- lookup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Capital & Investment", ("market_force", "Capital & Investment")),
        ("capital & investment", ("market_force", "Capital & Investment")),
        ("REGULATORY & LEGAL", ("market_force", "Regulatory & Legal")),
        ("foundation models", ("value_chain", "Foundation Models")),
        ("Data", ("value_chain", "Data")),
    ],
)
def test_resolve_is_case_insensitive_on_canonical_labels(
    given: str, expected: tuple[str, str]
) -> None:
    assert resolve_theme(given) == expected


@pytest.mark.parametrize(
    ("shorthand", "canonical"),
    [
        ("C&I", "Capital & Investment"),
        ("R&L", "Regulatory & Legal"),
        ("T&L", "Talent & Labor"),
        ("T&SI", "Technology & Scientific Innovation"),
        ("FM", "Foundation Models"),
        ("c&i", "Capital & Investment"),
    ],
)
def test_shorthands_are_unknown_and_the_message_names_the_canonical_label(
    shorthand: str, canonical: str
) -> None:
    with pytest.raises(UnknownTheme) as caught:
        resolve_theme(shorthand)
    assert caught.value.suggestion == canonical
    assert caught.value.message == f"unknown theme {shorthand!r}; did you mean {canonical!r}?"
    assert str(caught.value) == caught.value.message


def test_the_documented_example_message() -> None:
    with pytest.raises(UnknownTheme, match=r"^unknown theme 'C&I'; did you mean 'Capital & "):
        resolve_theme("C&I")


@pytest.mark.parametrize(
    ("near_miss", "canonical"),
    [
        ("Regulatory and Legal", "Regulatory & Legal"),
        ("Talent & Labour", "Talent & Labor"),
        ("Foundation Model", "Foundation Models"),
        ("Semiconductors", "Semiconductors & Hardware"),
        (" Infrastructure", "Infrastructure"),
    ],
)
def test_near_misses_are_unknown_but_suggest_the_label(near_miss: str, canonical: str) -> None:
    with pytest.raises(UnknownTheme) as caught:
        resolve_theme(near_miss)
    assert caught.value.suggestion == canonical


def test_unrelated_label_lists_the_themes() -> None:
    with pytest.raises(UnknownTheme) as caught:
        resolve_theme("Quantum Gardening")
    assert caught.value.suggestion is None
    assert "Capital & Investment" in caught.value.message


def test_resolve_with_axis_names_axis_and_label() -> None:
    assert resolve_theme("data", axis="value_chain") == ("value_chain", "Data")
    with pytest.raises(UnknownTheme) as wrong_axis:
        resolve_theme("Data", axis="market_force")
    assert wrong_axis.value.message.startswith("unknown theme 'market_force/Data'")
    assert "'value_chain/Data'" in wrong_axis.value.message
    with pytest.raises(UnknownTheme, match=r"'market_force/C&I'.*'market_force/Capital & Inv"):
        resolve_theme("C&I", axis="market_force")


# --- keyword evidence ---------------------------------------------------------------------------


def test_keyword_evidence_counts_distinct_terms_per_label(taxonomy: ThemeTaxonomy) -> None:
    labels = [t.label for t in taxonomy.themes]
    evidence = keyword_evidence(
        "Lawsuit after lawsuit: the court fined the lab under the AI Act.", taxonomy
    )
    # "lawsuit" twice counts once; court, fined, AI Act are further strong terms
    assert evidence[labels.index("Regulatory & Legal")] >= 4.0
    assert evidence[labels.index("Capital & Investment")] == 0
    # whole words only: "grid" must not fire inside "gridlock"
    assert keyword_evidence("gridlock", taxonomy)[labels.index("Infrastructure")] == 0


SMALL = ThemeTaxonomy(
    (
        Theme(
            "value_chain",
            "Infrastructure",
            ("Data centers and power.",),
            (("data ?cent(?:er|re)s?", 1.0), ("grid", 0.6)),
        ),
        Theme("value_chain", "Data", ("Training data.",), (("data", 1.0), ("grid", 0.3))),
        Theme("market_force", "Regulatory & Legal", ("Courts.",), (("lawsuits?", 1.0),)),
    )
)


def test_keyword_evidence_on_a_small_taxonomy() -> None:
    # the phrase wins over the word it starts with; a term two labels share counts for both
    assert keyword_evidence("A new data centre on the grid", SMALL).tolist() == pytest.approx(
        [1.6, 0.3, 0.0]
    )
    assert keyword_evidence("Data, data and more data-driven data", SMALL).tolist() == [
        0.0,
        1.0,
        0.0,
    ]
    assert keyword_evidence("Lawsuits over gridlock", SMALL).tolist() == [0.0, 0.0, 1.0]
    assert SMALL.keyword_index is SMALL.keyword_index  # compiled once per taxonomy


def test_labels_from_scores_follow_the_taxonomy() -> None:
    scores = ThemeScores(
        ("a", "b"),
        similarity=np.array([[0.30, 0.33, 0.1], [0.5, 0.2, 0.2]]),
        evidence=np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 3.0]]),
    )
    tags = labels_from_scores(scores, SMALL, TaggingParams(threshold=0.35, margin=0.08))
    assert tags.rows() == [
        ("a", ["Infrastructure"], []),
        ("b", ["Infrastructure"], ["Regulatory & Legal"]),
    ]


# --- tagging with the real encoder -------------------------------------------------------------

GOLDEN = [
    (
        "Mistral raises €1.7 billion Series C led by ASML at an €11.7 billion valuation",
        "The French start-up said the funding round was led by ASML, with existing investors "
        "Andreessen Horowitz and Lightspeed also participating.",
        "market_force",
        "Capital & Investment",
    ),
    (
        "EU regulators open first enforcement action under the AI Act",
        "The European Commission said it had opened proceedings against a general-purpose "
        "model provider for failing to meet its transparency obligations under the AI Act, "
        "which could lead to fines of up to 3% of global turnover.",
        "market_force",
        "Regulatory & Legal",
    ),
    (
        "SK Hynix sells out 2026 HBM supply as Nvidia GPU demand soars",
        "The memory maker said its high-bandwidth memory for next year is fully booked, with "
        "HBM3E stacks going into Nvidia's Blackwell GPUs, and that TSMC packaging capacity "
        "remains the bottleneck.",
        "value_chain",
        "Semiconductors & Hardware",
    ),
    (
        "Utilities struggle to power the AI data-center boom",
        "Grid operators in Virginia and Texas say requests from data centers now exceed 40 "
        "gigawatts, and some campuses will wait years for electricity connections.",
        "value_chain",
        "Infrastructure",
    ),
    (
        "Anthropic releases Claude Opus 4.5 with stronger coding and reasoning",
        "The new frontier model tops several agentic coding benchmarks and is available "
        "through the API and in the Claude apps.",
        "value_chain",
        "Foundation Models",
    ),
    (
        "Tech firm lays off 1,200 staff while hiring AI researchers",
        "The company is cutting jobs in sales and support and hiring machine-learning "
        "engineers, as it shifts its workforce towards AI.",
        "market_force",
        "Talent & Labor",
    ),
    (
        "Reddit signs data licensing deal for AI training",
        "The agreement gives the lab access to Reddit's posts as training data, and the "
        "company says it will not allow unlicensed scraping of its corpus.",
        "value_chain",
        "Data",
    ),
    (
        "LangChain ships a new SDK for building agents",
        "The open-source framework adds a developer toolkit for orchestration, evaluation and "
        "observability of agents, with integrations for major model APIs.",
        "value_chain",
        "Tooling & Platforms",
    ),
    (
        "Hospitals roll out AI scribe to thousands of doctors",
        "The medical assistant app listens to patient visits and drafts clinical notes; "
        "adoption has doubled since spring, with 20,000 clinicians now using it every week.",
        "value_chain",
        "Applications",
    ),
    (
        "Researchers propose a new attention architecture that halves inference cost",
        "The paper introduces a linear-attention method that matches transformer accuracy on "
        "long-context benchmarks while doubling throughput.",
        "market_force",
        "Technology & Scientific Innovation",
    ),
    (
        "Google cuts Gemini API prices to undercut OpenAI",
        "The price cut is the latest move in a price war between the two rivals, as Google "
        "tries to win market share from OpenAI among developers.",
        "market_force",
        "Competitive Dynamics",
    ),
    (
        "Enterprise AI adoption surges as pilots move to production",
        "A survey of 2,000 companies found 48% now deploy generative AI in production, and "
        "weekly active users of the leading assistant grew to 800 million as demand rose.",
        "market_force",
        "Adoption & Demand",
    ),
]


@pytest.fixture(scope="module")
def golden_tags(minilm: Embedder) -> pl.DataFrame:
    return tag_themes(
        _signals(*((title, text) for title, text, _, _ in GOLDEN)), minilm, load_theme_taxonomy()
    )


@pytest.mark.parametrize(
    ("index", "axis", "label"),
    [(i, axis, label) for i, (_, _, axis, label) in enumerate(GOLDEN)],
    ids=[label for *_, label in GOLDEN],
)
def test_golden_examples(golden_tags: pl.DataFrame, index: int, axis: str, label: str) -> None:
    row = golden_tags.row(index, named=True)
    assert label in row[axis], (GOLDEN[index][0], row)


def test_golden_examples_lead_with_their_label(golden_tags: pl.DataFrame) -> None:
    firsts = [
        golden_tags.row(i, named=True)[axis][0] == label
        for i, (_, _, axis, label) in enumerate(GOLDEN)
    ]
    assert sum(firsts) >= len(GOLDEN) - 1


def test_output_shape_labels_and_order(golden_tags: pl.DataFrame) -> None:
    assert golden_tags.schema == THEME_TAGS
    assert golden_tags.get_column("signal_id").to_list() == [f"s{i}" for i in range(len(GOLDEN))]
    for row in golden_tags.iter_rows(named=True):
        for axis in AXES:
            labels = row[axis]
            assert set(labels) <= set(CANONICAL[axis])
            assert len(labels) == len(set(labels)) <= 3


def test_multi_label(minilm: Embedder, taxonomy: ThemeTaxonomy) -> None:
    tags = tag_themes(
        _signals(
            (
                "Nvidia invests $100 billion in OpenAI to build 10 gigawatts of data centers",
                "The chipmaker will invest up to $100 billion in OpenAI as each gigawatt of "
                "data-center capacity using Nvidia GPUs is deployed, a deal that lifted "
                "Nvidia's market value by $170 billion.",
            ),
            (
                "Authors sue AI lab over training data",
                "A group of authors filed a copyright lawsuit in federal court, alleging the "
                "lab scraped pirated books to build its training datasets.",
            ),
        ),
        minilm,
        taxonomy,
    )
    deal, lawsuit = tags.row(0, named=True), tags.row(1, named=True)
    assert {"Semiconductors & Hardware", "Infrastructure"} <= set(deal["value_chain"])
    assert "Capital & Investment" in deal["market_force"]
    assert lawsuit["value_chain"][:1] == ["Data"]
    assert lawsuit["market_force"][:1] == ["Regulatory & Legal"]


def test_nothing_fits_gives_empty_lists(minilm: Embedder, taxonomy: ThemeTaxonomy) -> None:
    tags = tag_themes(
        _signals(("Lemon drizzle cake", "Cream the butter and sugar, then fold in the flour.")),
        minilm,
        taxonomy,
    )
    assert tags.row(0, named=True) == {"signal_id": "s0", "value_chain": [], "market_force": []}


def test_empty_input(minilm: Embedder, taxonomy: ThemeTaxonomy) -> None:
    empty = pl.DataFrame(schema={"signal_id": pl.String, "title": pl.String, "text": pl.String})
    assert_frame_equal(tag_themes(empty, minilm, taxonomy), pl.DataFrame(schema=THEME_TAGS))


@pytest.mark.slow  # the real model over the signals three times
def test_deterministic_and_independent_of_batch(minilm: Embedder, taxonomy: ThemeTaxonomy) -> None:
    frame = _signals(*((title, text) for title, text, _, _ in GOLDEN))
    once = tag_themes(frame, minilm, taxonomy)
    assert_frame_equal(tag_themes(frame, minilm, taxonomy), once)
    # one signal's labels do not depend on which other signals share the batch
    reversed_tags = tag_themes(frame.reverse(), minilm, taxonomy).reverse()
    assert_frame_equal(reversed_tags, once)


def test_one_batched_embedding_call_for_the_signals(
    minilm: Embedder, taxonomy: ThemeTaxonomy
) -> None:
    calls: list[int] = []

    def counting(texts: object) -> object:
        calls.append(len(texts))  # type: ignore[arg-type]
        return minilm(texts)  # type: ignore[arg-type]

    frame = _signals(*((title, text) for title, text, _, _ in GOLDEN))
    tag_themes(frame, counting, taxonomy)  # type: ignore[arg-type]
    label_sentences = sum(len(t.description) for t in taxonomy.themes)
    assert sorted(calls) == sorted([len(GOLDEN), label_sentences])


def test_null_text_is_tolerated(minilm: Embedder, taxonomy: ThemeTaxonomy) -> None:
    frame = pl.DataFrame(
        {"signal_id": ["x"], "title": ["OpenAI raises $40 billion"], "text": [None]},
        schema={"signal_id": pl.String, "title": pl.String, "text": pl.String},
    )
    tags = tag_themes(frame, minilm, taxonomy)
    assert "Capital & Investment" in tags.row(0, named=True)["market_force"]


# --- the demo corpus's planted theme shift ------------------------------------------------------

W0_END = datetime(2026, 10, 26, tzinfo=UTC)


def test_demo_corpus_planted_shift_is_visible(demo_data_dir: DataDir) -> None:
    """Regulatory & Legal rises and Capital & Investment falls in the last four weeks (the
    generator plants about 8% → 27% and 19% → 6%), as tagged by the pipeline's own build of
    the demo corpus (the session snapshot)."""
    start = W0_END - timedelta(weeks=12)
    signals = pl.read_parquet(demo_data_dir.table_path("signals"))
    themes = pl.read_parquet(demo_data_dir.table_path("signal_themes"))
    tags = (
        signals.filter(pl.col("published_at").is_between(start, W0_END, closed="left"))
        .join(themes, on="signal_id")
        .with_columns(((pl.col("published_at") - start).dt.total_days() // 7).alias("w"))
    )

    def share(label: str, weeks: range) -> float:
        part = tags.filter(pl.col("w").is_in(list(weeks)))
        return part.filter(pl.col("market_force").list.contains(label)).height / part.height

    before, recent = range(0, 8), range(8, 12)
    assert share("Regulatory & Legal", recent) >= 1.5 * share("Regulatory & Legal", before)
    assert share("Capital & Investment", recent) < share("Capital & Investment", before)


# --- the keyword scan's dispatch on first characters ---------------------------------------------


def _finditer_terms(index: KeywordIndex, text: str) -> set[int]:
    """What the one combined pattern finds: the reference ``terms_in`` must equal."""
    return {int(m.lastgroup[1:]) for m in index.pattern.finditer(text) if m.lastgroup}


def _vary(char: str, rng: random.Random) -> str:
    """``char``, or its upper case, or a non-ASCII letter that folds to it (s, k)."""
    draw = rng.random()
    if draw < 0.05 and char in "sk":
        return {"s": "\u017f", "k": "\u212a"}[char]
    return char.upper() if draw < 0.2 else char


def test_first_chars_of_fragments() -> None:
    assert first_chars("data ?cent(?:er|re)s?") == frozenset("d")
    assert first_chars("Gpus?") == frozenset("g")
    assert first_chars(r"mi\d{3}x?") == frozenset("m")
    assert first_chars("(?:pre-)?train(?:ing|ed)") == frozenset("pt")
    assert first_chars(r"\d+ ?gw") == frozenset("0123456789")
    assert first_chars("[a-c]i|xo") == frozenset("abcx")
    # not known: it may start anywhere, with a non-ASCII letter, or match nothing
    assert first_chars(".ai") is None
    assert first_chars(r"[^x]y") is None
    assert first_chars(r"\s?x") is None
    assert first_chars("éclair") is None
    assert first_chars("s?") is None
    assert first_chars("(?-i:AI)") is None


def test_terms_in_finds_what_the_combined_pattern_finds(taxonomy: ThemeTaxonomy) -> None:
    index = taxonomy.keyword_index
    assert index.by_first is not None  # the production taxonomy takes the fast path
    terms = [p for theme in taxonomy.themes for p, _ in theme.keywords]
    # words made of the terms' own letters, upper and lower case, joined by separators the
    # word boundaries hinge on, and non-ASCII letters case folding maps onto ASCII ones
    # (KELVIN SIGN is k, LONG S is s): every one of those texts scanned both ways
    words = [re.sub(r"[^a-z0-9 -]", "", t) for t in terms] + ["gridlock", "data-driven", "ai"]
    seps = [" ", "-", "_", "—", ", ", ".", "\n", "/", "'", "’", "(", "é", "\u212a", "\u017f", "9"]
    rng = random.Random(33)
    texts = [
        "Lawsuit after lawsuit: the court fined the lab under the AI Act.",
        "A new data centre on the grid, \u212aubernetes and GPU\u017f",
        "",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(1, 10)))
        texts.append("".join(_vary(ch, rng) for ch in text))
    found = [index.terms_in(t) for t in texts]
    assert found == [_finditer_terms(index, t) for t in texts]
    assert sum(bool(f) for f in found) > 1000  # the texts do hit terms


def test_terms_in_with_a_term_of_unknown_first_character() -> None:
    tiny = ThemeTaxonomy(
        (
            Theme("value_chain", "Data", ("Data.",), ((".ai", 1.0), ("data", 1.0))),
            Theme("market_force", "Talent & Labor", ("Hiring.",), (("hir(?:e|ing)", 1.0),)),
        )
    )
    index = tiny.keyword_index
    for text in ["Hiring at x.ai and data.ai", "Data hire", "xai", "HIRE .AI", ""]:
        assert index.terms_in(text) == _finditer_terms(index, text)
    assert keyword_evidence("Hiring at x.ai and data.ai", tiny).tolist() == [1.0, 1.0]
