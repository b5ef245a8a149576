"""Credentials, and keeping them out of reprs, messages and logs.

A credential's value is held by `Secret`, whose repr is `'***'`. A base URL's
`user:password@` part is taken out of the URL and sent as basic auth, so no request
URL (shown by httpx's reprs and its log line, and in this SDK's messages) carries it.
Every request the SDK builds gets `MaskedHeaders`, whose repr masks credential
headers: Authorization, cookies, the API key headers this client sends, and any
header whose name looks secret (`looks_secret`, one rule for headers and query
parameters). Errors reach the
request (`error.request`, `error.response.request`), so this is what they show.
The request URL is a `MaskedURL`: sent as it is, but shown (str, repr, httpx's own
log line) without userinfo and with `[secure]` for the query parameters that hold a
credential, so an API key sent in the query string shows nowhere, and for every
parameter of an operation URL (the server's, whose query may be a signature); this
SDK's messages drop query strings.
"""

from __future__ import annotations

import base64
import inspect
import re
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Union, cast

import attrs
import httpx

from ..shared.errors import MissingCredentials
from ..shared.shown import display_url

__all__ = [
    "EVERY_PARAMETER",
    "SECRET_STEMS",
    "SECRET_WORDS",
    "ApiKey",
    "Basic",
    "Bearer",
    "Credential",
    "MaskedHeaders",
    "MissingCredentials",
    "Secret",
    "SecretSource",
    "ask_providers",
    "authorization",
    "display_url",
    "looks_secret",
    "masked_headers",
    "origin_of",
    "safe_across_origins",
    "split_userinfo",
]

