"""One home per rule: each rule below is written in one place, and these tests read our source
(``ast``) to fail when a second copy of it comes back somewhere else."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.packages import PRODUCT_PACKAGES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = PRODUCT_PACKAGES


def sources(*packages: str) -> Iterator[tuple[str, ast.Module]]:
    """``(path relative to the repository, parsed module)`` of every module of ``packages``."""
    for package in packages or PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            yield str(path.relative_to(ROOT)), tree


def where(found: Iterator[tuple[str, ast.AST]]) -> set[str]:
    return {f"{path}:{getattr(node, 'lineno', 0)}" for path, node in found}


def calls_to(name: str, *packages: str) -> Iterator[tuple[str, ast.Call]]:
    """Calls of a function or method called ``name``."""
    for path, tree in sources(*packages):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called == name:
                    yield path, node


def files(found: Iterator[tuple[str, ast.AST]]) -> set[str]:
    return {path for path, _ in found}


# --- the effective clock: warehouse.clock.effective_clock -------------------------------------


def _settings_as_of(packages: tuple[str, ...] = ()) -> Iterator[tuple[str, ast.AST]]:
    """Reads of ``AIMI_AS_OF`` from a settings object: ``load_settings().as_of``,
    ``settings.as_of``, ``self.settings.as_of``."""
    for path, tree in sources(*packages):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr == "as_of"):
                continue
            if "settings" in ast.unparse(node.value):
                yield path, node


def test_only_the_clock_module_decides_a_runs_clock() -> None:
    # the pinned clock and AIMI_AS_OF are read by effective_clock alone: runs, `aimi status`,
    # the build's checks and the admin refresh all ask it
    assert files(calls_to("read_pinned")) == {"warehouse/clock.py"}
    assert files(_settings_as_of()) == {"warehouse/clock.py"}
    users = files(calls_to("effective_clock"))
    assert {
        "pipelines/resources.py",
        "cli/status.py",
        "pipelines/options.py",
        "serving/routers/admin.py",
    } <= users


# --- name folding: analytics.entities.fold_name ----------------------------------------------


def _is_space_join(node: ast.AST) -> bool:
    """``" ".join(...)``"""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and node.func.value.value == " "
    )


def _case_folds(node: ast.AST) -> bool:
    """``x.lower()``, ``x.casefold()`` or polars' ``x.str.to_lowercase()``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("lower", "casefold", "to_lowercase")
    )


def _name_folds_in(path: str, tree: ast.AST) -> Iterator[ast.AST]:
    """Spaces and case folded together, ``" ".join(x.split()).lower()`` or
    ``" ".join(x.lower().split())``, and, in the API and the command line, any name put in
    one case (``name.casefold()``, ``pl.col("name").str.to_lowercase()``)."""
    transport = path.startswith(("serving/", "readmodel/", "publishing/", "cli/"))
    for node in ast.walk(tree):
        if _case_folds(node):
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            receiver = node.func.value
            if _is_space_join(receiver) or (transport and "name" in ast.unparse(receiver)):
                yield node
        elif _is_space_join(node):
            assert isinstance(node, ast.Call)
            if any(_case_folds(inner) for arg in node.args for inner in ast.walk(arg)):
                yield node


def _name_folds() -> list[tuple[str, ast.AST]]:
    return [(path, node) for path, tree in sources() for node in _name_folds_in(path, tree)]


def _references(name: str) -> Iterator[tuple[str, ast.AST]]:
    for path, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == name:
                yield path, node


def test_names_are_folded_in_one_place() -> None:
    # fold_name itself is the one fold left
    assert [path for path, _ in _name_folds()] == ["analytics/entities.py"]
    assert {
        "analytics/entity_review.py",
        "analytics/discovery.py",
        "readmodel/service.py",
        "readmodel/catalog.py",
        "cli/entities.py",
    } <= files(_references("fold_name"))


def test_the_fold_checker_finds_each_form_of_a_copy() -> None:
    copies = ast.parse(
        "a = ' '.join(name.split()).lower()\n"
        "b = ' '.join(name.lower().split())\n"
        "c = ' '.join(x.split()).casefold()\n"
        "d = [name.casefold() for name in frame['name']]\n"
        "e = pl.col('name').str.to_lowercase()\n"
        "f = label.casefold()\n"
    )
    assert sorted({n.lineno for n in _name_folds_in("serving/x.py", copies)}) == [1, 2, 3, 4, 5]
    # outside the transports, only the joined forms are name folds (the registry's own
    # case rules fold aliases, themes fold labels)
    assert sorted({n.lineno for n in _name_folds_in("analytics/x.py", copies)}) == [1, 2, 3]


