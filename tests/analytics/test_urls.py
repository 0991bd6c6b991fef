from __future__ import annotations

import pytest

from analytics.urls import (
    InvalidURLError,
    canonical_url,
    registrable_domain,
    signal_id_for,
    source_id_for,
    with_segment,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://www.example.com/a/", "http://example.com/a"),
        ("https://twitter.com/u/status/1?s=20", "https://x.com/u/status/1"),
        ("https://example.com/p?utm_source=x&id=3#frag", "https://EXAMPLE.com/p?id=3"),
        ("https://example.com/p?b=2&a=1", "https://example.com/p?a=1&b=2"),
        ("https://youtu.be/abc123", "https://www.youtube.com/watch?v=abc123"),
        ("https://pod.example.fm/ep/1?t=30&end=90", "https://pod.example.fm/ep/1"),
    ],
)
def test_same_source_same_canonical_url(a: str, b: str) -> None:
    assert canonical_url(a) == canonical_url(b)
    assert source_id_for(canonical_url(a)) == source_id_for(canonical_url(b))


def test_identifying_query_parameters_are_kept() -> None:
    assert canonical_url("https://youtube.com/watch?v=a") != canonical_url(
        "https://youtube.com/watch?v=b"
    )


@pytest.mark.parametrize("bad", ["ftp://example.com/x", "example.com/x", "https://", "not a url"])
def test_non_http_urls_are_refused(bad: str) -> None:
    with pytest.raises(InvalidURLError):
        canonical_url(bad)


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://news.bbc.co.uk/story", "bbc.co.uk"),
        ("https://www.theverge.com/a", "theverge.com"),
        ("https://blog.example.com.au/x", "example.com.au"),
        ("https://twitter.com/u/status/1", "x.com"),
        ("https://frontier.substack.com/p/x", "substack.com"),
    ],
)
def test_registrable_domain_follows_the_public_suffix_list(url: str, domain: str) -> None:
    assert registrable_domain(url) == domain


def test_segment_ids_differ_by_span_and_urls_carry_integer_seconds() -> None:
    canonical = canonical_url("https://pod.example.fm/ep/1")
    assert signal_id_for(canonical, 0, 60) != signal_id_for(canonical, 60, 120)
    assert signal_id_for(canonical) != signal_id_for(canonical, 0, 60)
    assert with_segment("https://pod.example.fm/ep/1?t=5", 60, 120) == (
        "https://pod.example.fm/ep/1?t=60&end=120"
    )
