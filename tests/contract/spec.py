"""The spec's resource tables (§2, §4.7, §7) transcribed as data, and the checks that hold a
JSON object to them: every listed field with its type, no field the spec does not list.

Written from the spec, not from ``readmodel.models``: a drift between the two shows up here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

Check = Callable[[Any], bool]


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def is_timestamp(value: Any) -> bool:
    """An ISO 8601 string (spec conventions: all timestamps are ISO 8601 strings)."""
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def nullable(check: Check) -> Check:
    return lambda value: value is None or check(value)


def list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def one_of(*allowed: str) -> Check:
    return lambda value: value in allowed


def is_object(value: Any) -> bool:
    return isinstance(value, dict)


def counts_by(keys: tuple[str, ...] | None = None) -> Check:
    """An object string→integer (``content_type_mix``, the distributions)."""

    def check(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and all(isinstance(k, str) and is_int(v) and v >= 0 for k, v in value.items())
            and (keys is None or set(value) <= set(keys))
        )

    return check


@dataclass(frozen=True)
class Shape:
    """One resource table: ``fields`` maps each listed field to its type check; ``required``
    are those that must be present (the others may be omitted, never sent as another type)."""

    name: str
    fields: Mapping[str, Check]
    required: frozenset[str]

    def problems(self, obj: Any) -> list[str]:
        if not isinstance(obj, dict):
            return [f"{self.name}: not an object: {obj!r}"]
        found = [f"{self.name}: lacks {k!r}" for k in sorted(self.required - set(obj))]
        found += [f"{self.name}: {k!r} is not in the spec" for k in obj if k not in self.fields]
        found += [
            f"{self.name}: {k!r} has the wrong type: {obj[k]!r}"
            for k, check in self.fields.items()
            if k in obj and not check(obj[k])
        ]
        return found


def shape(name: str, fields: Mapping[str, Check], *, optional: tuple[str, ...] = ()) -> Shape:
    return Shape(name, dict(fields), frozenset(fields) - frozenset(optional))


# §2.1
ROLES = ("thesis", "synopsis", "argument", "claim")
CENTRAL_ROLES = ("thesis", "synopsis")
CONTENT_TYPES = ("analysis", "event")
SNIPPET_MAX_CHARS = 50  # §2.1, §8

UNIT = shape(
    "unit",
    {
        "id": is_nonempty_str,
        "role": one_of(*ROLES),
        "text": is_nonempty_str,
        "argument_id": is_nonempty_str,
        "entities": list_of(is_str),
        "verification": lambda v: v == {"human_reviewed": True},
        "evidence_preview": is_object,
    },
    optional=("argument_id", "entities", "verification", "evidence_preview"),
)
EVIDENCE_PREVIEW = shape("evidence_preview", {"snippets": list_of(is_object)})
SNIPPET = shape("snippet", {"text": is_str, "truncated": is_bool})

# §2.2, §2.3
_THEMES = shape("themes", {"value_chain": list_of(is_str), "market_force": list_of(is_str)})
ENTITY_TYPES = (
    "organization",
    "person",
    "model",
    "hardware",
    "location",
    "event",
    "regulation_policy",
    "other",
)
ENTITY_REF = shape(
    "entity ref",
    {"entity_id": is_nonempty_str, "name": is_nonempty_str, "type": one_of(*ENTITY_TYPES)},
)
_SIGNAL_COMMON: dict[str, Check] = {
    "signal_id": is_nonempty_str,
    "title": is_str,
    "url": is_nonempty_str,
    "published_at": is_timestamp,
    "content_type": one_of(*CONTENT_TYPES),
    "domain": is_nonempty_str,
    "verified_unit_count": is_int,
    "themes": lambda v: not _THEMES.problems(v),
    "entities": list_of(lambda v: not ENTITY_REF.problems(v)),
}
SIGNAL_CARD = shape(
    "signal card",
    {**_SIGNAL_COMMON, "thesis": is_nonempty_str, "synopsis": is_nonempty_str},
    optional=("thesis", "synopsis"),  # exactly one of them, by content_type
)
SIGNAL_DETAIL = shape("signal detail", {**_SIGNAL_COMMON, "units": list_of(is_object)})

# §2.4
SEARCH_HIT = shape(
    "search hit", {"unit": is_object, "citation": is_object, "relevance_score": is_number}
)
CITATION = shape(
    "citation",
    {
        "signal_id": is_nonempty_str,
        "title": nullable(is_str),
        "url": nullable(is_str),
        "domain": nullable(is_str),
        "published_at": nullable(is_timestamp),
    },
)

# §2.5
DIRECTIONS = ("Rising", "Stable", "Declining", "New")
THEME_DIRECTIONS = ("Rising", "Stable", "Declining")
CONFIDENCES = ("Significant", "Insignificant")
STABILITIES = ("Volatile", "Steady")
SCALES = ("Large", "Medium", "Small")
NOTABILITIES = ("High", "Medium", "Low", "Negligible")
LABEL_FIELDS = ("direction", "confidence", "stability", "notability")
MIN_LABELLED = 8  # §2.5, §8
RELATED_MAX = 25  # §2.5, §8

THEME_TREND = shape(
    "theme trend",
    {"share_of_voice": is_number, "streak": is_int, "current_week": is_int, "prior_week": is_int},
)
ENTITY_TREND = shape("entity trend", {**THEME_TREND.fields, "source_diversity": is_int})
_ENTITY_FIELDS: dict[str, Check] = {
    "entity_id": lambda v: isinstance(v, str) and v.startswith("ent:/") and len(v) > 5,
    "name": is_nonempty_str,
    "type": one_of(*ENTITY_TYPES),
    "wikipedia_url": is_nonempty_str,
    "signal_count": lambda v: is_int(v) and v >= 0,
    # null only for an entity without any signal (it resolves by path whatever its count)
    "first_seen": nullable(is_timestamp),
    "last_seen": nullable(is_timestamp),
    "trend": lambda v: not ENTITY_TREND.problems(v),
    "scale": one_of(*SCALES),
    "direction": nullable(one_of(*DIRECTIONS)),
    "confidence": nullable(one_of(*CONFIDENCES)),
    "stability": nullable(one_of(*STABILITIES)),
    "notability": nullable(one_of(*NOTABILITIES)),
    "notability_reasoning": is_str,
    "content_type_mix": counts_by(CONTENT_TYPES),
    "value_chain_distribution": counts_by(),
    "market_force_distribution": counts_by(),
}
RELATED_ENTITY = shape(
    "related entity",
    {
        "entity_id": is_nonempty_str,
        "name": is_nonempty_str,
        "type": one_of(*ENTITY_TYPES),
        "co_occurrence_count": is_int,
    },
)
ENTITY_LISTED = shape("entity (list form)", _ENTITY_FIELDS, optional=("wikipedia_url",))
ENTITY_PROFILE = shape(
    "entity profile",
    {
        **_ENTITY_FIELDS,
        "related_entities": list_of(lambda v: not RELATED_ENTITY.problems(v)),
    },
    optional=("wikipedia_url",),
)

# §2.6
AXES = ("value_chain", "market_force")
LABELS_SEEN = {
    "value_chain": ("Infrastructure", "Foundation Models", "Applications"),
    "market_force": ("Competitive Dynamics", "Capital & Investment", "Regulatory & Legal"),
}
SHORTHANDS = ("C&I", "R&L", "T&L", "T&SI", "FM")
_THEME_FIELDS: dict[str, Check] = {
    "axis": one_of(*AXES),
    "label": is_nonempty_str,
    "signal_count": is_int,
    "trend": lambda v: not THEME_TREND.problems(v),
    "direction": nullable(one_of(*THEME_DIRECTIONS)),
    "confidence": nullable(one_of(*CONFIDENCES)),
    "stability": nullable(one_of(*STABILITIES)),
    "notability": nullable(one_of(*NOTABILITIES)),
    "notability_reasoning": is_str,
}
RELATED_THEME = shape(
    "related theme",
    {"axis": one_of(*AXES), "label": is_nonempty_str, "co_occurrence_count": is_int},
)
THEME_LISTED = shape("theme (list form)", _THEME_FIELDS)
THEME = shape(
    "theme",
    {**_THEME_FIELDS, "related_themes": list_of(lambda v: not RELATED_THEME.problems(v))},
)

# Additive fields (§9: added without changing a listed one), each recorded in docs/changelog.md:
# an object may carry these beside the spec's fields, and still nothing else. Issue 31
# (2026-11-28): `corroboration` on units, `story_id` on signal cards and details, `story_count`
# on entity and theme profiles (list and full forms).
_OTHER_CLAIM_FIELDS: dict[str, Check] = {
    "unit_id": is_nonempty_str,
    "signal_id": is_nonempty_str,
    "domain": is_str,
    "text": is_nonempty_str,
    "evidence": lambda v: not SNIPPET.problems(v),
}
OTHER_CLAIM = shape("corroborating claim", _OTHER_CLAIM_FIELDS, optional=("evidence",))
CONTESTING_CLAIM = shape(
    "contesting claim",
    {**_OTHER_CLAIM_FIELDS, "cues": list_of(is_nonempty_str)},
    optional=("evidence",),
)
CORROBORATION = shape(
    "corroboration",
    {
        "count": lambda v: is_int(v) and v >= 0,
        "sources": list_of(is_nonempty_str),
        "claims": list_of(lambda v: not OTHER_CLAIM.problems(v)),
        "contested": list_of(lambda v: not CONTESTING_CLAIM.problems(v)),
    },
)


def _is_count(value: Any) -> bool:
    return is_int(value) and value >= 0


ADDITIVE_FIELDS: dict[str, dict[str, Check]] = {
    "unit": {"corroboration": lambda v: not CORROBORATION.problems(v)},
    "signal card": {"story_id": nullable(lambda v: is_str(v) and v.startswith("sty_"))},
    "signal detail": {"story_id": nullable(lambda v: is_str(v) and v.startswith("sty_"))},
    "entity (list form)": {"story_count": _is_count},
    "entity profile": {"story_count": _is_count},
    "theme (list form)": {"story_count": _is_count},
    "theme": {"story_count": _is_count},
}


def with_additive(listed: Shape) -> Shape:
    """``listed`` with its additive fields, optional (a snapshot built before them lacks them)."""
    extra = ADDITIVE_FIELDS[listed.name]
    return Shape(listed.name, {**listed.fields, **extra}, listed.required)


UNIT = with_additive(UNIT)
SIGNAL_CARD = with_additive(SIGNAL_CARD)
SIGNAL_DETAIL = with_additive(SIGNAL_DETAIL)
ENTITY_LISTED = with_additive(ENTITY_LISTED)
ENTITY_PROFILE = with_additive(ENTITY_PROFILE)
THEME_LISTED = with_additive(THEME_LISTED)
THEME = with_additive(THEME)

# §4.7
TRENDING_TREND = shape(
    "trending trend",
    {
        "momentum_wow": is_number,
        "momentum_4w": is_number,
        "acceleration": is_number,
        "z_score": is_number,
        "persistence": is_number,
        "share_of_voice": is_number,
        "share_of_voice_history": list_of(is_number),
        "streak": is_int,
        "current_week": is_int,
        "prior_week": is_int,
    },
)
TRENDING_ITEM = shape(
    "trending item",
    {
        "entity_id": is_nonempty_str,
        "display_name": is_nonempty_str,
        "type_primary": is_nonempty_str,
        "signal_count": is_int,
        "first_seen": is_timestamp,
        "last_seen": is_timestamp,
        "trend": lambda v: not TRENDING_TREND.problems(v),
        "content_type_mix": counts_by(CONTENT_TYPES),
        "value_chain_distribution": counts_by(),
        "market_force_distribution": counts_by(),
    },
)
TREND_WEEKS = 12  # §2.5, §8

# §7
ERROR = shape(
    "error",
    {
        "code": is_nonempty_str,
        "message": is_nonempty_str,
        "status": is_int,
        "field": nullable(is_str),
        "request_id": nullable(is_str),
        "retry_after": nullable(is_int),
        "reset": nullable(is_int),
    },
    # docs/design.md §9 settles field and request_id as always sent; retry_after/reset may be
    # omitted
    optional=("retry_after", "reset"),
)
VALIDATION_ITEM_KEYS = frozenset({"loc", "msg", "type", "input", "ctx"})

# §4.1, §9
API_VERSION = "0.1.0"

# §8
LIST_LIMIT = (1, 50, 25)  # min, max, default: signals, entities, trending
SEARCH_LIMIT = (1, 100, 10)
DIVERSITY_CAP = (1, 100, 2)
RECENCY_BOOST = (0.0, 1.0, 0.0)
Q_CHARS = (1, 2000)
MIN_SIGNALS_DEFAULT = 2
RATE_LIMIT_RESET_HEADERS = ("X-RateLimit-Reset-Minute", "X-RateLimit-Reset-Monthly")
