"""Each list resource's arguments, declared once, in the order clients see them: the REST route
and the MCP tool take their signatures from here and forward what they were given to the
service function under its own names, so neither writes a filter out again.

A route or tool declares only what is its own: the route its dependencies (the key, the
snapshot) before the declared arguments and any REST-only parameter after them (the deprecated
``q``); the tool its MCP-only arguments after them (``full``). ``SIGNALS.route`` and
``SIGNALS.tool`` put the declared arguments in between::

    @SIGNALS.route
    async def list_signals(_principal: ApiKeyDep, snapshot: SnapshotDep, *, q: ... = None,
                           **given: Any) -> Response:
        body = service.list_signals(snapshot, **SIGNALS.forward(given))

FastAPI and the MCP SDK both read a function's parameters through ``inspect.signature``, which
returns the ``__signature__`` set here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from readmodel.responses import DEFAULT_LIMIT
from readmodel.service import DEFAULT_DIVERSITY_CAP, DEFAULT_MIN_SIGNALS, DEFAULT_SEARCH_LIMIT
from serving import filters
from serving.filters import ListFilter

F = TypeVar("F", bound=Callable[..., Any])
REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class Arg:
    """One argument: the name clients send (``name``), its declaration, its default
    (``REQUIRED``: none) and the service function's keyword when it differs (``keyword``)."""

    name: str
    declared: ListFilter
    default: Any = None
    keyword: str | None = None

    def parameter(self, metadata: Any) -> inspect.Parameter:
        """The keyword-only parameter of a signature: the declared type, annotated with the
        transport's ``Query`` or ``Field``."""
        annotation: Any = Annotated[self.declared.annotation, metadata]
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=self.default, annotation=annotation
        )


class Arguments:
    """A list resource's arguments, in order (see the module's docstring)."""

    def __init__(self, *args: Arg) -> None:
        self.args = args

    def names(self) -> list[str]:
        return [arg.name for arg in self.args]

    def route(self, fn: F) -> F:
        """``fn`` with the declared arguments as FastAPI query parameters."""
        return _with(fn, [arg.parameter(arg.declared.query()) for arg in self.args])

    def tool(self, fn: F) -> F:
        """``fn`` with the declared arguments as MCP tool arguments."""
        return _with(fn, [arg.parameter(arg.declared.field()) for arg in self.args])

    def forward(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """What a route or tool was given, under the service function's keywords."""
        return {arg.keyword or arg.name: given[arg.name] for arg in self.args}


def _with(fn: F, declared: list[inspect.Parameter]) -> F:
    """``fn``'s signature with ``declared`` after its positional parameters and before its
    keyword-only ones, in place of its ``**given``."""
    own = inspect.signature(fn, eval_str=True)
    kinds = [p.kind for p in own.parameters.values()]
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        raise TypeError(f"{fn.__name__} takes no **given for its declared arguments")
    positional = [p for p in own.parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
    keyword_only = [p for p in own.parameters.values() if p.kind == p.KEYWORD_ONLY]
    clash = {p.name for p in positional + keyword_only} & {p.name for p in declared}
    if clash:
        raise TypeError(f"{fn.__name__} declares {sorted(clash)} itself")
    fn.__signature__ = own.replace(parameters=[*positional, *declared, *keyword_only])  # type: ignore[attr-defined]
    return fn


PAGED = (Arg("cursor", filters.CURSOR), Arg("limit", filters.LIMIT, DEFAULT_LIMIT))


SIGNAL_FILTERS = (
    Arg("entity", filters.ENTITY),
    Arg("theme", filters.THEME),
    Arg("keyword", filters.KEYWORD),
    Arg("content_type", filters.CONTENT_TYPE),
    Arg("published_after", filters.PUBLISHED_AFTER),
    Arg("published_before", filters.PUBLISHED_BEFORE),
    Arg("window", filters.WINDOW),
)
# /v1/signals and list_signals
SIGNALS = Arguments(*SIGNAL_FILTERS, Arg("sort", filters.SIGNAL_SORT, "published"), *PAGED)
# /v1/search and search: the signal filters but `keyword`
SEARCH = Arguments(
    Arg("q", filters.QUERY),
    Arg("similar_to", filters.SIMILAR_TO),
    Arg("role", filters.ROLE),
    *(arg for arg in SIGNAL_FILTERS if arg.name != "keyword"),
    Arg("recency_boost", filters.RECENCY_BOOST, 0.0),
    Arg("limit", filters.SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT),
    Arg("diversity_cap", filters.DIVERSITY_CAP, DEFAULT_DIVERSITY_CAP),
)
# /v1/entities and list_entities
ENTITIES = Arguments(
    Arg("theme", filters.ENTITY_THEME),
    Arg("type", filters.ENTITY_TYPE, keyword="entity_type"),
    Arg("name", filters.NAME),
    Arg("sort", filters.ENTITY_SORT, "signal_count"),
    Arg("direction", filters.DIRECTION),
    Arg("confidence", filters.CONFIDENCE),
    Arg("stability", filters.STABILITY),
    Arg("scale", filters.SCALE),
    Arg("notability", filters.NOTABILITY),
    Arg("min_signals", filters.MIN_SIGNALS, DEFAULT_MIN_SIGNALS),
    *PAGED,
)
# /v1/entities/trending and get_trending_entities
TRENDING = Arguments(
    Arg("mode", filters.MODE, REQUIRED),
    Arg("theme", filters.TRENDING_THEME),
    Arg("type_primary", filters.TYPE_PRIMARY),
    Arg("limit", filters.TRENDING_LIMIT, DEFAULT_LIMIT),
)
STORY_FILTERS = (
    Arg("entity", filters.STORY_ENTITY),
    Arg("theme", filters.STORY_THEME),
    Arg("window", filters.STORY_WINDOW),
    Arg("min_sources", filters.MIN_SOURCES, 1),
)
# /v1/stories and list_stories
STORIES = Arguments(*STORY_FILTERS, *PAGED)
