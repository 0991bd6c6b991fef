"""Discovery of unreviewed candidates: recurrence, registry exclusion, noise, type guesses."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import UTC, datetime

import polars as pl
import pytest

from analytics.discovery import (
    cue_baseline,
    discover,
    discovered_id,
    family_of,
    guess_type,
    rejection,
    short_forms,
)
from analytics.entities import Alias, Entity, public_id_for
from analytics.entity_review import (
    EntityReviewError,
    apply_decisions,
    reviewed_set,
    with_aliases,
)
from analytics.linking import EntityIndex, Linker

LINKER = Linker(
    [
        Entity(
            public_id_for("organization:openai"), "organization:openai", "OpenAI", "organization"
        ),
        Entity(
            public_id_for("model:gpt-4o"),
            "model:gpt-4o",
            "GPT-4o",
            "model",
            aliases=(Alias("GPT 4o"),),
        ),
    ]
)


def corpus(*texts: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "signal_id": [f"s{i}" for i in range(len(texts))],
            "title": ["Big News About Everything"] * len(texts),
            "text": [text for _, text in texts],
            "domain": [domain for domain, _ in texts],
        }
    )


SIGNALS = corpus(
    (
        "a.com",
        "The Thinking Machines Lab team met Sam Altman's rivals. Veo 3 shipped. "
        "Moonshot Research agreed.",
    ),
    ("b.com", "In March, Thinking Machines Lab hired again; Sam Altman said Veo 3 is good."),
    ("c.com", "Sam Altman argued that Qwen3 and o3-mini matter. Model Developments matter."),
    ("d.com", "Meanwhile Qwen3 beat o3-mini at OpenAI Codex tasks. Model Developments again."),
    ("a.com", "Moonshot Research published; Moonshot Research was cited twice on a.com."),
    ("e.com", "model developments are ordinary words; a series of model developments."),
    ("f.com", "Tuesday Update: Q3 revenue and FP8 kernels; Q3 again, FP8 again, H200 racks."),
    ("g.com", "Tuesday Update: H200 racks ship, with Series B money and the OpenAI API."),
)


def names(found: list[Entity]) -> dict[str, str]:
    return {e.name: e.type for e in found}


def test_recurring_names_across_signals_and_domains() -> None:
    found = discover(SIGNALS, LINKER).candidates
    assert names(found) == {
        "Sam Altman": "person",
        "Thinking Machines Lab": "organization",
        "Veo 3": "model",
        "Qwen3": "model",
        "o3-mini": "model",
        "H200": "hardware",
    }
    for candidate in found:
        assert not candidate.reviewed
        assert candidate.entity_id == discovered_id(candidate.name)
        assert candidate.key.startswith(f"{candidate.type}:")
    sam = next(e for e in found if e.name == "Sam Altman")
    # without publication times, each signal counts as its own day
    # the id comes from the name alone: a later build that types it otherwise keeps it
    assert sam.entity_id == discovered_id("Sam Altman") != public_id_for(sam.key)
    assert (sam.key, sam.extra) == (
        "person:sam-altman",
        {"signals": "3", "domains": "3", "days": "3"},
    )
    assert found[0].name == "Sam Altman"  # most signals first


def test_thresholds() -> None:
    # one domain only: Moonshot Research recurs but is not corroborated elsewhere
    assert "Moonshot Research" not in names(discover(SIGNALS, LINKER).candidates)
    loose = names(discover(SIGNALS, LINKER, min_signals=2, min_domains=1).candidates)
    assert "Moonshot Research" in loose
    strict = names(discover(SIGNALS, LINKER, min_signals=3).candidates)
    assert set(strict) == {"Sam Altman"}


def test_registry_names_and_their_neighbours_are_not_candidates() -> None:
    found = names(discover(SIGNALS, LINKER, min_signals=1, min_domains=1).candidates)
    assert not {"OpenAI", "OpenAI Codex", "GPT-4o", "OpenAI API"} & set(found)


def test_noise_is_not_proposed() -> None:
    found = names(discover(SIGNALS, LINKER, min_signals=1, min_domains=1).candidates)
    # ordinary words in capitals, function words, codes, headlines and possessives
    for noise in ("Model Developments", "In March", "Q3", "FP8", "Series B", "Big News"):
        assert noise not in found
    assert "Sam Altman's" not in found and "Meanwhile Qwen3" not in found
    assert "Tuesday Update" not in found


def test_empty_corpus() -> None:
    assert discover(corpus(), LINKER).candidates == []


def test_deterministic() -> None:
    assert discover(SIGNALS, LINKER).candidates == discover(SIGNALS, LINKER).candidates
    shuffled = SIGNALS.reverse()
    assert names(discover(shuffled, LINKER).candidates) == names(
        discover(SIGNALS, LINKER).candidates
    )


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Sakana AI", "organization"),
        ("Acme Inc", "organization"),
        ("Reflection Labs", "organization"),
        ("MI300X", "hardware"),
        ("RTX 4090", "hardware"),
        ("Veo 3", "model"),
        ("gpt-oss-20b", "model"),
        ("AIME 2025", "other"),
        ("Apache 2.0", "other"),
        ("Apache-2.0", "other"),
        ("Demis Hassabis", "person"),
        ("Yann LeCun", "person"),
        ("San Francisco", "other"),
        ("Artificial Analysis", "other"),
    ],
)
def test_guess_type(name: str, kind: str) -> None:
    assert guess_type(name) == kind


def test_discovered_keys_use_the_registry_slug_rule() -> None:
    # one slug rule (analytics.entities.slugify): a dotted version keeps its dot, as the
    # registry's keys do, so "Veo 3.1" discovered is "model:veo-3.1", never "model:veo-3-1"
    found = discover(
        corpus(
            ("a.com", "Veo 3.1 shipped today."),
            ("b.com", "Critics said Veo 3.1 is slow."),
            ("c.com", "Veo 3.1 again."),
        ),
        LINKER,
    ).candidates
    assert [(e.name, e.key) for e in found] == [("Veo 3.1", "model:veo-3.1")]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        # job titles and roles
        ("Chief Scientist", "role"),
        ("GenAI Application Engineer", "role"),
        # benchmark scores
        ("Code Arena Elo 1588", "score"),
        ("DeepSWE 65.3", "score"),
        ("ELO 1098", "score"),
        # packaging and quantization variants, number formats
        ("Qwen3 GGUFs", "packaging"),
        ("Dynamic GGUFs", "packaging"),
        ("HiDream LoRA", "packaging"),
        ("Q4_K_M", "format"),
        ("float8", "format"),
        # periods, licences, plurals of a product code
        ("Q1 2025", "period"),
        ("Jan 8", "period"),
        ("Apache 2.0", "licence"),
        ("H200s", "plural"),
        ("RTX 4090s", "plural"),
        # methods named by their head word, descriptions, fragments of a longer name
        ("Direct Nash Optimization", "method"),
        ("Monte Carlo Tree Search", "method"),
        ("Python SDK", "descriptor"),
        ("AI-native LLM", "descriptor"),
        ("Pro Max", "fragment"),
        ("Large 2", "fragment"),
        ("System 2", "fragment"),
        ("GPT-4-level", "descriptor"),
        ("Llama-3.x", "fragment"),
    ],
)
def test_cleaning_rejects_what_is_no_entity(name: str, why: str) -> None:
    assert rejection(name) == why


@pytest.mark.parametrize(
    "name",
    ["Sam Altman", "Max Tegmark", "Veo 3", "Qwen3.8-27B", "Thinking Machines Lab", "MiniCPM-o 2.6"],
)
def test_cleaning_keeps_names(name: str) -> None:
    assert rejection(name) is None


GIVEN = frozenset({"Sanjay", "Quoc", "Tim"})


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # people: a given name from the list, or a pinyin name, with a capitalized surname
        ("Quoc Le", "person"),
        ("Sanjay Ghemawat", "person"),
        ("Junyang Lin", "person"),
        ("Xiaohua Zhai", "person"),
        # models by their parameter count, software by its version, benchmarks by their size
        ("ReasonFlux-32B", "model"),
        ("Mixtral-8x22B-Instruct-v0.1", "model"),
        ("Windows 11", "other"),
        ("Python 3.11", "other"),
        ("MATH-500", "other"),
        ("ADE20K", "other"),
        ("QuTLASS v0.1.0", "other"),
        ("SWE-bench Verified", "other"),
        # chips by their head word, events by theirs or a venue's year, bills by their number
        ("Hexagon NPU", "hardware"),
        ("A6000", "hardware"),
        ("AtCoder Heuristic Competition", "event"),
        ("EMNLP2024", "event"),
        ("SB1047", "regulation_policy"),
        ("Red Hat Inc", "organization"),
        ("UC San Diego", "organization"),
        # a company word after a given name: "Calder" is a first name, "Calder Health" a firm
        ("Calder Health", "organization"),
        ("Recursion Pharmaceuticals", "organization"),
        ("Middle East", "location"),
    ],
)
def test_guess_type_from_the_name(name: str, kind: str) -> None:
    assert guess_type(name, given_names=GIVEN) == kind


def test_the_context_types_what_the_name_does_not() -> None:
    # weighed against the contexts of every candidate: "model" is near everything in AI news
    robot = Counter("the humanoid robot ships with a new gpu and chip model".split())
    startup = Counter("the startup raised a round from investors model".split())
    plain = Counter("people like it and use it with the model every day".split())
    baseline = cue_baseline([robot, startup, plain, plain, plain])
    assert guess_type("Figure Helix", robot, baseline=baseline) == "hardware"
    assert guess_type("Figure Helix", startup, baseline=baseline) == "organization"
    assert guess_type("Figure Helix", plain, baseline=baseline) == "other"
    # a given name with a surname the corpus writes in lower case is no person: "Song"
    assert guess_type("Tim Song", no_surname=lambda w: w == "Song", given_names=GIVEN) != ("person")
    assert guess_type("Tim Song", given_names=GIVEN) == "person"


REGISTRY = [
    Entity(public_id_for("model:qwen"), "model:qwen", "Qwen", "model"),
    Entity(
        public_id_for("model:claude-opus"),
        "model:claude-opus",
        "Claude Opus",
        "model",
        family=public_id_for("model:claude"),
    ),
    Entity(public_id_for("model:claude"), "model:claude", "Claude", "model"),
    Entity(public_id_for("organization:figure"), "organization:figure", "Figure", "organization"),
]


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("Qwen3.8-27B", public_id_for("model:qwen")),  # the letters before the version
        ("Qwen 4 Max", public_id_for("model:qwen")),  # the leading words
        ("Claude Opus 5.1", public_id_for("model:claude")),  # the entry's own family
        ("Figure 03", None),  # an organization is no family
        ("Gemma 4", None),  # not in the registry
    ],
)
def test_a_versioned_model_joins_its_family(name: str, family: str | None) -> None:
    assert family_of(name, "model", EntityIndex(REGISTRY)) == family
    assert family_of(name, "person", EntityIndex(REGISTRY)) is None


def test_discovery_types_by_context_attaches_families_and_counts_days() -> None:
    signals = pl.DataFrame(
        {
            "signal_id": ["s1", "s2", "s3", "s4"],
            "text": [
                "Qwen3.8-27B weights are out, said Quoc Le.",
                "Quoc Le: Qwen3.8-27B tops the open model charts.",
                "Introducing Qwen3.8-27B today, after introducing its sibling. Chief Scientist "
                "Quoc Le agreed.",
                "Qwen3.8-27B GGUFs landed; DeepSWE 65.3 on the board; DeepSWE 65.3 again.",
            ],
            "domain": ["a.com", "b.com", "c.com", "d.com"],
            "published_at": [
                datetime(2026, 1, 5, 9, tzinfo=UTC),
                datetime(2026, 1, 5, 18, tzinfo=UTC),
                datetime(2026, 1, 6, tzinfo=UTC),
                datetime(2026, 1, 7, tzinfo=UTC),
            ],
        }
    )
    found = discover(
        signals, Linker(REGISTRY), given_names=GIVEN, index=EntityIndex(REGISTRY)
    ).candidates
    by_name = {e.name: e for e in found}
    # no sentence-initial verb, title, score or packaging suffix
    assert set(by_name) == {"Qwen3.8-27B", "Quoc Le"}
    qwen = by_name["Qwen3.8-27B"]
    assert (qwen.type, qwen.family) == ("model", public_id_for("model:qwen"))
    assert qwen.extra == {"signals": "4", "domains": "4", "days": "3"}
    assert by_name["Quoc Le"].type == "person"


def test_a_word_that_heads_several_product_names_is_no_surname() -> None:
    # "Tim" is a given name, but "Studio" ends "Vela Studio" and "Orbit Studio" too
    texts = [
        "Tim Studio shipped; Vela Studio and Orbit Studio followed. Tim Brooks agreed.",
        "Tim Studio again, beside Vela Studio and Orbit Studio. Tim Brooks said so.",
    ]
    signals = pl.DataFrame({"signal_id": ["s1", "s2"], "text": texts, "domain": ["a.com", "b.com"]})
    found = names(discover(signals, LINKER, given_names=GIVEN).candidates)
    assert found["Tim Brooks"] == "person"
    assert found["Tim Studio"] != "person"


def test_a_new_variant_glued_to_a_registry_name_is_discovered_into_its_family() -> None:
    gpt51 = Entity(public_id_for("model:gpt-5.1"), "model:gpt-5.1", "GPT-5.1", "model")
    registry = [*REGISTRY, gpt51]
    signals = corpus(
        ("a.com", "GPT-5.1-Codex ships today; GPT-5.1 itself is older. OpenAI Codex too."),
        ("b.com", "We tried GPT-5.1-Codex on a refactor, Qwen3.8-Coder on tests."),
        ("c.com", "Qwen3.8-Coder and GPT-5.1-Codex lead; Qwen3.8-Coder is open."),
    )
    found = {
        e.name: e
        for e in discover(signals, Linker(registry), index=EntityIndex(registry)).candidates
    }
    assert found["GPT-5.1-Codex"].family == gpt51.entity_id
    assert found["Qwen3.8-Coder"].family == public_id_for("model:qwen")
    assert "GPT-5.1" not in found and "OpenAI Codex" not in found


HAIKU = Entity(
    public_id_for("model:claude-haiku-4.5"), "model:claude-haiku-4.5", "Claude Haiku 4.5", "model"
)


def test_a_known_model_written_short_is_an_alias_not_a_candidate() -> None:
    """ "Haiku 4.5" is "Claude Haiku 4.5" without its brand: its mentions are that entity's."""
    signals = corpus(
        ("a.com", "Haiku 4.5 is fast. Zeta Vega 3 ships."),
        ("b.com", "We moved to Haiku 4.5 for triage, and Vega 3 for code."),
        ("c.com", "Vega 3 beats Haiku 4.5 on price; Zeta Vega 3 is open."),
        ("d.com", "Blue Harbor and the Grand Blue Harbor; Vega 3 again."),
        ("e.com", "Blue Harbor again, the Grand Blue Harbor again."),
    )
    registry = [HAIKU]
    found = discover(signals, Linker(registry), index=EntityIndex(registry))
    assert found.aliases == {HAIKU.entity_id: ["Haiku 4.5"]}
    by_name = {e.name: e for e in found.candidates}
    assert "Haiku 4.5" not in by_name
    # a longer candidate takes its short form as an alias and its counts
    assert "Vega 3" not in by_name
    vega = by_name["Zeta Vega 3"]
    assert vega.aliases == (Alias("Vega 3", "exact"),)
    assert (vega.extra["signals"], vega.extra["domains"]) == ("4", "4")
    # names with no digit are left alone: places and institutions nest
    assert {"Blue Harbor", "Grand Blue Harbor"} <= set(by_name)
    # the aliases link: the short mentions count for the entity
    known = with_aliases(apply_decisions(registry, []), found.aliases)
    everything, _ = reviewed_set(known, found.candidates)
    linked = Linker(everything).link_signals(signals)
    haiku_signals = linked.filter(pl.col("entity_id") == HAIKU.entity_id)["signal_id"]
    assert sorted(haiku_signals.to_list()) == ["s0", "s1", "s2"]
    vega_signals = linked.filter(pl.col("entity_id") == vega.entity_id)["signal_id"]
    assert sorted(vega_signals.to_list()) == ["s0", "s1", "s2", "s3"]


