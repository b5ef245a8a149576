"""Plain operations against `jobgen serve`: a create is retried with one idempotency key
(chosen by the SDK) where the API takes one, never otherwise; raw and streaming variants."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from tests.e2e.support import E2E, scenario_header

CREATE = {
    "sume": "create",
    "stripe_report_runs": "post_report_runs",
    "azure_operations": "start",
    "salesforce_bulk": "create_job",
    "async_request_reply": "create",
}


def _create(e2e: E2E, resource: Any, scenario: dict[str, Any], variant: str = "") -> Any:
    owner = getattr(resource, variant) if variant else resource
    return getattr(owner, CREATE[e2e.api.name])(
        body=e2e.body(), extra_headers=scenario_header(scenario)
    )


def test_a_plain_create_is_retried_only_with_an_idempotency_key(e2e: E2E) -> None:
    api = e2e.api
    scenario = api.scenario(
        states=api.stages(1), create_errors=[{"attempt": 1, "status": 503, "retry_after": 0}]
    )
    if api.idempotency_header is None:
        with pytest.raises(e2e.sdk.InternalServerError):
            e2e.run(lambda jobs: _create(e2e, jobs, scenario))
        (create,) = e2e.creates()
        assert create.idempotency_key is None
        return

    e2e.run(lambda jobs: _create(e2e, jobs, scenario))

    first, second = e2e.creates()
    assert (first.status, second.status < 300) == (503, True)
    assert first.idempotency_key and second.idempotency_key == first.idempotency_key
    assert len(e2e.server.app.store.jobs) == 1


def test_raw_and_streaming_responses_of_a_read(e2e: E2E) -> None:
    api = e2e.api
    job_id = e2e.job({"states": []})  # finished: every read answers the same bytes
    status = next(
        name
        for name in ("get", "get_report_runs_report_run", "get_operation_status", "get_job_info")
        if hasattr(getattr(e2e.sdk.Client(**{api.auth: "k"}), api.resource), name)
    )

    async def read_async(jobs: Any) -> tuple[Any, Any, bytes]:
        raw = await getattr(jobs.with_raw_response, status)(job_id)
        async with getattr(jobs.with_streaming_response, status)(job_id) as streamed:
            body = b"".join([chunk async for chunk in streamed.iter_bytes()])
        return raw, raw.parse(), body

    def read_sync(jobs: Any) -> tuple[Any, Any, bytes]:
        raw = getattr(jobs.with_raw_response, status)(job_id)
        with getattr(jobs.with_streaming_response, status)(job_id) as streamed:
            body = b"".join(streamed.iter_bytes())
        return raw, raw.parse(), body

    raw, parsed, body = e2e.run(read_async if e2e.is_async else read_sync)
    assert raw.status_code == 200
    assert raw.headers["content-type"].startswith("application/json")
    assert body == raw.content
    plain = e2e.run(lambda jobs: getattr(jobs, status)(job_id))
    assert type(parsed) is type(plain)
    assert not inspect.isawaitable(parsed)
