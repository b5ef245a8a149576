"""Settings and request building shared by the sync and async HTTP twins: the
request's URL (the client's base URL, or the operation's declared server),
credentials, timeouts within a wait's time left, the retry policy, and which
redirects are followed."""

from __future__ import annotations

import copy as _copy
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import httpx

from ..shared.errors import DecodeError
from ..shared.timing import Timing
from ..wire.encoding import (
    RequestOptions,
    check_headers,
    form_items,
    header_value,
    query_items,
    with_extra_body,
)
from ..wire.scalars import Unset
from ..wire.serde import collect_drift, decoding
from ..wire.styles import header
from .credentials import (
    EVERY_PARAMETER,
    ApiKey,
    Bearer,
    Credential,
    authorization,
    masked_headers,
    safe_across_origins,
    split_userinfo,
)
from .logs import configure, log_response
from .retry import RetryPolicy
from .statuses import status_error_for

__all__ = ["DEFAULT_TIMEOUT", "BaseHTTP", "PreparedRequest"]

_H = TypeVar("_H", bound="BaseHTTP")
T = TypeVar("T")
_logger = logging.getLogger(__name__)
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
DEFAULT_TIMEOUT = 60.0


class BaseHTTP:
    """Settings and request building shared by the sync and async twins."""

    _owns_client: bool
    #: What ``call`` returns: the decoded body (""), or the response, read ("raw") or
    #: not ("streaming"); see ``view``.
    mode = ""

    def __init__(
        self,
        *,
        base_url: str,
        credentials: Sequence[Credential],
        timeout: float | httpx.Timeout | None,
        headers: Mapping[str, str] | None,
        user_agent: str,
        max_retries: int,
        timing: Timing | None = None,
        spec_url: str | None = None,
        operation_hosts: Sequence[str] = (),
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required: the spec names no server")
        # user:password@ in the URL is sent as basic auth, never shown with the URL.
        self.base_url, self._url_auth = split_userinfo(base_url.rstrip("/"))
        # The spec's own server: while base_url is it, operations that declare a
        # server of their own are sent there.
        self._spec_url = (spec_url or "").rstrip("/")
        self._credentials = tuple(credentials)
        #: The credentials whose value a provider gives anew for every request.
        self._providers = tuple(c for c in self._credentials if c.secret.dynamic)
        #: Token sources that answer a 401's bearer challenge (`tokens.TokenSource`).
        self._challenged: tuple[Any, ...] = tuple(
            c.secret.source
            for c in self._credentials
            if isinstance(c, Bearer) and hasattr(c.secret.source, "challenge")
        )
        self._masked = frozenset(
            c.name.lower()
            for c in self._credentials
            if isinstance(c, ApiKey) and c.where in ("header", "query")
        )
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self.headers: dict[str, str] = {
            "User-Agent": user_agent,
            "Accept": "application/json",
        }
        self.headers.update(headers or {})
        self.max_retries = max_retries
        self.operation_hosts = tuple(operation_hosts)
        #: Clocks, sleeps and randomness of retries (an SDK with jobs: its WaitConfig).
        self.timing = timing or Timing()
        #: The (method, field) drifts from the spec this client has logged (W15).
        self._drifted: set[tuple[str, str]] = set()
        configure()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} base_url={self.base_url!r}>"

    def read_as(
        self, decode: Callable[[httpx.Response], T]
    ) -> Callable[[httpx.Response], T]:
        """`decode` as `decoded` runs it (for the raw and streamed views' `parse`)."""
        return functools.partial(self.decoded, decode=decode)

    def decoded(
        self, response: httpx.Response, decode: Callable[[httpx.Response], T]
    ) -> T:
        """``decode(response)`` as the client decodes (its `WaitConfig.decoding`,
        tolerant by default); a value beside the spec is logged once per field."""
        mode = getattr(self.timing, "decoding", "tolerant")
        try:
            with collect_drift() as found, decoding(mode):
                value = decode(response)
        except DecodeError as error:  # W15: it names the answer
            error.status_code, error.body = response.status_code, response.text
            ids = ("x-request-id", "request-id", "x-ms-request-id")
            found_ids = [response.headers.get(name) for name in ids]
            error.request_id = next((value for value in found_ids if value), None)
            raise
        method = response.request.method
        for drift in found:
            if (method, drift.path) not in self._drifted:
                self._drifted.add((method, drift.path))
                _logger.warning(
                    "%s %s answered a value beside the spec at %s",
                    method,
                    response.request.url.path,
                    drift,
                )
        return value

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
        if options.headers:
            headers.update(
                {
                    k: header(v)
                    for k, v in options.headers.items()
                    if v is not None and not isinstance(v, Unset)
                }
            )
        params = query_items(options.params, options.styles) if options.params else []
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
                if credential.prefix:
                    secret = f"{credential.prefix} {secret}"
                if credential.where == "header":
                    lowered = credential.name.lower()
                    if not (
                        credential.declared
                        and any(k.lower() == lowered for k in headers)
                    ):
                        headers[credential.name] = secret
                elif credential.where == "query":
                    params.append((credential.name, secret))
                else:
                    cookies[credential.name] = secret
            elif isinstance(credential, Bearer):
                if secret:  # "": a token source that waits for the server's challenge
                    headers["Authorization"] = f"Bearer {secret}"
            else:
                headers["Authorization"] = authorization(credential)
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        content: Any = options.content
        body, form = with_extra_body(options)
        # A Content-Type the caller gave (extra_headers, a header parameter) is sent as
        # given; the operation's media type fills in only where there is none.
        given = header_value(options.headers, "Content-Type")
        typed = given is not None and not isinstance(given, Unset)
        if form is not None:
            content = str(httpx.QueryParams(form_items(form, options.encoding)))
            if not typed:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
        timeout = self.timeout_within(options.timeout, time_left)
        if form is None and options.upload is not None:
            length = options.upload.length()
            wait = timeout.write if isinstance(timeout, httpx.Timeout) else timeout
            content = options.upload.content(
                isinstance(client, httpx.AsyncClient), length, wait
            )
            if length is not None and header_value(headers, "Content-Length") is None:
                headers["Content-Length"] = str(length)
        sends = content is not None or body is not None
        if options.content_type is not None and form is None and not typed and sends:
            headers["Content-Type"] = options.content_type
        check_headers(headers)
        request = client.build_request(
            options.method,
            options.url or self.root(options.server) + options.path,
            # None, not []: httpx parses the URL again to merge even no parameters
            params=params or None,
            headers=headers,
            json=body,
            content=content,
            files=options.files,
            timeout=timeout,
        )
        # An operation URL is the server's: its whole query may be a signature.
        masked = self._masked | {EVERY_PARAMETER} if options.url else self._masked
        return masked_headers(request, masked)

    def prepare(
        self, options: RequestOptions, redirects: tuple[int, ...] = ()
    ) -> PreparedRequest:
        """A request to send again and again (`send_prepared`), built on its first
        send; it follows no redirect, and returns a response whose status is in
        ``redirects`` (a success always)."""
        fresh = any(c.scheme in options.security for c in self._providers)
        bound = functools.partial(self.timeout_within, options.timeout)
        return PreparedRequest(options, redirects, fresh, bound)

    def retry_policy(
        self, options: RequestOptions, idempotency_header: str | None = None
    ) -> RetryPolicy:
        """Idempotent methods, and POSTs that carry an idempotency key, may be retried;
        never a request whose body cannot be read again (a file that cannot seek)."""
        if options.upload is not None and not options.upload.replayable:
            return RetryPolicy.NO_RETRY
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
        base_url: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> _H:
        """A copy with other defaults, sending through the same connection pool."""
        new = _copy.copy(self)
        new._owns_client = False
        if base_url is not None:
            if not base_url:
                raise ValueError("base_url must not be empty")
            new.base_url, new._url_auth = split_userinfo(base_url.rstrip("/"))
        new.headers = {**self.headers, **(headers or {})}
        if timeout is not None:
            new.timeout = timeout
        if max_retries is not None:
            new.max_retries = max_retries
        return new

    def view(self: _H, mode: str) -> _H:  # noqa: PYI019 - typing.Self is not in 3.9
        """A copy whose ``call`` returns the response: a resource's raw and streaming
        variants are its own methods over such a view."""
        new = self.copy()
        new.mode = mode
        return new

    def time_left_from(self, seconds: float | None) -> Callable[[], float] | None:
        """A countdown of ``seconds`` on the configured clock (None: no limit)."""
        if seconds is None:
            return None
        clock = self.timing.clock
        end = clock() + seconds
        return lambda: end - clock()

    @staticmethod
    def check(
        response: httpx.Response, redirects: tuple[int, ...] = ()
    ) -> httpx.Response:
        """The response, when it is a success or a redirect the operation declares."""
        log_response(response)
        if response.is_success or response.status_code in redirects:
            return response
        raise status_error_for(response)

    def challenger(
        self, request: httpx.Request, response: httpx.Response
    ) -> Callable[[], object] | None:
        """The token source that answers `response`'s bearer challenge (a 401 naming
        the token's scope, as Key Vault's), if any: called, it gives the token (or
        an awaitable of it) to send `request` again with."""
        if response.status_code != 401 or not self._challenged:
            return None
        header = response.headers.get("WWW-Authenticate")
        for source in self._challenged:
            if source.challenge(header, request.url):
                return source  # type: ignore[no-any-return]
        return None

    def root(self, server: str | None) -> str:
        """Where an operation's requests go: the server it declares, unless the
        client was given another ``base_url`` than the spec's (then that serves
        every operation); a relative server is a path on the base URL's host."""
        if server is None:
            return self.base_url
        if server.startswith("/"):
            url = httpx.URL(self.base_url)
            return f"{url.scheme}://{url.netloc.decode('ascii')}{server.rstrip('/')}"
        if self._spec_url and self.base_url != self._spec_url:
            return self.base_url
        return server.rstrip("/")

    def redirect(
        self, response: httpx.Response, options: RequestOptions
    ) -> httpx.Request | None:
        """The request following ``response``, or None when it is not followed.

        A GET or HEAD follows a 301, 302, 303, 307 or 308 with a ``Location`` unless
        the operation declares that status (it is then returned). A hop to another
        origin sends only the headers `credentials.safe_across_origins` keeps (Accept,
        Accept-Encoding, User-Agent): credentials, cookies, the caller's headers and
        carried values go only to the origin the first request went to (the spec
        declared it, or the user configured it), and never back after leaving it.
        """
        if (
            not 300 <= response.status_code < 400
            or not response.has_redirect_location
            or response.status_code in options.redirects
            or options.method.upper() not in ("GET", "HEAD")
        ):
            return None
        request = response.request
        url = request.url.join(response.headers["location"])
        headers = httpx.Headers(request.headers)
        headers.pop("host", None)
        headers = safe_across_origins(headers, request.url, url)
        follow = httpx.Request(
            request.method, url, headers=headers, extensions=request.extensions
        )
        return masked_headers(follow, getattr(request.url, "masked", self._masked))


