"""A real HTTP server on loopback for the fetcher's tests: routes answer fixed bodies or run a
handler, and every request is recorded (path, headers, when it started and ended, how many
were in flight), so a test can fail on a politeness rule broken."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    gzip: bool = False


@dataclass(frozen=True)
class Seen:
    path: str
    headers: dict[str, str]
    started: float
    ended: float
    in_flight: int  # requests being answered when this one arrived, itself included
    status: int


Route = Answer | Callable[["Seen"], Answer]


class Site:
    """Routes by path (query string included); unknown paths answer 404."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def route(self, path: str, answer: Route) -> None:
        self.routes[path] = answer

    def page(
        self,
        path: str,
        body: str | bytes,
        content_type: str = "text/html; charset=utf-8",
        *,
        headers: dict[str, str] | None = None,
        status: int = 200,
        delay_s: float = 0.0,
        gzip: bool = False,
    ) -> None:
        blob = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = Answer(
            status, blob, {"Content-Type": content_type, **(headers or {})}, delay_s, gzip
        )

    def requests(self, path: str | None = None) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if path is None or s.path == path]

    def paths(self) -> list[str]:
        return [s.path for s in self.requests()]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                with site._lock:
                    site._in_flight += 1
                    in_flight = site._in_flight
                started = time.monotonic()
                headers = {k.lower(): v for k, v in self.headers.items()}
                probe = Seen(self.path, headers, started, started, in_flight, 0)
                route = site.routes.get(self.path)
                if route is None:
                    answer = Answer(404, b"not found", {"Content-Type": "text/plain"})
                else:
                    answer = route(probe) if callable(route) else route
                try:
                    if answer.delay_s:
                        time.sleep(answer.delay_s)
                    body = answer.body
                    out = dict(answer.headers)
                    if answer.gzip:
                        body = gzip.compress(body)
                        out["Content-Encoding"] = "gzip"
                    self.send_response(answer.status)
                    for name, value in out.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if answer.status != 304:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with site._lock:
                        site._in_flight -= 1
                        site.seen.append(
                            Seen(
                                self.path,
                                headers,
                                started,
                                time.monotonic(),
                                in_flight,
                                answer.status,
                            )
                        )

        return Handler


def conditional(body: bytes, content_type: str, etag: str) -> Callable[[Seen], Answer]:
    """A route that answers 304 to a request carrying its ETag, else 200 with it."""

    def answer(seen: Seen) -> Answer:
        if seen.headers.get("if-none-match") == etag:
            return Answer(304, b"", {"ETag": etag})
        return Answer(200, body, {"Content-Type": content_type, "ETag": etag})

    return answer


def site_fixture() -> Iterator[Site]:
    site = Site()
    try:
        yield site
    finally:
        site.close()
