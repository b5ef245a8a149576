"""A generated SDK sends parameters in their declared style (query, path, header,
cookie) and form bodies with repeated keys or the declared encoding, sync and async."""

from __future__ import annotations

import asyncio
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write

ARRAY = {"type": "array", "items": {"type": "string"}}
OBJECT = {"type": "object", "additionalProperties": {"type": "integer"}}


def param(name: str, where: str, schema: dict[str, Any], **style: Any) -> dict[str, Any]:
    return {"name": name, "in": where, "required": where == "path", "schema": schema, **style}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Styles", "version": "1.0.0"},
    "servers": [{"url": "https://styles.example"}],
    "paths": {
        "/items/{ids}/{label}{matrix}": {
            "get": {
                "operationId": "getItems",
                "tags": ["items"],
                "parameters": [
                    param("ids", "path", ARRAY),
                    param("label", "path", ARRAY, style="label", explode=True),
                    param("matrix", "path", OBJECT, style="matrix"),
                    param("tags", "query", ARRAY),
                    param("csv", "query", ARRAY, explode=False),
                    param("spaced", "query", ARRAY, style="spaceDelimited", explode=False),
                    param("piped", "query", ARRAY, style="pipeDelimited", explode=False),
                    param("filter", "query", OBJECT, style="deepObject", explode=True),
                    param("X-Tags", "header", ARRAY),
                    param("X-Point", "header", OBJECT, explode=True),
                    param("pref", "cookie", ARRAY, explode=False),
                ],
                "responses": {"204": {"description": "Done."}},
            }
        },
        "/forms": {
            "post": {
                "operationId": "postForm",
                "tags": ["items"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "tags": ARRAY,
                                    "meta": {
                                        "type": "object",
                                        "additionalProperties": {"type": "string"},
                                    },
                                    "ids": {"type": "array", "items": {"type": "integer"}},
                                },
                            },
                            "encoding": {
                                "meta": {"style": "deepObject", "explode": True},
                                "ids": {"style": "form", "explode": False},
                            },
                        }
                    },
                },
                "responses": {"204": {"description": "Done."}},
            }
        },
    },
}


@pytest.fixture(scope="module")
def styles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("styles")
    spec = write(root / "styles.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "styles_sdk") as sdk:
        yield sdk


class Recorder:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return httpx.Response(204)


def get_items(client: Any) -> Any:
    return client.items.get(
        ["a", "b/c"],
        ["x", "y"],
        {"R": 1, "G": 2},
        tags=["t1", "t2"],
        csv=["c1", "c2"],
        spaced=["s1", "s2"],
        piped=["p1", "p2"],
        filter={"R": 1, "G": 2},
        x_tags=["h1", "h2"],
        x_point={"R": 1, "G": 2},
        pref=["dark", "wide"],
    )


def check(request: httpx.Request) -> None:
    assert request.url.raw_path.split(b"?")[0] == b"/items/a,b%2Fc/.x.y;matrix=R,1,G,2"
    assert [(k, unquote(v)) for k, v in request.url.params.multi_items()] == [
        ("tags", "t1"),
        ("tags", "t2"),
        ("csv", "c1,c2"),
        ("spaced", "s1 s2"),
        ("piped", "p1|p2"),
        ("filter[R]", "1"),
        ("filter[G]", "2"),
    ]
    assert request.headers["X-Tags"] == "h1,h2"
    assert request.headers["X-Point"] == "R=1,G=2"
    assert request.headers["Cookie"] == "pref=dark,wide"


def test_parameters_follow_their_declared_style(styles: ModuleType) -> None:
    rec = Recorder()
    with styles.Client(transport=httpx.MockTransport(rec)) as client:
        get_items(client)
    check(rec.requests[0])


def test_async_parameters_follow_their_declared_style(styles: ModuleType) -> None:
    rec = Recorder()

    async def main() -> None:
        async with styles.AsyncClient(transport=httpx.MockTransport(rec)) as client:
            await get_items(client)

    asyncio.run(main())
    check(rec.requests[0])


def test_form_arrays_repeat_keys_and_follow_the_encoding(styles: ModuleType) -> None:
    rec = Recorder()
    models = importlib.import_module("styles_sdk.models")
    body = models.PostFormBody(tags=["a", "b"], meta={"k": "v"}, ids=[1, 2])
    with styles.Client(transport=httpx.MockTransport(rec)) as client:
        client.items.post_form(body=body)
    form = httpx.QueryParams(rec.requests[0].content.decode())
    assert sorted(form.multi_items()) == [
        ("ids", "1,2"),
        ("meta[k]", "v"),
        ("tags", "a"),
        ("tags", "b"),
    ]
    assert rec.requests[0].headers["content-type"] == "application/x-www-form-urlencoded"


def test_generated_code_names_only_the_declared_styles(styles: ModuleType) -> None:
    assert styles.__file__ is not None
    source = (Path(styles.__file__).parent / "resources" / "items.py").read_text()
    assert '"csv": ("form", False)' in source and '"tags": (' not in source
    assert '_path(label, "label", True, "label")' in source and "_path(ids)" in source


USER_CODE = """
from __future__ import annotations

from styles_sdk import AsyncClient, Client


def use(client: Client) -> None:
    client.items.get(["a"], ["b"], {"R": 1}, csv=["c"], x_tags=["h"], pref=["p"])


async def use_async(client: AsyncClient) -> None:
    await client.items.get(["a"], ["b"], {"R": 1}, filter={"G": 2})
"""


@pytest.mark.slow
def test_user_code_with_styled_parameters_passes_mypy_strict(
    styles: ModuleType, tmp_path: Path
) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert styles.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(styles.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
