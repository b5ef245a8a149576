"""Responses as an operation's raw and streaming variants return them.

``client.jobs.with_raw_response.create(...)`` returns a :class:`RawResponse`: the
status, headers and request id, with the body read and parsed on demand.
``client.jobs.with_streaming_response.get(...)`` returns a :class:`Streaming` (or
:class:`AsyncStreaming`) context manager: the request is sent on entry, and the body
is not read until asked for (``iter_bytes``, ``read``, ``parse``, ``write_to_file``).

Both are the resource's own methods, called over an HTTP view whose ``call`` returns
the response instead of the decoded body: :func:`as_raw` and its kin only give them
their static type (the method's parameters, the variant's return type).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from os import PathLike as _PathLike
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union, final, overload

import httpx

if TYPE_CHECKING:
    # Only type checkers need it (Python 3.10's typing has it; 3.9's has not).
    from typing_extensions import ParamSpec

    P = ParamSpec("P")

__all__ = [
    "AsyncStreamedResponse",
    "AsyncStreaming",
    "RawResponse",
    "Redirect",
    "StreamedResponse",
    "Streaming",
    "as_async_raw",
    "as_async_streaming",
    "as_raw",
    "as_streaming",
    "redirected",
]

T = TypeVar("T")
PathLike = Union[str, "_PathLike[str]"]


def request_id_of(headers: httpx.Headers) -> str | None:
    """The server's id for a request, from ``x-request-id`` or ``request-id``."""
    found: str | None = headers.get("x-request-id") or headers.get("request-id")
    return found


@final
class Redirect:
    """A 3xx answer an operation declares beside its success, returned instead of its
    result (not followed): the status, the ``Location`` (resolved against the request's
    URL; "" when absent) and the headers."""

    __slots__ = ("headers", "location", "status_code")

    def __init__(self, status_code: int, location: str, headers: httpx.Headers) -> None:
        self.status_code = status_code
        self.location = location
        self.headers = headers

    def __repr__(self) -> str:
        return f"<Redirect {self.status_code} {self.location}>"


def redirected(response: httpx.Response) -> Redirect | None:
    """The `Redirect` a 3xx response is, or None for any other."""
    if not 300 <= response.status_code < 400:
        return None
    location = response.headers.get("location")
    if location is not None:
        location = str(response.request.url.join(location))
    return Redirect(response.status_code, location or "", response.headers)


class _Head(Generic[T]):
    """Status, headers and request id of a response, shared by every variant."""

    __slots__ = ("_decode", "http_response")

    def __init__(
        self, response: httpx.Response, decode: Callable[[httpx.Response], T]
    ) -> None:
        self.http_response = response
        self._decode = decode

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def request_id(self) -> str | None:
        return request_id_of(self.http_response.headers)

    @property
    def url(self) -> httpx.URL:
        return self.http_response.request.url

    def __repr__(self) -> str:
        request = self.http_response.request
        return (
            f"<{type(self).__name__} {request.method} {request.url.path} "
            f"{self.status_code}>"
        )


class RawResponse(_Head[T]):
    """A response whose body has been read; :meth:`parse` decodes it (once)."""

    __slots__ = ("_parsed",)

    def __init__(
        self, response: httpx.Response, decode: Callable[[httpx.Response], T]
    ) -> None:
        super().__init__(response, decode)
        self._parsed: list[T] = []

    @property
    def content(self) -> bytes:
        return self.http_response.content

    def parse(self) -> T:
        """The body decoded as the operation's return type."""
        if not self._parsed:
            self._parsed.append(self._decode(self.http_response))
        return self._parsed[0]


class StreamedResponse(_Head[T]):
    """A response whose body is read only when asked for."""

    __slots__ = ()

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        """The body in chunks, as it arrives."""
        return self.http_response.iter_bytes(chunk_size)

    def iter_lines(self) -> Iterator[str]:
        return self.http_response.iter_lines()

    def read(self) -> bytes:
        """The whole body."""
        return self.http_response.read()

    def parse(self) -> T:
        """Read the body and decode it as the operation's return type."""
        self.http_response.read()
        return self._decode(self.http_response)

    def write_to_file(self, path: PathLike) -> None:
        """Stream the body into a file, chunk by chunk."""
        with open(path, "wb") as file:
            file.writelines(self.http_response.iter_bytes())

    def close(self) -> None:
        self.http_response.close()


