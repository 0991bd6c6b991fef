"""The one settings object: every ``AIMI_*`` variable, read by pydantic-settings from the
environment and from a ``.env`` file in the working directory, for every entry point (the CLI,
builds, Dagster runs, the API server, the MCP server).

Nothing else in the project reads an ``AIMI_*`` variable. Entry points that start other
processes (uvicorn workers, the admin refresh) pass settings on by setting the variables.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from analytics.records import RecordError, parse_timestamp
from analytics.schema import SOURCE_KINDS

ENV_PREFIX = "AIMI_"
ENV_FILE = ".env"
DEFAULT_DATA_DIR = Path("data")

_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")

# What decomposes a run's signals: the deterministic extractor, or the LLM decomposer (with the
# deterministic extractor as its fallback, per signal).
DecomposerChoice = Literal["deterministic", "llm"]
DECOMPOSERS: tuple[str, ...] = get_args(DecomposerChoice)


class Quota(BaseModel):
    """A tier's requests per minute and per calendar month (UTC)."""

    per_minute: int = Field(ge=1)
    per_month: int = Field(ge=1)


DEFAULT_TIERS: dict[str, Quota] = {
    "free": Quota(per_minute=60, per_month=10_000),
    "pro": Quota(per_minute=600, per_month=1_000_000),
    "enterprise": Quota(per_minute=6_000, per_month=50_000_000),
    # the development key (`aimi serve --dev`, the test suite): high enough never to get in
    # the way of local work, still counted and still reported in the headers
    "dev": Quota(per_minute=1_000_000, per_month=1_000_000_000),
}


def default_model_cache() -> Path:
    """``$XDG_CACHE_HOME/aimi``, else ``~/.cache/aimi``: models derived on this machine (the
    ONNX query encoder), kept outside the data dir, which ``make clean-data`` deletes."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "aimi"


_USERINFO = re.compile(
    r"(?P<scheme>[a-z][a-z0-9+.\-]*://)(?P<user>[^:@/\s]*)(?P<password>:[^@/\s]*)?@", re.I
)


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (``redis://:***@host:6379/0``), for logs
    and messages: a connection URL's credentials never leave the server."""
    return _USERINFO.sub(
        lambda m: f"{m['scheme']}{m['user']}{':***' if m['password'] else ''}@", url
    )


