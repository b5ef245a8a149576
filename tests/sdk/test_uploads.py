"""Upload bodies from paths and files that are not regular files, files that change size
while they are sent, and header values no request can carry: each raises an SDK error
naming the cause, sync and async, over real HTTP to a loopback server that records what
arrived (nothing, for what is refused before it is sent)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.helpers import imported_sdk, write
from tests.loopback import Seen, loopback

SPEC = """
openapi: 3.0.3
info: {title: Uploads, version: "1.0.0"}
servers: [{url: "https://uploads.example"}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
paths:
  /blobs:
    post:
      operationId: putBlob
      tags: [blobs]
      requestBody:
        required: true
        content:
          application/octet-stream: {schema: {type: string, format: binary}}
      responses:
        "202": {description: Accepted.}
  /forms:
    post:
      operationId: upload
      tags: [blobs]
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
      responses:
        "202": {description: Accepted.}
  /keyed:
    get:
      operationId: keyed
      tags: [blobs]
      security: [{key: []}]
      responses:
        "204": {description: Fine.}
"""

BLOB = bytes(range(256)) * 64  # 16 KiB


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("uploads")
    spec = write(root / "uploads.yaml", SPEC)
    with imported_sdk(spec, root / "out", "uploads_sdk") as module:
        yield module


@pytest.fixture
def server() -> Iterator[tuple[str, list[Seen]]]:
    with loopback(lambda seen: (202, {}, b"")) as running:
        yield running


def call(
    sdk: ModuleType,
    is_async: bool,
    url: str,
    action: Callable[[Any], Any],
    **options: Any,
) -> Any:
    """Run `action(client)` on a Client or an AsyncClient of `url` (awaited when async)."""
    if not is_async:
        with sdk.Client(base_url=url, max_retries=0, **options) as client:
            return action(client)

    async def main() -> Any:
        async with sdk.AsyncClient(base_url=url, max_retries=0, **options) as client:
            return await action(client)

    return asyncio.run(main())


def ended(run: Callable[[], Any]) -> BaseException | None:
    """The error `run` raised, run on a thread that must end: a call that blocks for
    good (a FIFO opened for reading with no writer) fails the test instead of hanging it."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            run()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the upload blocked"
    return outcome[0]


TWINS = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


def not_regular(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "zeros.bin"
    link.symlink_to("/dev/zero")
    return {
        "/dev/zero": (Path("/dev/zero"), "a character device"),
        "a symlink to /dev/zero": (link, "a character device"),
        "a FIFO with no writer": (fifo, "a FIFO"),
        "a directory": (tmp_path, "a directory"),
        "a /proc file": (Path("/proc/self/status"), "its size reads 0 but it has content"),
    }


@TWINS
def test_a_path_that_is_not_a_regular_file_is_refused_before_anything_is_sent(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]], tmp_path: Path
) -> None:
    url, seen = server
    for label, (path, cause) in not_regular(tmp_path).items():
        for send in (
            lambda c, p=path: c.blobs.put(body=p, timeout=2),
            lambda c, p=path: c.blobs.upload(body=sdk.models.UploadBody(file=p), timeout=2),
        ):
            error = ended(lambda s=send: call(sdk, is_async, url, s))
            assert isinstance(error, sdk.errors.UploadError), (label, error)
            assert cause in str(error) and repr(str(path)) in str(error), label
    assert seen == []  # no request, so no job made from an empty body


@TWINS
def test_an_open_device_is_refused_before_anything_is_sent(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    with open("/dev/zero", "rb") as zeros:
        error = ended(lambda: call(sdk, is_async, url, lambda c: c.blobs.put(body=zeros)))
    assert isinstance(error, sdk.errors.UploadError)
    assert "'/dev/zero'" in str(error) and "character device" in str(error)
    assert seen == []


@TWINS
def test_a_pipe_as_a_multipart_file_is_refused_before_anything_is_sent(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]]
) -> None:
    """httpx would announce the length the pipe's descriptor reports, and send more."""
    url, seen = server
    read, write_end = os.pipe()
    os.write(write_end, BLOB[:1000])
    os.close(write_end)
    with os.fdopen(read, "rb") as stream:
        form = sdk.models.UploadBody(file=stream)
        error = ended(lambda: call(sdk, is_async, url, lambda c: c.blobs.upload(body=form)))
    assert isinstance(error, sdk.errors.UploadError)
    assert "as a multipart file: it is a FIFO" in str(error)
    assert seen == []


