"""API keys: a JSON file of SHA-256 hashes, written atomically and re-read when it changes, so a
key made by ``aimi keys create`` in another process works without a restart.

A key reads ``aimi_<key_id>_<secret>``; only its hash is stored and the plaintext is shown once.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from warehouse.files import atomic_write_text
from warehouse.locks import file_lock

log = logging.getLogger("aimi.serving")

KEY_PREFIX = "aimi"
DEFAULT_TIER = "free"
_KEY_ID_BYTES = 6  # 12 hex characters: unique enough for a key list, never contains "_"
_SECRET_BYTES = 32
_KEY_ID = re.compile(r"[0-9a-f]{12}")
_TIER = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_MAX_NAME_CHARS = 200


class KeyStoreError(RuntimeError):
    """The keys file is unreadable or malformed, or an operation names an unknown key."""


@dataclass(frozen=True)
class KeyRecord:
    """One issued key, as stored: never its plaintext."""

    key_id: str
    name: str
    tier: str
    sha256: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_json(self) -> dict[str, Any]:
        return {
            "key_id": self.key_id,
            "name": self.name,
            "tier": self.tier,
            "sha256": self.sha256,
            "created_at": self.created_at.isoformat(),
            "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
        }

    @classmethod
    def from_json(cls, raw: Any) -> KeyRecord:
        if not isinstance(raw, dict):
            raise KeyStoreError(f"a key entry must be an object, got {type(raw).__name__}")
        try:
            revoked = raw.get("revoked_at")
            return cls(
                key_id=str(raw["key_id"]),
                name=str(raw["name"]),
                tier=str(raw["tier"]),
                sha256=str(raw["sha256"]),
                created_at=datetime.fromisoformat(raw["created_at"]),
                revoked_at=datetime.fromisoformat(revoked) if revoked else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise KeyStoreError(f"malformed key entry: {exc!r}") from None


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def parse_key_id(presented: str) -> str | None:
    """The key id inside ``aimi_<key_id>_<secret>``, or None when the shape is wrong."""
    parts = presented.split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_PREFIX or not parts[2]:
        return None
    return parts[1] if _KEY_ID.fullmatch(parts[1]) else None


class KeyStore:
    """The keys file at ``path`` (``{"keys": [...]}``); safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._records: dict[str, KeyRecord] = {}
        self._signature: tuple[int, int, int] | None = None
        self._bad_signature: tuple[int, int, int] | None = None

    # -- reading -------------------------------------------------------------------------

    def _stat_signature(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        # The inode changes on every os.replace, so a rewrite within one mtime tick still shows.
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _read_file(self) -> dict[str, KeyRecord]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise KeyStoreError(f"cannot read keys file {self.path}: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("keys"), list):
            raise KeyStoreError(f'keys file {self.path} must hold {{"keys": [...]}}')
        records = [KeyRecord.from_json(item) for item in raw["keys"]]
        return {record.key_id: record for record in records}

    def _refresh(self) -> None:
        """Re-read the file if it changed since the last read; caller holds the lock.

        A file that became malformed is reported once and the last good keys stay in force,
        so a bad hand edit does not lock every client out.
        """
        signature = self._stat_signature()
        if signature == self._signature or (
            signature is not None and signature == self._bad_signature
        ):
            return
        try:
            records = self._read_file()
        except KeyStoreError as exc:
            self._bad_signature = signature
            log.error("keys file refused, keeping the previous keys: %s", exc)
            return
        self._records = records
        self._signature = signature
        self._bad_signature = None

    def list(self) -> builtins.list[KeyRecord]:
        """Every key ever issued, revoked ones included, oldest first."""
        with self._lock:
            self._refresh()
            return sorted(self._records.values(), key=lambda r: (r.created_at, r.key_id))

    def verify(self, presented: str) -> KeyRecord | None:
        """The active key matching ``presented``, or None."""
        key_id = parse_key_id(presented)
        if key_id is None:
            return None
        with self._lock:
            self._refresh()
            record = self._records.get(key_id)
        if record is None or not record.active:
            return None
        if not hmac.compare_digest(hash_key(presented), record.sha256):
            return None
        return record

    # -- writing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[dict[str, KeyRecord]]:
        """Read-modify-write under a thread lock and an advisory file lock, so two processes
        issuing keys at once cannot lose one of them."""
        lock_path = self.path.with_name(self.path.name + ".lock")
        with self._lock, file_lock(lock_path):
            records = self._read_file()  # a malformed file is an error here, never clobbered
            yield records
            self._write(records)
            self._records = records
            self._signature = self._stat_signature()
            self._bad_signature = None

    def _write(self, records: dict[str, KeyRecord]) -> None:
        ordered = sorted(records.values(), key=lambda r: (r.created_at, r.key_id))
        text = json.dumps({"keys": [r.to_json() for r in ordered]}, indent=2) + "\n"
        atomic_write_text(self.path, text)

    def create(self, name: str, tier: str = DEFAULT_TIER) -> tuple[KeyRecord, str]:
        """Issue a key; returns its record and the plaintext, which is never stored."""
        name = name.strip()
        if not name or len(name) > _MAX_NAME_CHARS:
            raise KeyStoreError(f"a key name must be 1–{_MAX_NAME_CHARS} characters")
        if not _TIER.fullmatch(tier):
            raise KeyStoreError(f"tier {tier!r} must be a lowercase word like 'free' or 'pro'")
        with self._exclusive() as records:
            key_id = secrets.token_hex(_KEY_ID_BYTES)
            while key_id in records:
                key_id = secrets.token_hex(_KEY_ID_BYTES)
            plaintext = f"{KEY_PREFIX}_{key_id}_{secrets.token_urlsafe(_SECRET_BYTES)}"
            record = KeyRecord(
                key_id=key_id,
                name=name,
                tier=tier,
                sha256=hash_key(plaintext),
                created_at=datetime.now(UTC),
            )
            records[key_id] = record
        return record, plaintext

    def revoke(self, key_id: str) -> KeyRecord:
        """Revoke a key (idempotent); it stays listed with its ``revoked_at``."""
        with self._exclusive() as records:
            record = records.get(key_id)
            if record is None:
                raise KeyStoreError(f"no key with id {key_id!r}; `aimi keys list` shows them")
            if record.active:
                record = replace(record, revoked_at=datetime.now(UTC))
                records[key_id] = record
        return record