# --- the label threshold: analytics.trends.MIN_LABELLED --------------------------------------

_EIGHT_SIGNALS = re.compile(r"(?<![\d.])8 (or more )?signals|≥ 8 signals")


def _texts_saying_eight_signals(tree: ast.AST) -> Iterator[ast.AST]:
    """String literals (f-strings' literal parts too) that write the threshold as a number."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _EIGHT_SIGNALS.search(node.value)
        ):
            yield node


def test_the_label_threshold_is_said_through_min_labelled() -> None:
    said = [
        f"{path}:{getattr(node, 'lineno', 0)}"
        for path, tree in sources()
        for node in _texts_saying_eight_signals(tree)
    ]
    assert said == []
    sample = ast.parse('a = "labels null below 8 signals"\nb = f"below {MIN_LABELLED} signals"\n')
    assert [node.lineno for node in _texts_saying_eight_signals(sample)] == [1]


# --- review decisions and the review files' append --------------------------------------------


def test_the_review_decisions_are_one_tuple() -> None:
    # the decisions on units, declared once (analytics.schema.ReviewDecision)
    declared = [
        f"{path}:{node.lineno}"
        for path, tree in sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Tuple | ast.List | ast.Set)
        and {getattr(e, "value", None) for e in node.elts} == {"approve", "reject"}
    ]
    assert len(declared) == 1 and declared[0].startswith("analytics/schema.py:"), declared


def test_files_are_appended_to_in_one_place() -> None:
    # append_jsonl, under the file's lock; `a+` opens a lock file, which is never written
    appends = [
        f"{path}:{node.lineno}"
        for path, node in calls_to("open")
        if any(
            isinstance(arg, ast.Constant) and arg.value == "a"
            for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "mode")]
        )
    ]
    assert len(appends) == 1 and appends[0].startswith("warehouse/files.py:"), appends


# --- the list filters: serving.filters ---------------------------------------------------------

# the bounds of the list filters; MAX_THEME_CHARS also bounds a theme's path label
_FILTER_BOUNDS = (
    "MAX_ENTITY_FILTER_CHARS",
    "MAX_KEYWORD_CHARS",
    "MAX_NAME_CHARS",
    "WINDOW_PATTERN",
)


def test_the_list_filters_are_declared_in_one_place() -> None:
    # the transports (REST routes, MCP tools, fast path) take the filters' bounds from
    # serving.filters, never from the constants themselves
    for bound in _FILTER_BOUNDS:
        users = files(
            (path, node)
            for path, tree in sources("serving", "readmodel", "publishing")
            for node in ast.walk(tree)
            if (isinstance(node, ast.Name) and node.id == bound)
            or (isinstance(node, ast.Attribute) and node.attr == bound)
        )
        assert users <= {"readmodel/service.py", "serving/filters.py"}, (bound, users)
    # and no transport builds a Query or Field with those words of its own
    for path in ("serving/routers/signals.py", "serving/routers/search.py", "serving/mcp.py"):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        declared = {
            keyword.arg
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("Query", "Field")
            for keyword in node.keywords
            if keyword.arg == "pattern"
        }
        assert declared == set(), path


# --- timestamps: analytics.records.parse_timestamp --------------------------------------------


def test_iso_timestamps_are_parsed_in_one_place() -> None:
    # a served `published_at` ("…Z") is read back by parse_timestamp, never by a second
    # `fromisoformat(stamp.replace("Z", …))` of its own (the feeds had one). The demo
    # generator is left out: it imports only the standard library, by its own test's rule.
    packages = tuple(package for package in PACKAGES if package != "demo")
    copies = [
        f"{path}:{node.lineno}"
        for path, node in calls_to("fromisoformat", *packages)
        if "replace(" in ast.unparse(node) and "'Z'" in ast.unparse(node)
    ]
    assert len(copies) == 1 and copies[0].startswith("analytics/records.py:"), copies
