"""The SDK's HTTP layer: building requests, credentials, retries and error mapping.

Generated operations describe a request as :class:`RequestOptions` (no I/O), and
hand it to :class:`SyncHTTP` or :class:`AsyncHTTP`, the only two places that touch
the network. Both share :class:`~.base.BaseHTTP` for everything that is not I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, TypeVar, cast

import httpx

from .base import BaseHTTP, PreparedRequest
from .bounded import (
    POOL_LIMITS,
    Gate,
    Sink,
    drain,
    drain_async,
    send_within,
    send_within_async,
    where,
)
from .credentials import (
    ApiKey,
    Basic,
    Bearer,
    Credential,
    MissingCredentials,
    ask_providers,
)
from .errors import APIConnectionError, APITimeoutError
from .logs import log_failure
from .response import (
    AsyncStreamedResponse,
    AsyncStreaming,
    RawResponse,
    StreamedResponse,
    Streaming,
)
from .retry import async_call_with_retries, call_with_retries
from .wire import (
    NO_OPTIONS,
    CallOptions,
    RequestOptions,
    decode_json,
    multipart,
    page_options,
    path_param,
    with_header,
    with_idempotency_key,
)

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
    "multipart",
    "page_options",
    "path_param",
    "with_header",
]

T = TypeVar("T")
#: Redirects a GET follows before the last 3xx is raised.
MAX_REDIRECTS = 10


def _transport_error(
    exc: httpx.TransportError, request: httpx.Request
) -> APIConnectionError:
    message = f"{where(request)}: {type(exc).__name__}"
    log_failure(request, exc)
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(message, request=request)
    return APIConnectionError(message, request=request)


class SyncHTTP(BaseHTTP):
    """Sends requests with an ``httpx.Client``."""

    def __init__(
        self,
        *,
        http_client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(**settings)
        self._owns_client = http_client is None
        self._client = http_client or httpx.Client(
            transport=transport, limits=POOL_LIMITS
        )

    def send_once(
        self,
        options: RequestOptions,
        *,
        time_left: float | None = None,
        stream: bool = False,
        sink: Sink | None = None,
    ) -> httpx.Response:
        """Send once, no retries; headers and body arrive within ``time_left``.

        With ``time_left``, the whole request (pool wait, connect, headers, every
        byte of the body) is bounded by it, not only each phase. With ``stream``,
        a successful response's body is left unread; with ``sink``, it goes there
        chunk by chunk (`bounded.drain`), never whole into memory.
        """
        request = self.build_request(self._client, options, time_left)
        left = self.time_left_from(time_left)
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(request, left() if left else None, stream, sink)
            follow = self.redirect(response, options)
            if follow is None:
                break
            response.close()
            request = follow
        return self.check(response, options.redirects)

    def send_prepared(
        self, prepared: PreparedRequest, time_left: float
    ) -> httpx.Response:
        """Send a request of ``prepare`` once, no retries, bounded as a whole by
        ``time_left``; it follows no redirect."""
        request = prepared.reused(self._client.cookies, time_left)
        if request is None:
            built = self.build_request(self._client, prepared.options, time_left)
            request = prepared.keep(built)
        response = self._send(request, time_left, False, None)
        return self.check(response, prepared.redirects)

    def _send(
        self,
        request: httpx.Request,
        time_left: float | None,
        stream: bool,
        sink: Sink | None,
    ) -> httpx.Response:
        try:
            if time_left is None:
                response = self._client.send(request, stream=stream or bool(sink))
                if sink is not None:
                    try:
                        drain(response, sink)
                    except BaseException:
                        response.close()
                        raise
                elif stream and not response.is_success:
                    try:
                        response.read()
                    finally:
                        response.close()
                return response
            return send_within(self._client, request, max(time_left, 0.0), sink)
        except httpx.TransportError as exc:
            raise _transport_error(exc, request) from exc

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
            return cast(T, StreamedResponse(response, decode))
        return decode(response)

    def call_raw(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> RawResponse[T]:
        """Send (with retries); the body is read, and decoded by ``parse()``."""
        response = self.request(options, idempotency_header=idempotency_header)
        return RawResponse(response, decode)

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


class AsyncHTTP(BaseHTTP):
    """Sends requests with an ``httpx.AsyncClient``."""

    def __init__(
        self,
        *,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(**settings)
        self._owns_client = http_client is None
        self._client = http_client or httpx.AsyncClient(
            transport=transport, limits=POOL_LIMITS
        )
        self._gate = Gate()

    async def send_once(
        self,
        options: RequestOptions,
        *,
        time_left: float | None = None,
        stream: bool = False,
        sink: Sink | None = None,
    ) -> httpx.Response:
        """The async twin of ``SyncHTTP.send_once``."""
        resolved = None
        if self._providers:
            resolved = await ask_providers(self._providers, options.security)
        request = self.build_request(self._client, options, time_left, resolved)
        left = self.time_left_from(time_left)
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._send(request, left() if left else None, stream, sink)
            follow = self.redirect(response, options)
            if follow is None:
                break
            await response.aclose()
            request = follow
        return self.check(response, options.redirects)

    async def send_prepared(
        self, prepared: PreparedRequest, time_left: float
    ) -> httpx.Response:
        """The async twin of ``SyncHTTP.send_prepared``."""
        request = prepared.reused(self._client.cookies, time_left)
        if request is None:
            resolved = None
            if prepared.fresh:
                resolved = await ask_providers(
                    self._providers, prepared.options.security
                )
            options = prepared.options
            built = self.build_request(self._client, options, time_left, resolved)
            request = prepared.keep(built)
        response = await self._send(request, time_left, False, None)
        return self.check(response, prepared.redirects)

    async def _send(
        self,
        request: httpx.Request,
        time_left: float | None,
        stream: bool,
        sink: Sink | None,
    ) -> httpx.Response:
        try:
            if time_left is None:
                response = await self._client.send(request, stream=stream or bool(sink))
                if sink is not None:
                    try:
                        await drain_async(response, sink)
                    except BaseException:
                        await response.aclose()
                        raise
                elif stream and not response.is_success:
                    try:
                        await response.aread()
                    finally:
                        await response.aclose()
                return response
            return await send_within_async(
                self._client, request, max(time_left, 0.0), self._gate, sink
            )
        except httpx.TransportError as exc:
            raise _transport_error(exc, request) from exc

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
            return cast(T, AsyncStreamedResponse(response, decode))
        return decode(response)

    async def call_raw(
        self,
        options: RequestOptions,
        decode: Callable[[httpx.Response], T],
        *,
        idempotency_header: str | None = None,
    ) -> RawResponse[T]:
        """Send (with retries); the body is read, and decoded by ``parse()``."""
        response = await self.request(options, idempotency_header=idempotency_header)
        return RawResponse(response, decode)

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
