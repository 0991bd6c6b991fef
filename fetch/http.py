"""The polite HTTP client every fetch goes through: robots.txt (Protego) with its Crawl-delay,
one request at a time per host with a least delay between them, a User-Agent that names aimi,
conditional GET, retries with backoff and Retry-After, and hard limits (timeouts, body size,
redirects, content types, no private addresses unless allowed). Every failure is a
``FetchError`` with the URL and a reason in words; none of them stops a run."""

from __future__ import annotations

import email.utils
import ipaddress
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

import httpx
from protego import Protego

from warehouse.settings import Settings

PAGE_TYPES = ("text/html", "application/xhtml+xml")
FEED_TYPES = (
    # servers label feeds loosely (text/plain, text/html): the parser decides what it is
    "text/plain",
    "text/html",
    "application/octet-stream",
    "application/rss+xml",
    "application/atom+xml",
    "application/feed+json",
    "application/json",
    "application/xml",
    "text/xml",
    "application/rdf+xml",
    "application/x-rss+xml",
)
PDF_TYPES = ("application/pdf",)
TRANSCRIPT_TYPES = (
    "text/vtt",
    "application/x-subrip",
    "application/srt",
    "text/srt",
    "application/json",
    "text/plain",
    *PAGE_TYPES,
)
# never read, whatever a feed or a redirect says: the fetcher reads text, not media
_MEDIA_PREFIXES = ("audio/", "video/", "image/")
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_BACKOFF_S = 0.5


class FetchError(Exception):
    """A URL that could not be fetched, and why (in words an operator can act on)."""

    def __init__(
        self, url: str, reason: str, *, status: int | None = None, transient: bool = False
    ) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.status = status
        # worth trying again on the next run (a server error, a timeout), unlike a 404 or a
        # path robots.txt disallows
        self.transient = transient


@dataclass(frozen=True)
class FetchPolicy:
    """What a fetch may do, from the settings (``AIMI_FETCH_*``)."""

    user_agent: str
    delay_s: float = 1.0
    timeout_s: float = 20.0
    max_bytes: int = 10_000_000
    max_redirects: int = 5
    retries: int = 3
    max_retry_after_s: float = 120.0
    allow_private: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchPolicy:
        return cls(
            user_agent=settings.fetch_user_agent,
            delay_s=settings.fetch_delay_s,
            timeout_s=settings.fetch_timeout_s,
            max_bytes=settings.fetch_max_bytes,
            max_redirects=settings.fetch_max_redirects,
            retries=settings.fetch_retries,
            max_retry_after_s=settings.fetch_max_retry_after_s,
            allow_private=settings.fetch_allow_private,
        )


@dataclass(frozen=True)
class Validators:
    """What a conditional GET sends back: the last response's ETag and Last-Modified."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True)
class Response:
    """A kept answer: 200 with its body, or 304 (``not_modified``, no body)."""

    url: str  # after redirects
    status: int
    headers: dict[str, str]
    body: bytes
    request_headers: dict[str, str]
    fetched_at: datetime

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def validators(self) -> Validators:
        return Validators(self.headers.get("etag"), self.headers.get("last-modified"))


@dataclass
class FetchStats:
    """Counts for a run's report."""

    requests: int = 0
    not_modified: int = 0
    bytes: int = 0
    retries: int = 0
    waited_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: float) -> None:
        with self.lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def is_public_address(address: str) -> bool:
    """A global unicast address, also through the IPv6 forms that embed an IPv4 one (mapped,
    compatible, 6to4, Teredo, NAT64): each embedded address must be public too."""
    ip = ipaddress.ip_address(address.split("%")[0])
    # 6to4 (2002::/16) and Teredo are not global themselves: judged by what they embed
    tunnel = isinstance(ip, ipaddress.IPv6Address) and bool(ip.sixtofour or ip.teredo)
    if (not ip.is_global or ip.is_multicast) and not tunnel:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
        if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        return all(is_public_address(str(v4)) for v4 in embedded if v4 is not None)
    return True


