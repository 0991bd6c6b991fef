"""Discovery of unreviewed candidates: recurrence, registry exclusion, noise, type guesses."""

from __future__ import annotations

import polars as pl
import pytest

from analytics.discovery import discover_candidates, guess_type
from analytics.entities import Alias, Entity, public_id_for
from analytics.linking import Linker

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
    found = discover_candidates(SIGNALS, LINKER)
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
        assert candidate.entity_id == public_id_for(candidate.key)
        assert candidate.key.startswith(f"{candidate.type}:")
    sam = next(e for e in found if e.name == "Sam Altman")
    assert (sam.key, sam.extra) == ("person:sam-altman", {"signals": "3", "domains": "3"})
    assert found[0].name == "Sam Altman"  # most signals first


def test_thresholds() -> None:
    # one domain only: Moonshot Research recurs but is not corroborated elsewhere
    assert "Moonshot Research" not in names(discover_candidates(SIGNALS, LINKER))
    loose = names(discover_candidates(SIGNALS, LINKER, min_signals=2, min_domains=1))
    assert "Moonshot Research" in loose
    strict = names(discover_candidates(SIGNALS, LINKER, min_signals=3))
    assert set(strict) == {"Sam Altman"}


def test_registry_names_and_their_neighbours_are_not_candidates() -> None:
    found = names(discover_candidates(SIGNALS, LINKER, min_signals=1, min_domains=1))
    assert not {"OpenAI", "OpenAI Codex", "GPT-4o", "OpenAI API"} & set(found)


def test_noise_is_not_proposed() -> None:
    found = names(discover_candidates(SIGNALS, LINKER, min_signals=1, min_domains=1))
    # ordinary words in capitals, function words, codes, headlines and possessives
    for noise in ("Model Developments", "In March", "Q3", "FP8", "Series B", "Big News"):
        assert noise not in found
    assert "Sam Altman's" not in found and "Meanwhile Qwen3" not in found
    assert "Tuesday Update" not in found


def test_empty_corpus() -> None:
    assert discover_candidates(corpus(), LINKER) == []


def test_deterministic() -> None:
    assert discover_candidates(SIGNALS, LINKER) == discover_candidates(SIGNALS, LINKER)
    shuffled = SIGNALS.reverse()
    assert names(discover_candidates(shuffled, LINKER)) == names(
        discover_candidates(SIGNALS, LINKER)
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
    found = discover_candidates(
        corpus(
            ("a.com", "Veo 3.1 shipped today."),
            ("b.com", "Critics said Veo 3.1 is slow."),
            ("c.com", "Veo 3.1 again."),
        ),
        LINKER,
    )
    assert [(e.name, e.key) for e in found] == [("Veo 3.1", "model:veo-3.1")]
