"""A result asked for in a file (`to_file=`) is streamed there chunk by chunk, within the
wait's deadline, and lands whole or not at all: DeepL-style one-shot documents over
`httpx.MockTransport`, sync and async."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.helpers import imported_sdk

SPEC = Path(__file__).parents[2] / "specs" / "deepl_documents.yaml"
CHUNK = 64 * 1024
CHUNKS = 48
BODY = bytes(range(256)) * (CHUNK // 256)  # one chunk: not text


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(SPEC, tmp_path_factory.mktemp("sdk"), "streamed_sdk") as module:
        yield module


class Server:
    """Answers every status read with `done`; the download's body is `body()`,
    an iterator of chunks (or its async twin), counted in `downloads`."""

    def __init__(self, body: Callable[[], Any]) -> None:
        self.body = body
        self.downloads = 0

    def answer(self, request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content) == {"document_key": "K"}
        if request.url.path.endswith("/result"):
            self.downloads += 1
            headers = {"content-type": "application/octet-stream"}
            return httpx.Response(200, headers=headers, content=self.body())
        return httpx.Response(200, json={"document_id": "d1", "status": "done"})


def _wait(sdk: ModuleType, mode: str, server: Server, target: Path, deadline: float = 30) -> Any:
    if mode == "sync":
        transport = httpx.MockTransport(server.answer)
        with sdk.Client(api_key="k", transport=transport) as client:
            return client.documents.wait_for_result(
                "d1", document_key="K", deadline=deadline, to_file=target
            )

    async def answer(request: httpx.Request) -> httpx.Response:
        return server.answer(request)

    async def main() -> Any:
        transport = httpx.MockTransport(answer)
        async with sdk.AsyncClient(api_key="k", transport=transport) as client:
            return await client.documents.wait_for_result(
                "d1", document_key="K", deadline=deadline, to_file=target
            )

    return asyncio.run(main())


def _partial(folder: Path) -> int:
    """The size of the download's temporary file in `folder` (0 if none yet)."""
    files = list(folder.glob(".download-*"))
    assert len(files) <= 1
    return files[0].stat().st_size if files else 0


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _body(mode: str, chunks: Callable[[], Iterator[bytes]]) -> Callable[[], Any]:
    """`chunks` as the download body: an iterator (sync) or an async iterator."""
    if mode == "sync":
        return chunks

    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks():
            yield chunk
            await asyncio.sleep(0)

    return stream


