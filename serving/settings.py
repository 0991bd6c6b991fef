"""Service configuration: one pydantic-settings ``Settings`` read from ``AIMI_*`` variables and
an optional ``.env`` file (DESIGN §12)."""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from serving.ratelimit import DEFAULT_TIERS, Quota

# The version of the /v1 contract reported by /v1/health (spec §9), not the package version.
API_VERSION = "0.1.0"

_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")


class Settings(BaseSettings):
    """Everything the API server reads from its environment."""

    model_config = SettingsConfigDict(
        env_prefix="AIMI_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = Path("data")
    admin_secret: SecretStr | None = None
    # or only its SHA-256 (hex), so the plaintext need not sit in the environment
    admin_secret_sha256: SecretStr | None = None
    as_of: datetime | None = None
    rate_limit_storage: str = "embedded"
    # JSON, e.g. {"free": {"per_minute": 30, "per_month": 5000}}: tiers given replace the
    # defaults of the same name, the others stay
    rate_limit_tiers: dict[str, Quota] = Field(default_factory=lambda: dict(DEFAULT_TIERS))
    dev_api_key: SecretStr | None = None
    snapshot_poll_seconds: float = Field(default=2.0, gt=0)

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


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
