"""URL identity: canonical form, registrable domain and the stable ids derived from them."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import tldextract

# Query parameters that identify a campaign or a share, never the document itself.
_TRACKING_PARAMS = frozenset(
    {"fbclid", "gclid", "mc_cid", "mc_eid", "ref", "ref_src", "ref_url", "s", "si", "igshid"}
)
# Hosts that serve the same documents under several names.
_HOST_ALIASES = {
    "twitter.com": "x.com",
    "mobile.twitter.com": "x.com",
    "mobile.x.com": "x.com",
    "m.youtube.com": "youtube.com",
    "youtu.be": "youtube.com",
}
# Podcast segment positions live in the URL but are not part of the source's identity.
SEGMENT_PARAMS = ("t", "end")


class InvalidURLError(ValueError):
    """The string is not an absolute http(s) URL with a host."""


@lru_cache(maxsize=1)
def _extractor() -> tldextract.TLDExtract:
    # The bundled Public Suffix List snapshot: no network at run time.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def canonical_url(url: str) -> str:
    """The form two URLs share when they name the same source.

    Scheme, ``www.``, host aliases (``twitter.com`` → ``x.com``), default ports, fragments,
    trailing slashes, tracking and segment query parameters and parameter order are ignored.
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InvalidURLError(f"{url!r} is not an absolute http(s) URL")
    host = parts.hostname.lower().rstrip(".")
    host = host.removeprefix("www.")
    host = _HOST_ALIASES.get(host, host)
    port = parts.port
    netloc = host if port in (None, 80, 443) else f"{host}:{port}"
    query_pairs = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not key.lower().startswith("utm_")
        and key.lower() not in _TRACKING_PARAMS
        and key not in SEGMENT_PARAMS
    ]
    if parts.hostname.lower() == "youtu.be" and parts.path.strip("/"):
        # youtu.be/<id> is youtube.com/watch?v=<id>
        query_pairs.append(("v", parts.path.strip("/")))
        path = "/watch"
    else:
        path = parts.path.rstrip("/")
    query = urlencode(sorted(query_pairs))
    return urlunsplit(("https", netloc, path, query, ""))


def registrable_domain(url: str) -> str:
    """The registrable domain under the Public Suffix List (``news.bbc.co.uk`` → ``bbc.co.uk``)."""
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    host = _HOST_ALIASES.get(host, host)
    extracted = _extractor()(host)
    domain = extracted.top_domain_under_public_suffix
    return domain or host


def with_segment(url: str, start_s: int, end_s: int) -> str:
    """The URL of an audio span: ``t=<start>&end=<end>`` in integer seconds."""
    parts = urlsplit(url)
    pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    pairs = [(k, v) for k, v in pairs if k not in SEGMENT_PARAMS]
    pairs += [("t", str(int(start_s))), ("end", str(int(end_s)))]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(pairs), ""))


def stable_id(prefix: str, *parts: str, length: int = 16) -> str:
    """``<prefix>_<hex>``: a short SHA-256 of the parts, the same on every machine and run."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{digest[:length]}"


def source_id_for(canonical: str) -> str:
    """The id of a source: one per canonical URL, whatever the spelling of the URL."""
    return stable_id("src", canonical)


def signal_id_for(canonical: str, start_s: int | None = None, end_s: int | None = None) -> str:
    """The id of a signal: the source's canonical URL, plus the span for a podcast segment."""
    if start_s is None or end_s is None:
        return stable_id("sig", canonical)
    return stable_id("sig", canonical, str(int(start_s)), str(int(end_s)))
