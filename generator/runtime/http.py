"""The SDK's HTTP layer: building requests, credentials, retries and error mapping.

Generated operations describe a request as :class:`RequestOptions` (no I/O), and
hand it to :class:`SyncHTTP` or :class:`AsyncHTTP`, the only two places that touch
the network. Both share :class:`BaseHTTP` for everything that is not I/O.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, final

import httpx

from .bounded import POOL_LIMITS, Gate, send_within, send_within_async, where
from .credentials import (
    ApiKey,
    Basic,
    Bearer,
    Credential,
    MissingCredentials,
    ask_providers,
    authorization,
    masked_headers,
    split_userinfo,
)
from .errors import APIConnectionError, APITimeoutError
from .logs import configure, log_failure, log_response
from .ratelimit import RateLimiter, StatusLimiter
from .response import AsyncStreaming, RawResponse, Streaming
from .retry import RetryPolicy, async_call_with_retries, call_with_retries
from .serde import Unset
from .statuses import status_error_for
from .waitspec import WaitConfig
from .wire import (
    RequestOptions,
    decode_json,
    form_items,
    header_value,
    multipart,
    page_options,
    path_param,
    query_items,
    scalar,
    with_extra_body,
    with_header,
    with_idempotency_key,
)

__all__ = [
    "ApiKey",
    "AsyncHTTP",
    "BaseHTTP",
    "Basic",
    "Bearer",
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
_H = TypeVar("_H", bound="BaseHTTP")
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
DEFAULT_TIMEOUT = 60.0


class BaseHTTP:
    """Settings and request building shared by the sync and async twins."""

    _owns_client: bool

    def __init__(
        self,
        *,
        base_url: str,
        credentials: Sequence[Credential],
        timeout: float | httpx.Timeout | None,
        headers: Mapping[str, str] | None,
        user_agent: str,
        max_retries: int,
        wait_config: WaitConfig | None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required: the spec names no server")
        # user:password@ in the URL is sent as basic auth, never shown with the URL.
        self.base_url, self._url_auth = split_userinfo(base_url.rstrip("/"))
        self._credentials = tuple(credentials)
        self._masked = frozenset(
            c.name.lower()
            for c in self._credentials
            if isinstance(c, ApiKey) and c.where == "header"
        )
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self.headers: dict[str, str] = {
            "User-Agent": user_agent,
            "Accept": "application/json",
        }
        self.headers.update(headers or {})
        self.max_retries = max_retries
        self.wait_config = wait_config or WaitConfig()
        configure()
        rate = self.wait_config.max_status_reads_per_second
        self.status_limiter: StatusLimiter | None = self.wait_config.status_limiter or (
            RateLimiter(rate, clock=self.wait_config.clock) if rate else None
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} base_url={self.base_url!r}>"

    def timeout_within(
        self, timeout: float | httpx.Timeout | None, time_left: float | None
    ) -> float | httpx.Timeout:
        """The request's timeout, never longer than ``time_left`` (the wait's remaining time)."""
        chosen = timeout if timeout is not None else self.timeout
        if time_left is None:
            return chosen
        left = max(time_left, 0.001)
        if isinstance(chosen, httpx.Timeout):
            return httpx.Timeout(
                connect=_bounded(chosen.connect, left),
                read=_bounded(chosen.read, left),
                write=_bounded(chosen.write, left),
                pool=_bounded(chosen.pool, left),
            )
        return min(chosen, left)

    def build_request(
        self,
        client: httpx.Client | httpx.AsyncClient,
        options: RequestOptions,
        time_left: float | None = None,
        resolved: Mapping[str, str] | None = None,
    ) -> httpx.Request:
        """The request; ``resolved``: provider credentials an async client awaited."""
        headers = dict(self.headers)
        headers.update(
            {
                k: scalar(v)
                for k, v in options.headers.items()
                if v is not None and not isinstance(v, Unset)
            }
        )
        params = query_items(options.params)
        if options.extra_query:
            params.extend(query_items(options.extra_query))
        cookies: dict[str, str] = {}
        if self._url_auth is not None:
            headers["Authorization"] = authorization(self._url_auth)
        for credential in self._credentials:
            if credential.scheme not in options.security:
                continue
            if resolved and credential.scheme in resolved:
                secret = resolved[credential.scheme]
            else:
                secret = credential.secret.reveal()
            if isinstance(credential, ApiKey):
                if credential.where == "header":
                    headers[credential.name] = secret
                elif credential.where == "query":
                    params.append((credential.name, secret))
                else:
                    cookies[credential.name] = secret
            elif isinstance(credential, Bearer):
                headers["Authorization"] = f"Bearer {secret}"
            else:
                headers["Authorization"] = authorization(credential)
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        content: bytes | str | None = options.content
        body, form = with_extra_body(options)
        if form is not None:
            content = str(httpx.QueryParams(form_items(form)))
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif options.content_type is not None and content is not None:
            headers["Content-Type"] = options.content_type
        timeout = self.timeout_within(options.timeout, time_left)
        request = client.build_request(
            options.method,
            self.base_url + options.path,
            params=params,
            headers=headers,
            json=body,
            content=content,
            files=options.files,
            timeout=timeout,
        )
        return masked_headers(request, self._masked)

    def retry_policy(
        self, options: RequestOptions, idempotency_header: str | None = None
    ) -> RetryPolicy:
        """Idempotent methods, and POSTs that carry an idempotency key, may be retried."""
        header = idempotency_header or ""
        key = header_value(options.headers, header) if header else None
        keyed = key is not None and not isinstance(key, Unset) and key != ""
        retries = options.max_retries
        retries = self.max_retries if retries is None else retries
        if options.method.upper() in _IDEMPOTENT or keyed:
            return RetryPolicy(attempts=max(retries, 0) + 1, budget=60.0)
        return RetryPolicy.NO_RETRY

    def copy(  # noqa: PYI019 - typing.Self is not in Python 3.9
        self: _H,
        *,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> _H:
        """A copy with other defaults, sending through the same connection pool."""
        new = _copy.copy(self)
        new._owns_client = False
        new.headers = {**self.headers, **(headers or {})}
        if timeout is not None:
            new.timeout = timeout
        if max_retries is not None:
            new.max_retries = max_retries
        return new

    def time_left_from(self, seconds: float | None) -> Callable[[], float] | None:
        """A countdown of ``seconds`` on the configured clock (None: no limit)."""
        if seconds is None:
            return None
        clock = self.wait_config.clock
        end = clock() + seconds
        return lambda: end - clock()

    @staticmethod
    def check(response: httpx.Response) -> httpx.Response:
        log_response(response)
        if response.is_success:
            return response
        raise status_error_for(response)


def _bounded(value: float | None, limit: float) -> float:
    return limit if value is None else min(value, limit)


def _transport_error(
    exc: httpx.TransportError, request: httpx.Request
) -> APIConnectionError:
    message = f"{where(request)}: {type(exc).__name__}"
    log_failure(request, exc)
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(message, request=request)
    return APIConnectionError(message, request=request)


@final
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
    ) -> httpx.Response:
        """Send once, no retries; headers and body arrive within ``time_left``.

        With ``time_left``, the whole request (pool wait, connect, headers, every
        byte of the body) is bounded by it, not only each phase. With ``stream``,
        a successful response's body is left unread.
        """
        request = self.build_request(self._client, options, time_left)
        try:
            if time_left is None:
                response = self._client.send(request, stream=stream)
                if stream and not response.is_success:
                    try:
                        response.read()
                    finally:
                        response.close()
            else:
                response = send_within(self._client, request, max(time_left, 0.0))
        except httpx.TransportError as exc:
            raise _transport_error(exc, request) from exc
        return self.check(response)

    def request(
        self,
        options: RequestOptions,
        *,
        idempotency_header: str | None = None,
        time_left: float | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``."""
        config = self.wait_config
        left = self.time_left_from(time_left)
        options = with_idempotency_key(options, idempotency_header)
        return call_with_retries(
            lambda: self.send_once(
                options, time_left=left() if left else None, stream=stream
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
        """Send (with retries) and decode the body."""
        return decode(self.request(options, idempotency_header=idempotency_header))

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
        return Streaming(
            lambda: self.request(
                options, idempotency_header=idempotency_header, stream=True
            ),
            decode,
        )

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> SyncHTTP:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@final
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
    ) -> httpx.Response:
        """The async twin of ``SyncHTTP.send_once``."""
        resolved = await ask_providers(self._credentials, options.security)
        request = self.build_request(self._client, options, time_left, resolved)
        try:
            if time_left is None:
                response = await self._client.send(request, stream=stream)
                if stream and not response.is_success:
                    try:
                        await response.aread()
                    finally:
                        await response.aclose()
            else:
                response = await send_within_async(
                    self._client, request, max(time_left, 0.0), self._gate
                )
        except httpx.TransportError as exc:
            raise _transport_error(exc, request) from exc
        return self.check(response)

    async def request(
        self,
        options: RequestOptions,
        *,
        idempotency_header: str | None = None,
        time_left: float | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``."""
        config = self.wait_config
        left = self.time_left_from(time_left)
        options = with_idempotency_key(options, idempotency_header)
        return await async_call_with_retries(
            lambda: self.send_once(
                options, time_left=left() if left else None, stream=stream
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
        """Send (with retries) and decode the body."""
        return decode(
            await self.request(options, idempotency_header=idempotency_header)
        )

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
        return AsyncStreaming(
            lambda: self.request(
                options, idempotency_header=idempotency_header, stream=True
            ),
            decode,
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncHTTP:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
