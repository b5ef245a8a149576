"""Fast simulated time: a server started with ``time_scale=100`` runs a 100 s stage in
1 s and sends every hint a hundredth as long (body hint, Retry-After), so a generated
SDK exercises its hint schedule over real HTTP in a fraction of a second. The SDK's own
floor is not the server's to change: the client is given a schedule scaled the same way."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from tests.e2e.support import APIS, EPSILON, KEY

SUME = APIS["sume"]
SCALE = 100.0
#: Sume's schedule (floor 2 s, first 2 s, cap 30 s), scaled as the server's time is.
SCALED = {"floor": 2.0 / SCALE, "first": 2.0 / SCALE, "cap": 30.0 / SCALE, "decoding": "strict"}


@pytest.fixture(scope="module")
def fast() -> Iterator[RunningServer]:
    with run_server(SUME.spec, time_scale=SCALE) as server:
        yield server


def _client(sdk: ModuleType, server: RunningServer) -> Any:
    return sdk.Client(base_url=server.base_url, api_key=KEY, wait_config=sdk.WaitConfig(**SCALED))


def _wait(client: Any, job_id: str) -> tuple[Any, list[Any]]:
    events: list[Any] = []
    record = client.jobs.wait_for_job(job_id, deadline=20, on_poll=events.append)
    return record, events


def test_a_100_second_stage_and_20_second_hints_run_a_hundred_times_faster(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    sdk = e2e_sdks["sume"]
    scenario = {"states": [{"state": "processing", "seconds": 100}], "hint": 20, "retry_after": 20}
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
        assert created.headers["retry-after"] == "0.2"
        assert created.json()["data"]["next_poll_after_seconds"] == 0.2
        job_id = created.json()["data"]["id"]
        record, events = _wait(client, job_id)

    assert record.status == "completed"
    # Every read while running chose the scaled hint: 20 s / 100.
    running = events[:-1]
    assert running and [(e.delay, e.source) for e in running] == [(0.2, "retry-after")] * len(
        running
    )
    reads = [r for r in fast.requests(job_id) if r.operation == "status"]
    create = next(r for r in fast.requests(job_id) if r.operation == "create")
    # The stage really lasted 1 s on the server's clock: the last read came after it.
    assert reads[-1].time - create.time >= 100 / SCALE - EPSILON


def test_a_scenario_sets_its_own_time_scale(
    e2e_sdks: dict[str, ModuleType], fast: RunningServer
) -> None:
    """``time_scale`` in the scenario replaces the server's: 1000 runs 30 s in 0.03 s."""
    sdk = e2e_sdks["sume"]
    job_id = fast.create_job(
        {"states": [{"state": "processing", "seconds": 30}], "time_scale": 1000},
        credential=KEY,
    )
    with _client(sdk, fast) as client:
        record, events = _wait(client, job_id)
    assert record.status == "completed"
    # The default body hint is the spec's floor, 2 s, scaled: 0.002 s, raised to the
    # client's floor of 0.02 s.
    assert {(e.delay, e.source) for e in events[:-1]} <= {(0.02, "floor"), (0.02, "hint")}