class AsyncStreamedResponse(_Head[T]):
    """The async twin of :class:`StreamedResponse`."""

    __slots__ = ()

    def iter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        """The body in chunks, as it arrives."""
        return self.http_response.aiter_bytes(chunk_size)

    def iter_lines(self) -> AsyncIterator[str]:
        return self.http_response.aiter_lines()

    async def read(self) -> bytes:
        """The whole body."""
        return await self.http_response.aread()

    async def parse(self) -> T:
        """Read the body and decode it as the operation's return type."""
        await self.http_response.aread()
        return self._decode(self.http_response)

    async def write_to_file(self, path: PathLike) -> None:
        """Stream the body into a file, chunk by chunk (local writes block briefly)."""
        with open(path, "wb") as file:  # noqa: ASYNC230 - no async file API in the deps
            async for chunk in self.http_response.aiter_bytes():
                file.write(chunk)

    async def close(self) -> None:
        await self.http_response.aclose()


class Streaming(Generic[T]):
    """``with``: sends the request on entry, closes the response on exit."""

    __slots__ = ("_response", "_send")

    def __init__(self, send: Callable[[], StreamedResponse[T]]) -> None:
        self._send = send
        self._response: StreamedResponse[T] | None = None

    def __enter__(self) -> StreamedResponse[T]:
        self._response = self._send()
        return self._response

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._response is not None:
            self._response.close()


class AsyncStreaming(Generic[T]):
    """``async with``: sends the request on entry, closes the response on exit."""

    __slots__ = ("_response", "_send")

    def __init__(self, send: Callable[[], Awaitable[AsyncStreamedResponse[T]]]) -> None:
        self._send = send
        self._response: AsyncStreamedResponse[T] | None = None

    async def __aenter__(self) -> AsyncStreamedResponse[T]:
        self._response = await self._send()
        return self._response

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._response is not None:
            await self._response.close()


# ``decode`` is given only when the variant's body is not the method's return type:
# a list operation's raw page rather than its pager.
@overload
def as_raw(method: Callable[P, T]) -> Callable[P, RawResponse[T]]: ...
@overload
def as_raw(
    method: Callable[P, object], decode: Callable[[httpx.Response], T]
) -> Callable[P, RawResponse[T]]: ...
def as_raw(method: Callable[P, object], decode: object = None) -> Callable[P, object]:
    """``method`` of a resource over a raw view, typed as returning a ``RawResponse``
    of its own return type (or of what ``decode`` returns)."""
    return method


@overload
def as_async_raw(
    method: Callable[P, Awaitable[T]],
) -> Callable[P, Coroutine[Any, Any, RawResponse[T]]]: ...
@overload
def as_async_raw(
    method: Callable[P, object], decode: Callable[[httpx.Response], T]
) -> Callable[P, Coroutine[Any, Any, RawResponse[T]]]: ...
def as_async_raw(
    method: Callable[P, object], decode: object = None
) -> Callable[P, object]:
    """The async twin of :func:`as_raw`."""
    return method


@overload
def as_streaming(method: Callable[P, T]) -> Callable[P, Streaming[T]]: ...
@overload
def as_streaming(
    method: Callable[P, object], decode: Callable[[httpx.Response], T]
) -> Callable[P, Streaming[T]]: ...
def as_streaming(
    method: Callable[P, object], decode: object = None
) -> Callable[P, Streaming[Any]]:
    """``method`` of a resource over a streaming view, sent on entering the
    ``Streaming`` it returns."""
    return _Streamed(method, Streaming)


@overload
def as_async_streaming(
    method: Callable[P, Awaitable[T]],
) -> Callable[P, AsyncStreaming[T]]: ...
@overload
def as_async_streaming(
    method: Callable[P, object], decode: Callable[[httpx.Response], T]
) -> Callable[P, AsyncStreaming[T]]: ...
def as_async_streaming(
    method: Callable[P, object], decode: object = None
) -> Callable[P, AsyncStreaming[Any]]:
    """The async twin of :func:`as_streaming`."""
    return _Streamed(method, AsyncStreaming)


class _Streamed:
    """A call of ``__wrapped__`` (whose signature ``inspect`` shows), sent on entry."""

    __slots__ = ("__wrapped__", "_manager")

    def __init__(self, method: Callable[..., Any], manager: Callable[..., Any]) -> None:
        self.__wrapped__ = method
        self._manager = manager

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._manager(lambda: self.__wrapped__(*args, **kwargs))
