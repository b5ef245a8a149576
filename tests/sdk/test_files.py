"""Uploads (octet-stream and multipart bodies from bytes, a path, a file object or a
tuple, with the real file name) and downloads (bytes as sent, streamed to a file)."""

from __future__ import annotations

import asyncio
import importlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write

BLOB = bytes(range(256)) * 4  # not UTF-8: decoding it as text would change it

SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Files", "version": "1.0.0"},
    "servers": [{"url": "https://files.example"}],
    "paths": {
        "/files/{name}": {
            "put": {
                "operationId": "putFile",
                "tags": ["files"],
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/octet-stream": {"schema": {"type": "string"}}},
                },
                "responses": {"204": {"description": "Stored."}},
            },
            "get": {
                "operationId": "getFile",
                "tags": ["files"],
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "The bytes.",
                        "content": {
                            "application/octet-stream": {
                                "schema": {"type": "string", "format": "binary"}
                            }
                        },
                    }
                },
            },
        },
        "/uploads": {
            "post": {
                "operationId": "upload",
                "tags": ["files"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["file"],
                                "properties": {
                                    "file": {"type": "string", "format": "binary"},
                                    "purpose": {"type": "string"},
                                },
                            }
                        }
                    },
                },
                "responses": {"204": {"description": "Uploaded."}},
            }
        },
    },
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("files")
    spec = write(root / "files.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "files_sdk") as sdk:
        yield sdk


class Recorder:
    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.response


@pytest.fixture
def blob_file(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(BLOB)
    return path


def test_an_octet_stream_body_takes_bytes_a_path_or_a_file(
    files: ModuleType, blob_file: Path
) -> None:
    rec = Recorder(httpx.Response(204))
    with files.Client(transport=httpx.MockTransport(rec)) as client:
        client.files.put("a", body=BLOB)
        client.files.put("b", body=blob_file)
        with blob_file.open("rb") as handle:
            client.files.put("c", body=handle)
    assert [r.content for r in rec.requests] == [BLOB] * 3
    assert {r.headers["content-type"] for r in rec.requests} == {"application/octet-stream"}


def test_multipart_files_keep_their_real_names(files: ModuleType, blob_file: Path) -> None:
    rec = Recorder(httpx.Response(204))
    models = importlib.import_module("files_sdk.models")
    with files.Client(transport=httpx.MockTransport(rec)) as client:
        for value in (
            blob_file,
            io.BytesIO(BLOB),
            ("notes.txt", b"hello", "text/plain"),
            ("data.bin", blob_file),
        ):
            client.files.upload(body=models.UploadBody(file=value, purpose="p"))
    heads = [r.content.split(b"\r\n\r\n")[0] for r in rec.requests]
    assert b'name="file"; filename="report.pdf"' in heads[0]
    assert b"Content-Type: application/pdf" in heads[0]
    assert b'filename="file"' in heads[1]  # a file object without a name
    assert b'filename="notes.txt"' in heads[2] and b"Content-Type: text/plain" in heads[2]
    assert b'filename="data.bin"' in heads[3]
    assert all(BLOB in r.content for r in rec.requests[:2])
    assert all(b'name="purpose"' in r.content for r in rec.requests)


def test_a_binary_response_is_the_bytes_sent(files: ModuleType, tmp_path: Path) -> None:
    rec = Recorder(httpx.Response(200, content=BLOB, headers={"content-type": "text/plain"}))
    with files.Client(transport=httpx.MockTransport(rec)) as client:
        assert client.files.get("a") == BLOB
        with client.files.with_streaming_response.get("a") as response:
            response.write_to_file(tmp_path / "copy.bin")
    assert (tmp_path / "copy.bin").read_bytes() == BLOB
    assert rec.requests[0].headers["accept"] == "application/octet-stream"


def test_async_download_streams_chunks(files: ModuleType) -> None:
    rec = Recorder(httpx.Response(200, content=BLOB))

    async def main() -> bytes:
        async with files.AsyncClient(transport=httpx.MockTransport(rec)) as client:
            await client.files.put("a", body=io.BytesIO(BLOB))
            async with client.files.with_streaming_response.get("a") as response:
                return b"".join([chunk async for chunk in response.iter_bytes()])

    assert asyncio.run(main()) == BLOB
    assert rec.requests[0].content == BLOB


USER_CODE = """
from __future__ import annotations

from pathlib import Path

from files_sdk import Client
from files_sdk.models import UploadBody


def use(client: Client, path: Path) -> bytes:
    client.files.upload(body=UploadBody(file=path, purpose="p"))
    client.files.upload(body=UploadBody(file=("a.txt", b"text", "text/plain")))
    with path.open("rb") as handle:
        client.files.upload(body=UploadBody(file=handle))
    client.files.put("a", body=b"bytes")
    client.files.put("b", body=path)
    with path.open("rb") as handle:
        client.files.put("c", body=handle)
    data: bytes = client.files.get("a")
    with client.files.with_streaming_response.get("a") as response:
        response.write_to_file(path)
    return data
"""


@pytest.mark.slow
def test_user_code_with_files_passes_mypy_strict(
    files: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert files.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(files.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
