"""Roundups: a digest of unrelated items is split into its items from its text alone (spans,
vectors, entities, list structure), and a post about one event is left whole."""

from __future__ import annotations

import numpy as np

from analytics.embedding import EMBEDDING_DIM
from analytics.roundups import RoundupParams, item_vectors, split_items


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
