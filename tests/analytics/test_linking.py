"""Mention linking on small inline registries: boundaries, case rules, overlaps, guards,
families, resolution and the signal/unit frames."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from analytics.entities import Alias, CaseRule, Entity, public_id_for
from analytics.linking import (
    SIGNAL_MENTIONS,
    UNIT_MENTIONS,
    Linker,
    Mention,
    family_closure,
    resolve_entity,
)


def entity(
    key: str,
    name: str,
    *aliases: str | tuple[str, CaseRule],
    family: str | None = None,
    reviewed: bool = True,
    **extra: str,
) -> Entity:
    return Entity(
        entity_id=public_id_for(key),
        key=key,
        name=name,
        type=key.partition(":")[0],
        aliases=tuple(Alias(a) if isinstance(a, str) else Alias(*a) for a in aliases),
        family=public_id_for(family) if family else None,
        reviewed=reviewed,
        extra=dict(extra),
    )


REGISTRY = [
    entity("organization:google", "Google"),
    entity("organization:google-deepmind", "Google DeepMind", "DeepMind"),
    entity("organization:meta", "Meta", ("Meta", "exact"), "Meta Platforms"),
    entity("organization:openai", "OpenAI", "openai"),
    entity("organization:anthropic", "Anthropic"),
    entity("organization:nvidia", "Nvidia", "NVIDIA"),
    entity("organization:ai21", "AI21 Labs", ("AI21", "exact")),
    entity(
        "organization:arm",
        "Arm",
        ("Arm", "exact"),
        "Arm Holdings",
        guard="context",
        context="chip, chips, semiconductor",
    ),
    entity("model:gpt-4", "GPT-4"),
    entity("model:gpt-4o", "GPT-4o", "gpt4o"),
    entity("model:gpt-4-1", "GPT-4.1"),
    entity("model:o1", "o1"),
    entity("model:o1-mini", "o1-mini"),
    entity("model:claude", "Claude", guard="context", org="organization:anthropic"),
    entity("model:claude-3-5-sonnet", "Claude 3.5 Sonnet", family="model:claude"),
    entity("model:claude-opus-4", "Claude Opus 4", family="model:claude"),
    entity("model:claude-opus-4-1", "Claude Opus 4.1", family="model:claude-opus-4"),
    entity("model:sam", "SAM", ("SAM", "exact"), "Segment Anything"),
]
ID = {e.key.partition(":")[2]: e.entity_id for e in REGISTRY}


@pytest.fixture(scope="module")
def linker() -> Linker:
    return Linker(REGISTRY)


def surfaces(linker: Linker, text: str) -> list[tuple[str, str]]:
    """(entity slug, text as written) per mention, in order."""
    slug = {v: k for k, v in ID.items()}
    return [(slug[m.entity_id], m.surface) for m in linker.find_mentions(text)]


def test_longest_match_wins(linker: Linker) -> None:
    assert surfaces(linker, "Google DeepMind, part of Google, and DeepMind alone.") == [
        ("google-deepmind", "Google DeepMind"),
        ("google", "Google"),
        ("google-deepmind", "DeepMind"),
    ]
    assert surfaces(linker, "GPT-4.1 beat GPT-4 and GPT-4o; o1-mini trails o1.") == [
        ("gpt-4-1", "GPT-4.1"),
        ("gpt-4", "GPT-4"),
        ("gpt-4o", "GPT-4o"),
        ("o1-mini", "o1-mini"),
        ("o1", "o1"),
    ]


def test_no_mentions_inside_words(linker: Linker) -> None:
    assert surfaces(linker, "metadata, the Metaverse, an Army, an alarm, AI21x, xOpenAI") == []
    assert surfaces(linker, "Node.Google and openai.com and GPT-4.5") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OpenAI's model", [("openai", "OpenAI")]),
        ("GPT-4o's answer", [("gpt-4o", "GPT-4o")]),
        ("a lab (Anthropic) said", [("anthropic", "Anthropic")]),
        ("the Nvidia-backed startup", [("nvidia", "Nvidia")]),
        ("an ex-OpenAI researcher", [("openai", "OpenAI")]),
        ("OpenAI/Anthropic", [("openai", "OpenAI"), ("anthropic", "Anthropic")]),
        ('"Anthropic."', [("anthropic", "Anthropic")]),
        ("@OpenAI said", [("openai", "OpenAI")]),
    ],
)
def test_punctuation_and_possessives(
    linker: Linker, text: str, expected: list[tuple[str, str]]
) -> None:
    assert surfaces(linker, text) == expected


def test_case_rules_per_alias(linker: Linker) -> None:
    assert surfaces(linker, "AI21 and ai21 and Ai21") == [("ai21", "AI21")]
    assert surfaces(linker, "OPENAI, openai, OpenAi") == [
        ("openai", "OPENAI"),
        ("openai", "openai"),
        ("openai", "OpenAi"),
    ]
    assert surfaces(linker, "Meta and meta-analysis and the meta game") == [("meta", "Meta")]
    # three characters or fewer are matched exactly whatever the rule says
    assert surfaces(linker, "O1 visa, o1 model") == [("o1", "o1")]


def test_separators_unicode_dashes_and_quotes(linker: Linker) -> None:
    assert surfaces(linker, "GPT\u20114o\u2019s and GPT 4o and Google\n  DeepMind") == [
        ("gpt-4o", "GPT\u20114o"),
        ("gpt-4o", "GPT 4o"),
        ("google-deepmind", "Google\n  DeepMind"),
    ]
    assert surfaces(linker, "\u201cOpenAI\u201d \u2014 Anthropic") == [
        ("openai", "OpenAI"),
        ("anthropic", "Anthropic"),
    ]


def test_offsets_point_into_the_original_text(linker: Linker) -> None:
    text = "\u201cWe\u2019re at GPT\u20114o\u201d, said OpenAI."
    for mention in linker.find_mentions(text):
        assert text[mention.start : mention.end] == mention.surface


def test_overlapping_aliases_of_two_entities() -> None:
    registry = [
        entity("organization:mistral", "Mistral AI", "Mistral"),
        entity("other:ai-studio", "AI Studio"),
        entity("model:mistral-large", "Mistral Large"),
        entity("organization:scale", "Scale AI", ("Scale", "exact")),
        entity("other:scale", "Scale", reviewed=False),
    ]
    linker = Linker(registry)
    mentions = linker.find_mentions("Mistral AI Studio and Mistral Large")
    # the longer of two overlapping spans wins; at equal length the earlier one
    assert [m.surface for m in mentions] == ["Mistral AI", "Mistral Large"]
    # one surface form, two entities: the exact-case rule wins over the reviewed flag order
    (scale,) = linker.find_mentions("Scale raised")
    assert scale.entity_id == public_id_for("organization:scale")


def test_shared_surface_form_prefers_display_name_then_reviewed() -> None:
    registry = [
        entity("model:gemini", "Gemini", reviewed=False),
        entity("other:gemini-app", "Gemini App", "Gemini"),
    ]
    (mention,) = Linker(registry).find_mentions("Gemini is here")
    assert mention.entity_id == public_id_for("model:gemini")


def test_context_guard(linker: Linker) -> None:
    assert surfaces(linker, "Arm raised its guidance") == []
    assert surfaces(linker, "Arm designs chips") == [("arm", "Arm")]
    assert surfaces(linker, "Arm Holdings raised its guidance") == [("arm", "Arm Holdings")]
    assert surfaces(linker, "Arm Holdings fell. Arm said") == [
        ("arm", "Arm Holdings"),
        ("arm", "Arm"),
    ]
    # the family's own members and the org vouch for a guarded family name
    assert surfaces(linker, "Claude is verbose") == []
    assert surfaces(linker, "Claude, from Anthropic") == [
        ("claude", "Claude"),
        ("anthropic", "Anthropic"),
    ]
    assert surfaces(linker, "Claude beats Claude Opus 4.1") == [
        ("claude", "Claude"),
        ("claude-opus-4-1", "Claude Opus 4.1"),
    ]
    assert linker.find_mentions("Claude is verbose", vouched={ID["claude"]})


def test_shouted_headline_guard(linker: Linker) -> None:
    assert surfaces(linker, "SAM ALTMAN SAYS AGI IS NEAR") == []
    assert surfaces(linker, "SAM ALTMAN SAYS\nMeta released SAM 2") == [
        ("meta", "Meta"),
        ("sam", "SAM"),
    ]
    assert surfaces(linker, "OPENAI RAISES AGAIN") == [("openai", "OPENAI")]


def test_family_closure() -> None:
    closure = family_closure(REGISTRY)
    assert closure[ID["claude"]] == {
        ID["claude"],
        ID["claude-3-5-sonnet"],
        ID["claude-opus-4"],
        ID["claude-opus-4-1"],
    }
    assert closure[ID["claude-opus-4"]] == {ID["claude-opus-4"], ID["claude-opus-4-1"]}
    assert closure[ID["openai"]] == {ID["openai"]}


def test_family_closure_survives_a_cycle() -> None:
    a = entity("model:a", "A", family="model:b")
    b = entity("model:b", "B", family="model:a")
    assert family_closure([a, b]) == {a.entity_id: {a.entity_id, b.entity_id}} | {
        b.entity_id: {a.entity_id, b.entity_id}
    }


@pytest.mark.parametrize(
    ("query", "slug"),
    [
        (public_id_for("model:claude"), "claude"),
        ("google deepmind", "google-deepmind"),
        ("  OpenAI ", "openai"),
        ("DeepMind", "google-deepmind"),
        ("deepmind", "google-deepmind"),
        ("AI21", "ai21"),
        ("ai21", "ai21"),
        ("GPT 4o", "gpt-4o"),
        ("segment anything", "sam"),
    ],
)
def test_resolve_entity(query: str, slug: str) -> None:
    found = resolve_entity(query, REGISTRY)
    assert found is not None and found.entity_id == ID[slug]


@pytest.mark.parametrize("query", ["", "Microsoft", "organization:openai", "ent:/unknown"])
def test_resolve_unknown(query: str) -> None:
    assert resolve_entity(query, REGISTRY) is None


def test_resolve_prefers_display_name_over_alias() -> None:
    registry = [entity("other:gemini-app", "Gemini App", "Gemini"), entity("model:g", "Gemini")]
    found = resolve_entity("gemini", registry)
    assert found is not None and found.key == "model:g"


def test_link_signals_over_title_and_text(linker: Linker) -> None:
    signals = pl.DataFrame(
        {
            "signal_id": ["s2", "s1", "s3"],
            "title": ["Anthropic ships", None, "Nothing"],
            "text": ["Claude Opus 4 beats GPT-4o. Anthropic again.", "OpenAI and openai", None],
            "domain": ["a.com", "b.com", "c.com"],
        }
    )
    expected = pl.DataFrame(
        [
            ("s1", ID["openai"]),
            *sorted(("s2", ID[s]) for s in ("anthropic", "claude-opus-4", "gpt-4o")),
        ],
        schema=SIGNAL_MENTIONS,
        orient="row",
    )
    assert_frame_equal(linker.link_signals(signals), expected)


def test_link_units_with_signal_context(linker: Linker) -> None:
    units = pl.DataFrame(
        {
            "unit_id": ["u1", "u2", "u3"],
            "signal_id": ["s1", "s1", "s2"],
            "text": ["Claude got faster.", "Anthropic said so.", "Claude got faster."],
        }
    )
    signal_mentions = pl.DataFrame(
        [("s1", ID["anthropic"]), ("s1", ID["claude"])], schema=SIGNAL_MENTIONS, orient="row"
    )
    linked = linker.link_units(units, signal_mentions=signal_mentions)
    expected = pl.DataFrame(
        [("u1", ID["claude"]), ("u2", ID["anthropic"])], schema=UNIT_MENTIONS, orient="row"
    )
    assert_frame_equal(linked, expected)
    assert linker.link_units(units).height == 1  # without the signal, Claude is unvouched


def test_empty_registry_and_empty_text() -> None:
    assert Linker([]).find_mentions("OpenAI") == []
    assert Linker(REGISTRY).find_mentions("") == []
    empty = pl.DataFrame(schema={"signal_id": pl.String, "title": pl.String, "text": pl.String})
    assert Linker(REGISTRY).link_signals(empty).schema == SIGNAL_MENTIONS


def test_is_surface_form(linker: Linker) -> None:
    assert linker.is_surface_form("google deepmind")
    assert linker.is_surface_form("AI21") and not linker.is_surface_form("ai21")
    assert not linker.is_surface_form("Microsoft")


def test_deterministic_across_registry_order() -> None:
    text = "Google DeepMind, Meta, SAM 2, Claude Opus 4.1 and GPT-4o's rival o1-mini"
    first = Linker(REGISTRY).find_mentions(text)
    assert Linker(list(reversed(REGISTRY))).find_mentions(text) == first
    assert first == Linker(REGISTRY).find_mentions(text)


def test_linkers_over_the_same_forms_share_their_compiled_matchers() -> None:
    # compiling a registry's alternations is the slow part of a linker: a process compiles
    # each distinct set of forms once, and a changed registry gets matchers of its own
    text = "Google DeepMind and Anthropic; Acme Robotics too"
    first, again = Linker(REGISTRY), Linker(list(reversed(REGISTRY)))
    assert all(a is b for a, b in zip(first._matchers, again._matchers, strict=True))
    grown = Linker([*REGISTRY, entity("organization:acme", "Acme Robotics")])
    # the exact-case forms are the same set, the case-insensitive ones are not
    assert [a is b for a, b in zip(first._matchers, grown._matchers, strict=True)] == [True, False]
    assert "Acme Robotics" not in [m.surface for m in first.find_mentions(text)]
    assert "Acme Robotics" in [m.surface for m in grown.find_mentions(text)]
    assert first.find_mentions(text) == again.find_mentions(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="GoOgle DeepMind-.'’/()aAI21o1Meta\n", max_size=80))
def test_mentions_are_ordered_disjoint_whole_words(text: str) -> None:
    mentions = Linker(REGISTRY).find_mentions(text)
    for mention in mentions:
        assert isinstance(mention, Mention)
        assert text[mention.start : mention.end] == mention.surface
        assert mention.start == 0 or not text[mention.start - 1].isalnum()
        assert mention.end == len(text) or not text[mention.end].isalnum()
    for before, after in zip(mentions, mentions[1:], strict=False):
        assert before.end <= after.start