def test_a_short_form_of_two_names_is_left_alone() -> None:
    signals = corpus(
        ("a.com", "Zeta Vega 3 and Omni Vega 3 both ship."),
        ("b.com", "Zeta Vega 3 or Omni Vega 3? Vega 3, say some."),
        ("c.com", "Vega 3 is what people call them."),
    )
    found = discover(signals, Linker([]))
    assert {"Zeta Vega 3", "Omni Vega 3", "Vega 3"} <= {e.name for e in found.candidates}
    assert found.aliases == {}
    assert short_forms([("vega 3", "Vega 3")], [HAIKU]) == {}
    assert short_forms([("haiku 4.5", "Haiku 4.5")], [HAIKU]) == {
        "haiku 4.5": ("entity", HAIKU.entity_id)
    }


def test_known_names_in_another_case_and_a_persons_decisions_are_left_alone() -> None:
    kimi = Entity(public_id_for("model:kimi-k2-thinking"), "model:k", "Kimi K2 Thinking", "model")
    short = Entity(
        public_id_for("model:k2-thinking"),
        "model:k2",
        "K2 Thinking",
        "model",
        aliases=(Alias("K2 Thinking", "exact"),),
    )
    # "K2 THINKING" is a known name in another case, not a short form of Kimi K2 Thinking
    assert short_forms([("k2 thinking", "K2 THINKING")], [kimi, short]) == {}
    assert short_forms([("k2 thinking", "K2 Thinking")], [kimi]) == {
        "k2 thinking": ("entity", kimi.entity_id)
    }
    names = [("zeta vega 3", "Zeta Vega 3"), ("vega 3", "Vega 3")]
    assert short_forms(names, []) == {"vega 3": ("candidate", "zeta vega 3")}
    # a rejected (or merged) longer candidate takes no short form; a settled one is no short form
    assert short_forms(names, [], settled=frozenset({"zeta vega 3"})) == {}
    assert short_forms(names, [], settled=frozenset({"vega 3"})) == {}


def test_with_aliases_keeps_a_persons_decisions_and_refuses_an_unknown_entity() -> None:
    known = apply_decisions([HAIKU], [])
    known = dataclasses.replace(known, rejected=frozenset({"haiku 4.5 max"}))
    added = with_aliases(known, {HAIKU.entity_id: ["Haiku 4.5", "Haiku 4.5 Max"]})
    (entity,) = added.entities
    assert entity.aliases == (Alias("Haiku 4.5", "exact"),)
    assert added.merged == {"haiku 4.5": HAIKU.entity_id}
    with pytest.raises(EntityReviewError, match="no entity"):
        with_aliases(known, {"ent:/nobody": ["Nobody 1"]})
