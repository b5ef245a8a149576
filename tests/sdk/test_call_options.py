"""Per-call options, idempotent retries of creates, ``with_options``, raw and streaming
responses of the generated client, over ``httpx.MockTransport`` (sync and async)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.helpers import imported_sdk, write

SPEC = """
openapi: 3.1.0
info: {title: Calls, version: 1.0.0}
servers: [{url: https://calls.example}]
security: [{Key: []}]
paths:
  /jobs:
    post:
      operationId: createJob
      tags: [jobs]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewJob"}
      responses:
        "201":
          description: Created.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Job"}
  /jobs/{job_id}:
    get:
      operationId: getJob
      tags: [jobs]
      parameters:
        - {name: job_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The job.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Job"}
  /jobs/{job_id}/log:
    get:
      operationId: getJobLog
      tags: [jobs]
      parameters:
        - {name: job_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The job's log.
          content:
            text/plain:
              schema: {type: string}
components:
  securitySchemes:
    Key: {type: apiKey, in: header, name: X-Key}
  schemas:
    NewJob:
      type: object
      required: [name]
      properties:
        name: {type: string}
    Job:
      type: object
      required: [id, state]
      properties:
        id: {type: string}
        state: {type: string, enum: [running, done, failed]}
x-jobgen:
  jobs:
    job:
      create: createJob
      status: getJob
      id_parameter: job_id
      id_from: /id
      state:
        field: /state
        success: [done]
        failure: [failed]
        pending: [running]
      idempotency_header: Idempotency-Key
"""

JOB = {"id": "j1", "state": "running"}


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("calls")
    spec = write(root / "calls.yaml", SPEC)
    with imported_sdk(spec, root / "out", "calls_sdk") as sdk:
        yield sdk


class Recorder:
    """Records requests; answers from a script (the last answer repeats)."""

    def __init__(self, *responses: httpx.Response) -> None:
        self.requests: list[httpx.Request] = []
        self.responses = list(responses)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]


def job(status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=JOB, headers=headers)


def sync_client(sdk: ModuleType, handler: Any, **kwargs: Any) -> Any:
    config = sdk.WaitConfig(sleep=lambda _: None, rng=lambda: 0.5)
    return sdk.Client(
        api_key="k", transport=httpx.MockTransport(handler), wait_config=config, **kwargs
    )


def async_client(sdk: ModuleType, handler: Any, **kwargs: Any) -> Any:
    async def no_sleep(_: float) -> None:
        return None

    config = sdk.WaitConfig(async_sleep=no_sleep, rng=lambda: 0.5)
    return sdk.AsyncClient(
        api_key="k", transport=httpx.MockTransport(handler), wait_config=config, **kwargs
    )


def run(sdk: ModuleType, handler: Any, mode: str, call: Callable[[Any], Any], **kw: Any) -> Any:
    """``call(client)`` with a sync client, or awaited with an async one."""
    if mode == "sync":
        with sync_client(sdk, handler, **kw) as client:
            return call(client)

    async def main() -> Any:
        async with async_client(sdk, handler, **kw) as client:
            return await call(client)

    return asyncio.run(main())


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_per_call_options_reach_the_wire(calls: ModuleType, mode: str) -> None:
    rec = Recorder(job())
    run(
        calls,
        rec,
        mode,
        lambda c: c.jobs.create(
            body=calls.models.NewJob(name="n"),
            timeout=httpx.Timeout(3.0, connect=1.0),
            extra_headers={"X-Trace": "t1"},
            extra_query={"dry_run": True, "tag": ["a", "b"]},
            extra_body={"priority": 5},
        ),
    )
    (request,) = rec.requests
    assert request.headers["X-Trace"] == "t1"
    assert request.url.params.get_list("tag") == ["a", "b"]
    assert request.url.params["dry_run"] == "true"
    assert json.loads(request.content) == {"name": "n", "priority": 5}
    assert request.extensions["timeout"] == {
        "connect": 1.0,
        "read": 3.0,
        "write": 3.0,
        "pool": 3.0,
    }


@pytest.mark.parametrize("mode", MODES)
def test_a_float_timeout_applies_to_every_phase(calls: ModuleType, mode: str) -> None:
    rec = Recorder(job())
    run(calls, rec, mode, lambda c: c.jobs.get("j1", timeout=2.5))
    assert set(rec.requests[0].extensions["timeout"].values()) == {2.5}


@pytest.mark.parametrize("mode", MODES)
def test_max_retries_per_call_overrides_the_client(calls: ModuleType, mode: str) -> None:
    rec = Recorder(httpx.Response(503), httpx.Response(503), job())
    with pytest.raises(calls.errors.InternalServerError):
        run(calls, rec, mode, lambda c: c.jobs.get("j1", max_retries=0), max_retries=5)
    assert len(rec.requests) == 1

    rec = Recorder(httpx.Response(503), httpx.Response(503), job())
    found = run(calls, rec, mode, lambda c: c.jobs.get("j1", max_retries=2), max_retries=0)
    assert (found.id, len(rec.requests)) == ("j1", 3)


@pytest.mark.parametrize("mode", MODES)
def test_create_gets_one_idempotency_key_and_is_retried(calls: ModuleType, mode: str) -> None:
    rec = Recorder(httpx.Response(503), httpx.Response(500), job(201))
    created = run(calls, rec, mode, lambda c: c.jobs.create(body=calls.models.NewJob(name="n")))
    assert created.id == "j1"
    keys = [r.headers.get("Idempotency-Key") for r in rec.requests]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1

    rec = Recorder(job(201))
    run(calls, rec, mode, lambda c: c.jobs.create(body=calls.models.NewJob(name="n")))
    assert rec.requests[0].headers["Idempotency-Key"] != keys[0]  # a new key per call


@pytest.mark.parametrize("mode", MODES)
def test_a_given_idempotency_key_is_sent_on_every_attempt(calls: ModuleType, mode: str) -> None:
    rec = Recorder(httpx.Response(502), job(201))
    run(
        calls,
        rec,
        mode,
        lambda c: c.jobs.create(body=calls.models.NewJob(name="n"), idempotency_key="mine"),
    )
    assert [r.headers["Idempotency-Key"] for r in rec.requests] == ["mine", "mine"]


@pytest.mark.parametrize("mode", MODES)
def test_the_server_can_forbid_or_ask_for_a_retry(calls: ModuleType, mode: str) -> None:
    rec = Recorder(httpx.Response(503, headers={"x-should-retry": "false"}), job())
    with pytest.raises(calls.errors.InternalServerError):
        run(calls, rec, mode, lambda c: c.jobs.get("j1"))
    assert len(rec.requests) == 1

    rec = Recorder(httpx.Response(409, headers={"x-should-retry": "true"}), job())
    assert run(calls, rec, mode, lambda c: c.jobs.get("j1")).id == "j1"
    assert len(rec.requests) == 2


def test_with_options_copies_and_shares_the_pool(calls: ModuleType) -> None:
    rec = Recorder(httpx.Response(503), job())
    with sync_client(calls, rec, max_retries=0, headers={"X-A": "1"}) as client:
        patient = client.with_options(max_retries=1, timeout=4.0, headers={"X-B": "2"})
        assert patient.jobs.get("j1").id == "j1"
        assert len(rec.requests) == 2
        last = rec.requests[-1]
        assert (last.headers["X-A"], last.headers["X-B"]) == ("1", "2")
        assert set(last.extensions["timeout"].values()) == {4.0}
        assert patient._http._client is client._http._client
        patient.close()  # the copy does not own the pool
        rec.responses = [httpx.Response(503)]
        with pytest.raises(calls.errors.InternalServerError):
            client.jobs.get("j1")  # the original keeps its own settings
        assert "X-B" not in rec.requests[-1].headers


def test_with_options_changes_the_wait_settings_and_the_base_url(calls: ModuleType) -> None:
    """openai-python's with_options takes base_url; a job SDK's takes its WaitConfig too:
    the copy's waits use it, the original's keep their own."""
    done = httpx.Response(200, json={"id": "j1", "state": "done"})
    rec = Recorder(job(), job(), done)
    with sync_client(calls, rec) as client:
        slept: list[float] = []
        fast = calls.WaitConfig(
            floor=0.0, first=0.25, cap=0.25, sleep=slept.append, rng=lambda: 1.0
        )
        moved = client.with_options(base_url="https://eu.calls.example/", wait_config=fast)
        assert moved.jobs.wait_for_job("j1", deadline=30).state == "done"
        assert slept == [0.25, 0.25]
        assert {str(r.url) for r in rec.requests} == {"https://eu.calls.example/jobs/j1"}
        assert moved._http.wait_config is fast and client._http.wait_config is not fast
        rec.responses = [done]
        client.jobs.wait_for_job("j1", deadline=30)
        assert str(rec.requests[-1].url) == "https://calls.example/jobs/j1"
        with pytest.raises(ValueError, match="base_url must not be empty"):
            client.with_options(base_url="")


def test_async_with_options(calls: ModuleType) -> None:
    rec = Recorder(httpx.Response(503), job())

    async def main() -> str:
        async with async_client(calls, rec, max_retries=0) as client:
            patient = client.with_options(max_retries=1)
            await patient.aclose()
            found = await patient.jobs.get("j1")
            return str(found.id)

    assert asyncio.run(main()) == "j1"
    assert len(rec.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_raw_response_has_status_headers_request_id_and_body(calls: ModuleType, mode: str) -> None:
    rec = Recorder(job(201, **{"x-request-id": "req_1", "Location": "/jobs/j1"}))
    raw = run(
        calls,
        rec,
        mode,
        lambda c: c.jobs.with_raw_response.create(body=calls.models.NewJob(name="n")),
    )
    assert (raw.status_code, raw.request_id, raw.headers["location"]) == (201, "req_1", "/jobs/j1")
    parsed = raw.parse()
    assert isinstance(parsed, calls.models.Job) and parsed.id == "j1"
    assert raw.parse() is parsed
    assert rec.requests[0].headers["Idempotency-Key"]


def test_raw_and_streaming_variants_are_built_once_per_resource(calls: ModuleType) -> None:
    rec = Recorder(job(), job())
    for make in (sync_client, async_client):
        client = make(calls, rec, headers={"X-A": "1"})
        jobs = client.jobs
        for variant in ("with_raw_response", "with_streaming_response"):
            assert getattr(jobs, variant) is getattr(jobs, variant)
        copy = client.with_options(headers={"X-B": "2"})
        assert copy.jobs.with_raw_response is not jobs.with_raw_response
    with sync_client(calls, rec, headers={"X-A": "1"}) as client:
        assert client.jobs.with_raw_response.get("j1").status_code == 200
        copy = client.with_options(headers={"X-B": "2"})
        assert copy.jobs.with_raw_response.get("j1").status_code == 200
    # each resource's variant sends with its own client's settings
    assert "X-B" not in rec.requests[0].headers
    assert (rec.requests[1].headers["X-A"], rec.requests[1].headers["X-B"]) == ("1", "2")


@pytest.mark.parametrize("mode", MODES)
def test_raw_response_raises_status_errors(calls: ModuleType, mode: str) -> None:
    rec = Recorder(httpx.Response(404, json={"message": "no"}))
    with pytest.raises(calls.errors.NotFoundError):
        run(calls, rec, mode, lambda c: c.jobs.with_raw_response.get("j1"))


class Chunks:
    """A handler whose response bodies record how many chunks were read."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.read = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=_Body(self), headers={"request-id": "r9"})


class _Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, source: Chunks) -> None:
        self.source = source

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.source.chunks:
            self.source.read += 1
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.source.chunks:
            self.source.read += 1
            yield chunk


def test_streaming_response_reads_nothing_until_asked(calls: ModuleType, tmp_path: Path) -> None:
    body = Chunks(b"line 1\n", b"line 2\n")
    with sync_client(calls, body) as client:
        with client.jobs.with_streaming_response.get_log("j1") as response:
            assert (response.status_code, response.request_id, body.read) == (200, "r9", 0)
            assert list(response.iter_bytes()) == [b"line 1\n", b"line 2\n"]
        body.read = 0
        with client.jobs.with_streaming_response.get_log("j1") as response:
            assert response.parse() == "line 1\nline 2\n"
        with client.jobs.with_streaming_response.get_log("j1") as response:
            response.write_to_file(tmp_path / "log.txt")
    assert (tmp_path / "log.txt").read_bytes() == b"line 1\nline 2\n"


def test_async_streaming_response_reads_nothing_until_asked(
    calls: ModuleType, tmp_path: Path
) -> None:
    body = Chunks(b"a", b"b")

    async def main() -> list[bytes]:
        async with async_client(calls, body) as client:
            async with client.jobs.with_streaming_response.get_log("j1") as response:
                assert body.read == 0
                chunks = [chunk async for chunk in response.iter_bytes()]
            async with client.jobs.with_streaming_response.get_log("j1") as response:
                assert await response.parse() == "ab"
            async with client.jobs.with_streaming_response.get_log("j1") as response:
                await response.write_to_file(tmp_path / "out.bin")
            return chunks

    assert asyncio.run(main()) == [b"a", b"b"]
    assert (tmp_path / "out.bin").read_bytes() == b"ab"


@pytest.mark.parametrize("mode", MODES)
def test_streaming_error_status_raises_with_the_body(calls: ModuleType, mode: str) -> None:
    rec = Recorder(
        httpx.Response(503, json={"message": "busy"}), httpx.Response(404, json={"message": "gone"})
    )

    def sync_call(c: Any) -> Any:
        with c.jobs.with_streaming_response.get("j1") as response:
            return response.parse()

    async def async_call(c: Any) -> Any:
        async with c.jobs.with_streaming_response.get("j1") as response:
            return await response.parse()

    with pytest.raises(calls.errors.NotFoundError) as caught:
        run(calls, rec, mode, sync_call if mode == "sync" else async_call)
    assert caught.value.body == {"message": "gone"}
    assert len(rec.requests) == 2  # the 503 was retried


USER_CODE = """
from __future__ import annotations

import httpx

from calls_sdk import AsyncClient, Client
from calls_sdk.models import Job, NewJob


def sync_use(client: Client) -> tuple[int, str | None, Job, bytes]:
    patient: Client = client.with_options(timeout=httpx.Timeout(5.0), max_retries=4)
    job: Job = patient.jobs.create(
        body=NewJob(name="n"),
        idempotency_key="k1",
        timeout=3.0,
        max_retries=1,
        extra_headers={"X-A": "1"},
        extra_query={"q": 1},
        extra_body={"b": [1]},
    )
    raw = client.jobs.with_raw_response.get(job.id)
    status: int = raw.status_code
    again: Job = raw.parse()
    with client.jobs.with_streaming_response.get_log(job.id) as streamed:
        data = b"".join(streamed.iter_bytes())
        text: str = streamed.parse()
    return status, raw.request_id, again, data + text.encode()


async def async_use(client: AsyncClient) -> tuple[Job, str]:
    job: Job = await client.with_options(max_retries=0).jobs.get("j1", timeout=1.0)
    raw = await client.jobs.with_raw_response.create(body=NewJob(name="n"))
    created: Job = raw.parse()
    async with client.jobs.with_streaming_response.get_log(job.id) as streamed:
        chunks = [chunk async for chunk in streamed.iter_bytes()]
        text: str = await streamed.parse()
    return created, text + str(chunks)
"""


@pytest.mark.slow
def test_user_code_using_every_option_passes_mypy_strict(
    calls: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert calls.__file__ is not None
    package_root = Path(calls.__file__).parent.parent
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(package_root)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
