"""What ``aimi sources add URL`` finds at a URL: a feed (RSS, Atom, JSON Feed), a home page that
links its feed with ``<link rel="alternate">``, or a sitemap; with ``--backfill``, the site's
sitemaps too (robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from fetch.documents import (
    DocumentError,
    Feed,
    feed_links,
    looks_like_sitemap,
    parse_feed,
    parse_sitemap,
)
from fetch.http import FEED_TYPES, PAGE_TYPES, FetchError, PoliteClient


class DiscoveryError(ValueError):
    """Nothing to follow at the URL; the message says what was found and what to try."""


@dataclass(frozen=True)
class Found:
    feed: str | None
    sitemaps: tuple[str, ...]
    kind: str  # the kind the feed suggests: podcast for an audio feed, else article
    title: str


def discover(client: PoliteClient, url: str, *, backfill: bool) -> Found:
    try:
        response = client.get(url, FEED_TYPES + PAGE_TYPES)
    except FetchError as exc:
        raise DiscoveryError(f"{url} cannot be fetched: {exc.reason}") from None
    body, final = response.body, response.url
    if looks_like_sitemap(body):
        _sitemap(client, final)
        return Found(None, (final,), "article", urlsplit(final).netloc)
    feed_url: str | None = None
    try:
        feed = parse_feed(body, final)
        feed_url = final
    except DocumentError:
        if response.content_type not in PAGE_TYPES:
            raise DiscoveryError(
                f"{final} is neither a feed, a sitemap nor a web page "
                f"({response.content_type or 'no content type'})"
            ) from None
        feed, feed_url = _linked_feed(client, final, body)
    sitemaps = _site_sitemaps(client, final) if backfill else ()
    if backfill and not sitemaps:
        raise DiscoveryError(
            f"--backfill: {urlsplit(final).netloc} lists no sitemap in robots.txt and has no "
            "/sitemap.xml; add the source without --backfill"
        )
    return Found(feed_url, sitemaps, "podcast" if feed.podcast else "article", feed.title)


def _linked_feed(client: PoliteClient, page: str, body: bytes) -> tuple[Feed, str]:
    links = feed_links(body, page)
    if not links:
        raise DiscoveryError(
            f"no feed found at {page}: the page links no RSS, Atom or JSON feed "
            "(<link rel=\"alternate\">); add the feed's own URL, or the site's sitemap"
        )
    problems = []
    for link in links:
        try:
            answer = client.get(link, FEED_TYPES)
            return parse_feed(answer.body, answer.url), answer.url
        except (FetchError, DocumentError) as exc:
            problems.append(f"{link}: {exc.reason if isinstance(exc, FetchError) else exc}")
    raise DiscoveryError(f"the feeds {page} links cannot be read: " + "; ".join(problems))


def _sitemap(client: PoliteClient, url: str) -> None:
    try:
        answer = client.get(url, ())
        parse_sitemap(answer.body, answer.url)
    except (FetchError, DocumentError) as exc:
        raise DiscoveryError(
            f"{url} is not a readable sitemap: {exc.reason if isinstance(exc, FetchError) else exc}"
        ) from None


def _site_sitemaps(client: PoliteClient, url: str) -> tuple[str, ...]:
    listed = client.sitemaps(url)
    if listed:
        return tuple(dict.fromkeys(listed))
    parts = urlsplit(url)
    candidate = f"{parts.scheme}://{parts.netloc}/sitemap.xml"
    try:
        answer = client.get(candidate, ())
        parse_sitemap(answer.body, answer.url)
    except (FetchError, DocumentError):
        return ()
    return (candidate,)
