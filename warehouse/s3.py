"""What the project's S3 clients share (the snapshot store, the build lease): an ``s3://`` URL
parsed, and boto3's errors as one ``ObjectStoreError`` naming the store and the action. A leaf
module: it imports nothing of ours but the settings' URL split, so a module low in the graph
(the build lock, through the lease) can use it without importing the snapshot store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from warehouse.settings import split_s3_url


class ObjectStoreError(RuntimeError):
    """The store cannot be reached, or does not hold what a pointer names."""


@dataclass(frozen=True)
class StoreUrl:
    """``s3://bucket/prefix``, parsed: where a deployment's snapshots live."""

    bucket: str
    prefix: str  # without slashes at either end; may be empty

    @classmethod
    def parse(cls, url: str) -> StoreUrl:
        return cls(*split_s3_url(url))

    def key(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def __str__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"


@contextmanager
def store_errors(url: StoreUrl, action: str) -> Iterator[None]:
    """boto3's errors (no endpoint, no credentials, a refused request, a failed transfer) as
    ``ObjectStoreError`` naming the store and what was being done."""
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (BotoCoreError, ClientError, Boto3Error) as exc:
        raise ObjectStoreError(f"{url}: cannot {action}: {exc}") from exc
