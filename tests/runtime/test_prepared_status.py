"""`prepare_status`: a wait asks for its status read once and sends it on every poll;
a status read that fails and is retried (W6) goes through the same prepared read."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from jobgen.runtime.http.statuses import status_error_for
from jobgen.runtime.shared.errors import APIConnectionError
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter, WaitConfig

from .fakes import DEMO, FakeClock, job


class Prepared:
    """Counts the waits that prepared a read and the reads each one sent."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.prepared: list[tuple[str, dict[str, object]]] = []
        self.timeouts: list[float] = []

    def __call__(self, job_id: str, **carried: object) -> Any:
        self.prepared.append((job_id, carried))

        def read(timeout: float) -> httpx.Response:
            self.timeouts.append(timeout)
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer

        return read

    def async_version(self) -> Any:
        def prepare(job_id: str, **carried: object) -> Any:
            read = self(job_id, **carried)

            async def aread(timeout: float) -> httpx.Response:
                return read(timeout)

            return aread

        return prepare


def _answers() -> list[httpx.Response | Exception]:
    lost = httpx.ConnectError("connection reset")
    return [job("running"), httpx.Response(503), lost, job("running"), job("succeeded")]


def _config(clock: FakeClock) -> WaitConfig:
    return WaitConfig(
        clock=clock.monotonic, sleep=clock.sleep, async_sleep=clock.async_sleep, rng=lambda: 0.5
    )


def test_a_sync_wait_prepares_its_status_read_once() -> None:
    clock = FakeClock()
    prepared = Prepared(*_as_sdk_errors(_answers()))
    waiter = SyncJobWaiter(
        DEMO, prepare_status=prepared, decode_record=lambda raw: raw, config=_config(clock)
    )
    assert waiter.wait_for_job("job_1", deadline=60)["status"] == "succeeded"
    assert prepared.prepared == [("job_1", {})]
    assert len(prepared.timeouts) == 5
    assert prepared.timeouts == sorted(prepared.timeouts, reverse=True)


def test_an_async_wait_prepares_its_status_read_once() -> None:
    clock = FakeClock()
    prepared = Prepared(*_as_sdk_errors(_answers()))
    waiter = AsyncJobWaiter(
        DEMO,
        prepare_status=prepared.async_version(),
        decode_record=lambda raw: raw,
        config=_config(clock),
    )
    record = asyncio.run(waiter.wait_for_job("job_1", deadline=60))
    assert record["status"] == "succeeded"
    assert prepared.prepared == [("job_1", {})]
    assert len(prepared.timeouts) == 5


@pytest.mark.parametrize("given", [{}, {"read_status": object(), "prepare_status": object()}])
def test_a_waiter_reads_the_status_one_way(given: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="exactly one of read_status and prepare_status"):
        SyncJobWaiter(DEMO, decode_record=lambda raw: raw, **given)


def _as_sdk_errors(answers: list[httpx.Response | Exception]) -> list[httpx.Response | Exception]:
    """A 503 as the HTTP layer raises it, a lost connection as its APIConnectionError."""
    request = httpx.Request("GET", "https://api.example.com/jobs/job_1")
    out: list[httpx.Response | Exception] = []
    for answer in answers:
        if isinstance(answer, httpx.Response) and answer.status_code >= 400:
            answer.request = request
            out.append(status_error_for(answer))
        elif isinstance(answer, Exception):
            out.append(APIConnectionError("lost", request=request))
        else:
            out.append(answer)
    return out
