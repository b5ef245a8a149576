"""The SDK's HTTP layer: building requests, credentials, retries and error mapping.

Generated operations describe a request as :class:`RequestOptions` (no I/O), and
hand it to :class:`SyncHTTP` or :class:`AsyncHTTP`, the only two places that touch
the network. Both share :class:`BaseHTTP` for everything that is not I/O.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json as _json
import uuid
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, final
from urllib.parse import quote

import attrs
import httpx

from .bounded import POOL_LIMITS, Gate, send_within, send_within_async, where
from .credentials import (
    ApiKey,
    Basic,
    Bearer,
    Credential,
    authorization,
    masked_headers,
    split_userinfo,
)
from .errors import APIConnectionError, APITimeoutError, DecodeError, status_error_for
from .ratelimit import RateLimiter
from .retry import RetryPolicy, async_call_with_retries, call_with_retries
from .serde import Unset
from .serde import encode as _encode
from .waitspec import WaitConfig

__all__ = [
    "ApiKey",
    "AsyncHTTP",
    "BaseHTTP",
    "Basic",
    "Bearer",
    "Credential",
    "RequestOptions",
    "SyncHTTP",
    "decode_json",
    "form_items",
    "multipart",
    "path_param",
    "with_header",
]

T = TypeVar("T")
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
DEFAULT_TIMEOUT = 60.0


@attrs.frozen(kw_only=True)
class RequestOptions:
    """One request as a generated operation describes it, before any I/O."""

    method: str
    path: str
    params: Mapping[str, Any] = attrs.field(factory=dict)
    headers: Mapping[str, Any] = attrs.field(factory=dict)
    json: Any = None
    form: Mapping[str, Any] | None = None
    files: Any = None
    content: bytes | str | None = None
    content_type: str | None = None
    security: tuple[str, ...] = ()
    timeout: float | httpx.Timeout | None = None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return _scalar(value.value)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (dict, list)):
        return _json.dumps(value, separators=(",", ":"))
    return str(value)


def form_items(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Flatten nested values the way form APIs read them: ``a[b][0]=x`` (deepObject)."""
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        name = f"{prefix}[{key}]" if prefix else str(key)
        if value is None or isinstance(value, Unset):
            continue
        if isinstance(value, Mapping):
            items.extend(form_items(value, name))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, Mapping):
                    items.extend(form_items(item, f"{name}[{index}]"))
                else:
                    items.append((f"{name}[{index}]", _scalar(item)))
        else:
            items.append((name, _scalar(value)))
    return items


