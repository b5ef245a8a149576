"""OAuth 2 client credentials as a token provider: fetched once, refreshed before expiry,
sync and async, over MockTransport with an injected clock."""

from __future__ import annotations

import asyncio
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


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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


def test_a_token_is_reused_then_refreshed_before_it_expires(tokens_sdk: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=120), Clock()
    tokens = tokens_sdk.ClientCredentials(
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


def test_the_client_sends_the_current_token(tokens_sdk: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=100), Clock()
    tokens = tokens_sdk.ClientCredentials(
        "app", "s", token_url=TOKEN_URL, clock=clock, transport=httpx.MockTransport(endpoint)
    )
    seen: list[str] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200, json={})

    with tokens_sdk.Client(token=tokens, transport=httpx.MockTransport(api)) as client:
        client.things.list()
        clock.now += 3600  # an hour later the token is a new one
        client.things.list()
    assert seen == ["Bearer access-1", "Bearer access-2"]


def test_async_client_credentials(tokens_sdk: ModuleType) -> None:
    endpoint, clock = TokenEndpoint(lifetime=100), Clock()
    tokens = tokens_sdk.AsyncClientCredentials(
        "app", "s", token_url=TOKEN_URL, clock=clock, transport=httpx.MockTransport(endpoint)
    )
    seen: list[str] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200, json={})

    async def main() -> None:
        async with tokens_sdk.AsyncClient(token=tokens, transport=httpx.MockTransport(api)) as c:
            await asyncio.gather(c.things.list(), c.things.list())
            clock.now += 3600
            await c.things.list()

    asyncio.run(main())
    assert seen == ["Bearer access-1", "Bearer access-1", "Bearer access-2"]
    assert len(endpoint.forms) == 2  # concurrent requests shared one token fetch


def test_a_refused_client_is_a_clear_error(tokens_sdk: ModuleType) -> None:
    refused = httpx.MockTransport(lambda _: httpx.Response(401, json={"error": "invalid_client"}))
    tokens = tokens_sdk.ClientCredentials("app", "wrong", token_url=TOKEN_URL, transport=refused)
    with pytest.raises(tokens_sdk.errors.TokenError, match=r"answered 401 \(invalid_client\)"):
        tokens()


def test_a_bearer_only_sdk_offers_no_client_credentials(features: ModuleType) -> None:
    """An http bearer scheme takes a token; client credentials are an OAuth 2 flow the
    spec must declare, so that SDK neither ships nor documents them."""
    root = Path(features.__file__).parent
    assert not hasattr(features, "ClientCredentials")
    assert not hasattr(features, "AsyncClientCredentials")
    assert not (root / "_runtime" / "http" / "oauth2.py").exists()
    assert "ClientCredentials" not in (root.parent / "README.md").read_text()


def test_an_oauth2_sdk_ships_and_documents_them(tokens_sdk: ModuleType) -> None:
    root = Path(tokens_sdk.__file__).parent
    assert (root / "_runtime" / "http" / "oauth2.py").exists()
    assert "ClientCredentials(client_id" in (root.parent / "README.md").read_text()


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
