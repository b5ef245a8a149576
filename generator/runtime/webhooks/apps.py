"""The WSGI and ASGI applications of a `WebhookReceiver` (`receiver.wsgi_app()`,
`receiver.asgi_app()`).

Each refuses what it can before reading a body: a method other than POST (405,
nothing verified or remembered), then missing, non-ASCII or stale signature headers
(401). It reads at most the receiver's `max_body` bytes (413 past it); the WSGI app
answers 400 to a `CONTENT_LENGTH` that is not a non-negative integer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

__all__ = ["asgi_app", "wsgi_app"]

_Headers = Sequence[tuple[str, str]]


class _Receiver(Protocol):
    """What the applications need of a `WebhookReceiver` (which hands itself over)."""

    max_body: int

    def refusal(self, method: object, headers: _Headers) -> tuple[int, str] | None: ...

    def acknowledge(self, headers: _Headers, body: bytes) -> tuple[int, str]: ...


_TEXT = [("content-type", "text/plain; charset=utf-8")]
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    405: "Method Not Allowed",
    413: "Content Too Large",
}


def _too_long(receiver: _Receiver) -> tuple[int, str]:
    return 413, f"the delivery body is longer than {receiver.max_body} bytes"


def wsgi_app(
    receiver: _Receiver,
) -> Callable[[dict[str, Any], Callable[..., Any]], list[bytes]]:
    """A WSGI application that acknowledges every POST `receiver` verifies."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        headers = [
            (key[5:].replace("_", "-").lower(), str(value))
            for key, value in environ.items()
            if key.startswith("HTTP_")
        ]
        answer = receiver.refusal(environ.get("REQUEST_METHOD"), headers)
        if answer is None:
            text = str(environ.get("CONTENT_LENGTH") or "").strip() or "0"
            if not text.isascii() or not text.isdigit():
                answer = 400, "the Content-Length is not a number of bytes"
            elif int(text) > receiver.max_body:
                answer = _too_long(receiver)
            else:
                length = int(text)
                body = environ["wsgi.input"].read(length) if length else b""
                answer = receiver.acknowledge(headers, body)
        status, reply = answer
        start_response(f"{status} {_REASONS.get(status, 'OK')}", _TEXT)
        return [reply.encode()]

    return app


def asgi_app(
    receiver: _Receiver,
) -> Callable[
    [dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]:
    """An ASGI application that acknowledges every POST `receiver` verifies."""

    async def app(
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            return
        headers = [
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
        ]
        answer = receiver.refusal(scope.get("method"), headers)
        if answer is None:
            chunks: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > receiver.max_body:
                    answer = _too_long(receiver)
                    break
                chunks.append(chunk)
                if not message.get("more_body"):
                    answer = receiver.acknowledge(headers, b"".join(chunks))
                    break
        status, text = answer
        raw = [(k.encode(), v.encode()) for k, v in _TEXT]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": text.encode()})

    return app
