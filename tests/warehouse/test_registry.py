"""The entity registry: the committed file passes its schema check and has the content linking
needs; every schema error is reported; writing round-trips; seeding is idempotent and keeps ids."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from analytics.entities import ENTITY_TYPES, public_id_for, slugify
from demo import planted
from demo import vocabulary as v
from warehouse.registry import (
    DEFAULT_REGISTRY,
    PUBLIC_ID_RE,
    RegistryError,
    dump_registry,
    load_registry,
    registry_path,
    write_registry,
)
from warehouse.registry_seed import DEFAULT_CURATED, auto_case, main, seed_registry

MIN_PER_TYPE = {
    "organization": 100,
    "person": 50,
    "model": 80,
    "hardware": 40,
    "location": 40,
    "event": 10,
    "regulation_policy": 15,
    "other": 40,
}


@pytest.fixture(scope="module")
def committed() -> list[Any]:
    return load_registry(DEFAULT_REGISTRY)


def _forms(entities: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for entity in entities:
        for alias in entity.surface_forms():
            out.setdefault(alias.text, []).append((entity, alias.case))
    return out


# --- the committed registry ------------------------------------------------------------------


def test_committed_registry_loads_with_enough_entities_of_every_type(committed: list[Any]) -> None:
    counts = Counter(e.type for e in committed)
    assert len(committed) >= 400
    for etype in ENTITY_TYPES:
        assert counts[etype] >= MIN_PER_TYPE[etype], (etype, counts[etype])


def test_public_ids_are_well_formed_and_unique(committed: list[Any]) -> None:
    ids = [e.entity_id for e in committed]
    assert all(PUBLIC_ID_RE.match(i) for i in ids)
    assert len(set(ids)) == len(ids)
    assert len({e.key for e in committed}) == len(committed)


def test_families_resolve(committed: list[Any]) -> None:
    by_id = {e.entity_id: e for e in committed}
    by_name = {e.name: e for e in committed}
    for entity in committed:
        if entity.family is not None:
            assert entity.family in by_id
    for member, family in [
        ("Claude Opus 4", "Claude"),
        ("Claude 3.5 Sonnet", "Claude"),
        ("GPT-4o", "GPT-4"),
        ("GPT-4.1", "GPT-4"),
        ("GPT-4", "GPT"),
        ("Gemini 2.5 Pro", "Gemini"),
        ("Llama 4 Maverick", "Llama"),
        ("o3", "OpenAI o-series"),
        ("H100", "Nvidia Hopper"),
        ("Nvidia H100 SXM5 80GB", "H100"),
    ]:
        assert by_id[by_name[member].family].name == family, member


def test_demo_vocabulary_and_planted_names_are_registered(committed: list[Any]) -> None:
    forms = _forms(committed)
    names = {p.name for p in planted.PLANTED}
    names |= {c for companies in v.COMPANIES.values() for c in companies}
    names |= {m for models in v.MODELS_BY_COMPANY.values() for m in models}
    names |= set(v.ACCELERATORS) | set(v.PLATFORMS) | set(v.PEOPLE)
    names |= {"HBM3E", "HBM4", "LPDDR5X", "Abilene", "Hsinchu", "Computex", "Google I/O"}
    names |= {"EU AI Act", "CHIPS Act", "GDPR", "Digital Markets Act", "Colorado AI Act"}
    missing = sorted(n for n in names if n not in forms)
    assert not missing


def test_case_rules_of_well_known_forms(committed: list[Any]) -> None:
    forms = _forms(committed)
    assert {case for _, case in forms["Meta"]} == {"exact"}
    assert {case for _, case in forms["xAI"]} == {"exact"}
    assert {case for _, case in forms["AI21"]} == {"exact"}
    assert {case for _, case in forms["AWS"]} == {"exact"}
    assert [case for _, case in forms["OpenAI"]] == ["insensitive"]
    assert [e.type for e, _ in forms["ChatGPT"]] == ["other"]
    assert [e.type for e, _ in forms["GPT-4o"]] == ["model"]
    assert [e.type for e, _ in forms["OpenAI"]] == ["organization"]
    for text, claims in forms.items():
        for _, case in claims:
            if case == "insensitive":
                assert len(text) > 4, text


def test_epoch_derived_entries_carry_their_source(committed: list[Any]) -> None:
    derived = [e for e in committed if e.extra.get("source") == "epoch"]
    assert derived, "the committed registry is seeded from Epoch AI data"
    assert all("epoch_name" in e.extra for e in derived)


def test_default_registry_is_overridable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMI_REGISTRY", str(tmp_path / "r.yaml"))
    assert registry_path() == tmp_path / "r.yaml"
    monkeypatch.delenv("AIMI_REGISTRY")
    assert registry_path() == DEFAULT_REGISTRY


# --- schema errors ---------------------------------------------------------------------------


def _entry(name: str, etype: str = "organization", **fields: Any) -> dict[str, Any]:
    key = f"{etype}:{slugify(name)}"
    return {"id": public_id_for(key), "key": key, "name": name, "type": etype, **fields}


def _problems(tmp_path: Path, entries: list[Any]) -> list[str]:
    path = tmp_path / "entities.yaml"
    path.write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")
    with pytest.raises(RegistryError) as info:
        load_registry(path)
    assert str(path) in str(info.value)
    return info.value.problems


def test_valid_small_registry_loads(tmp_path: Path) -> None:
    path = tmp_path / "entities.yaml"
    entries = [_entry("OpenAI"), _entry("Meta", case="exact", aliases=["Meta Platforms"])]
    path.write_text(yaml.safe_dump(entries), encoding="utf-8")
    assert [e.name for e in load_registry(path)] == ["OpenAI", "Meta"]


def test_an_unchanged_registry_is_parsed_once_and_an_edit_is_seen_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warehouse.registry as registry

    path = tmp_path / "entities.yaml"
    path.write_text(yaml.safe_dump([_entry("OpenAI")]), encoding="utf-8")
    parses: list[Path] = []
    real = registry._parse_registry
    monkeypatch.setattr(registry, "_parse_registry", lambda p: parses.append(p) or real(p))
    first = load_registry(path)
    first.append(first[0])  # the caller's list is its own
    assert [e.name for e in load_registry(path)] == ["OpenAI"]
    assert len(parses) == 1
    path.write_text(yaml.safe_dump([_entry("OpenAI"), _entry("Mistral AI")]), encoding="utf-8")
    assert [e.name for e in load_registry(path)] == ["OpenAI", "Mistral AI"]
    assert len(parses) == 2


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (_entry("Foo", etype="company"), "field 'type': unknown type 'company'"),
        ({**_entry("Foo"), "name": ""}, "field 'name' is missing"),
        ({**_entry("Foo"), "id": "ent:/ABC"}, "field 'id': 'ent:/ABC' is not ent:/"),
        ({**_entry("Foo"), "id": "ent:/abcdefgh18"}, "field 'id'"),
        ({**_entry("Foo"), "key": "person:foo"}, "field 'key'"),
        (_entry("Foo", aliases=["F"]), "'F' is shorter than 2 characters"),
        (_entry("Foo Corp", aliases=["FOO"]), "'FOO' is 4 characters or fewer"),
        (_entry("Apple Inc.", aliases=["Apple"]), "'Apple' is an English word"),
        (_entry("Foo", wikipedia_url="https://example.com/Foo"), "field 'wikipedia_url'"),
        (_entry("Foobar", colour="red"), "unknown field(s) colour"),
        (_entry("Foobar", shared_aliases=["Baz"]), "'Baz' is not the name or an alias"),
        (_entry("Foobar", aliases=["Foo Bar", "foo bar"]), "repeats a form"),
        (_entry("Foobar", reviewed="yes"), "field 'reviewed'"),
    ],
)
def test_each_entry_problem_is_reported(
    tmp_path: Path, entry: dict[str, Any], expected: str
) -> None:
    problems = _problems(tmp_path, [_entry("OpenAI"), entry])
    assert any(expected in p and p.startswith("entry 1") for p in problems), problems


def test_duplicate_id_and_key(tmp_path: Path) -> None:
    first = _entry("Foobar")
    problems = _problems(tmp_path, [first, {**first, "name": "Foobaz"}])
    assert any("entry 1 (Foobaz): field 'id': duplicate id" in p for p in problems)
    assert any("field 'key': duplicate key organization:foobar" in p for p in problems)


def test_family_problems(tmp_path: Path) -> None:
    a, b, c = _entry("Alpha One"), _entry("Beta Two"), _entry("Gamma Three")
    a["family"], b["family"] = b["id"], a["id"]
    c["family"] = c["id"]
    unknown = _entry("Delta Four", family="ent:/aaaaaaaaaa")
    problems = _problems(tmp_path, [a, b, c, unknown])
    assert any("entry 0 (Alpha One): field 'family': forms a cycle" in p for p in problems)
    assert any("entry 2 (Gamma Three): field 'family': points at the entry" in p for p in problems)
    assert any("entry 3 (Delta Four): field 'family': unknown id" in p for p in problems)


def test_surface_form_claimed_twice(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        [
            _entry("Gemini", etype="model", case="exact"),
            _entry("Gemini app", etype="other", exact_aliases=["Gemini"]),
            _entry("Open AI Labs", aliases=["OpenAI"]),
            _entry("OpenAI"),
        ],
    )
    assert any("entry 1 (Gemini app): surface form 'Gemini'" in p for p in problems)
    assert any("'OpenAI' is also claimed by entry 2 (Open AI Labs)" in p for p in problems)


def test_shared_aliases_allow_a_deliberate_overlap(tmp_path: Path) -> None:
    path = tmp_path / "entities.yaml"
    entries = [
        _entry("LangChain", shared_aliases=["LangChain"]),
        _entry("LangChain framework", "other", aliases=["LangChain"], shared_aliases=["LangChain"]),
    ]
    path.write_text(yaml.safe_dump(entries), encoding="utf-8")
    assert len(load_registry(path)) == 2
    entries[1]["shared_aliases"] = []
    assert any("shared_aliases in both" in p for p in _problems(tmp_path, entries))


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        [_entry("Foo", etype="bogus"), {"name": "x"}, "not a mapping", _entry("Ok Entry")],
    )
    assert len(problems) >= 4


# --- writing and seeding ---------------------------------------------------------------------


def test_write_load_round_trip(tmp_path: Path, committed: list[Any]) -> None:
    path = tmp_path / "entities.yaml"
    write_registry(path, committed)
    assert load_registry(path) == load_registry(DEFAULT_REGISTRY)
    assert path.read_text(encoding="utf-8") == DEFAULT_REGISTRY.read_text(encoding="utf-8")
    assert dump_registry(reversed(committed)) == dump_registry(committed)


CURATED = """
entities:
  - {name: OpenAI, type: organization, wikipedia: OpenAI}
  - {name: Meta, type: organization, case: exact, aliases: [Meta Platforms]}
  - {name: Claude, type: model, case: exact}
  - {name: Claude Opus 4, type: model}
  - {name: GPT, type: model, case: exact}
  - {name: GPT-4o, type: model, family: GPT}
