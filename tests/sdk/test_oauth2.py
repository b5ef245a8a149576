"""OAuth 2 client credentials as a token provider: fetched once, refreshed before expiry,
sync and async, over MockTransport with an injected clock."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from urllib.parse import parse_qs

import httpx
import pytest

TOKEN_URL = "https://auth.example/oauth/token"


class TokenEndpoint:
    """Issues access-1, access-2... each valid for ``lifetime`` seconds."""

    def __init__(self, lifetime: int = 120) -> None:
        self.lifetime = lifetime
        self.forms: list[dict[str, list[str]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert str(request.url) == TOKEN_URL
        self.forms.append(parse_qs(request.content.decode()))
        token = f"access-{len(self.forms)}"
        return httpx.Response(200, json={"access_token": token, "expires_in": self.lifetime})


def _models(sdk: ModuleType) -> ModuleType:
    return importlib.import_module(f"{sdk.__name__}.models")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_token_is_reused_then_refreshed_before_it_expires(features: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=120), Clock()
    tokens = features.ClientCredentials(
        TOKEN_URL,
        "app",
        "client-secret-9",
        scopes=["jobs:read", "jobs:write"],
        clock=clock,
        transport=httpx.MockTransport(endpoint),
    )
    assert tokens() == "access-1"
    clock.now += 59  # 61 s left: still good (refreshed 60 s before expiry)
    assert tokens() == "access-1"
    clock.now += 2  # 59 s left: refreshed
    assert tokens() == "access-2"
    assert len(endpoint.forms) == 2
    assert endpoint.forms[0] == {
        "grant_type": ["client_credentials"],
        "client_id": ["app"],
        "client_secret": ["client-secret-9"],
        "scope": ["jobs:read jobs:write"],
    }
    assert "client-secret-9" not in repr(tokens)


def test_the_client_sends_the_current_token(features: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=100), Clock()
    tokens = features.ClientCredentials(
        TOKEN_URL, "app", "s", clock=clock, transport=httpx.MockTransport(endpoint)
    )
    seen: list[str] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(201, json={"kind": "cat", "name": "Tom"})

    with features.Client(token=tokens, transport=httpx.MockTransport(api)) as client:
        cat = _models(features).Cat(kind="cat", name="Tom")
        client.animals.create(body=cat)
        clock.now += 3600  # an hour later the token is a new one
        client.animals.create(body=cat)
    assert seen == ["Bearer access-1", "Bearer access-2"]


def test_async_client_credentials(features: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=100), Clock()
    tokens = features.AsyncClientCredentials(
        TOKEN_URL, "app", "s", clock=clock, transport=httpx.MockTransport(endpoint)
    )
    seen: list[str] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(201, json={"kind": "cat", "name": "Tom"})

    async def main() -> None:
        async with features.AsyncClient(token=tokens, transport=httpx.MockTransport(api)) as c:
            cat = _models(features).Cat(kind="cat", name="Tom")
            await asyncio.gather(c.animals.create(body=cat), c.animals.create(body=cat))
            clock.now += 3600
            await c.animals.create(body=cat)

    asyncio.run(main())
    assert seen == ["Bearer access-1", "Bearer access-1", "Bearer access-2"]
    assert len(endpoint.forms) == 2  # concurrent requests shared one token fetch


def test_a_refused_client_is_a_clear_error(features: ModuleType) -> None:
    refused = httpx.MockTransport(lambda _: httpx.Response(401, json={"error": "invalid_client"}))
    tokens = features.ClientCredentials(TOKEN_URL, "app", "wrong", transport=refused)
    with pytest.raises(features.errors.SDKError, match=r"answered 401 \(invalid_client\)"):
        tokens()
