"""``warehouse.s3.store_errors``: what boto's libraries raise becomes one ``ObjectStoreError``
naming the store and the action, including the ``KeyError`` s3transfer raises on an answer cut
short (seen in the fault matrix's ``store-cut``: a multipart upload whose CreateMultipartUpload
reply lost its body to a cut connection); a ``KeyError`` of our own code is left alone."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from botocore.exceptions import EndpointConnectionError

from warehouse.s3 import ObjectStoreError, StoreUrl, raised_in_boto, store_errors

URL = StoreUrl.parse("s3://bucket/prefix")


def _defined_in(module: str) -> Callable[[dict[str, str]], str]:
    """A function whose frame belongs to ``module``, reading a field the way s3transfer reads
    ``UploadId`` from a reply."""
    scope: dict[str, object] = {"__name__": module}
    exec("def read(reply):\n    return reply['UploadId']\n", scope)  # noqa: S102 - a test's own code
    read = scope["read"]
    assert callable(read)
    return read  # type: ignore[return-value]


def test_a_connection_error_names_the_store_and_the_action() -> None:
    wanted = pytest.raises(ObjectStoreError, match=r"s3://bucket/prefix: cannot upload snapshot s1")
    with wanted, store_errors(URL, "upload snapshot s1"):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:1")


def test_a_reply_cut_short_inside_s3transfer_is_a_store_error() -> None:
    read = _defined_in("s3transfer.upload")
    wanted = pytest.raises(ObjectStoreError, match="answer was cut short.*UploadId")
    with wanted as caught, store_errors(URL, "upload snapshot s1"):
        read({})
    assert isinstance(caught.value.__cause__, KeyError)


def test_raised_in_a_transfer_thread_it_is_still_recognised() -> None:
    # s3transfer runs the parts in threads of its own and re-raises from the future
    read = _defined_in("s3transfer.tasks")
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(read, {})
        with pytest.raises(ObjectStoreError), store_errors(URL, "upload snapshot s1"):
            future.result()


def test_a_key_error_of_our_own_code_is_not_hidden() -> None:
    with pytest.raises(KeyError, match="UploadId"), store_errors(URL, "upload snapshot s1"):
        _defined_in("warehouse.object_store")({})
    try:
        {}["x"]  # noqa: B018 - the test's own KeyError
    except KeyError as exc:
        assert not raised_in_boto(exc)
