"""ASGI plumbing: read a whole request, send a whole answer or a stream, or break the
connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import attrs

__all__ = [
    "Answer",
    "ConnectionDropped",
    "Receive",
    "Request",
    "Scope",
    "Send",
    "json_answer",
    "parse_json",
    "read_request",
    "send_answer",
    "send_stream",
]


#: A ``\\uD800``-``\\uDFFF`` escape: the only way a surrogate gets into parsed JSON.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def parse_json(raw: str | bytes) -> Any:
    """``json.loads``, with JSON nested too deeply to read, and a string holding a lone
    surrogate (``"\\ud800"``, which no UTF-8 text can carry) raised as the
    ``json.JSONDecodeError`` of any other unreadable JSON (a request answered 400, not
    a ``RecursionError`` or a ``UnicodeEncodeError`` later)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", "", 0) from None
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _SURROGATE_ESCAPE.search(data):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            message = "a string holds a lone surrogate, which is not Unicode text"
            raise json.JSONDecodeError(message, "", exc.start) from None
    return value


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_BODY = 1 << 20


class ConnectionDropped(Exception):
    """Raised after a partial answer so the server closes the connection mid-response."""


class BodyTooLarge(Exception):
    pass


@attrs.frozen
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    host: str

    @property
    def params(self) -> dict[str, list[str]]:
        return parse_qs(self.query, keep_blank_values=True)

    @property
    def origin(self) -> str:
        """``scheme://host[:port]`` as the client addressed it: the absolute URLs the
        server hands out start with it, so they work behind a proxy."""
        return request_origin(self.headers, self.host)


# A host as a URL may name it: a name or IPv4 address, or a bracketed IPv6 address,
# with an optional port. Anything else in a forwarding header is ignored.
_HOST = re.compile(r"(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_SCHEMES = ("http", "https")


def _forwarded(value: str) -> dict[str, str]:
    """The parameters of the first element of an RFC 7239 ``Forwarded`` header (the
    proxy nearest the client), names lowercased, quoted values unquoted."""
    first = value.split(",", 1)[0]
    found: dict[str, str] = {}
    for pair in first.split(";"):
        name, sep, text = pair.partition("=")
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1].replace('\\"', '"')
        if sep:
            found.setdefault(name.strip().lower(), text)
    return found


def _first(value: str | None) -> str | None:
    return value.split(",", 1)[0].strip() if value else None


def request_origin(headers: dict[str, str], host: str) -> str:
    """The origin a client used: ``Forwarded`` (host, proto), else ``X-Forwarded-Host``
    and ``X-Forwarded-Proto``, else the ``Host`` header (``host``), over http."""
    forwarded = _forwarded(headers.get("forwarded", ""))
    name = forwarded.get("host") or _first(headers.get("x-forwarded-host"))
    scheme = (forwarded.get("proto") or _first(headers.get("x-forwarded-proto")) or "").lower()
    if not name or not _HOST.fullmatch(name):
        name = host
    return f"{scheme if scheme in _SCHEMES else 'http'}://{name}"


@attrs.frozen
class Answer:
    """A whole answer; or, with ``stream``, its status and headers, then each chunk
    ``stream`` yields as it comes (``body`` unused)."""

    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    drop: bool = False
    stream: AsyncGenerator[bytes, None] | None = attrs.field(default=None, eq=False)


def json_answer(status: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()) -> Answer:
    body = json.dumps(payload, ensure_ascii=False).encode()
    return Answer(status, body, (("content-type", "application/json"), *headers))


async def read_request(scope: Scope, receive: Receive) -> Request:
    """The request of ``scope`` with its whole body; raises BodyTooLarge past ``MAX_BODY``."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        body.extend(message.get("body", b""))
        if len(body) > MAX_BODY:
            raise BodyTooLarge
        more = bool(message.get("more_body", False))
    server = scope.get("server") or ("127.0.0.1", 0)
    return Request(
        method=str(scope["method"]).upper(),
        path=str(scope["path"]),
        query=bytes(scope.get("query_string", b"")).decode("latin-1"),
        headers=headers,
        body=bytes(body),
        host=headers.get("host") or f"{server[0]}:{server[1]}",
    )


async def send_stream(send: Send, receive: Receive, answer: Answer) -> None:
    """Send ``answer``'s stream chunk by chunk until it ends or the client goes away."""
    assert answer.stream is not None
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    # The request is read: the next message is the client going away.
    gone = asyncio.ensure_future(receive())
    chunks = answer.stream
    try:
        while True:
            step = asyncio.ensure_future(anext(chunks))
            await asyncio.wait({step, gone}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                step.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await step
                return
            try:
                chunk = step.result()
            except StopAsyncIteration:
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        gone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await gone
        await chunks.aclose()


async def send_answer(send: Send, answer: Answer) -> None:
    """Send ``answer``; a dropping answer promises more bytes than it sends, then breaks off."""
    declared = len(answer.body) + (4096 if answer.drop else 0)
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
    headers.append((b"content-length", str(declared).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body, "more_body": answer.drop})
    if answer.drop:
        raise ConnectionDropped
