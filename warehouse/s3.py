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


# the libraries that read the store's answers: a KeyError raised inside them is an answer that
# lacked a field (a connection cut after the status line, a proxy truncating the body), not a
# bug of ours
_BOTO_MODULES = ("boto3", "botocore", "s3transfer")


def raised_in_boto(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside boto3, botocore or s3transfer (its innermost frame's
    module), whichever thread re-raised it since."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    module = str(tb.tb_frame.f_globals.get("__name__", ""))
    return module.split(".", 1)[0] in _BOTO_MODULES


@contextmanager
def store_errors(url: StoreUrl, action: str) -> Iterator[None]:
    """boto3's errors (no endpoint, no credentials, a refused request, a failed transfer) as
    ``ObjectStoreError`` naming the store and what was being done; so is a ``KeyError`` that
    boto's libraries raise on an answer cut short (s3transfer reading ``UploadId`` from a
    reply that lacks it), while one from our own code stays what it is."""
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (BotoCoreError, ClientError, Boto3Error) as exc:
        raise ObjectStoreError(f"{url}: cannot {action}: {exc}") from exc
    except KeyError as exc:
        if not raised_in_boto(exc):
            raise
        raise ObjectStoreError(
            f"{url}: cannot {action}: the store's answer was cut short (it lacked {exc})"
        ) from exc
