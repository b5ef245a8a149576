"""Sending one request: no retries, bounded as a whole by the time left.

`SyncSend` and `AsyncSend` own the ``httpx`` client and are the only places that
touch the network: ``send_once`` follows a GET's redirects and maps an error status
to its `errors` class, ``send_prepared`` re-sends a prepared request (a status read),
and transport failures become `APIConnectionError` / `APITimeoutError`. The client's
calls (retries, decoding, views) build on them in `http`.
"""

from __future__ import annotations

import inspect
from typing import Any

import httpx

from ..shared.errors import APIConnectionError, APITimeoutError
from ..wire.encoding import RequestOptions
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
from .credentials import ask_providers
from .logs import log_failure
from .tls import transport_settings

__all__ = ["MAX_REDIRECTS", "AsyncSend", "SyncSend"]

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


def _sync_token(value: object) -> str:
    """A token source's answer in a sync client: a token, never an awaitable."""
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()
        raise TypeError("an async token credential needs AsyncClient")
    return str(value)


async def _async_token(value: object) -> str:
    return str(await value) if inspect.isawaitable(value) else str(value)


class SyncSend(BaseHTTP):
    """Sends single requests with an ``httpx.Client``."""

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
            limits=POOL_LIMITS, **transport_settings(transport)
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
        response = self._send(request, left() if left else None, stream, sink)
        answer = self.challenger(request, response)
        if answer is not None:  # a bearer challenge: once more, with its token
            response.close()
            request.headers["Authorization"] = f"Bearer {_sync_token(answer())}"
            response = self._send(request, left() if left else None, stream, sink)
        for _ in range(MAX_REDIRECTS):
            follow = self.redirect(response, options)
            if follow is None:
                break
            response.close()
            request = follow
            response = self._send(request, left() if left else None, stream, sink)
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
        start = self.timing.clock()
        response = self._send(request, time_left, False, None)
        answer = self.challenger(request, response)
        if answer is not None:  # a bearer challenge: once more, with its token
            response.close()
            request.headers["Authorization"] = f"Bearer {_sync_token(answer())}"
            left = max(time_left - (self.timing.clock() - start), 0.0)
            response = self._send(request, left, False, None)
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
                response = self._client.send(
                    request, stream=stream or bool(sink), follow_redirects=False
                )
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


class AsyncSend(BaseHTTP):
    """Sends single requests with an ``httpx.AsyncClient``."""

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
            limits=POOL_LIMITS, **transport_settings(transport)
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
        response = await self._send(request, left() if left else None, stream, sink)
        answer = self.challenger(request, response)
        if answer is not None:  # a bearer challenge: once more, with its token
            await response.aclose()
            token = await _async_token(answer())
            request.headers["Authorization"] = f"Bearer {token}"
            response = await self._send(request, left() if left else None, stream, sink)
        for _ in range(MAX_REDIRECTS):
            follow = self.redirect(response, options)
            if follow is None:
                break
            await response.aclose()
            request = follow
            response = await self._send(request, left() if left else None, stream, sink)
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
        start = self.timing.clock()
        response = await self._send(request, time_left, False, None)
        answer = self.challenger(request, response)
        if answer is not None:  # a bearer challenge: once more, with its token
            await response.aclose()
            token = await _async_token(answer())
            request.headers["Authorization"] = f"Bearer {token}"
            left = max(time_left - (self.timing.clock() - start), 0.0)
            response = await self._send(request, left, False, None)
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
                response = await self._client.send(
                    request, stream=stream or bool(sink), follow_redirects=False
                )
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
