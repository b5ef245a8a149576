"""Carried values (a key returned at creation, sent with every later call) and one-shot
results (fetched exactly once), tested on the runtime directly: sync and async twins."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from jobgen.runtime.http.download import ONCE_ATTEMPTS, async_fetch_once, download, fetch_once
from jobgen.runtime.http.statuses import status_error_for
from jobgen.runtime.shared.errors import (
    APIConnectionError,
    InvalidResumeToken,
    JobTimeout,
    MissingJobId,
)
from jobgen.runtime.waiting.carry import CarriedValue, Carry, check_carried
from jobgen.runtime.waiting.handle import AsyncJobHandle, JobHandle
from jobgen.runtime.waiting.resume import ResumeToken, decode_resume_token, encode_resume_token
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter

from .fakes import DEMO, REQUEST, FakeClock, job, response

KEY = Carry((CarriedValue("document_key", path=("document_key",)),))
REGION = Carry(
    (CarriedValue("region", header="x-region"), CarriedValue("n", header="x-n", kind=int))
)
KEYED = attrs.evolve(
    DEMO,
    id_path=("id",),
    carry=KEY,
    result_once=True,
)


class Endpoint:
    """Status and result endpoints recording the carried values of every call."""

    def __init__(self, states: list[str]) -> None:
        self.states = states
        self.reads: list[dict[str, object]] = []
        self.fetches: list[dict[str, object]] = []
        self.cancels: list[dict[str, object]] = []

    def read(self, job_id: str, timeout: float, **carried: object) -> httpx.Response:
        self.reads.append({"job_id": job_id, **carried})
        return job(self.states[min(len(self.reads), len(self.states)) - 1])

    def fetch(self, job_id: str, time_left: float, to_file: Any = None, **carried: object) -> bytes:
        self.fetches.append({"job_id": job_id, **carried})
        return download(to_file, _sent(b"\x89doc")).content

    def cancel(self, job_id: str, time_left: float, **carried: object) -> None:
        self.cancels.append({"job_id": job_id, **carried})


def _sent(body: bytes) -> Any:
    """A `download` sender answering `body`, written to the sink when there is one."""

    def send(sink: Any) -> httpx.Response:
        if sink is None:
            return httpx.Response(200, content=body, request=REQUEST)
        sink.start()
        sink.write(body[:1])
        sink.write(body[1:])
        return httpx.Response(200, request=REQUEST)

    return send


def _waiter(mode: str, endpoint: Endpoint, clock: FakeClock) -> Any:
    if mode == "sync":
        return SyncJobWaiter(
            KEYED, read_status=endpoint.read, decode_record=lambda r: r,
            fetch_result=endpoint.fetch, cancel=endpoint.cancel, config=clock.config(),
        )  # fmt: skip

    async def aread(job_id: str, timeout: float, **carried: object) -> httpx.Response:
        return endpoint.read(job_id, timeout, **carried)

    async def afetch(
        job_id: str, time_left: float, to_file: Any = None, **carried: object
    ) -> bytes:
        return endpoint.fetch(job_id, time_left, to_file, **carried)

    async def acancel(job_id: str, time_left: float, **carried: object) -> None:
        endpoint.cancel(job_id, time_left, **carried)

    return AsyncJobWaiter(
        KEYED, read_status=aread, decode_record=lambda r: r, fetch_result=afetch,
        cancel=acancel, config=clock.config(),
    )  # fmt: skip


def _call(mode: str, outcome: Any) -> Any:
    return asyncio.run(outcome) if mode == "async" else outcome


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_call_of_a_wait_sends_the_carried_values(mode: str, tmp_path: Path) -> None:
    endpoint = Endpoint(["running", "running", "succeeded"])
    waiter = _waiter(mode, endpoint, FakeClock())
    target = tmp_path / "out.bin"

    result = _call(
        mode,
        waiter.wait_for_result("d1", carried={"document_key": "K"}, to_file=target),
    )

    assert result == b"\x89doc" and target.read_bytes() == b"\x89doc"
    assert endpoint.reads == [{"job_id": "d1", "document_key": "K"}] * 3
    assert endpoint.fetches == [{"job_id": "d1", "document_key": "K"}]
    _call(mode, waiter.cancel("d1", carried={"document_key": "K"}))
    assert endpoint.cancels == [{"job_id": "d1", "document_key": "K"}]


def test_create_and_wait_reads_the_values_from_the_create_response(mode: str) -> None:
    endpoint = Endpoint(["succeeded"])
    waiter = _waiter(mode, endpoint, FakeClock())
    created = response(200, {"id": "d7", "document_key": "S3CRET"})

    def create(key: str | None, time_left: float | None) -> httpx.Response:
        return created

    async def acreate(key: str | None, time_left: float | None) -> httpx.Response:
        return created

    _call(mode, waiter.create_and_wait(acreate if mode == "async" else create))

    assert endpoint.reads == [{"job_id": "d7", "document_key": "S3CRET"}]
    assert endpoint.fetches == [{"job_id": "d7", "document_key": "S3CRET"}]


@pytest.mark.parametrize(
    ("carried", "message"),
    [
        (None, "document_key is required"),
        ({"document_key": None}, "document_key is required"),
        ({"document_key": 5}, "document_key must be a str, got int"),
        ({"document_key": "K", "other": 1}, "unexpected carried value 'other'"),
    ],
)
def test_missing_wrong_or_unknown_values_are_refused_before_any_request(
    mode: str, carried: Any, message: str
) -> None:
    endpoint = Endpoint(["running"])
    waiter = _waiter(mode, endpoint, FakeClock())

    with pytest.raises(ValueError, match=message):
        _call(mode, waiter.wait_for_job("d1", carried=carried))

    assert endpoint.reads == []


def test_a_timed_out_wait_token_keeps_the_values_and_resumes_with_them(mode: str) -> None:
    endpoint = Endpoint(["running", "running", "running", "succeeded"])
    clock = FakeClock()
    waiter = _waiter(mode, endpoint, clock)

    with pytest.raises(JobTimeout) as caught:
        _call(mode, waiter.wait_for_job("d1", deadline=1.5, carried={"document_key": "K"}))
    token = caught.value.resume_token
    assert json.loads(token)["carried"] == {"document_key": "K"}

    record = _call(mode, waiter.wait_for_job(resume=token, deadline=600))

    assert record["status"] == "succeeded"
    assert {r["document_key"] for r in endpoint.reads} == {"K"}


def test_a_handle_keeps_the_values_in_its_token(mode: str) -> None:
    endpoint = Endpoint(["running", "succeeded"])
    waiter = _waiter(mode, endpoint, FakeClock())
    cls = AsyncJobHandle if mode == "async" else JobHandle

    handle = cls(waiter, "d1", carried={"document_key": "K"})
    assert not _call(mode, handle.poll()).done
    resumed = cls(waiter, resume=handle.resume_token)
    assert resumed.carried == {"document_key": "K"}
    assert _call(mode, resumed.result()) == b"\x89doc"
    assert endpoint.fetches == [{"job_id": "d1", "document_key": "K"}]
    with pytest.raises(ValueError, match="document_key is required"):
        cls(waiter, "d2")


def test_values_come_from_the_body_or_headers_and_are_typed() -> None:
    ok = httpx.Response(200, json={}, headers={"x-region": "eu", "x-n": "42"}, request=REQUEST)
    assert REGION.read(ok, "job") == {"region": "eu", "n": 42}
    bad = httpx.Response(200, json={}, headers={"x-region": "eu", "x-n": "many"}, request=REQUEST)
    with pytest.raises(MissingJobId, match="cannot find the new job job's n: no x-n header"):
        REGION.read(bad, "job")
    with pytest.raises(MissingJobId, match="nothing at /document_key"):
        KEY.read(response(200, {"id": "d"}), "document")
    assert check_carried((), None) == {}


def test_resume_tokens_carry_values_and_refuse_malformed_ones() -> None:
    token = encode_resume_token(ResumeToken("j", 10.0, 2, "job", {"k": "v", "n": 1}))
    assert decode_resume_token(token).carried == {"k": "v", "n": 1}
    plain = encode_resume_token(ResumeToken("j", 10.0, 2, "job"))
    assert "carried" not in json.loads(plain)  # tokens of unkeyed jobs are unchanged
    broken = json.dumps({**json.loads(token), "carried": {"k": {"nested": 1}}})
    with pytest.raises(InvalidResumeToken, match="carried values"):
        decode_resume_token(broken)


# -- one-shot results --------------------------------------------------------------------


def _connect_error(exc: type[httpx.TransportError]) -> APIConnectionError:
    error = APIConnectionError("failed", request=REQUEST)
    error.__cause__ = exc("boom", request=REQUEST)
    return error


class Sender:
    def __init__(self, steps: list[Any]) -> None:
        self.steps = steps
        self.sent: list[float] = []

    def __call__(self, time_left: float) -> httpx.Response:
        self.sent.append(time_left)
        step = self.steps[min(len(self.sent), len(self.steps)) - 1]
        if isinstance(step, BaseException):
            raise step
        return step

    async def asend(self, time_left: float) -> httpx.Response:
        return self(time_left)


def _fetch_once(mode: str, sender: Sender, clock: FakeClock, time_left: float = 30) -> Any:
    if mode == "sync":
        return fetch_once(sender, time_left, clock.monotonic, clock.sleep)
    return asyncio.run(
        async_fetch_once(sender.asend, time_left, clock.monotonic, clock.async_sleep)
    )


@pytest.mark.parametrize(
    "failure",
    [
        _connect_error(httpx.ReadError),
        _connect_error(httpx.ReadTimeout),
        _connect_error(httpx.RemoteProtocolError),
        APIConnectionError("reset", request=REQUEST),
        status_error_for(httpx.Response(503, request=REQUEST)),
        status_error_for(httpx.Response(429, headers={"retry-after": "1"}, request=REQUEST)),
    ],
    ids=["read-error", "read-timeout", "protocol", "no-cause", "503", "429"],
)
def test_a_one_shot_fetch_the_server_may_have_received_is_never_sent_again(
    mode: str, failure: Exception
) -> None:
    sender = Sender([failure, httpx.Response(200, content=b"doc", request=REQUEST)])
    clock = FakeClock()

    with pytest.raises(type(failure)):
        _fetch_once(mode, sender, clock)

    assert len(sender.sent) == 1 and clock.sleeps == []


@pytest.mark.parametrize("cause", [httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout])
def test_a_one_shot_fetch_whose_connection_never_opened_is_tried_again(
    mode: str, cause: type[httpx.TransportError]
) -> None:
    ok = httpx.Response(200, content=b"doc", request=REQUEST)
    sender = Sender([_connect_error(cause), _connect_error(cause), ok])
    clock = FakeClock()

    assert _fetch_once(mode, sender, clock).content == b"doc"
    assert len(sender.sent) == ONCE_ATTEMPTS and clock.sleeps == [0.1, 0.2]
    assert sender.sent[0] == 30 and sender.sent[2] == pytest.approx(30 - 0.3)


def test_a_one_shot_fetch_gives_up_after_its_attempts_or_its_time(mode: str) -> None:
    sender = Sender([_connect_error(httpx.ConnectError)])
    with pytest.raises(APIConnectionError):
        _fetch_once(mode, sender, FakeClock())
    assert len(sender.sent) == ONCE_ATTEMPTS

    sender = Sender([_connect_error(httpx.ConnectError)])
    with pytest.raises(APIConnectionError):
        _fetch_once(mode, sender, FakeClock(), time_left=0.05)
    assert len(sender.sent) == 1  # no time left for a pause


def test_download_replaces_the_target_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "doc.pdf"
    target.write_bytes(b"old")
    assert download(target, _sent(b"\x00new")).content == b"\x00new"
    assert target.read_bytes() == b"\x00new"

    def retried(sink: Any) -> httpx.Response:  # a retry's body replaces the first's
        sink.start()
        sink.write(b"partial, then a reset")
        return _sent(b"whole")(sink)

    assert download(str(target), retried).content == b"whole"
    assert target.read_bytes() == b"whole"

    def failing(sink: Any) -> httpx.Response:
        sink.start()
        sink.write(b"half")
        raise APIConnectionError("reset", request=REQUEST)

    with pytest.raises(APIConnectionError):
        download(target, failing)
    assert target.read_bytes() == b"whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.pdf"]


def test_a_token_stored_without_its_values_resumes_with_them_given_again(mode: str) -> None:
    """docs/fleet.md: drop `carried` from a token's JSON, pass the values on resuming."""
    endpoint = Endpoint(["running", "succeeded"])
    waiter = _waiter(mode, endpoint, FakeClock())
    cls = AsyncJobHandle if mode == "async" else JobHandle

    handle = cls(waiter, "d1", carried={"document_key": "K"})
    assert not _call(mode, handle.poll()).done
    stored = json.loads(handle.resume_token)
    del stored["carried"]
    with pytest.raises(ValueError, match="document_key is required"):
        cls(waiter, resume=json.dumps(stored))
    resumed = cls(waiter, resume=json.dumps(stored), carried={"document_key": "K"})
    assert _call(mode, resumed.result()) == b"\x89doc"
    assert {r["document_key"] for r in endpoint.reads} == {"K"}


