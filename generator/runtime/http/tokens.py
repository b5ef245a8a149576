"""Bearer tokens from a token credential, and the challenge of a 401 that names the
token's resource.

A token credential is any object whose `get_token(*scopes)` returns an object with
`.token` (the bearer token) and `.expires_on` (seconds since the epoch), as
azure-identity's credentials do (`DefaultAzureCredential`, `ClientSecretCredential`...);
an async client also takes one whose `get_token` is a coroutine. Nothing of Azure is
imported: the object is only called.

`TokenSource` asks it for a token of the client's scopes and keeps the token until
five minutes before it expires (as azure-core's bearer token policy does). Where the
scopes are not known beforehand, the service says them: Key Vault answers a request
without a token 401 with `WWW-Authenticate: Bearer authorization="https://login...",
resource="https://vault.azure.net"` (or `scope="https://vault.azure.net/.default"`).
`challenge` reads that header: when it names a resource of the request's own domain
(`myvault.vault.azure.net` is under `vault.azure.net`; another domain is not answered,
so a server cannot obtain a token for another service), the scope is kept for every
later request, and the request is sent once more with a token for it.
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Protocol

import httpx

__all__ = ["AccessToken", "TokenCredential", "TokenSource", "token_source"]

#: A token is renewed this long before it expires.
REFRESH_MARGIN = 300.0
_PARAM = re.compile(r'([A-Za-z_]+)\s*=\s*"([^"]*)"')


class AccessToken(Protocol):
    """What a token credential's `get_token` returns."""

    @property
    def token(self) -> str: ...

    @property
    def expires_on(self) -> int | float: ...


class TokenCredential(Protocol):
    """Anything with `get_token(*scopes)` (azure-identity's credentials)."""

    def get_token(self, *scopes: str) -> Any: ...


class TokenSource:
    """A token credential as a bearer token source: called for each request, it gives
    the current token of its scopes ("" while no scope is known: the request goes
    without a token, and its 401's challenge names the scope)."""

    def __init__(
        self,
        credential: TokenCredential,
        scopes: tuple[str, ...] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.credential = credential
        self.scopes = tuple(scopes)
        self._clock = clock
        self._token: str | None = None
        self._expires_on = 0.0

    def __repr__(self) -> str:
        return f"<TokenSource scopes={self.scopes!r}>"

    def __call__(self) -> str | Awaitable[str]:
        if not self.scopes:
            return ""
        if (
            self._token is not None
            and self._clock() < self._expires_on - REFRESH_MARGIN
        ):
            return self._token
        got = self.credential.get_token(*self.scopes)
        if inspect.isawaitable(got):
            return _Pending(self, got)
        return self.keep(got)

    def keep(self, got: object) -> str:
        """Keep the token ``get_token`` returned (until shortly before it expires)."""
        token, expires_on = (
            getattr(got, "token", None),
            getattr(got, "expires_on", None),
        )
        if not isinstance(token, str) or not isinstance(expires_on, (int, float)):
            raise TypeError(
                "a token credential's get_token must return an object with .token (str)"
                f" and .expires_on (seconds since the epoch), not {type(got).__name__}"
            )
        self._token, self._expires_on = token, float(expires_on)
        return token

    def challenge(self, header: str | None, url: httpx.URL) -> bool:
        """Whether a 401's `WWW-Authenticate` header (`header`) for a request to `url`
        is a bearer challenge this source answers: it names a scope (or a resource) of
        the request's own domain. The scope is then this source's, and the token kept
        is dropped, so the next call asks the credential anew."""
        if not header or not header.strip().lower().startswith("bearer"):
            return False
        params = {k.lower(): v for k, v in _PARAM.findall(header)}
        scope = params.get("scope") or (
            params["resource"].rstrip("/") + "/.default"
            if params.get("resource")
            else ""
        )
        if not scope:
            return False
        domain = (httpx.URL(scope).host or "").lower()
        host = url.host.lower()
        if not domain or not (host == domain or host.endswith("." + domain)):
            return False
        self.scopes = tuple(scope.split())
        self._token = None
        return True


class _Pending:
    """The token an async credential is getting: awaited, it is kept; closed unawaited
    (a sync client given an async credential), the credential's coroutine is closed."""

    def __init__(self, source: TokenSource, got: Awaitable[object]) -> None:
        self.source, self.got = source, got

    def __await__(self) -> Generator[Any, None, str]:
        return self._kept().__await__()

    async def _kept(self) -> str:
        return self.source.keep(await self.got)

    def close(self) -> None:
        close = getattr(self.got, "close", None)
        if close is not None:
            close()


def token_source(value: Any, scopes: tuple[str, ...] = ()) -> Any:
    """`value` as a bearer source: a token credential becomes a `TokenSource` of
    `scopes`; a token or a function returning one is kept as it is."""
    if isinstance(value, str) or not callable(getattr(value, "get_token", None)):
        return value
    return TokenSource(value, scopes)
