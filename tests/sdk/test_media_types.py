"""Request bodies an operation takes in several media types (an Azure-style analyze:
octet-stream, PDF, images, HTML, JSON), single text bodies, and multipart parts with
their own ``encoding.contentType``: sent over real HTTP to a loopback server that
records the bytes and headers as they arrived."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import imported_sdk, write
from tests.loopback import Seen, loopback, multipart_parts

SPEC = """
openapi: 3.0.3
info: {title: Media, version: "1.0.0"}
servers: [{url: "https://media.example"}]
paths:
  /analyze:
    post:
      operationId: analyze
      tags: [documents]
      requestBody:
        required: true
        content:
          application/octet-stream: {schema: {type: string, format: binary}}
          application/pdf: {schema: {type: string, format: binary}}
          image/jpeg: {schema: {type: string, format: binary}}
          image/png: {schema: {type: string, format: binary}}
          text/html: {schema: {type: string}}
          application/json:
            schema:
              type: object
              properties:
                urlSource: {type: string}
      responses:
        "204": {description: Accepted.}
  /notes:
    put:
      operationId: putNote
      tags: [documents]
      requestBody:
        content:
          text/plain: {schema: {type: string}}
      responses:
        "204": {description: Stored.}
  /blobs:
    put:
      operationId: putBlob
      tags: [documents]
      requestBody:
        required: true
        content:
          application/pdf: {schema: {type: string, format: binary}}
      responses:
        "204": {description: Stored.}
  /forms:
    post:
      operationId: upload
      tags: [documents]
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
                meta: {type: object, properties: {lang: {type: string}}}
                note: {type: string}
            encoding:
              file: {contentType: application/pdf}
              meta: {contentType: application/json}
      responses:
        "204": {description: Uploaded.}
"""

# 12 bytes of a PNG's signature and header: not UTF-8, so any text step changes them.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\r"
BLOB = bytes(range(256)) * 1024  # 256 KiB: several chunks of a streamed upload


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("media")
    spec = write(root / "media.yaml", SPEC)
    with imported_sdk(spec, root / "out", "media_sdk") as sdk:
        yield sdk


def _accept(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    return 204, {}, b""


@pytest.fixture
def server() -> Iterator[tuple[str, list[Seen]]]:
    with loopback(_accept) as running:
        yield running


def test_bytes_go_byte_for_byte_as_the_chosen_media_type(
    media: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    with media.Client(base_url=url) as client:
        client.documents.analyze(body=PNG, content_type="image/png")
        client.documents.analyze(body=PNG)
    assert [s.body for s in seen] == [PNG, PNG]
    assert [s.all("Content-Type") for s in seen] == [["image/png"], ["application/octet-stream"]]
    assert [s.header("Content-Length") for s in seen] == ["12", "12"]


def test_a_path_or_file_is_streamed_with_its_length(
    media: ModuleType, server: tuple[str, list[Seen]], tmp_path: Path
) -> None:
    url, seen = server
    path = tmp_path / "scan.pdf"
    path.write_bytes(BLOB)
    with media.Client(base_url=url) as client:
        client.documents.analyze(body=path, content_type="application/pdf")
        with path.open("rb") as handle:
            handle.seek(1000)  # a file goes from where it stands
            client.documents.analyze(body=handle, content_type="application/pdf")
        client.documents.put_blob(body=io.BytesIO(BLOB))
    assert [s.body for s in seen] == [BLOB, BLOB[1000:], BLOB]
    assert [s.header("Content-Length") for s in seen] == [
        str(len(BLOB)),
        str(len(BLOB) - 1000),
        str(len(BLOB)),
    ]
    assert not any(s.chunked for s in seen)
    assert {s.header("Content-Type") for s in seen} == {"application/pdf"}


def test_async_uploads_stream_paths_and_files(
    media: ModuleType, server: tuple[str, list[Seen]], tmp_path: Path
) -> None:
    url, seen = server
    path = tmp_path / "scan.pdf"
    path.write_bytes(BLOB)

    async def main() -> None:
        async with media.AsyncClient(base_url=url) as client:
            await client.documents.analyze(body=path, content_type="application/pdf")
            with path.open("rb") as handle:
                await client.documents.analyze(body=handle)
            await client.documents.analyze(body=PNG, content_type="image/jpeg")

    asyncio.run(main())
    assert [s.body for s in seen] == [BLOB, BLOB, PNG]
    assert [s.header("Content-Type") for s in seen] == [
        "application/pdf",
        "application/octet-stream",
        "image/jpeg",
    ]


def test_text_and_models_take_their_own_media_types(
    media: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    models = __import__("media_sdk.models", fromlist=["AnalyzeBody"])
    with media.Client(base_url=url) as client:
        client.documents.analyze(body="<p>Grüße</p>")
        client.documents.analyze(body=models.AnalyzeBody(url_source="https://x.example/a.pdf"))
        client.documents.analyze(body=b"<p>raw</p>", content_type="text/html")
    assert seen[0].body == "<p>Grüße</p>".encode()
    assert seen[0].header("Content-Type") == "text/html"
    assert json.loads(seen[1].body) == {"urlSource": "https://x.example/a.pdf"}
    assert seen[1].header("Content-Type") == "application/json"
    assert seen[2].body == b"<p>raw</p>"
    assert seen[2].header("Content-Type") == "text/html"


def test_a_content_type_in_extra_headers_is_sent_as_given(
    media: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    with media.Client(base_url=url) as client:
        client.documents.analyze(body=PNG, extra_headers={"Content-Type": "image/png"})
        client.documents.analyze(
            body=PNG, content_type="image/png", extra_headers={"content-type": "image/png"}
        )
        client.documents.put_note(
            body="hé", extra_headers={"Content-Type": "text/plain; charset=utf-8"}
        )
        client.documents.put_blob(body=PNG, extra_headers={"Content-Type": "application/x-pdf"})
    assert [s.all("Content-Type") for s in seen] == [
        ["image/png"],
        ["image/png"],
        ["text/plain; charset=utf-8"],
        ["application/x-pdf"],
    ]
    assert [s.body for s in seen] == [PNG, PNG, "hé".encode(), PNG]


def test_a_contradicting_content_type_is_refused_before_sending(
    media: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    with media.Client(base_url=url) as client:
        with pytest.raises(ValueError, match=r"'image/jpeg'.*content_type='image/png'"):
            client.documents.analyze(
                body=PNG, content_type="image/png", extra_headers={"Content-Type": "image/jpeg"}
            )
        with pytest.raises(TypeError, match="image/png body takes bytes"):
            client.documents.analyze(body="text", content_type="image/png")
        with pytest.raises(ValueError, match="extra_body needs a JSON object or form body"):
            client.documents.put_blob(body=PNG, extra_body={"x": 1})
    assert seen == []


def test_multipart_parts_take_their_declared_content_types(
    media: ModuleType, server: tuple[str, list[Seen]], tmp_path: Path
) -> None:
    url, seen = server
    models = __import__("media_sdk.models", fromlist=["UploadBody"])
    path = tmp_path / "scan.bin"  # the name says nothing of PDF: the spec does
    path.write_bytes(BLOB)
    with media.Client(base_url=url) as client:
        client.documents.upload(
            body=models.UploadBody(file=path, meta=models.UploadBodyMeta(lang="de"), note="n")
        )
        with path.open("rb") as handle:
            client.documents.upload(body=models.UploadBody(file=handle))
    first = {p.name: p for p in multipart_parts(seen[0])}
    assert first["file"].data == BLOB
    assert first["file"].filename == "scan.bin"
    assert first["file"].content_type == "application/pdf"
    assert json.loads(first["meta"].data) == {"lang": "de"}
    assert first["meta"].content_type == "application/json"
    assert first["note"].data == b"n" and first["note"].content_type is None
    second = {p.name: p for p in multipart_parts(seen[1])}
    assert second["file"].data == BLOB
    assert second["file"].content_type == "application/pdf"


USER_CODE = """
from __future__ import annotations

