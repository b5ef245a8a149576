"""The SDK's HTTP layer: building requests, credentials, retries and error mapping.

Generated operations describe a request as :class:`RequestOptions` (no I/O), and
hand it to :class:`SyncHTTP` or :class:`AsyncHTTP`: retries, decoding and views here,
each single request sent by their bases in `send` (the only two places that touch
the network), everything that is not I/O shared in :class:`~.base.BaseHTTP`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TypeVar, cast

import httpx

from ..wire.encoding import (
    NO_OPTIONS,
    CallOptions,
    RequestOptions,
    decode_json,
    decode_json_text,
    multipart,
    page_options,
    path_param,
    with_header,
    with_idempotency_key,
)
from .base import BaseHTTP
from .bounded import Sink
from .credentials import (
    ApiKey,
    Basic,
    Bearer,
    Credential,
    MissingCredentials,
)
from .response import (
    AsyncStreamedResponse,
    AsyncStreaming,
    RawResponse,
    StreamedResponse,
    Streaming,
)
from .retry import async_call_with_retries, call_with_retries
from .send import AsyncSend, SyncSend

__all__ = [
    "NO_OPTIONS",
    "ApiKey",
    "AsyncHTTP",
    "BaseHTTP",
    "Basic",
    "Bearer",
    "CallOptions",
    "Credential",
    "MissingCredentials",
    "RequestOptions",
    "SyncHTTP",
    "decode_json",
    "decode_json_text",
    "multipart",
    "page_options",
    "path_param",
    "with_header",
]

T = TypeVar("T")


class SyncHTTP(SyncSend):
    """Calls operations with an ``httpx.Client``: retries, decoding, views."""

    def request(
        self,
        options: RequestOptions,
        *,
        idempotency_header: str | None = None,
        time_left: float | None = None,
        stream: bool = False,
        sink: Sink | None = None,
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``
        (a retry's body replaces an earlier one's in ``sink``)."""
        config = self.timing
        left = self.time_left_from(time_left)
        options = with_idempotency_key(options, idempotency_header)
        return call_with_retries(
            lambda: self.send_once(
                options, time_left=left() if left else None, stream=stream, sink=sink
            ),
            self.retry_policy(options, idempotency_header),
            sleep=config.sleep,
            clock=config.clock,
            rng=config.rng,
            wall_clock=config.wall_clock,
            time_left=left,
        )

    def call(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> T:
        """Send (with retries) and decode the body; over a ``view``, return the
        response (``RawResponse`` or ``StreamedResponse``) instead."""
        if self.mode == "raw":
            return cast(
                T, self.call_raw(options, decode, idempotency_header=idempotency_header)
            )
        streamed = self.mode == "streaming"
        response = self.request(
            options, idempotency_header=idempotency_header, stream=streamed
        )
        if streamed:
            return cast(T, StreamedResponse(response, self.read_as(decode)))
        return self.decoded(response, decode)

    def call_raw(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> RawResponse[T]:
        """Send (with retries); the body is read, and decoded by ``parse()``."""
        response = self.request(options, idempotency_header=idempotency_header)
        return RawResponse(response, self.read_as(decode))

    def call_streaming(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> Streaming[T]:
        """A context manager that sends on entry and leaves the body unread."""
        view = self.view("streaming")
        return Streaming(
            lambda: cast(
                "StreamedResponse[T]",
                view.call(options, decode, idempotency_header=idempotency_header),
            )
        )

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> SyncHTTP:  # noqa: PYI034 - typing.Self is not in 3.9
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncHTTP(AsyncSend):
    """Calls operations with an ``httpx.AsyncClient``: retries, decoding, views."""

    async def request(
        self,
        options: RequestOptions,
        *,
        idempotency_header: str | None = None,
        time_left: float | None = None,
        stream: bool = False,
        sink: Sink | None = None,
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``
        (a retry's body replaces an earlier one's in ``sink``)."""
        config = self.timing
        left = self.time_left_from(time_left)
        options = with_idempotency_key(options, idempotency_header)
        return await async_call_with_retries(
            lambda: self.send_once(
                options, time_left=left() if left else None, stream=stream, sink=sink
            ),
            self.retry_policy(options, idempotency_header),
            sleep=config.async_sleep,
            clock=config.clock,
            rng=config.rng,
            wall_clock=config.wall_clock,
            time_left=left,
        )

    async def call(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> T:
        """Send (with retries) and decode the body; over a ``view``, return the
        response (``RawResponse`` or ``AsyncStreamedResponse``) instead."""
        if self.mode == "raw":
            return cast(
                T,
                await self.call_raw(
                    options, decode, idempotency_header=idempotency_header
                ),
            )
        streamed = self.mode == "streaming"
        response = await self.request(
            options, idempotency_header=idempotency_header, stream=streamed
        )
        if streamed:
            return cast(T, AsyncStreamedResponse(response, self.read_as(decode)))
        return self.decoded(response, decode)

    async def call_raw(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> RawResponse[T]:
        """Send (with retries); the body is read, and decoded by ``parse()``."""
        response = await self.request(options, idempotency_header=idempotency_header)
        return RawResponse(response, self.read_as(decode))

    def call_streaming(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> AsyncStreaming[T]:
        """An async context manager that sends on entry and leaves the body unread."""
        view = self.view("streaming")
        return AsyncStreaming(
            lambda: cast(
                "Awaitable[AsyncStreamedResponse[T]]",
                view.call(options, decode, idempotency_header=idempotency_header),
            )
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncHTTP:  # noqa: PYI034 - as __enter__
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
