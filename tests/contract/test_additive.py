"""The additive fields declared in ``spec.ADDITIVE_FIELDS`` (issue 31, docs/changelog.md): an
object may carry them with the right type, and a field neither the spec nor that list names is
still refused. No snapshot needed: the shapes are data."""

from __future__ import annotations

from typing import Any

from tests.contract import spec

UNIT: dict[str, Any] = {"id": "u_1", "role": "claim", "text": "Acme shipped Rocket."}
OTHER = {
    "unit_id": "u_2",
    "signal_id": "s_2",
    "domain": "example.com",
    "text": "Acme has shipped Rocket.",
    "evidence": {"text": "Acme has shipped", "truncated": True},
}


def test_a_unit_may_carry_corroboration_and_nothing_else_unlisted() -> None:
    corroboration = {
        "count": 1,
        "sources": ["example.com"],
        "claims": [OTHER],
        "contested": [{**OTHER, "cues": ["not"]}],
    }
    assert spec.UNIT.problems({**UNIT, "corroboration": corroboration}) == []
    assert spec.UNIT.problems({**UNIT, "corroborations": corroboration}) == [
        "unit: 'corroborations' is not in the spec"
    ]
    # inside it too: an unlisted key, a wrong type, a contested claim without its cues
    assert spec.UNIT.problems({**UNIT, "corroboration": {**corroboration, "score": 1.0}})
    assert spec.UNIT.problems({**UNIT, "corroboration": {**corroboration, "count": "1"}})
    assert spec.UNIT.problems({**UNIT, "corroboration": {**corroboration, "contested": [OTHER]}})


def test_story_fields_are_typed() -> None:
    for shape in (spec.ENTITY_LISTED, spec.ENTITY_PROFILE, spec.THEME_LISTED, spec.THEME):
        assert "story_count" in spec.ADDITIVE_FIELDS[shape.name]
        assert shape.fields["story_count"](3) and not shape.fields["story_count"](-1)
        assert "story_count" not in shape.required
    for shape in (spec.SIGNAL_CARD, spec.SIGNAL_DETAIL):
        check = shape.fields["story_id"]
        assert check(None) and check("sty_0123456789abcdef") and not check(7)
        assert "story_id" not in shape.required
