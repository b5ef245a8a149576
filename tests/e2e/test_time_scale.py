"""Fast simulated time: a server started with ``time_scale=100`` runs a 100 s stage in
1 s, and sends its hints as the spec allows them (Sume's body hint never below its
``minimum: 2``), so every answer stays valid. The SDK under test is told the scale
(``ScaledTime``): its clock runs a hundred times faster and its sleeps are a hundred
times shorter, so it keeps its production schedule (hints, floor, deadline) in a
hundredth of the real time."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, ScaledTime, run_server
from tests.e2e.support import APIS, EPSILON, KEY

SUME = APIS["sume"]
SCALE = 100.0


@pytest.fixture(scope="module")
def fast() -> Iterator[RunningServer]:
    with run_server(SUME.spec, time_scale=SCALE, self_check="strict") as server:
        yield server


def _client(sdk: ModuleType, server: RunningServer) -> Any:
    scaled = ScaledTime(SCALE)
    return sdk.Client(
        base_url=server.base_url,
        api_key=KEY,
        wait_config=sdk.WaitConfig(**scaled.wait_config(), decoding="strict"),
    )


def _wait(client: Any, job_id: str, deadline: float = 600) -> tuple[Any, list[Any]]:
    events: list[Any] = []
    record = client.jobs.wait_for_job(job_id, deadline=deadline, on_poll=events.append)
    return record, events


def test_a_100_second_stage_with_20_second_hints_runs_in_about_a_second(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    sdk = e2e_sdks["sume"]
    scenario = {"states": [{"state": "processing", "seconds": 100}], "hint": 20, "retry_after": 20}
    started = time.monotonic()
    with (
        _client(sdk, fast) as client,
        httpx.Client(base_url=fast.base_url, headers={"x-api-key": KEY}) as http,
    ):
        created = http.post(
            "/v1/jobs",
            json=dict(SUME.body),
            headers={"x-jobgen-scenario": json.dumps(scenario)},
        )
        assert created.status_code == 202
        # The hints are the spec's values, not scaled down.
        assert created.headers["retry-after"] == "20"
        assert created.json()["data"]["next_poll_after_seconds"] == 20
        job_id = created.json()["data"]["id"]
        record, events = _wait(client, job_id)
    took = time.monotonic() - started

    assert record.status == "completed"
    # The SDK waited the production hint, 20 s, as it counts time...
    running = events[:-1]
    assert running and {(e.delay, e.source) for e in running} == {(20.0, "retry-after")}
    reads = [r for r in fast.requests(job_id) if r.operation == "status"]
    create = next(r for r in fast.requests(job_id) if r.operation == "create")
    # ...which is 0.2 s of real time: the 100 s stage ended after about 5 reads.
    assert reads[-1].time - create.time >= 100 / SCALE - EPSILON
    assert len(reads) <= 7 and took < 30
    assert fast.self_check.count == 0


def test_the_default_hint_keeps_the_specs_minimum_under_a_time_scale(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    """Sume's ``next_poll_after_seconds`` has ``minimum: 2``: the default hint (the
    spec's floor) is 2 at any time scale, and the SDK waits 2 of its seconds."""
    sdk = e2e_sdks["sume"]
    job_id = fast.create_job({"states": [{"state": "processing", "seconds": 100}]}, credential=KEY)
    with httpx.Client(base_url=fast.base_url, headers={"x-api-key": KEY}) as http:
        first = http.get(f"/v1/jobs/{job_id}")
    assert first.json()["data"]["next_poll_after_seconds"] == 2
    with _client(sdk, fast) as client:
        record, events = _wait(client, job_id)
    assert record.status == "completed"
    assert events[:-1] and {(e.delay, e.source) for e in events[:-1]} == {(2.0, "hint")}
    assert fast.self_check.count == 0


def test_a_scenario_sets_its_own_time_scale(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    """``time_scale`` in the scenario replaces the server's: 1000 runs 30 s in 0.03 s,
    and an SDK told 100 sees it end after its first 2 s hint."""
    sdk = e2e_sdks["sume"]
    job_id = fast.create_job(
        {"states": [{"state": "processing", "seconds": 30}], "time_scale": 1000},
        credential=KEY,
    )
    with _client(sdk, fast) as client:
        record, events = _wait(client, job_id)
    assert record.status == "completed"
    assert len(events) <= 3


def test_the_async_client_keeps_the_same_schedule(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    sdk = e2e_sdks["sume"]
    scaled = ScaledTime(SCALE)
    job_id = fast.create_job(
        {"states": [{"state": "processing", "seconds": 100}], "hint": 4}, credential=KEY
    )
    events: list[Any] = []

    async def main() -> Any:
        async with sdk.AsyncClient(
            base_url=fast.base_url,
            api_key=KEY,
            wait_config=sdk.WaitConfig(**scaled.wait_config(), decoding="strict"),
        ) as client:
            return await client.jobs.wait_for_job(job_id, deadline=600, on_poll=events.append)

    record = asyncio.run(main())
    assert record.status == "completed"
    assert events[:-1] and {(e.delay, e.source) for e in events[:-1]} == {(4.0, "hint")}


def test_the_run_server_recipe_waits_for_a_result(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    """docs/serve.md's run_server example: Sume's 2 s hints, a result two reads late."""
    sdk = e2e_sdks["sume"]
    started = time.monotonic()
    with _client(sdk, fast) as client:
        job_id = fast.create_job({"result_delay_polls": 2}, credential=KEY)
        result = client.jobs.wait_for_result(job_id, deadline=600)
    assert result.data.job_id == job_id
    assert time.monotonic() - started < 10
    assert fast.self_check.count == 0