def test_a_deeply_nested_token_is_invalid() -> None:
    with pytest.raises(InvalidResumeToken, match="nested too deeply"):
        decode_resume_token("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("value", ["K\r\nX-Injected: 1", "K\n", "K\0"])
def test_a_carried_value_no_request_can_carry_is_refused_at_once(mode: str, value: str) -> None:
    endpoint = Endpoint(["running", "succeeded"])
    waiter = _waiter(mode, endpoint, FakeClock())

    with pytest.raises(ValueError, match="document_key holds a line break or NUL"):
        _call(mode, waiter.wait_for_job("d1", carried={"document_key": value}))

    assert endpoint.reads == []
    created = response(200, {"document_id": "d", "document_key": value})
    with pytest.raises(MissingJobId, match="a line break or NUL in its value"):
        KEY.read(created, "document")


FILE = Carry(
    (
        CarriedValue("document_key", path=("document_key",)),
        CarriedValue("file_id", path=("output",), record=True, failure_path=("errors_file",)),
    )
)


def test_a_value_of_the_record_is_not_the_callers_nor_the_create_answers() -> None:
    """A record value is read once the job ended: callers and create answers lack it."""
    assert FILE.check({"document_key": "k"}) == {"document_key": "k"}
    with pytest.raises(ValueError, match="unexpected carried value 'file_id'"):
        FILE.check({"document_key": "k", "file_id": "f"})
    created = response(200, {"document_key": "k"})
    assert FILE.read(created, "job") == {"document_key": "k"}


def test_values_of_the_terminal_record() -> None:
    record = {"output": "file-out", "errors_file": "file-err"}
    assert FILE.from_record(record, "j1") == {"file_id": "file-out"}
    assert FILE.from_record(record, "j1", failed=True) == {"file_id": "file-err"}
    # A failed record without the value: no failure download.
    assert FILE.from_record({"output": "file-out"}, "j1", failed=True) is None
    # A succeeded record without it: the error names the job and the value.
    with pytest.raises(MissingJobId, match="job j1 succeeded, but its record has no file_id"):
        FILE.from_record({"output": None}, "j1")
    # Without a failure_path there is no failure download at all.
    plain = Carry((CarriedValue("file_id", path=("output",), record=True),))
    assert plain.from_record(record, "j1", failed=True) is None
