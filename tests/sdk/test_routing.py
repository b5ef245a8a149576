"""Operation- and path-level ``servers`` and redirects: requests go to the declared
host; a GET follows a 3xx (bounded, credentials only to the host they were meant for);
a redirect the operation declares is returned, not raised. Sync and async."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write

OK = {"200": {"description": "OK.", "content": {"application/json": {"schema": {}}}}}


def op(operation_id: str, responses: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "tags": ["things"], "responses": responses or OK, **extra}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Routing", "version": "1.0.0"},
    "servers": [{"url": "https://api.example/v1"}],
    "security": [{"key": []}],
    "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}},
    "paths": {
        "/things": {"get": op("listThings"), "post": op("makeThing")},
        "/uploads": {
            "post": op("upload", servers=[{"url": "https://uploads.example/v2"}]),
        },
        "/reports": {
            "servers": [
                {
                    "url": "https://{region}.reports.example",
                    "variables": {"region": {"default": "eu", "enum": ["eu", "us"]}},
                }
            ],
            "get": op("getReport"),
        },
        "/files/{name}": {
            "get": op(
                "locateFile",
                {"302": {"description": "Where the file is.", "headers": {"Location": {}}}},
                parameters=[
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
            ),
        },
    },
}


@pytest.fixture(scope="module")
def routing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("routing")
    spec = write(root / "routing.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "routing_sdk") as sdk:
        yield sdk


class Server:
    """Answers each request with ``answer(request)`` and records it."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response] | None = None) -> None:
        self.answer = answer or (lambda _: httpx.Response(200, json={}))
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)

    def seen(self) -> list[tuple[str, str | None]]:
        return [(str(r.url), r.headers.get("X-Key")) for r in self.requests]


def test_operations_go_to_their_declared_server(routing: ModuleType) -> None:
    server = Server()
    with routing.Client(api_key="k", transport=httpx.MockTransport(server)) as client:
        client.things.list()
        client.things.upload()
        client.things.get_report()
    assert server.seen() == [
        ("https://api.example/v1/things", "k"),
        ("https://uploads.example/v2/uploads", "k"),
        ("https://eu.reports.example/reports", "k"),
    ]


def test_async_operations_go_to_their_declared_server(routing: ModuleType) -> None:
    server = Server()

    async def main() -> None:
        async with routing.AsyncClient(api_key="k", transport=httpx.MockTransport(server)) as c:
            await c.things.upload()
            await c.things.get_report()

    asyncio.run(main())
    assert [url for url, _ in server.seen()] == [
        "https://uploads.example/v2/uploads",
        "https://eu.reports.example/reports",
    ]


def test_a_configured_base_url_serves_every_operation(routing: ModuleType) -> None:
    server = Server()
    with routing.Client(
        api_key="k", base_url="http://127.0.0.1:9/api", transport=httpx.MockTransport(server)
    ) as client:
        client.things.upload()
        client.things.get_report()
    assert server.seen() == [
        ("http://127.0.0.1:9/api/uploads", "k"),
        ("http://127.0.0.1:9/api/reports", "k"),
    ]


def hops(request: httpx.Request) -> httpx.Response:
    """/things -> /v1/moved (same host) -> cdn.example (another host) -> 200."""
    if request.url.host == "cdn.example":
        return httpx.Response(200, json={"from": "cdn"})
    if request.url.path == "/v1/things":
        return httpx.Response(301, headers={"Location": "/v1/moved?page=2"})
    return httpx.Response(307, headers={"Location": "https://cdn.example/things"})


def test_a_get_follows_redirects_and_keeps_credentials_to_its_host(routing: ModuleType) -> None:
    server = Server(hops)
    with routing.Client(api_key="k", transport=httpx.MockTransport(server)) as client:
        assert client.things.list() == {"from": "cdn"}
    assert server.seen() == [
        ("https://api.example/v1/things", "k"),
        ("https://api.example/v1/moved?page=2", "k"),
        ("https://cdn.example/things", None),  # another host: no credentials
    ]


def test_async_get_follows_redirects(routing: ModuleType) -> None:
    server = Server(hops)

    async def main() -> Any:
        async with routing.AsyncClient(api_key="k", transport=httpx.MockTransport(server)) as c:
            return await c.things.list()

    assert asyncio.run(main()) == {"from": "cdn"}
    assert server.seen()[-1] == ("https://cdn.example/things", None)


def test_redirects_are_bounded(routing: ModuleType) -> None:
    loop = Server(lambda r: httpx.Response(302, headers={"Location": str(r.url)}))
    client = routing.Client(api_key="k", transport=httpx.MockTransport(loop))
    with client, pytest.raises(routing.errors.APIStatusError) as caught:
        client.things.list()
    assert caught.value.status_code == 302
    assert len(loop.requests) == 11  # the request and ten redirects


@pytest.mark.parametrize("status", [300, 302, 304])
def test_a_3xx_without_a_location_is_a_status_error(routing: ModuleType, status: int) -> None:
    server = Server(lambda _: httpx.Response(status))
    client = routing.Client(api_key="k", transport=httpx.MockTransport(server))
    with client, pytest.raises(routing.errors.APIStatusError) as caught:
        client.things.list()
    assert caught.value.status_code == status and len(server.requests) == 1


def test_a_post_does_not_follow_an_undeclared_redirect(routing: ModuleType) -> None:
    server = Server(lambda _: httpx.Response(307, headers={"Location": "/v1/elsewhere"}))
    client = routing.Client(api_key="k", transport=httpx.MockTransport(server))
    with client, pytest.raises(routing.errors.APIStatusError) as caught:
        client.things.make()
    assert caught.value.status_code == 307 and len(server.requests) == 1


def test_a_declared_redirect_is_returned(routing: ModuleType) -> None:
    where = "https://storage.example/f/report.pdf?sig=abc"
    server = Server(lambda _: httpx.Response(302, headers={"Location": where}))
    with routing.Client(api_key="k", transport=httpx.MockTransport(server)) as client:
        assert client.things.locate_file("report.pdf") == where
        raw = client.things.with_raw_response.locate_file("report.pdf")
        assert raw.status_code == 302 and raw.parse() == where

    async def main() -> str:
        async with routing.AsyncClient(api_key="k", transport=httpx.MockTransport(server)) as c:
            result: str = await c.things.locate_file("report.pdf")
            return result

    assert asyncio.run(main()) == where
    assert [r.url.host for r in server.requests] == ["api.example"] * 3  # never followed


USER_CODE = """
from __future__ import annotations

from routing_sdk import AsyncClient, Client


def use(client: Client) -> str:
    client.things.upload()
    return client.things.locate_file("a")


async def use_async(client: AsyncClient) -> str:
    return await client.things.locate_file("a")
"""


@pytest.mark.slow
def test_user_code_with_redirects_passes_mypy_strict(routing: ModuleType, tmp_path: Path) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert routing.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(routing.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
