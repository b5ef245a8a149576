"""Jobs polled at the operation URL the server returned, over real HTTP.

Azure-style operations (``Operation-Location`` with ``api-version``; the succeeded
status record is the result) and the asynchronous request-reply pattern (202 +
``Location`` of a monitor; 202 while running, 303 See Other to the export when done,
404 once expired, an error body without a state when failed), each with ``Client``
and ``AsyncClient``: ``create_and_wait``, ``wait_for_result``, the handle and its
resume token, server hints, and hosts the client must not send credentials to.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer
from tests.e2e.support import APIS, E2E, scenario_header

URL_APIS = sorted(name for name, api in APIS.items() if api.operation_url)
START = {"azure_operations": "start_analysis_job", "async_request_reply": "start"}


@pytest.fixture(params=URL_APIS)
def e2e(
    request: pytest.FixtureRequest,
    mode: str,
    e2e_sdks: dict[str, ModuleType],
    e2e_servers: dict[str, RunningServer],
) -> Iterator[E2E]:
    name = str(request.param)
    server = e2e_servers[name]
    server.reset()
    yield E2E(APIS[name], e2e_sdks[name], server, mode)


def _status_query(e2e: E2E) -> str:
    assert e2e.api.operation_url is not None
    return e2e.api.operation_url.partition("?")[2]


def _create_and_wait(e2e: E2E, scenario: dict[str, Any], **options: Any) -> Any:
    def call(jobs: Any) -> Any:
        headers = scenario_header(e2e.api.scenario(**scenario))
        return jobs.create_and_wait(body=e2e.body(), extra_headers=headers, deadline=10, **options)

    return call


def _only_job(e2e: E2E) -> str:
    (create,) = e2e.creates()
    assert create.job_id is not None
    return create.job_id


def _assert_result(e2e: E2E, result: Any, sim_id: str) -> None:
    assert type(result).__name__ == e2e.api.result_type
    polls = e2e.polls(sim_id)
    assert polls and all(p.query == _status_query(e2e) for p in polls)
    if e2e.api.name == "async_request_reply":
        # 202 while running, then 303 See Other: the export is fetched once, at its Location.
        assert [p.status for p in polls] == [202, 202, 303]
        (fetch,) = e2e.results(sim_id)
        assert fetch.status == 200 and fetch.time > polls[-1].time
    else:
        # The succeeded operation is the result: nothing else is fetched.
        assert [p.status for p in polls] == [200, 200, 200]
        assert e2e.state(result) == "Succeeded" and result.result is not None
        assert e2e.results(sim_id) == []


def test_create_and_wait_polls_the_operation_url_and_returns_the_result(e2e: E2E) -> None:
    result = e2e.run(_create_and_wait(e2e, {"states": e2e.api.stages(2)}))

    _assert_result(e2e, result, _only_job(e2e))


def test_wait_for_result_takes_the_operation_url(e2e: E2E) -> None:
    url = e2e.job({"states": e2e.api.stages(2)})
    events: list[Any] = []

    result = e2e.run(lambda jobs: jobs.wait_for_result(url, deadline=10, on_poll=events.append))

    _assert_result(e2e, result, e2e.sim_id(url))
    # Events name the job by its URL as given, query included (accepted back as an id);
    # their repr shows it without the query string.
    assert {e.job_id for e in events} == {url}
    bare, _, query = url.partition("?")
    assert all(bare in repr(e) and (not query or query not in repr(e)) for e in events)
    assert events[-1].state == e2e.api.success


def _handle_flow(e2e: E2E) -> Any:
    """Start a job, poll its handle until done; returns (decisions, token, result)."""
    start = START[e2e.api.name]
    headers = scenario_header(e2e.api.scenario(states=e2e.api.stages(2)))

    def sync(jobs: Any) -> Any:
        handle = getattr(jobs, start)(body=e2e.body(), extra_headers=headers)
        decisions = [handle.poll()]
        while not decisions[-1].done:
            time.sleep(decisions[-1].delay)
            decisions.append(handle.poll())
        return decisions, handle.resume_token, handle.result()

    async def run_async(jobs: Any) -> Any:
        handle = await getattr(jobs, start)(body=e2e.body(), extra_headers=headers)
        decisions = [await handle.poll()]
        while not decisions[-1].done:
            await asyncio.sleep(decisions[-1].delay)
            decisions.append(await handle.poll())
        return decisions, handle.resume_token, await handle.result()

    return e2e.run(run_async if e2e.is_async else sync)


def test_the_handle_polls_the_operation_url_and_its_token_carries_it(e2e: E2E) -> None:
    decisions, token, result = _handle_flow(e2e)

    sim_id = _only_job(e2e)
    # the first decision is the create answer's (W7), made without a request
    assert [d.done for d in decisions] == [False] * (len(decisions) - 1) + [True]
    polled = len(e2e.polls(sim_id))
    assert polled == len(decisions) - 1 >= 2
    assert decisions[-1].outcome == "success"
    _assert_result(e2e, result, sim_id)
    data = json.loads(token)
    assert data["url"].startswith(e2e.server.base_url)
    assert httpx.URL(data["url"]).query.decode() == _status_query(e2e)
    assert data["job_id"] == data["url"].split("?")[0]
    assert e2e.sim_id(data["url"]) == sim_id

    # Another process continues from the token alone: the job is read at its URL again.
    def resumed(jobs: Any) -> Any:
        return jobs.handle(resume=token).result(deadline=10)

    again = e2e.run(resumed)
    assert type(again).__name__ == e2e.api.result_type
    assert len(e2e.polls(sim_id)) == polled + 1


def test_a_timeout_carries_the_url_and_a_resumed_wait_polls_it(e2e: E2E) -> None:
    url = e2e.job({"states": e2e.api.stages(1000), "retry_after": 0.05})
    errors = e2e.sdk.errors

    with pytest.raises(errors.JobTimeout) as timed_out:
        e2e.run(lambda jobs: jobs.wait_for_job(url, deadline=0.2))

    assert timed_out.value.job_id == url
    assert url.split("?")[0] in str(timed_out.value)
    token = json.loads(timed_out.value.resume_token)
    assert token["url"] == url
    before = len(e2e.polls(url))
    with pytest.raises(errors.JobTimeout):
        e2e.run(lambda jobs: jobs.wait_for_job(resume=timed_out.value.resume_token, deadline=0.2))
    assert len(e2e.polls(url)) > before
    assert all(p.query == _status_query(e2e) for p in e2e.polls(url))


def test_retry_after_of_each_status_answer_is_honoured(e2e: E2E) -> None:
    url = e2e.job({"states": e2e.api.stages(2), "retry_after": 0.05})
    events: list[Any] = []

    e2e.run(lambda jobs: jobs.wait_for_job(url, deadline=10, on_poll=events.append))

    assert [(e.delay, e.source) for e in events] == [
        (0.05, "retry-after"),
        (0.05, "retry-after"),
        (None, None),
    ]


def test_another_host_in_the_operation_url_is_refused(e2e: E2E) -> None:
    scenario = {"states": e2e.api.stages(1), "operation_host": "localhost"}

    with pytest.raises(e2e.sdk.errors.OperationUrlRefused) as refused:
        e2e.run(_create_and_wait(e2e, scenario))

    message = str(refused.value)
    port = httpx.URL(e2e.server.base_url).port
    assert f"http://localhost:{port}/" in message
    assert "operation_hosts" in message and "api-version" not in message
    assert e2e.polls(_only_job(e2e)) == []  # nothing, credentials least, went there


def test_an_allowed_status_host_is_followed(e2e: E2E) -> None:
    scenario = {"states": e2e.api.stages(2), "operation_host": "localhost"}
    port = httpx.URL(e2e.server.base_url).port
    allowed = {"operation_hosts": [f"http://localhost:{port}"]}

    result = e2e.run(_create_and_wait(e2e, scenario), client_options=allowed)

    sim_id = _only_job(e2e)
    _assert_result(e2e, result, sim_id)
    hosts = {r.headers.get("host") for r in [*e2e.polls(sim_id), *e2e.results(sim_id)]}
    assert hosts == {f"localhost:{port}"}


# -- the request-reply flow's own states: a 404 once expired, an error body ---------------


@pytest.fixture
def reply(mode: str, e2e_sdks: dict[str, ModuleType], e2e_servers: dict[str, RunningServer]) -> E2E:
    """The request-reply API alone (the Azure-style monitor has no such answers)."""
    server = e2e_servers["async_request_reply"]
    server.reset()
    return E2E(APIS["async_request_reply"], e2e_sdks["async_request_reply"], server, mode)


def test_a_404_declared_as_expired_ends_the_wait_as_failed(reply: E2E) -> None:
    e2e = reply
    url = e2e.job({"states": e2e.api.stages(1), "final": "Expired"})

    with pytest.raises(e2e.sdk.errors.JobFailed) as failed:
        e2e.run(lambda jobs: jobs.wait_for_result(url, deadline=10))
    record = e2e.run(lambda jobs: jobs.wait_for_job(url, deadline=10))

    assert failed.value.last_state == "Expired"
    assert failed.value.job_id == url
    assert [p.status for p in e2e.polls(url)] == [202, 404, 404]
    assert e2e.results(url) == []
    assert record.error.code == "job_gone"  # the 404's error body, kept as a record


def test_an_error_body_without_a_state_is_a_failure(reply: E2E) -> None:
    e2e = reply
    url = e2e.job({"states": e2e.api.stages(1), "final": "Failed"})

    with pytest.raises(e2e.sdk.errors.JobFailed) as failed:
        e2e.run(lambda jobs: jobs.wait_for_result(url, deadline=10))

    assert failed.value.last_state == "Failed"
    assert failed.value.error is not None and failed.value.error.code == "simulated"
    assert failed.value.error.message  # made whole: ErrorDetail requires a message
    # The monitor's own status (the spec declares no 200 for it), with no state field.
    assert [p.status for p in e2e.polls(url)] == [202, 202]