class PreparedRequest:
    """A request built once and sent again (`SyncHTTP.send_prepared`), such as the
    status read of one wait, which is the same on every poll.

    Each send renews only its timeout (the request's own timeouts, each bounded by
    the time left). The request is built anew for every send when it could go
    stale: a credential whose value a provider gives (a token that refreshes) or
    cookies the client holds (the server may change them). A prepared request
    follows no redirect: a response whose status is in `redirects` is returned.
    """

    __slots__ = (
        "_bound",
        "_request",
        "_timeouts",
        "_top",
        "fresh",
        "options",
        "redirects",
    )

    def __init__(
        self,
        options: RequestOptions,
        redirects: tuple[int, ...],
        fresh: bool,
        bound: Callable[[float | None], float | httpx.Timeout],
    ) -> None:
        self.options = options
        self.redirects = redirects
        #: Whether every send needs a request of its own (a provider's credential).
        self.fresh = fresh
        self._request: httpx.Request | None = None
        #: The timeout of a send with less time left than the request's own timeouts.
        self._bound = bound
        #: The request's own timeouts, used while the time left is longer than each.
        self._timeouts = httpx.Timeout(bound(None)).as_dict()
        known = [t for t in self._timeouts.values() if t is not None]
        self._top = max(known) if len(known) == len(self._timeouts) else float("inf")

    def reused(self, cookies: httpx.Cookies, time_left: float) -> httpx.Request | None:
        """The request built before, its timeout renewed, if it may be sent again."""
        request = self._request
        if request is None or cookies:
            return None
        if time_left >= self._top:
            request.extensions["timeout"] = self._timeouts
        else:
            request.extensions["timeout"] = httpx.Timeout(
                self._bound(time_left)
            ).as_dict()
        return request

    def keep(self, request: httpx.Request) -> httpx.Request:
        """`request`, kept for the next sends unless each needs its own."""
        if not self.fresh:
            self._request = request
        return request


def _bounded(value: float | None, limit: float) -> float:
    return limit if value is None else min(value, limit)
