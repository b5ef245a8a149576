"""Server-sent events: a ``text/event-stream`` response is a typed event iterator,
sync and async, over MockTransport and over a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write


def stream_of(schema: dict[str, Any]) -> dict[str, Any]:
    return {"text/event-stream": {"schema": schema}}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Events", "version": "1.0.0"},
    "servers": [{"url": "https://events.example"}],
    "paths": {
        "/jobs/{job_id}/events": {
            "get": {
                "operationId": "jobEvents",
                "tags": ["jobs"],
                "parameters": [
                    {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "The job's progress.",
                        "content": stream_of({"$ref": "#/components/schemas/JobEvent"}),
                    }
                },
            }
        },
        "/logs": {
            "get": {
                "operationId": "tailLogs",
                "tags": ["logs"],
                "responses": {
                    "200": {"description": "Lines.", "content": stream_of({"type": "string"})}
                },
            }
        },
        "/completions": {
            "post": {
                "operationId": "createCompletion",
                "tags": ["completions"],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "responses": {
                    "200": {
                        "description": "The completion, or its chunks.",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/Completion"}
                            },
                            **stream_of({"$ref": "#/components/schemas/Completion"}),
                        },
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "JobEvent": {
                "type": "object",
                "required": ["state"],
                "properties": {"state": {"type": "string"}, "progress": {"type": "integer"}},
            },
            "Completion": {
                "type": "object",
                "required": ["text"],
                "properties": {"text": {"type": "string"}},
            },
        }
    },
}

JOB_EVENTS = (
    b": keep-alive\r\n"
    b'event: progress\r\nid: 1\r\ndata: {"state": "running",\r\ndata:  "progress": 40}\r\n\r\n'
    b'event: progress\r\nid: 2\r\ndata: {"state": "succeeded", "progress": 100}\r\n\r\n'
)


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("events")
    spec = write(root / "events.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "events_sdk") as sdk:
        yield sdk


def models(sdk: ModuleType) -> ModuleType:
    return sys.modules[f"{sdk.__name__}.models"]


class Chunked(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body arriving a few bytes at a time, splitting lines and UTF-8 characters."""

    def __init__(self, body: bytes, size: int = 3) -> None:
        self.chunks = [body[i : i + size] for i in range(0, len(body), size)]

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks

    async def __aiter__(self) -> Any:
        for chunk in self.chunks:
            yield chunk


def answer(body: bytes, seen: list[httpx.Request] | None = None) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Chunked(body)
        )

    return httpx.MockTransport(handle)


def test_events_are_typed_as_the_schema(events: ModuleType) -> None:
    seen: list[httpx.Request] = []
    with events.Client(transport=answer(JOB_EVENTS, seen)) as client:
        got = list(client.jobs.events("j1"))
    job_event = models(events).JobEvent
    assert [(e.event, e.id, e.data) for e in got] == [
        ("progress", "1", job_event(state="running", progress=40)),
        ("progress", "2", job_event(state="succeeded", progress=100)),
    ]
    assert seen[0].headers["accept"] == "text/event-stream"
    assert seen[0].url.path == "/jobs/j1/events"


def test_async_events_are_typed_as_the_schema(events: ModuleType) -> None:
    async def main() -> list[Any]:
        async with events.AsyncClient(transport=answer(JOB_EVENTS)) as client:
            return [event.data.state async for event in client.jobs.events("j1")]

    assert asyncio.run(main()) == ["running", "succeeded"]


def test_text_events_and_the_done_marker(events: ModuleType) -> None:
    body = "data: é ☃\n\ndata: second\ndata: line\n\ndata: [DONE]\n\ndata: never\n\n".encode()
    with events.Client(transport=answer(body)) as client:
        assert [e.data for e in client.logs.tail()] == ["é ☃", "second\nline"]


def test_an_operation_with_a_json_answer_also_streams(events: ModuleType) -> None:
    seen: list[httpx.Request] = []
    body = b'data: {"text": "Hel"}\n\ndata: {"text": "lo"}\n\ndata: [DONE]\n\n'
    with events.Client(transport=answer(body, seen)) as client:
        stream = client.completions.create_stream(body={"stream": True})
        with stream:
            chunks = [event.data.text for event in stream]
    assert chunks == ["Hel", "lo"]
    assert seen[0].headers["accept"] == "text/event-stream"
    assert seen[0].content == b'{"stream":true}'


def test_data_off_the_schema_is_a_decode_error(events: ModuleType) -> None:
    client = events.Client(transport=answer(b"data: not json\n\n"))
    with client, pytest.raises(events.errors.DecodeError, match="not JSON"):
        list(client.jobs.events("j1"))


def test_an_error_status_raises_before_any_event(events: ModuleType) -> None:
    transport = httpx.MockTransport(lambda _: httpx.Response(404, json={"message": "no job"}))
    client = events.Client(transport=transport)
    with client, pytest.raises(events.errors.NotFoundError):
        list(client.jobs.events("nope"))


