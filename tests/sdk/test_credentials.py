"""Credentials of the generated client: from the constructor or the environment, a clear
error at construction when there are none, and token providers (sync and async)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests.helpers import write

ENV = "FEATURES_KEY_HEADER_API_KEY"
THING = {"id": "6f1c5e0a-8a5b-4a57-9d5e-0c8f1f2f9b11", "created_at": "2026-11-29T08:00:00Z"}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("FEATURES_"):
            monkeypatch.delenv(name)
    yield


class Recorder:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json={**THING, "color": "red", "tags": []})


def test_the_key_comes_from_the_environment(
    features: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "from-env")
    rec = Recorder()
    features.Client(transport=httpx.MockTransport(rec)).things.get("t1")
    features.Client(key_header_api_key="given", transport=httpx.MockTransport(rec)).things.get("t")
    assert [r.headers["X-Key"] for r in rec.requests] == ["from-env", "given"]


@pytest.mark.parametrize("make", ["Client", "AsyncClient"])
def test_no_credentials_at_all_is_an_error_at_construction(features: ModuleType, make: str) -> None:
    with pytest.raises(features.errors.MissingCredentials) as caught:
        getattr(features, make)()
    message = str(caught.value)
    assert isinstance(caught.value, (ValueError, features.MissingCredentials))
    assert "no credentials: pass key_header_api_key= or set FEATURES_KEY_HEADER_API_KEY" in message
    assert "token= or set FEATURES_TOKEN" in message


def test_a_token_provider_is_asked_for_every_request(features: ModuleType) -> None:
    tokens = iter(["k1", "k2"])
    rec = Recorder()
    client = features.Client(
        key_header_api_key=lambda: next(tokens), transport=httpx.MockTransport(rec)
    )
    client.things.get("a")
    client.things.get("b")
    assert [r.headers["X-Key"] for r in rec.requests] == ["k1", "k2"]
    assert "k1" not in repr(client._http._credentials)


def test_an_async_token_provider_is_awaited(features: ModuleType) -> None:
    asked: list[int] = []
    rec = Recorder()

    async def token() -> str:
        asked.append(1)
        return f"async-{len(asked)}"

    async def main() -> None:
        async with features.AsyncClient(
            key_header_api_key=token, transport=httpx.MockTransport(rec)
        ) as client:
            await client.things.get("a")
            await client.things.get("b")

    asyncio.run(main())
    assert [r.headers["X-Key"] for r in rec.requests] == ["async-1", "async-2"]


def test_an_async_provider_given_to_the_sync_client_is_a_clear_error(
    features: ModuleType,
) -> None:
    async def token() -> str:
        return "never"

    client = features.Client(key_header_api_key=token, transport=httpx.MockTransport(Recorder()))
    with pytest.raises(TypeError, match="an async token provider needs AsyncClient"):
        client.things.get("a")


USER_CODE = """
from __future__ import annotations

from features_sdk import AsyncClient, Client


async def fresh_token() -> str:
    return "t"


def make() -> tuple[Client, Client, AsyncClient, AsyncClient]:
    return (
        Client(key_header_api_key="k"),
        Client(key_header_api_key=lambda: "k", token=lambda: "t"),
        AsyncClient(token=fresh_token),
        AsyncClient(token=lambda: "t"),
    )
"""


@pytest.mark.slow
def test_user_code_with_providers_passes_mypy_strict(
    features: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert features.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(features.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
