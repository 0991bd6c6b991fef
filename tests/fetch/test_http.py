"""The address rule of the polite client: what counts as public, through every IPv6 form that
embeds an IPv4 address."""

from __future__ import annotations

import pytest

from fetch.http import FetchError, check_address, is_public_address, retry_after_seconds


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("2002:0808:0808::1", True),  # 6to4 of a public address
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("192.168.0.1", False),
        ("169.254.169.254", False),  # cloud metadata
        ("::1", False),
        ("fe80::1", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped
        ("::127.0.0.1", False),  # IPv4-compatible
        ("2002:7f00:1::", False),  # 6to4 of loopback
        ("64:ff9b::7f00:1", False),  # NAT64 of loopback
        ("224.0.0.1", False),
    ],
)
def test_public_addresses(address: str, public: bool) -> None:
    assert is_public_address(address) is public


def test_bad_urls_are_fetch_errors() -> None:
    for url in ("http://example.com:99999/", "ftp://example.com/", "http:///nohost"):
        with pytest.raises(FetchError):
            check_address(url, allow_private=False)
    with pytest.raises(FetchError, match="private or local"):
        check_address("http://127.0.0.1:8000/", allow_private=False)


def test_retry_after() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("soon") is None
