"""Generated SDKs against the simulated API: records decode, faults reach the waiter as designed."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer, run_server
from tests.helpers import SPECS, imported_sdk

pytestmark = pytest.mark.slow


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture(scope="module")
def sume(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, RunningServer]]:
    out = tmp_path_factory.mktemp("sdk")
    with (
        imported_sdk(SPECS / "sume.yaml", out, "sume_e2e_sdk") as sdk,
        run_server(SPECS / "sume.yaml") as server,
    ):
        yield sdk, server


def _client(
    sdk: ModuleType, server: RunningServer, auth: dict[str, str], *, asynchronous: bool = False
) -> Any:
    """A client of the generated SDK on ``server`` whose waits do not really sleep."""
    config = sdk.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep)
    cls = sdk.AsyncClient if asynchronous else sdk.Client
    return cls(base_url=server.base_url, wait_config=config, **auth)


def test_sume_waits_decode_every_answer(sume: tuple[ModuleType, RunningServer]) -> None:
    sdk, server = sume
    server.reset()
    plan = {
        "states": [{"state": "queued", "polls": 1}, {"state": "processing", "polls": 2}],
        "hint": 3,
        "retry_after": "date:+1",
        "result_delay_polls": 2,
        "status_errors": [{"at_poll": 2, "status": 503, "count": 2, "retry_after": 0}],
        "drop_connection_at_polls": [5],
    }
    job_id = server.create_job(plan, credential="k")
    with _client(sdk, server, {"api_key": "k"}) as client:
        result = client.jobs.wait_for_result(job_id, deadline=60)
    assert result.to_dict()["data"]["job_id"] == job_id
    log = server.requests(job_id)
    # The waiter retried the faults, waited out the not-ready reads and never provoked a 409.
    assert [r.status for r in log if r.operation == "result"] == [200]
    faults = [r.fault for r in log if r.fault]
    assert faults == ["status_error", "status_error", "drop_connection"]


def test_sume_terminal_outcomes(sume: tuple[ModuleType, RunningServer]) -> None:
    sdk, server = sume
    server.reset()
    with _client(sdk, server, {"api_key": "k"}) as client:
        failed = server.create_job({"final": "failed"}, credential="k")
        with pytest.raises(sdk.JobFailed) as caught:
            client.jobs.wait_for_result(failed, deadline=60)
        assert caught.value.job_id == failed
        odd = server.create_job({"undocumented_state": "exploded"}, credential="k")
        with pytest.raises(sdk.UnknownJobState):
            client.jobs.wait_for_job(odd, deadline=60)
        stuck = server.create_job({"final": "never"}, credential="k")
        with pytest.raises(sdk.JobTimeout):
            client.jobs.wait_for_job(stuck, deadline=0.5)
        foreign = server.create_job(credential="someone-else")
        with pytest.raises(sdk.AuthenticationError):
            client.jobs.wait_for_job(foreign, deadline=60)


def test_sume_async_create_and_wait_survives_a_dropped_create(
    sume: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = sume
    server.reset()
    models = importlib.import_module(f"{sdk.__name__}.models")  # not left to test order
    body = models.CreateJobRequest(input=models.TextInput(type="text", text="hello"))
    plan = '{"create_errors": [{"attempt": 1, "drop_connection": true, "after_create": true}]}'

    async def main() -> Any:
        async with _client(sdk, server, {"api_key": "k"}, asynchronous=True) as client:
            return await client.jobs.create_and_wait(
                body=body, deadline=60, extra_headers={"x-jobgen-scenario": plan}
            )

    result = asyncio.run(main())
    (job_id,) = server.app.store.jobs
    assert result.to_dict()["data"]["job_id"] == job_id
    creates = [r for r in server.requests() if r.operation == "create"]
    assert [(r.fault, r.replayed) for r in creates] == [("drop_connection", False), (None, True)]
    assert creates[0].idempotency_key == creates[1].idempotency_key is not None


@pytest.mark.parametrize(
    ("spec", "package", "resource", "auth"),
    [
        ("stripe_report_runs", "stripe_e2e_sdk", "reporting", {"token": "k"}),
        ("salesforce_bulk", "salesforce_e2e_sdk", "ingest", {"token": "k"}),
        ("azure_operations", "azure_e2e_sdk", "analysis", {"api_key": "k"}),
    ],
)
def test_other_specs_decode(
    tmp_path: Path, spec: str, package: str, resource: str, auth: dict[str, str]
) -> None:
    path = SPECS / f"{spec}.yaml"
    with (
        imported_sdk(path, tmp_path, package) as sdk,
        run_server(path) as server,
        _client(sdk, server, auth) as client,
    ):
        jobs = getattr(client, resource)
        job_id = server.create_job({"retry_after": 0}, credential="k")
        record = jobs.wait_for_job(job_id, deadline=60)
        assert str(record.id) == job_id
        if hasattr(jobs, "wait_for_result"):
            done = server.create_job(credential="k")
            assert jobs.wait_for_result(done, deadline=60) is not None
        failed = server.create_job({"final": "failure"}, credential="k")
        assert jobs.wait_for_job(failed, deadline=60) is not None
