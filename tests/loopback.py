"""A loopback HTTP server for tests: it records every request as it came over the
socket (method, path, query, headers in order, the body's bytes, de-chunked) and
answers each from a function. Multipart bodies are read back with the standard
library's own MIME parser, not with anything the SDK uses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Seen:
    """One request as it arrived."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: list[tuple[str, str]]
    body: bytes
    chunked: bool

    def header(self, name: str) -> str | None:
        values = self.all(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


@dataclass(frozen=True)
class Part:
    """One part of a multipart/form-data body."""

    name: str
    filename: str | None
    content_type: str | None
    data: bytes


def multipart_parts(seen: Seen) -> list[Part]:
    """The parts of a multipart/form-data request, parsed by the ``email`` package."""
    content_type = seen.header("Content-Type") or ""
    message = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + seen.body
    )
    assert message.is_multipart(), content_type
    parts = []
    for part in message.iter_parts():
        params = dict(part.get_params(header="content-disposition") or [])
        payload = part.get_payload(decode=True)
        parts.append(
            Part(
                name=str(params.get("name")),
                filename=params.get("filename"),
                content_type=part.get("Content-Type"),
                data=payload if isinstance(payload, bytes) else b"",
            )
        )
    return parts


Reply = tuple[int, dict[str, str], bytes]


def _read_body(handler: BaseHTTPRequestHandler) -> tuple[bytes, bool]:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        out = bytearray()
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                handler.rfile.readline()
                return bytes(out), True
            out += handler.rfile.read(size)
            handler.rfile.readline()
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length), False


@contextmanager
def loopback(answer: Callable[[Seen], Reply]) -> Iterator[tuple[str, list[Seen]]]:
    """A server on 127.0.0.1: its base URL, and the requests it has seen so far."""
    seen: list[Seen] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            body, chunked = _read_body(self)
            url = urlsplit(self.path)
            request = Seen(
                self.command,
                url.path,
                parse_qs(url.query, keep_blank_values=True),
                list(self.headers.items()),
                body,
                chunked,
            )
            with lock:
                seen.append(request)
            status, headers, content = answer(request)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
