from __future__ import annotations

from analytics.entities import (
    Alias,
    Entity,
    fold_name,
    is_internal_key,
    public_id_for,
    slugify,
)
from analytics.linking import EntityIndex

CLAUDE = Entity("ent:/claude0000", "model:claude", "Claude", "model", (Alias("Claude", "exact"),))
OPUS = Entity(
    "ent:/opus400000",
    "model:claude-opus-4",
    "Claude Opus 4",
    "model",
    (Alias("Opus 4"),),
    family="ent:/claude0000",
)
OPUS_41 = Entity(
    "ent:/opus410000",
    "model:claude-opus-4-1",
    "Claude Opus 4.1",
    "model",
    family="ent:/opus400000",
)
META = Entity(
    "ent:/meta000000",
    "organization:meta",
    "Meta",
    "organization",
    (Alias("Meta", "exact"), Alias("Meta Platforms")),
)
INDEX = EntityIndex([CLAUDE, OPUS, OPUS_41, META])


def test_resolve_by_id_name_and_alias_with_case_rules() -> None:
    assert INDEX.resolve("ent:/opus400000") is OPUS
    assert INDEX.resolve("claude opus 4") is OPUS
    assert INDEX.resolve("opus 4") is OPUS
    assert INDEX.resolve("META PLATFORMS") is META
    assert INDEX.resolve("meta") is META, "display names match in any case"
    assert INDEX.resolve("ent:/unknown000") is None
    assert INDEX.resolve("Gemini") is None


def test_family_covers_descendants() -> None:
    assert INDEX.family(CLAUDE.entity_id) == {
        "ent:/claude0000",
        "ent:/opus400000",
        "ent:/opus410000",
    }
    assert INDEX.family(OPUS_41.entity_id) == {"ent:/opus410000"}


def test_ids_and_internal_keys() -> None:
    new_id = public_id_for("organization:openai")
    assert new_id.startswith("ent:/") and len(new_id) == 15
    assert new_id == public_id_for("organization:openai")
    assert is_internal_key("organization:openai")
    assert not is_internal_key("ent:/abc") and not is_internal_key("OpenAI")
    assert not is_internal_key("planet:earth")


def test_one_slug_rule_keeps_versions_apart_and_folds_accents() -> None:
    assert slugify("GPT-4.5") == "gpt-4.5"
    assert slugify("GPT-4-5") == "gpt-4-5"
    assert slugify("Claude 3.5 Sonnet") == "claude-3.5-sonnet"
    assert slugify("Mistral Large 2+") == "mistral-large-2+"
    assert slugify("Zürich Instruments") == "zurich-instruments"
    assert slugify("  .Hello, World!. ") == "hello-world"
    assert slugify("北京") == "x"  # nothing left in ASCII: still a valid key


def test_a_name_folds_its_spaces_and_its_case() -> None:
    assert fold_name("  Kimi\tK2 ") == fold_name("kimi  k2") == "kimi k2"
    assert fold_name("Straße") == fold_name("STRASSE")  # case-folded, not only lower-cased