def split_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` as ``(bucket, prefix)``, the prefix without slashes at either
    end (may be empty); ``ValueError`` for anything else."""
    scheme, sep, rest = url.strip().partition("://")
    bucket, _, prefix = rest.partition("/")
    if scheme != "s3" or not sep or not bucket:
        raise ValueError(
            f"a snapshot store (AIMI_SNAPSHOT_STORE) is s3://bucket or s3://bucket/prefix; "
            f"got {url!r}"
        )
    return bucket, prefix.strip("/")


def parse_as_of(value: str | datetime) -> datetime:
    """``--as-of`` / ``AIMI_AS_OF``: an ISO 8601 date or date-time, UTC when no offset is given."""
    try:
        return parse_timestamp(value)
    except RecordError:
        raise ValueError(
            f"as_of {value!r} is not an ISO 8601 date or date-time (e.g. 2026-01-01)"
        ) from None


# names aimi and where its operator explains the fetcher (docs/sources.md); operators set
# AIMI_FETCH_USER_AGENT to their own contact
DEFAULT_FETCH_USER_AGENT = (
    "aimi-fetcher/0.1 (+https://aimi.invalid/docs/sources; set AIMI_FETCH_USER_AGENT)"
)


class Settings(BaseSettings):
    """Everything aimi reads from its environment (variables ``AIMI_<FIELD>``, or ``.env``)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_file=ENV_FILE, env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = DEFAULT_DATA_DIR
    # the entity registry file; the repository's registry/entities.yaml when unset
    registry: Path | None = None
    # a fixed build clock (demos, backfills); the wall clock when unset
    as_of: datetime | None = None
    admin_secret: SecretStr | None = None
    # or only its SHA-256 (hex), so the plaintext need not sit in the environment
    admin_secret_sha256: SecretStr | None = None
    rate_limit_storage: str = "embedded"
    # JSON, e.g. {"free": {"per_minute": 30, "per_month": 5000}}: tiers given replace the
    # defaults of the same name, the others stay
    rate_limit_tiers: dict[str, Quota] = Field(default_factory=lambda: dict(DEFAULT_TIERS))
    dev_api_key: SecretStr | None = None
    snapshot_poll_seconds: float = Field(default=2.0, gt=0)
    # s3://bucket/prefix (docs/deployment.md): a publish uploads the snapshot there and moves
    # the store's CURRENT last; a server pulls what it names into its data dir, verifies it and
    # swaps. Credentials, region and endpoint are boto3's own (AWS_*, AWS_ENDPOINT_URL_S3)
    snapshot_store: str | None = None
    # s3://bucket/prefix (docs/deployment.md): the warehouse's Parquet tables live there
    # instead of in <data dir>/warehouse, so build steps on several machines share one
    # warehouse; the client is the snapshot store's (boto3, AWS_* variables)
    warehouse_url: str | None = None
    # the lifetime of the build lease on that store (or on the snapshot store) that builders
    # on several machines share (warehouse.lease): renewed every quarter of it while a build
    # runs, taken over by another builder once it is past
    build_lease_seconds: float = Field(default=60.0, ge=1.0)
    # what embeds search queries: "onnx-int8" (ONNX Runtime over MiniLM exported into
    # model_cache with int8 weights, each query run alone: ~3.4x faster than torch, cosine
    # >= 0.97 to its vectors, search quality within 0.005), "onnx" (the same at full precision:
    # ~2x faster, the same vectors) or "torch" (the torch forward pass, the build's fallback); the
    # server falls back to torch, with a warning, when an ONNX file cannot be made or loaded
    query_encoder: Literal["onnx-int8", "onnx", "torch"] = "onnx-int8"
    model_cache: Path = Field(default_factory=default_model_cache)
    # what embeds during a build (segmentation, decomposition, theme tagging, unit embeddings):
    # "onnx" (ONNX Runtime over the fp32 export in model_cache, exported on first need: the
    # torch encoder's vectors to ~1e-6, ~2x faster) or "torch" (the forward pass over torch,
    # the fallback where the ONNX file cannot be made)
    build_encoder: Literal["onnx", "torch"] = "onnx"
    # the precision theme tagging embeds at when build_encoder is "onnx": "int8" (the query
    # encoder's int8 export, each text run alone: ~2x less CPU for the build's longest pass,
    # labels within the hand-check's noise, docs/quality.md) or "fp32" (the build encoder's);
    # what a build stores as vectors is fp32 either way
    theme_precision: Literal["int8", "fp32"] = "int8"
    # intra-op threads of the build's ONNX encoder; unset: the cores this process may use
    build_threads: int | None = Field(default=None, ge=1)
    # searches a server process runs at once (the rest wait their turn, first come first
    # served); unset: one more than the cores. More threads than cores only fight over them
    # and the interpreter lock: at 8 clients on 2 cores an unbounded pool had p99 51 ms, three
    # threads 42 ms for 8% less throughput (docs/benchmarks.md)
    search_threads: int | None = Field(default=None, ge=1)
    # What decomposes signals in a run that does not say (`aimi build` without --decomposer, a
    # Dagster UI run, the schedule, the sensor): set it once, or every such run would swap the
    # LLM's units for the deterministic extractor's and back
    decomposer: DecomposerChoice = "deterministic"
    # The LLM decomposer: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp
    # server, Ollama, a hosted API), e.g. http://127.0.0.1:8080/v1
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    # per request; a request that times out is retried like a 429 or a 5xx, with backoff
    llm_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_max_concurrency: int = Field(default=4, ge=1)
    llm_retries: int = Field(default=3, ge=0)
    # the source kinds the LLM decomposes when a build chooses it (comma-separated, e.g.
    # "podcast,essay"); unset: every kind. The others keep the deterministic extractor.
    llm_kinds: Annotated[tuple[str, ...], NoDecode] = ()
    # Webhook deliveries (docs/notifications.md): attempts per batch at most, the first backoff
    # (doubled after each failure up to the longest), how long a batch is retried before it is
    # dead-lettered, the request timeout, the most signals in one batch, how many endpoints are
    # sent to at once, how long a run waits in-process for a retry, how long sent bodies stay
    webhook_attempts: int = Field(default=30, ge=1)
    webhook_backoff_seconds: float = Field(default=2.0, ge=0)
    webhook_max_backoff_seconds: float = Field(default=21600.0, ge=0)
    webhook_retry_hours: float = Field(default=72.0, ge=0)
    webhook_timeout_seconds: float = Field(default=10.0, gt=0)
    webhook_max_batch: int = Field(default=500, ge=1)
    webhook_concurrency: int = Field(default=8, ge=1)
    webhook_wait_seconds: float = Field(default=30.0, ge=0)
    webhook_keep_days: float = Field(default=30.0, ge=0)
    # The source fetcher (docs/sources.md): the least time between two requests to one host
    # (a longer robots.txt Crawl-delay wins), who we say we are, and what a fetch may cost
    fetch_delay_s: float = Field(default=1.0, ge=0)
    fetch_user_agent: str = DEFAULT_FETCH_USER_AGENT
    # loopback, private, link-local and reserved addresses are refused unless this is set, so
    # a feed cannot point the fetcher at internal services (the tests set it)
    fetch_allow_private: bool = False
    fetch_timeout_s: float = Field(default=20.0, gt=0)
    fetch_max_bytes: int = Field(default=10_000_000, ge=1024)
    fetch_max_redirects: int = Field(default=5, ge=0)
    # attempts after the first for a 429, a 5xx or a dropped connection, with backoff and the
    # server's Retry-After (capped by fetch_max_retry_after_s: a longer wait fails the item)
    fetch_retries: int = Field(default=3, ge=0)
    fetch_max_retry_after_s: float = Field(default=120.0, ge=0)

    @field_validator("as_of", mode="before")
    @classmethod
    def _as_of_in_utc(cls, value: object) -> datetime | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None  # empty, as in a .env template: unset
        if not isinstance(value, str | datetime):
            raise ValueError(f"as_of must be an ISO 8601 string, got {type(value).__name__}")
        return parse_as_of(value)

    @field_validator("llm_base_url", "llm_model", mode="before")
    @classmethod
    def _empty_llm_field_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("decomposer", mode="before")
    @classmethod
    def _empty_decomposer_is_the_default(cls, value: object) -> object:
        return "deterministic" if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_kinds", mode="before")
    @classmethod
    def _known_kinds(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        kinds = tuple(kind.strip().lower() for kind in value.split(",") if kind.strip())
        unknown = [kind for kind in kinds if kind not in SOURCE_KINDS]
        if unknown:
            raise ValueError(
                f"AIMI_LLM_KINDS names unknown source kinds {unknown}; the kinds are "
                + ", ".join(SOURCE_KINDS)
            )
        return kinds

    @field_validator("snapshot_store", "warehouse_url", mode="before")
    @classmethod
    def _snapshot_store_is_an_s3_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        if not value.strip():
            return None  # empty, as in a .env template: unset
        split_s3_url(value)
        return value.strip()

    @field_validator("registry", mode="before")
    @classmethod
    def _empty_registry_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("model_cache", mode="before")
    @classmethod
    def _model_cache_default_when_empty(cls, value: object) -> object:
        if isinstance(value, str):
            if not value.strip():
                return default_model_cache()  # empty, as in a .env template: unset
            return Path(value).expanduser()
        return value

    @field_validator("admin_secret_sha256", mode="after")
    @classmethod
    def _is_a_sha256(cls, digest: SecretStr | None) -> SecretStr | None:
        # a malformed digest would close the admin endpoint without saying why: refuse to start
        if digest is None or not digest.get_secret_value().strip():
            return None  # empty, as in a .env template: unset
        if not _SHA256_HEX.fullmatch(digest.get_secret_value().strip()):
            raise ValueError(
                "AIMI_ADMIN_SECRET_SHA256 must be the 64 hex digits of the secret's SHA-256 "
                "(e.g. `printf %s SECRET | sha256sum`)"
            )
        return digest

    @field_validator("rate_limit_tiers", mode="after")
    @classmethod
    def _keep_default_tiers(cls, tiers: dict[str, Quota]) -> dict[str, Quota]:
        return {**DEFAULT_TIERS, **tiers}


def llm_not_configured(settings: Settings) -> str | None:
    """Why the LLM decomposer cannot run with these settings, as a message a user can act on
    (None when it can)."""
    missing = [
        f"AIMI_{name.upper()}"
        for name in ("llm_base_url", "llm_model")
        if getattr(settings, name) is None
    ]
    if not missing:
        return None
    return (
        f"the LLM decomposer needs {' and '.join(missing)}: the OpenAI-compatible endpoint and the "
        "model to ask, e.g. AIMI_LLM_BASE_URL=http://127.0.0.1:8080/v1 "
        "AIMI_LLM_MODEL=qwen2.5-7b-instruct (and AIMI_LLM_API_KEY for a hosted API)"
    )


def load_settings() -> Settings:
    """The settings as the environment and ``.env`` give them now (read on every call: cheap,
    and tests and long-lived processes see a changed environment)."""
    return Settings()