def _resizing(path: Path, change: Callable[[Path], None]) -> httpx.Client:
    """An httpx client that changes the file once a request's headers are built and
    before its body is read: the size announced is then not the size sent."""
    return httpx.Client(event_hooks={"request": [lambda request: change(path)]})


def _async_resizing(path: Path, change: Callable[[Path], None]) -> httpx.AsyncClient:
    async def hook(request: httpx.Request) -> None:
        change(path)

    return httpx.AsyncClient(event_hooks={"request": [hook]})


def _grow(path: Path) -> None:
    with path.open("ab") as file:
        file.write(b"more")


def _shrink(path: Path) -> None:
    os.truncate(path, 100)


@TWINS
@pytest.mark.parametrize(
    ("change", "cause"),
    [(_grow, "grew while it was sent"), (_shrink, "shrank while it was sent: 100 of")],
    ids=["grows", "shrinks"],
)
def test_a_file_that_changes_size_while_sent_raises_naming_the_cause(
    sdk: ModuleType,
    is_async: bool,
    server: tuple[str, list[Seen]],
    tmp_path: Path,
    change: Callable[[Path], None],
    cause: str,
) -> None:
    url, _ = server
    path = tmp_path / "blob.bin"
    path.write_bytes(BLOB)
    http_client = _async_resizing(path, change) if is_async else _resizing(path, change)
    with pytest.raises(sdk.errors.UploadError) as caught:
        call(
            sdk,
            is_async,
            url,
            lambda c: c.blobs.put(body=path),
            http_client=http_client,
        )
    assert cause in str(caught.value) and repr(str(path)) in str(caught.value)
    assert f"{len(BLOB):,} bytes announced" in str(caught.value)


@TWINS
def test_a_stream_that_gives_no_data_ends_at_the_calls_timeout(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]]
) -> None:
    """A pipe whose writer never writes: the upload gives up after the call's timeout."""
    url, _ = server
    read, write_end = os.pipe()
    try:
        with os.fdopen(read, "rb") as stream:
            error = ended(
                lambda: call(sdk, is_async, url, lambda c: c.blobs.put(body=stream, timeout=0.5))
            )
    finally:
        os.close(write_end)
    assert isinstance(error, sdk.errors.UploadError)
    assert "gave no data for 0.5s" in str(error)


@TWINS
def test_a_pipe_is_streamed_chunked(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    read, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(BLOB)

    feeder = threading.Thread(target=feed)
    feeder.start()
    with os.fdopen(read, "rb") as stream:
        call(sdk, is_async, url, lambda c: c.blobs.put(body=stream, timeout=10))
    feeder.join()
    assert [s.body for s in seen] == [BLOB]
    assert seen[0].chunked and seen[0].header("Content-Length") is None


@TWINS
@pytest.mark.parametrize(
    ("headers", "cause"),
    [
        ({"Content-Type": "a\r\nX: 1"}, "'Content-Type' holds a line break"),
        ({"X-Note": "a\0b"}, "'X-Note' holds a NUL character"),
        ({"X-Note": "caf\u00e9"}, "'X-Note' holds a character outside ASCII"),
        ({"X-Note": "padded "}, "'X-Note' begins or ends with whitespace"),
        ({"X Note": "v"}, "header name 'X Note' is not an HTTP token"),
    ],
    ids=["crlf", "nul", "non-ascii", "whitespace", "name"],
)
def test_a_header_no_request_can_carry_is_refused_naming_it(
    sdk: ModuleType,
    is_async: bool,
    server: tuple[str, list[Seen]],
    headers: dict[str, str],
    cause: str,
) -> None:
    url, seen = server
    with pytest.raises(sdk.errors.InvalidHeader) as caught:
        call(sdk, is_async, url, lambda c: c.blobs.put(body=BLOB, extra_headers=headers))
    assert cause in str(caught.value)
    assert not isinstance(caught.value, sdk.errors.APIConnectionError)
    assert seen == []


@TWINS
def test_an_api_key_with_a_line_break_is_refused_without_showing_it(
    sdk: ModuleType, is_async: bool, server: tuple[str, list[Seen]]
) -> None:
    """A key read from a file often ends in a newline: the header is named, not the key."""
    url, seen = server
    with pytest.raises(sdk.errors.InvalidHeader) as caught:
        call(sdk, is_async, url, lambda c: c.blobs.keyed(), api_key="sk-secret-key\n")
    assert "'X-API-Key' holds a line break" in str(caught.value)
    assert "sk-secret-key" not in str(caught.value) + repr(caught.value)
    assert seen == []