"""


def test_seeding_is_idempotent_and_keeps_ids(tmp_path: Path) -> None:
    curated = tmp_path / "curated.yaml"
    curated.write_text(CURATED, encoding="utf-8")
    existing = tmp_path / "entities.yaml"
    write_registry(existing, seed_registry(None, curated, existing))
    first = existing.read_text(encoding="utf-8")
    write_registry(existing, seed_registry(None, curated, existing))
    assert existing.read_text(encoding="utf-8") == first

    entities = {e.name: e for e in load_registry(existing)}
    assert entities["Claude Opus 4"].family == entities["Claude"].entity_id
    assert entities["GPT-4o"].family == entities["GPT"].entity_id
    assert entities["OpenAI"].wikipedia_url == "https://en.wikipedia.org/wiki/OpenAI"
    assert "Claude-Opus-4" in {a.text for a in entities["Claude Opus 4"].aliases}

    # An id assigned earlier survives a rename (matched by key) and a key change (by name);
    # an entry only in the existing file is kept as it is.
    text = existing.read_text(encoding="utf-8").replace(
        entities["OpenAI"].entity_id, "ent:/openaiid22"
    )
    text = text.replace(entities["Meta"].entity_id, "ent:/metaidabcd")
    text += "\n- id: ent:/handmadeid\n  key: person:jane-roe\n  name: Jane Roe\n  type: person\n"
    existing.write_text(text, encoding="utf-8")
    curated.write_text(
        CURATED.replace("name: OpenAI,", "name: OpenAI Inc., key: 'organization:openai',").replace(
            "name: Meta,", "name: Meta, key: 'organization:meta-platforms',"
        ),
        encoding="utf-8",
    )
    seeded = {e.name: e for e in seed_registry(None, curated, existing)}
    assert seeded["OpenAI Inc."].entity_id == "ent:/openaiid22"
    assert seeded["Meta"].entity_id == "ent:/metaidabcd"
    assert seeded["Meta"].key == "organization:meta-platforms"
    assert seeded["Jane Roe"].entity_id == "ent:/handmadeid"


def test_seed_main_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    curated = tmp_path / "curated.yaml"
    curated.write_text(CURATED, encoding="utf-8")
    out = tmp_path / "entities.yaml"
    assert main(["--curated", str(curated), "--out", str(out), "--no-places"]) == 0
    assert main(["--check", "--out", str(out)]) == 0
    assert "6 entities" in capsys.readouterr().out
    out.write_text(out.read_text(encoding="utf-8").replace("type: model", "type: modle", 1))
    assert main(["--check", "--out", str(out)]) == 1
    assert "unknown type 'modle'" in capsys.readouterr().err


def test_auto_case_pins_short_and_plain_words() -> None:
    assert auto_case("Florence") == "exact"
    assert auto_case("NAVER") == "exact"
    assert auto_case("DBRX") == "exact"
    assert auto_case("Sora") == "exact"
    assert auto_case("ByteDance") == "insensitive"
    assert auto_case("Llama 3.1-405B") == "insensitive"
    assert auto_case("Stanford University") == "insensitive"


def test_committed_registry_is_the_seed_of_the_committed_curated_file(tmp_path: Path) -> None:
    existing = tmp_path / "entities.yaml"
    existing.write_bytes(DEFAULT_REGISTRY.read_bytes())
    write_registry(existing, seed_registry(None, DEFAULT_CURATED, existing))
    assert existing.read_bytes() == DEFAULT_REGISTRY.read_bytes()


@pytest.mark.shared_data
def test_committed_registry_is_the_seed_of_epoch_data(tmp_path: Path, shared_data: Path) -> None:
    existing = tmp_path / "entities.yaml"
    existing.write_bytes(DEFAULT_REGISTRY.read_bytes())
    write_registry(existing, seed_registry(shared_data / "epoch", DEFAULT_CURATED, existing))
    assert existing.read_bytes() == DEFAULT_REGISTRY.read_bytes()