def test_the_body_reaches_the_file_while_it_is_still_arriving(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "translated.bin"
    seen: list[int] = []

    def chunks() -> Iterator[bytes]:
        for n in range(CHUNKS):
            # the chunks sent so far are on disk already; the target is not there yet
            seen.append(_partial(tmp_path))
            assert not target.exists()
            yield BODY

    server = Server(_body(mode, chunks))

    result = _wait(sdk, mode, server, target)

    whole = BODY * CHUNKS
    assert target.read_bytes() == whole and result == whole
    assert seen[-1] >= (CHUNKS - 2) * CHUNK  # written as it came, not at the end
    assert seen == sorted(seen) and seen[0] == 0
    assert server.downloads == 1
    assert [p.name for p in tmp_path.iterdir()] == ["translated.bin"]


def test_a_body_cut_off_midway_leaves_no_file_and_is_not_fetched_again(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "translated.bin"

    def chunks() -> Iterator[bytes]:
        yield BODY
        yield BODY
        assert _partial(tmp_path) >= CHUNK
        raise httpx.ReadError("connection reset by peer")

    server = Server(_body(mode, chunks))

    with pytest.raises(sdk.APIConnectionError) as caught:
        _wait(sdk, mode, server, target)

    assert caught.value.job_id == "d1"
    assert server.downloads == 1  # one-shot: the server may have sent it, never again
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_kept_when_the_download_fails(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "translated.bin"
    target.write_bytes(b"before")

    def chunks() -> Iterator[bytes]:
        yield BODY
        raise httpx.ReadError("connection reset by peer")

    with pytest.raises(sdk.APIConnectionError):
        _wait(sdk, mode, Server(_body(mode, chunks)), target)

    assert [p.name for p in tmp_path.iterdir()] == ["translated.bin"]
    assert target.read_bytes() == b"before"


def test_a_deadline_passing_mid_download_raises_and_leaves_no_file(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "translated.bin"
    release = threading.Event()
    if mode == "sync":

        def body() -> Iterator[bytes]:
            yield BODY
            release.wait(30)  # the rest never comes before the deadline
            yield BODY

    else:

        async def body() -> AsyncIterator[bytes]:  # type: ignore[misc]
            yield BODY
            await asyncio.Event().wait()  # cancelled at the deadline
            yield BODY

    server = Server(body)
    try:
        with pytest.raises((sdk.JobTimeout, sdk.APITimeoutError)) as caught:
            _wait(sdk, mode, server, target, deadline=0.5)
        assert list(tmp_path.iterdir()) == []
    finally:
        release.set()
    assert caught.value.job_id == "d1" and server.downloads == 1
    assert list(tmp_path.iterdir()) == []


def _call(sdk: ModuleType, mode: str, server: Server, **kwargs: Any) -> Any:
    """`wait_for_result("d1", ...)` with ``kwargs``, on `Client` or `AsyncClient`."""
    if mode == "sync":
        with sdk.Client(api_key="k", transport=httpx.MockTransport(server.answer)) as client:
            return client.documents.wait_for_result("d1", document_key="K", **kwargs)

    async def answer(request: httpx.Request) -> httpx.Response:
        return server.answer(request)

    async def main() -> Any:
        async with sdk.AsyncClient(api_key="k", transport=httpx.MockTransport(answer)) as client:
            return await client.documents.wait_for_result("d1", document_key="K", **kwargs)

    return asyncio.run(main())


@pytest.mark.parametrize("where", ["missing folder", "a directory"])
def test_a_target_that_cannot_be_written_is_refused_before_the_download(
    sdk: ModuleType, mode: str, tmp_path: Path, where: str
) -> None:
    target = tmp_path / "missing" / "out.bin" if where == "missing folder" else tmp_path
    server = Server(_body(mode, lambda: iter([BODY])))

    with pytest.raises(sdk.errors.ResultFileError) as caught:
        _call(sdk, mode, server, to_file=target)

    assert server.downloads == 0  # the one-shot result is still on the server
    assert str(target) in str(caught.value) and "nothing was fetched" in str(caught.value)
    assert caught.value.spent is False
    assert _call(sdk, mode, server, to_file=tmp_path / "ok.bin") == BODY


def test_a_file_error_after_the_body_arrived_says_the_result_is_spent(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "out.bin"

    def chunks() -> Iterator[bytes]:
        yield BODY
        target.mkdir()  # the rename into place will fail
        yield BODY

    server = Server(_body(mode, chunks))
    with pytest.raises(sdk.errors.ResultFileError) as caught:
        _call(sdk, mode, server, to_file=target)

    message = str(caught.value)
    assert "could not be written" in message and "spent" in message
    assert "(job d1)" in message and caught.value.job_id == "d1"
    assert caught.value.spent is True and server.downloads == 1
    assert not list(tmp_path.glob(".download-*"))


def test_read_back_false_returns_the_path_and_leaves_the_body_on_disk(
    sdk: ModuleType, mode: str, tmp_path: Path
) -> None:
    target = tmp_path / "out.bin"
    server = Server(_body(mode, lambda: iter([BODY, BODY])))

    result = _call(sdk, mode, server, to_file=str(target), read_back=False)

    assert result == target and isinstance(result, Path)
    assert target.read_bytes() == BODY * 2


def test_a_result_in_memory_past_the_limit_points_at_to_file(
    sdk: ModuleType, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sys.modules[f"{sdk.__name__}._runtime.http.download"], "MAX_RESULT_BYTES", CHUNK
    )
    server = Server(_body(mode, lambda: iter([BODY, BODY])))

    with pytest.raises(sdk.errors.ResponseTooLarge) as caught:
        _call(sdk, mode, server)

    assert f"larger than {CHUNK} bytes" in str(caught.value)
    assert "pass to_file=" in str(caught.value) and "spent" in str(caught.value)
    assert caught.value.job_id == "d1"


def test_a_result_read_back_from_its_file_past_the_limit_is_refused_and_the_file_kept(
    sdk: ModuleType, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`to_file` with the default `read_back=True` is bounded like a result held in
    memory (a 512 MiB result came back as bytes before); the file, whole, stays."""
    monkeypatch.setattr(
        sys.modules[f"{sdk.__name__}._runtime.http.download"], "MAX_RESULT_BYTES", CHUNK
    )
    target = tmp_path / "out.bin"
    server = Server(_body(mode, lambda: iter([BODY, BODY])))

    with pytest.raises(sdk.errors.ResponseTooLarge) as caught:
        _call(sdk, mode, server, to_file=target)

    message = str(caught.value)
    assert f"written to {str(target)!r} ({2 * CHUNK:,} bytes)" in message
    assert f"larger than the {CHUNK:,} bytes held in memory" in message
    assert "read_back=False" in message and caught.value.job_id == "d1"
    assert target.read_bytes() == BODY * 2 and server.downloads == 1
    # at the limit, the result still comes back as bytes
    server = Server(_body(mode, lambda: iter([BODY])))
    assert _call(sdk, mode, server, to_file=target) == BODY


USER_CODE = """
from __future__ import annotations

from pathlib import Path

from streamed_sdk import AsyncClient, Client


def keep(client: Client, target: Path) -> tuple[Path, bytes]:
    path: Path = client.documents.wait_for_result(
        "d1", document_key="K", to_file=target, read_back=False
    )
    data: bytes = client.documents.wait_for_result("d1", document_key="K", to_file=target)
    return path, data


async def keep_async(client: AsyncClient, target: Path) -> Path:
    return await client.documents.wait_for_result(
        "d1", document_key="K", to_file=target, read_back=False
    )
"""


@pytest.mark.slow
def test_read_back_is_typed_for_user_code(sdk: ModuleType, tmp_path: Path) -> None:
    """`read_back=False` returns a Path, the default the result's type (mypy --strict)."""
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE, encoding="utf-8")
    assert sdk.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(sdk.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