#: The only request headers sent to another origin than the request's own (after a
#: redirect): none of them can hold a credential or a value the caller gave.
SAFE_ACROSS_ORIGINS = frozenset({"accept", "accept-encoding", "user-agent"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ALWAYS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
#: A header or query parameter name is secret-looking when one of its words (split at
#: every character that is not a letter or digit and where lower case turns upper) is
#: one of `SECRET_WORDS`, or when one of `SECRET_STEMS` is anywhere in it (lower case).
#: docs/security.md lists both; the SDK's tests read that list.
SECRET_WORDS = frozenset(
    {
        "auth",
        "authorization",
        "bearer",
        "code",
        "cookie",
        "hmac",
        "jwt",
        "key",
        "otp",
        "pass",
        "pwd",
        "sas",
        "sig",
    }
)
SECRET_STEMS = (
    "accesskey",
    "apikey",
    "credential",
    "passcode",
    "passphrase",
    "passw",
    "privatekey",
    "secret",
    "session",
    "signature",
    "token",
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def looks_secret(name: str) -> bool:
    """Whether a header or query parameter called `name` holds a secret, by its name
    alone: the one rule of every repr and log line that shows a request."""
    lowered = name.lower()
    if any(stem in lowered for stem in SECRET_STEMS):
        return True
    return any(word.lower() in SECRET_WORDS for word in _WORDS.findall(name))


#: A credential: its value, or a function that returns the current one (a token
#: provider, called for every request; an async client may give an async one).
SecretSource = Union[str, Callable[[], Union[str, Awaitable[str]]]]


class Secret:
    """A credential value that never shows itself in a repr, a log or an error."""

    __slots__ = ("_value",)

    def __init__(self, value: SecretSource) -> None:
        self._value = value

    @property
    def source(self) -> SecretSource:
        """The value or the provider this holds (a token source answers challenges)."""
        return self._value

    @property
    def dynamic(self) -> bool:
        """Whether the value comes from a provider (asked again for every request)."""
        return callable(self._value)

    def reveal(self) -> str:
        value = self._value() if callable(self._value) else self._value
        if not isinstance(value, str):
            if inspect.isawaitable(value):
                close = getattr(value, "close", None)
                if close is not None:
                    close()
                raise TypeError("an async token provider needs AsyncClient")
            raise TypeError(
                f"a token provider returned {type(value).__name__}, not str"
            )
        return value

    async def reveal_async(self) -> str:
        value = cast(object, self._value() if callable(self._value) else self._value)
        if inspect.isawaitable(value):
            value = await value
        if not isinstance(value, str):
            raise TypeError(
                f"a token provider returned {type(value).__name__}, not str"
            )
        return value

    def __repr__(self) -> str:
        return "'***'"


@attrs.frozen
class ApiKey:
    """An API key sent in a header, query parameter or cookie; with a ``prefix``, after
    that word and a space (``Authorization: DeepL-Auth-Key <key>``). A ``declared`` key
    is a header parameter of every operation (no security scheme): a value a call
    gives for it wins."""

    scheme: str
    name: str
    where: str
    secret: Secret = attrs.field(converter=Secret)
    prefix: str = ""
    declared: bool = False


@attrs.frozen
class Bearer:
    """A bearer token (OAuth 2 access token, API secret key, ...)."""

    scheme: str
    secret: Secret = attrs.field(converter=Secret)


@attrs.frozen
class Basic:
    """HTTP basic credentials."""

    scheme: str
    username: str
    secret: Secret = attrs.field(converter=Secret)


Credential = Union[ApiKey, Bearer, Basic]


async def ask_providers(
    credentials: tuple[Credential, ...], security: tuple[str, ...]
) -> dict[str, str]:
    """The current values of the provider credentials a request sends, by scheme."""
    return {
        c.scheme: await c.secret.reveal_async()
        for c in credentials
        if c.secret.dynamic and c.scheme in security
    }


def authorization(credential: Basic) -> str:
    """The Authorization header value of basic credentials."""
    pair = f"{credential.username}:{credential.secret.reveal()}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


def split_userinfo(base_url: str) -> tuple[str, Basic | None]:
    """``base_url`` without its ``user:password@`` part, and that part as credentials."""
    url = httpx.URL(base_url)
    if not url.userinfo:
        return base_url, None
    plain = str(url.copy_with(userinfo=b""))
    return plain, Basic("", url.username, url.password)


class MaskedHeaders(httpx.Headers):
    """Request headers whose repr masks credentials (the values are sent unchanged)."""

    masked: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        # Decided on the names as given (`AWSAccessKeyId`: its words show in its case).
        shown = {
            key: "[secure]" if _is_secret(raw.decode("latin-1"), self.masked) else value
            for (key, value), (raw, _) in zip(self.multi_items(), self.raw)
        }
        return f"{type(self).__name__}({shown!r})"


def _is_secret(name: str, masked: frozenset[str]) -> bool:
    lowered = name.lower()
    return lowered in _ALWAYS or lowered in masked or looks_secret(name)


#: In `masked`: every query parameter is masked (a URL the server gave, whose query
#: may be a signature such as `sig=`).
EVERY_PARAMETER = "*"


class MaskedURL(httpx.URL):
    """A request URL shown without its userinfo and with its credential query
    parameters masked (all of them when `masked` holds `EVERY_PARAMETER`); what is
    sent, compared, hashed and joined is the URL itself."""

    masked: frozenset[str] = frozenset()

    def __str__(self) -> str:
        plain = httpx.URL(self)
        if plain.userinfo:
            plain = plain.copy_with(userinfo=b"")
        if not plain.query:
            return str(plain)
        every = EVERY_PARAMETER in self.masked
        pairs: list[str] = []
        for pair in plain.query.decode("ascii").split("&"):
            name, equals, _ = pair.partition("=")
            secret = every or _is_secret(urllib.parse.unquote_plus(name), self.masked)
            pairs.append(f"{name}=[secure]" if secret and equals else pair)
        shown = str(plain.copy_with(query=None, fragment=None)) + "?" + "&".join(pairs)
        return shown + (f"#{plain.fragment}" if plain.fragment else "")

    def __repr__(self) -> str:
        return f"URL({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return httpx.URL(self) == other

    def __hash__(self) -> int:
        return hash(httpx.URL(self))

    def join(self, url: httpx.URL | str) -> httpx.URL:
        return httpx.URL(self).join(url)


def masked_headers(request: httpx.Request, names: frozenset[str]) -> httpx.Request:
    """``request`` with headers and a URL whose reprs mask credentials and ``names``
    (lower case: the headers and query parameters that carry this client's keys).

    The request's own headers and URL (new objects of this request) change class in
    place: nothing is copied or parsed again."""
    headers, url = request.headers, request.url
    headers.__class__, url.__class__ = MaskedHeaders, MaskedURL
    headers.masked = url.masked = names  # type: ignore[attr-defined]
    return request


def origin_of(url: httpx.URL) -> tuple[str, str, int | None]:
    """`(scheme, host, port)`, the port filled in for http and https."""
    scheme = url.scheme.lower()
    port = url.port if url.port is not None else _DEFAULT_PORTS.get(scheme)
    return scheme, url.host.lower(), port


def safe_across_origins(
    headers: httpx.Headers, source: httpx.URL, target: httpx.URL
) -> httpx.Headers:
    """`headers` for a request going from `source` to `target`: all of them when both
    are of one origin (scheme, host, port); otherwise only `SAFE_ACROSS_ORIGINS`, so
    credentials, cookies, the caller's headers (`extra_headers`, the client's
    `headers`) and a job's carried values stay with the origin they were meant for."""
    if origin_of(source) == origin_of(target):
        return headers
    return httpx.Headers(
        [(k, v) for k, v in headers.multi_items() if k.lower() in SAFE_ACROSS_ORIGINS]
    )