def check_address(url: str, *, allow_private: bool) -> None:
    """Refuse a URL whose host resolves to a loopback, private, link-local or reserved
    address (unless allowed), so a feed cannot aim the fetcher at internal services."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchError(url, f"not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(url, "only http and https URLs are fetched")
    if allow_private:
        return
    try:
        infos = socket.getaddrinfo(parts.hostname, port or 443, type=socket.SOCK_STREAM)
    except OSError as exc:
        # a resolver's hiccup passes: tried again next run
        raise FetchError(url, f"the host does not resolve ({exc})", transient=True) from None
    for info in infos:
        address = str(info[4][0])
        if not is_public_address(address):
            raise FetchError(
                url,
                f"{parts.hostname} resolves to {address}, a private or local address; such "
                "addresses are refused (AIMI_FETCH_ALLOW_PRIVATE=1 allows them)",
            )


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """A Retry-After header (seconds, or an HTTP date) as seconds from now."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _HostGate:
    """One request at a time to a host, and at least ``delay`` seconds between two."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.next_at = 0.0
        self.delay = 0.0  # robots.txt's Crawl-delay, once read
        self.last_end = 0.0


class PoliteClient:
    """The one HTTP client of a fetch run; safe to share between threads."""

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.policy = policy
        self.stats = FetchStats()
        self._client = httpx.Client(
            follow_redirects=False,
            timeout=httpx.Timeout(policy.timeout_s),
            headers={"User-Agent": policy.user_agent},
            transport=transport,
        )
        self._gates: dict[str, _HostGate] = {}
        self._robots: dict[str, Protego | None] = {}
        self._robots_errors: dict[str, str] = {}
        self._robots_reading: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- politeness ---------------------------------------------------------------------------

    def _gate(self, url: str) -> _HostGate:
        host = urlsplit(url).netloc.lower()
        with self._lock:
            return self._gates.setdefault(host, _HostGate())

    def robots(self, url: str) -> Protego | None:
        """The parsed robots.txt of ``url``'s origin (``None``: none, everything allowed)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}".lower()
        with self._lock:
            if origin in self._robots:
                return self._robots[origin]
            reading = self._robots_reading.setdefault(origin, threading.Lock())
        with reading:  # one thread reads it; the others wait for its answer
            with self._lock:
                if origin in self._robots:
                    return self._robots[origin]
            return self._read_robots(origin, parts.netloc.lower())

    def _read_robots(self, origin: str, host: str) -> Protego | None:
        parsed: Protego | None = None
        error: str | None = None
        try:
            answer = self._request(f"{origin}/robots.txt", (), Validators(), robots_check=False)
            parsed = Protego.parse(answer.body.decode("utf-8", errors="replace"))
        except FetchError as exc:
            # no robots.txt (4xx but 429) allows everything; a server error, a 429 or no answer
            # means "do not crawl now", as RFC 9309 and Google read it
            if exc.status is None or exc.status == 429 or exc.status >= 500:
                error = f"robots.txt of {origin} could not be read ({exc.reason}); not crawled"
        with self._lock:
            self._robots[origin] = parsed
            if error:
                self._robots_errors[origin] = error
            if parsed is not None:
                delay = parsed.crawl_delay(self.policy.user_agent)
                if delay:
                    gate = self._gates.setdefault(host, _HostGate())
                    gate.delay = max(gate.delay, float(delay))
                    # robots.txt itself was the last request: the next waits the crawl delay
                    gate.next_at = max(gate.next_at, gate.last_end + gate.delay)
        return parsed

    def allowed(self, url: str) -> bool:
        parsed = self.robots(url)
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}".lower()
        if origin in self._robots_errors:
            raise FetchError(url, self._robots_errors[origin], transient=True)
        return parsed is None or bool(parsed.can_fetch(url, self.policy.user_agent))

    def sitemaps(self, url: str) -> list[str]:
        """The ``Sitemap:`` lines of ``url``'s robots.txt."""
        parsed = self.robots(url)
        return list(parsed.sitemaps) if parsed is not None else []

    # -- requests -----------------------------------------------------------------------------

    def get(
        self,
        url: str,
        accept: Iterable[str],
        validators: Validators | None = None,
    ) -> Response:
        """GET ``url`` politely; a 304 when ``validators`` still hold. ``accept`` lists the
        content types wanted (empty: any text). Raises ``FetchError``."""
        if not self.allowed(url):
            raise FetchError(url, "disallowed by the site's robots.txt")
        return self._request(url, tuple(accept), validators or Validators(), robots_check=True)

    def _request(
        self, url: str, accept: tuple[str, ...], validators: Validators, *, robots_check: bool
    ) -> Response:
        current = url
        for _ in range(self.policy.max_redirects + 1):
            check_address(current, allow_private=self.policy.allow_private)
            answer, location = self._attempts(current, accept, validators)
            if location is None:
                assert answer is not None
                return answer
            target = urljoin(current, location)
            if robots_check and not self.allowed(target):
                raise FetchError(url, f"redirected to {target}, which robots.txt disallows")
            current = target
        raise FetchError(url, f"more than {self.policy.max_redirects} redirects")

    def _attempts(
        self, url: str, accept: tuple[str, ...], validators: Validators
    ) -> tuple[Response | None, str | None]:
        """One URL with its retries: ``(response, None)`` or ``(None, redirect location)``."""
        attempt = 0
        while True:
            try:
                return self._once(url, accept, validators)
            except _Retry as retry:
                attempt += 1
                if attempt > self.policy.retries:
                    raise FetchError(
                        url,
                        f"{retry.reason}, still after {attempt} attempts",
                        status=retry.status,
                        transient=True,
                    ) from None
                wait = retry.after if retry.after is not None else _BACKOFF_S * 2 ** (attempt - 1)
                if wait > self.policy.max_retry_after_s:
                    raise FetchError(
                        url,
                        f"{retry.reason}; the server asks to wait {wait:.0f} s",
                        status=retry.status,
                        transient=True,
                    ) from None
                self.stats.add(retries=1)
                gate = self._gate(url)
                with gate.lock:
                    gate.next_at = max(gate.next_at, time.monotonic() + wait)

    def _once(
        self, url: str, accept: tuple[str, ...], validators: Validators
    ) -> tuple[Response | None, str | None]:
        gate = self._gate(url)
        with gate.lock:
            wait = gate.next_at - time.monotonic()
            if wait > 0:
                self.stats.add(waited_s=wait)
                time.sleep(wait)
            try:
                return self._send(url, accept, validators)
            finally:
                gate.last_end = time.monotonic()
                gate.next_at = gate.last_end + max(self.policy.delay_s, gate.delay)

    def _send(
        self, url: str, accept: tuple[str, ...], validators: Validators
    ) -> tuple[Response | None, str | None]:
        headers = {"Accept-Encoding": "gzip, deflate"}
        if accept:
            headers["Accept"] = ", ".join((*accept, "*/*;q=0.1"))
        if validators.etag:
            headers["If-None-Match"] = validators.etag
        if validators.last_modified:
            headers["If-Modified-Since"] = validators.last_modified
        fetched_at = datetime.now(UTC)
        self.stats.add(requests=1)
        try:
            with self._client.stream("GET", url, headers=headers) as answer:
                return self._read(url, answer, accept, headers, fetched_at)
        except httpx.TimeoutException:
            raise _Retry(f"no answer within {self.policy.timeout_s:g} s") from None
        except httpx.TransportError as exc:
            raise _Retry(f"connection failed ({type(exc).__name__}: {exc})") from None
        except httpx.DecodingError as exc:
            raise FetchError(url, f"the body cannot be decoded ({exc})") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise FetchError(url, f"{type(exc).__name__}: {exc}") from None

    def _read(
        self,
        url: str,
        answer: httpx.Response,
        accept: tuple[str, ...],
        request_headers: dict[str, str],
        fetched_at: datetime,
    ) -> tuple[Response | None, str | None]:
        status = answer.status_code
        if status in (301, 302, 303, 307, 308):
            location = answer.headers.get("location")
            if not location:
                raise FetchError(url, f"a {status} redirect without a Location", status=status)
            return None, location
        if status in _RETRY_STATUSES:
            raise _Retry(
                f"HTTP {status}",
                status=status,
                after=retry_after_seconds(answer.headers.get("retry-after")),
            )
        headers = {k.lower(): v for k, v in answer.headers.items()}
        if status == 304:
            self.stats.add(not_modified=1)
            return Response(str(answer.url), 304, headers, b"", request_headers, fetched_at), None
        if status != 200:
            raise FetchError(url, f"HTTP {status}", status=status)
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind.startswith(_MEDIA_PREFIXES):
            raise FetchError(url, f"the answer is {kind}, not text; media files are never read")
        if accept and kind and kind not in accept:
            raise FetchError(
                url, f"the answer is {kind}, not what was expected ({', '.join(accept)})"
            )
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.policy.max_bytes:
            raise FetchError(
                url,
                f"the body is {int(declared):,} bytes, over the "
                f"{self.policy.max_bytes:,}-byte cap (AIMI_FETCH_MAX_BYTES)",
            )
        chunks: list[bytes] = []
        size = 0
        # the timeout bounds each read; this bounds the whole body, so a server trickling a
        # byte at a time cannot hold a run
        deadline = time.monotonic() + 3 * self.policy.timeout_s
        for chunk in answer.iter_bytes():  # decoded: a gzip bomb hits the cap too
            if time.monotonic() > deadline:
                raise _Retry(f"the body took over {3 * self.policy.timeout_s:g} s")
            size += len(chunk)
            if size > self.policy.max_bytes:
                raise FetchError(
                    url,
                    f"the body is over the {self.policy.max_bytes:,}-byte "
                    "cap (AIMI_FETCH_MAX_BYTES)",
                )
            chunks.append(chunk)
        self.stats.add(bytes=size)
        response = Response(
            str(answer.url), 200, headers, b"".join(chunks), request_headers, fetched_at
        )
        return response, None


class _Retry(Exception):
    def __init__(self, reason: str, *, status: int | None = None, after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.after = after
