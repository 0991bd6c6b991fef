"""The answers' error hierarchy: each error carries the status and code the API answers with
(docs/api.md §7), and its message says what to change. The read model raises them; the REST
app (``serving.errors``) and the MCP tools render them."""

from __future__ import annotations


class ApiError(Exception):
    """An error answered with the spec's error body; subclasses fix the status and code."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        retry_after: int | None = None,
        reset: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        self.reset = reset


class InvalidParameters(ApiError):
    """400: the parameters are well-typed but cannot be answered together (docs/design.md §9)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(400, "invalid_parameters", message, field=field)


class Unauthorized(ApiError):
    """401: a missing or invalid API key (or admin secret)."""

    def __init__(self, message: str) -> None:
        super().__init__(401, "unauthorized", message)


class NotFound(ApiError):
    """404: an unknown signal, entity, theme or route."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(404, "not_found", message, field=field)


class Unavailable(ApiError):
    """503: nothing to serve yet; ``retry_after`` says when to try again."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(503, "unavailable", message, retry_after=retry_after)


class RateLimited(ApiError):
    """429: a window of the key's quota is full; ``retry_after`` and ``reset`` say until when."""

    def __init__(self, message: str, *, retry_after: int, reset: int) -> None:
        super().__init__(429, "rate_limited", message, retry_after=retry_after, reset=reset)
