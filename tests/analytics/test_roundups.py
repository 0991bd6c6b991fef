"""Roundups: a digest of unrelated items is split into its items from its text alone (spans,
vectors, entities, list structure), and a post about one event is left whole."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.embedding import EMBEDDING_DIM
from analytics.roundups import RoundupParams, attributed, item_vectors, split_items


def axis(i: int, tilt: float = 0.0) -> np.ndarray:
    v = np.zeros(EMBEDDING_DIM, dtype=np.float32)
    v[i] = 1.0
    v[(i + 1) % EMBEDDING_DIM] += tilt
    return v / np.linalg.norm(v)


def spans(n: int) -> list[tuple[str, int, int]]:
    """``n`` units laid end to end on the text, 10 characters each."""
    return [(f"u{i}", 10 * i, 10 * i + 9) for i in range(n)]


def own_entities(n: int) -> dict[str, frozenset[str]]:
    """Each of ``n`` units naming a player of its own."""
    return {f"u{i}": frozenset({f"ent_{i}"}) for i in range(n)}


def test_a_digest_of_unrelated_items_splits_into_them() -> None:
    vectors = {f"u{i}": axis(10 * i) for i in range(4)}
    items = split_items("s", "", spans(4), vectors, own_entities(4))
    assert [i.unit_ids for i in items] == [("u0",), ("u1",), ("u2",), ("u3",)]
    assert [i.item_id for i in items] == ["s#0", "s#1", "s#2", "s#3"]


def test_far_apart_sentences_about_one_subject_are_no_roundup() -> None:
    # a post and its discussion: far apart in meaning, but every part names the same model
    vectors = {f"u{i}": axis(10 * i) for i in range(4)}
    same = {f"u{i}": frozenset({"ent_model"}) for i in range(4)}
    assert split_items("s", "", spans(4), vectors, same) == []
    # only two parts name a player of their own
    two = {"u0": frozenset({"ent_a"}), "u1": frozenset({"ent_b"})}
    assert split_items("s", "", spans(4), vectors, two) == []


def test_a_long_analysis_of_one_subject_is_no_roundup() -> None:
    # an essay arguing one thesis in twelve sentences: each far from the others in meaning (its
    # arguments take up different sides of the subject), three of them citing a player of their
    # own (a company's figures, an analyst), the other nine naming none
    n = 12
    text = "\n\n".join(f"Paragraph {i} of the argument." for i in range(n))
    vectors = {f"u{i}": axis(10 * i) for i in range(n)}
    cited = {"u2": frozenset({"ent_a"}), "u5": frozenset({"ent_b"}), "u9": frozenset({"ent_c"})}
    assert split_items("s", text, spans(n), vectors, cited) == []
    # the same sentences with a player of their own in most of them are a digest
    most = cited | {f"u{i}": frozenset({f"ent_{i}"}) for i in (0, 1, 3, 4, 6)}
    assert len(split_items("s", text, spans(n), vectors, most)) == n
    # and the share is a parameter: a third of them is enough when asked for a third
    third = RoundupParams(own_share=0.25)
    assert len(split_items("s", text, spans(n), vectors, cited, third)) == n


def laid_out(sentences: list[str]) -> tuple[str, list[tuple[str, int, int]]]:
    """The text of ``sentences`` (a paragraph each) and their units' spans on it."""
    text, units = "", []
    for i, sentence in enumerate(sentences):
        start = len(text) + (2 if text else 0)
        text = f"{text}\n\n{sentence}" if text else sentence
        units.append((f"u{i}", start, start + len(sentence)))
    return text, units


def test_a_news_report_quoting_an_analyst_is_no_roundup() -> None:
    # one event: the lead (the buyer, the chip, the chipmaker it turns from), an analyst's
    # quote (the analyst and her firm), a background sentence and a closing line naming
    # another company. Each is far from the others in meaning and none shares a player with
    # its neighbour: four items, three of them naming a player of their own when the quote's
    # voice counts as one
    report = [
        "Helix Cloud has placed a large order for Trillium chips as it tries to reduce its "
        "dependence on Nvidia.",
        "“Nobody has pricing power in the middle of the market,” said Clara Raman, an analyst "
        "at Larchmont Research.",
        "High-bandwidth memory has become one of the tightest parts of the supply chain.",
        "Corvid Semiconductor reports its next quarterly results in September.",
    ]
    text, units = laid_out(report)
    vectors = {f"u{i}": axis(10 * i) for i in range(4)}
    entities = {
        "u0": frozenset({"ent_helix", "ent_trillium", "ent_nvidia"}),
        "u1": frozenset({"ent_raman", "ent_larchmont"}),
        "u3": frozenset({"ent_corvid"}),
    }
    assert split_items("s", text, units, vectors, entities) == []
    # the same players with the analyst's firm as news of its own: a digest's third item
    plain, plain_units = laid_out(
        [report[0], "Larchmont Research hired Clara Raman to cover chips.", *report[2:]]
    )
    assert len(split_items("s", plain, plain_units, vectors, entities)) == 4


def test_a_digest_with_a_quote_in_one_item_still_splits() -> None:
    # three unrelated announcements, each naming its company; the second's reaction quotes its
    # chief executive (same company, close in meaning: one item with its announcement)
    text, units = laid_out(
        [
            "Acme Robotics raised $40 million to build warehouse arms.",
            "Globex released an open-weights coding model on Tuesday.",
            "“It beats every model its size,” Jane Roe, the chief executive of Globex, said in "
            "a post.",
            "The Paris court fined Initech for training on customer data without consent.",
        ]
    )
    vectors = {"u0": axis(0), "u1": axis(10), "u2": axis(10, 0.3), "u3": axis(20)}
    entities = {
        "u0": frozenset({"ent_acme"}),
        "u1": frozenset({"ent_globex"}),
        "u2": frozenset({"ent_roe", "ent_globex"}),
        "u3": frozenset({"ent_paris_court", "ent_initech"}),
    }
    items = split_items("s", text, units, vectors, entities)
    assert [i.unit_ids for i in items] == [("u0",), ("u1", "u2"), ("u3",)]


