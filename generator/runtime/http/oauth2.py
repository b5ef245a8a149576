"""OAuth 2 client credentials as a token provider, refreshed before the token expires.

``ClientCredentials(client_id, client_secret, token_url=...)`` is a function of no
arguments returning the current access token, as every client credential may be: it
asks the token endpoint once, then reuses the token until ``refresh_before`` seconds
before its ``expires_in`` runs out, so a wait of an hour keeps working.
``AsyncClientCredentials`` is its async twin. Both decide with one sans-I/O
:class:`TokenCache`; the client secret never shows in a repr.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

import httpx

from ..shared.errors import TokenError
from .credentials import Secret
from .tls import transport_settings

if TYPE_CHECKING:
    import asyncio

__all__ = ["AsyncClientCredentials", "ClientCredentials", "TokenCache", "TokenError"]


class TokenCache:
    """When a token is still good, and what to ask the token endpoint for."""

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        scopes: Sequence[str],
        refresh_before: float,
        clock: Callable[[], float],
    ) -> None:
        self.token_url = token_url
        self._client_id = client_id
        self._client_secret = Secret(client_secret)
        self._scopes = tuple(scopes)
        self._refresh_before = refresh_before
        self._clock = clock
        self._token: Secret | None = None
        self._good_until = 0.0

    def now(self) -> float:
        return self._clock()

    def current(self) -> str | None:
        """The cached token, or None when it is missing or about to expire."""
        if self._token is None or self._clock() >= self._good_until:
            return None
        return self._token.reveal()

    def form(self) -> dict[str, str]:
        data = {
            "grant_type": "client_credentials",
            "client_id": self._client_id,
            "client_secret": self._client_secret.reveal(),
        }
        if self._scopes:
            data["scope"] = " ".join(self._scopes)
        return data

    def store(self, response: httpx.Response, asked_at: float) -> str:
        """Keep the token of the endpoint's answer; returns it."""
        try:
            payload: Any = response.json()
        except ValueError:
            payload = None
        body = cast("dict[str, object]", payload) if isinstance(payload, dict) else {}
        token = body.get("access_token")
        if not response.is_success or not isinstance(token, str):
            error = body.get("error")
            raise TokenError(
                f"the token endpoint answered {response.status_code}"
                + (f" ({error})" if isinstance(error, str) else "")
            )
        lifetime = body.get("expires_in")
        seconds = float(lifetime) if isinstance(lifetime, (int, float)) else 3600.0
        self._token = Secret(token)
        self._good_until = asked_at + max(seconds - self._refresh_before, 0.0)
        return token

    def __repr__(self) -> str:
        return f"<TokenCache {self.token_url} client_id={self._client_id!r}>"


def _token_url(url: str | None) -> str:
    if not url:
        raise ValueError("token_url is required: the spec declares no token endpoint")
    return url


class ClientCredentials:
    """A token provider for ``Client``: the client-credentials grant, cached."""

    #: The token endpoint the spec declares (``flows.clientCredentials.tokenUrl``).
    TOKEN_URL: ClassVar[str | None] = None

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        token_url: str | None = None,
        scopes: Sequence[str] = (),
        refresh_before: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.cache = TokenCache(
            _token_url(token_url or self.TOKEN_URL),
            client_id,
            client_secret,
            scopes,
            refresh_before,
            clock,
        )
        self._transport = transport
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            token = self.cache.current()
            if token is not None:
                return token
            asked_at = self.cache.now()
            with httpx.Client(**transport_settings(self._transport)) as client:
                response = client.post(self.cache.token_url, data=self.cache.form())
            return self.cache.store(response, asked_at)

    def __repr__(self) -> str:
        return repr(self.cache)


class AsyncClientCredentials:
    """The async twin of :class:`ClientCredentials`, for ``AsyncClient``."""

    #: The token endpoint the spec declares (``flows.clientCredentials.tokenUrl``).
    TOKEN_URL: ClassVar[str | None] = None

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        token_url: str | None = None,
        scopes: Sequence[str] = (),
        refresh_before: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.cache = TokenCache(
            _token_url(token_url or self.TOKEN_URL),
            client_id,
            client_secret,
            scopes,
            refresh_before,
            clock,
        )
        self._transport = transport
        self._lock: asyncio.Lock | None = None

    async def __call__(self) -> str:
        if self._lock is None:
            import asyncio

            self._lock = asyncio.Lock()
        async with self._lock:
            token = self.cache.current()
            if token is not None:
                return token
            asked_at = self.cache.now()
            async with httpx.AsyncClient(
                **transport_settings(self._transport)
            ) as client:
                response = await client.post(
                    self.cache.token_url, data=self.cache.form()
                )
            return self.cache.store(response, asked_at)

    def __repr__(self) -> str:
        return repr(self.cache)
