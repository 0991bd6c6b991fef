"""Stories: day clusters, growth across days within the window, stable ids across rebuilds
(merges and splits recorded), the central title, and independent sources with reprints counted
once. Vectors are made by hand so each case is exact."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import orjson
import polars as pl

from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from analytics.schema import SIGNAL_ENTITIES, SIGNAL_THEMES
from analytics.stories import (
    StoryParams,
    build_stories,
    carry_ids,
    cluster_signals,
    signal_terms,
    signal_vectors,
    story_id_for,
)

START = datetime(2025, 3, 3, 9, tzinfo=UTC)


def direction(axis: int, tilt: float = 0.0, other: int = 1) -> np.ndarray:
    """A unit vector mostly along ``axis``, tilted towards ``other``."""
    v = np.zeros(EMBEDDING_DIM, dtype=np.float32)
    v[axis] = 1.0
    v[other] += tilt
    return v / np.linalg.norm(v)


def frame(rows: Sequence[tuple[str, int, str, str | None, str | None]]) -> pl.DataFrame:
    """(signal_id, day offset, domain, author, copy_key) rows as story input signals."""
    return pl.DataFrame(
        {
            "signal_id": [r[0] for r in rows],
            "published_at": [START + timedelta(days=r[1], minutes=i) for i, r in enumerate(rows)],
            "title": [f"title of {r[0]}" for r in rows],
            "domain": [r[2] for r in rows],
            "author": [r[3] for r in rows],
            "copy_key": [r[4] for r in rows],
        }
    )


NO_ENTITIES = pl.DataFrame(schema=SIGNAL_ENTITIES)
NO_THEMES = pl.DataFrame(schema=SIGNAL_THEMES)


def test_a_days_near_signals_form_one_story_and_a_far_one_its_own() -> None:
    signals = frame([("a", 0, "x.com", "ann", None), ("b", 0, "x.com", "bob", None)])
    signals = pl.concat([signals, frame([("c", 0, "x.com", "cy", None)])])
    vectors = np.stack([direction(0, 0.1), direction(0, 0.2), direction(5)])
    assert cluster_signals(signals, vectors, {}) == [0, 0, 1]


def test_shared_entities_lift_a_pair_over_the_cut() -> None:
    params = StoryParams()
    signals = frame([("a", 0, "x.com", "ann", None), ("b", 0, "x.com", "bob", None)])
    # a cosine 0.1 under the cut: apart alone, together with the same two entities
    cosine = params.link - 0.1
    assert params.entity_weight > 0.1
    vectors = np.stack([direction(0), direction(0, float(np.sqrt(1 / cosine**2 - 1)))])
    assert abs(float(vectors[0] @ vectors[1]) - cosine) < 1e-6
    assert cluster_signals(signals, vectors, {}, params) == [0, 1]
    both = frozenset({"ent_openai", "ent_gpt5"})
    assert cluster_signals(signals, vectors, {"a": both, "b": both}, params) == [0, 0]


def test_a_story_grows_across_days_within_the_window_only() -> None:
    params = StoryParams()
    rows = [("a", 0, "x.com", "ann", None), ("b", 2, "x.com", "bob", None)]
    rows.append(("c", 2 + params.window_days + 1, "x.com", "cy", None))
    vectors = np.stack([direction(0, 0.1), direction(0, 0.15), direction(0, 0.12)])
    # b is two days after a: it joins; c comes more than the window after b: a new story
    assert cluster_signals(frame(rows), vectors, {}, params) == [0, 0, 1]


def test_signal_vectors_average_units_and_leave_signals_without_units_at_zero() -> None:
    units = np.stack([direction(0), direction(1), direction(2)])
    out = signal_vectors(["s1", "s2", "s3"], ["s1", "s1", "s2"], units)
    assert np.allclose(out[0], (direction(0) + direction(1)) / np.sqrt(2))
    assert np.allclose(out[1], direction(2))
    assert not out[2].any()


def test_reprints_count_once_and_voices_are_authors_else_domains() -> None:
    signals = frame(
        [
            ("a", 0, "wire.com", "Reporter", "launch text"),
            ("b", 0, "paper.com", "Other Desk", "launch text"),  # a reprint of a: not a voice
            ("c", 0, "x.com", "reporter", "a reaction"),  # the same author as a, other case
            ("d", 0, "blog.net", None, "another take"),  # no author: its domain speaks
            ("e", 1, "x.com", "analyst", "launch text"),  # a later copy, another author
        ]
    )
    vectors = np.stack([direction(0, 0.05 * i) for i in range(5)])
    stories, membership = build_stories(signals, vectors, NO_ENTITIES, NO_THEMES)
    assert stories.height == 1
    story = stories.row(0, named=True)
    assert story["signal_ids"] == ["a", "b", "c", "d", "e"]
    assert story["independent_sources"] == 2  # "reporter" and blog.net
    assert story["domains"] == ["blog.net", "paper.com", "wire.com", "x.com"]
    assert story["signal_count"] == 5
    assert story["first_seen"] == START
    assert story["last_seen"] == START + timedelta(days=1, minutes=4)
    assert membership["story_id"].unique().to_list() == [story["story_id"]]


def test_the_title_is_the_most_central_signals() -> None:
    signals = frame([(s, 0, "x.com", s, None) for s in ("edge1", "middle", "edge2")])
    vectors = np.stack([direction(0, -0.4, 1), direction(0), direction(0, 0.4, 1)])
    stories, _ = build_stories(signals, vectors, NO_ENTITIES, NO_THEMES)
    assert stories["title"].to_list() == ["title of middle"]
    assert stories["title_signal_id"].to_list() == ["middle"]


def test_ids_stay_when_a_rebuild_has_one_more_signal() -> None:
    rows = [("a", 0, "x.com", "ann", None), ("b", 0, "x.com", "bob", None)]
    rows += [("c", 1, "x.com", "cy", None)]
    vectors = np.stack([direction(0, 0.1), direction(0, 0.12), direction(7)])
    first, first_members = build_stories(frame(rows), vectors, NO_ENTITIES, NO_THEMES)
    assert sorted(first["story_id"]) == sorted([story_id_for("a"), story_id_for("c")])
    # one more signal, on the first story's subject but published before its first signal
    more = frame([("z", 0, "x.com", "zed", None), *rows])
    more_vectors = np.vstack([direction(0, 0.11)[None, :], vectors])
    second, second_members = build_stories(
        more, more_vectors, NO_ENTITIES, NO_THEMES, previous=first_members
    )
    assert second.height == 2
    by_first = dict(zip(first_members["signal_id"], first_members["story_id"], strict=True))
    by_second = dict(zip(second_members["signal_id"], second_members["story_id"], strict=True))
    assert all(by_second[s] == by_first[s] for s in by_first)
    assert by_second["z"] == by_first["a"]  # joined the story without renaming it
    assert second["merged_from"].list.len().sum() == 0 and second["split_from"].null_count() == 2


def test_a_merge_keeps_the_larger_id_and_records_the_other_a_split_records_its_origin() -> None:
    members = pl.DataFrame(
        {
            "label": [0, 0, 0, 1, 2],
            "signal_id": ["a", "b", "c", "d", "e"],
            "first_id": ["a", "a", "a", "d", "e"],
        }
    )
    previous = pl.DataFrame(
        {
            "signal_id": ["a", "b", "c", "d", "e"],
            "story_id": ["sty_big", "sty_big", "sty_small", "sty_two", "sty_two"],
        }
    )
    ids, merged, split = carry_ids(members, previous)
    assert ids[0] == "sty_big" and merged == {0: ["sty_small"]}
    # sty_two was cut in two: the part with d keeps it (a tie, the smaller label), e's is new
    assert ids[1] == "sty_two" and split == {2: "sty_two"}
    assert ids[2] == story_id_for("e")


def test_a_new_id_never_reuses_a_previous_storys() -> None:
    # a's story lost the id to the part holding more of its signals; a's own part would derive
    # the same id from a: it gets another
    members = pl.DataFrame(
        {"label": [0, 1, 1], "signal_id": ["a", "b", "c"], "first_id": ["a", "b", "b"]}
    )
    previous = pl.DataFrame({"signal_id": ["a", "b", "c"], "story_id": [story_id_for("a")] * 3})
    ids, _, split = carry_ids(members, previous)
    assert ids[1] == story_id_for("a") and split == {0: story_id_for("a")}
    assert ids[0] not in {story_id_for("a"), story_id_for("b")}
    assert ids[0].startswith("sty_")


def test_entities_and_themes_are_the_members_union() -> None:
    signals = frame([("a", 0, "x.com", "ann", None), ("b", 0, "x.com", "bob", None)])
    vectors = np.stack([direction(0), direction(0, 0.1)])
    entities = pl.DataFrame({"signal_id": ["a", "b", "b"], "entity_id": ["e1", "e2", "e1"]})
    themes = pl.DataFrame(
        {
            "signal_id": ["a", "b"],
            "content_hash": ["h1", "h2"],
            "value_chain": [["Foundation Models"], ["Applications", "Foundation Models"]],
            "market_force": [["Capital & Investment"], []],
        },
        schema=SIGNAL_THEMES,
    )
    stories, _ = build_stories(signals, vectors, entities, themes)
    story = stories.row(0, named=True)
    assert story["entity_ids"] == ["e1", "e2"]
    assert story["value_chain"] == ["Applications", "Foundation Models"]
    assert story["market_force"] == ["Capital & Investment"]


def test_no_signals_no_stories() -> None:
    stories, membership = build_stories(
        frame([]), np.zeros((0, EMBEDDING_DIM), dtype=np.float32), NO_ENTITIES, NO_THEMES
    )
    assert stories.height == 0 and membership.height == 0


def chain(days: int) -> tuple[pl.DataFrame, np.ndarray]:
    """One signal a day for ``days`` days, all on one subject (each near the last)."""
    rows = [(f"s{d}", d, "x.com", f"author{d}", None) for d in range(days)]
    vectors = np.stack([direction(0, 0.01 * d) for d in range(days)])
    return frame(rows), vectors


def test_a_span_cap_starts_a_new_story_once_the_first_day_is_too_far() -> None:
    signals, vectors = chain(7)
    # without a cap, a signal a day keeps one story open for the whole week
    assert cluster_signals(signals, vectors, {}, StoryParams(span_days=None)) == [0] * 7
    # capped at 3 days: days 0-3 are one story, day 4 starts the next (which spans 4-6)
    capped = StoryParams(span_days=3)
    assert cluster_signals(signals, vectors, {}, capped) == [0, 0, 0, 0, 1, 1, 1]


def test_the_shipped_method_caps_a_storys_span() -> None:
    span = StoryParams().span_days
    assert span is not None and span < 6
    signals, vectors = chain(7)
    labels = cluster_signals(signals, vectors, {}, StoryParams())
    assert labels == [0] * (span + 1) + [1] * (6 - span)


def test_a_capped_story_keeps_its_id_as_it_grows_within_its_span() -> None:
    params = StoryParams(span_days=3)
    signals, vectors = chain(3)
    first, first_members = build_stories(signals, vectors, NO_ENTITIES, NO_THEMES, params=params)
    assert first["story_id"].to_list() == [story_id_for("s0")]
    # the next build has a fourth day (still within the span) and then a fifth (past it)
    more, more_vectors = chain(5)
    second, second_members = build_stories(
        more, more_vectors, NO_ENTITIES, NO_THEMES, previous=first_members, params=params
    )
    by_signal = dict(zip(second_members["signal_id"], second_members["story_id"], strict=True))
    assert [by_signal[f"s{d}"] for d in range(4)] == [story_id_for("s0")] * 4
    assert by_signal["s4"] == story_id_for("s4")  # past the span: a story of its own
    assert second["merged_from"].list.len().sum() == 0 and second["split_from"].null_count() == 2


def test_a_cap_that_cuts_a_previous_story_records_the_split() -> None:
    signals, vectors = chain(7)
    uncapped_params = StoryParams(span_days=None)
    _, uncapped = build_stories(signals, vectors, NO_ENTITIES, NO_THEMES, params=uncapped_params)
    assert uncapped["story_id"].n_unique() == 1
    old = uncapped["story_id"][0]
    capped, members = build_stories(
        signals, vectors, NO_ENTITIES, NO_THEMES, previous=uncapped, params=StoryParams(span_days=3)
    )
    assert capped.height == 2
    by_signal = dict(zip(members["signal_id"], members["story_id"], strict=True))
    # the part with more of the old story's signals (days 0-3) keeps its id; the rest is a split
    assert by_signal["s0"] == old and by_signal["s4"] != old
    split = capped.filter(pl.col("story_id") == by_signal["s4"])
    assert split["split_from"].to_list() == [old]


def titled(rows: Sequence[tuple[str, int, str]]) -> pl.DataFrame:
    """(signal_id, day offset, title) rows as story input signals with a title and no text."""
    signals = frame([(r[0], r[1], "x.com", r[0], None) for r in rows])
    return signals.with_columns(pl.Series("title", [r[2] for r in rows]))


def test_signal_terms_keep_names_versions_and_amounts_and_drop_counts() -> None:
    terms = signal_terms("(Score: 422, Comments: 109): GPT-4o costs $6.6B, 40% of Gemini 2.5; a")
    assert {"gpt-4o", "$6.6b", "40%", "2.5", "gemini", "score"} <= terms
    assert not {"422", "109", "a"} & terms


def test_shared_rare_terms_lift_a_pair_over_the_cut() -> None:
    lifted = StoryParams()  # the shipped method weighs the terms
    assert lifted.term_weight > 0.1
    cosine = lifted.link - 0.05
    vectors = np.stack(
        [direction(0), direction(0, float(np.sqrt(1 / cosine**2 - 1))), direction(5)]
    )
    apart = titled([("a", 0, "gemma qat weights"), ("b", 0, "claude outage"), ("c", 0, "rain")])
    assert cluster_signals(apart, vectors, {}, lifted) == [0, 1, 2]
    shared = titled([("a", 0, "gemma qat weights"), ("b", 0, "qat gemma bug"), ("c", 0, "rain")])
    blind = StoryParams(term_weight=0.0, attach_term_weight=0.0)
    assert cluster_signals(shared, vectors, {}, blind) == [0, 1, 2]
    assert cluster_signals(shared, vectors, {}, lifted) == [0, 0, 1]


def test_shared_terms_lift_a_days_cluster_onto_an_open_story() -> None:
    # b, a day after a, at a centroid cosine under the attach bar: it joins only when they
    # name the same things
    params = StoryParams()
    cosine = params.attach - 0.05
    tilt = float(np.sqrt(1 / cosine**2 - 1))
    vectors = np.stack([direction(0), direction(5), direction(0, tilt), direction(6)])
    rows = [("a", 0, "gemma qat weights"), ("f", 0, "rain"), ("b", 1, "claude outage")]
    rows.append(("g", 1, "snow"))
    assert cluster_signals(titled(rows), vectors, {}, params) == [0, 1, 2, 3]
    rows[2] = ("b", 1, "gemma qat weights bug")
    assert cluster_signals(titled(rows), vectors, {}, params) == [0, 1, 0, 2]


def test_ids_stay_when_a_rebuild_has_one_more_signal_that_shifts_the_term_weights() -> None:
    # the shipped method, with titles that name things: one more signal on day 0 changes the
    # day's IDF (and so every term cosine of it and of the days after), not the stories' ids
    rows = [("a", 0, "gemma qat weights"), ("b", 0, "qat gemma bug"), ("c", 0, "rain")]
    rows += [("d", 1, "gemma qat gguf"), ("e", 1, "snow")]
    vectors = np.stack([direction(0), direction(0, 0.3), direction(5), direction(0, 0.2)])
    vectors = np.vstack([vectors, direction(6)[None, :]])
    first, first_members = build_stories(titled(rows), vectors, NO_ENTITIES, NO_THEMES)
    assert first.height == 3  # {a, b, d}, {c}, {e}
    more = titled([("z", 0, "qat gemma release"), *rows])
    more_vectors = np.vstack([direction(0, 0.1)[None, :], vectors])
    second, second_members = build_stories(
        more, more_vectors, NO_ENTITIES, NO_THEMES, previous=first_members
    )
    by_first = dict(zip(first_members["signal_id"], first_members["story_id"], strict=True))
    by_second = dict(zip(second_members["signal_id"], second_members["story_id"], strict=True))
    assert second.height == 3
    assert all(by_second[s] == by_first[s] for s in by_first)
    assert by_second["z"] == by_first["a"]
    assert second["merged_from"].list.len().sum() == 0 and second["split_from"].null_count() == 3


def test_term_similarities_do_not_depend_on_the_hash_seed() -> None:
    """A set's order follows the process's string hash seed; the term vectors' sums must not,
    or a pair at the cut could join in one build and not in the next."""
    script = (
        "import hashlib, datetime\n"
        "from analytics.stories import TermIdf, _term_cosine, signal_terms\n"
        "texts = [f'gpt-{i % 7}o agent {i % 5} llama-{i % 3} rollout $ {i}b fund '"
        " f'benchmark v{i % 4}.{i % 9} launch chip-{i % 6} release' for i in range(60)]\n"
        "terms = [signal_terms(t) for t in texts]\n"
        "idf = TermIdf(90)\n"
        "idf.add_day(datetime.date(2025, 1, 1), terms)\n"
        "print(hashlib.sha256(_term_cosine(idf.vectors(terms)).tobytes()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1, digests


def test_chapters_of_one_publisher_are_one_source_and_link_text_is_no_publisher() -> None:
    signals = frame(
        [
            ("ch1", 0, "youtube.com", "The Pod", None),  # three chapters of one episode
            ("ch2", 0, "youtube.com", "The Pod", None),
            ("ch3", 0, "youtube.com", "the pod ", None),
            # an "author" that is a sentence: the domain speaks, with and without www.
            ("w1", 0, "www.news.com", "read more here: the full thread, and replies", None),
            ("w2", 0, "news.com", None, None),
        ]
    )
    vectors = np.stack([direction(0, 0.02 * i) for i in range(5)])
    stories, _ = build_stories(signals, vectors, NO_ENTITIES, NO_THEMES)
    assert stories["signal_count"].to_list() == [5]
    assert stories["independent_sources"].to_list() == [2]  # "the pod" and news.com
    only_pod, _ = build_stories(signals.head(3), vectors[:3], NO_ENTITIES, NO_THEMES)
    assert only_pod["independent_sources"].to_list() == [1]


def leads(rows: Sequence[tuple[str, int, str, str, str]]) -> pl.DataFrame:
    """(signal_id, day offset, author, title, text) rows; the text is also the lead."""
    signals = frame([(r[0], r[1], "x.com", r[2], None) for r in rows])
    return signals.with_columns(
        pl.Series("title", [r[3] for r in rows]),
        pl.Series("text", [r[4] for r in rows]),
        pl.Series("lead", [r[4] for r in rows]),
    )


def test_a_title_used_on_many_days_never_titles_a_story() -> None:
    # the digest's title recurs on three days: a heading, not an event
    rows = [
        (f"d{d}", 4 * d, "AINews", "not much happened today", f"Item {d} of the day.")
        for d in range(3)
    ]
    rows.append(("p", 8, "ann", "Talk of the town", "Acme ships Rocket-2 to everyone. More."))
    vectors = np.stack([direction(0), direction(3), direction(6), direction(6, 0.05)])
    stories, _ = build_stories(leads(rows), vectors, NO_ENTITIES, NO_THEMES)
    titles = dict(zip(stories["title_signal_id"], stories["title"], strict=True))
    assert titles["d0"] == "Item 0 of the day."
    # the story of d2 and p: neither title names what the texts name; the central's lead does
    joint = stories.filter(pl.col("signal_count") == 2).row(0, named=True)
    assert joint["title"] in ("Item 2 of the day.", "Acme ships Rocket-2 to everyone.")
    assert "not much happened" not in " ".join(stories["title"].to_list())


def test_the_most_specific_member_title_names_the_story() -> None:
    rows = [
        ("a", 0, "ann", "Big news", "Acme released Rocket-2 with 70b parameters."),
        ("b", 0, "bob", "Rocket-2 from Acme: 70b and open", "Rocket-2 is out, 70b, open."),
    ]
    vectors = np.stack([direction(0), direction(0, 0.05)])
    stories, _ = build_stories(leads(rows), vectors, NO_ENTITIES, NO_THEMES)
    assert stories["title"].to_list() == ["Rocket-2 from Acme: 70b and open"]


def test_a_long_lead_is_cut_at_a_word() -> None:
    from analytics.stories import TITLE_CHARS, lead_title

    long = "Acme " + "launches a very long thing " * 20
    cut = lead_title(long)
    assert len(cut) <= TITLE_CHARS and cut.endswith("…") and " " in cut
    assert lead_title("First one. Second one.") == "First one."


def roundup_inputs() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """A digest (three unrelated units) and two posts, each about one of its items; returns
    (served signals, units, unit embeddings, unit entities)."""
    served = leads(
        [
            ("dig", 0, "AINews", "not much happened today", "Rocket. Llama. Weather."),
            ("p1", 0, "ann", "Rocket-2 is out", "Acme ships Rocket-2."),
            ("p2", 0, "bob", "Llama-9 weights", "Meta posts Llama-9."),
        ]
    ).with_columns(pl.lit(None, dtype=pl.String).alias("copy_key"))
    units = pl.DataFrame(
        {
            "unit_id": ["dig:0", "dig:1", "dig:2", "p1:0", "p2:0"],
            "signal_id": ["dig", "dig", "dig", "p1", "p2"],
            "text": ["Acme ships Rocket-2.", "Meta posts Llama-9.", "Rain.", "x", "y"],
            "start_char": [0, 8, 15, 0, 0],
            "end_char": [7, 14, 23, 10, 10],
        }
    )
    vectors = [direction(0), direction(10), direction(20), direction(0, 0.05), direction(10, 0.05)]
    embeddings = pl.DataFrame(
        {"unit_id": units["unit_id"], "vector": np.stack(vectors)},
        schema={"unit_id": pl.String, "vector": pl.Array(pl.Float32, EMBEDDING_DIM)},
    )
    unit_entities = pl.DataFrame(
        {
            "unit_id": ["dig:0", "dig:1", "dig:2", "p1:0"],
            "entity_id": ["ent_acme", "ent_meta", "ent_rain", "ent_acme"],
        }
    )
    return served, units, embeddings, unit_entities


def roundup_items() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, FloatMatrix]:
    """The roundup inputs' signals and units, and their story items with the items' vectors."""
    from analytics.stories import story_items

    served, units, embeddings, unit_entities = roundup_inputs()
    whole = signal_vectors(
        served["signal_id"].to_list(),
        units["signal_id"].to_list(),
        np.stack(embeddings["vector"].to_list()).astype(np.float32),
    )
    items, vectors = story_items(served, whole, units, embeddings, unit_entities, NO_ENTITIES)
    return served, units, items, vectors


def test_a_roundups_items_join_their_own_events_stories_with_their_units_as_parts() -> None:
    from analytics.stories import render_stories, signal_story

    served, units, items, vectors = roundup_items()
    assert items["item_id"].to_list() == ["dig#0", "dig#1", "dig#2", "p1", "p2"]
    assert items.filter(pl.col("item_id") == "dig#0")["entity_ids"].to_list() == [["ent_acme"]]
    stories, membership = build_stories(items, vectors, NO_ENTITIES, NO_THEMES)
    by_title_signal = {r["title_signal_id"]: r for r in stories.iter_rows(named=True)}
    rocket = next(r for r in stories.iter_rows(named=True) if "p1" in r["signal_ids"])
    assert rocket["signal_ids"] == ["dig", "p1"] and rocket["signal_count"] == 2
    assert rocket["parts"] == [{"signal_id": "dig", "unit_ids": ["dig:0"]}]
    assert rocket["independent_sources"] == 2
    assert "not much happened" not in rocket["title"]
    llama = next(r for r in stories.iter_rows(named=True) if "p2" in r["signal_ids"])
    assert llama["parts"] == [{"signal_id": "dig", "unit_ids": ["dig:1"]}]
    assert len(by_title_signal) == 3  # the rain item is a story of its own
    # the digest is a member of all three stories; its card names the first by its units
    assert membership.filter(pl.col("signal_id") == "dig").height == 3
    of = signal_story(stories)
    assert of["p1"] == rocket["story_id"] and of["p2"] == llama["story_id"]
    assert of["dig"] in set(stories["story_id"].to_list())
    signals = served.with_columns(pl.lit("https://x.com/s").alias("url"))
    entities = pl.DataFrame(schema={"entity_id": pl.String, "name": pl.String, "type": pl.String})
    rendered = render_stories(stories, signals, entities, units)
    detail = orjson.loads(
        rendered.filter(pl.col("story_id") == rocket["story_id"])["detail_json"].item()
    )
    assert detail["parts"] == [
        {"signal_id": "dig", "units": [{"unit_id": "dig:0", "text": "Acme ships Rocket-2."}]}
    ]
    plain = orjson.loads(rendered["list_json"][0])
    assert "parts" not in plain


def test_a_roundups_story_ids_follow_its_items_across_rebuilds() -> None:
    served, units, items, vectors = roundup_items()
    first, members = build_stories(items, vectors, NO_ENTITIES, NO_THEMES)
    # by signal alone the digest, in all three stories, would tie them: its parts carry per unit
    again, _ = build_stories(items, vectors, NO_ENTITIES, NO_THEMES, previous=first)
    assert sorted(again["story_id"].to_list()) == sorted(first["story_id"].to_list())
    assert len(set(first["story_id"].to_list())) == 3
    assert again["merged_from"].list.len().sum() == 0 and again["split_from"].null_count() == 3


def test_an_author_that_is_a_phrase_of_the_text_is_link_text_not_a_publisher() -> None:
    from analytics.stories import publisher_key

    rows = pl.DataFrame(
        {
            "author": ["Source", "gdb", "discussed", "**15%** binding", "Jane Doe", "SakanaAILabs"],
            "domain": ["www.reddit.com", "x.com", "reddit.com", "x.com", "blog.example", "x.com"],
            "text": [
                "OpenAI rolls out voice mode. Source",
                "@gdb shared the paper; gdb is great",
                "A bill, discussed in /r/singularity.",
                "15% binding in the lab.",
                "A long essay on agents.",
                "SakanaAILabs launched a leaderboard.",
            ],
        }
    )
    keys = rows.select(publisher_key().alias("k"))["k"].to_list()
    assert keys == [
        "domain:reddit.com",
        "author:gdb",
        "domain:reddit.com",
        "domain:x.com",
        "author:jane doe",
        "author:sakanaailabs",  # a handle is a name wherever the text mentions it
    ]
    # without the text, only the name's own form is read
    plain = rows.select(publisher_key(text=False).alias("k"))["k"].to_list()
    assert plain[0] == "author:source" and plain[3] == "domain:x.com"
