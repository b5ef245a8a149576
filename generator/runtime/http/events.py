"""Server-sent events (``text/event-stream``) as typed iterators, sync and async.

:class:`EventParser` is the sans-I/O parser of the WHATWG "event stream
interpretation": lines end with CRLF, LF or CR; ``:`` starts a comment; the
``event``, ``data``, ``id`` and ``retry`` fields; several ``data`` lines join
with newlines; a blank line dispatches the event (none when it has no data);
an event cut off by the end of the stream is dropped. :class:`EventStream` and
:class:`AsyncEventStream` send the request when iteration starts, feed the
response's bytes to one parser, and yield each event with its data decoded
(into the schema's type where the spec gives one). A ``data: [DONE]`` event,
the end marker many streaming APIs send, ends the iteration.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

import attrs
import httpx

from ..shared.errors import (
    APIConnectionError,
    APITimeoutError,
    DecodeError,
    ResponseTooLarge,
)
from ..wire.encoding import RequestOptions
from .bounded import where

__all__ = [
    "MAX_EVENT",
    "MAX_LINE",
    "AsyncEventStream",
    "EventParser",
    "EventStream",
    "ServerSentEvent",
    "asking_for_events",
    "json_data",
]

T = TypeVar("T")
_DONE = "[DONE]"


@attrs.frozen
class ServerSentEvent(Generic[T]):
    """One event: its ``data`` (decoded), type, the last event id and retry hint."""

    data: T
    event: str = "message"
    id: str | None = None
    retry: int | None = None


#: The longest line of an event stream an `EventParser` takes, by default (characters).
MAX_LINE = 8 * 1024 * 1024
#: The largest event (its data lines together), by default (characters).
MAX_EVENT = 16 * 1024 * 1024
_LINE_END = re.compile(r"\r\n|\r|\n")


class EventParser:
    """Feed it text as it arrives; it returns the events each piece completes.

    Each piece is scanned once (parsing is linear in the stream's length). A line
    longer than `max_line` characters, or an event whose data passes `max_event`,
    raises `ResponseTooLarge` naming `where` (the stream's request): the parser
    never holds more than about that much.
    """

    def __init__(
        self, *, max_line: int = MAX_LINE, max_event: int = MAX_EVENT, where: str = ""
    ) -> None:
        self.last_event_id: str | None = None
        #: The reconnection time (milliseconds) the server last asked for.
        self.retry: int | None = None
        self.max_line = max_line
        self.max_event = max_event
        self.where = where or "an event stream"
        self._pending: list[str] = []
        self._pending_size = 0
        self._skip_lf = False
        self._started = False
        self._reset()

    def _reset(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._data_size = 0
        self._retry: int | None = None

    def feed(self, text: str) -> list[ServerSentEvent[str]]:
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        if self._skip_lf and text:
            self._skip_lf = False
            text = text.removeprefix("\n")
        events: list[ServerSentEvent[str]] = []
        start = 0
        for match in _LINE_END.finditer(text):
            end = match.start()
            self._grow(end - start)
            if self._pending:
                self._pending.append(text[start:end])
                line = "".join(self._pending)
                self._pending, self._pending_size = [], 0
            else:
                line = text[start:end]
            event = self._line(line)
            if event is not None:
                events.append(event)
            start = match.end()
        if start < len(text):
            self._grow(len(text) - start)
            self._pending.append(text[start:])
            self._pending_size += len(text) - start
        # A CR ending the piece may be the first half of a CRLF split across pieces.
        if text:
            self._skip_lf = text.endswith("\r")
        return events

    def _grow(self, size: int) -> None:
        if self._pending_size + size > self.max_line:
            error = ResponseTooLarge(
                f"{self.where}: a line of the event stream is longer than"
                f" {self.max_line} characters (max_line)"
            )
            error.limit = self.max_line
            raise error

    def close(self) -> list[ServerSentEvent[str]]:
        """The end of the stream: a cut event (or line) does not count."""
        self._pending, self._pending_size = [], 0
        return []

    def _line(self, line: str) -> ServerSentEvent[str] | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data_size += len(value) + 1
            if self._data_size > self.max_event:
                error = ResponseTooLarge(
                    f"{self.where}: an event of the event stream is larger than"
                    f" {self.max_event} characters (max_event)"
                )
                error.limit = self.max_event
                raise error
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent[str] | None:
        if not self._data:
            self._reset()
            return None
        event = ServerSentEvent(
            data="\n".join(self._data),
            event=self._event or "message",
            id=self.last_event_id,
            retry=self._retry,
        )
        self._reset()
        return event


def asking_for_events(options: RequestOptions) -> RequestOptions:
    """``options`` asking for the ``text/event-stream`` form of the response."""
    headers = {k: v for k, v in options.headers.items() if k.lower() != "accept"}
    return attrs.evolve(options, headers={"Accept": "text/event-stream", **headers})


def json_data(data: str, decoder: Callable[[object, str], T]) -> T:
    """An event's data as JSON, decoded by ``decoder`` (errors name the path)."""
    try:
        value: Any = json.loads(data)
    except ValueError:
        raise DecodeError("an event's data is not JSON", path="$") from None
    return decoder(value, "$")


def _broken(exc: httpx.TransportError, response: httpx.Response) -> APIConnectionError:
    """The error of a stream cut off, or silent past the read timeout, mid-way."""
    request = response.request
    message = (
        f"{request.method} {request.url.path}: the event stream broke off: "
        f"{type(exc).__name__}"
    )
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(message, request=request)
    return APIConnectionError(message, request=request)


def _typed(
    event: ServerSentEvent[str], decode: Callable[[str], T]
) -> ServerSentEvent[T]:
    return ServerSentEvent(
        data=decode(event.data), event=event.event, id=event.id, retry=event.retry
    )


class EventStream(Generic[T]):
    """Iterate it for the events of one response; close it (or use ``with``) to stop
    early. The request is sent when iteration (or the ``with`` block) starts."""

    def __init__(
        self, send: Callable[[], httpx.Response], decode: Callable[[str], T]
    ) -> None:
        self._send = send
        self._decode = decode
        self._response: httpx.Response | None = None
        self.parser = EventParser()

    def limits(
        self, *, max_line: int = MAX_LINE, max_event: int = MAX_EVENT
    ) -> EventStream[T]:
        """This stream, taking lines of up to `max_line` and events of up to
        `max_event` characters (past either, iteration raises `ResponseTooLarge`)."""
        self.parser.max_line, self.parser.max_event = max_line, max_event
        return self

    @property
    def response(self) -> httpx.Response:
        """The response (sending the request if it was not sent yet)."""
        if self._response is None:
            self._response = self._send()
        return self._response

    def __iter__(self) -> Iterator[ServerSentEvent[T]]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        response = self.response
        self.parser.where = where(response.request)
        try:
            chunks = response.iter_bytes()
            while True:
                try:
                    chunk = next(chunks)
                except StopIteration:
                    break
                except httpx.TransportError as exc:
                    raise _broken(exc, response) from exc
                for event in self.parser.feed(text.decode(chunk)):
                    if event.data == _DONE:
                        return
                    yield _typed(event, self._decode)
            for event in (
                self.parser.feed(text.decode(b"", final=True)) + self.parser.close()
            ):
                if event.data == _DONE:
                    return
                yield _typed(event, self._decode)
        finally:
            self.close()

    def close(self) -> None:
        if self._response is not None:
            self._response.close()

    def __enter__(self) -> EventStream[T]:
        _ = self.response
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncEventStream(Generic[T]):
    """The async twin of :class:`EventStream`: ``async for event in stream``."""

    def __init__(
        self,
        send: Callable[[], Awaitable[httpx.Response]],
        decode: Callable[[str], T],
    ) -> None:
        self._send = send
        self._decode = decode
        self._response: httpx.Response | None = None
        self.parser = EventParser()

    def limits(
        self, *, max_line: int = MAX_LINE, max_event: int = MAX_EVENT
    ) -> AsyncEventStream[T]:
        """This stream, taking lines of up to `max_line` and events of up to
        `max_event` characters (past either, iteration raises `ResponseTooLarge`)."""
        self.parser.max_line, self.parser.max_event = max_line, max_event
        return self

    async def response(self) -> httpx.Response:
        """The response (sending the request if it was not sent yet)."""
        if self._response is None:
            self._response = await self._send()
        return self._response

    async def __aiter__(self) -> AsyncIterator[ServerSentEvent[T]]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            response = await self.response()
            self.parser.where = where(response.request)
            chunks = response.aiter_bytes()
            while True:
                try:
                    chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    break
                except httpx.TransportError as exc:
                    raise _broken(exc, response) from exc
                for event in self.parser.feed(text.decode(chunk)):
                    if event.data == _DONE:
                        return
                    yield _typed(event, self._decode)
            for event in (
                self.parser.feed(text.decode(b"", final=True)) + self.parser.close()
            ):
                if event.data == _DONE:
                    return
                yield _typed(event, self._decode)
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        if self._response is not None:
            await self._response.aclose()

    async def __aenter__(self) -> AsyncEventStream[T]:
        await self.response()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