def _query(params: Mapping[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in params.items():
        if value is None or isinstance(value, Unset):
            continue
        if isinstance(value, (list, tuple)):
            out.extend((key, _scalar(v)) for v in value)
        elif isinstance(value, Mapping):
            out.extend(form_items(value, key))
        else:
            out.append((key, _scalar(value)))
    return out


class BaseHTTP:
    """Settings and request building shared by the sync and async twins."""

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
        rate = self.wait_config.max_status_reads_per_second
        self.status_limiter: RateLimiter | None = (
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
    ) -> httpx.Request:
        headers = dict(self.headers)
        headers.update(
            {
                k: _scalar(v)
                for k, v in options.headers.items()
                if v is not None and not isinstance(v, Unset)
            }
        )
        params = _query(options.params)
        cookies: dict[str, str] = {}
        if self._url_auth is not None:
            headers["Authorization"] = authorization(self._url_auth)
        for credential in self._credentials:
            if credential.scheme not in options.security:
                continue
            if isinstance(credential, ApiKey):
                if credential.where == "header":
                    headers[credential.name] = credential.secret.reveal()
                elif credential.where == "query":
                    params.append((credential.name, credential.secret.reveal()))
                else:
                    cookies[credential.name] = credential.secret.reveal()
            elif isinstance(credential, Bearer):
                headers["Authorization"] = f"Bearer {credential.secret.reveal()}"
            else:
                headers["Authorization"] = authorization(credential)
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        content: bytes | str | None = options.content
        if options.form is not None:
            content = str(httpx.QueryParams(form_items(options.form)))
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif options.content_type is not None and content is not None:
            headers["Content-Type"] = options.content_type
        timeout = self.timeout_within(options.timeout, time_left)
        request = client.build_request(
            options.method,
            self.base_url + options.path,
            params=params,
            headers=headers,
            json=options.json,
            content=content,
            files=options.files,
            timeout=timeout,
        )
        return masked_headers(request, self._masked)

    def retry_policy(
        self, options: RequestOptions, idempotency_header: str | None = None
    ) -> RetryPolicy:
        """Idempotent methods, and POSTs that carry an idempotency key, may be retried."""
        key = options.headers.get(idempotency_header) if idempotency_header else None
        keyed = key is not None and not isinstance(key, Unset) and key != ""
        if options.method.upper() in _IDEMPOTENT or keyed:
            return RetryPolicy(attempts=self.max_retries + 1, budget=60.0)
        return RetryPolicy.NO_RETRY

    def time_left_from(self, seconds: float | None) -> Callable[[], float] | None:
        """A countdown of ``seconds`` on the configured clock (None: no limit)."""
        if seconds is None:
            return None
        clock = self.wait_config.clock
        end = clock() + seconds
        return lambda: end - clock()

    @staticmethod
    def check(response: httpx.Response) -> httpx.Response:
        if response.is_success:
            return response
        raise status_error_for(response)


def _bounded(value: float | None, limit: float) -> float:
    return limit if value is None else min(value, limit)


def _transport_error(
    exc: httpx.TransportError, request: httpx.Request
) -> APIConnectionError:
    message = f"{where(request)}: {type(exc).__name__}"
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
        self, options: RequestOptions, *, time_left: float | None = None
    ) -> httpx.Response:
        """Send once, no retries; headers and body arrive within ``time_left``.

        With ``time_left``, the whole request (pool wait, connect, headers, every
        byte of the body) is bounded by it, not only each phase.
        """
        request = self.build_request(self._client, options, time_left)
        try:
            if time_left is None:
                response = self._client.send(request)
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
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``."""
        config = self.wait_config
        left = self.time_left_from(time_left)
        return call_with_retries(
            lambda: self.send_once(options, time_left=left() if left else None),
            self.retry_policy(options, idempotency_header),
            sleep=config.sleep,
            clock=config.clock,
            rng=config.rng,
            wall_clock=config.wall_clock,
            time_left=left,
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
        self, options: RequestOptions, *, time_left: float | None = None
    ) -> httpx.Response:
        """Send once, no retries; headers and body arrive within ``time_left``.

        With ``time_left``, the whole request (pool wait, connect, headers, every
        byte of the body) is bounded by it, not only each phase.
        """
        request = self.build_request(self._client, options, time_left)
        try:
            if time_left is None:
                response = await self._client.send(request)
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
    ) -> httpx.Response:
        """Send with the retry policy; retries and timeouts stay within ``time_left``."""
        config = self.wait_config
        left = self.time_left_from(time_left)
        return await async_call_with_retries(
            lambda: self.send_once(options, time_left=left() if left else None),
            self.retry_policy(options, idempotency_header),
            sleep=config.async_sleep,
            clock=config.clock,
            rng=config.rng,
            wall_clock=config.wall_clock,
            time_left=left,
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


def path_param(value: Any) -> str:
    """A path parameter, percent-encoded so it stays one path segment."""
    return quote(_scalar(value), safe="")


def decode_json(response: httpx.Response, decoder: Callable[[object, str], T]) -> T:
    """Decode a JSON response body; a body that is not JSON is a DecodeError."""
    try:
        data = response.json()
    except ValueError:
        raise DecodeError(
            f"expected a JSON body from {response.request.method} {response.request.url.path}, "
            f"got {response.headers.get('content-type', 'no content type')}",
            path="$",
        ) from None
    return decoder(data, "$")


def multipart(body: Any) -> list[tuple[str, Any]]:
    """A multipart body: bytes and file objects become files, everything else text fields."""
    fields = _encode(body) if not isinstance(body, Mapping) else body
    parts: list[tuple[str, Any]] = []
    for key, value in fields.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item is None or isinstance(item, Unset):
                continue
            if isinstance(item, (bytes, bytearray)) or hasattr(item, "read"):
                parts.append((key, (key, item)))
            else:
                parts.append((key, (None, _scalar(item))))
    return parts


def with_header(
    headers: Mapping[str, str] | None, name: str, value: str | None
) -> dict[str, str]:
    """``headers`` plus one more, when ``value`` is set."""
    merged = dict(headers or {})
    if value is not None:
        merged[name] = value
    return merged
