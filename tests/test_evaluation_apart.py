"""Evaluation lives beside the product: a served class carries only shipped behaviour, and the
variants a benchmark compares are handed in through a hook (``retrieval.engine.Variant`` for
search, ``analytics.stories.StoryVariant`` for stories), which no product module but the one
that honours it ever names."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from retrieval.engine import SHIPPED, SearchRequest, Variant

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = (
    "analytics",
    "warehouse",
    "retrieval",
    "readmodel",
    "publishing",
    "pipelines",
    "serving",
    "cli",
)
# each hook's module, and the names it exports for a benchmark
HOOKS = {
    "retrieval/engine.py": ("Variant", "SHIPPED"),
    "analytics/stories.py": ("StoryVariant",),
}
HOOK_NAMES = {name for names in HOOKS.values() for name in names}
VARIANT_FIELDS = {field.name for field in dataclasses.fields(Variant)}
# how a comment marks a knob kept for a benchmark rather than for what is served
EVALUATION_MARKS = ("# for evaluation", "# evaluation only", "# benchmark only", "# for benchmarks")


def product_sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
    ]


def variant_mentions(path: str, source: str) -> list[str]:
    """Where ``source`` names a hook (``HOOK_NAMES``) or passes a ``variant``."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Name) and node.id in HOOK_NAMES:
            found.append(f"{path}:{node.lineno} names {node.id}")
        elif isinstance(node, ast.alias) and node.name in HOOK_NAMES:
            found.append(f"{path} imports {node.name}")
        elif isinstance(node, ast.keyword) and node.arg == "variant":
            found.append(f"{path}:{node.value.lineno} passes variant=")
    return found


def test_the_served_search_request_carries_only_shipped_fields() -> None:
    fields = {field.name for field in dataclasses.fields(SearchRequest)}
    assert fields == {
        "query_vector",
        "query_text",
        "filters",
        "limit",
        "diversity_cap",
        "recency_boost",
    }
    assert not fields & VARIANT_FIELDS


def test_no_product_module_but_the_engine_names_an_evaluation_variant() -> None:
    mentions = [
        mention
        for path, source in product_sources()
        if path not in HOOKS
        for mention in variant_mentions(path, source)
    ]
    assert mentions == []


def test_no_product_module_keeps_a_knob_for_evaluation() -> None:
    marked = [
        f"{path}:{number}"
        for path, source in product_sources()
        for number, line in enumerate(source.splitlines(), start=1)
        if any(mark in line.lower() for mark in EVALUATION_MARKS)
    ]
    assert marked == []


def test_the_checker_finds_a_variant_handed_in() -> None:
    source = "from retrieval.engine import Variant\nindex.search(r, variant=Variant(legs=()))\n"
    assert len(variant_mentions("x.py", source)) == 3
    stories = "from analytics.stories import StoryVariant\nv: StoryVariant\nbuild(s, variant=v)\n"
    assert len(variant_mentions("x.py", stories)) == 3


def test_the_hooks_are_where_the_checker_looks() -> None:
    for path, names in HOOKS.items():
        source = (ROOT / path).read_text(encoding="utf-8")
        assert all(f"class {name}" in source or f"{name} =" in source for name in names), path


def test_the_shipped_variant_is_the_default() -> None:
    assert Variant() == SHIPPED