@pytest.mark.parametrize(
    "sentence",
    [
        "“Memory is the limit,” said Camille Shapiro, a hardware architect at Orinoco Systems.",
        "so are the depreciation schedules,” Samuel Whitlock, an analyst at Corbett & Vail, "
        "said in an interview.",
        "it will stay that way,” Hannah Dubois, the chief technology officer of Tessellate "
        "Labs, said.",
        "Daniel Holm, a partner at Ashdown & Reyes, put it more bluntly: “Every counsel will "
        "read this ruling tonight.”",
        '"We are not worried," Raman said.',
        "“Prices will fall,” she added.",
        "Priya Shah, an analyst at Northgate Capital, said demand would hold.",
        "Demand will hold, said Priya Shah, an analyst at Northgate Capital.",
    ],
)
def test_a_quote_or_attribution_is_an_attributed_remark(sentence: str) -> None:
    assert attributed(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # the speaker opening the sentence is what it is about
        "Meta said on Monday it had released Llama 4.",
        "Cohere said its platform now processes 8.2 trillion tokens a month.",
        "Marvell, the chipmaker, said orders for optical DSPs rose 24%.",
        "Meta released Llama 4, the company said.",
        "Groq, the inference-chip start-up, said Crusoe will run part of its traffic on Groq, a "
        "contract people familiar with it valued at $40 million.",
        "Marvell, a supplier of optical DSPs, said orders rose 24%.",
        # a source named after the subject: the sentence is about its subject
        "Acme will supply the racks, according to a person familiar with the contract.",
        "Globex told Reuters it would open an office in Paris.",
        # a participle is no speech
        "Acme introduced Vega, a 20B model for image generation, noted for its speed.",
        # an appositive and a quotation that is nobody's words
        "Acme released Vega, a sparse model with 10B active parameters, positioned as “Agent "
        "Native.”",
        'One of the most shared posts joked, "Vega wrote the benchmark" is the line of the week.',
        # anonymous sourcing of the event itself
        "GitHub has placed a large order, people familiar with the deal said.",
        # a name in quotation marks is no quotation
        'Google launched "Gemini 2" Flash and said it is faster.',
        "Anthropic released Claude 4 on Tuesday.",
    ],
)
def test_an_event_or_a_statement_by_its_subject_is_no_attributed_remark(sentence: str) -> None:
    assert not attributed(sentence)


def test_a_post_about_one_event_stays_whole() -> None:
    # four units that all say much the same: not broad
    vectors = {f"u{i}": axis(0, 0.1 * i) for i in range(4)}
    assert split_items("s", "", spans(4), vectors, {}) == []


def test_too_few_items_is_no_roundup() -> None:
    vectors = {f"u{i}": axis(10 * i) for i in range(2)}
    assert split_items("s", "", spans(2), vectors, own_entities(2)) == []


def test_adjacent_units_on_one_item_stay_together() -> None:
    # u0 and u1 share an entity (an announcement and its figures), u2 and u3 are close in
    # meaning, u4 is far from all
    vectors = {"u0": axis(0), "u1": axis(10), "u2": axis(20), "u3": axis(20, 0.2)}
    vectors["u4"] = axis(30)
    entities = {"u0": frozenset({"ent_a"}), "u1": frozenset({"ent_a", "ent_b"})}
    entities |= {"u2": frozenset({"ent_c"}), "u4": frozenset({"ent_d"})}
    items = split_items("s", "", spans(5), vectors, entities)
    assert [i.unit_ids for i in items] == [("u0", "u1"), ("u2", "u3"), ("u4",)]


def test_overlapping_spans_are_one_segment() -> None:
    # a synopsis restating the first claim covers the same characters
    units = [("syn", 0, 9), ("u0", 0, 9), ("u1", 10, 19), ("u2", 20, 29)]
    vectors = {"syn": axis(0, 0.1), "u0": axis(0), "u1": axis(10), "u2": axis(20)}
    items = split_items("s", "", units, vectors, own_entities(3))
    assert [set(i.unit_ids) for i in items] == [{"syn", "u0"}, {"u1"}, {"u2"}]


def test_a_list_is_a_roundup_even_when_its_items_are_close() -> None:
    vectors = {f"u{i}": axis(0, 0.3 * i) for i in range(3)}  # mean cosine well over breadth
    params = RoundupParams(join=0.99)
    assert split_items("s", "one\ntwo\nthree", spans(3), vectors, {}, params) == []
    listed = "Today:\n- first launch\n- second launch\n* third thing"
    assert len(split_items("s", listed, spans(3), vectors, {}, params)) == 3


def test_units_without_a_vector_are_no_segment_and_items_average_their_units() -> None:
    vectors = {"u0": axis(0), "u1": axis(10), "u3": axis(20), "u4": axis(20, 0.3)}
    items = split_items("s", "", spans(5), vectors, own_entities(5))
    assert [i.unit_ids for i in items] == [("u0",), ("u1",), ("u3", "u4")]
    out = item_vectors(items, vectors)
    mean = (axis(20) + axis(20, 0.3)) / np.linalg.norm(axis(20) + axis(20, 0.3))
    assert np.allclose(out[2], mean, atol=1e-6)
