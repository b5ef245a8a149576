"""OAuth 2 client credentials as a token provider: fetched once, refreshed before expiry,
sync and async, over MockTransport with an injected clock."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write

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
        "app",
        "client-secret-9",
        token_url=TOKEN_URL,
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
        "app", "s", token_url=TOKEN_URL, clock=clock, transport=httpx.MockTransport(endpoint)
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
        "app", "s", token_url=TOKEN_URL, clock=clock, transport=httpx.MockTransport(endpoint)
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
    tokens = features.ClientCredentials("app", "wrong", token_url=TOKEN_URL, transport=refused)
    with pytest.raises(features.errors.TokenError, match=r"answered 401 \(invalid_client\)"):
        tokens()


def test_without_a_declared_token_url_one_must_be_given(features: ModuleType) -> None:
    with pytest.raises(ValueError, match="token_url is required"):
        features.ClientCredentials("app", "s")


OAUTH_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Tokens", "version": "1.0.0"},
    "servers": [{"url": "https://api.example"}],
    "security": [{"oauth": []}],
    "components": {
        "securitySchemes": {
            "oauth": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": TOKEN_URL, "scopes": {}}},
            }
        }
    },
    "paths": {
        "/things": {
            "get": {
                "operationId": "listThings",
                "tags": ["things"],
                "responses": {
                    "200": {
                        "description": "Things.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


@pytest.fixture(scope="module")
def tokens_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("oauth")
    spec = write(root / "tokens.yaml", yaml.safe_dump(OAUTH_SPEC))
    with imported_sdk(spec, root / "out", "tokens_sdk") as sdk:
        yield sdk


def test_the_token_url_comes_from_the_spec(tokens_sdk: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(), Clock()
    seen: list[str] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200, json={})

    tokens = tokens_sdk.ClientCredentials(
        "app", "s", clock=clock, transport=httpx.MockTransport(endpoint)
    )
    with tokens_sdk.Client(token=tokens, transport=httpx.MockTransport(api)) as client:
        client.things.list()
    assert seen == ["Bearer access-1"] and len(endpoint.forms) == 1
    assert tokens_sdk.AsyncClientCredentials.TOKEN_URL == TOKEN_URL
    assert TOKEN_URL in (Path(tokens_sdk.__file__).parent.parent / "README.md").read_text()


def test_a_given_token_url_overrides_the_spec(tokens_sdk: ModuleType) -> None:
    other = "https://other-auth.example/token"
    asked: list[str] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, json={"access_token": "x", "expires_in": 60})

    tokens = tokens_sdk.AsyncClientCredentials(
        "app", "s", token_url=other, transport=httpx.MockTransport(endpoint)
    )
    assert asyncio.run(tokens()) == "x"
    assert asked == [other]