class Broken(httpx.SyncByteStream, httpx.AsyncByteStream):
    """One event, then the connection drops."""

    def __iter__(self) -> Iterator[bytes]:
        yield b'data: {"state": "running"}\n\n'
        raise httpx.RemoteProtocolError("peer closed connection")

    async def __aiter__(self) -> Any:
        yield b'data: {"state": "running"}\n\n'
        raise httpx.ReadTimeout("no event for too long")


def test_a_stream_that_breaks_off_raises_an_sdk_error(events: ModuleType) -> None:
    transport = httpx.MockTransport(lambda _: httpx.Response(200, stream=Broken()))
    states: list[str] = []
    client = events.Client(transport=transport)
    with client, pytest.raises(events.errors.APIConnectionError, match="broke off"):
        for event in client.jobs.events("j1"):
            states.append(event.data.state)
    assert states == ["running"]

    async def main() -> None:
        async with events.AsyncClient(transport=transport) as client:
            async for event in client.jobs.events("j1"):
                states.append(event.data.state)

    with pytest.raises(events.errors.APITimeoutError, match="broke off"):
        asyncio.run(main())
    assert states == ["running", "running"]


class SSEHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for piece in (JOB_EVENTS[:10], JOB_EVENTS[10:77], JOB_EVENTS[77:]):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def sse_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SSEHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_events_over_real_http(events: ModuleType, sse_server: str) -> None:
    with events.Client(base_url=sse_server) as client:
        assert [e.data.progress for e in client.jobs.events("j1")] == [40, 100]

    async def main() -> list[Any]:
        async with events.AsyncClient(base_url=sse_server) as client:
            return [e.id async for e in client.jobs.events("j1")]

    assert asyncio.run(main()) == ["1", "2"]


USER_CODE = """
from __future__ import annotations

from events_sdk import AsyncClient, Client, EventStream, ServerSentEvent
from events_sdk.models import JobEvent


def use(client: Client) -> list[JobEvent]:
    texts: list[str] = [e.data for e in client.logs.tail()]
    with client.completions.create_stream(body={"stream": True}) as stream:
        texts += [e.data.text for e in stream]
    progress: EventStream[JobEvent] = client.jobs.events("j").limits(max_line=1 << 20)
    first: ServerSentEvent[JobEvent] = next(iter(progress))
    return [first.data] + [e.data for e in progress if e.event == "progress"]


async def use_async(client: AsyncClient) -> list[str]:
    return [e.data.state async for e in client.jobs.events("j")]
"""


@pytest.mark.slow
def test_user_code_with_events_passes_mypy_strict(events: ModuleType, tmp_path: Path) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert events.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(events.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_line_past_the_limit_raises_naming_the_stream(events: ModuleType, mode: str) -> None:
    """One ``data:`` line with no end (a hostile or broken server): the stream raises
    once the line passes ``max_line``, naming the stream's request."""
    body = b"data: " + b"x" * 5000
    streamed = Chunked(body, size=100)

    def read(stream: Any) -> list[Any]:
        return drain(events, mode, stream.limits(max_line=4096))

    with pytest.raises(events.errors.ResponseTooLarge) as caught:
        read_with(events, mode, streamed, lambda jobs: jobs.events("j1"), read)
    assert str(caught.value) == (
        "GET https://events.example/jobs/j1/events: a line of the event stream is longer"
        " than 4096 characters (max_line)"
    )
    assert caught.value.limit == 4096


def test_an_event_past_the_limit_raises(events: ModuleType, mode: str) -> None:
    body = b"".join(b'data: {"state": "x"}\n' for _ in range(100)) + b"\n"

    def read(stream: Any) -> list[Any]:
        return drain(events, mode, stream.limits(max_event=1000))

    with pytest.raises(
        events.errors.ResponseTooLarge, match=r"larger than 1000 characters \(max_event\)"
    ):
        read_with(events, mode, Chunked(body), lambda jobs: jobs.events("j1"), read)


def test_the_default_limits_take_a_long_line(events: ModuleType, mode: str) -> None:
    text = "x" * (1 << 20)
    body = f"data: {text}\n\n".encode()
    got = read_with(
        events,
        mode,
        Chunked(body, size=4096),
        lambda logs: logs.tail(),
        lambda s: drain(events, mode, s),
        tag="logs",
    )
    assert [event.data for event in got] == [text]


def drain(events: ModuleType, mode: str, stream: Any) -> Any:
    if mode == "sync":
        return list(stream)

    async def main() -> list[Any]:
        return [event async for event in stream]

    return main()


def read_with(
    events: ModuleType,
    mode: str,
    body: Chunked,
    open_stream: Any,
    read: Any,
    tag: str = "jobs",
) -> Any:
    transport = httpx.MockTransport(
        lambda _: httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
    )
    if mode == "sync":
        with events.Client(transport=transport) as client:
            return read(open_stream(getattr(client, tag)))

    async def main() -> Any:
        async with events.AsyncClient(transport=transport) as client:
            return await read(open_stream(getattr(client, tag)))

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)
