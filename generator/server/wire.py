"""ASGI plumbing: read a whole request, send a whole answer, or break the connection."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
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
    "read_request",
    "send_answer",
]

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


@attrs.frozen
class Answer:
    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    drop: bool = False


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


async def send_answer(send: Send, answer: Answer) -> None:
    """Send ``answer``; a dropping answer promises more bytes than it sends, then breaks off."""
    declared = len(answer.body) + (4096 if answer.drop else 0)
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
    headers.append((b"content-length", str(declared).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body, "more_body": answer.drop})
    if answer.drop:
        raise ConnectionDropped
