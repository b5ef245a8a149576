"""W5 against a real server on loopback: the deadline bounds each whole request (pool
wait, headers, every byte of the body), not each httpx phase, for status reads and for
the result fetch, in both twins."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.waiters.hostile import Behaviour, HostileServer, plain, silent, trickle_all, trickle_body
from tests.waiters.support import SALESFORCE, SUME, Twin

# Trickled answers take ~20 s in full (a terminal record at 0.05 s a byte); every wait
# below has a deadline of 1 s, so a client that waits them out returns a record.
GAP = 0.05
DEADLINE = 1.0

STATUS_FAULTS = {
    "trickled-body": lambda body: trickle_body(body, GAP),
    "trickled-headers": lambda body: trickle_all(body, GAP),
    "silent": lambda body: silent(body, 20.0),
}


def _client(twin: Twin, server: HostileServer, **options: Any) -> Any:
    sdk = twin.sdk(SUME)
    cls = sdk.AsyncClient if twin.is_async else sdk.Client
    return cls(base_url=server.url, api_key="sk-sume-secret", **options)


def _run(twin: Twin, client: Any, call: Callable[[Any], Any]) -> Any:
    if not twin.is_async:
        with client:
            return call(client)

    async def main() -> Any:
        async with client:
            return await call(client)

    return asyncio.run(main())


def _status_then(status: Callable[[str], Behaviour], result: Behaviour | None = None):
    def choose(path: str) -> Behaviour:
        if path.endswith("/result"):
            assert result is not None
            return result
        return status(path.rsplit("/", 1)[-1])

    return choose


@pytest.mark.parametrize("fault", list(STATUS_FAULTS))
def test_a_hostile_status_endpoint_cannot_stretch_the_deadline(twin: Twin, fault: str) -> None:
    make = STATUS_FAULTS[fault]
    choose = _status_then(lambda job_id: make(SUME.record(job_id, "completed")))
    errors = twin.sdk(SUME).errors

    with HostileServer(choose) as server:
        client = _client(twin, server)
        with pytest.raises(errors.JobTimeout) as caught:
            _run(twin, client, lambda c: c.jobs.wait_for_job("job_01", deadline=DEADLINE))

    error = caught.value
    assert error.job_id == "job_01" and "job_01" in str(error)
    assert json.loads(error.resume_token)["job_id"] == "job_01"
    assert error.deadline == DEADLINE
    assert server.paths[0] == "/v1/jobs/job_01"


def test_a_trickled_result_cannot_stretch_the_deadline(twin: Twin) -> None:
    result = {"data": {"job_id": "job_01", "summary": "Short."}}
    choose = _status_then(
        lambda job_id: plain(SUME.record(job_id, "completed")), trickle_body(result, GAP)
    )
    errors = twin.sdk(SUME).errors

    with HostileServer(choose) as server:
        client = _client(twin, server)
        with pytest.raises(errors.APITimeoutError) as caught:
            _run(twin, client, lambda c: c.jobs.wait_for_result("job_01", deadline=DEADLINE))

    assert caught.value.job_id == "job_01" and "job_01" in str(caught.value)
    assert server.paths == ["/v1/jobs/job_01", "/v1/jobs/job_01/result"]


def test_a_wait_queued_behind_a_trickled_read_keeps_its_deadline(twin: Twin) -> None:
    # One connection for two waits: job_02's read waits in the pool while job_01's
    # status trickles in; both waits end on their deadline.
    def status(job_id: str) -> Behaviour:
        return trickle_body(SUME.record(job_id, "completed"), GAP)

    limits = httpx.Limits(max_connections=1)
    cls = httpx.AsyncHTTPTransport if twin.is_async else httpx.HTTPTransport
    errors = twin.sdk(SUME).errors

    with HostileServer(_status_then(status)) as server:
        client = _client(twin, server, transport=cls(limits=limits))

        def call(c: Any) -> Any:
            outcomes = c.jobs.wait_for_jobs(["job_01", "job_02"], deadline=DEADLINE)
            if not twin.is_async:
                return list(outcomes)

            async def collect() -> list[Any]:
                async with outcomes:
                    return [o async for o in outcomes]

            return collect()

        outcomes = _run(twin, client, call)

    assert sorted(o.job_id for o in outcomes) == ["job_01", "job_02"]
    assert all(isinstance(o.error, errors.JobTimeout) for o in outcomes), outcomes


# -- the create is part of the wait (W5, W13) ---------------------------------------------

CREATE_FAULTS = {
    "trickled-body": lambda body: trickle_body(body, GAP),
    "trickled-headers": lambda body: trickle_all(body, GAP),
    "silent": lambda body: silent(body, 20.0),
}


@pytest.mark.parametrize("call", ["create_and_wait", "start"])
@pytest.mark.parametrize("fault", list(CREATE_FAULTS))
def test_a_hostile_create_cannot_stretch_the_deadline(twin: Twin, fault: str, call: str) -> None:
    # A create answered with a terminal record, trickled or late: waited out, the call
    # would return; bounded by the deadline, it raises JobTimeout and sends nothing more.
    flavour = SALESFORCE  # no idempotency key: its create is never sent twice
    answer = CREATE_FAULTS[fault](flavour.record("750xx0000001", "JobComplete"))

    def choose(path: str) -> Behaviour:
        return answer if path == flavour.create_path else plain({"unexpected": path})

    sdk = twin.sdk(flavour)
    cls = sdk.AsyncClient if twin.is_async else sdk.Client
    body = flavour.create_body(sdk)
    with HostileServer(choose) as server:
        client = cls(base_url=server.url, **flavour.credentials)
        with pytest.raises(sdk.errors.JobTimeout) as caught:
            _run(twin, client, lambda c: getattr(c.ingest, call)(body=body, deadline=DEADLINE))

    error = caught.value
    assert server.requests == [("POST", flavour.create_path)], server.requests  # sent once
    assert error.deadline == DEADLINE and error.elapsed >= DEADLINE - 0.05  # it counts
    assert error.job_id == ""  # no answer named the job, which may exist
    assert "create" in str(error) and "no complete answer" in str(error)
    assert isinstance(error.__cause__, sdk.errors.APITimeoutError)
