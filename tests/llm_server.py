"""A local OpenAI-compatible chat-completions server over real HTTP, for tests.

This is a test double for an external service: the LLM endpoint (vLLM, llama.cpp server, Ollama,
a hosted API) that aimi calls but does not run. It listens on a free port of 127.0.0.1, answers
``POST /v1/chat/completions`` with whatever the test's ``respond`` function returns for each
request (fixed answers, error statuses, delays past the client's timeout, bodies that are no JSON)
and records every request it received, so a test can tell how often aimi asked.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the server sends: a status and a body (a chat completion carrying ``content``, or
    ``raw`` bytes as they are), after ``delay`` seconds."""

    status: int = 200
    content: str | None = None
    raw: bytes | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> bytes:
        if self.raw is not None:
            return self.raw
        if self.content is None:
            return json.dumps({"error": {"message": "test error", "code": self.status}}).encode()
        return json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.content},
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()


def answer(content: str | dict[str, Any]) -> Reply:
    """A 200 chat completion whose message is ``content`` (a dict is sent as its JSON)."""
    return Reply(content=content if isinstance(content, str) else json.dumps(content))


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    def source_text(self) -> str:
        """The user message: the source aimi asked about."""
        return str(self.body["messages"][-1]["content"])


class LlmTestServer:
    """The running server: ``base_url`` to configure aimi with, ``received`` to inspect, and the
    most requests it ever held at once (``peak_in_flight``)."""

    def __init__(self, respond: Callable[[Received], Reply]) -> None:
        self.respond = respond
        self.received: list[Received] = []
        self.peak_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True  # a handler still sleeping never blocks close
        # a short poll: stopping waits for the loop's next turn
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> LlmTestServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("Content-Length", "0"))
                received = Received(
                    self.path, dict(self.headers.items()), json.loads(self.rfile.read(length))
                )
                with server._lock:
                    server.received.append(received)
                    server._in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server._in_flight)
                done = False

                def finish() -> None:  # before the answer leaves: the client may ask again
                    nonlocal done  # at once, and must not find this one still counted
                    if not done:
                        with server._lock:
                            server._in_flight -= 1
                        done = True

                try:
                    reply = (
                        server.respond(received)
                        if self.path == "/v1/chat/completions"
                        else Reply(status=404)
                    )
                    time.sleep(reply.delay)
                    body = reply.body()
                    finish()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): nothing to answer
                finally:
                    finish()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # quiet: tests read ``received`` instead

        return Handler


@contextmanager
def llm_server(respond: Callable[[Received], Reply]) -> Iterator[LlmTestServer]:
    """A started test server, stopped on exit."""
    server = LlmTestServer(respond).start()
    try:
        yield server
    finally:
        server.stop()


def refused_url() -> str:
    """The base URL of a port nothing listens on (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