from pathlib import Path

from media_sdk import AsyncClient, Client
from media_sdk.models import AnalyzeBody


def use(client: Client, path: Path) -> None:
    client.documents.analyze(body=path, content_type="application/pdf")
    client.documents.analyze(body=b"png", content_type="image/png")
    client.documents.analyze(body="<p>x</p>", content_type="text/html")
    client.documents.analyze(body=AnalyzeBody(url_source="u"), content_type="application/json")
    with path.open("rb") as handle:
        client.documents.analyze(body=handle)
    client.documents.put_blob(body=path)


async def use_async(client: AsyncClient, path: Path) -> None:
    await client.documents.analyze(body=path, content_type="image/jpeg")
"""

WRONG_CODE = """
from media_sdk import Client


def use(client: Client) -> None:
    client.documents.analyze(body=b"png", content_type="image/gif")
"""


def _mypy(
    root: Path, package_dir: Path, cache: Path, *targets: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *targets],
        cwd=root,
        env={**os.environ, "MYPYPATH": str(package_dir)},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_generated_code_and_typed_calls_pass_mypy_strict(
    media: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    assert media.__file__ is not None
    package_dir = Path(media.__file__).parent.parent
    write(tmp_path / "user_code.py", USER_CODE)
    write(tmp_path / "wrong_code.py", WRONG_CODE)
    ok = _mypy(tmp_path, package_dir, mypy_cache, "user_code.py", str(package_dir / "media_sdk"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = _mypy(tmp_path, package_dir, mypy_cache, "wrong_code.py")
    assert wrong.returncode == 1 and "Literal['image/gif']" in wrong.stdout, wrong.stdout


class _Pipe(io.RawIOBase):
    """A binary stream that cannot seek (a pipe, a socket): read once, never again."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_a_retried_upload_sends_the_same_bytes_and_a_stream_is_sent_once(
    media: ModuleType, tmp_path: Path
) -> None:
    answers = iter([503, 204, 503])

    def flaky(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        return next(answers), {}, b""

    timing = media.Timing(sleep=lambda seconds: None, rng=lambda: 0.5)
    with (
        loopback(flaky) as (url, seen),
        media.Client(base_url=url, timing=timing, max_retries=1) as client,
    ):
        with (tmp_path / "blob").open("wb+") as handle:
            handle.write(BLOB)
            handle.seek(0)
            client.documents.put_blob(body=handle)  # PUT: retried, from the same start
        with pytest.raises(media.InternalServerError):
            client.documents.put_blob(body=io.BufferedReader(_Pipe(BLOB)))
    assert [s.body for s in seen] == [BLOB, BLOB, BLOB]
    # The stream's length is unknown: it went chunked, once, not retried.
    assert seen[2].chunked and seen[2].header("Content-Length") is None


def test_the_sdk_readme_tells_how_to_choose_the_media_type(media: ModuleType) -> None:
    assert media.__file__ is not None
    readme = (Path(media.__file__).parent.parent / "README.md").read_text()
    assert "has a `content_type=` argument" in readme
    assert "A `Content-Type` in `extra_headers` is sent as given" in readme
